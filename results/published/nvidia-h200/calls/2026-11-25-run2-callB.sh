#!/usr/bin/env bash
# GPU call B: clean nights to 8 on the same host, power (about 5 %, clean, about 2 %), the 2 % night at 1 %.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
[ -d /tmp/n ] || { echo "fresh host: the nights of call A are gone"; exit 3; }
last=$(sqlite3 /tmp/n/n.db "SELECT max(id) FROM nightly")
k=$((last + 1))
while [ $k -le ${NIGHTS:-8} ]; do
  FIRST=$k PHASES=clean BURN=10 scripts/nightly_noise.sh /tmp/n $k >>$OUT/nights.log 2>&1
  k=$((k + 1))
done
echo "clean nights done at ${SECONDS}s"
PHASES=power BURN=10 SKIP_RERUN=1 scripts/nightly_noise.sh /tmp/n 0 >>$OUT/nights.log 2>&1
echo "power done at ${SECONDS}s"
read -r n5 n2 </tmp/n/picks.txt
if [ -n "${n2:-}" ] && [ $SECONDS -lt 520 ]; then
  timeout 60 bin/harness compare nightly:-2 nightly:-1 --db /tmp/n/n.db --min-effect 0.01 --rerun --rounds 10 --burn-in 10 \
    --b-root /tmp/n/tree-${n2/\//-} >/tmp/n/slow2-rerun-1pct.txt 2>&1
fi
bin/harness regressions --db /tmp/n/n.db --no-confirm >/tmp/n/regressions.txt 2>&1
bin/harness noise --db /tmp/n/n.db >/tmp/n/noise.txt 2>&1
cd /tmp/n && tar czf $OUT/logs.tgz *.txt *.log && xz -T4 -c n.db >$OUT/n.db.xz
ls -la $OUT; cat /tmp/n/summary.txt | grep -v '^#' | tail -6
