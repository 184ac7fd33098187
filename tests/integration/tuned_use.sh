#!/usr/bin/env bash
# The tuned configuration in use (`--variant tuned`): a configuration stored
# by hand in the tuned table (final with obstacles=branch at 16x2, for the
# openmp device's fingerprint) is what `run --variant tuned` runs and
# stores (variant tuned, those knobs, that shape; --wg overrides the shape);
# where none is stored a note names the device, input and `harness tune
# FILE`, the config is skipped (exit 2 when nothing else ran, nothing
# stored; exit 0 when others ran), and `final` never runs in its place.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir tuned_use
H=bin/harness
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
q() { sqlite3 "$1" "$2" 2>&1; }
DB=$T/t.db
RUN=(--input 128x128 --iters 20 --device openmp --reps 2 --warmup 0)

FP=$($H devices --csv 2>/dev/null | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "fingerprint") f = i} $1 == "openmp" {print $f}')
check "the openmp device has a fingerprint ($FP)" bash -c "[[ '$FP' =~ ^[0-9a-f]{16}$ ]]"
# The canonical knobs of final with obstacles=branch, from the app itself.
printf 'app lbm\ninput 128x128\nknobs final: obstacles=branch\ndevice openmp\nwg 16x2\n' >"$T/k.sweep"
K=$($H sweep --dry-run --keys "$T/k.sweep" 2>/dev/null | cut -d'|' -f4)
check "the knob string has obstacles=branch" bash -c "echo '$K' | grep -q ',obstacles=branch,'"
FINAL_K=$(printf 'app lbm\ninput 128x128\nvariant final\ndevice openmp\n' >"$T/f.sweep" &&
    $H sweep --dry-run --keys "$T/f.sweep" 2>/dev/null | cut -d'|' -f4)
check "final's knobs differ from the tuned ones" [ -n "$FINAL_K" -a "$FINAL_K" != "$K" ]
counts() { q "$DB" "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT count(*) FROM measurement)"; }

# ---- nothing stored ----
$H run "${RUN[@]}" --variant tuned --db "$DB" >"$T/none.out" 2>&1
rc=$?
check "tuned with no database: exit 2, nothing else to run (got $rc)" [ $rc -eq 2 ]
check "the note names the device, the input and harness tune FILE" \
    grep -q 'no tuned configuration for lbm 128x128 on openmp .*harness tune FILE' "$T/none.out"
check "no database is created just to look" [ ! -e "$DB" ]

$H run "${RUN[@]}" --variant final --db "$DB" >"$T/final.out" 2>&1
check "a run of final makes the database (exit $?)" [ -f "$DB" ]
before=$(counts)
$H run "${RUN[@]}" --variant tuned --db "$DB" >"$T/none2.out" 2>&1
rc=$?
check "tuned with none stored in an existing database: exit 2 (got $rc)" [ $rc -eq 2 ]
check "... and nothing stored (runs, measurements: $before -> $(counts))" [ "$(counts)" = "$before" ]
check "... and no result line: final does not run in its place" bash -c "! grep -q '^openmp ' '$T/none2.out'"
$H run "${RUN[@]}" --variant final,tuned --db "$DB" >"$T/mixed.out" 2>&1
rc=$?
check "final,tuned with no tuned configuration: final runs, exit 0 (got $rc)" [ $rc -eq 0 ]
check "... the skip is a note, counted" grep -q 'run: 1 config skipped' "$T/mixed.out"
check "... one measurement more, of final" \
    [ "$(q "$DB" "SELECT count(*), group_concat(DISTINCT variant) FROM measurement")" = "2|final" ]

# ---- a stored configuration ----
q "$DB" "INSERT INTO tuned(device_fingerprint, app, input, variant, wg_x, wg_y, median_s, margin, noise, samples,
          tie, knobs, config, objective, strategy, evaluations, search_s)
          VALUES ('$FP', 'lbm', '128x128', 'tuned', 16, 2, 0.0123, 0.05, 0.01, 5, 0, '$K',
          'final{obstacles=branch}', 'time', 'exhaustive', 12, 42.5)" >/dev/null
