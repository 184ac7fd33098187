#!/usr/bin/env bash
# The command line and the database: `devices`, an absent CUDA device, a
# two-variant run with --out and what it stores, `results --csv`, and every
# bad input of the foundation check (exit 2, the file named, the database
# untouched). Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir cli_and_db
H=bin/harness

# ---- (a) devices ----
$H devices >"$T/dev.out" 2>"$T/dev.err"
rc=$?
check "devices exits 0 (got $rc)" [ $rc -eq 0 ]
check "devices lists openmp" grep -q '^openmp ' "$T/dev.out"
check "devices lists opencl:0.0" grep -q '^opencl:0.0 ' "$T/dev.out"
if grep -q '^cuda:' "$T/dev.out"; then
    check "devices lists a CUDA device, so no note about CUDA on stderr" bash -c "! grep -qi 'note: cuda' '$T/dev.err'"
else
    check "devices: no CUDA device, so a note on stderr mentions cuda" grep -qi 'note: cuda' "$T/dev.err"
fi
check "devices: no note on stdout (notes go to stderr)" bash -c "! grep -qi 'note:' '$T/dev.out'"
omp_fp=$(awk '/^openmp /{on=1} on && /fingerprint/{print $2; exit}' "$T/dev.out")
check "devices: openmp fingerprint is 16 hex digits ($omp_fp)" bash -c "[[ '$omp_fp' =~ ^[0-9a-f]{16}$ ]]"
ocl_max=$(awk '/^opencl:0.0 /{on=1} on && /max work-group/{for (i = 1; i <= NF; i++) if ($i == "work-group") {print $(i+1) + 0; exit}}' "$T/dev.out")
check "devices: opencl:0.0 reports a max work-group ($ocl_max)" bash -c "[ '${ocl_max:-0}' -gt 0 ]"
$H devices --csv >"$T/csv.out" 2>/dev/null
ndev=$(grep -c '^[^ ]' "$T/dev.out")
check "devices --csv: a header and one line per device ($ndev)" \
    bash -c "head -1 '$T/csv.out' | grep -q '^spec,backend,' && [ \$(wc -l <'$T/csv.out') -eq $((ndev + 1)) ]"

# ---- (b) a device that is not there ----
cuda=cuda:0
grep -q '^cuda:0 ' "$T/dev.out" && cuda=cuda:99
$H run --input gen:32x32 --iters 10 --device $cuda --reps 1 --db "$T/none.db" >"$T/cuda.out" 2>&1
rc=$?
check "run --device $cuda exits 2 (got $rc)" [ $rc -eq 2 ]
check "run --device $cuda names it in the message" grep -q "'$cuda'" "$T/cuda.out"
check "run --device $cuda creates no database" [ ! -e "$T/none.db" ]

# ---- (c) a run of two variants with --out ----
DB=$T/run.db
out=$T/out
$H run --input gen:32x32 --iters 200 --device openmp --variant t02-ported,final --reps 3 --db "$DB" \
    --out "$out" >"$T/run.out" 2>"$T/run.err"
rc=$?
check "run t02-ported,final exits 0 (got $rc)" [ $rc -eq 0 ]
nok=$(awk '$1 == "openmp" && $2 == "lbm" && $6 == "ok"' "$T/run.out" | wc -l)
check "run prints an ok line per variant ($nok)" [ "$nok" -eq 2 ]
for v in t02-ported final; do
    d=$out/openmp-$v-32x1
    check "--out with several configs: $d/ holds av_vels.dat and final_state.dat" \
        [ -f "$d/av_vels.dat" -a -f "$d/final_state.dat" ]
    [ -f "$d/av_vels.dat" ] || continue
    n=$(wc -l <"$d/av_vels.dat")
    check "$v av_vels.dat has 200 lines ($n)" [ "$n" -eq 200 ]
    bad=$(grep -cvP '^\d+:\t\d\.\d{12}E[-+]\d{2}$' "$d/av_vels.dat")
    check "$v av_vels.dat lines are 'N:<tab>d.ddddddddddddE-ee' ($bad bad)" [ "$bad" -eq 0 ]
    bad=$(awk -F: '$1 != NR - 1' "$d/av_vels.dat" | wc -l)
    check "$v av_vels.dat numbers the steps 0..199 ($bad out of order)" [ "$bad" -eq 0 ]
    n=$(wc -l <"$d/final_state.dat")
    check "$v final_state.dat has 32*32 lines ($n)" [ "$n" -eq 1024 ]
    bad=$(awk 'NF != 7' "$d/final_state.dat" | wc -l)
    check "$v final_state.dat lines have 7 fields ($bad bad)" [ "$bad" -eq 0 ]
    bad=$(awk '$1 != (NR - 1) % 32 || $2 != int((NR - 1) / 32)' "$d/final_state.dat" | wc -l)
    check "$v final_state.dat is y outer, x inner ($bad bad)" [ "$bad" -eq 0 ]
    walls=$(awk '$7 == 1' "$d/final_state.dat" | wc -l)
    check "$v final_state.dat marks the 124 wall cells ($walls)" [ "$walls" -eq 124 ]
    bad=$(awk '$7 == 1 && ($3 != 0 || $4 != 0 || $6 != "3.333333333333E-02")' "$d/final_state.dat" | wc -l)
    check "$v walls print u = 0 and pressure density/3 ($bad bad)" [ "$bad" -eq 0 ]
    bad=$(awk '$7 == 0 && ($6 < 0.03 || $6 > 0.037 || ($5 - sqrt($3 * $3 + $4 * $4))^2 > 1e-20)' "$d/final_state.dat" | wc -l)
    check "$v fluid cells: pressure near density/3, |u| = sqrt(ux^2+uy^2) ($bad bad)" [ "$bad" -eq 0 ]
