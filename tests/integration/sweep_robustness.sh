#!/usr/bin/env bash
# Sweeps survive what configs do to them: a crash and a hang cost one row
# each and the sweep finishes; a sweep killed half-way (-9) resumes with
# exactly the missing configs; a third run measures nothing; two sweeps
# write one database at the same time and both complete.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir sweep_robustness
t=$T

cat > $t/drills.sweep <<'SW'
app selftest
input gen:4096
variant ok crash hang wrong
device openmp
wg 32x1
reps 2
warmup 0
timeout 5
SW
# The drills on one OpenMP thread: the hang spins on every thread of its
# team until the 5 s watchdog, so one thread halves its CPU (10 -> 5 s a
# sweep); what is checked is the sweep's handling of each drill's outcome.
out=$(OMP_NUM_THREADS=1 bin/harness sweep $t/drills.sweep --db $t/d.db 2>&1); rc=$?
if [ $rc -eq 1 ]; then ok "a sweep with failing configs finishes and exits 1"
else notok "drills sweep exit $rc: $(echo "$out" | tail -2)"; fi
if echo "$out" | grep -q "4 measured (3 failed)"; then ok "all four configs were measured"
else notok "summary: $(echo "$out" | tail -1)"; fi
for pair in ok:ok crash:crashed hang:timeout wrong:wrong; do
    v=${pair%%:*} want=${pair##*:}
    got=$(sqlite3 $t/d.db "select m.status from measurement m where m.variant='$v'")
    if [ "$got" = "$want" ]; then ok "variant $v stored as $want"; else notok "variant $v stored as '$got', wanted $want"; fi
done
reason=$(sqlite3 $t/d.db "select reason from measurement where variant='crash'")
if echo "$reason" | grep -q "signal 11"; then ok "the crash names its signal"; else notok "crash reason: $reason"; fi

printf 'app lbm\ninput 128x128\ninput gen:12\nvariant final\n' > $t/badinput.sweep
out=$(bin/harness sweep $t/badinput.sweep --db $t/bad.db 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "badinput.sweep:3: input:" && [ ! -e $t/bad.db ]; then
    ok "a bad input is reported by the app at file:line, exit 2, nothing written"
else notok "bad input: exit $rc: $out"; fi

cat > $t/small.sweep <<'SW'
app lbm
input gen:64x64
variant final
device openmp
wg 4x1 8x1 16x1 32x1 8x2 16x2 32x2 8x4
iters 800
reps 3
warmup 1
SW
q="select count(distinct config_id) from measurement"
# Kill -9 once at least two configs are stored (each takes a few tenths of
# a second, so the poll sees the count long before the sweep ends).
bin/harness sweep $t/small.sweep --db $t/r.db > /dev/null 2>&1 & pid=$!
for i in $(seq 1 1200); do
    n=$(sqlite3 $t/r.db "$q" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge 2 ] && break
    sleep 0.02
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
n1=$(sqlite3 $t/r.db "$q")
if { [ "$n1" -ge 2 ] && [ "$n1" -lt 8 ]; } ||
    [ "$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done < rounds")" -gt 0 ]; then
    ok "killed mid-way with $n1 of 8 configs stored"
else notok "killed at $n1 of 8 (the kill came too late or too early)"; fi
# Rounds (rounds.h): the configs' first rounds come before any second, so a
# killed sweep leaves rows with fewer rounds than planned: the re-run gives
# them their missing rounds and measures the configs with no row at all.
done1=$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done >= rounds")
part1=$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done < rounds")
out=$(bin/harness sweep $t/small.sweep --db $t/r.db 2>&1)
want="$((8 - done1)) measured (0 failed), 0 invalid, $done1 skipped as already measured"
[ "$part1" -gt 0 ] && want="$want, $part1 resumed"
if echo "$out" | grep -qF "$want"; then ok "the re-run measured only what was missing: $want"
else notok "re-run: $(echo "$out" | tail -1) (wanted: $want)"; fi
n2=$(sqlite3 $t/r.db "$q"); rows2=$(sqlite3 $t/r.db "select count(*) from measurement")
if [ "$n2" = 8 ] && [ "$rows2" = 8 ]; then ok "after the resume: 8 configs, 8 rows, no duplicates"
else notok "after resume: $n2 configs, $rows2 rows"; fi
if [ "$(sqlite3 $t/r.db "select count(*) from measurement where rounds = 3 and rounds_done = 3; select count(*) from (select measurement_id, round from sample group by 1, 2 having count(*) = 1)")" = "$(printf '8\n24')" ]; then
    ok "every row has its 3 rounds, each round's repetition once (resumed rows appended to, not duplicated)"
else notok "after resume the rounds are: $(sqlite3 $t/r.db "select group_concat(rounds_done) from measurement")"; fi
out=$(bin/harness sweep $t/small.sweep --db $t/r.db 2>&1)
rows3=$(sqlite3 $t/r.db "select count(*) from measurement")
if [ "$rows3" = 8 ] && echo "$out" | grep -q "0 measured"; then ok "a third run measures nothing"
else notok "third run: $rows3 rows; $(echo "$out" | tail -1)"; fi
check "the killed database is intact (integrity_check)" [ "$(sqlite3 $t/r.db 'pragma integrity_check')" = ok ]
# --force: the same 8 configs (a config's key has no reps or warm-up) measured
# again, one repetition and no warm-up each: what is checked is the count.
sed 's/^reps .*/reps 1/; s/^warmup .*/warmup 0/' $t/small.sweep > $t/force.sweep
out=$(bin/harness sweep $t/force.sweep --db $t/r.db --force 2>&1)
rows4=$(sqlite3 $t/r.db "select count(*) from measurement")
check "--force measures everything again ($rows4 rows, want 16)" [ "$rows4" = 16 ]

# Two sweeps into one database at once.
bin/harness sweep $t/small.sweep --db $t/c.db > $t/c1.log 2>&1 & p1=$!
OMP_NUM_THREADS=1 bin/harness sweep $t/drills.sweep --db $t/c.db > $t/c2.log 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
# That small sweep ran uninterrupted: its rows are the whole sweep's configs
# (no run of its own for this check).
full=$(sqlite3 $t/c.db "select count(distinct m.config_id) from measurement m join config c on c.id = m.config_id where c.app = 'lbm'")
check "the uninterrupted sweep measured 8 configs ($full)" [ "$full" = 8 ]
rows=$(sqlite3 $t/c.db "select count(*) from measurement")
if [ $r1 -eq 0 ] && [ $r2 -eq 1 ] && [ "$rows" = 12 ]; then ok "two sweeps wrote one database at once: 12 rows"
else notok "concurrent sweeps: exits $r1/$r2, $rows rows: $(tail -1 $t/c1.log) / $(tail -1 $t/c2.log)"; fi
exit $((fails > 0))
