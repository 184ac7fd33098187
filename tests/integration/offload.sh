#!/usr/bin/env bash
# The directive backends (openacc, omp-target) on this machine, which has no
# GPU: their code paths run on the named host-fallback devices
# (HARNESS_OFFLOAD_HOST=1), never as a GPU; the LBM directive programs
# verify there, and a broken program is reported wrong; a missing offload
# compiler or a broken runtime source leaves both backends without devices,
# each with a one-line reason, and breaks nothing else; a variant that means
# nothing on a backend is refused with its reason. Skipped (not passed)
# where GCC's nvptx offloading compiler is not installed.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir offload
db=$T/o.db
export HARNESS_CACHE=$T/cache # a broken build must never be served a cached good one
H=bin/harness

devs=$(HARNESS_OFFLOAD_HOST=1 $H devices 2>&1)
if echo "$devs" | grep -q "cannot build OpenACC offload code"; then
    echo "ok - offload backends # skip no offloading compiler here ($(echo "$devs" | grep -m1 'openacc:' | cut -c1-160))"
    echo "ok - directive LBM # skip no offloading compiler here"
    exit 0
fi

# --- devices: without an accelerator, a one-line reason each; the fallback only by name
plain=$($H devices 2>&1)
for b in openacc omp-target; do
    if echo "$plain" | grep -qE "^$b:[0-9]"; then
        ok "$b lists an accelerator here (a GPU machine): $(echo "$plain" | grep -m1 "^$b:")"
    elif [ "$(echo "$plain" | grep -c "note: $b: no accelerator:")" = 1 ]; then
        ok "$b: no accelerator, one note line"
    else
        notok "$b: expected one 'no accelerator' note, got: $(echo "$plain" | grep "$b" | head -2)"
    fi
    echo "$plain" | grep -q "^$b:host" && notok "$b:host listed without HARNESS_OFFLOAD_HOST"
    echo "$devs" | grep -A1 "^$b:host " | grep -q "kind cpu" && echo "$devs" | grep "^$b:host " | grep -q "host fallback" &&
        ok "$b:host is listed as a host fallback of kind cpu" || notok "$b:host missing or not named a fallback"
done

export HARNESS_OFFLOAD_HOST=1
# --- the LBM directive programs verify on both host fallbacks (the given and the best forms)
out=$(timeout 900 $H verify lbm --device openacc:host,omp-target:host --variant a01-given,a04-device-av,a06-async \
    --iters 24 --db $db 2>&1)
rc=$?
[ $rc = 0 ] && ! echo "$out" | grep -qiE "wrong|error|crash|timeout" &&
    ok "a01-given, a04-device-av, a06-async verify on openacc:host and omp-target:host" ||
    notok "directive LBM verify exit $rc: $(echo "$out" | grep -iE 'wrong|error|not ok' | head -3)"
n_ok=$(sqlite3 $db "select count(*) from measurement where status='ok'" 2>/dev/null)
[ "$n_ok" = 6 ] && ok "six verified rows stored" || notok "expected 6 ok rows, got '$n_ok'"
# --- a07-globals (loops reading declare-create globals): verified on OpenACC at an odd step count
# (the state ends in the second lattice, and the last step folds no acceleration), refused on OpenMP target
out=$(timeout 300 $H verify lbm --device openacc:host,omp-target:host --variant a07-globals --iters 25 --db $db.g 2>&1)
echo "$out" | grep -E "^a07-globals +\| verified +\| invalid" >/dev/null &&
    echo "$out" | grep -q "params=globals is OpenACC's" &&
    ok "a07-globals verifies on openacc:host (25 steps) and is refused on omp-target:host with its reason" ||
    notok "a07-globals: $(echo "$out" | grep -E 'a07|params' | head -3)"
# --- strips (each row in strips, a gang each): verified on both at 25 steps with 8 strips (a08-strips)
# and with 3, which do not divide 128 columns; refused where it does not apply, with the reason
out=$(timeout 300 $H verify lbm --device openacc:host,omp-target:host --variant a08-strips --iters 25 --db $db.s 2>&1)
echo "$out" | grep -qE "^a08-strips +\| verified +\| verified" &&
    ok "a08-strips (4 strips a row) verifies on openacc:host and omp-target:host (25 steps)" ||
    notok "a08-strips: $(echo "$out" | grep -E 'a08|strips' | head -3)"
