#!/usr/bin/env bash
# `harness report dg` shows what issue 38 asks, on a CPU: P (cell updates per
# second) beside every time, consistent with it (P x seconds = the input's
# cells x steps), the registers table's sentence where no device reports
# registers (CPU backends), OpenACC against a GPU's variant said to have
# nothing to compare with here, and the ladder figure drawn. Stored
# resources come back through --from-db into the registers table (a
# CUDA device's, put in the database by hand: no GPU here), and with the
# OpenACC host fallback the directive table's cell is set against the
# fastest GPU's `final` (openmp relabelled a GPU in a copy of the
# database). A cut definition (tests/data/dg-report.def) on openmp and
# openacc:host keeps it short.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir dg_report
H=bin/harness
DEF=tests/data/dg-report.def
CELLS_STEPS=$((128 * 128 * 100)) # yee:128 at its own 100 steps

# The OpenACC host fallback, where GCC's offloading compiler is here, gives
# the directive table a cell to set against a GPU (below).
DEV=openmp ACC=
if ! HARNESS_OFFLOAD_HOST=1 $H devices 2>&1 | grep -q "cannot build OpenACC offload code"; then
    DEV=openmp,openacc:host ACC=1
fi
HARNESS_OFFLOAD_HOST=1 $H report dg --quick --device $DEV --def $DEF --db "$T/r.db" --out "$T/r" >"$T/r.out" 2>&1
rc=$?
check "report dg --quick on openmp exits 0 (got $rc; $(tail -1 "$T/r.out"))" [ $rc -eq 0 ]
md=$(ls "$T"/r/report-*.md 2>/dev/null | head -1)
check "it wrote a markdown file" [ -n "$md" ]
[ -n "$md" ] || md=/dev/null

# table_rows N: the data rows of Table N.
table_rows() { sed -n "/^## Table $1:/,/^## /p" "$md" | grep '^| yee:'; }
check "the step tables have an openmp P column beside its seconds" \
    bash -c "sed -n '/^## Table 1:/,/^## Table 2:/p' '$md' | grep -q '^| size | openmp (s) | openmp P (cell updates/s) | our speedup |'"
check "the devices table has one too" \
    bash -c "sed -n '/^## Table 7:/,/^## Table 8:/p' '$md' | grep -q '| openmp P (cell updates/s) |'"
