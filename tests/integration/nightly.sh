#!/usr/bin/env bash
# Nightly tracking end to end (the nightly issue's acceptance, on OpenMP and
# PoCL). Prints "ok - ..." / "not ok - ..." per check.
#  (1) `nightly` twice with a small suite at 3 repetitions: compare of the two
#      nights (and of two single runs) exits 0; regressions finds nothing.
#  (2) A slowed-kernel fixture: a copy of kernels/ where the masked collision
#      (only `final` among the variants run here masks obstacles) collides 12
#      more times on a scratch copy, 2-8x slower, still verifying. The normal
#      tree (A), the copy (B) and the normal tree again (C) are swept in turn,
#      nine rounds of one repetition each (A B C A B C ...), so each side has
#      9 runs spread over the same minute and compare tests 9 run medians a
#      side: compare A B exits 1 and flags final on both devices and nothing
#      else; compare A C (one build twice) exits 0; --rerun confirms.
#  (3) A history of 12 nights made from (1)'s rows with a 30 % step at night 8
#      and one night whose canary is off: regressions finds the step at night 8
#      in every series and vetoes that night; triage clears the exit status;
#      exclude takes a night out; plot nightly writes PNGs and index.md.
# OMP_NUM_THREADS=1: with threads=all on a loaded 2-core machine a descheduled
# thread stalls every barrier and a run takes 10-50x longer at random, which
# is the machine, not the code.
set -u
cd "$(dirname "$0")/../.."
T=${HARNESS_TEST_TMP:-$(mktemp -d)}/nightly
rm -rf "$T"
mkdir -p "$T"
export HARNESS_CACHE=$T/cache OMP_NUM_THREADS=1
unset HARNESS_ROOT
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { # NAME COMMAND...: ok when the command succeeds
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
H=bin/harness
db=$T/n.db

cat >"$T/small.sweep" <<'SWEEP'
app lbm
input gen:64x64
variant final t09-deferred t02-ported
device openmp opencl:0.0
wg 32x1
iters 300
reps 3
warmup 1
timeout 120
SWEEP

# ---- (1) two nightlies of one build ----
for n in 1 2; do
    $H nightly --suite "$T/small.sweep" --db "$db" >"$T/nightly$n.out" 2>&1
    rc=$?
    check "nightly $n exits 0 (got $rc)" [ $rc -eq 0 ]
done
check "nightly: two nightly rows, each linking a run per device" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM nightly; SELECT count(*) FROM nightly_run")" = "$(printf '2\n4')" ]
check "nightly: the canary (peak) of both devices is linked each night" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM nightly_peak")" = 4 ]
check "nightly: telemetry records the governor, load average and NVML state at start and end" \
    bash -c "sqlite3 '$db' \"SELECT telemetry FROM nightly WHERE id = 2\" | grep -c 'cpu governor\|load average\|nvml\|gpu0' | grep -qx '[68]'"
check "nightly: build metadata (commit, dirty, compilers, flags) and drivers recorded" \
    bash -c "[ \"\$(sqlite3 '$db' \"SELECT count(*) >= 1 FROM build WHERE length(git_commit) >= 7 AND compiler != '' AND flags LIKE '%-O2%'; SELECT count(*) >= 2 FROM device WHERE driver != ''\")\" = \"\$(printf '1\n1')\" ]"
out=$($H compare nightly:-2 nightly:-1 --db "$db" 2>&1); rc=$?
check "compare nightly:-2 nightly:-1 (one build, 3 vs 3) exits 0 (got $rc)" [ $rc -eq 0 ]
check "compare at 3 vs 3 says 'too few samples' for all 6 series, never 'same'" \
    bash -c "echo \"\$1\" | grep -q '6 series compared: 0 regressions, 0 improvements, 0 same, 6 with too few samples'" _ "$out"
runs=$(sqlite3 "$db" "SELECT id FROM run ORDER BY id" | tail -2 | xargs)
$H compare $runs --db "$db" >/dev/null 2>&1; rc=$?
check "compare of the last two run ids (the nightly-compare check) exits 0 (got $rc)" [ $rc -eq 0 ]
$H compare 1 999 --db "$db" >/dev/null 2>&1; rc=$?
check "compare with a run that does not exist exits 2 (got $rc)" [ $rc -eq 2 ]
$H regressions --db "$db" >"$T/reg0.out" 2>&1; rc=$?
check "regressions on two nights exits 0 with no change points (got $rc)" \
    bash -c "[ $rc -eq 0 ] && grep -q 'no change points' '$T/reg0.out'"