out=$(timeout 300 $H run --device openacc:host,omp-target:host --variant a06-async --knobs strips=3 --wg 32x2 --iters 25 \
    --reps 1 --db $db.s 2>&1)
[ "$(echo "$out" | grep -c ' ok ')" = 2 ] && ok "strips=3 (uneven strips of 128 columns), 2 rows a gang: ok on both" ||
    notok "strips=3: $(echo "$out" | grep -v '^note' | head -3)"
out=$($H run --device openacc:host --variant a01-given --knobs strips=4 --iters 8 --db $db.s 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "strips splits the rows of the fused step" &&
    ok "strips with kernels=split refused with the reason" || notok "strips on a01-given: exit $rc: $out"
out=$($H run --device openmp --variant final --knobs strips=4 --iters 8 --db $db.s 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "strips=4 shapes a directive program" &&
    ok "strips on a kernel backend refused with the reason" || notok "strips on openmp: exit $rc: $out"

# --- what GCC hands ptxas for a09's step (the 1024x1024 step's occupancy on a GPU depends on it): no call of
# the target libm's sqrtf (-fno-math-errno; with the call, 183 registers at sm_90) and the lattice index in 32
# bits (K_INDEX32; in 64, 113 registers): at most 104 registers by `ptxas -v` (95 with GCC 12.2 and CUDA 13's
# ptxas). The 64-bit index (grids of 9 x cells past 2^32) still builds. Skipped where ptxas is not installed.
pc=$T/ptx-cache
log=$T/ptx-cc.log
cc12=$(command -v gcc-12 || command -v gcc) # the offloading compiler the backend runs here
printf '#!/bin/sh\necho "$@" >>%s\nexec %s "$@"\n' "$log" "$cc12" >$T/cc-log.sh
chmod +x $T/cc-log.sh
out=$(HARNESS_CACHE=$pc OFFLOAD_CC=$T/cc-log.sh timeout 300 $H run --device openacc:host --variant a09-globals-strips \
    --input gen:64x64 --iters 3 --reps 1 --warmup 0 --db $db.p 2>&1)
so=$(grep -l "lbm_run_globals" $pc/*.so 2>/dev/null | head -1)
ptx=$T/a09.ptx
[ -n "$so" ] && first_ptx "$so" $ptx
if [ ! -s "$ptx" ]; then
    notok "a09's PTX not found in the cached shared object ($(echo "$out" | grep -v '^note' | head -2))"
else
    grep -q "call.*sqrtf" $ptx && notok "a09's PTX calls sqrtf (errno): $(grep -m1 'call.*sqrtf' $ptx)" ||
        ok "a09's PTX has no call of the target libm's sqrtf"
    ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
    if [ -x "$ptxas" ]; then
        regs=$("$ptxas" -arch=sm_90 -c -v $ptx -o $T/a09.o 2>&1 | awk '/Used [0-9]+ registers/{print $5}' | sort -n | tail -1)
        [ -n "$regs" ] && [ "$regs" -le 104 ] && ok "a09's kernels use at most $regs registers (ptxas -v, sm_90; <= 104)" ||
            notok "a09's kernels: '$regs' registers by ptxas -v (more than 104: the call or the 64-bit index is back?)"
    else
        echo "ok - a09's registers by ptxas -v # skip no ptxas here"
    fi
fi
cmd=$(grep -m1 "lbm_acc.c" $log 2>/dev/null)
if echo "$cmd" | grep -q -- "-DK_INDEX32=1"; then
    wide=$(echo "$cmd" | sed -e 's/ -DK_INDEX32=1//' -e "s| -o [^ ]*| -o $T/wide.so|")
    # shellcheck disable=SC2086 # the logged command line, word for word
    $cc12 $wide >$T/wide.log 2>&1 && ok "a09 builds with the 64-bit index too" ||
        notok "a09 without K_INDEX32: $(grep -m2 error $T/wide.log)"
else
    notok "a09 at 64x64 was not built with -DK_INDEX32=1: $(echo "$cmd" | cut -c1-200)"
fi

# --- the other knob settings through run (stored, verified)
out=$(timeout 600 $H run --device openacc:host --variant a02-per-step,a03-fused,a05-soa --iters 16 --reps 1 --db $db 2>&1)
[ "$(echo "$out" | grep -c ' ok ')" = 3 ] && ok "a02-per-step, a03-fused, a05-soa ok on openacc:host" ||
    notok "openacc:host run: $(echo "$out" | grep -v '^note' | head -3)"

out=$(timeout 600 $H run --device omp-target:host --variant a01-given --knobs collapse=1,avvels=device,async=on \
    --iters 16 --reps 1 --db $db 2>&1)
echo "$out" | grep -q ' ok ' && ok "the split loops over rows, averages on the device, queued: ok on omp-target:host" ||
    notok "omp-target:host split collapse=1: $(echo "$out" | grep -v '^note' | head -3)"

# --- invalid on a backend: refused with the reason, exit 2
out=$($H run --device openacc:host --variant t01-given --iters 8 --db $db 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "means nothing to a directive program" &&
    ok "t01-given refused on openacc:host with its reason" || notok "t01-given on openacc:host: exit $rc: $out"
out=$($H run --device openmp --variant a01-given --iters 8 --db $db 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "shapes a directive program" &&
    ok "a01-given refused on openmp with its reason" || notok "a01-given on openmp: exit $rc: $out"
out=$($H run --device omp-target:host --variant a03-fused --knobs collapse=2,avvels=device --iters 8 --db $db 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "avvels=device keeps a sum per row" &&
    ok "collapse=2 with avvels=device refused" || notok "collapse=2 avvels=device: exit $rc: $out"

# With no --device, a directive device that cannot run a variant is skipped with a note (make run's
# t02-ported is a kernel ladder step), and the rest runs.
out=$($H run --variant t02-ported,final --input gen:32x32 --iters 5 --reps 1 --db $T/implicit.db 2>&1); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | grep -c 'skipped (not named by --device): t02-ported')" = 2 ] &&
    echo "$out" | grep -q '^openmp .* ok ' &&
    ok "no --device: the directive devices skipped with a note, openmp ran" ||
    notok "implicit devices: exit $rc: $(echo "$out" | grep -E 'note|harness:' | head -3)"

# --- peak and launch-cost through the backends' own loops
out=$(timeout 300 $H peak --device openacc:host,omp-target:host --db $db 2>&1)
[ "$(echo "$out" | grep -cE 'copy [0-9.]+ GB/s')" = 2 ] && ok "peak measures both host fallbacks" ||
    notok "peak: $(echo "$out" | tail -3)"
out=$(timeout 300 $H launch-cost --device openacc:host --launches 50 --reps 2 --args 0,2 --csv --db $db 2>&1)
[ "$(echo "$out" | grep -c '^openacc:host,')" -ge 4 ] && ok "launch-cost on openacc:host" ||
    notok "launch-cost: $(echo "$out" | tail -3)"

# --- Table 15 of `report lbm`: filled from a directive device; "not measured" with the reason without
cat >$T/t15.def <<'DEF'
app lbm
reference "Tesla P100 (seed 000)"
inputs 128x128
quick 128x128
wg 32x1
table 15 openacc "OpenACC"
run a01-given a06-async
published "OpenACC Tesla P100" 2.651
DEF
timeout 600 $H report lbm --def $T/t15.def --device openacc:host --quick --rounds 1 --reps 1 --db $T/r15.db \
    --out $T/r15 >$T/r15.log 2>&1
md=$(ls $T/r15/report-*.md 2>/dev/null | head -1)
row=$(grep -E '^\| 128x128 \|' "$md" 2>/dev/null)
grep -q 'openacc:host `a01-given` (s)' "$md" 2>/dev/null &&
    [ "$(echo "$row" | grep -oE '\| [0-9]+\.[0-9]+' | wc -l)" = 3 ] &&
    ok "Table 15: a01-given and a06-async measured on openacc:host beside the report's column ($row)" ||
    notok "Table 15 from openacc:host: $(tail -2 $T/r15.log) | $row"
unset HARNESS_OFFLOAD_HOST
timeout 600 $H report lbm --def $T/t15.def --device openmp --quick --rounds 1 --reps 1 --db $T/r15n.db \
    --out $T/r15n >$T/r15n.log 2>&1
md=$(ls $T/r15n/report-*.md 2>/dev/null | head -1)
grep -q '| 128x128 | not measured |' "$md" 2>/dev/null && grep -q 'openacc: no accelerator' "$md" &&
    grep -q 'omp-target: no accelerator' "$md" &&
    ok "Table 15 without a directive device: not measured, each backend's reason" ||
    notok "Table 15 without a directive device: $(grep -A6 'Table 15' "$md" 2>/dev/null | tail -2)"
export HARNESS_OFFLOAD_HOST=1

# --- a broken directive program is reported wrong (through a copy of the tree)
root=$T/root
mkdir -p $root/harness/backend
cp -r kernels variants $root/
cp -r harness/backend/omp_kernel.h harness/backend/offload harness/backend/peak $root/harness/backend/
f=$root/kernels/lbm/lbm_directive.h
sed -i 's/(s)\[2\] = AT(g, 2, ii + y_s \* nx);/(s)[2] = AT(g, 2, ii + y_n * nx);/' $f
if grep -q '(s)\[2\] = AT(g, 2, ii + y_n \* nx);' $f; then
    out=$(HARNESS_ROOT=$root timeout 600 $H verify lbm --device openacc:host --variant a01-given --iters 24 \
        --db $T/w.db 2>&1)
    rc=$?
    [ $rc = 1 ] && echo "$out" | grep -q wrong && ok "a pull from the wrong neighbour is reported wrong" ||
        notok "broken pull: exit $rc: $(echo "$out" | tail -3)"
else
    notok "the sed for the broken pull matched nothing (update this test)"
fi
# A directive source that does not compile: compile-error, not a crash.
cp kernels/lbm/lbm_directive.h $f
echo 'this is not C;' >>$f
out=$(HARNESS_ROOT=$root timeout 300 $H verify lbm --device openacc:host --variant a01-given --iters 8 --db $T/w.db 2>&1)
echo "$out" | grep -qi "compile" && ok "a source that does not compile: compile-error" ||
    notok "broken source: $(echo "$out" | tail -3)"
# A broken runtime source: no devices, one reason each, nothing else breaks.
cp kernels/lbm/lbm_directive.h $f
echo 'this is not C;' >>$root/harness/backend/offload/offload_rt.c
out=$(HARNESS_ROOT=$root $H devices 2>&1); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | grep -c 'cannot build .* offload code:')" = 2 ] && echo "$out" | grep -q '^openmp' &&
    ok "broken runtime source: both backends skipped with a reason, openmp still listed" ||
    notok "broken runtime source: exit $rc: $(echo "$out" | grep -iE 'openacc|omp-target' | head -2)"

# --- a missing offload compiler: no devices, a one-line reason each, nothing else breaks
# (OpenMP target also builds with clang: where clang is there it lists its
# host fallback through LLVM's runtime instead, its driver naming clang)
out=$(OFFLOAD_CC=/nonexistent $H devices 2>&1); rc=$?
acc=$(echo "$out" | grep -c "note: openacc: cc=gcc: no compiler '/nonexistent' runs")
tgt=$(echo "$out" | grep -c "note: omp-target: .*cc=gcc: no compiler '/nonexistent' runs")
[ "$tgt" = 0 ] && echo "$out" | grep -A1 '^omp-target:host ' | grep -q 'driver .*clang version' && tgt=1
[ $rc = 0 ] && [ "$acc" = 1 ] && [ "$tgt" = 1 ] && echo "$out" | grep -q '^openmp' &&
    ok "OFFLOAD_CC=/nonexistent: openacc skipped with one line, omp-target too or listed through clang, openmp still listed" ||
    notok "OFFLOAD_CC=/nonexistent: exit $rc, openacc notes $acc, omp-target $tgt"
out=$(OFFLOAD_CC=/nonexistent timeout 300 $H run --device openmp --variant final --iters 8 --reps 1 --db $db 2>&1)
echo "$out" | grep -q ' ok ' && ok "openmp still runs with OFFLOAD_CC=/nonexistent" ||
    notok "openmp with OFFLOAD_CC=/nonexistent: $(echo "$out" | tail -2)"
out=$(OFFLOAD_CC=/nonexistent $H run --device openacc --variant a01-given --iters 8 --db $db 2>&1); rc=$?
[ $rc = 2 ] && ok "--device openacc without a compiler: exit 2 ($(echo "$out" | grep -v '^note' | head -1 | cut -c1-80))" ||
    notok "--device openacc without a compiler: exit $rc"
exit $((fails > 0))
