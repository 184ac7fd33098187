#!/usr/bin/env bash
# The compiler as a knob (issue 37) on this machine, which has no GPU:
# cc=clang builds every mat-vec and LBM directive variant for OpenMP target's
# host fallback, and OpenMP (CPU) kernels, and each verifies; the products are
# clang's, linked with a run path to LLVM's runtime (no LD_LIBRARY_PATH);
# opt=O0..O3 are distinct products; a compiler that is absent, a backend that
# cannot take clang (OpenACC) or has its own compiler (OpenCL) is refused
# with its reason, one row, and the rest still runs. Skipped where no clang
# with an OpenMP runtime is installed (scripts/deps.sh install adds clang-19).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir omp_clang
export HARNESS_CACHE=$T/cache HARNESS_OFFLOAD_HOST=1
unset LD_LIBRARY_PATH
H=bin/harness
db=$T/c.db

clang_found=
for c in clang-22 clang-21 clang-20 clang-19 clang-18 clang-17 clang-16; do
    command -v $c >/dev/null && [ -n "$($c -print-file-name=libomptarget.so | grep /)" ] && { clang_found=$c; break; }
done
if [ -z "$clang_found" ]; then
    echo "ok - cc=clang on omp-target and openmp # skip no clang-16+ with libomptarget here (apt-get install clang-19 libomp-19-dev)"
    exit 0
fi
if ! $H devices 2>&1 | grep -q "^omp-target:host "; then
    echo "ok - cc=clang on the host fallback # skip omp-target lists no host fallback here: $($H devices 2>&1 | grep -m1 omp-target | cut -c1-160)"
    exit 0
fi

# --- devices: one device, the compiler a knob: its values that build here, and why not
d=$(HARNESS_CLANG=/nonexistent/clang $H devices 2>/dev/null)
echo "$d" | grep -A7 '^omp-target:host ' | grep -q 'compilers (--knobs cc=...): gcc; clang refused: cc=clang: HARNESS_CLANG' &&
    echo "$($H devices 2>/dev/null)" | grep -A7 '^omp-target:host ' | grep -q 'compilers (--knobs cc=...): gcc; clang$' &&
    echo "$d" | grep -A7 '^openacc:host ' | grep -q 'clang refused: cc=clang: clang has no OpenACC' &&
    ok "devices names the compilers each directive device builds with, and why not" ||
    notok "devices: $(echo "$d" | grep compilers | head -3)"

# --- peak and launch-cost through clang's runtime (HARNESS_OFFLOAD_CC=clang lists and opens with it)
d=$(HARNESS_OFFLOAD_CC=clang $H devices 2>/dev/null | grep -A1 '^omp-target:host ')
out=$(HARNESS_OFFLOAD_CC=clang timeout 300 $H peak --device omp-target:host --db $T/peak.db 2>&1)
echo "$d" | grep -q 'driver .*clang version' && echo "$out" | grep -qE 'copy [0-9.]+ GB/s.*FP32 [0-9.]+ GFLOP/s' &&
    ok "HARNESS_OFFLOAD_CC=clang: omp-target:host listed through clang's runtime, peak's copy and FP32 through it" ||
    notok "peak through clang: $(echo "$d" | tail -1); $(echo "$out" | tail -1)"
