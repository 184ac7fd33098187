#!/usr/bin/env bash
# The main job (`make run`'s scripts/main_job.sh, shortened) and its picture
# (`harness plot variants`): both backends of this machine in the table, a
# real PNG and SVG whose path it prints, one bar per device and variant from
# verified rows only, one step count per chart; bad usage exits 2, no data 1.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir main_job
H=bin/harness
DB=$T/m.db

if ! $H devices 2>/dev/null | grep -q '^opencl:'; then
    echo "ok - the main job on OpenMP and OpenCL # skip no OpenCL device here (PoCL: make deps)"
    exit 0
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "ok - the main job's picture # skip no gnuplot here (make deps)"
    exit 0
fi
ITERS=40 REPS=2 DEVICE=openmp,opencl:0.0 HARNESS_DB=$DB OUT_PNG=$T/pic/main.png bash scripts/main_job.sh \
    >"$T/job.out" 2>&1
rc=$?
check "the main job exits 0 (got $rc)" [ $rc -eq 0 ]
n=$(grep -cE '^ *[0-9]+ .* (openmp|opencl:0\.0) .* lbm +128x128 +[0-9/]+ +(t02-ported|final) .* ok ' "$T/job.out")
check "its table has both variants verified on OpenMP and on OpenCL ($n of 4 rows)" [ "$n" -eq 4 ]
check "it prints the picture's path" grep -qxF "picture: $T/pic/main.png" "$T/job.out"
magic=$(head -c 8 "$T/pic/main.png" 2>/dev/null | od -An -tx1 | xargs)
check "the picture is a PNG ($magic)" [ "$magic" = "89 50 4e 47 0d 0a 1a 0a" ]
svg=$T/pic/main.svg
check "an SVG beside it names both variants" bash -c "grep -q '>final<' '$svg' && grep -q '>t02-ported<' '$svg'"
check "the SVG's key names both devices" bash -c "grep -q '>openmp ' '$svg' && grep -q '>opencl:0.0 ' '$svg'"
check "the title names the input and the step count" grep -q '128x128, 40 steps' "$svg"

# A later run of another step count: the chart shows the latest count only,
# and --iters picks the earlier one back.
$H run --input 128x128 --iters 30 --reps 1 --device openmp --variant final --db "$DB" >/dev/null 2>&1
$H plot variants --input 128x128 --db "$DB" --out "$T/p2/latest.png" >"$T/p2.out" 2>&1
rc=$?
check "plot variants exits 0 (got $rc)" [ $rc -eq 0 ]
check "the latest step count alone: 30 steps, one variant, one device" \
    bash -c "grep -q '30 steps' '$T/p2/latest.svg' && ! grep -q '>t02-ported<' '$T/p2/latest.svg' && ! grep -q '>opencl:0.0 ' '$T/p2/latest.svg'"
$H plot variants --input 128x128 --iters 40 --db "$DB" --out "$T/p3/forty.png" >/dev/null 2>&1
check "--iters 40 draws the main job's rows again" \
    bash -c "grep -q '40 steps' '$T/p3/forty.svg' && grep -q '>t02-ported<' '$T/p3/forty.svg'"
# A wrong result never makes a bar: the only measurement of this input is
# turned wrong in the database.
$H run --input gen:32x32 --iters 20 --reps 1 --device openmp --variant final --db "$DB" >/dev/null 2>&1
sqlite3 "$DB" "UPDATE measurement SET status = 'wrong' WHERE config_id IN (SELECT id FROM config WHERE input = 'gen-32x32')"
$H plot variants --input gen-32x32 --db "$DB" --out "$T/p4/w.png" >/dev/null 2>"$T/p4.err"
rc=$?
check "a wrong measurement is not drawn: nothing verified, exit 1 with a message (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'no verified' '$T/p4.err' && [ ! -e '$T/p4/w.png' ]"
$H plot variants --db "$DB" >/dev/null 2>"$T/usage.err"
rc=$?
check "plot variants without --input exits 2 and says so (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q -- '--input is required' '$T/usage.err'"
$H plot variants --input 128x128 --iters 0 --db "$DB" >/dev/null 2>&1
rc=$?
check "plot variants --iters 0 exits 2 (got $rc)" [ $rc -eq 2 ]
$H plot variants --input 128x128 --db "$T/missing.db" --out "$T/p5/x.png" >/dev/null 2>&1
rc=$?
check "plot variants from a missing database exits 1 and creates nothing (got $rc)" \
    bash -c "[ $rc -eq 1 ] && [ ! -e '$T/missing.db' ]"
exit $((fails > 0))
