#!/usr/bin/env bash
# The unit tests again, built with ASan and UBSan (make san-build puts them
# in build/san/tests/), each run once, then the harness built the same way
# (build/san/harness) running each app on this machine's CPU devices
# (OpenMP, and PoCL's OpenCL where installed): backends, workers and driver
# calls under the sanitizers. Any sanitizer report stops the program
# (-fno-sanitize-recover=all) and fails it; leaks are errors too
# (detect_leaks=1), less the driver libraries' own in tests/lsan.supp.
# One line per program or run: "ok - sanitize ...: no sanitizer report", or
# "not ok" with the report's first lines. Skipped (never passed) where the
# compiler cannot build with the sanitizers.
set -u
cd "$(dirname "$0")/.."
root=$PWD
. tests/lib.sh # matvec_variants (its ok/notok/check go unused: judge below counts)
progs=$(ls tests/unit/test_*.c | sed 's|tests/unit/\(.*\)\.c|\1|')
# Built by $SAN_CC, or by clang where it links libFuzzer (the Makefile's
# one sanitized library for these and the fuzz targets): skipped only where
# neither can.
if ! why=$(bash scripts/can_sanitize.sh asan) && ! bash scripts/can_sanitize.sh fuzz >/dev/null; then
    for p in $progs; do echo "ok - sanitize $p # skip $why"; done
    exit 0
fi
own_tmp=
if [ -z "${HARNESS_TEST_TMP:-}" ]; then # run alone (make test-sanitize), not from run_all.sh
    export HARNESS_TEST_TMP=$(mktemp -d) && own_tmp=$HARNESS_TEST_TMP
    export HARNESS_DB=$HARNESS_TEST_TMP/results.db
    export HARNESS_CACHE=${HARNESS_CACHE:-$root/build/test-cache}
fi
trap '[ -n "$own_tmp" ] && rm -rf "$own_tmp"' EXIT
# The programs live one folder deeper than build/tests/, where they would
# find the repository by themselves.
export HARNESS_ROOT=$root
# intercept_tls_get_addr=0: with it, LeakSanitizer's tracer dies reading
# libgomp's worker threads' dynamic TLS ("Tracer caught signal 11" on every
# OpenMP run here); our code keeps no pointers there.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0

