# Sourced by the GPU benchmark scripts (scripts/*.sh that run on the GPU
# host), which it sets up: strict variables, `reps` from the script's first
# argument (default 3; sourcing passes the caller's arguments), the
# repository root, the harness, the devices (CUDA_DEVICE, OPENCL_DEVICE), and `run`, which
# prints the command line before its result lines (the tables are read from
# that log) and lets the sweep go on when one run fails, noting it in
# `status`. `peak DEVICES` measures the ceilings in the same call. `runs DEVICE
# VARIANT INPUT KNOBS:WG...` is one run per pair (KNOBS may be empty).
set -u
reps=${1:-3}
cd "$(dirname "${BASH_SOURCE[1]}")/.." || exit 2
H=bin/harness
cuda=${CUDA_DEVICE:-cuda:0} ocl=${OPENCL_DEVICE:-opencl:1.0}
status=0
run() { echo "+ harness run $*"; timeout "${RUN_TIMEOUT:-300}" $H run --reps "$reps" "$@" || status=1; }
peak() { $H peak --device "$1" || status=1; }
runs() {
    local dev=$1 var=$2 in=$3 kw
    shift 3
    for kw in "$@"; do
        if [ -n "${kw%%:*}" ]; then run --device "$dev" --input "$in" --variant "$var" --knobs "${kw%%:*}" --wg "${kw#*:}"
        else run --device "$dev" --input "$in" --variant "$var" --wg "${kw#*:}"; fi
    done
}
