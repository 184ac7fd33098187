#!/usr/bin/env bash
# host=python (seed 000's Table 16): final's schedule driven by
# kernels/lbm/host.py through pyopencl, on PoCL. It verifies against the
# reference and agrees with the C host bit for bit (same kernels, options and
# device); a Python host that skips a step is reported wrong; one that dies
# or hangs costs its row only (and a hung one does not outlive its worker),
# one whose kernel does not build is a compile-error;
# without a Python that has pyopencl the variant is invalid with a reason
# (verify's skip), never a crash; `report` fills Table 16's Python column.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
test_dir python_host
db=$T/p.db
run=(bin/harness run --app lbm --input 128x128 --iters 300 --device opencl:0.0 --reps 2 --db "$db")
q() { sqlite3 "$db" "$1" 2>&1; }

if ! bin/harness devices 2>/dev/null | grep -q 'opencl:0.0'; then
    echo "ok - python host # skip no OpenCL device opencl:0.0 (PoCL) here"
    exit 0
fi

# 1. No Python with pyopencl: invalid with the reason, exit 2, nothing stored.
HARNESS_PYTHON=/nonexistent bin/harness run "${run[@]:2}" --variant final-python >"$T/none.out" 2>"$T/none.err"
rc=$?
if [ $rc = 2 ] && grep -q 'host=python needs a Python with pyopencl and numpy (/nonexistent: cannot be run' "$T/none.err" &&
    { [ ! -e "$db" ] || [ "$(q "SELECT count(*) FROM measurement")" = 0 ]; }
then ok "HARNESS_PYTHON=/nonexistent: invalid with its reason, exit 2, nothing stored"
else notok "HARNESS_PYTHON=/nonexistent: exit $rc, $(tail -1 "$T/none.err")"; fi
# The rest needs a Python with pyopencl, found as the harness finds it.
py=
for p in ${HARNESS_PYTHON:-python3 /usr/bin/python3}; do
    "$p" -c 'import numpy, pyopencl' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
    echo "ok - python host runs # skip no Python with pyopencl and numpy (apt-get install python3-pyopencl)"
    exit $((fails > 0))
fi
export HARNESS_PYTHON=$py

# That Python with its pyopencl import failing (a module in front of the real one).
mkdir -p "$T/block/pyopencl"
echo 'raise ImportError("pyopencl blocked by the test")' >"$T/block/pyopencl/__init__.py"
PYTHONPATH=$T/block HARNESS_PYTHON=$py bin/harness verify lbm --variant final-python --device opencl:0.0 \
    --input gen:32x32 --iters 100 --db "$T/blocked.db" >"$T/blocked.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -qE '^final-python +\| invalid' "$T/blocked.out" &&
    grep -q 'pyopencl blocked by the test' "$T/blocked.out" &&
    [ "$(sqlite3 "$T/blocked.db" "SELECT group_concat(status) FROM measurement")" = invalid ]; then
    ok "no pyopencl: verify shows the variant invalid (a skip, exit 0) with the import's error"
else notok "no pyopencl: verify exit $rc: $(grep -E 'final-python|\[1\]' "$T/blocked.out" | tr '\n' ' ')"; fi

# 2. Verified, stored with its samples, and the same numbers as the C host.
for v in final-python final; do
    "${run[@]}" --variant $v --out "$T/out-$v" >"$T/$v.out" 2>"$T/$v.err"
    rc=$?
    if [ $rc = 0 ] && grep -qE "final[-a-z]* +32x1 +ok " "$T/$v.out"; then ok "$v on PoCL: ok, exit 0"
    else notok "$v on PoCL: exit $rc: $(tail -2 "$T/$v.out" "$T/$v.err" | tr '\n' ' ')"; fi
done
for f in av_vels.dat final_state.dat; do
    if [ -s "$T/out-final/$f" ] && cmp -s "$T/out-final-python/$f" "$T/out-final/$f"; then
        ok "the Python host's $f is the C host's, byte for byte"
    else notok "the Python host's $f differs from the C host's"; fi
