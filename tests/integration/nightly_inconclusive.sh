#!/usr/bin/env bash
# Issue 41's fixture on this host: three clean nights of one build (LBM on
# OpenMP, final and t09-deferred), then a night of a tree whose final kernel
# does more work per cell. The clean nights confirm nothing; each series of
# each night is the same, inconclusive (the night's exit status 3, the
# "inconclusive" line) or, on the slowed night, final's regression
# confirmed (exit 1): never "same" for the slowed series, never exit 0 with
# a series the gate could not judge. Every repetition carries its CPU time.
# Prints "ok - ..." / "not ok - ...".
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir inconclusive
H=bin/harness
db=$T/nightly.db

cat >"$T/small.sweep" <<'SWEEP'
app lbm
input gen:64x64
variant final t09-deferred
device openmp
wg 32x1
iters 200
reps 3
warmup 1
timeout 120
SWEEP
# Rounds added to an inconclusive series: at most 4 s a night here.
N="--suite $T/small.sweep --db $db --rounds 4 --burn-in 0 --confirm-rounds 4 --max-time 4"

# summary FILE: "series flagged suspects inconclusive" from the gate's line.
verdicts() { sed -n 's/.*: \([0-9]*\) series, \([0-9]*\) flagged, \([0-9]*\) suspects*, \([0-9]*\) inconclusive.*/\1 \2 \3 \4/p' "$1"; }

for n in 1 2 3; do
    $H nightly $N >"$T/night$n.out" 2>&1
    rc=$?
    if [ $n -eq 1 ]; then
        check "night 1 (nothing to compare with) exits 0 (got $rc)" [ $rc -eq 0 ]
        continue
    fi
    v=$(verdicts "$T/night$n.out")
    left=$(sqlite3 "$db" "SELECT inconclusive FROM nightly WHERE id = $n")
    check "clean night $n confirms nothing (exit $rc; series, flagged, suspects, inconclusive: ${v:-?}; left inconclusive: $left)" \
        bash -c "grep -q 'confirmed: 0 regressions, 0 improvements' '$T/night$n.out' && [ $rc -ne 1 ]"
    if [ "${left:-0}" -gt 0 ]; then
        check "clean night $n: $left series still inconclusive, so exit 3 and the inconclusive line (exit $rc)" \
            bash -c "[ $rc -eq 3 ] && grep -q '^inconclusive: $left series could not show a change of 10 %' '$T/night$n.out' &&
                     [ \$(grep -c 'inconclusive (sees' '$T/night$n.out') -ge $left ]"
    else
        check "clean night $n: every series judged, so exit 0 and no series inconclusive (exit $rc)" \
            bash -c "[ $rc -eq 0 ] && ! grep -q 'inconclusive (sees' '$T/night$n.out'"
    fi
done
check "every OpenMP repetition stored its CPU time (user + system)" \
    [ "$(sqlite3 "$db" "SELECT count(*) > 0 AND count(*) = count(cpu_seconds) AND min(cpu_seconds) > 0 FROM sample")" = 1 ]

# The slowed tree: final's masked obstacle step does one more collision
# of a scratch copy (folded back at 1e-30: the answer and its verification
# do not change); t09-deferred does not mask, so it is untouched.
root=$T/root
lbm_slowed_tree "$root" 1
sed -i 's|lbm_rebound(r);|lbm_rebound(r); SLOWDOWN(s, c.omega);|' "$root/kernels/lbm/lbm_omp.c"
if ! grep -q 'SLOWDOWN(s, c.omega)' "$root/kernels/lbm/lbm_omp.c"; then
    notok "fixture: the slowdown was not planted in lbm_omp.c (the source changed; update this test)"
fi
HARNESS_ROOT=$root $H nightly $N >"$T/night4.out" 2>&1; rc=$?
final=$(awk '$1 == "openmp" && $4 == "final"' "$T/night4.out" | tail -1)
deferred=$(awk '$1 == "openmp" && $4 == "t09-deferred"' "$T/night4.out" | tail -1)
echo "# final:        $final"
echo "# t09-deferred: $deferred"
if echo "$final" | grep -q 'REGRESSION (confirmed'; then
    check "the slowed night: final's regression confirmed, exit 1 (got $rc)" [ $rc -eq 1 ]
else
    check "the slowed night: final not confirmed, so inconclusive and exit 3, never same (got $rc)" \
        bash -c "echo \"\$1\" | grep -q 'inconclusive (sees' && [ $rc -eq 3 ]" _ "$final"
fi
check "the slowed night: final is never called the same or faster" \
    bash -c "[ -n \"\$1\" ] && ! echo \"\$1\" | grep -Eq '  same|improvement'" _ "$final"
check "the slowed night: t09-deferred (untouched) is not confirmed changed" \
    bash -c "[ -n \"\$1\" ] && ! echo \"\$1\" | grep -q '(confirmed'" _ "$deferred"
check "each gated night stored the gate's verdict on both series, with what it could see (nightly_verdict)" \
    [ "$(sqlite3 "$db" "SELECT count(*), count(DISTINCT nightly_id), min(detectable > 0), min(target) FROM nightly_verdict")" = "6|3|1|0.1" ]
left=$(sqlite3 "$db" "SELECT count(*) FROM nightly_verdict WHERE nightly_id = 4 AND verdict = 'inconclusive'")
$H regressions --db "$db" --no-confirm >"$T/reg.out" 2>&1
if [ "$left" -gt 0 ]; then
    check "regressions lists the latest night's $left inconclusive series" \
        grep -q "^nightly 4: $left series inconclusive" "$T/reg.out"
else
    check "regressions: the latest night left nothing inconclusive" \
        bash -c "grep -A1 'inconclusive series' '$T/reg.out' | grep -q '  none'"
fi
$H publish "$T/site" --db "$db" >/dev/null 2>&1
page=$(ls "$T"/site/series-*t09-deferred*.html 2>/dev/null | head -1)
check "the results site's series page shows the gate's verdict of each night (against the night before)" \
    bash -c "[ -n '$page' ] && grep -q 'against the night before' '$page' && grep -Eq '<td>(inconclusive|same|REGRESSION|improvement)' '$page'"
out=$($H compare nightly:3 nightly:4 --db "$db" --csv 2>&1); rc=$?
check "compare --csv names what judged each series and what it could see (measure, detectable, target)" \
    bash -c "echo \"\$1\" | head -1 | grep -q ',measure,detectable,target,verdict$' &&
             [ \$(echo \"\$1\" | grep -cE ',(wall|cpu|cycles),[0-9.]+,0.1000,') -eq 2 ]" _ "$out"
$H compare nightly:3 nightly:4 --db "$db" --target 0.5 >/dev/null 2>&1; rc=$?
check "compare --target 0.5: refused, a percentage in 1..100 (exit $rc)" [ $rc -eq 2 ]
[ $fails -eq 0 ]