# ---- (2) the slowed-kernel fixture ----
root=$T/root
mkdir -p "$root/harness"
cp -r kernels variants "$root/"
cp harness/omp_kernel.h "$root/harness/"
cp -r harness/peak "$root/harness/"
cat >>"$root/kernels/lbm/lbm_physics.h" <<'C'

/* tests/integration/nightly.sh: a deliberate slowdown. Twelve collisions of
 * a scratch copy, folded back at 1e-30 so that the compiler must keep them
 * and the answer (and its verification) does not change. */
#define SLOWDOWN(s_, om_)                                                         \
    do {                                                                          \
        float acc_ = 0.0f;                                                        \
        for (int rep_ = 0; rep_ < 12; rep_++) {                                   \
            float t_[9];                                                          \
            for (int k_ = 0; k_ < 9; k_++) t_[k_] = s_[k_] + (float)rep_ * 1e-7f; \
            lbm_collide(t_, om_);                                                 \
            acc_ += t_[rep_ % 9];                                                 \
        }                                                                         \
        s_[0] += acc_ * 1e-30f;                                                   \
    } while (0)
C
# The masked obstacle handling (K_OBSTACLES_MASK) is the only place that
# rebounds into r[]; of final, t09-deferred and t02-ported only final masks.
inject() { # FILE SED TEXT
    local f=$root/$1
    cp "$f" "$T/before"
    sed -i "$2" "$f"
    if cmp -s "$f" "$T/before" || ! grep -qF -- "$3" "$f"; then
        notok "fixture: sed '$2' did not change $1 as intended (the source changed; update this test)"
        return 1
    fi
}
inject kernels/lbm/lbm_omp.c 's|lbm_rebound(r);|lbm_rebound(r); SLOWDOWN(s, c.omega);|' "SLOWDOWN(s, c.omega)"
inject kernels/lbm/lbm_gpu.h 's|lbm_rebound(r);|lbm_rebound(r); SLOWDOWN(s, omega);|' "SLOWDOWN(s, omega)"
fx=$T/fx.db
A="" B="" C=""
sed 's/^reps 3/reps 1/' "$T/small.sweep" >"$T/one.sweep"
sweep() { # ROOT-OR-EMPTY: one sweep of one.sweep; echoes the new run ids
    local before
    before=$(sqlite3 "$fx" "SELECT COALESCE(max(id), 0) FROM run" 2>/dev/null || echo 0)
    if [ -n "$1" ]; then HARNESS_ROOT=$1 $H sweep "$T/one.sweep" --db "$fx" --force >>"$T/fx.out" 2>&1
    else $H sweep "$T/one.sweep" --db "$fx" --force >>"$T/fx.out" 2>&1; fi
    sqlite3 "$fx" "SELECT id FROM run WHERE id > $before" | paste -sd, -
}
for round in 1 2 3 4 5 6 7 8 9; do
    A=$A${A:+,}$(sweep "")
    B=$B${B:+,}$(sweep "$root")
    C=$C${C:+,}$(sweep "")
done
check "fixture: every measurement verified (ok) in all 27 sweeps" \
    [ "$(sqlite3 "$fx" "SELECT count(*) FROM measurement WHERE status = 'ok'; SELECT count(*) FROM measurement")" = "$(printf '162\n162')" ]
out=$($H compare "$A" "$B" --db "$fx" 2>&1); rc=$?
echo "$out" >"$T/compare_ab.out"
check "compare A B (slowed final) exits 1 (got $rc)" [ $rc -eq 1 ]
for dev in openmp opencl:0.0; do
    line=$(echo "$out" | awk -v d="$dev" '$1 == d && $4 == "final"')
    check "compare A B flags final on $dev: $(echo "$line" | awk '{print "B/A", $(NF-3), "p", $(NF-2)}')" \
        bash -c "echo \"\$1\" | grep -q 'REGRESSION'" _ "$line"
done
check "compare A B flags nothing else (2 regressions in 6 series)" \
    bash -c "echo \"\$1\" | grep -q '6 series compared: 2 regressions'" _ "$out"