by_clang=$(for so in $T/cache/*.so; do readelf -p .comment "$so" 2>/dev/null | grep -l 'clang version' >/dev/null && echo "$so"; done | wc -l)
[ "$by_clang" -ge 2 ] && ok "the copy runtime and the FP32 probe were built by clang ($by_clang products)" ||
    notok "products built by clang after peak: $by_clang"

# --- every mat-vec variant on omp-target:host built by clang: verified, or refused as OpenACC's own
out=$(timeout 600 $H verify matvec --device omp-target:host --knobs cc=clang --db $db 2>&1)
rc=$?
n_ok=$(echo "$out" | grep -c '| verified')
n_inv=$(echo "$out" | grep -c '| invalid')
[ $rc = 0 ] && [ "$n_ok" -ge 12 ] && [ "$n_inv" = 3 ] && ! echo "$out" | grep -qiE 'wrong|crash|error' &&
    ok "mat-vec on omp-target:host with cc=clang: $n_ok variants verified, the 3 OpenACC-only refused" ||
    notok "mat-vec cc=clang on omp-target:host: exit $rc, $n_ok verified, $n_inv invalid: $(echo "$out" | grep -iE 'wrong|crash|error' | head -2)"
# --- the LBM directive programs (a01 ... a08) the same way, a06-async (nowait regions) first: libomp then
# asserted in the next program's host teams until its hidden helper tasks were turned off (backend_offload.c)
out=$(timeout 600 $H verify lbm --device omp-target:host --knobs cc=clang --iters 24 \
    --variant a06-async,a01-given,a02-per-step,a03-fused,a04-device-av,a05-soa,a08-strips --db $db 2>&1)
rc=$?
n_ok=$(echo "$out" | grep -c '| verified')
[ $rc = 0 ] && [ "$n_ok" = 7 ] && ok "LBM a01 ... a08 on omp-target:host with cc=clang: 7 of 7 verified" ||
    notok "LBM cc=clang on omp-target:host: exit $rc, $n_ok of 7 verified: $(echo "$out" | grep -iE 'wrong|crash|error|invalid' | head -2)"
stored=$(sqlite3 $db "select count(*) from measurement m join config c on c.id = m.config_id
    where m.status = 'ok' and c.knobs like '%cc=clang%'")
[ "$stored" -ge 19 ] && ok "the clang rows carry cc=clang in their identity ($stored)" ||
    notok "expected >= 19 ok rows with cc=clang in knobs, got '$stored'"

# --- what clang built: clang's code, a run path to LLVM's runtime, which the worker loaded unasked
products=$(ls $T/cache/*.so 2>/dev/null | wc -l)
by_clang=0
rpath_ok=0
for so in $T/cache/*.so; do
    readelf -p .comment "$so" 2>/dev/null | grep -q 'clang version' && by_clang=$((by_clang + 1))
    readelf -d "$so" | grep -q 'RUNPATH.*llvm' && rpath_ok=$((rpath_ok + 1))
done
# (18 programs, clang's runtime, peak's FP32 probe; the rest are GCC's: the runtime that lists the device)
[ "$by_clang" -ge 20 ] && [ "$rpath_ok" = "$by_clang" ] &&
    ok "$by_clang of $products products are clang's, each with a run path to LLVM's runtime" ||
    notok "products $products, by clang $by_clang, with LLVM run path $rpath_ok"

# --- OpenMP on the CPU: cc=clang verifies; opt levels are products of their own
out=$(timeout 600 $H verify matvec --device openmp --variant final,v6-paired --knobs cc=clang --db $db 2>&1)
[ "$(echo "$out" | grep -c '| verified')" = 2 ] && ok "mat-vec on openmp with cc=clang verified" ||
    notok "mat-vec on openmp cc=clang: $(echo "$out" | grep -E '^(final|v6)' | head -2)"
before=$(ls $T/cache/*.so | wc -l)
for o in O0 O1 O2; do
    out=$(timeout 300 $H run --app lbm --device openmp --variant final --knobs cc=clang,opt=$o --input gen:64x64 \
        --iters 20 --reps 1 --db $db 2>&1)
    echo "$out" | grep -q ' ok ' && ok "lbm final on openmp, cc=clang opt=$o: verified" ||
        notok "lbm openmp cc=clang opt=$o: $(echo "$out" | tail -2)"
done
after=$(ls $T/cache/*.so | wc -l)
[ $((after - before)) = 3 ] && ok "three optimisation levels, three products" || notok "products went $before -> $after"
lvl=$(sqlite3 $db "select count(distinct c.knobs) from measurement m join config c on c.id = m.config_id
    where c.app = 'lbm' and c.knobs like '%opt=O%'")
[ "$lvl" = 3 ] && ok "opt is part of the stored identity (3 distinct knob strings)" || notok "distinct opt identities: '$lvl'"

# --- refusals: one line each, one row, the rest still runs
out=$(HARNESS_CLANG=/nonexistent/clang timeout 300 $H run --app matvec --device omp-target:host,openmp \
    --variant final --knobs cc=clang --iters 1 --reps 1 --db $db 2>&1)
[ "$(echo "$out" | grep -c 'HARNESS_CLANG=/nonexistent/clang is not an executable')" = 2 ] &&
    ok "HARNESS_CLANG that does not exist: refused on both backends, naming it" ||
    notok "absent HARNESS_CLANG: $(echo "$out" | tail -3)"
out=$(HARNESS_CLANG=/bin/true timeout 300 $H verify matvec --device omp-target:host,openmp --variant final \
    --knobs cc=clang --db $db 2>&1)
[ "$(echo "$out" | grep -c "cc=clang: '/bin/true --version' names no clang version")" = 2 ] &&
    ok "a compiler that is not clang: refused on both backends in one line, naming it" ||
    notok "HARNESS_CLANG=/bin/true: $(echo "$out" | grep -E '^\[' | head -2)"
out=$(timeout 300 $H verify matvec --device openacc:host,omp-target:host --variant final --knobs cc=clang \
    --db $db 2>&1)
echo "$out" | grep -q 'cc=clang: clang has no OpenACC' && echo "$out" | grep -qE '^final\+ +\| invalid .*\| verified' &&
    ok "cc=clang on openacc refused (clang has no OpenACC); omp-target beside it still runs" ||
    notok "openacc cc=clang: $(echo "$out" | tail -3)"
if $H devices 2>&1 | grep -q '^opencl'; then
    out=$(timeout 300 $H run --app matvec --device opencl --variant final --knobs opt=O1 --iters 1 --reps 1 --db $db 2>&1)
    echo "$out" | grep -q 'compiles with its own (cc=gcc opt=O3 only)' &&
        ok "opt=O1 on OpenCL refused: its compiler is the driver's" || notok "opencl opt=O1: $(echo "$out" | tail -2)"
fi
out=$($H run --app matvec --device openmp --variant final --knobs cc=icx --iters 1 --reps 1 --db $db 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "icx" && ok "cc=icx: an unknown value, exit 2" || notok "cc=icx: exit $rc: $out"
exit $((fails > 0))
