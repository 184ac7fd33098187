#!/usr/bin/env bash
# Runs the README's test command as a new user's machine would, before you
# stop (issue 40): a fresh clone of the committed HEAD, an empty HOME and
# cache folders (so no PoCL kernel cache, no pip or build cache of an
# earlier run), CI=true and no terminal; as root, .ci/run (which installs
# what the machine lacks, then `make test`), else `make test`. RUNS=N runs
# it N times in a row (a fresh clone and empty folders each time); each
# run's closing line, wall time and log (under $KEEP, default a temp
# folder) are printed. Exit status: 0 when every run passed and each took
# under LIMIT seconds (default 600, the developers' guide's 10 minutes).
#   bash scripts/clean_check.sh            one run
#   RUNS=3 bash scripts/clean_check.sh     the acceptance of issue 40
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-1} limit=${LIMIT:-600}
keep=${KEEP:-$(mktemp -d)}
bad=0
for i in $(seq 1 "$runs"); do
    dir=$keep/run$i
    rm -rf "$dir"
    mkdir -p "$dir/home"
    git clone -q "$src" "$dir/tree" || exit 2
    # shared/ beside the checkout, as CI lays it (the acceptance checks).
    [ -d "$src/../shared" ] && ln -s "$src/../shared" "$dir/shared"
    cmd="make test"
    [ "$(id -u)" -eq 0 ] && cmd="bash .ci/run"
    t0=$(date +%s)
    (cd "$dir/tree" && env -u POCL_CACHE_DIR -u HARNESS_CACHE -u HARNESS_DB HOME="$dir/home" \
        XDG_CACHE_HOME="$dir/home/.cache" CI=true $cmd </dev/null >"$dir/log" 2>&1)
    rc=$?
    s=$(($(date +%s) - t0))
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/log" | tail -1)
    echo "run $i: ${line:-no summary line} in $((s / 60))m$((s % 60))s, exit $rc (log $dir/log)"
    grep -E '^not ok' "$dir/log" | head -5 | sed 's/^/  /'
    grep -E '^# all tests:' "$dir/log" | sed 's/^/  /'
    if [ $rc -ne 0 ] || [ "$s" -ge "$limit" ]; then bad=1; fi
done
exit $bad
