#!/usr/bin/env bash
# The parsers' fuzz targets (fuzz/), each for FUZZ_RUNS executions (default
# 10000) starting from its seed corpus (fuzz/corpus/<target>/) and its
# regressions (fuzz/regressions/<target>/: inputs that once crashed it, run
# first), with a fixed seed (FUZZ_SEED) so a failure here fails the same
# way again. New corpus entries go to a temporary folder, never the tree.
# One line per target: "ok - fuzz <target>: N runs, E exec/s", or "not ok"
# with the report's first lines and the input kept in build/fuzz/crashes/.
# Skipped (never passed) where clang's libFuzzer is missing.
set -u
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000}
seed=${FUZZ_SEED:-1}
targets=$(ls fuzz/fuzz_*.c | sed 's|fuzz/fuzz_\(.*\)\.c|\1|')
if ! why=$(bash scripts/can_sanitize.sh fuzz); then
    for t in $targets; do echo "ok - fuzz $t # skip $why"; done
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p build/fuzz/crashes
failed=0
for t in $targets; do
    bin=build/fuzz/fuzz_$t
    if [ ! -x "$bin" ]; then echo "not ok - fuzz $t: $bin was not built"; failed=1; continue; fi
    dirs=("fuzz/corpus/$t")
    [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
    mkdir -p "$tmp/$t"
    start=$(date +%s%N)
    "$bin" -runs="$runs" -seed="$seed" -timeout=10 -artifact_prefix="build/fuzz/crashes/$t-" "$tmp/$t" "${dirs[@]}" \
        >"$tmp/$t.log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/$t.log")
    if [ "$rc" -eq 0 ] && [ -n "$done_runs" ]; then
        echo "ok - fuzz $t: $done_runs runs, 0 crashes, $((done_runs * 1000 / (ms > 0 ? ms : 1))) exec/s"
    else
        echo "not ok - fuzz $t: exit status $rc (fuzz/README.md: reproducing and keeping a crash)"
        { grep -m1 -A20 -E '^fuzz: |ERROR: |runtime error:|SUMMARY' "$tmp/$t.log" | head -20
          grep -E 'Test unit written to' "$tmp/$t.log"; } | awk '!seen[$0]++' | sed 's/^/#   /'
        failed=1
    fi
done
exit $failed