out=$($H compare "$A" "$C" --db "$fx" 2>&1); rc=$?
echo "$out" >"$T/compare_ac.out"
check "compare A C (one build twice, 9 vs 9, interleaved) exits 0 (got $rc)" [ $rc -eq 0 ]
check "compare A C judged all 6 series on 9 runs a side (9 vs 9 can reach p <= 0.002)" \
    bash -c "echo \"\$1\" | grep -q '6 series compared: 0 regressions, [0-9]* improvements, [0-9]* same, 0 with too few'" _ "$out"
out=$($H compare "$A" "$B" --db "$fx" --rerun --b-root "$root" 2>"$T/rerun.err"); rc=$?
echo "$out" >"$T/rerun.out"
check "compare --rerun (A B A B on the device) confirms both regressions, exit 1 (got $rc)" \
    bash -c "[ $rc -eq 1 ] && echo \"\$1\" | grep -q '2 of 2 regressions confirmed'" _ "$out"
$H compare "build:$(sqlite3 "$fx" 'SELECT git_commit FROM build LIMIT 1' | cut -c1-8)" "$B" --db "$fx" >/dev/null 2>&1; rc=$?
check "compare build:COMMIT (all runs of the build) against B runs: exit $rc" [ $rc -le 1 ]

# ---- (3) a made-up history of 12 nights from (1)'s rows ----
hist=$T/h.db
cp "$db" "$hist"
rm -f "$hist-wal" "$hist-shm"
sqlite3 "$hist" <<'SQL' || notok "history: building it in SQL failed"
-- Nights 3..12 copy nightly 1's runs, measurements, samples and peaks, a day
-- apart; from night 8 every time is 30 % longer; night 10's canary is halved.
-- Each night and repetition gets a small deterministic wobble.
CREATE TEMP TABLE nights AS WITH RECURSIVE k(n) AS (SELECT 3 UNION ALL SELECT n + 1 FROM k WHERE n < 12) SELECT n FROM k;
UPDATE nightly SET started_at = strftime('%Y-%m-%dT02:00:00.000Z', '2030-01-01', '+' || (id - 1) || ' days');
INSERT INTO nightly(id, host, suite, started_at, status, telemetry)
  SELECT n, host, suite, strftime('%Y-%m-%dT02:00:00.000Z', '2030-01-01', '+' || (n - 1) || ' days'), 0, '' FROM nights, nightly WHERE nightly.id = 1;
CREATE TEMP TABLE rmap AS SELECT n, r.id AS src, (SELECT max(id) FROM run) + (n - 3) * 100 + r.id AS dst
  FROM nights, run r JOIN nightly_run nr ON nr.run_id = r.id AND nr.nightly_id = 1;
INSERT INTO run(id, host_id, device_id, build_id, command, started_at, ended_at)
  SELECT m.dst, r.host_id, r.device_id, r.build_id, r.command, strftime('%Y-%m-%dT02:00:01.000Z', '2030-01-01', '+' || (m.n - 1) || ' days'), NULL
  FROM rmap m JOIN run r ON r.id = m.src;
INSERT INTO nightly_run(nightly_id, run_id) SELECT n, dst FROM rmap;
CREATE TEMP TABLE mmap AS SELECT rm.n, ms.id AS src, (SELECT max(id) FROM measurement) + (rm.n - 3) * 1000 + ms.id AS dst
  FROM rmap rm JOIN measurement ms ON ms.run_id = rm.src;
INSERT INTO measurement(id, run_id, config_id, status, iters, iters_full, warmup, reps, median_s, variant)
  SELECT mm.dst, (SELECT dst FROM rmap WHERE n = mm.n AND src = ms.run_id), ms.config_id, ms.status, ms.iters, ms.iters_full,
         ms.warmup, ms.reps, ms.median_s, ms.variant FROM mmap mm JOIN measurement ms ON ms.id = mm.src;
INSERT INTO sample(measurement_id, rep, seconds)
  SELECT mm.dst, s.rep, (SELECT min(s2.seconds) FROM sample s2 WHERE s2.measurement_id = mm.src)
         * (CASE WHEN mm.n >= 8 THEN 1.3 ELSE 1.0 END)
         * (1 + 0.004 * (((mm.n * 5 + mm.src) % 7) - 3)) * (1 + 0.01 * (((s.rep * 3 + mm.n) % 5) - 2))
  FROM mmap mm JOIN sample s ON s.measurement_id = mm.src;