$H run "${RUN[@]}" --variant tuned --db "$DB" >"$T/tuned.out" 2>&1
rc=$?
check "run --variant tuned exits 0 (got $rc)" [ $rc -eq 0 ]
check "it says which configuration and shape it uses" \
    grep -q 'using the tuned configuration final{obstacles=branch} at 16x2 for lbm 128x128 on openmp' "$T/tuned.out"
check "its result line is variant tuned at 16x2, ok" \
    bash -c "awk '\$1 == \"openmp\" && \$4 == \"tuned\" && \$5 == \"16x2\" && \$6 == \"ok\"' '$T/tuned.out' | grep -q ."
row=$(q "$DB" "SELECT m.variant, c.wg_x || 'x' || c.wg_y, c.knobs = '$K', m.status FROM measurement m
               JOIN config c ON c.id = m.config_id ORDER BY m.id DESC LIMIT 1")
check "stored as variant tuned, 16x2, the stored knobs, ok ($row)" [ "$row" = "tuned|16x2|1|ok" ]
$H run "${RUN[@]}" --variant tuned --wg 32x1 --db "$DB" >"$T/wg.out" 2>&1
rc=$?
row=$(q "$DB" "SELECT m.variant, c.wg_x || 'x' || c.wg_y, c.knobs = '$K' FROM measurement m
               JOIN config c ON c.id = m.config_id ORDER BY m.id DESC LIMIT 1")
check "--wg 32x1 overrides the stored shape, the knobs stay (exit $rc; $row)" [ $rc -eq 0 -a "$row" = "tuned|32x1|1" ]
$H results --db "$DB" >"$T/results.out" 2>&1
check "results shows the tuned rows" grep -qE '^ *[0-9]+ .* tuned +16x2 +ok' "$T/results.out"
$H results --csv --db "$DB" >"$T/results.csv" 2>&1
r=$(python3 -c '
import csv, sys
rows = [x for x in csv.DictReader(open(sys.argv[1])) if x["variant"] == "tuned"]
print(len(rows), all(x["knobs"] == sys.argv[2] for x in rows))' "$T/results.csv" "$K" 2>&1)
check "results --csv: the tuned rows with the stored knobs, what ran ($r)" [ "$r" = "2 True" ]
$H run "${RUN[@]}" --variant tuned --knobs obstacles=mask --db "$DB" >"$T/knobs.out" 2>&1
rc=$?
check "--knobs on top of tuned is refused: exit 2 (got $rc)" [ $rc -eq 2 ]
$H run "${RUN[@]}" --variant tuned --input 256x256 --db "$DB" >"$T/other.out" 2>&1
rc=$?
check "another input has no configuration: exit 2 and a note naming it (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'no tuned configuration for lbm 256x256 on openmp' '$T/other.out'"
printf 'app lbm\ninput gen:32x32\nvariant tuned\ndevice openmp\nwg 8x1\n' >"$T/tune-tuned.sweep"
$H tune "$T/tune-tuned.sweep" --strategy exhaustive --db "$DB" >"$T/tune-tuned.out" 2>&1
rc=$?
check "tune FILE naming variant tuned is refused with file:line: exit 2 (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'tune-tuned.sweep:3: variant tuned' '$T/tune-tuned.out'"
$H verify lbm --variant tuned --db "$DB" >"$T/verify.out" 2>&1
rc=$?
check "a command that does not take tuned refuses it by name: exit 2 (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q \"variant 'tuned'\" '$T/verify.out'"

# ---- harness best shows the configuration ----
$H best --db "$DB" >"$T/best.txt" 2>&1
check "best: the configuration's row: tuned, 16x2, margin, noise, objective, evals, search time, its name" \
    grep -qE '^openmp .* lbm +128x128 +tuned +16x2 +12\.300 ms +\+5\.0% +1\.0% +5 +winner +time +12 +42\.500 s +[-0-9T:.Z]+ +final\{obstacles=branch\}$' \
    "$T/best.txt"
check "best: the table leaves the long knob string out" bash -c "! grep -q 'neighbours=' '$T/best.txt'"
$H best --long --db "$DB" >"$T/best-long.txt" 2>&1
check "best --long: the knobs and the strategy under the row" \
    bash -c "grep -qx '    knobs $K' '$T/best-long.txt' && grep -qx '    found by exhaustive' '$T/best-long.txt'"
$H best --csv --db "$DB" >"$T/best.csv" 2>&1
csv=$(python3 -c '
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["variant"] == "tuned"][0]
print("|".join([r["config"], str(r["knobs"] == sys.argv[2]), r["objective"], r["strategy"], r["evaluations"],
                r["search_s"], r["margin_pct"], r["noise_pct"], r["wg"]]))' "$T/best.csv" "$K" 2>&1)
check "best --csv: config, the full knobs, objective, strategy, evaluations, search_s, margin, noise ($csv)" \
    [ "$csv" = "final{obstacles=branch}|True|time|exhaustive|12|42.500|5.000|1.000|16x2" ]
$H best --csv --long --db "$DB" >/dev/null 2>&1
check "best --csv --long is a usage error (exit $?)" [ $? -eq 2 ]
q "$DB" "INSERT INTO tuned_history(device_fingerprint, app, input, variant, wg_x, wg_y, median_s, strategy, iters,
          evaluations, decision, why, knobs, config, objective, search_s) VALUES ('$FP', 'lbm', '128x128', 'tuned',
          16, 2, 0.0123, 'exhaustive', 20, 12, 'new', 'nothing stored', '$K', 'final{obstacles=branch}', 'time', 42.5)"
$H best --history --db "$DB" >"$T/history.txt" 2>&1
check "best --history: the decision with its configuration, objective and search time" \
    grep -q 'new: nothing stored  \[config final{obstacles=branch}, objective time, search 42.5 s\]$' "$T/history.txt"

# ---- a sweep file's `variant tuned` ----
printf 'app lbm\ninput 128x128 256x256\nvariant final tuned\ndevice openmp\nwg 32x1\niters 20\nreps 2\nrounds 1\n' \
    >"$T/s.sweep"
$H sweep --dry-run --keys "$T/s.sweep" --db "$DB" >"$T/dry.out" 2>"$T/dry.err"
rc=$?
check "sweep --dry-run: 128x128 tuned at its stored 16x2, not at the file's 32x1 (exit $rc)" \
    bash -c "grep '|lbm|128x128|$K|00016x00002  tuned: final{obstacles=branch}' '$T/dry.out' | grep -q ."
check "sweep --dry-run: 256x256 has none: a note naming it, no tuned point" \
    bash -c "grep -q 'no tuned configuration for lbm 256x256 on openmp' '$T/dry.err' && [ \$(wc -l <'$T/dry.out') -eq 3 ]"
$H sweep --dry-run "$T/s.sweep" --db "$T/absent.db" >/dev/null 2>&1
check "sweep --dry-run creates no database to look in" [ ! -e "$T/absent.db" ]
before=$(q "$DB" "SELECT count(*) FROM measurement")
$H sweep "$T/s.sweep" --db "$DB" --force >"$T/sweep.out" 2>&1
rc=$?
check "sweep with one tuned configuration missing: exit 0, the missing one not a failure (got $rc)" [ $rc -eq 0 ]
check "... counted as skipped" grep -q '1 skipped without a tuned configuration' "$T/sweep.out"
rows=$(q "$DB" "SELECT group_concat(x, ' ') FROM (SELECT c.input || ':' || m.variant || ':' || c.wg_x || 'x' || c.wg_y
                 || ':' || (c.knobs = '$K') AS x FROM measurement m JOIN config c ON c.id = m.config_id
                 WHERE m.id > $before ORDER BY 1)")
check "... stored: final at 32x1 on both inputs, tuned at 16x2 with its knobs on 128x128 ($rows)" \
    [ "$rows" = "128x128:final:32x1:0 128x128:tuned:16x2:1 256x256:final:32x1:0" ]

# ---- export --format t4: every measurement, the invalid one too, the tuned configuration marked ----
printf 'app lbm\ninput 128x128\nvariant final\ndevice openmp\nwg 7x1\niters 20\nreps 1\nrounds 1\n' >"$T/bad.sweep"
$H sweep "$T/bad.sweep" --db "$DB" >"$T/bad.out" 2>&1
check "a shape that does not divide the grid is stored as invalid" \
    [ "$(q "$DB" "SELECT count(*) FROM measurement WHERE status = 'invalid'")" = 1 ]
$H export --format t4 --db "$DB" --out "$T/t4.json" >"$T/t4.out" 2>&1
rc=$?
check "export --format t4 exits 0 (got $rc)" [ $rc -eq 0 ]
check "the T4 file parses as JSON" python3 -m json.tool "$T/t4.json" /dev/null
if command -v jq >/dev/null; then
    check "jq reads it too: every result has a configuration with block_size_x" \
        bash -c "[ \"\$(jq '[.results[] | select(.configuration.block_size_x == null)] | length' '$T/t4.json')\" = 0 ]"
fi
t4=$(python3 - "$T/t4.json" "$DB" "$K" <<'PY' 2>&1
import json, re, sqlite3, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
knobs = dict(kv.split("=") for kv in sys.argv[3].split(","))
bad = []
# The T4 results schema (1.0.0), by hand: its types, required keys and enum.
if not re.match(r"^[0-9]+\.[0-9]+\.[0-9]+$", d.get("schema_version", "")): bad.append("schema_version")
if not isinstance(d.get("results"), list): bad.append("results not a list")
for r in d["results"]:
    for k in ("configuration", "times", "invalidity", "correctness"):
        if k not in r: bad.append("%s missing" % k)
    if not isinstance(r["configuration"], dict) or not isinstance(r["times"], dict): bad.append("types")
    if not isinstance(r["times"].get("runtimes", []), list): bad.append("runtimes")
    if r["invalidity"] not in ("timeout", "compile", "runtime", "correctness", "constraints", "correct"):
        bad.append("invalidity %r" % r["invalidity"])
    if not isinstance(r["correctness"], (int, float)) or not isinstance(r.get("objectives", []), list):
        bad.append("correctness/objectives")
    if not isinstance(r.get("timestamp", ""), str): bad.append("timestamp")
    for m in r.get("measurements", []):
        if not (isinstance(m.get("name"), str) and isinstance(m.get("unit"), str)
                and isinstance(m.get("value"), (int, float, str, list))):
            bad.append("measurement %r" % m)
# Every measurement, with its shape, its knobs and its status.
n = db.execute("SELECT count(*) FROM measurement").fetchone()[0]
if len(d["results"]) != n: bad.append("%d results for %d measurements" % (len(d["results"]), n))
for r in d["results"]:
    wx, wy, status, variant = db.execute("SELECT c.wg_x, c.wg_y, m.status, m.variant FROM measurement m"
                                         " JOIN config c ON c.id = m.config_id WHERE m.id = ?",
                                         (r["measurement_id"],)).fetchone()
    c = r["configuration"]
    if (c["block_size_x"], c["block_size_y"]) != (wx, wy): bad.append("shape of %d" % r["measurement_id"])
    if "wg_x" in c: bad.append("wg_x is block_size_x now")
    if status == "invalid" and (r["invalidity"], r["correctness"]) != ("constraints", 0): bad.append("invalid row")
    if status == "ok" and r["invalidity"] != "correct": bad.append("ok row")
    want = variant == "tuned" and (wx, wy) == (16, 2)
    if r["tuned"] != want: bad.append("tuned flag of %s %dx%d: %r" % (variant, wx, wy, r["tuned"]))
    if r["tuned"] and {k: str(v) for k, v in c.items() if k in knobs} != knobs: bad.append("tuned knobs")
if not any(r["invalidity"] == "constraints" for r in d["results"]): bad.append("no invalid result")
t = [x for x in d["metadata"]["tuned"] if x["variant"] == "tuned"]
if len(t) != 1: bad.append("%d tuned configurations in metadata" % len(t))
else:
    t = t[0]
    got = (t["config"], t["objective"], t["strategy"], t["evaluations"], t["search_s"], t["device"],
           t["configuration"]["block_size_x"], t["configuration"]["block_size_y"], t["configuration"]["obstacles"])
    if got != ("final{obstacles=branch}", "time", "exhaustive", 12, 42.5, "openmp", 16, 2, "branch"):
        bad.append("metadata.tuned %r" % (got,))
print("; ".join(bad) or "fine")
PY
)
check "T4: schema types and enum, one result per measurement, block sizes, invalid rows, the tuned configuration marked and in metadata ($t4)" \
    [ "$t4" = fine ]

# ---- nightly tracks the stored configuration without being asked ----
printf 'app lbm\ninput 128x128\nvariant final\ndevice openmp\nwg 32x1\niters 20\nreps 2\n' >"$T/n.sweep"
$H nightly --suite "$T/n.sweep" --db "$DB" --rounds 2 --burn-in 0 --no-confirm >"$T/nightly.out" 2>&1
rc=$?
check "nightly exits 0 (got $rc)" [ $rc -eq 0 ]
check "nightly says it tracks the tuned configuration" \
    grep -q 'tracking the tuned configuration final{obstacles=branch} at 16x2 for 128x128 on openmp' "$T/nightly.out"
rows=$(q "$DB" "SELECT group_concat(x, ' ') FROM (SELECT m.variant || ':' || c.wg_x || 'x' || c.wg_y AS x
                 FROM measurement m JOIN config c ON c.id = m.config_id
                 WHERE m.run_id IN (SELECT run_id FROM nightly_run) ORDER BY 1)")
check "the night measured final and tuned at 16x2 ($rows)" [ "$rows" = "final:32x1 tuned:16x2" ]

# ---- report: the per-device tables run each device's configuration ----
R=$T/r.db
$H run --app selftest --input gen:1024 --device openmp --variant ok --reps 1 --warmup 0 --db "$R" >/dev/null 2>&1
SK=$(q "$R" "SELECT knobs FROM config LIMIT 1")
q "$R" "INSERT INTO tuned(device_fingerprint, app, input, variant, wg_x, wg_y, median_s, knobs, config, strategy,
          evaluations, search_s) VALUES ('$FP', 'selftest', 'gen-1024', 'tuned', 16, 1, 0.001, '$SK', 'ok',
          'exhaustive', 3, 1.0)" >/dev/null
printf 'app selftest\nreference "a test"\ninputs gen:1024 gen:4096\nwg 32x1\ntable 1 devices "Every device"\nrun ok\npublished "x" 1.0 2.0\n' \
    >"$T/d.def"
$H report selftest --quick --device openmp --variant tuned --def "$T/d.def" --db "$R" --out "$T/rep" \
    >"$T/rep.out" 2>&1
rc=$?
md=$(ls "$T"/rep/report-*.md 2>/dev/null | head -1)
check "report --variant tuned exits 0: a missing configuration is no failure (got $rc)" [ $rc -eq 0 -a -n "$md" ]
check "report: gen:1024 has its tuned time, gen:4096 says not tuned" \
    bash -c "grep -qE '^\| gen:1024 \| [0-9.e-]+( ‡)? \|' '$md' && grep -q '^| gen:4096 | not tuned |' '$md'"
check "report: the table says what tuned ran where (knobs and shape)" \
    grep -q 'Every column runs `tuned`: .* Here: openmp gen:1024: the default knobs at 16x1\.' "$md"
check "report: a note names the device and input without one" \
    grep -q 'no tuned configuration for selftest gen-4096 on openmp' "$T/rep.out"
rows=$(q "$R" "SELECT group_concat(c.input || ':' || c.wg_x || 'x' || c.wg_y, ' ') FROM measurement m
               JOIN config c ON c.id = m.config_id WHERE m.variant = 'tuned'")
check "report: only the tuned cell that ran is stored, as tuned at 16x1 ($rows)" [ "$rows" = "gen-1024:16x1" ]
$H report selftest --from-db --def "$T/d.def" --db "$R" --out "$T/rep2" >/dev/null 2>&1
md2=$(ls "$T"/rep2/report-*.md 2>/dev/null | head -1)
check "report --from-db writes the same table (the stored command's --variant)" \
    cmp -s <(sed -n '/^## Table 1:/,/^## Figures/p' "$md") <(sed -n '/^## Table 1:/,/^## Figures/p' "$md2")
printf 'app selftest\nreference "a test"\ninputs gen:1024\nwg 32x1\ntable 1 step "x"\nrow tuned - 1.0\n' >"$T/bad.def"
$H report selftest --quick --def "$T/bad.def" --db "$R" --out "$T/rep3" >"$T/bad-def.out" 2>&1
rc=$?
check "report: tuned in a step table's row is refused: exit 2 (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'only a per-device table' '$T/bad-def.out'"
$H report selftest --quick --variant no-such --def "$T/d.def" --db "$R" --out "$T/rep3" >"$T/bad-var.out" 2>&1
check "report --variant no-such: exit 2 (got $?)" [ $? -eq 2 ]

# ---- merge carries the configurations and their history ----
B=$T/b.db
$H run "${RUN[@]}" --variant final --db "$B" >/dev/null 2>&1
q "$B" "INSERT INTO tuned(device_fingerprint, app, input, variant, wg_x, wg_y, median_s, margin, noise, samples, tie,
          decided_at, knobs, config, objective, energy_j, strategy, evaluations, search_s) VALUES
          ('$FP', 'lbm', '128x128', 'tuned', 32, 1, 0.02, 0.1, 0.02, 6, 1, '2099-01-01T00:00:00.000Z', '$FINAL_K',
           'final', 'energy', 1.5, 'random', 7, 3.25),
          ('$FP', 'lbm', '256x256', 'tuned', 8, 4, 0.03, NULL, NULL, 3, 0, '2099-01-01T00:00:00.000Z', '$K',
           'final{obstacles=branch}', 'time', NULL, 'anneal', 9, 1.5);
       INSERT INTO tuned_history(device_fingerprint, app, input, variant, wg_x, wg_y, median_s, strategy, iters,
          evaluations, decision, why, decided_at, knobs, config, objective, search_s) VALUES ('$FP', 'lbm', '128x128',
          'tuned', 32, 1, 0.02, 'random', 20, 7, 'replaced', 'faster', '2099-01-01T00:00:00.000Z', '$FINAL_K',
          'final', 'energy', 3.25)" >/dev/null
$H merge "$T/m.db" "$DB" "$B" >"$T/merge.out" 2>&1
rc=$?
check "merge of two databases with tuned configurations exits 0 (got $rc)" [ $rc -eq 0 ]
cols="device_fingerprint, app, input, variant, wg_x, wg_y, median_s, margin, noise, samples, tie, decided_at, knobs,
      config, objective, energy_j, strategy, evaluations, search_s"
same=$(q "$T/m.db" "ATTACH '$B' AS b; SELECT (SELECT count(*) FROM tuned),
          (SELECT count(*) FROM (SELECT $cols FROM tuned INTERSECT SELECT $cols FROM b.tuned))")
check "merge: the newer configuration of a key wins and the other key comes along, every column intact ($same)" \
    [ "$same" = "2|2" ]
hcols="device_fingerprint, app, input, variant, wg_x, wg_y, strategy, decision, decided_at, knobs, config, objective,
       search_s"
hist=$(q "$T/m.db" "ATTACH '$DB' AS a; ATTACH '$B' AS b; SELECT (SELECT count(*) FROM tuned_history),
          (SELECT count(*) FROM (SELECT $hcols FROM tuned_history INTERSECT
                                 SELECT $hcols FROM (SELECT $hcols FROM a.tuned_history UNION ALL
                                                     SELECT $hcols FROM b.tuned_history)))")
check "merge: the history of both, with knobs, config, objective and search time ($hist)" [ "$hist" = "2|2" ]
$H merge "$T/m2.db" "$DB" >/dev/null 2>&1
same=$(q "$T/m2.db" "ATTACH '$DB' AS a; SELECT count(*) FROM (SELECT $cols FROM tuned INTERSECT SELECT $cols FROM a.tuned)")
check "merge: one input's configuration copied whole ($same of 1)" [ "$same" = 1 ]
$H run "${RUN[@]}" --variant tuned --db "$T/m.db" >"$T/merged-run.out" 2>&1
check "the merged configuration is what run --variant tuned runs (final at 32x1)" \
    grep -q 'using the tuned configuration final at 32x1 for lbm 128x128 on openmp' "$T/merged-run.out"
exit $((fails > 0))
