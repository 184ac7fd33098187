#!/usr/bin/env bash
# Runs every test: the unit test programs (build/tests/*), the integration
# scripts (tests/integration/*.sh), then the unit tests and the harness
# under ASan and UBSan (tests/sanitize.sh) and the parsers' fuzz targets
# (tests/fuzz.sh, FUZZ_RUNS executions each). Each prints "ok - ..." or "not ok - ..."
# lines; a program that crashes or exits non-zero without a "not ok" line
# counts as one failure. A check that could not run here says so with
# "ok - ... # skip ..." (TAP's convention) or a "# skipped: ..." line, and is
# counted as skipped, never as passed. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
export HARNESS_TEST_TMP=$(mktemp -d)
trap 'rm -rf "$HARNESS_TEST_TMP"' EXIT
# Tests must not touch the user's database or kernel cache.
export HARNESS_DB=$HARNESS_TEST_TMP/results.db
export HARNESS_CACHE=${HARNESS_CACHE:-$PWD/build/test-cache}
passed=0 failed=0 skipped=0
run_one() { # name, command...
    local name=$1; shift
    local out rc
    echo "# $name"
    local t0=$SECONDS
    out=$("$@" 2>&1); rc=$?
    echo "$out" | grep -E '^(not )?ok - |^# ' || true
    local p f s
    p=$(echo "$out" | grep '^ok - ' | grep -vc '# skip')
    s=$(echo "$out" | grep -cE '^ok - .*# skip|^# skipped')
    f=$(echo "$out" | grep -c '^not ok - ')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $name exited with status $rc"
        echo "$out" | tail -5 | sed 's/^/#   /'
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "# $name: $((SECONDS - t0)) s" # the suite must stay under CI's 10 minutes: where the time goes
}
# Only the programs whose source is in tests/unit (a stale binary of a
# moved or deleted test must not run).
for src in tests/unit/test_*.c; do
    t=build/tests/$(basename "$src" .c)
    if [ -x "$t" ]; then run_one "$(basename "$t")" "$t"
    else echo "not ok - $t was not built"; failed=$((failed + 1)); fi
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
run_one sanitize.sh bash tests/sanitize.sh
run_one fuzz.sh bash tests/fuzz.sh
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
