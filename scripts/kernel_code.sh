#!/usr/bin/env bash
# The compiled code of one LBM kernel for a named variant, on a machine
# without a GPU: registers, spills and shared memory (ptxas -v), SASS
# instructions (cuobjdump) and PTX instructions of the kernel, compiled for
# sm_90 by nvcc with the -D flags and options the harness's build passes
# (build/tools/lbm_options, from lbm_build_options in kernels/lbm/schedule.c).
#
#   scripts/kernel_code.sh [--src DIR] [--kernel NAME] [--keep DIR] VARIANT WxH [KNOBS]
#
# --src     the folder holding lbm.cu and its headers (default kernels/lbm):
#           compare against another version, e.g. one from `git archive`
# --kernel  the kernel (default fused_temporal)
# --keep    write NAME.sass (addresses and encodings stripped, for diff) and
#           NAME.ptx there
# KNOBS     settings on top of the variant's, "k=v,k=v"
# cuobjdump: $CUOBJDUMP, else on PATH, else $CUDA_HOME/bin; it runs nvdisasm
# from PATH or its own folder (pip's nvidia-cuda-cuobjdump and
# nvidia-cuda-nvdisasm ship them). Without it the SASS count is "-".
# Prints one line: variant wg regs spill_stores spill_loads stack smem sass ptx
set -eu
cd "$(dirname "$0")/.."
src=kernels/lbm kernel=fused_temporal keep=""
while [ $# -gt 0 ]; do
    case $1 in
    --src) src=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 [--src DIR] [--kernel NAME] [--keep DIR] VARIANT WxH [KNOBS]" >&2; exit 2; }
variant=$1 wg=$2 knobs=${3:-}
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
[ -x "$nvcc" ] || { echo "$0: no nvcc at $nvcc" >&2; exit 2; }
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || echo "$cuda/bin/cuobjdump")}
make -s --no-print-directory build/tools/lbm_options >&2
opts=$(build/tools/lbm_options cuda "$variant" "$wg" ${knobs:+"$knobs"})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # the options are words
"$nvcc" -arch=sm_90 -std=c++17 -I"$src" $opts -Xptxas -v -cubin -o "$tmp/k.cubin" "$src/lbm.cu" 2>"$tmp/ptxas" ||
    { cat "$tmp/ptxas" >&2; exit 1; }
# shellcheck disable=SC2086
"$nvcc" -arch=sm_90 -std=c++17 -I"$src" $opts -ptx -o "$tmp/k.ptx" "$src/lbm.cu" 2>/dev/null
# ptxas -v: "Compiling entry function 'NAME'", then its stack and spills,
# then "Used N registers, ... S bytes smem".
awk -v k="$kernel" '
    /Compiling entry function/ { on = index($0, "'"'"'" k "'"'"'") > 0 }
    on && /bytes stack frame/ { match($0, /[0-9]+ bytes stack/); stack = substr($0, RSTART, RLENGTH - 12)
        match($0, /[0-9]+ bytes spill stores/); st = substr($0, RSTART, RLENGTH - 19)
        match($0, /[0-9]+ bytes spill loads/); ld = substr($0, RSTART, RLENGTH - 18) }
    on && /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); regs = substr($0, RSTART + 5, RLENGTH - 5)
        smem = 0; if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11); on = 0 }
    END { print regs + 0, st + 0, ld + 0, stack + 0, smem + 0 }' "$tmp/ptxas" >"$tmp/res"
# The kernel's PTX: from its .entry to the closing brace; instructions are
# the lines ending in ';' that are not declarations (.reg, .shared, ...).
awk -v k="$kernel" '
    $0 ~ "^\\.(visible )?\\.entry " k "\\(" { on = 1 }
    on && /^}/ { on = 0 }
    on' "$tmp/k.ptx" >"$tmp/kernel.ptx"
ptx=$(grep -E ';[[:space:]]*(//.*)?$' "$tmp/kernel.ptx" | grep -cvE '^[[:space:]]*\.' || true)
sass=-
if [ -x "$cuobjdump" ]; then
    export PATH="$(dirname "$cuobjdump"):$PATH" # its nvdisasm, where pip put both
    "$cuobjdump" -sass -fun "$kernel" "$tmp/k.cubin" |
        grep -E '^[[:space:]]*/\*[0-9a-f]{4,}\*/' |
        sed -E 's#/\*[0-9a-f]{4,}\*/##; s#/\* 0x[0-9a-f]+ \*/##; s/[[:space:]]+/ /g; s/^ //; s/ $//' >"$tmp/kernel.sass"
    sass=$(wc -l <"$tmp/kernel.sass")
fi
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    cp "$tmp/kernel.ptx" "$keep/$kernel.ptx"
    [ -f "$tmp/kernel.sass" ] && cp "$tmp/kernel.sass" "$keep/$kernel.sass"
fi
read -r regs st ld stack smem <"$tmp/res"
echo "$variant${knobs:++$knobs} $wg regs=$regs spill_stores=$st spill_loads=$ld stack=$stack smem=$smem sass=$sass ptx=$ptx"
