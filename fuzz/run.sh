#!/usr/bin/env bash
# make fuzz: every target (or those named) for FUZZ_SECONDS each (default
# 60), with a random seed, from the seed corpus and the regressions. What
# the fuzzer learns is kept in build/fuzz/corpus/<target>/ for the next run;
# crashes in build/fuzz/crashes/. Ends with one line per target.
#   fuzz/run.sh [TARGET...]      e.g. fuzz/run.sh sweep knobs
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
if ! why=$(bash scripts/can_sanitize.sh fuzz); then
    echo "fuzz: cannot fuzz here: $why" >&2
    exit 1
fi
targets=${*:-$(ls fuzz/fuzz_*.c | sed 's|fuzz/fuzz_\(.*\)\.c|\1|')}
mkdir -p build/fuzz/crashes
summary=() failed=0
for t in $targets; do
    bin=build/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: $bin is not built (make fuzz-build)" >&2; exit 1; }
    dirs=("fuzz/corpus/$t")
    [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
    mkdir -p "build/fuzz/corpus/$t"
    echo "== $t: $secs s" >&2
    "$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$t-" \
        "build/fuzz/corpus/$t" "${dirs[@]}" 2>"build/fuzz/$t.log"
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$t.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "build/fuzz/$t.log")
    if [ "$rc" -eq 0 ]; then
        summary+=("ok - $t: ${runs:-?} runs in $secs s, ${rate:-?} exec/s")
    else
        summary+=("not ok - $t: exit status $rc; the report is in build/fuzz/$t.log")
        failed=1
    fi
done
printf '%s\n' "${summary[@]}"
ls build/fuzz/crashes/* 2>/dev/null | sed 's/^/crash input: /'
exit $failed
