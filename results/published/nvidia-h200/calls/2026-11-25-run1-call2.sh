#!/usr/bin/env bash
# GPU call 2 (issue 16): clean nights to 8 on the same host, then power (about 5 %, a clean night, about 2 %).
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
if [ ! -d /tmp/n ]; then
  echo "fresh host: /tmp/n restored from the carried tarball"
  mkdir -p /tmp && tar xzf .noise-carry/n.tgz -C /tmp
fi
[ -x bin/harness ] || make -j16 GIT_COMMIT=$(git rev-parse HEAD) GIT_DIRTY=0 >$OUT/build.log 2>&1
last=$(sqlite3 /tmp/n/n.db "SELECT max(id) FROM nightly")
echo "host has nights to $last"
k=$((last + 1))
while [ $k -le ${NIGHTS:-8} ]; do
  FIRST=$k PHASES=clean BURN=10 scripts/nightly_noise.sh /tmp/n $k >>$OUT/nights.log 2>&1
  k=$((k + 1))
done
echo "clean nights done at ${SECONDS}s"
PHASES=power BURN=10 SKIP_RERUN=$([ $SECONDS -gt 200 ] && echo 1) scripts/nightly_noise.sh /tmp/n 0 >>$OUT/nights.log 2>&1
echo "power done at ${SECONDS}s"
bin/harness regressions --db /tmp/n/n.db --no-confirm >/tmp/n/regressions.txt 2>&1
cp /tmp/n/*.txt $OUT/ 2>/dev/null
tar czf $OUT/n.tgz -C /tmp n
cat /tmp/n/summary.txt
