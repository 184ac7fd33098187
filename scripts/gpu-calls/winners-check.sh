#!/usr/bin/env bash
# The published winners on this GPU, run again on this tree and held against
# their published times (issue 36: "behaviour unchanged"): each config of
# results/published/<gpu>/winners.csv run ROUNDS times, interleaved (a fresh
# worker process a round), REPS repetitions each after a warm-up, every row
# verified; the copy ceiling measured in the same call first, because a host of
# the same kind can differ by a per cent or two and that is not the code's.
# Usage (repository root, on the GPU host, after the build):
#   OUT=DIR bash scripts/gpu-calls/winners-check.sh
#   env: WINNERS (the CSV; default by nvidia-smi's GPU name), ROUNDS (3),
#        REPS (10), LIMIT (the allowed drift, 0.01)
# Writes DIR/winners.db, DIR/winners.md (the table) and DIR/runs.log.
# Exit: 0 every config within LIMIT of its published time, 1 one is not (or
# failed verification), 2 no published winners for this GPU.
set -u
cd "$(dirname "$0")/../.." || exit 2
H=$PWD/bin/harness
out=${OUT:-/tmp/winners}
mkdir -p "$out"
if [ -z "${WINNERS:-}" ]; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    case $gpu in
    *H100*) WINNERS=results/published/nvidia-h100-80gb/winners.csv ;;
    *H200*) WINNERS=results/published/nvidia-h200/winners.csv ;;
    *) echo "winners-check: no published winners for GPU '${gpu:-none}'" >&2; exit 2 ;;
    esac
fi
[ -r "$WINNERS" ] || { echo "winners-check: $WINNERS: cannot be read" >&2; exit 2; }
db=$out/winners.db
rounds=${ROUNDS:-3} reps=${REPS:-10} limit=${LIMIT:-0.01}
$H peak --db "$db" >"$out/peak.txt" 2>&1
for r in $(seq "$rounds"); do
    tail -n +2 "$WINNERS" | while IFS=, read -r device input variant wg _; do
        $H run --db "$db" --device "$device" --input "$input" --variant "$variant" --wg "$wg" --reps "$reps" \
            --rounds 1 >>"$out/runs.log" 2>&1 || echo "round $r: $device $input $variant $wg: exit $?" >>"$out/runs.log"
    done
done
q() { sqlite3 "$db" "$1"; }
{
    echo "# The published winners again: tree $(cat .gpu-host/commit 2>/dev/null || git rev-parse --short HEAD)"
    echo
    echo "Source: \`$WINNERS\`; $rounds rounds of $reps repetitions a config, interleaved. Copy ceiling now:"
    grep -hiE 'copy|GB/s' "$out/peak.txt" | head -4 | sed 's/^/    /'
    echo
    echo "| device | input | variant | shape | published | now (median of the rounds' medians) | rounds | drift | within $(awk -v l="$limit" 'BEGIN {print l * 100}') % |"
    echo "|---|---|---|---|---|---|---|---|---|"
} >"$out/winners.md"
bad=0
while IFS=, read -r device input variant wg published _; do
    wx=${wg%x*} wy=${wg#*x}
    where="d.spec = '$device' AND c.input IN ('$input', 'gen-$input') AND c.variant = '$variant' AND c.wg_x = $wx AND c.wg_y = $wy"
    from="FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
    meds=$(q "SELECT m.median_s $from WHERE $where AND m.status = 'ok'" | sort -g)
    notok=$(q "SELECT count(*) $from WHERE $where AND m.status != 'ok'")
    n=$(echo "$meds" | grep -c .)
    if [ "$n" = 0 ]; then
        echo "| $device | $input | $variant | $wg | $published s | none verified ($notok not ok) | 0 | — | **no** |" >>"$out/winners.md"
        bad=1
        continue
    fi
    now=$(echo "$meds" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
    drift=$(awk -v a="$now" -v b="$published" 'BEGIN {printf "%+.2f %%", (a / b - 1) * 100}')
    ok=$(awk -v a="$now" -v b="$published" -v l="$limit" 'BEGIN {d = a / b - 1; if (d < 0) d = -d; print (d <= l) ? "yes" : "**no**"}')
    [ "$ok" = yes ] && [ "$notok" = 0 ] || bad=1
    [ "$notok" = 0 ] || ok="$ok ($notok rows not ok)"
    printf '| %s | %s | %s | %s | %s s | %.6f s (%s) | %d | %s | %s |\n' "$device" "$input" "$variant" "$wg" "$published" "$now" \
        "$(echo "$meds" | awk '{printf "%s%.6f", (NR > 1 ? " / " : ""), $1}')" "$n" "$drift" "$ok" >>"$out/winners.md"
done < <(tail -n +2 "$WINNERS")
cat "$out/winners.md"
exit $bad
