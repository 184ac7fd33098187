#!/usr/bin/env bash
# How each strategy fares on recorded landscapes (issue 35's acceptance, by
# hand): for every FILE, strategy and budget (a share of the points), 20
# seeds of `harness tune --replay FILE --json`, counted as reaching the
# optimum when within 2 %. Prints one line per file x strategy: the seeds
# that reached it at each budget. Extra options after -- go to every call
# (e.g. --input 512x512 for a file holding several landscapes).
#   bash scripts/replay_judge.sh tests/data/landscape-h200-stencil.csv [-- OPTIONS]
set -u
cd "$(dirname "$0")/.."
files=() extra=()
while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
    files+=("$1"); shift
done
STRATEGIES=${STRATEGIES:-random anneal genetic forest}
BUDGETS=${BUDGETS:-5% 10% 25%}
for f in "${files[@]}"; do
    for s in $STRATEGIES; do
        line=""
        for b in $BUDGETS; do
            n=0
            for seed in $(seq 1 20); do
                w=$(bin/harness tune --replay "$f" "${extra[@]}" --strategy "$s" --budget "$b" --seed "$seed" --json 2>/dev/null |
                    python3 -c 'import json,sys; d=json.load(sys.stdin); print(1 if d["within"] is not None and d["within"] <= 0.02 else 0)' 2>/dev/null)
                n=$((n + ${w:-0}))
            done
            line="$line $b:$n/20"
        done
        printf '%-44s %-8s%s\n' "$(basename "$f")" "$s" "$line"
    done
done
