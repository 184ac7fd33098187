#!/usr/bin/env bash
# `harness launch-cost` and `harness plot launch-cost` on OpenMP and PoCL with
# small counts: the rows land in the database with sane values (positive,
# ordered quartiles, the with-finish time never below the enqueue time, the
# counts asked for), the CSV has its columns, bad options exit 2 and store
# nothing, and the figure is a real PNG and SVG with a line per device and
# kind. Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir launch_cost
H=bin/harness
DB=$T/lc.db
q() { sqlite3 "$DB" "$1" 2>&1; }

# ---- a measurement on both CPU devices ----
$H launch-cost --device openmp,opencl:0.0 --launches 2000 --reps 3 --warmup 50 --args 0,4,16,40 --db "$DB" \
    >"$T/run.out" 2>"$T/run.err"
rc=$?
check "launch-cost on openmp and opencl:0.0 exits 0 (got $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/run.err" | tail -5
for dev in openmp opencl:0.0; do
    check "the table has a header for $dev" grep -q "^$dev  " "$T/run.out"
done
n=$(awk '$1 ~ /^[0-9]+$/ && ($2 == "buffer" || $2 == "int")' "$T/run.out" | wc -l)
check "the tables have 2 devices x 2 kinds x 4 counts = 16 lines ($n)" [ "$n" -eq 16 ]

check "db: 16 launch_cost rows ($(q "SELECT count(*) FROM launch_cost"))" [ "$(q "SELECT count(*) FROM launch_cost")" = 16 ]
check "db: 8 rows per device, one run each ($(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM launch_cost GROUP BY run_id)"))" \
    [ "$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM launch_cost GROUP BY run_id, device_id)")" = 8,8 ]
got=$(q "SELECT group_concat(DISTINCT d.backend) FROM (SELECT d.backend FROM launch_cost lc JOIN device d ON d.id = lc.device_id ORDER BY d.backend) d")
check "db: the rows' devices are opencl and openmp ($got)" [ "$got" = opencl,openmp ]
got=$(q "SELECT group_concat(x) FROM (SELECT DISTINCT kind || ':' || nargs x FROM launch_cost ORDER BY kind, nargs)")
check "db: each kind has exactly the counts asked for ($got)" [ "$got" = "buffer:0,buffer:4,buffer:16,buffer:40,int:0,int:4,int:16,int:40" ]
check "db: every row has launches 2000 and reps 3" [ "$(q "SELECT count(*) FROM launch_cost WHERE launches = 2000 AND reps = 3")" = 16 ]
check "db: every row's device is its run's device, and the run ended" \
    [ "$(q "SELECT count(*) FROM launch_cost lc JOIN run r ON r.id = lc.run_id WHERE r.device_id = lc.device_id AND r.ended_at IS NOT NULL AND r.command LIKE 'harness launch-cost %'")" = 16 ]
# Per launch between 1 ns and 1 ms: a zero or a unit slip (us for s) fails.
bad=$(q "SELECT count(*) FROM launch_cost WHERE NOT (enqueue_median_s / launches BETWEEN 1e-9 AND 1e-3
          AND total_median_s / launches BETWEEN 1e-9 AND 1e-3
          AND enqueue_q1_s <= enqueue_median_s AND enqueue_median_s <= enqueue_q3_s
          AND total_q1_s <= total_median_s AND total_median_s <= total_q3_s
          AND total_median_s >= enqueue_median_s)")
check "db: medians positive and sane per launch, q1 <= median <= q3, with-finish >= enqueue ($bad bad)" [ "$bad" = 0 ]
check "db: 3 samples per row, reps 0..2, total >= enqueue in each" \
    [ "$(q "SELECT count(*) FROM launch_cost_sample s JOIN launch_cost lc ON lc.id = s.launch_cost_id WHERE s.rep BETWEEN 0 AND 2 AND s.total_s >= s.enqueue_s AND s.enqueue_s > 0")" = 48 ]
check "db: the median is the middle sample" \
    [ "$(q "SELECT count(*) FROM launch_cost lc WHERE enqueue_median_s = (SELECT enqueue_s FROM launch_cost_sample WHERE launch_cost_id = lc.id ORDER BY enqueue_s LIMIT 1 OFFSET 1)")" = 16 ]
check "db: user_version is 11" [ "$(q "PRAGMA user_version")" = 11 ]

# ---- CSV ----
$H launch-cost --device openmp --launches 500 --reps 2 --args 0,2 --csv --db "$T/csv.db" >"$T/lc.csv" 2>"$T/csv.err"
rc=$?
check "launch-cost --csv exits 0 (got $rc)" [ $rc -eq 0 ]
check "CSV header names the columns" \
    [ "$(head -1 "$T/lc.csv")" = "device,device_name,backend,fingerprint,kind,nargs,launches,reps,enqueue_us,enqueue_us_q1,enqueue_us_q3,total_us,total_us_q1,total_us_q3" ]
