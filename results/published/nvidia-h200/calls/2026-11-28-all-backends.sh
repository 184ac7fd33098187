#!/usr/bin/env bash
# Issue 39 on the GPU host: every backend present in one process tree (CUDA, NVIDIA OpenCL, PoCL,
# OpenMP, and GCC 12's OpenACC and OpenMP target with their runtime loaded), as a user following
# the README would have them. Run from the repository root with .gpu-host carried (offload/*.deb
# and wheels/ included) as `bash results/published/nvidia-h200/calls/2026-11-28-all-backends.sh`. Writes to $OUT:
#   devices.txt   `harness devices`
#   peak.txt      `harness peak` over every device (the acceptance: exit 0, one ceiling each)
#   report.txt, report.tar.xz   `harness report lbm --quick` over every device (exit 0; Table 15
#                 with OpenACC and OpenMP target cells, Table 16 with the Python host's)
#   all.db        the database of both
set -u
OUT=${OUT:-/tmp/all-out}
mkdir -p "$OUT"
source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || { echo "offload.sh failed"; tail -5 "$OUT/setup.log"; exit 1; }
# The Python host (Table 16): pyopencl from the kit's wheels.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu-host/wheels/*.whl \
    >>"$OUT/setup.log" 2>&1 && export PYTHONPATH=/tmp/site
C=$(cat .gpu-host/commit 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 bin/harness >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built $C in ${SECONDS}s"
export LD_LIBRARY_PATH="$OFFLOAD_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HARNESS_CACHE=/tmp/all-cache
H=bin/harness
DB=$OUT/all.db
$H devices >"$OUT/devices.txt" 2>&1
grep -E '^[a-z-]+(:[0-9.]+)? ' "$OUT/devices.txt"
$H peak --db "$DB" >"$OUT/peak.txt" 2>&1
echo "peak exit $? at ${SECONDS}s"
cat "$OUT/peak.txt"
# One device's runtime aborting (the drill) costs that device's line only.
HARNESS_DRILL_ABORT=openacc:0 $H peak --db "$OUT/drill.db" >"$OUT/peak-drill.txt" 2>&1
echo "peak with openacc:0 aborting: exit $? at ${SECONDS}s"
grep -E 'copy|died' "$OUT/peak-drill.txt"
timeout $((560 - SECONDS)) $H report lbm --quick --db "$DB" --out "$OUT/report" >"$OUT/report.txt" 2>&1
echo "report exit $? at ${SECONDS}s"
grep -E '^report:|harness|context|fail' "$OUT/report.txt" | head -20
md=$(ls "$OUT"/report/*.md 2>/dev/null | head -1)
[ -n "$md" ] && { grep -A12 '^## Table 15' "$md"; grep -A8 '^## Table 16' "$md"; }
tar cJf "$OUT/report.tar.xz" -C "$OUT" report report.txt && rm -rf "$OUT/report"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "done at ${SECONDS}s"
