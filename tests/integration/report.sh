#!/usr/bin/env bash
# `harness report`: the selftest drills' definition (kernels/selftest/report.def)
# shows a wrong and a crashed variant as such in every cell and never as a
# time, stores every cell in the database and its CSV; a malformed definition
# is refused with file:line and exit 2 before anything runs; and the LBM
# report's --quick version (one repetition a round) writes all 17 tables, the
# figures and no failure, on OpenMP and PoCL, in under two minutes.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir report
H=bin/harness

# ---- the drills ----
$H report selftest --quick --db "$T/s.db" --out "$T/s" >"$T/s.out" 2>&1
rc=$?
check "selftest report exits 1 since variants failed (got $rc)" [ $rc -eq 1 ]
md=$(ls "$T"/s/report-*.md 2>/dev/null | head -1)
check "selftest report wrote a markdown file" [ -n "$md" ]
# Named for the host and the devices in words: OpenMP and PoCL drive one
# CPU, so its brand once (no PoCL "pthread-<arch>" prefix).
host=$(hostname -s | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/-$//')
brand=$($H devices 2>/dev/null | awk '$1 == "openmp" {$1 = $2 = ""; print}' | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-*//; s/-*$//')
check "the report's file is named for the host and the CPU once: report-$host-$brand.md ($(basename "$md"))" \
    [ "$(basename "$md")" = "report-$host-$brand.md" ]
# Table 2's device cells say "wrong", table 3's "crashed": no number in them.
row() { grep -A6 "^## Table $1:" "$md" | grep "^| $2 |"; }
check "a wrong variant shows as wrong in every device cell" \
    bash -c "[ \"\$(echo '$(row 2 gen:1024)' | cut -d'|' -f3,5 | tr -d ' ')\" = 'wrong|wrong' ]"
check "a crashing variant shows as crashed in every device cell" \
    bash -c "[ \"\$(echo '$(row 3 gen:4096)' | cut -d'|' -f3,5 | tr -d ' ')\" = 'crashed|crashed' ]"
check "the verified variant has times" bash -c "echo '$(row 1 gen:4096)' | cut -d'|' -f3 | grep -qE '[0-9]'"
check "a speedup over a wrong variant is not printed" \
    bash -c "[ \"\$(grep -A4 '^## Table 5:' '$md' | grep '^| gen:1024 |' | cut -d'|' -f5 | tr -d ' ')\" = '-' ]"
csv=$(dirname "$md")/$(basename "$md" .md)/cells.csv
rows=$(($(wc -l <"$csv") - 1))
# Every cell is in the database with its status (re-measured cells add rows).
missing=$(python3 - "$csv" "$T/s.db" <<'PY'
import csv, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
n = 0
for r in csv.DictReader(open(sys.argv[1])):
    q = db.execute("select count(*) from measurement m join config c on c.id = m.config_id"
                   " join run on run.id = m.run_id join device d on d.id = run.device_id"
                   " where d.spec = ? and c.wg_x = ? and c.wg_y = ? and m.variant = ? and m.status = ?"
                   " and m.iters = ?", (r["device"], r["wg_x"], r["wg_y"], r["variant"], r["status"], r["iters"]))
    n += q.fetchone()[0] == 0
print(n)
PY
)
check "every one of the $rows cells of the CSV is a database row (missing: $missing)" [ "$rows" -gt 10 -a "$missing" = 0 ]

# ---- drawn again from the database: the same tables, nothing measured ----
cp "$T/s.db" "$T/again.db"
before=$(sqlite3 "$T/again.db" "select count(*) from measurement")
$H report selftest --from-db --db "$T/again.db" --out "$T/again" >"$T/again.out" 2>&1
rc=$?
md2=$(ls "$T"/again/report-*.md 2>/dev/null | head -1)
check "--from-db exits 0 (got $rc)" [ $rc -eq 0 ]
check "--from-db writes the same tables as the measuring run" \
    cmp -s <(sed -n '/^## Table 1:/,/^## Figures/p' "$md") <(sed -n '/^## Table 1:/,/^## Figures/p' "$md2")
check "--from-db measures nothing" [ "$(sqlite3 "$T/again.db" "select count(*) from measurement")" = "$before" ]
# The header says how the rows were measured, whatever this command's options.
$H report selftest --from-db --reps 7 --rounds 4 --warmup 3 --budget 9 --db "$T/again.db" --out "$T/again2" \
    >/dev/null 2>&1
md3=$(ls "$T"/again2/report-*.md 2>/dev/null | head -1)
check "--from-db with other options states the stored settings (repetitions, rounds, warm-up, budget)" \
    bash -c "[ -n '$md3' ] && cmp -s <(grep '^- Every time is' '$md') <(grep '^- Every time is' '$md3')"
$H report selftest --from-db --db "$T/none.db" --out "$T/none" >"$T/none.out" 2>&1
check "--from-db without a database fails with a message" \
    bash -c "[ $? -eq 1 ] && grep -q 'no database' '$T/none.out'"

# ---- a malformed definition: file:line, exit 2, nothing stored ----
sed 's/^row wrong ok 0.5 1.0$/row wrong ok 0.5 one/' kernels/selftest/report.def >"$T/bad.def"
$H report selftest --def "$T/bad.def" --db "$T/bad.db" --out "$T/bad" >"$T/bad.out" 2>&1
rc=$?
line=$(grep -n '^row wrong' "$T/bad.def" | cut -d: -f1)
check "a malformed definition exits 2 (got $rc)" [ $rc -eq 2 ]
check "the error names file and line" grep -q "bad.def:$line: \`one\` is not a positive number" "$T/bad.out"
check "nothing was created for it" [ ! -e "$T/bad.db" -a ! -e "$T/bad" ]
printf 'app selftest\ninputs gen:64\ntable 1 step "t"\nrow nosuch - 1\n' >"$T/unknown.def"
$H report selftest --def "$T/unknown.def" --db "$T/bad.db" --out "$T/bad" >"$T/unknown.out" 2>&1
rc=$?
check "an unknown variant in a definition exits 2 with file:line (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'unknown.def:4: unknown variant .nosuch.' '$T/unknown.out'"

# ---- the LBM report, --quick ----
# --reps 2: one repetition a round in its two rounds, not --quick's two (the
# cells, rounds, verification and tables are the same; only the timings'
# medians have fewer samples, which nothing here judges). A third of the
# kernels' runs and some 20 s of CPU less.
# Its database is the drills' (copied): --quick reuses the ceilings stored
# there (copy and FP32 of both devices, measured by the drills' report above)
# instead of measuring them a second time, as a second report on a host does.
cp "$T/s.db" "$T/l.db"
start=$(date +%s)
$H report lbm --quick --reps 2 --db "$T/l.db" --out "$T/l" >"$T/l.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "lbm --quick exits 0 (got $rc; $(tail -1 "$T/l.out"))" [ $rc -eq 0 ]
echo "# lbm --quick took ${took} s"
md=$(ls "$T"/l/report-*.md 2>/dev/null | head -1)
missing=
for t in $(seq 1 17); do
    grep -q "^## Table $t:" "$md" 2>/dev/null || missing="$missing $t"
done
check "lbm report has Tables 1-17 (missing:${missing:- none})" [ -z "$missing" ]
check "Table 15 says what the OpenACC probe found" grep -qiE 'OpenACC compiler|offload' "$md"
pngs=$(grep -oE '\]\([^)]+\.png\)' "$md" | tr -d '()]' | sort -u)
n=0 bad=0
for p in $pngs; do n=$((n + 1)); [ -s "$(dirname "$md")/$p" ] || bad=$((bad + 1)); done
check "the report links $n figures (>= 4), every one a file ($bad missing)" [ $n -ge 4 -a $bad -eq 0 ]
check "the 1024x1024 rows say not run in --quick" grep -q '^| 1024x1024 | not run (--quick)' "$md"
statuses=$(cut -d, -f7 "$(dirname "$md")/$(basename "$md" .md)/cells.csv" | sort -u | tr '\n' ' ')
check "every lbm cell is ok, unverified (empty kernels) or invalid (shapes): $statuses" \
    bash -c "! echo '$statuses' | tr ' ' '\n' | grep -vqE '^(status|ok|unverified|invalid|)$'"
check "the directions are counted and explained" grep -qE '^Directions of the steps: [0-9]+ agree' "$md"
# Markdown reads a line right under a table as one more row: every table
# ends in a blank line.
check "no text line runs on from a table (it would render as a row)" \
    bash -c "! awk 'prev ~ /^\\|/ && \$0 != \"\" && \$0 !~ /^\\|/ {bad = 1} {prev = \$0} END {exit !bad}' '$md'"

# A definition without `rate` or `ladder-figure` (LBM's) keeps its tables as they were.
check "lbm's report has no rate column and no ladder figure" \
    bash -c "! grep -qE '^\| size \|.* P \(' '$md' && ! grep -q 'Figure 7: the ladder' '$md'"

echo "report: $fails failed"
exit $((fails > 0))