done
a=$(tail -1 "$out/openmp-t02-ported-32x1/av_vels.dat" 2>/dev/null | cut -f2)
b=$(tail -1 "$out/openmp-final-32x1/av_vels.dat" 2>/dev/null | cut -f2)
check "t02-ported and final end within 1% of each other ($a, $b)" \
    awk -v a="${a:-0}" -v b="${b:-1}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 0.01 * a) }'

q() { sqlite3 "$DB" "$1" 2>&1; }
check "db: 2 measurement rows, both ok ($(q "SELECT group_concat(status) FROM measurement"))" \
    [ "$(q "SELECT count(*) FROM measurement WHERE status = 'ok'")/$(q "SELECT count(*) FROM measurement")" = 2/2 ]
check "db: measurements record reps 3, warmup 1, 200 of 1000 steps, scaled" \
    [ "$(q "SELECT count(*) FROM measurement WHERE reps = 3 AND warmup = 1 AND iters = 200 AND iters_full = 1000 AND scaled = 1")" = 2 ]
check "db: 6 sample rows ($(q "SELECT count(*) FROM sample"))" [ "$(q "SELECT count(*) FROM sample")" = 6 ]
check "db: 3 positive samples per measurement" \
    [ "$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM sample WHERE seconds > 0 GROUP BY measurement_id)")" = 3,3 ]
check "db: one finished run, its command line kept" \
    [ "$(q "SELECT count(*) FROM run WHERE ended_at IS NOT NULL AND command LIKE '%--variant t02-ported,final%'")/$(q "SELECT count(*) FROM run")" = 1/1 ]
fp=$(q "SELECT fingerprint FROM device")
check "db: one device row, openmp, with a 16-hex fingerprint equal to devices' ($fp)" \
    bash -c "[[ '$fp' =~ ^[0-9a-f]{16}$ ]] && [ '$fp' = '$omp_fp' ] && [ \"\$(sqlite3 '$DB' 'SELECT backend FROM device')\" = openmp ]"
check "db: one build row with a commit ($(q "SELECT git_commit FROM build"))" \
    [ "$(q "SELECT count(*) FROM build WHERE length(git_commit) > 0")/$(q "SELECT count(*) FROM build")" = 1/1 ]
check "db: one host row" [ "$(q "SELECT count(*) FROM host")" = 1 ]
check "db: the run points at that device, build and host" \
    [ "$(q "SELECT count(*) FROM run r JOIN device d ON d.id = r.device_id JOIN build b ON b.id = r.build_id JOIN host h ON h.id = r.host_id")" = 1 ]

$H results --db "$DB" --csv >"$T/results.csv" 2>"$T/results.err"
rc=$?
check "results --csv exits 0 (got $rc)" [ $rc -eq 0 ]
check "results --csv: a header and 2 rows ($(wc -l <"$T/results.csv") lines)" [ "$(wc -l <"$T/results.csv")" -eq 3 ]
check "results --csv: header starts id,when," bash -c "head -1 '$T/results.csv' | grep -q '^id,when,'"
check "results --csv: rows for t02-ported and final, status ok" \
    bash -c "grep -q ',t02-ported,32x1,ok,' '$T/results.csv' && grep -q ',final,32x1,ok,' '$T/results.csv'"
# Rows of different step counts side by side are not comparable: the steps
# each ran are a column (issue 34), "run/input's own" in the table.
check "results --csv: a steps column with the steps each row ran" \
    python3 -c "import csv,sys; r=list(csv.DictReader(open('$T/results.csv'))); sys.exit(0 if r and all(x['steps'] == '$(q "SELECT min(iters) FROM measurement")' for x in r) else 1)"
check "results: the table says a shortened run's steps of the input's own" \
    bash -c "$H results --db '$DB' | grep -q ' $(q "SELECT min(iters) FROM measurement")/$(q "SELECT min(iters_full) FROM measurement") '"

# One config with --out writes into the folder itself.
$H run --input gen:32x32 --iters 20 --device openmp --variant final --reps 1 --db "$T/one.db" --out "$T/one" \
    >/dev/null 2>&1
check "--out with one config writes av_vels.dat (20 lines) into the folder itself" \
    bash -c "[ -f '$T/one/av_vels.dat' ] && [ \$(wc -l <'$T/one/av_vels.dat') -eq 20 ] && [ -f '$T/one/final_state.dat' ]"

