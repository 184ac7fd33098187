#!/usr/bin/env bash
# One compile per kernel product however many processes want it at once
# (build_cache.h, cache_lock): three runs started together with an empty
# kernel cache, through a compiler wrapper that logs each call and takes a
# second (so the three overlap), compile each product once; every run
# verifies. Without the lock each process compiled its own copy.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir build_lock
mkdir -p "$T/cache"
# The wrapper logs the product each build writes (-o PRODUCT.PID.tmp, the
# PID cut off), then compiles a second later.
cat >"$T/cc" <<EOS
#!/bin/sh
prev=
for a in "\$@"; do
    [ "\$prev" = -o ] && echo "\$a" | sed 's/\.[0-9]*\.tmp\$//' >>"$T/calls"
    prev=\$a
done
sleep 1
exec cc "\$@"
EOS
chmod +x "$T/cc"
for i in 1 2 3; do
    HARNESS_OMP_CC="$T/cc" HARNESS_CACHE="$T/cache" bin/harness run --device openmp --input gen:16x16 --iters 5 \
        --reps 1 --warmup 0 --db "$T/r$i.db" >"$T/r$i.out" 2>&1 &
done
wait
ok=$(cat "$T"/r?.out | awk '$2 == "lbm" && $6 == "ok"' | wc -l)
calls=$(wc -l <"$T/calls" 2>/dev/null || echo 0)
products=$(sort -u "$T/calls" 2>/dev/null | wc -l)
check "three runs at once verify (ok lines: $ok of 3)" [ "$ok" = 3 ]
check "each kernel product is compiled once: $calls builds of $products products" \
    [ "$products" -ge 1 -a "$calls" = "$products" ]
exit $((fails > 0))
