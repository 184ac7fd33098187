#!/usr/bin/env bash
# harness tune and best on OpenMP with a shortened run: a live random search
# stores its measurements and a tuned row, `best --csv` lists it, `run`
# without --wg uses it, and a replay over the same database evaluates only
# the shapes measured, runs nothing and stores nothing. Bad usage exits 2
# before the database is touched. Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir tune
DB=$T/tune.db
H=bin/harness
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
# One OpenMP thread: on a loaded 2-core machine a descheduled thread stalls
# every barrier and a round takes 10-50x longer at random (tests/integration/
# nightly.sh says the same), which would turn the verdicts below into noise.
export OMP_NUM_THREADS=1

# ---- bad usage: exit 2, no database ----
$H tune --input gen:64x64 --device openmp --strategy bayesian --budget 3 --db "$DB" >/dev/null 2>"$T/bad.err"
rc=$?
check "an unknown strategy exits 2 (got $rc) and names it" bash -c "[ $rc -eq 2 ] && grep -q bayesian '$T/bad.err'"
$H tune --input gen:64x64 --device openmp --strategy random --db "$DB" >/dev/null 2>&1
rc=$?
check "random without --budget exits 2 (got $rc)" [ $rc -eq 2 ]
$H tune --input gen:64x64 --device openmp --strategy exhaustive --variant nosuch --db "$DB" >/dev/null 2>&1
rc=$?
check "an unknown variant exits 2 (got $rc)" [ $rc -eq 2 ]
check "bad usage creates no database" [ ! -e "$DB" ]

# ---- a live random search ----
$H tune --app lbm --input gen:64x64 --iters 200 --reps 3 --device openmp --strategy random --budget 6 \
    --db "$DB" >"$T/tune.out" 2>"$T/tune.err"
rc=$?
check "tune --strategy random --budget 6 exits 0 (got $rc)" [ $rc -eq 0 ]
check "tune reports 6 evaluations" grep -q '^evaluations  6 of ' "$T/tune.out"
check "tune shows progress after each evaluation: 1..6 of 6, the time left, the best so far" \
    bash -c "[ \$(grep -cE '^tune \[[1-6]/6\] elapsed [0-9.hms]+(, about [0-9.hms]+ left)?, best so far [0-9]+x[0-9]+ ' '$T/tune.err') = 6 ]"
check "tune prints a best shape and a runner-up" bash -c "grep -q '^best ' '$T/tune.out' && grep -q '^runner-up ' '$T/tune.out'"
check "tune gives a verdict on rounds (winner, or TIE: not ahead round for round)" \
    grep -Eq '^verdict +(winner|TIE \(not ahead round for round\))' "$T/tune.out"
check "tune checks the host before and after" bash -c "grep -q '^host before: ' '$T/tune.out' && grep -q '^host after: ' '$T/tune.out'"
n=$(q "select count(*) from measurement m join config c on c.id = m.config_id where c.input = 'gen-64x64' and m.iters = 200 and m.rounds = 1")
check "tune stored one one-round measurement per evaluated shape ($n)" [ "$n" = 6 ]
n=$(q "select count(distinct c.wg_x || 'x' || c.wg_y) from measurement m join config c on c.id = m.config_id where m.rounds = 1")
check "the six measurements are six distinct shapes ($n)" [ "$n" = 6 ]
v=$(q "select count(*), min(rounds_done), count(distinct config_id) from measurement where rounds = 5")
check "the verdict measured 2 to 4 of the best shapes again, 5 rounds each ($v)" bash -c "[[ '$v' =~ ^[234]\\|5\\|[234]$ ]]"
row=$(q "select wg_x || 'x' || wg_y, tie, samples, margin >= 0, noise >= 0 from tuned where app = 'lbm' and input = 'gen-64x64' and variant = 'final'")
wg=${row%%|*}
check "tune stored a tuned row from the verdict's 5 rounds of 1 repetition ($row)" bash -c "[[ '$row' =~ ^[0-9]+x[0-9]+\\|[01]\\|5\\|1\\|1$ ]]"
check "the tuned shape is the one reported best ($wg)" grep -q "^best  *$wg " "$T/tune.out"
best_med=$(q "select median_s from tuned")
row_med=$(q "select m.median_s from measurement m join config c on c.id = m.config_id where m.rounds = 5 and c.wg_x || 'x' || c.wg_y = '$wg'")
check "the tuned time is its verdict rounds' ($best_med against the row's median $row_med)" \
    awk -v a="$best_med" -v b="$row_med" 'BEGIN {exit !(a > 0 && b > 0 && a / b < 1.1 && b / a < 1.1)}'
