#!/usr/bin/env bash
# Runs every test: the unit test programs (build/tests/*), the integration
# scripts (tests/integration/*.sh), then the unit tests and the harness
# under ASan and UBSan (tests/sanitize.sh) and the parsers' fuzz targets
# (tests/fuzz.sh, FUZZ_RUNS executions each). Each prints "ok - ..." or "not ok - ..."
# lines; a program that crashes or exits non-zero without a "not ok" line
# counts as one failure. A check that could not run here says so with
# "ok - ... # skip ..." (TAP's convention) or a "# skipped: ..." line, and is
# counted as skipped, never as passed. Ends with "N passed, N failed, N skipped".
#
# The suite must stay under CI's 10 minutes on a 2-core machine, so tests run
# TEST_JOBS at a time (default: cores + 2, as most of them wait on compilers,
# worker processes or a local Slurm part of the time: slurm.sh takes 96 s
# for 3 s of its own CPU, progress.sh 36 s for 3), each with its own database,
# printing its lines in the usual order when done. In that pool OpenMP's
# idle threads sleep (OMP_WAIT_POLICY=passive): spinning, they took the
# cores the other tests needed (tests/sanitize.sh: 32 s alone, 431 s in a
# pool of three). Tests that judge timings against each other (ALONE below)
# run first, by themselves, so a neighbour's load cannot become their noise
# (nightly.sh beside slurm.sh's few seconds of CPU once saw a round judged
# disturbed: "1/2 1/3" where it checks for "1/3 1/3").
set -u
cd "$(dirname "$0")/.."
export HARNESS_TEST_TMP=$(mktemp -d)
trap 'rm -rf "$HARNESS_TEST_TMP"' EXIT
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM # the pool's tests stop with the suite
# Tests must not touch the user's database or kernel cache.
export HARNESS_CACHE=${HARNESS_CACHE:-$PWD/build/test-cache}
# PoCL compiles a kernel's work-group function once per local size by
# default: from a clean state the suite's 183 programs took 1331 of them,
# about a third of its CPU (issue 40). One generic function per kernel (the
# local size read at run time) runs the same kernel code, still optimised;
# the tests verify results, they do not time PoCL against itself.
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
jobs_max=${TEST_JOBS:-$(($(nproc) + 2))}
# nightly.sh: two nights of one build must not be called a regression;
# tune.sh: a search must beat the stored shape round for round (in a pool of
# three it once lost a round and kept it: CI run 11).
ALONE="nightly.sh tune.sh"
outs=$HARNESS_TEST_TMP/outputs
mkdir -p "$outs"

# run_one NAME COMMAND...: runs it with its own database; its output, exit
# status and seconds go to $outs/NAME.{out,rc,s}.
run_one() {
    local name=$1; shift
    local t0=$SECONDS
    local TIMEFORMAT='%U %S' # the CPU seconds (user, system), children included
    { time HARNESS_DB=$HARNESS_TEST_TMP/$name.db "$@" >"$outs/$name.out" 2>&1; } 2>"$outs/$name.cpu"
    echo $? >"$outs/$name.rc"
    echo $((SECONDS - t0)) >"$outs/$name.s"
    echo "# finished $name in $((SECONDS - t0)) s" # progress; the lines come in order at the end
}

names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }
missing=0
# Only the programs whose source is in tests/unit (a stale binary of a
# moved or deleted test must not run).
for src in tests/unit/test_*.c; do
    t=build/tests/$(basename "$src" .c)
    if [ -x "$t" ]; then add "$(basename "$t")" "$t"
    else echo "not ok - $t was not built"; missing=$((missing + 1)); fi
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] && add "$(basename "$t")" bash "$t"
done
add sanitize.sh bash tests/sanitize.sh
add fuzz.sh bash tests/fuzz.sh

t_start=$SECONDS
for i in "${!names[@]}"; do
    case " $ALONE " in *" ${names[$i]} "*) run_one "${names[$i]}" ${cmds[$i]} ;; esac
done
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# The rest in a pool, the longest first (their seconds from the last run
# here, when there was one) so the pool does not end waiting on one of them.
# A fresh checkout has no last run: tests/seconds.txt holds one (a 2-core
# machine, a clean clone, 2026-12-07), the order only.
last=build/test-seconds
seconds=$last
[ -f "$seconds" ] || seconds=tests/seconds.txt
order=$(for i in "${!names[@]}"; do
    case " $ALONE " in *" ${names[$i]} "*) continue ;; esac
    s=$(awk -v n="${names[$i]}" '$2 == n {print $1}' "$seconds" 2>/dev/null)
    echo "${s:-60} $i"
done | sort -rn | awk '{print $2}')
for i in $order; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    run_one "${names[$i]}" ${cmds[$i]} &
done
wait

passed=0 failed=$missing skipped=0
: >"$last.new"
for name in "${names[@]}"; do
    out=$(cat "$outs/$name.out"); rc=$(cat "$outs/$name.rc" 2>/dev/null || echo 1); s=$(cat "$outs/$name.s" 2>/dev/null)
    echo "# $name"
    echo "$out" | grep -E '^(not )?ok - |^# ' || true
    p=$(echo "$out" | grep '^ok - ' | grep -vc '# skip')
    sk=$(echo "$out" | grep -cE '^ok - .*# skip|^# skipped')
    f=$(echo "$out" | grep -c '^not ok - ')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $name exited with status $rc"
        echo "$out" | tail -5 | sed 's/^/#   /'
        f=1
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + sk))
    cpu=$(awk '{printf "%.0f", $1 + $2}' "$outs/$name.cpu" 2>/dev/null)
    echo "# $name: $s s ($cpu s of CPU)" # where the time goes
    echo "$s $name $cpu" >>"$last.new"
done
mv "$last.new" "$last"
echo "# all tests: $((SECONDS - t_start)) s, $jobs_max at a time, $(awk '{s += $3} END {print s}' "$last") s of CPU"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
