#!/usr/bin/env bash
# harness tune FILE on OpenMP: a space of knobs x shapes from a sweep file
# (two knobs, shapes of any size, a constraint, two inputs: two searches in
# one call), the tuned configuration stored with its knobs, a replay over the
# stored points, screening (shortened search, finalists at full length), a
# warm start from the other input, a worse search that leaves the stored
# configuration alone, and bad input (an empty space, a budget of 0, an
# unknown strategy) exiting 2 with nothing stored.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
test_dir tune_space
DB=$T/t.db
H=bin/harness
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
export OMP_NUM_THREADS=1 # see tests/integration/tune.sh

cat >"$T/space.sweep" <<'S'
app lbm
input gen:32x32 gen:64x64
knobs final: obstacles=branch|mask reduction=binary|deferred
device openmp
wg {8,12,16} x {1,2}
constraint x*y <= 24
iters 60
reps 3
warmup 1
timeout 60
S
# 2 x 2 settings x 6 shapes, less 16x2 (32 items) and 12-wide shapes (12 divides neither grid): 12 points per input.

# ---- bad input: exit 2, nothing stored ----
sed 's/^constraint .*/constraint x*y > 100000/' "$T/space.sweep" >"$T/empty.sweep"
$H tune "$T/empty.sweep" --strategy random --budget 3 --db "$DB" >/dev/null 2>"$T/empty.err"
rc=$?
check "a space emptied by its constraint exits 2 (got $rc) and says so" \
    bash -c "[ $rc -eq 2 ] && grep -q 'space is empty' '$T/empty.err'"
$H tune "$T/space.sweep" --strategy random --budget 0 --db "$DB" >/dev/null 2>&1
rc=$?
check "a budget of 0 exits 2 (got $rc)" [ $rc -eq 2 ]
$H tune "$T/space.sweep" --strategy nosuch --budget 3 --db "$DB" >/dev/null 2>"$T/strat.err"
rc=$?
check "an unknown strategy exits 2 (got $rc) and lists forest" \
    bash -c "[ $rc -eq 2 ] && grep -q forest '$T/strat.err'"
$H tune "$T/space.sweep" --strategy random --budget 3 --objective energy --db "$DB" >/dev/null 2>"$T/energy.err"
rc=$?
check "--objective energy on a device without an energy meter exits 2 (got $rc) and says so" \
    bash -c "[ $rc -eq 2 ] && grep -q 'reports no energy' '$T/energy.err'"
check "bad input creates no database" [ ! -e "$DB" ]

# ---- an exhaustive search of both inputs in one call ----
$H tune "$T/space.sweep" --strategy exhaustive --rounds 3 --db "$DB" >"$T/ex.out" 2>"$T/ex.err"
rc=$?
check "tune FILE --strategy exhaustive exits 0 (got $rc)" [ $rc -eq 0 ]
check "two searches in one call (one per input)" [ "$(grep -c '^== search [12] of 2 ==' "$T/ex.out")" = 2 ]
check "each search has 12 valid points (the constraint left 4 out, 12 does not divide the grid: 8)" \
    [ "$(grep -c '12 valid points (4 settings x 6 shapes: 4 left out by constraints, 8 invalid)' "$T/ex.out")" = 2 ]
check "each evaluated all 12" [ "$(grep -c '^evaluations  12 of 12 points' "$T/ex.out")" = 2 ]
check "no shape over the constraint was measured" [ "$(q "SELECT count(*) FROM config WHERE wg_x*wg_y > 24")" = 0 ]
rows=$(q "SELECT count(*) FROM tuned WHERE variant = 'tuned' AND knobs LIKE '%obstacles=%' AND config LIKE 'final{%'")
check "two tuned configurations stored with knobs and a name ($rows)" [ "$rows" = 2 ]
best=$(q "SELECT config || ' ' || wg_x || 'x' || wg_y FROM tuned WHERE input = 'gen-64x64'")
check "the stored configuration is the one reported best ($best)" \
    grep -q "^best  *${best#* }  median .* ${best%% *}" "$T/ex.out"
h=$(q "SELECT count(*) FROM tuned_history WHERE variant = 'tuned' AND config IS NOT NULL AND search_s > 0")
check "each decision kept with its configuration and the search's time ($h)" [ "$h" = 2 ]

# ---- replay over the stored points ----
$H tune "$T/space.sweep" --input gen:64x64 --replay --strategy forest --budget 5 --db "$DB" >"$T/rp.out" 2>&1
rc=$?
check "a forest replay of the stored space exits 0 (got $rc)" [ $rc -eq 0 ]
check "the replay sees the 12 measured points and spends 5" \
    bash -c "grep -q 'tune --replay lbm gen-64x64 on openmp: 12 measured points' '$T/rp.out' && grep -q '^evaluations  5 of 12 points' '$T/rp.out'"
check "the replay says how far its pick is from the best known point" grep -q '^best known ' "$T/rp.out"

# ---- a worse search leaves the stored configuration alone ----
before=$(q "SELECT knobs || wg_x || wg_y FROM tuned WHERE input = 'gen-64x64'")
$H tune "$T/space.sweep" --input gen:64x64 --strategy random --budget 1 --seed 7 --rounds 3 --db "$DB" \
    >"$T/worse.out" 2>&1
after=$(q "SELECT knobs || wg_x || wg_y FROM tuned WHERE input = 'gen-64x64'")
check "a one-point search is judged against the stored configuration" \
    grep -Eq '^decision +(kept|confirmed|replaced): ' "$T/worse.out"
if grep -q '^decision  *replaced' "$T/worse.out"; then
    check "it replaced the stored configuration only by beating it round for round" \
        grep -q 'beats the stored .* round for round' "$T/worse.out"
else
    check "the stored configuration stays" [ "$before" = "$after" ]
fi

# ---- screening ----
$H tune "$T/space.sweep" --input gen:32x32 --strategy random --budget 6 --screen 20 --finalists 3 --rounds 1 \
    --db "$DB" >"$T/sc.out" 2>&1
rc=$?
check "a screened search exits 0 (got $rc)" [ $rc -eq 0 ]
check "screening measures 6 points at 20 steps, then 3 finalists at 60" \
    bash -c "[ \$(grep -c '\[20/' '$T/sc.out') = 6 ] && grep -q '^finalists: the 3 best of the 20-step search at full length (60 steps)' '$T/sc.out' && [ \$(sed -n '/^finalists/,\$p' '$T/sc.out' | grep -c '\[60/') = 3 ]"

# ---- warm start from the other input ----
$H tune "$T/space.sweep" --input gen:32x32 --strategy forest --budget 4 --warm-start --rounds 1 --db "$DB" \
    >"$T/warm.out" 2>&1
rc=$?
check "a warm-started forest search exits 0 (got $rc)" [ $rc -eq 0 ]
check "the warm start found this space measured elsewhere (gen:64x64)" \
    grep -q '^warm start   12 points of this space measured on .* gen-64x64 60 steps' "$T/warm.out"
exit $((fails > 0))