done
# --out runs in-process; isolated (the harness's default) and stored:
"${run[@]}" --variant final-python >"$T/iso.out" 2>&1
got=$(q "SELECT m.status, m.iters, count(s.rep), min(s.seconds) > 0, min(s.device_seconds) > 0,
                min(s.device_seconds) <= min(s.seconds) * 1.05, m.max_rel_err < m.tolerance
         FROM measurement m JOIN config c ON c.id = m.config_id JOIN sample s ON s.measurement_id = m.id
         WHERE c.variant = 'final-python' GROUP BY m.id ORDER BY m.id DESC LIMIT 1")
if [ "$got" = "ok|300|2|1|1|1|1" ]; then
    ok "stored: ok, 300 steps, 2 samples with host and device seconds (device <= host), error within tolerance"
else notok "stored: '$got'"; fi
if [ "$(q "SELECT knobs LIKE '%host=python%' FROM config WHERE variant = 'final-python' LIMIT 1")" = 1 ] &&
    [ "$(q "SELECT knobs LIKE '%host=c,%' FROM config WHERE variant = 'final' LIMIT 1")" = 1 ]; then
    ok "the config's knobs say host=python (final's say host=c)"
else notok "the configs' knobs do not name the host"; fi

# pyopencl's own ICD loader may number platforms otherwise: host.py finds
# the harness's device by its name, never another device.
name=$(bin/harness devices 2>/dev/null | awk '$1 == "opencl:0.0" {$1 = $2 = ""; sub(/^ +/, ""); print; exit}')
got=$(PYTHONDONTWRITEBYTECODE=1 "$py" - "$name" <<'PY' 2>&1
import sys
sys.path.insert(0, "kernels/lbm")
import host
print(host.find_device(7, 0, sys.argv[1]).name.strip() == sys.argv[1])
try:
    host.find_device(0, 0, "no such device")
    print("found")
except RuntimeError as exc:
    print("refused" if "no single OpenCL device 0 named 'no such device'" in str(exc) else exc)
PY
)
if [ "$got" = "True"$'\n'"refused" ]; then ok "host.py finds opencl:0.0 by its name ($name) at another platform index; refuses an absent name"
else notok "host.py's device search: $got"; fi

# 3. A Python host that skips step 100 is reported wrong, at that step.
HARNESS_PYHOST_SKIP_STEP=100 "${run[@]}" --variant final-python >"$T/skip.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q ' wrong ' "$T/skip.out" && grep -q 'at av_vels step 100' "$T/skip.out"; then
    ok "HARNESS_PYHOST_SKIP_STEP=100: wrong at av_vels step 100, exit 1"
else notok "HARNESS_PYHOST_SKIP_STEP=100: exit $rc: $(tail -1 "$T/skip.out")"; fi

# 4. Isolation: a host program that dies, one that hangs (the probe's -c
# still reaches the real Python; the host script does not).
cat >"$T/dies" <<EOF
#!/bin/sh
[ "\$1" = -c ] && exec "$py" "\$@"
exit 3
EOF
marker=$((900000 + RANDOM))
cat >"$T/hangs" <<EOF
#!/bin/sh
[ "\$1" = -c ] && exec "$py" "\$@"
exec sleep $marker
EOF
chmod +x "$T/dies" "$T/hangs"
HARNESS_PYTHON=$T/dies "${run[@]}" --variant final-python,final >"$T/dies.out" 2>&1
if grep -qE 'final-python +32x1 +runtime-error.*Python host exited while it set up' "$T/dies.out" &&
    grep -qE 'final +32x1 +ok ' "$T/dies.out"; then
    ok "a Python host that exits: runtime-error with why, and the next config runs"
else notok "a Python host that exits: $(grep final "$T/dies.out" | tr '\n' ' ')"; fi
HARNESS_PYTHON=$T/hangs "${run[@]}" --variant final-python,final --timeout 20 >"$T/hangs.out" 2>&1
sleep 1
if grep -qE 'final-python +32x1 +timeout' "$T/hangs.out" && grep -qE 'final +32x1 +ok ' "$T/hangs.out"; then
    ok "a Python host that hangs: timeout, and the next config runs"
else notok "a Python host that hangs: $(grep final "$T/hangs.out" | tr '\n' ' ')"; fi
if pgrep -f "sleep $marker" >/dev/null; then notok "the hung Python host outlived its killed worker"
else ok "the hung Python host died with its worker"; fi

# A kernel that does not compile: compile-error, the build's words kept.
root=$T/root
mkdir -p "$root/harness/backend"
cp -r kernels variants "$root/"
cp harness/backend/omp_kernel.h "$root/harness/backend/"
echo "this is not OpenCL C" >>"$root/kernels/lbm/lbm.cl"
HARNESS_ROOT=$root HARNESS_CACHE=$T/cache "${run[@]}" --variant final-python >"$T/cerr.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qE "final-python +32x1 +compile-error +\(Python host: .*BUILD_PROGRAM_FAILURE" "$T/cerr.out"; then
    ok "a kernel that does not build: compile-error with pyopencl's message, exit 1"
else notok "a kernel that does not build: exit $rc: $(grep final "$T/cerr.out" | cut -c1-200)"; fi

# 5. Table 16 from a definition of that table alone: C and Python columns on PoCL.
cat >"$T/t16.def" <<'EOF'
app lbm
inputs 128x128
wg 32x1
table 16 hostlang "Host languages"
run final
published "C" 0.259
published "Python" 2.857
published "Haskell" 0.451
host "Python" final-python
EOF
bin/harness report lbm --def "$T/t16.def" --device opencl:0.0 --quick --reps 1 --rounds 1 --db "$T/r.db" \
    --out "$T/report" >"$T/report.log" 2>&1
rc=$?
md=$(ls "$T"/report/report-*.md 2>/dev/null | head -1)
row=$(grep -E '^\| 128x128 \|' "${md:-/dev/null}")
if [ $rc = 0 ] && grep -q '| C host, opencl:0.0 (s) | Python host, opencl:0.0 (s) | report: C (s) | report: Python' "$md" &&
    [[ "$row" =~ ^\|\ 128x128\ \|\ [0-9.]+\ ?‡?\ \|\ [0-9.]+\ ?‡?\ \|\ 0.259\ \|\ 2.857\ \|\ 0.451\ \|$ ]]; then
    ok "report: Table 16 has the Python host's time beside the C host's ($row)"
else notok "report: exit $rc, Table 16 row '$row'"; fi
if grep -q 'The Python host runs `final-python`' "$md" && grep -q 'Haskell: ' "$md"; then
    ok "report: Table 16 says what the Python column ran; Haskell is probed"
else notok "report: Table 16's note lacks the Python host or the Haskell probe"; fi
exit $((fails > 0))
