#!/usr/bin/env bash
# scripts/kernel_code.sh: a named variant's kernel compiled by nvcc for sm_90
# with the harness's own build options, its registers and instruction counts
# on one line; the same for the kernels of another folder (--src), so two
# versions compare; bad input exits 2. Skipped without nvcc.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir kernel_code
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ ! -x "$nvcc" ]; then
    echo "ok - # skip: no nvcc under \$CUDA_HOME or /usr/local/cuda"
    exit 0
fi
out=$(scripts/kernel_code.sh --keep "$T/keep" g16-pull 24x16 2>"$T/err")
check "g16-pull 24x16: registers, spills, PTX instructions on one line ($out)" \
    bash -c "echo '$out' | grep -qE '^g16-pull 24x16 regs=[1-9][0-9]* spill_stores=0 spill_loads=0 stack=[0-9]+ smem=[0-9]+ sass=([0-9]+|-) ptx=[1-9][0-9]*$'"
check "--keep writes the kernel's PTX (fused_temporal's entry only)" \
    bash -c "grep -q '^.visible .entry fused_temporal(' '$T/keep/fused_temporal.ptx' && ! grep -q 'fused_step' '$T/keep/fused_temporal.ptx'"
cp -r kernels/lbm "$T/src"
same=$(scripts/kernel_code.sh --src "$T/src" g16-pull 24x16 2>/dev/null)
check "--src: a copy of the kernels gives the same line" test "$same" = "$out"
knobs=$(scripts/kernel_code.sh g16-pull 24x16 sums=end 2>/dev/null)
check "knobs on top of the variant: another kernel ($knobs)" bash -c "[ -n '$knobs' ] && [ '$knobs' != '$out' ]"
scripts/kernel_code.sh no-such-variant 24x16 >/dev/null 2>&1
rc=$?
check "an unknown variant exits 2 (got $rc)" test $rc -eq 2
exit $((fails > 0))
