#!/usr/bin/env bash
# Reliability figures (issue 21): a sweep killed with -9 twenty times at random moments, then resumed
# (integrity, nothing lost or duplicated); four concurrent runs on one database; a read-only folder
# (meaningless as root) and a corrupt database file. Prints the figures; writes only under a temp folder.
set -u
H=${H:-$(cd "$(dirname "$0")/.." && pwd)/bin/harness}
D=$(mktemp -d)
cat > $D/k.sweep <<S
app lbm
input gen:32x32
variant final t02-ported
device openmp
wg {1,2,4,8,16,32} x {1,2,4}
iters 3000
reps 2
S
kills=0 tries=0
# Twenty kill -9s of a live sweep: a try whose sweep ended before the kill
# does not count, and the next one starts it again from what is stored.
while [ $kills -lt 20 ] && [ $tries -lt 80 ]; do
    tries=$((tries + 1))
    $H --quiet sweep $D/k.sweep --db $D/k.db >/dev/null 2>&1 &
    pid=$!
    sleep $((RANDOM % 2)).$((RANDOM % 10))
    if kill -9 $pid 2>/dev/null; then kills=$((kills + 1)); fi
    wait $pid 2>/dev/null
    pkill -9 -f "harness worker" 2>/dev/null
done
$H --quiet sweep $D/k.sweep --db $D/k.db > $D/final.out 2>&1; rc=$?
echo "kills: $kills of $tries tries; final resume exit $rc"
echo "integrity: $(sqlite3 $D/k.db 'pragma integrity_check')"
echo "configs with an ok measurement: $(sqlite3 $D/k.db "select count(distinct config_id) from measurement where status='ok'") of 36"
echo "duplicated (config, build, device) ok rows: $(sqlite3 $D/k.db "select count(*) from (select config_id, count(*) c from measurement m join run r on r.id=m.run_id where status='ok' group by config_id, r.device_id, r.build_id having c > 1)")"
echo "samples without a measurement: $(sqlite3 $D/k.db 'select count(*) from sample where measurement_id not in (select id from measurement)')"
# 4 concurrent runs on one database
for i in 1 2 4 8; do $H --quiet run --input gen:32x32 --iters 100 --reps 2 --device openmp --variant final --wg ${i}x1 --db $D/c.db >/dev/null 2>&1 & done; wait
echo "4 concurrent runs: $(sqlite3 $D/c.db 'select count(*) from measurement') measurements, $(sqlite3 $D/c.db 'select count(*) from run') runs, integrity $(sqlite3 $D/c.db 'pragma integrity_check')"
# read-only path and corrupt file
# A folder nothing may be written in: immutable (chattr +i) as root, whom
# chmod does not stop; chmod 555 otherwise.
mkdir -p $D/ro && { [ "$(id -u)" -eq 0 ] && chattr +i $D/ro 2>/dev/null || chmod 555 $D/ro; }
$H run --input gen:32x32 --iters 50 --reps 1 --device openmp --db $D/ro/x.db > $D/ro.out 2>&1; echo "read-only folder: exit $?; $(ls $D/ro | wc -l) files; message: $(grep -v '^note' $D/ro.out | head -1)"
chattr -i $D/ro 2>/dev/null
head -c 4096 /dev/urandom > $D/bad.db; cp $D/bad.db $D/bad.orig
$H run --input gen:32x32 --iters 50 --reps 1 --device openmp --db $D/bad.db > $D/bad.out 2>&1; echo "corrupt file: exit $?; message: $(grep -v '^note' $D/bad.out | head -1); unchanged: $(cmp -s $D/bad.db $D/bad.orig && echo yes || echo no)"
sqlite3 $D/c.db .dump > /dev/null; cp $D/c.db $D/rofile.db; chmod 444 $D/rofile.db
$H results --db $D/rofile.db --limit 1 > /dev/null 2>&1; echo "results on a 0444 file: exit $?"
