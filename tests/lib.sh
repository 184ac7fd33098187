# Shared by the integration tests; sourced after `cd` to the repository root.
# Each check prints "ok - ..." or "not ok - ..." (tests/run_all.sh counts
# them) and a failure adds to $fails, which the script's exit status reports.
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { # NAME COMMAND...: ok when the command succeeds
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
# test_dir NAME: a fresh folder $T for the test's files (under
# $HARNESS_TEST_TMP when run_all.sh sets it, so they are cleaned up together).
test_dir() {
    T=${HARNESS_TEST_TMP:-$(mktemp -d)}/$1
    rm -rf "$T"
    mkdir -p "$T"
}