# ---- (d) bad inputs: exit 2, the file named, the database untouched ----
P=$T/bad
mkdir -p "$P"
printf '128\n128\nforty\n10\n0.1\n0.005\n1.85\n' >"$P/p_nonnum.params"
printf '128\n128\n100\n10\n0.1\n0.005\n' >"$P/p_short.params"
printf '128\n-5\n100\n10\n0.1\n0.005\n1.85\n' >"$P/p_neg.params"
printf '128\n128\n100\n10\n0.1\n0.005\n2.5\n' >"$P/p_omega.params"
printf '128\n128\n100\n10\n0.1\n0.005\n1.85\n' >"$P/p_ok.params"
printf '0 0 1\n300 5 1\n' >"$P/o_range.dat"
printf '0 0 1\n1 1 7\n' >"$P/o_flag.dat"
printf '0 0 1\n' >"$P/o_ok.dat"
samples_before=$(q "SELECT count(*) FROM sample")
meas_before=$(q "SELECT count(*) FROM measurement")

# bad NAME WANT-IN-MESSAGE ARGS...: run with ARGS (defaults first), expect exit 2
bad() {
    local name=$1 want=$2; shift 2
    local msg rc
    msg=$($H run --app lbm --device openmp --variant final --reps 1 --iters 10 --db "$DB" "$@" 2>&1)
    rc=$?
    if [ $rc -ne 2 ]; then
        notok "bad input $name: exit $rc, wanted 2 ($(echo "$msg" | grep -v '^note:' | head -1))"
    elif [ -n "$want" ] && ! echo "$msg" | grep -qF -- "$want"; then
        notok "bad input $name: message lacks '$want': $(echo "$msg" | grep -v '^note:' | head -1)"
    else
        ok "bad input $name: exit 2, $(echo "$msg" | grep -v '^note:' | head -1)"
    fi
}
bad "non-numeric maxIters" "p_nonnum.params:3:" --params "$P/p_nonnum.params" --obstacles "$P/o_ok.dat"
bad "params without omega" "p_short.params:7:" --params "$P/p_short.params" --obstacles "$P/o_ok.dat"
bad "negative ny" "p_neg.params:2:" --params "$P/p_neg.params" --obstacles "$P/o_ok.dat"
bad "omega 2.5" "p_omega.params:7:" --params "$P/p_omega.params" --obstacles "$P/o_ok.dat"
bad "obstacle out of range" "o_range.dat:2:" --params "$P/p_ok.params" --obstacles "$P/o_range.dat"
bad "obstacle flag 7" "o_flag.dat:2:" --params "$P/p_ok.params" --obstacles "$P/o_flag.dat"
bad "missing params file" "nothere.params" --params "$P/nothere.params" --obstacles "$P/o_ok.dat"
bad "missing obstacles file" "nothere.dat" --params "$P/p_ok.params" --obstacles "$P/nothere.dat"
bad "--params without --obstacles" "--obstacles" --params "$P/p_ok.params"
bad "unknown input" "nosuchinput" --input nosuchinput
bad "unknown variant" "no-such-variant" --input 128x128 --variant no-such-variant
bad "one unknown variant in a list" "nope" --input 128x128 --variant final,nope
bad "unknown device" "nosuchdevice:9" --input 128x128 --device nosuchdevice:9
bad "unknown app" "nosuchapp" --app nosuchapp --input 128x128
bad "unknown knob" "colour" --input 128x128 --knobs colour=red
bad "bad knob value" "hex" --input 128x128 --knobs layout=hex
bad "work-group 48x1 does not divide 128x128" "does not divide" --input 128x128 --wg 48x1
bad "malformed work-group" "32by1" --input 128x128 --wg 32by1
bad "bit-mask neighbours on 96x64" "power-of-two" --input gen:96x64
bad "--iters 0" "--iters" --input 128x128 --iters 0
bad "--reps 0" "--reps" --input 128x128 --reps 0
big=$((2 * ${ocl_max:-4096}))
bad "work-group ${big}x1 over opencl:0.0's maximum of ${ocl_max:-?}" "exceeds" \
    --input "gen:${big}x4" --wg "${big}x1" --device opencl:0.0
bad "one bad device in a list" "nosuchdevice" --input 128x128 --device openmp,nosuchdevice

check "bad inputs: sample rows unchanged ($samples_before -> $(q "SELECT count(*) FROM sample"))" \
    [ "$(q "SELECT count(*) FROM sample")" = "$samples_before" -a "$samples_before" = 6 ]
check "bad inputs: measurement rows unchanged ($meas_before -> $(q "SELECT count(*) FROM measurement"))" \
    [ "$(q "SELECT count(*) FROM measurement")" = "$meas_before" ]
check "bad inputs: no new run rows" [ "$(q "SELECT count(*) FROM run")" = 1 ]
$H run --params "$P/p_omega.params" --obstacles "$P/o_ok.dat" --device openmp --db "$T/fresh.db" >/dev/null 2>&1
check "bad input with a new --db path creates no database file" [ ! -e "$T/fresh.db" ]

exit $((fails > 0))
