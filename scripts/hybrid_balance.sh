#!/usr/bin/env bash
# The run-time balancer against fixed splits (issue 20: "the balancer within
# 5 % of the best fixed split"): the sandpile on a device set at fixed
# splits (SPLITS, default first and second (the set's single-device ends: on PoCL + OpenMP here
# second, OpenMP alone, is the fastest of all) and 0.004 (one row at 256) 0.01 0.02 0.05 0.1 .. 0.9)
# and split=auto, each member alone for scale, every
# config verified, the repetitions spread over rounds (fresh workers,
# configs shuffled), WARMUP (default 3) untimed repetitions first in each
# round for every config (they teach split=auto), medians over all repetitions. Prints a table and the
# balancer's time against the best fixed split's. KNOBS (as host_tile=65536x16) adds settings to every
# set config and to the openmp member's alone run.
#   scripts/hybrid_balance.sh [SET] [INPUT] [ITERS] [EXCHANGE] [VARIANT] [WG] [ROUNDS] [REPS]
#   scripts/hybrid_balance.sh opencl:0.0+openmp 256x256 3000 8 flag-1000 16x8 3 3
# Writes $OUT/hybrid-balance.db (OUT defaults to a temporary folder).
set -eu
cd "$(dirname "$0")/.."
SET=${1:-opencl:0.0+openmp}
INPUT=${2:-256x256}
ITERS=${3:-3000}
K=${4:-8}
VARIANT=${5:-flag-1000}
WG=${6:-16x8}
ROUNDS=${7:-3}
REPS=${8:-3}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
DB=$OUT/hybrid-balance.db
A=${SET%%+*}
B=${SET#*+}
sweep=$OUT/hybrid-balance.sweep
{
    echo "app sandpile"
    echo "input $INPUT"
    echo "knobs $VARIANT: split=${SPLITS:-first|second|0.004|0.01|0.02|0.05|0.1|0.2|0.3|0.4|0.5|0.6|0.7|0.8|0.9}|auto exchange=$K ${KNOBS:-}"
    echo "device $SET"
    echo "wg $WG"
    echo "iters $ITERS"
    echo "reps $REPS"
    echo "warmup ${WARMUP:-3}"
    echo "rounds $ROUNDS"
    echo "timeout 300"
} >"$sweep"
bin/harness sweep "$sweep" --db "$DB" --quiet --force >"$OUT/hybrid-balance.log" 2>&1 || true
for m in "$A" "$B"; do
    bin/harness run --app sandpile --input "$INPUT" --iters "$ITERS" --variant "$VARIANT" --wg "$WG" \
        $([ "$m" = openmp ] && [ -n "${KNOBS:-}" ] && echo --knobs "$KNOBS") --device "$m" --rounds "$ROUNDS" --reps "$REPS" --db "$DB" --quiet \
        >>"$OUT/hybrid-balance.log" 2>&1 || true
done
echo "# sandpile $INPUT, $ITERS iterations, $VARIANT, exchange=$K, wg $WG, $ROUNDS rounds x $REPS reps: median ms"
sqlite3 -separator ' ' "$DB" "
  SELECT d.spec, CASE WHEN c.knobs LIKE '%split=%' THEN substr(c.knobs, instr(c.knobs, 'split=') + 6,
         instr(substr(c.knobs, instr(c.knobs, 'split=')), ',') - 7) WHEN d.backend = 'set' THEN 'auto' ELSE '-' END,
         m.status, printf('%.1f', 1000 * m.median_s), coalesce(m.reason, '')
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id
  ORDER BY d.spec, c.knobs" | awk '{r = ""; for (i = 5; i <= NF; i++) r = r " " $i; printf "%-20s split %-5s %-7s %10s ms %s\n", $1, $2, $3, $4, r}'
sqlite3 "$DB" "
  WITH s AS (SELECT CASE WHEN c.knobs LIKE '%split=%' THEN c.knobs ELSE 'split=auto' END k, m.median_s t
             FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
             JOIN device d ON d.id = r.device_id WHERE m.status = 'ok' AND d.backend = 'set')
  SELECT printf('best fixed split: %.1f ms (%s); auto: %.1f ms; auto / best fixed = %.3f',
         1000 * (SELECT min(t) FROM s WHERE k NOT LIKE '%split=auto%'),
         (SELECT substr(k, instr(k, 'split=')) FROM s WHERE k NOT LIKE '%split=auto%' ORDER BY t LIMIT 1),
         1000 * (SELECT t FROM s WHERE k LIKE '%split=auto%'),
         (SELECT t FROM s WHERE k LIKE '%split=auto%') / (SELECT min(t) FROM s WHERE k NOT LIKE '%split=auto%'))"
echo "# database: $DB"