fp=$(q "select device_fingerprint from tuned")
check "the tuned row is keyed by the openmp fingerprint ($fp)" \
    bash -c "[ -n '$fp' ] && [ \"\$(sqlite3 '$DB' \"select backend from device where fingerprint = '$fp'\")\" = openmp ]"

# ---- a stored winner is never replaced by a worse one ----
# A search confined to tiny shapes (--wg-max 2: 1x1, 1x2, 2x1; each 1.5-2.5x
# slower than the stored shape here) measures the stored shape in its
# verdict too, and the stored row stays.
$H tune --input gen:64x64 --iters 200 --reps 3 --device openmp --strategy random --budget 2 --wg-max 2 \
    --db "$DB" >"$T/worse.out" 2>&1
rc=$?
check "a worse search (budget 2, tiny shapes) exits 0 (got $rc)" [ $rc -eq 0 ]
check "its verdict measured the stored $wg too" grep -q "^verdict: .*(the stored one among them)" "$T/worse.out"
check "it did not replace the stored $wg (decision: $(grep '^decision' "$T/worse.out" | cut -c1-80))" \
    bash -c "grep -Eq '^decision +(confirmed|kept):' '$T/worse.out' && [ \"\$(sqlite3 '$DB' \"select wg_x || 'x' || wg_y from tuned\")\" = '$wg' ]"
$H tune --input gen:64x64 --iters 200 --reps 3 --device openmp --strategy random --budget 2 --wg-max 2 --replace \
    --db "$DB" >"$T/forced.out" 2>&1
tiny=$(q "select wg_x || 'x' || wg_y from tuned")
check "--replace stores the tiny search's best anyway ($tiny)" \
    bash -c "grep -q '^decision  *replaced: --replace' '$T/forced.out' && [[ '$tiny' =~ ^[12]x[12]$ ]]"
$H tune --input gen:64x64 --iters 200 --reps 3 --device openmp --strategy random --budget 6 \
    --db "$DB" >"$T/better.out" 2>&1
now=$(q "select wg_x || 'x' || wg_y from tuned")
check "a search that beats the stored $tiny round for round replaces it (now $now)" \
    bash -c "grep -q '^decision  *replaced: .* beats the stored $tiny round for round' '$T/better.out' && [ '$now' != '$tiny' ]"
$H best --history --db "$DB" >"$T/history.txt" 2>&1
check "best --history lists the 4 decisions in order: new, kept or confirmed, replaced, replaced" \
    bash -c "[ \"\$(awk 'NR > 1 {print \$13}' '$T/history.txt' | tr -d ':' | tr '\n' ' ')\" = 'new confirmed replaced replaced ' ] || [ \"\$(awk 'NR > 1 {print \$13}' '$T/history.txt' | tr -d ':' | tr '\n' ' ')\" = 'new kept replaced replaced ' ]"
check "best --history names strategy, budget and steps of each" \
    bash -c "grep -q 'random  *2  *200  *2  *' '$T/history.txt' && grep -q 'random  *6  *200  *6  *' '$T/history.txt'"
$H tune --input gen:64x64 --iters 200 --reps 3 --device openmp --strategy random --budget 2 --wg-max 2 --rounds 1 \
    --db "$DB" >"$T/norounds.out" 2>&1
check "without a round verdict (--rounds 1) a different best is kept out: the stored $now stays" \
    bash -c "grep -q '^decision  *kept: .* was not measured against the stored' '$T/norounds.out' && [ \"\$(sqlite3 '$DB' \"select wg_x || 'x' || wg_y from tuned\")\" = '$now' ]"
wg=$now

