#!/usr/bin/env bash
# GPU call (issue 19, item 4): Table 16's Python column. The Python host
# (kernels/lbm/host.py, variant final-python) and the C host's `final` on
# NVIDIA's OpenCL, verified, then Table 16 by `harness report lbm` at the
# report's inputs (a definition of Table 16 alone, cut from
# kernels/lbm/report.def so it cannot drift from it).
# Run from the repository root with .gpu-host carried (wheels/ inside):
#     bash scripts/gpu-calls/pyhost-gpu.sh          (DEV=opencl:P.D to pick another device)
# Writes to $OUT: setup/pip/build logs, devices.txt, verify.txt, run.txt,
# report.log, report/ (the markdown), pyhost.db and measurements.csv.
set -u
OUT=${OUT:-/tmp/pyhost-out}
mkdir -p "$OUT"
source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1

# pyopencl from the carried wheels (no network on the host).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .gpu-host/wheels/*.whl >"$OUT/pip.log" 2>&1 || { echo "pip failed"; tail -20 "$OUT/pip.log"; exit 1; }
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export HARNESS_PYTHON=python3
python3 -c 'import numpy, pyopencl as cl
print("python host: pyopencl", cl.VERSION_TEXT, "numpy", numpy.__version__)
for p in cl.get_platforms(): print("  platform", p.name, [d.name for d in p.get_devices()])' || exit 1

make -j16 GIT_COMMIT=$(git rev-parse HEAD) GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
bin/harness devices >"$OUT/devices.txt" 2>&1
DEV=${DEV:-opencl:1.0}
line=$(grep -E "^ *$DEV " "$OUT/devices.txt" | head -1)
echo "device $DEV: ${line:-not listed}"
case "$line" in *NVIDIA*) ;; *) echo "$DEV is not NVIDIA's OpenCL here (set DEV); devices.txt:"; cat "$OUT/devices.txt"; exit 1 ;; esac
db=$OUT/pyhost.db

# 1. Both hosts verify (the app's shortened run), then the 128x128 input at
#    its full 40000 steps, each host's median beside the other's.
timeout 120 bin/harness verify lbm --variant final,final-python --device "$DEV" --db "$db" >"$OUT/verify.txt" 2>&1
echo "verify exit $?"; grep -E '^final' "$OUT/verify.txt"
timeout 200 bin/harness run --input 128x128 --variant final,final-python --device "$DEV" --reps 5 --rounds 2 \
    --db "$db" >"$OUT/run.txt" 2>&1
echo "run exit $?"; grep -E ' (ok|wrong|invalid|runtime-error|timeout|crashed) ' "$OUT/run.txt" | cut -c1-220

# 2. Table 16 at the report's three inputs. --budget 2: a row runs its full
#    step count where a repetition takes 2 s or less (the others scaled, ‡).
awk '/^(app|reference|inputs|quick|wg) /{print; next}
     /^table /{on = ($2 == 16)} on' kernels/lbm/report.def >"$OUT/table16.def"
timeout 420 bin/harness report lbm --def "$OUT/table16.def" --device "$DEV" --budget 2 --reps 3 --rounds 3 \
    --db "$db" --out "$OUT/report" >"$OUT/report.log" 2>&1
echo "report exit $?"
sed -n '/^## Table 16/,/^## Figures/p' "$OUT"/report/report-*.md | head -20
bin/harness export --format csv --db "$db" --out "$OUT/measurements.csv" 2>/dev/null
echo "done at ${SECONDS}s"
