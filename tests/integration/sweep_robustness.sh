#!/usr/bin/env bash
# Sweeps survive what configs do to them: a crash and a hang cost one row
# each and the sweep finishes; a sweep killed half-way (-9) resumes with
# exactly the missing configs; a third run measures nothing; two sweeps
# write one database at the same time and both complete.
set -u
t=$HARNESS_TEST_TMP/sweeprob
mkdir -p $t
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; }

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
[ $rc -eq 1 ] && ok "a sweep with failing configs finishes and exits 1" || bad "drills sweep exit $rc: $(echo "$out" | tail -2)"
echo "$out" | grep -q "4 measured (3 failed)" && ok "all four configs were measured" || bad "summary: $(echo "$out" | tail -1)"
for pair in ok:ok crash:crashed hang:timeout wrong:wrong; do
    v=${pair%%:*} want=${pair##*:}
    got=$(sqlite3 $t/d.db "select m.status from measurement m where m.variant='$v'")
    [ "$got" = "$want" ] && ok "variant $v stored as $want" || bad "variant $v stored as '$got', wanted $want"
done
reason=$(sqlite3 $t/d.db "select reason from measurement where variant='crash'")
echo "$reason" | grep -q "signal 11" && ok "the crash names its signal" || bad "crash reason: $reason"

printf 'app lbm\ninput 128x128\ninput gen:12\nvariant final\n' > $t/badinput.sweep
out=$(bin/harness sweep $t/badinput.sweep --db $t/bad.db 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "badinput.sweep:3: input:" && [ ! -e $t/bad.db ] \
    && ok "a bad input is reported by the app at file:line, exit 2, nothing written" || bad "bad input: exit $rc: $out"

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
[ "$n1" -ge 2 ] && [ "$n1" -lt 8 ] || [ "$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done < rounds")" -gt 0 ] \
    && ok "killed mid-way with $n1 of 8 configs stored" || bad "killed at $n1 of 8 (the kill came too late or too early)"
# Rounds (rounds.h): the configs' first rounds come before any second, so a
# killed sweep leaves rows with fewer rounds than planned: the re-run gives
# them their missing rounds and measures the configs with no row at all.
done1=$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done >= rounds")
part1=$(sqlite3 $t/r.db "select count(*) from measurement where rounds_done < rounds")
out=$(bin/harness sweep $t/small.sweep --db $t/r.db 2>&1)
want="$((8 - done1)) measured (0 failed), 0 invalid, $done1 skipped as already measured"
[ "$part1" -gt 0 ] && want="$want, $part1 resumed"
echo "$out" | grep -qF "$want" && ok "the re-run measured only what was missing: $want" \
    || bad "re-run: $(echo "$out" | tail -1) (wanted: $want)"
n2=$(sqlite3 $t/r.db "$q"); rows2=$(sqlite3 $t/r.db "select count(*) from measurement")
[ "$n2" = 8 ] && [ "$rows2" = 8 ] && ok "after the resume: 8 configs, 8 rows, no duplicates" || bad "after resume: $n2 configs, $rows2 rows"
[ "$(sqlite3 $t/r.db "select count(*) from measurement where rounds = 3 and rounds_done = 3; select count(*) from (select measurement_id, round from sample group by 1, 2 having count(*) = 1)")" = "$(printf '8\n24')" ] \
    && ok "every row has its 3 rounds, each round's repetition once (resumed rows appended to, not duplicated)" \
    || bad "after resume the rounds are: $(sqlite3 $t/r.db "select group_concat(rounds_done) from measurement")"
out=$(bin/harness sweep $t/small.sweep --db $t/r.db 2>&1)
rows3=$(sqlite3 $t/r.db "select count(*) from measurement")
[ "$rows3" = 8 ] && echo "$out" | grep -q "0 measured" && ok "a third run measures nothing" || bad "third run: $rows3 rows; $(echo "$out" | tail -1)"
[ "$(sqlite3 $t/r.db 'pragma integrity_check')" = ok ] && ok "the killed database is intact" || bad "integrity_check failed"
# --force: the same 8 configs (a config's key has no reps or warm-up) measured
# again, one repetition and no warm-up each: what is checked is the count.
sed 's/^reps .*/reps 1/; s/^warmup .*/warmup 0/' $t/small.sweep > $t/force.sweep
out=$(bin/harness sweep $t/force.sweep --db $t/r.db --force 2>&1)
rows4=$(sqlite3 $t/r.db "select count(*) from measurement")
[ "$rows4" = 16 ] && ok "--force measures everything again" || bad "--force: $rows4 rows"

# Two sweeps into one database at once.
bin/harness sweep $t/small.sweep --db $t/c.db > $t/c1.log 2>&1 & p1=$!
OMP_NUM_THREADS=1 bin/harness sweep $t/drills.sweep --db $t/c.db > $t/c2.log 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
# That small sweep ran uninterrupted: its rows are the whole sweep's configs
# (no run of its own for this check).
full=$(sqlite3 $t/c.db "select count(distinct m.config_id) from measurement m join config c on c.id = m.config_id where c.app = 'lbm'")
[ "$full" = 8 ] && ok "the uninterrupted sweep measured 8 configs" || bad "uninterrupted sweep measured $full"
rows=$(sqlite3 $t/c.db "select count(*) from measurement")
[ $r1 -eq 0 ] && [ $r2 -eq 1 ] && [ "$rows" = 12 ] && ok "two sweeps wrote one database at once: 12 rows" \
    || bad "concurrent sweeps: exits $r1/$r2, $rows rows: $(tail -1 $t/c1.log) / $(tail -1 $t/c2.log)"