# Every row's P x seconds is the input's cells x steps, within the rounding
# of the printed numbers (%.3g for P, milliseconds for the time).
consistent=$( { table_rows 1; table_rows 2; table_rows 7; } | awk -F'|' -v want=$CELLS_STEPS '
    { s = $3; p = $4; gsub(/[^0-9.e+-]/, "", s); gsub(/ /, "", p)
      if (s == "" || p == "" || p == "-") { bad++; next }
      r = s * p / want; n++; if (r < 0.98 || r > 1.02) { bad++; print "# " $0 " -> " r > "/dev/stderr" } }
    END { print n + 0, bad + 0 }')
check "P x seconds = $CELLS_STEPS (128x128 cells x 100 steps) within 2 % in every row (rows, off: $consistent)" \
    [ "${consistent% *}" -ge 3 -a "${consistent#* }" = 0 ]
check "the registers table says no device here reports them (a CPU backend)" \
    bash -c "sed -n '/^## Table 9:/,/^## /p' '$md' | grep -q '^No device here reports registers or local memory per kernel (openmp)'"
check "the directive table says there is no GPU to set it against" \
    grep -q '^Against `final` on a GPU: no GPU device' "$md"
png=$(grep -oE '\]\([^)]*ladder-yee-128\.png\)' "$md" | tr -d '()]')
check "the ladder figure is linked ($png) and drawn" bash -c "[ -n '$png' ] && [ -s '$(dirname "$md")/$png' ]"
check "the ladder figure has its caption" grep -q '^P (cell updates/s: the MLUPS column x 1e+06) of each step' "$md"
check "a CPU backend stores no resources" [ "$(sqlite3 "$T/r.db" "select count(*) from measurement where resources is not null")" = 0 ]

# ---- stored resources, drawn again ----
cp "$T/r.db" "$T/g.db"
sqlite3 "$T/g.db" "update measurement set resources = 'dg_flux_x:196:0 dg_fused:255:292'
    where variant = 's1-registers'; update measurement set resources = 'dg_conv_x:110:0' where variant = 's0-adapted'"
$H report dg --from-db --def $DEF --db "$T/g.db" --out "$T/g" >"$T/g.out" 2>&1
rc=$?
md2=$(ls "$T"/g/report-*.md 2>/dev/null | head -1)
check "--from-db exits 0 (got $rc)" [ $rc -eq 0 -a -n "$md2" ]
[ -n "$md2" ] || md2=/dev/null
check "--from-db draws the same step and device tables, P included" \
    cmp -s <(sed -n '/^## Table 1:/,/^## Table 8:/p' "$md") <(sed -n '/^## Table 1:/,/^## Table 8:/p' "$md2")
sed -n '/^## Table 9:/,/^## /p' "$md2" >"$T/t9.md"
check "the registers table reads the stored resources: a row per variant and kernel" \
    bash -c "grep -qF '| \`s0-adapted\` | dg_conv_x | 110 | 0 |' '$T/t9.md' &&
             grep -qF '| \`s1-registers\` | dg_flux_x | 196 | 0 |' '$T/t9.md' &&
             grep -qF '| \`s1-registers\` | dg_fused | 255 | 292 **(local)** |' '$T/t9.md'"
check "its header names the device's registers and local bytes" \
    grep -qF '| variant | kernel | openmp registers | openmp local bytes |' "$T/t9.md"
# export carries them too, in a last column (empty where a backend reports none).
$H export --format csv --db "$T/g.db" --app dg >"$T/g.csv" 2>&1
check "export csv: a resources column with each row's stored text" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"s1-registers": "dg_flux_x:196:0 dg_fused:255:292", "s0-adapted": "dg_conv_x:110:0"}
ok = rows and all(r["resources"] == want.get(r["variant"], "") for r in rows)
ok = ok and any(r["resources"] for r in rows) and any(not r["resources"] for r in rows)
sys.exit(not ok)' "$T/g.csv"

# ---- the directive table against a GPU: openmp stored as one ----
if [ -n "$ACC" ]; then
    cp "$T/r.db" "$T/a.db"
    sqlite3 "$T/a.db" "update device set kind = 'gpu' where spec = 'openmp'"
    $H report dg --from-db --def $DEF --db "$T/a.db" --out "$T/a" >"$T/a.out" 2>&1
    md3=$(ls "$T"/a/report-*.md 2>/dev/null | head -1)
    acc=$(sed -n '/^## Table 8:/,/^## /p' "$md3" | awk -F'|' '$2 ~ /yee:128/ {gsub(/[^0-9.]/, "", $3); print $3}')
    gpu=$(sed -n '/^## Table 7:/,/^## /p' "$md3" | awk -F'|' '$2 ~ /yee:128/ {gsub(/[^0-9.]/, "", $3); print $3}')
    line=$(grep '^- yee:128: openacc:host `s4-aligned` [0-9.]*x against openmp `final` (' "$md3")
    got=$(echo "$line" | sed -n 's/.*`s4-aligned` \([0-9.]*\)x.*/\1/p')
    # The printed ratio is of the unrounded times: within 0.02 of the printed ones'.
    near=$(awk -v a="$acc" -v g="$gpu" -v r="$got" 'BEGIN {d = (g > 0 && r != "") ? r - a / g : 1; print (d < 0 ? -d : d) <= 0.02}')
    check "each directive cell over the GPU's final: $acc s / $gpu s ($line)" [ "$near" = 1 ]
else
    echo "ok - the directive table against a GPU # skip no offloading compiler here (openacc:host)"
fi
exit $((fails > 0))