INSERT INTO peak(device_id, copy_gbs, fp32_gflops, measured_at)
  SELECT p.device_id, p.copy_gbs * (CASE WHEN n = 10 THEN 0.5 ELSE 1 + 0.01 * ((n % 3) - 1) END), p.fp32_gflops,
         strftime('%Y-%m-%dT02:00:00.500Z', '2030-01-01', '+' || (n - 1) || ' days') || p.id
  FROM nights, peak p JOIN nightly_peak np ON np.peak_id = p.id AND np.nightly_id = 1;
INSERT INTO nightly_peak(nightly_id, peak_id)
  SELECT n, (SELECT x.id FROM peak x WHERE x.measured_at = strftime('%Y-%m-%dT02:00:00.500Z', '2030-01-01', '+' || (n - 1) || ' days') || p.id)
  FROM nights, peak p JOIN nightly_peak np ON np.peak_id = p.id AND np.nightly_id = 1;
SQL
# Nights 1 and 2 were real and of another level: take them out, with a reason.
$H exclude nightly:1 nightly:2 --reason "real runs, not part of the made-up history" --db "$hist" >"$T/excl.out" 2>&1; rc=$?
check "exclude nightly:1 nightly:2 --reason exits 0 (got $rc)" [ $rc -eq 0 ]
check "exclude --list shows 4 runs with the reason" \
    bash -c "[ \$($H exclude --list --db '$hist' | grep -c 'made-up history') -eq 4 ]"
$H regressions --db "$hist" >"$T/reg1.out" 2>&1; rc=$?
check "regressions finds untriaged regressions: exit 1 (got $rc)" [ $rc -eq 1 ]
check "regressions: a +30 % change point at night 8 (2030-01-08) in each of the 6 series" \
    [ "$(grep -c '2030-01-08.*+[23][0-9]\.[0-9]%.*regression.*detected' "$T/reg1.out")" = 6 ]
check "regressions: nothing else (6 change points; got: $(grep -E '^[0-9]+ series' "$T/reg1.out"))" \
    grep -q '^8 series, 6 change points found' "$T/reg1.out"
grep -q '^8 series, 6 change points found' "$T/reg1.out" || sed 's/^/#   /' "$T/reg1.out" | head -40
check "regressions: night 10's halved canary vetoes that night on both devices" \
    [ "$(grep -c 'canary veto: .* night 2030-01-10' "$T/reg1.out")" = 2 ]
$H regressions --db "$hist" >"$T/reg2.out" 2>&1
check "regressions again: the same 6 change points, same ids (refreshed, not duplicated)" \
    [ "$(sqlite3 "$hist" "SELECT count(*), min(id), max(id) FROM change_point")" = "6|1|6" ]
$H regressions --db "$hist" --csv >"$T/reg.csv" 2>&1
check "regressions --csv: a header and 6 rows" [ "$(wc -l <"$T/reg.csv")" = 7 ]
for id in 1 2 3 4 5; do $H triage $id acknowledged --db "$hist" >/dev/null 2>&1; done
$H triage 6 false-positive --note "test" --db "$hist" >/dev/null 2>&1; rc=$?
check "triage 6 false-positive --note exits 0 (got $rc)" [ $rc -eq 0 ]
$H regressions --db "$hist" >"$T/reg3.out" 2>&1; rc=$?
check "regressions after triage exits 0 and keeps the states (got $rc)" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c acknowledged '$T/reg3.out') -eq 5 ] && grep -q 'false-positive' '$T/reg3.out'"
$H triage 99 fixed --db "$hist" >/dev/null 2>&1; rc=$?
check "triage of an unknown id exits 2 (got $rc)" [ $rc -eq 2 ]
$H triage 1 maybe --db "$hist" >/dev/null 2>&1; rc=$?
check "triage to an unknown state exits 2 (got $rc)" [ $rc -eq 2 ]
if command -v gnuplot >/dev/null 2>&1; then
    $H plot nightly --db "$hist" --out-dir "$T/plots" >"$T/plot.out" 2>&1; rc=$?
    check "plot nightly exits 0 (got $rc)" [ $rc -eq 0 ]
    check "plot nightly: 8 PNGs (6 timings, 2 canaries) and index.md linking each" \
        bash -c "[ \$(ls '$T'/plots/*.png | wc -l) -eq 8 ] && [ \$(grep -c '\\.png)' '$T/plots/index.md') -eq 8 ]"
    check "plot nightly: index.md lists the triage states" grep -q 'acknowledged' "$T/plots/index.md"
else
    ok "plot nightly: skipped (no gnuplot)"
fi
exit $((fails > 0))