# ---- harness best ----
$H best --csv --db "$DB" >"$T/best.csv" 2>&1
rc=$?
check "best --csv exits 0 (got $rc)" [ $rc -eq 0 ]
check "best --csv has a header" grep -q '^device,device_name,fingerprint,app,input,variant,wg,' "$T/best.csv"
check "best --csv lists the tuned row" grep -q "^openmp,.*,$fp,lbm,gen-64x64,final,$wg," "$T/best.csv"
$H best --db "$DB" --device openmp >"$T/best.txt" 2>&1
check "best --device openmp prints the table" grep -q "lbm  *gen-64x64  *final  *$wg" "$T/best.txt"
$H best --db "$DB" --device cuda:77 >"$T/none.txt" 2>&1
check "best --device for another device lists no row" bash -c "! grep -q gen-64x64 '$T/none.txt'"

# ---- run without --wg uses the tuned shape ----
$H run --input gen:64x64 --iters 200 --device openmp --reps 1 --db "$DB" >"$T/run.out" 2>"$T/run.err"
rc=$?
check "run without --wg exits 0 (got $rc)" [ $rc -eq 0 ]
check "run says it uses the tuned work-group $wg" grep -q "using tuned work-group $wg for final on openmp" "$T/run.err"
last=$(q "select c.wg_x || 'x' || c.wg_y from measurement m join config c on c.id = m.config_id order by m.id desc limit 1")
check "run stored its measurement with the tuned shape ($last)" [ "$last" = "$wg" ]
$H run --input gen:64x64 --iters 200 --device openmp --reps 1 --wg 8x8 --db "$DB" >/dev/null 2>"$T/run2.err"
last=$(q "select c.wg_x || 'x' || c.wg_y from measurement m join config c on c.id = m.config_id order by m.id desc limit 1")
check "an explicit --wg wins over the tuned shape ($last)" \
    bash -c "[ '$last' = 8x8 ] && ! grep -q 'using tuned' '$T/run2.err'"
$H run --input gen:32x32 --iters 200 --device openmp --reps 1 --db "$DB" >/dev/null 2>"$T/run3.err"
check "another input has no tuned shape and says nothing" bash -c "! grep -q 'using tuned' '$T/run3.err'"

# ---- replay ----
before_m=$(q "select count(*) from measurement")
before_t=$(q "select decided_at from tuned where input = 'gen-64x64'")
shapes=$(q "select count(distinct c.wg_x || 'x' || c.wg_y) from measurement m join config c on c.id = m.config_id
            where c.input = 'gen-64x64' and m.status = 'ok' and m.iters = 200")
$H tune --replay --strategy exhaustive --input gen:64x64 --device openmp --db "$DB" >"$T/replay.out" 2>&1
rc=$?
check "tune --replay --strategy exhaustive exits 0 (got $rc)" [ $rc -eq 0 ]
check "replay evaluates exactly the $shapes measured shapes" grep -q "^evaluations  $shapes of $shapes shapes" "$T/replay.out"
check "replay finds the best measured shape and says how far the pick is from it" \
    grep -q "^best known .*(the pick is +0.00% from it)" "$T/replay.out"
check "replay runs and stores nothing" \
    bash -c "[ \"\$(sqlite3 '$DB' 'select count(*) from measurement')\" = '$before_m' ] &&
             [ \"\$(sqlite3 '$DB' \"select decided_at from tuned where input = 'gen-64x64'\")\" = '$before_t' ]"
$H tune --replay --strategy anneal --budget 3 --seed 7 --input gen:64x64 --device "$fp" --db "$DB" >"$T/r1.out" 2>&1
$H tune --replay --strategy anneal --budget 3 --seed 7 --input gen:64x64 --device "$fp" --db "$DB" >"$T/r2.out" 2>&1
check "replay by fingerprint with a budget: 3 evaluations, the same for the same seed" \
    bash -c "grep -q '^evaluations  3 of ' '$T/r1.out' && cmp -s '$T/r1.out' '$T/r2.out'"
$H tune --replay --strategy exhaustive --input gen:128x128 --device openmp --db "$DB" >/dev/null 2>&1
rc=$?
check "replay with no measurements exits 1 (got $rc)" [ $rc -eq 1 ]
# The history of decisions travels with merge, once.
n=$(q "select count(*) from tuned_history")
$H merge "$T/merged.db" "$DB" >/dev/null 2>&1
$H merge "$T/merged.db" "$DB" >/dev/null 2>&1
m=$(sqlite3 "$T/merged.db" "select count(*) from tuned_history; select count(*) from tuned")
check "merge copies the $n tune decisions once (merged twice) and the tuned row" [ "$m" = "$(printf '%s\n1' "$n")" ]
exit $((fails > 0))