# judge NAME RC OUTPUT: one line for a sanitized program's run.
judge() {
    local name=$1 rc=$2 out=$3
    local checks bad report
    checks=$(echo "$out" | grep -c '^ok - ')
    bad=$(echo "$out" | grep -c '^not ok - ')
    report=$(echo "$out" | grep -m1 -nE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: .*Sanitizer' | cut -d: -f1)
    if [ -n "$report" ]; then
        echo "not ok - sanitize $name: a sanitizer report"
        echo "$out" | tail -n +"$report" | head -25 | sed 's/^/#   /'
        failed=1
    elif [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
        echo "not ok - sanitize $name: exit status $rc, $bad failed checks"
        echo "$out" | grep -E '^not ok - ' | head -5 | sed 's/^/#   /'
        echo "$out" | tail -5 | sed 's/^/#   /'
        failed=1
    elif [ "$checks" -gt 0 ]; then
        echo "ok - sanitize $name: $checks checks, no sanitizer report"
    else
        echo "ok - sanitize $name: no sanitizer report"
    fi
}

# The suppressions hide C++ libraries' blocks, never ours: a C program that
# leaks one malloc'd block, built with this compiler's sanitizers and run
# under the same options, must still be reported.
san_cc=$(head -1 build/san/flags.stamp 2>/dev/null | awk '{print $1}')
printf '#include <stdlib.h>\nvoid *volatile keep;\nint main(void){keep = malloc(48); keep = 0; return 0;}\n' \
    >"$HARNESS_TEST_TMP/planted_leak.c"
if ${san_cc:-cc} -g -fsanitize=address "$HARNESS_TEST_TMP/planted_leak.c" -o "$HARNESS_TEST_TMP/planted_leak" 2>/dev/null; then
    out=$("$HARNESS_TEST_TMP/planted_leak" 2>&1)
    if echo "$out" | grep -q 'ERROR: LeakSanitizer: detected memory leaks'; then
        echo "ok - sanitize: a leak of our own (a planted malloc) is still reported under tests/lsan.supp"
    else
        echo "not ok - sanitize: a planted leak was not reported: the suppressions hide the project's own leaks"
        failed=1
    fi
fi

# The unit tests' long serial references (test_sandpile's 512x512 to
# stability: about 20 s plain, minutes under ASan) are cached on disk by the
# apps; the plain program fills the cache first, so the sanitized one never
# computes them under the sanitizers. (In the pool the plain test usually ran
# first; when it did not, the sanitized test_sandpile took over 5 minutes.)
[ -x build/tests/test_sandpile ] && build/tests/test_sandpile >/dev/null 2>&1

# Statistics, not new code paths: the replay acceptance (20 seeds x 4
# strategies x every landscape), the 10^6-point cost test and the search's
# quality over 20 seeds ran 190 s of CPU under ASan, a third of the suite's
# budget (issue 40). The code they drive (spaces, every strategy, three
# shape sides, the landscape loaders) runs sanitized in test_tune and
# test_landscape; these three run plain. So does test_dg_order: the DG
# reference to t = 2 at 128x128 (10 s of CPU plain, over 100 s sanitized),
# whose code test_dg runs sanitized on smaller meshes.
SAN_SKIP=" test_tune_replay test_tune_scale test_tune_quality test_dg_order "
for p in $progs; do
    bin=build/san/tests/$p
    case "$SAN_SKIP" in *" $p "*)
        if [ "$p" = test_dg_order ]; then
            echo "ok - sanitize $p # skip the DG reference at 128x128 to t = 2; its code runs sanitized in test_dg"
        else
            echo "ok - sanitize $p # skip statistics over many seeds; its code runs sanitized in test_tune"
        fi
        continue ;;
    esac
    if [ ! -x "$bin" ]; then echo "not ok - sanitize $p: $bin was not built"; failed=1; continue; fi
    # The CUDA compile tests' NVRTC compiles (test_lbm_cuda_compile: 25 s
    # where CUDA is installed) are the plain run's: without NVRTC each counts
    # itself skipped (nvrtc_tools.h).
    out=$(CUDA_HOME=/nonexistent "$bin" 2>&1)
    judge "$p" $? "$out"
done

# The harness on the CPU devices, through the workers (two rounds) and
# in-process (--out). Not where an NVIDIA driver is installed: listing
# devices initialises it, and its allocations under ASan are not ours to
# judge (nor in tests/lsan.supp).
# The mat-vec's every variant a CPU runs: not OpenACC's own (tests/lib.sh's
# matvec_variants says which), which run refuses whole there.
matvec_variants
mv_cpu=$(for n in "${names[@]}"; do [ "${acc[$n]}" = 1 ] || echo "$n"; done | paste -sd, -)
runs=("lbm --input gen:32x32 --variant final,t02-ported --rounds 2" "stencil --input 64x32 --rounds 2"
      "selftest --input gen:256 --out $HARNESS_TEST_TMP/san-out" "matvec --input gen:12x8x5 --variant $mv_cpu --rounds 2")
for r in "${runs[@]}"; do
    name="harness run --app ${r%% *} --device cpu"
    if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
        echo "ok - sanitize $name # skip an NVIDIA driver is installed"
        continue
    fi
    if [ ! -x build/san/harness ]; then echo "not ok - sanitize $name: build/san/harness was not built"; failed=1; continue; fi
    # shellcheck disable=SC2086 # r is words
    out=$(build/san/harness run --app $r --device cpu --iters 5 --reps 2 --warmup 0 --db "$HARNESS_TEST_TMP/san.db" 2>&1)
    judge "$name" $? "$out"
done
# Error paths under the sanitizers (issue 34): an unknown device leaked the
# device list (LSan); a sweep whose constraints reject every shape passed
# qsort a NULL array (UBSan). Each must end cleanly, with its exit status.
if [ -x build/san/harness ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    out=$(build/san/harness peak --device nope --db "$HARNESS_TEST_TMP/san-err.db" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || out="$out
(exit $rc, wanted 2)"
    judge "harness peak --device nope (exit 2)" $((rc != 2)) "$out"
    printf 'app lbm\ninput gen:32x32\nvariant final\ndevice openmp\nwg 4x4 8x8\nconstraint x > 100\n' \
        >"$HARNESS_TEST_TMP/san-none.sweep"
    out=$(build/san/harness sweep "$HARNESS_TEST_TMP/san-none.sweep" --dry-run 2>&1)
    judge "harness sweep --dry-run whose constraints reject every shape" $? "$out"
fi
exit $failed
