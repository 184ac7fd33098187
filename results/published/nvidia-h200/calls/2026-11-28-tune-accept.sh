#!/usr/bin/env bash
# GPU call (issue 35's acceptance): `harness tune --strategy forest` from an
# empty database on two inputs no published tuning used, for the stencil
# (sweeps/accept-stencil.sweep, 2048x2048, 144 points) and for LBM
# (sweeps/landscape-cuda.sweep at gen:2048x1024 and gen:256x1024, 87 points
# each), each against an exhaustive sweep of the same space in the same call
# (its own database, so the search starts from nothing). Budgets: 10 % of
# the points. Everything lands in $OUT; one summary line per search.
set -u
source .gpu-host/setup.sh >$OUT/setup.log 2>&1
make -j16 GIT_COMMIT=$(cat .gpu-host/commit) GIT_DIRTY=0 >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# search SWEEP INPUT BUDGET TAG: the exhaustive sweep, then the forest, both timed.
search() {
    local sw=$1 in=$2 budget=$3 tag=$4
    sed "s/^input .*/input $in/" "$sw" >/tmp/$tag.sweep
    local t0=$SECONDS
    timeout -k 5 ${EX_CAP:-200} bin/harness sweep /tmp/$tag.sweep --db /tmp/ex-$tag.db --seed 1 >$OUT/ex-$tag.log 2>&1
    local ex_rc=$? t1=$SECONDS
    timeout -k 5 ${TUNE_CAP:-200} bin/harness tune /tmp/$tag.sweep --strategy forest --budget $budget --seed 1 \
        --db /tmp/tune-$tag.db >$OUT/tune-$tag.log 2>&1
    local tune_rc=$? t2=$SECONDS
    bin/harness export --format csv --db /tmp/ex-$tag.db --out $OUT/ex-$tag.csv >/dev/null 2>&1
    bin/harness export --format csv --db /tmp/tune-$tag.db --out $OUT/tune-$tag.csv >/dev/null 2>&1
    echo "$tag: exhaustive exit $ex_rc in $((t1 - t0)) s; forest exit $tune_rc in $((t2 - t1)) s (budget $budget)"
    grep -E '^(evaluations|best|pick|verdict|decision|stored|host)' $OUT/tune-$tag.log | cut -c1-220
}
# ONLY=TAG runs that search alone; LBM_BUDGET replaces the LBM searches' 9.
want() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }
want stencil && search sweeps/accept-stencil.sweep 2048x2048 15 stencil
want lbm2048x1024 && search sweeps/landscape-cuda.sweep gen:2048x1024 ${LBM_BUDGET:-9} lbm2048x1024
want lbm256x1024 && search sweeps/landscape-cuda.sweep gen:256x1024 ${LBM_BUDGET:-9} lbm256x1024
# The exhaustive best against the forest's pick, as measured in the exhaustive sweep.
for f in $OUT/ex-*.csv; do
    tag=$(basename $f .csv); tag=${tag#ex-}
    pick=$(grep -E '^best ' $OUT/tune-$tag.log | awk '{print $2, $NF}')
    python3 - "$f" $pick <<'PY'
import csv, sys
f, wg, variant = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [r for r in csv.DictReader(open(f)) if r['status'] == 'ok']
best = min(rows, key=lambda r: float(r['median_s']))
mine = [r for r in rows if r['variant'] == variant and r['wg_x'] + 'x' + r['wg_y'] == wg]
gap = float(mine[0]['median_s']) / float(best['median_s']) - 1 if mine else float('nan')
print(f"{f}: exhaustive best {best['variant']} {best['wg_x']}x{best['wg_y']} {float(best['median_s'])*1e3:.4g} ms over {len(rows)} points; forest's pick {variant} {wg}: {gap*100:+.2f} %")
PY
done