csv=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = all(float(r["enqueue_us"]) > 0 and float(r["total_us"]) >= float(r["enqueue_us"]) and r["launches"] == "500"
         and r["reps"] == "2" and r["device"] == "openmp" for r in rows)
print(len(rows), ",".join(r["kind"] + ":" + r["nargs"] for r in rows), ok)' "$T/lc.csv" 2>&1)
check "CSV: 4 rows, buffer then int, counts 0 and 2, positive us ($csv)" [ "$csv" = "4 buffer:0,buffer:2,int:0,int:2 True" ]
check "CSV run is stored too ($(sqlite3 "$T/csv.db" "SELECT count(*) FROM launch_cost" 2>&1))" \
    [ "$(sqlite3 "$T/csv.db" "SELECT count(*) FROM launch_cost" 2>&1)" = 4 ]

# ---- bad options: exit 2, nothing measured or stored ----
for bad in "--args 0,x" "--args 41" "--args -1" "--args 4,,8" "--args 4,8,4" "--args=" "--reps 0" "--launches abc" "--bogus"; do
    # shellcheck disable=SC2086 # the options are meant to split
    $H launch-cost --device openmp $bad --db "$T/bad.db" >"$T/bad.out" 2>"$T/bad.err"
    rc=$?
    check "launch-cost $bad exits 2 (got $rc) and creates no database" bash -c "[ $rc -eq 2 ] && [ ! -e '$T/bad.db' ]"
done
$H launch-cost --device openmp --args 0,x --db "$T/bad.db" >/dev/null 2>"$T/bad.err"
check "a bad --args value is named in the message ($(head -1 "$T/bad.err"))" grep -q "bad --args: 'x'" "$T/bad.err"
$H launch-cost --device openmp --args 41 --db "$T/bad.db" >/dev/null 2>"$T/bad.err"
check "an argument count over KARG_MAX says the limit ($(head -1 "$T/bad.err"))" grep -q "outside 0..40" "$T/bad.err"
$H launch-cost --device no-such-device --args 0 --db "$T/bad.db" >/dev/null 2>&1
rc=$?
check "an unknown device exits 2 (got $rc)" [ $rc -eq 2 ]

# ---- the figure ----
$H plot launch-cost --db "$DB" --out "$T/plots" >"$T/plot.out" 2>"$T/plot.err"
rc=$?
check "plot launch-cost exits 0 (got $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/plot.err" | tail -5
magic=$(head -c 8 "$T/plots/launch-cost.png" 2>/dev/null | od -An -tx1 | xargs)
check "plot launch-cost writes a PNG ($magic)" [ "$magic" = "89 50 4e 47 0d 0a 1a 0a" ]
check "plot launch-cost writes an SVG" grep -q '<svg' "$T/plots/launch-cost.svg"
check "plot launch-cost prints the files it wrote" \
    bash -c "grep -qxF '$T/plots/launch-cost.png' '$T/plot.out' && grep -qxF '$T/plots/launch-cost.svg' '$T/plot.out'"
n=$(grep -oE '(openmp|opencl:0\.0)[^<]*: (buffer|int) arguments' "$T/plots/launch-cost.svg" | sort -u | wc -l)
check "the figure has a line per device and kind: 4 titles in its key ($n)" [ "$n" -eq 4 ]
cp "$DB" "$T/empty.db"
sqlite3 "$T/empty.db" "DELETE FROM launch_cost_sample; DELETE FROM launch_cost"
$H plot launch-cost --db "$T/empty.db" --out "$T/plots-empty" >/dev/null 2>"$T/empty.err"
rc=$?
check "plot launch-cost with no rows exits 1 and says so (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'no launch-cost measurements' '$T/empty.err'"
$H plot launch-cost --db "$T/missing.db" --out "$T/plots-missing" >/dev/null 2>&1
rc=$?
check "plot launch-cost from a missing database exits 1 and creates nothing (got $rc)" \
    bash -c "[ $rc -eq 1 ] && [ ! -e '$T/missing.db' ] && [ ! -e '$T/plots-missing' ]"
env PATH=/nonexistent "$PWD/$H" plot launch-cost --db "$DB" --out "$T/plots-nognu" >/dev/null 2>"$T/nognu.err"
rc=$?
check "plot launch-cost without gnuplot exits 1 and says so (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'gnuplot not found' '$T/nognu.err'"
$H plot launch-cost --db "$DB" --bogus >/dev/null 2>&1
rc=$?
check "plot launch-cost with a bad option exits 2 (got $rc)" [ $rc -eq 2 ]
check "harness --help lists launch-cost" bash -c "$H --help | grep -q '^  launch-cost '"
exit $((fails > 0))
