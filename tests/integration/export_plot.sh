#!/usr/bin/env bash
# `harness export` and `harness plot wg` on a tiny real sweep of four shapes:
# the CSV has every row and the right shapes, the T4 JSON parses and agrees
# with the database to the last bit, awkward text survives both formats, the
# plot writes a real PNG and SVG, and bad usage, a missing database or a
# missing gnuplot fail with the documented status (and create nothing).
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir export_plot
H=bin/harness
DB=$T/e.db

$H run --device openmp --input gen:32x32 --iters 100 --reps 3 --wg 8x1,16x1,32x1,8x2 --db "$DB" \
    >"$T/run.out" 2>&1
rc=$?
check "the sweep of 4 shapes exits 0 (got $rc)" [ $rc -eq 0 ]

# ---- CSV ----
$H export --format csv --db "$DB" >"$T/e.csv" 2>"$T/csv.err"
rc=$?
check "export csv exits 0 (got $rc)" [ $rc -eq 0 ]
check "export csv: header names the columns" \
    grep -q '^id,created_at,host,device,device_name,fingerprint,driver,backend,build_commit,dirty,app,input,variant,knobs,wg_x,wg_y,status,' "$T/e.csv"
# Parsed as CSV (the knobs column holds commas, so it must be quoted).
shapes=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), ",".join(sorted(r["wg_x"] + "x" + r["wg_y"] for r in rows)),
      ",".join(sorted(set(r["status"] for r in rows))), ",".join(sorted(set(r["reps"] for r in rows))))
' "$T/e.csv" 2>&1)
check "export csv: 4 data rows, shapes 16x1,32x1,8x1,8x2, all ok, 3 reps ($shapes)" \
    [ "$shapes" = "4 16x1,32x1,8x1,8x2 ok 3" ]
$H export --format csv --db "$DB" --out "$T/out.csv" >"$T/out.stdout" 2>&1
check "export --out FILE writes the same CSV there and nothing on stdout" \
    bash -c "cmp -s '$T/out.csv' '$T/e.csv' && [ ! -s '$T/out.stdout' ]"
n=$($H export --format csv --db "$DB" --app lbm --device openmp --input gen-32x32 --variant final | wc -l)
check "export filters that match keep all 4 rows ($((n - 1)))" [ "$n" -eq 5 ]
$H export --format csv --db "$DB" --variant no-such >"$T/nomatch.csv" 2>"$T/nomatch.err"
rc=$?
n=$(wc -l <"$T/nomatch.csv")
check "export with a filter that matches nothing prints only the header ($n line), says so and exits 1 ($rc)" \
    bash -c "[ $n -eq 1 ] && [ $rc -eq 1 ] && grep -q 'no measurements.*variant no-such' '$T/nomatch.err'"
$H export --format csv --db "$DB" --input gen:32x32 >/dev/null 2>"$T/colon.err"
rc=$?
check "a filter on gen:32x32 (stored as gen-32x32) says how inputs are stored (exit $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'stored with' '$T/colon.err'"
$H export --format t4 --db "$DB" --device cuda:7 >/dev/null 2>"$T/t4none.err"
rc=$?
check "export t4 with a device that matches nothing exits 1 and says so ($rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'no measurements.* on cuda:7' '$T/t4none.err'"

# ---- T4 ----
$H export --format t4 --db "$DB" >"$T/e.json" 2>"$T/t4.err"
rc=$?
check "export t4 exits 0 (got $rc)" [ $rc -eq 0 ]
check "export t4 is valid JSON" python3 -c 'import json,sys; d=json.load(sys.stdin)' <"$T/e.json"
# Every result against its database row: shape, exact median, 3 samples.
t4=$(python3 - "$T/e.json" "$DB" <<'EOF' 2>&1
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
res = d["results"]
problems = []
if d.get("schema_version") != "1.0.0": problems.append("schema_version")
if len(res) != 4: problems.append("%d results" % len(res))
for r in res:
    mid = r["measurement_id"]
    wx, wy, med = db.execute("SELECT c.wg_x, c.wg_y, m.median_s FROM measurement m"
                             " JOIN config c ON c.id = m.config_id WHERE m.id = ?", (mid,)).fetchone()
    nsamp = db.execute("SELECT count(*) FROM sample WHERE measurement_id = ?", (mid,)).fetchone()[0]
    cfg = r["configuration"]
    times = [m["value"] for m in r["measurements"] if m["name"] == "time"]
    samples = [m for m in r["measurements"] if m["name"] == "time_sample"]
    if (cfg.get("block_size_x"), cfg.get("block_size_y")) != (wx, wy): problems.append("%d: shape %s" % (mid, cfg))
    if "layout" not in cfg: problems.append("%d: knobs missing from configuration" % mid)
    if times != [med]: problems.append("%d: time %s != median_s %r" % (mid, times, med))
    if not (nsamp == 3 and len(samples) == 3 and len(r["times"]["runtimes"]) == 3):
        problems.append("%d: samples db %d, measurements %d, runtimes %d"
                        % (mid, nsamp, len(samples), len(r["times"]["runtimes"])))
    if (r["invalidity"], r["correctness"], r["objectives"]) != ("correct", 1, ["time"]):
        problems.append("%d: invalidity/correctness/objectives" % mid)
if not d["metadata"]["environment"]["devices"]: problems.append("no environment devices")
print("; ".join(problems) or "fine")
EOF
)
check "export t4: 4 results, each with block_size_x/block_size_y, time == median_s, 3 samples ($t4)" [ "$t4" = fine ]

