#!/usr/bin/env bash
# Issue 35's acceptance, not met yet: the model-based strategy (forest)
# within 2 % of the optimum in at least 16 of 20 seeds with 10 % of the
# evaluations on every informative landscape: tests/data's LBM landscapes
# and the generated ones held out from the design (test_tune_replay prints
# a "# TODO (issue 35, unmet)" line for each landscape short of it), and the
# H200 landscapes of the other apps recorded for issue 35 (held out; the
# mat-vec's is short: 12 of 20 at 10 % at commit 611d58b, 13 since the
# forest's interleaving is polish-heavy, 14 with one model step in eight,
# random 14).
# Fails while any is short. Run by hand after `make`: bash tests/pending/tune_forest_16_of_20.sh
set -u
cd "$(dirname "$0")/../.."
out=$(build/tests/test_tune_replay 2>&1)
short=$(echo "$out" | grep -c '^# TODO (issue 35, unmet)')
if [ "$short" -eq 0 ]; then echo "ok - forest within 2 % in 16 of 20 seeds at 10 % on every tests/data and generated landscape"
else echo "not ok - forest short of 16 of 20 seeds at 10 % on $short landscapes"; echo "$out" | grep '^# TODO' | sed 's/^/#   /'; fi
for f in stencil matvec sandpile; do
    opt=""
    [ $f = sandpile ] && opt="-- --variant flag-1000"
    line=$(STRATEGIES=forest BUDGETS=10% bash scripts/replay_judge.sh tests/data/landscape-h200-$f.csv $opt)
    n=$(echo "$line" | sed 's/.*10%:\([0-9]*\)\/20.*/\1/')
    if [ "${n:-0}" -ge 16 ]; then echo "ok - $line"; else echo "not ok - $line (wanted 16 of 20)"; fi
done