# ---- awkward text and failed statuses survive both formats ----
cp "$DB" "$T/odd.db"
sqlite3 "$T/odd.db" "INSERT INTO measurement (run_id, config_id, status, reason, reps)
  VALUES (1, 1, 'compile-error', 'say \"hi\", then' || char(10) || 'tab' || char(9) || char(1) || 'end', 0);
  INSERT INTO measurement (run_id, config_id, status, reps) VALUES (1, 2, 'timeout', 0);" 2>&1
odd=$($H export --format t4 --db "$T/odd.db" | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"]
print(r[4]["invalidity"], r[4]["correctness"], r[4]["reason"] == "say \"hi\", then\ntab\t\x01end", r[5]["invalidity"])' 2>&1)
check "export t4 escapes quotes, newlines, control characters; maps compile-error, timeout ($odd)" \
    [ "$odd" = "compile 0 True timeout" ]
odd=$($H export --format csv --db "$T/odd.db" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(len(rows), rows[4]["reason"] == "say \"hi\", then\ntab\t\x01end", rows[4]["median_s"] == "")' 2>&1)
check "export csv quotes a reason with quotes, commas and a newline; NULL is empty ($odd)" \
    [ "$odd" = "6 True True" ]

# ---- plot wg ----
$H plot wg --db "$DB" --out-dir "$T/plots" >"$T/plot.out" 2>"$T/plot.err"
rc=$?
check "plot wg exits 0 (got $rc)" [ $rc -eq 0 ]
png=$T/plots/wg-openmp-gen-32x32-final.png
svg=$T/plots/wg-openmp-gen-32x32-final.svg
magic=$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | xargs)
check "plot wg writes a PNG ($magic)" [ "$magic" = "89 50 4e 47 0d 0a 1a 0a" ]
check "plot wg writes an SVG" grep -q '<svg' "$svg"
check "plot wg prints the files it wrote" bash -c "grep -qxF '$png' '$T/plot.out' && grep -qxF '$svg' '$T/plot.out'"
check "plot wg: the SVG's x axis has every shape, smallest first" \
    bash -c "grep -o '>[0-9]*x[0-9]*<' '$svg' | tr -d '<>' | xargs | grep -qx '8x1 8x2 16x1 32x1'"
check "plot wg: the title names the step count" grep -q '100 steps' "$svg"
# A later run of one shape at another step count: the figure shows that
# count alone (bars of two step counts side by side compare nothing).
cp "$DB" "$T/mixed.db"
$H run --device openmp --input gen:32x32 --iters 60 --reps 2 --wg 16x1 --db "$T/mixed.db" >/dev/null 2>&1
$H plot wg --db "$T/mixed.db" --out-dir "$T/mixed" >/dev/null 2>&1
msvg=$T/mixed/wg-openmp-gen-32x32-final.svg
check "plot wg: one step count per figure, the latest (60 steps: 16x1 alone)" \
    bash -c "grep -q '60 steps' '$msvg' && [ \"\$(grep -o '>[0-9]*x[0-9]*<' '$msvg' | tr -d '<>' | xargs)\" = 16x1 ]"
$H plot wg --db "$DB" --input no-such --out-dir "$T/none" >/dev/null 2>"$T/nodata.err"
rc=$?
check "plot wg with no matching data exits 1 with a message (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'no verified' '$T/nodata.err'"
env PATH=/nonexistent "$PWD/$H" plot wg --db "$DB" --out-dir "$T/nognuplot" >/dev/null 2>"$T/nognu.err"
rc=$?
check "plot wg without gnuplot on PATH exits 1 and says so (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'gnuplot not found' '$T/nognu.err'"

# ---- the roofline (report Figure 6) keeps a slow point ----
# A device under 1 GFLOP/s (OpenMP's 128x128 in a --quick report) was once
# cut off by a fixed floor of the y axis.
printf '"128x128" 1.2 0.4\n"256x256" 1.2 3.5\n' >"$T/roof.dat"
gnuplot -e "datafile='$T/roof.dat'; peak_gbs='20'; peak_gflops='47'; plottitle='t'; pngfile='$T/roof.png'; svgfile='$T/roof.svg'" \
    plots/roofline.gp >/dev/null 2>&1
check "the roofline draws a point at 0.4 GFLOP/s (its label is in the SVG)" \
    bash -c "grep -q '>128x128<' '$T/roof.svg' && grep -q '>256x256<' '$T/roof.svg'"

# ---- usage and missing database ----
$H export --format xml --db "$DB" >/dev/null 2>&1
rc=$?
check "export --format xml exits 2 (got $rc)" [ $rc -eq 2 ]
$H export --db "$DB" >/dev/null 2>&1
rc=$?
check "export without --format exits 2 (got $rc)" [ $rc -eq 2 ]
$H plot bars --db "$DB" >/dev/null 2>&1
rc=$?
check "plot of an unknown kind exits 2 (got $rc)" [ $rc -eq 2 ]
$H export --format csv --db "$T/missing.db" >/dev/null 2>"$T/missing.err"
rc=$?
check "export from a missing database exits 1 (got $rc)" [ $rc -eq 1 ]
check "export from a missing database names it and does not create it" \
    bash -c "grep -q 'missing.db' '$T/missing.err' && [ ! -e '$T/missing.db' ]"
$H plot wg --db "$T/missing.db" --out-dir "$T/plots2" >/dev/null 2>&1
rc=$?
check "plot wg from a missing database exits 1 and creates nothing (got $rc)" \
    bash -c "[ $rc -eq 1 ] && [ ! -e '$T/missing.db' ] && [ ! -e '$T/plots2' ]"
exit $((fails > 0))
