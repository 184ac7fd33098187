#!/usr/bin/env bash
# Nightly tracking end to end on OpenMP and PoCL (the measurement issue's
# design). Prints "ok - ..." / "not ok - ..." per check.
#  (1) `nightly` twice with a small suite: each night keeps its build, runs
#      its configs in rounds (a fresh worker each, samples tagged with their
#      round, the host's load per round), judges its quality and gates
#      against the night before; one build twice confirms no change.
#  (2) A slowed-kernel fixture: a copy of kernels/ where the masked collision
#      (only `final` of the variants here masks obstacles) collides 12 more
#      times on a scratch copy, 2-8x slower, still verifying. A night on it
#      (HARNESS_ROOT) is flagged by the gate on `final` and nothing else, and
#      the confirmation — the kept builds of both nights measured again,
#      interleaved — confirms it: nightly exits 1. compare of the stored
#      nights says "confirmed"; compare --rerun confirms it again from the
#      kept builds and its B side really ran the slowed tree (slower samples).
#  (3) Bad input: --rounds 0, a missing kept build, a database from before
#      rounds (migrated; old samples are one round a run).
#  (4) A history of 12 nights made from (1)'s rows with a 30 % step at night 8
#      and one night whose canary is off: regressions finds the step at night 8
#      (named by number and build) in every series and vetoes that night;
#      triage clears the exit status; exclude takes a night out; a step too
#      recent to call is a candidate with the nights it needs; plot nightly
#      writes PNGs and index.md.
# OMP_NUM_THREADS=1: with threads=all on a loaded 2-core machine a descheduled
# thread stalls every barrier and a run takes 10-50x longer at random, which
# is the machine, not the code.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir nightly
export HARNESS_CACHE=$T/cache OMP_NUM_THREADS=1
unset HARNESS_ROOT HARNESS_BUILDS
H=bin/harness
db=$T/n.db

cat >"$T/small.sweep" <<'SWEEP'
app lbm
input gen:64x64
variant final t09-deferred t02-ported
device openmp opencl:0.0
wg 32x1
iters 150
reps 3
warmup 1
timeout 120
SWEEP
# --target 0: the gate's structure, flags and confirmations as before the
# target; what the target adds (inconclusive, added rounds, exit 3) is
# nightly_inconclusive.sh's, on nights of its own.
N="--suite $T/small.sweep --db $db --rounds 3 --burn-in 2 --confirm-rounds 4 --target 0"

# ---- (1) two nightlies of one build ----
for n in 1 2; do
    $H nightly $N >"$T/nightly$n.out" 2>&1
    rc=$?
    check "nightly $n exits 0 (got $rc)" [ $rc -eq 0 ]
done
check "nightly: two nightly rows, each linking a run per device" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM nightly; SELECT count(*) FROM nightly_run")" = "$(printf '2\n4')" ]
nights=$($H results --runs --csv --limit 0 --db "$db" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(" ".join(sorted(r["night"] for r in rows if r["night"])))')
check "results --runs names each nightly run's night: 1 1 2 2 ($nights)" [ "$nights" = "1 1 2 2" ]
check "nightly: the canary (peak) of both devices is linked each night" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM nightly_peak")" = 4 ]
check "nightly: telemetry records the governor, load average and NVML state at start and end" \
    bash -c "sqlite3 '$db' \"SELECT telemetry FROM nightly WHERE id = 2\" | grep -c 'cpu governor\|load average\|nvml\|gpu0' | grep -qx '[68]'"
check "nightly: build metadata (commit, dirty, compilers, flags) and drivers recorded" \
    bash -c "[ \"\$(sqlite3 '$db' \"SELECT count(*) >= 1 FROM build WHERE length(git_commit) >= 7 AND compiler != '' AND flags LIKE '%-O2%'; SELECT count(*) >= 2 FROM device WHERE driver != ''\")\" = \"\$(printf '1\n1')\" ]"
hash=$(sqlite3 "$db" "SELECT build_hash FROM nightly WHERE id = 2")
check "nightly: the build is kept once, content-addressed beside the database ($hash)" \
    bash -c "[ -x '$T/builds/$hash/bin/harness' ] && [ -f '$T/builds/$hash/kernels/lbm/lbm_omp.c' ] && [ \$(ls '$T/builds' | wc -l) -eq 1 ] && [ \"\$(sqlite3 '$db' 'SELECT count(DISTINCT build_hash), min(rounds) FROM nightly')\" = '1|3' ]"
check "nightly: every measurement has 3 rounds, each of one repetition, tagged 0..2" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM measurement WHERE rounds = 3 AND rounds_done = 3; SELECT group_concat(DISTINCT round) FROM (SELECT round FROM sample ORDER BY round)")" = "$(printf '12\n0,1,2')" ]
check "nightly: each run has the host's state for each of its 3 rounds" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM round_state WHERE foreign_cores IS NOT NULL AND wall_s > 0")" = 12 ]
check "nightly: a burn-in ran on both devices before the night" \
    [ "$(grep -c '^burn-in \(openmp\|opencl:0.0\):' "$T/nightly2.out")" -ge 2 ]
check "nightly: the quality of the night is judged and stored" \
    bash -c "grep -q 'quality: ' '$T/nightly2.out' && [ -n \"\$(sqlite3 '$db' 'SELECT quality FROM nightly WHERE id = 2')\" ]"
check "nightly 2 is gated against nightly 1 (6 series, nothing confirmed)" \
    bash -c "grep -q 'nightly 2 against nightly 1' '$T/nightly2.out' && grep -q 'confirmed: 0 regressions' '$T/nightly2.out'"
out=$($H compare nightly:-2 nightly:-1 --db "$db" --target 0 2>&1); rc=$?
echo "$out" >"$T/compare12.out"
check "compare nightly:-2 nightly:-1 (one build) exits 0 (got $rc)" [ $rc -eq 0 ]
check "compare judges each series on one night a side of 3 rounds (1/3 1/3), not on pooled repetitions" \
    [ "$(echo "$out" | grep -c ' 1/3 1/3 ')" = 6 ]
runs=$(sqlite3 "$db" "SELECT id FROM run ORDER BY id" | tail -2 | xargs)
$H compare $runs --db "$db" --target 0 >/dev/null 2>&1; rc=$?
check "compare of the last two run ids (the nightly-compare check) exits 0 (got $rc)" [ $rc -eq 0 ]
$H compare 1 999 --db "$db" >/dev/null 2>&1; rc=$?
check "compare with a run that does not exist exits 2 (got $rc)" [ $rc -eq 2 ]
$H regressions --db "$db" >"$T/reg0.out" 2>&1; rc=$?
check "regressions on two nights exits 0 with no change points (got $rc)" \
    bash -c "[ $rc -eq 0 ] && grep -q 'no change points' '$T/reg0.out'"
$H noise --db "$db" >"$T/noise.out" 2>&1; rc=$?
check "noise lists the 6 series' models and stores them (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c 'lbm gen-64x64' '$T/noise.out') -eq 6 ] && [ \"\$(sqlite3 '$db' 'SELECT count(*) FROM noise_model')\" = 6 ]"
# The device events' model: on a copy whose `final` rows carry a steady
# device time (the same in every night and round) and whose others carry
# none, `--measure device` lists only the two `final` series, each with no
# night-to-night movement at all, and leaves the stored (wall) model alone.
cp "$db" "$T/dev.db"
sqlite3 "$T/dev.db" "UPDATE sample SET device_seconds = CASE WHEN measurement_id IN
    (SELECT m.id FROM measurement m JOIN config c ON c.id = m.config_id WHERE c.variant = 'final') THEN 0.002 END"
stored=$(sqlite3 "$T/dev.db" 'SELECT group_concat(sigma_night) FROM noise_model')
$H noise --db "$T/dev.db" --measure device >"$T/noise-dev.out" 2>&1; rc=$?
check "noise --measure device lists the 2 series with device times, steady: own night 0.00 % (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c 'lbm gen-64x64' '$T/noise-dev.out') -eq 2 ] &&
             [ \$(grep 'lbm gen-64x64' '$T/noise-dev.out' | grep -c ' 0.00% ') -eq 2 ] &&
             ! grep -q 't09-deferred' '$T/noise-dev.out'"
check "noise --measure device keeps the stored wall-time model" \
    [ "$(sqlite3 "$T/dev.db" 'SELECT group_concat(sigma_night) FROM noise_model')" = "$stored" ]
$H noise --db "$T/dev.db" --measure instructions >/dev/null 2>&1; rc=$?
check "noise --measure instructions (not a time) is refused with exit 2 (got $rc)" [ $rc -eq 2 ]
$H results --rounds --limit 3 --db "$db" >"$T/rounds.out" 2>&1; rc=$?
check "results --rounds shows each measurement's 3 round medians" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c ' 3/3 ' '$T/rounds.out') -eq 3 ]"

# A canary off its history disturbs the night for its own device only: on a
# copy, the OpenMP canaries of nights 1 and 2 tripled, a third night.
qd=$T/quality.db
cp "$db" "$qd"
sqlite3 "$qd" "UPDATE peak SET copy_gbs = copy_gbs * 3 WHERE id IN (SELECT peak_id FROM nightly_peak) AND device_id IN (SELECT id FROM device WHERE spec = 'openmp')"
$H nightly --suite "$T/small.sweep" --db "$qd" --rounds 2 --burn-in 0 --no-confirm --target 0 >"$T/quality.out" 2>&1
q=$(sqlite3 "$qd" "SELECT quality || '|' || COALESCE(disturbed_devices, 'NULL') FROM nightly WHERE id = 3")
if echo "$q" | grep -q 'host busy'; then # then every device is disturbed, rightly: nothing to tell
    echo "ok - a tripled OpenMP canary history: not judged, the host was busy during the night # skip"
else
    # PoCL may be disturbed too, but only by its own canary or its own
    # series' spread (a loaded host moves them): never by OpenMP's.
    check "a tripled OpenMP canary history: night 3 disturbed by the openmp canary, for openmp, PoCL only by its own (got: $q)" \
        bash -c "echo \"\$1\" | grep -q 'openmp canary' && { echo \"\$1\" | grep -qE '[|]openmp(,openmp)?\$' ||
                 { echo \"\$1\" | grep -qE '[|]openmp,opencl:0.0\$' && echo \"\$1\" | grep -qE 'opencl:0.0 (canary|series spread)'; }; }" _ "$q"
fi

# ---- (2) the slowed-kernel fixture ----
# Twelve collisions of a scratch copy a cell, where final masks.
root=$T/root
lbm_slowed_tree "$root" 12
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
HARNESS_ROOT=$root $H nightly $N >"$T/nightly3.out" 2>&1; rc=$?
check "nightly on the slowed tree exits 1: a confirmed regression (got $rc)" [ $rc -eq 1 ]
hash3=$(sqlite3 "$db" "SELECT build_hash FROM nightly WHERE id = 3")
check "the slowed night kept its own build (its tree), beside the database ($hash3)" \
    bash -c "[ '$hash3' != '$hash' ] && grep -q SLOWDOWN '$T/builds/$hash3/kernels/lbm/lbm_gpu.h'"
for dev in openmp opencl:0.0; do
    line=$(awk -v d="$dev" '$1 == d && $4 == "final" && /REGRESSION|improvement|same/' "$T/nightly3.out" | head -1)
    check "final on $dev is sent to the confirmation (a flag or a suspect) and confirmed: $(echo "$line" | grep -o 'REGRESSION.*' | cut -c1-90)" \
        bash -c "echo \"\$1\" | grep -q 'REGRESSION (confirmed'" _ "$line"
done
# The gate judges night 3 against night 2 with noise models learnt from two
# nights, so which series it flags and which it only sends to the
# confirmation as suspects can vary with the noise (a clean machine once
# had final on PoCL as a suspect, not a flag, and the confirmation rightly
# confirmed it). What a user needs is the outcome: final's two series
# confirmed (checked above, by whichever route), nothing else confirmed, no
# improvement; and a gate that sent everything to the confirmation would
# fail (at most one series beyond final's two flagged or suspect).
flagged=$(sed -n 's/.*against nightly 2 .*: 6 series, \([0-9]*\) flagged, \([0-9]*\) suspect.*/\1 \2/p' "$T/nightly3.out")
sent=0
[ -n "$flagged" ] && sent=$((${flagged% *} + ${flagged#* }))
if ! check "nothing else is confirmed: 2 confirmed regressions, 0 improvements (flagged, suspects: ${flagged:-?}; at most 3 sent)" \
    bash -c "[ -n '$flagged' ] && [ $sent -ge 2 ] && [ $sent -le 3 ] && grep -q 'confirmed: 2 regressions, 0 improvements' '$T/nightly3.out'" ||
    [ "$sent" != 2 ]; then
    # What the gate and the confirmation said, for the next reader.
    grep -E 'against nightly 2|REGRESSION|improvement|suspect|confirmed:|quality' "$T/nightly3.out" | sed 's/^/#   /'
fi
check "the confirmations are stored with both builds and every sample of each round" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM confirmation WHERE nightly_id = 3 AND verdict = 'confirmed' AND build_a = '$hash' AND build_b = '$hash3'; SELECT count(DISTINCT round) FROM confirmation_sample")" = "$(printf '2\n4')" ]
# The B side of a confirmation ran the slowed tree: its samples are slower
# (the confirmed ones; a suspect on a series the fixture leaves alone, if the
# gate sent one, measured the same on both sides and was rejected).
check "the confirmation's B side measured the slowed build (B's median over A's > 1.5)" \
    bash -c "[ \"\$(sqlite3 '$db' \"SELECT count(*) > 0 AND min(b.m / a.m) > 1.5 FROM (SELECT confirmation_id c, avg(seconds) m FROM confirmation_sample WHERE side = 'A' GROUP BY 1) a JOIN (SELECT confirmation_id c, avg(seconds) m FROM confirmation_sample WHERE side = 'B' GROUP BY 1) b ON a.c = b.c JOIN confirmation f ON f.id = a.c WHERE f.verdict = 'confirmed'\")\" = 1 ]"
out=$($H compare nightly:2 nightly:3 --db "$db" --target 0 2>&1); rc=$?
check "compare of the stored nights shows the confirmation (exit $rc)" \
    bash -c "[ $rc -eq 1 ] && [ \$(echo \"\$1\" | grep -c 'REGRESSION (confirmed') -eq 2 ]" _ "$out"
out=$($H compare nightly:2 nightly:3 --db "$db" --rerun --rounds 4 --burn-in 0 --target 0 2>&1); rc=$?
echo "$out" >"$T/rerun.out"
check "compare --rerun from the kept builds confirms both again, exit 1 (got $rc)" \
    bash -c "[ $rc -eq 1 ] && echo \"\$1\" | grep -q 'rerun: 2 of [0-9]* flags and suspects confirmed (2 regressions)' && echo \"\$1\" | grep -q '^host before: '" _ "$out"
out=$($H compare nightly:1 nightly:2 --db "$db" --rerun --rounds 4 --burn-in 0 --target 0 2>&1); rc=$?
check "compare --rerun of one build twice: nothing confirmed (no flag, any suspect rejected), exit 0 (got $rc)" \
    bash -c "[ $rc -eq 0 ] && echo \"\$1\" | grep -q 'nothing flagged, suspect or inconclusive\|rerun: 0 of [0-9]* flags and suspects confirmed'" _ "$out"

# ---- (3) bad input ----
$H nightly $N --rounds 0 >"$T/bad.out" 2>&1; rc=$?
check "nightly --rounds 0: exit 2 with the reason, nothing stored (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'rounds 0' '$T/bad.out' && [ \"\$(sqlite3 '$db' 'SELECT count(*) FROM nightly')\" = 3 ]"
$H sweep "$T/small.sweep" --rounds 0 --db "$db" >"$T/bad2.out" 2>&1; rc=$?
check "sweep --rounds 0: exit 2 (got $rc)" [ $rc -eq 2 ]
mv "$T/builds/$hash" "$T/builds/gone"
before=$(sqlite3 "$db" "SELECT count(*) FROM confirmation")
out=$($H compare nightly:2 nightly:3 --db "$db" --rerun --rounds 4 --burn-in 0 --target 0 2>&1); rc=$?
check "compare --rerun when A's kept build is gone: exit 2 naming it, nothing measured (got $rc)" \
    bash -c "[ $rc -eq 2 ] && echo \"\$1\" | grep -q 'build $hash is not kept' && [ \"\$(sqlite3 '$db' 'SELECT count(*) FROM confirmation')\" = $before ]" _ "$out"
mv "$T/builds/gone" "$T/builds/$hash"
old=$T/old.db
sqlite3 "$old" <<'SQL'
CREATE TABLE host (id INTEGER PRIMARY KEY, hostname TEXT NOT NULL, os TEXT NOT NULL DEFAULT '', cpu TEXT NOT NULL DEFAULT '', UNIQUE (hostname, os, cpu));
CREATE TABLE device (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, backend TEXT NOT NULL, spec TEXT NOT NULL, vendor TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', driver TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '', compute_units INTEGER, max_wg INTEGER, max_item0 INTEGER, max_item1 INTEGER, max_item2 INTEGER, global_mem INTEGER, local_mem INTEGER, max_alloc INTEGER, arch TEXT NOT NULL DEFAULT '');
CREATE TABLE build (id INTEGER PRIMARY KEY, git_commit TEXT NOT NULL, dirty INTEGER NOT NULL, compiler TEXT NOT NULL DEFAULT '', flags TEXT NOT NULL DEFAULT '', kernel_compilers TEXT NOT NULL DEFAULT '', UNIQUE (git_commit, dirty, compiler, flags, kernel_compilers));
CREATE TABLE run (id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL, device_id INTEGER NOT NULL, build_id INTEGER NOT NULL, command TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '', ended_at TEXT);
CREATE TABLE config (id INTEGER PRIMARY KEY, app TEXT NOT NULL, input TEXT NOT NULL, variant TEXT NOT NULL DEFAULT '', knobs TEXT NOT NULL, wg_x INTEGER NOT NULL, wg_y INTEGER NOT NULL, UNIQUE (app, input, knobs, wg_x, wg_y));
CREATE TABLE measurement (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, config_id INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT, iters INTEGER, iters_full INTEGER, scaled INTEGER NOT NULL DEFAULT 0, warmup INTEGER, reps INTEGER NOT NULL DEFAULT 0, max_abs_err REAL, max_rel_err REAL, tolerance REAL, median_s REAL, q1_s REAL, q3_s REAL, device_median_s REAL, cell_updates REAL, mlups REAL, gbs REAL, result REAL, created_at TEXT NOT NULL DEFAULT '', variant TEXT);
CREATE TABLE sample (measurement_id INTEGER NOT NULL, rep INTEGER NOT NULL, seconds REAL, device_seconds REAL);
INSERT INTO host VALUES (1, 'old', '', '');
INSERT INTO device(id, fingerprint, backend, spec) VALUES (1, '00000000000000aa', 'openmp', 'openmp');
INSERT INTO build(id, git_commit, dirty) VALUES (1, 'abc', 0);
INSERT INTO run(id, host_id, device_id, build_id) VALUES (1, 1, 1, 1), (2, 1, 1, 1);
INSERT INTO config VALUES (1, 'lbm', '128x128', 'final', 'k=v', 32, 1);
INSERT INTO measurement(id, run_id, config_id, status, iters, reps, median_s) VALUES (1, 1, 1, 'ok', 100, 4, 1.0), (2, 2, 1, 'ok', 100, 4, 1.5);
INSERT INTO sample VALUES (1, 0, 1.0, NULL), (1, 1, 1.01, NULL), (1, 2, 0.99, NULL), (1, 3, 1.0, NULL),
                          (2, 0, 1.5, NULL), (2, 1, 1.51, NULL), (2, 2, 1.49, NULL), (2, 3, 1.5, NULL);
PRAGMA user_version = 4;
SQL
cp "$old" "$T/old-copy.db"
out=$($H compare 1 2 --db "$old" --target 0 2>&1); rc=$?
check "a database from before rounds is migrated (to version 11, samples round 0) and keeps every row" \
    [ "$(sqlite3 "$old" "PRAGMA user_version; SELECT count(*), count(DISTINCT round), min(round) FROM sample; SELECT min(rounds), min(rounds_done) FROM measurement")" = "$(printf '11\n8|1|0\n1|1')" ]
check "the migrated database has the tables added since (tuned_history, nightly.disturbed_devices)" \
    [ "$(sqlite3 "$old" "SELECT count(*) FROM tuned_history; SELECT count(disturbed_devices) FROM nightly")" = "$(printf '0\n0')" ]
check "its old runs count as one round each: one night of one round a side, judged on the default prior, not on the 4 repetitions pooled (exit $rc)" \
    bash -c "[ $rc -le 1 ] && echo \"\$1\" | grep -q ' 1/1 1/1 '" _ "$out"

# ---- (4) a made-up history of 12 nights from (1)'s rows ----
hist=$T/h.db
cp "$db" "$hist"
rm -f "$hist-wal" "$hist-shm"
sqlite3 "$hist" <<'SQL' || notok "history: building it in SQL failed"
-- Only nights 1 and 2 (the real ones) stay; nights 3..12 copy nightly 1's
-- runs, measurements, samples (with their rounds) and peaks, a day apart;
-- from night 8 every time is 30 % longer; night 10's canary is halved.
-- Each night gets a small deterministic wobble.
DELETE FROM confirmation_sample; DELETE FROM confirmation;
DELETE FROM nightly_peak WHERE nightly_id > 2; DELETE FROM nightly_run WHERE nightly_id > 2; DELETE FROM nightly WHERE id > 2;
CREATE TEMP TABLE nights AS WITH RECURSIVE k(n) AS (SELECT 3 UNION ALL SELECT n + 1 FROM k WHERE n < 12) SELECT n FROM k;
UPDATE nightly SET started_at = strftime('%Y-%m-%dT02:00:00.000Z', '2030-01-01', '+' || (id - 1) || ' days');
INSERT INTO nightly(id, host, suite, started_at, status, telemetry, build_hash, rounds, quality)
  SELECT n, host, suite, strftime('%Y-%m-%dT02:00:00.000Z', '2030-01-01', '+' || (n - 1) || ' days'), 0, '',
         build_hash, rounds, 'ok' FROM nights, nightly WHERE nightly.id = 1;
CREATE TEMP TABLE rmap AS SELECT n, r.id AS src, (SELECT max(id) FROM run) + (n - 3) * 100 + r.id AS dst
  FROM nights, run r JOIN nightly_run nr ON nr.run_id = r.id AND nr.nightly_id = 1;
INSERT INTO run(id, host_id, device_id, build_id, command, started_at, ended_at)
  SELECT m.dst, r.host_id, r.device_id, r.build_id, r.command, strftime('%Y-%m-%dT02:00:01.000Z', '2030-01-01', '+' || (m.n - 1) || ' days'), NULL
  FROM rmap m JOIN run r ON r.id = m.src;
INSERT INTO nightly_run(nightly_id, run_id) SELECT n, dst FROM rmap;
CREATE TEMP TABLE mmap AS SELECT rm.n, ms.id AS src, (SELECT max(id) FROM measurement) + (rm.n - 3) * 1000 + ms.id AS dst
  FROM rmap rm JOIN measurement ms ON ms.run_id = rm.src;
INSERT INTO measurement(id, run_id, config_id, status, iters, iters_full, warmup, reps, median_s, variant, rounds, rounds_done)
  SELECT mm.dst, (SELECT dst FROM rmap WHERE n = mm.n AND src = ms.run_id), ms.config_id, ms.status, ms.iters, ms.iters_full,
         ms.warmup, ms.reps, ms.median_s, ms.variant, ms.rounds, ms.rounds_done FROM mmap mm JOIN measurement ms ON ms.id = mm.src;
INSERT INTO sample(measurement_id, rep, seconds, round)
  SELECT mm.dst, s.rep, (SELECT min(s2.seconds) FROM sample s2 WHERE s2.measurement_id = mm.src)
         * (CASE WHEN mm.n >= 8 THEN 1.3 ELSE 1.0 END)
         * (1 + 0.004 * (((mm.n * 5 + mm.src) % 7) - 3)) * (1 + 0.004 * (((s.rep * 3 + mm.n) % 5) - 2)), s.round
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
$H regressions --db "$hist" --no-confirm >"$T/reg1.out" 2>&1; rc=$?
check "regressions finds untriaged regressions: exit 1 (got $rc)" [ $rc -eq 1 ]
check "regressions: a +30 % change point at night 8, named by number and build, in each of the 6 series" \
    [ "$(grep -c "night 8 (${hash:0:8}).*+[23][0-9]\.[0-9]%.*regression.*detected" "$T/reg1.out")" = 6 ]
check "regressions: nothing else (6 change points; got: $(grep -E '^[0-9]+ series' "$T/reg1.out"))" \
    grep -q '^8 series, 6 change points found' "$T/reg1.out"
grep -q '^8 series, 6 change points found' "$T/reg1.out" || sed 's/^/#   /' "$T/reg1.out" | head -40
check "regressions: night 10's halved canary vetoes that night on both devices" \
    [ "$(grep -c 'canary veto: .* night 10 (' "$T/reg1.out")" = 2 ]
$H regressions --db "$hist" --no-confirm >"$T/reg2.out" 2>&1
check "regressions again: the same 6 change points, same ids (refreshed, not duplicated)" \
    [ "$(sqlite3 "$hist" "SELECT count(*), min(id), max(id) FROM change_point")" = "6|1|6" ]
$H regressions --db "$hist" --no-confirm --csv >"$T/reg.csv" 2>&1
check "regressions --csv: a header and 6 rows" [ "$(wc -l <"$T/reg.csv")" = 7 ]
for id in 1 2 3 4 5; do $H triage $id acknowledged --db "$hist" >/dev/null 2>&1; done
$H triage 6 false-positive --note "test" --db "$hist" >/dev/null 2>&1; rc=$?
check "triage 6 false-positive --note exits 0 (got $rc)" [ $rc -eq 0 ]
$H regressions --db "$hist" --no-confirm >"$T/reg3.out" 2>&1; rc=$?
check "regressions after triage exits 0 and keeps the states (got $rc)" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c acknowledged '$T/reg3.out') -eq 5 ] && grep -q 'false-positive' '$T/reg3.out'"
$H triage 99 fixed --db "$hist" >/dev/null 2>&1; rc=$?
check "triage of an unknown id exits 2 (got $rc)" [ $rc -eq 2 ]
$H triage 1 maybe --db "$hist" >/dev/null 2>&1; rc=$?
check "triage to an unknown state exits 2 (got $rc)" [ $rc -eq 2 ]
# A step in the last two nights alone (the +30 % taken back out): too recent
# to call, reported as a candidate with its p and the nights it needs.
recent=$T/recent.db
cp "$hist" "$recent"
sqlite3 "$recent" "DELETE FROM change_point;
  UPDATE sample SET seconds = seconds / 1.3 * (CASE WHEN (SELECT nr.nightly_id FROM measurement m JOIN nightly_run nr ON nr.run_id = m.run_id WHERE m.id = measurement_id) >= 11 THEN 1.25 ELSE 1 END)
  WHERE measurement_id IN (SELECT m.id FROM measurement m JOIN nightly_run nr ON nr.run_id = m.run_id WHERE nr.nightly_id >= 8)"
$H regressions --db "$recent" --no-confirm >"$T/reg4.out" 2>&1
check "a +25 % step over the last 2 nights is a candidate not called, with its p and the nights it needs" \
    [ "$(grep -c 'candidate, not called: .* from night 11 (.*): +2[0-9]\.[0-9] % over 2 nights, p .*; [0-9]* more nights\? at this level would call it' "$T/reg4.out")" = 6 ]
# The same candidates in --json (it printed [] where the table had them).
$H regressions --db "$recent" --no-confirm --json >"$T/reg4.json" 2>/dev/null
check "regressions --json lists the 6 candidates, each with its nights still needed" python3 -c "
import json, sys
rows = [r for r in json.load(open('$T/reg4.json')) if r['direction'] == 'candidate']
sys.exit(0 if len(rows) == 6 and all('more night' in r['confirmation'] and r['id'] is None for r in rows) else 1)"
# A disturbed night is left out for the devices its disturbance touched
# (nightly.disturbed_devices), not for every device: night 8 (the step's
# first) disturbed on one device moves that device's 3 change points to
# night 9 and leaves the other device's at night 8. A night judged before
# quality was per device (no list) is every device's.
dev=$(sqlite3 "$hist" "SELECT DISTINCT d.spec FROM device d JOIN run r ON r.device_id = d.id JOIN nightly_run nr ON nr.run_id = r.id WHERE nr.nightly_id = 8 ORDER BY d.spec LIMIT 1")
other=$(sqlite3 "$hist" "SELECT DISTINCT d.spec FROM device d JOIN run r ON r.device_id = d.id JOIN nightly_run nr ON nr.run_id = r.id WHERE nr.nightly_id = 8 ORDER BY d.spec DESC LIMIT 1")
pd=$T/perdevice.db
cp "$hist" "$pd"
sqlite3 "$pd" "DELETE FROM change_point; UPDATE nightly SET quality = 'disturbed: $dev canary (made up)', disturbed_devices = '$dev' WHERE id = 8"
$H regressions --db "$pd" --no-confirm >"$T/reg5.out" 2>&1
check "night 8 disturbed on $dev alone: $dev's 3 change points at night 9, $other's 3 still at night 8" \
    bash -c "[ \$(grep -c 'night 9 (.*) *$dev lbm .*regression' '$T/reg5.out') = 3 ] && [ \$(grep -c 'night 8 (.*) *$other lbm .*regression' '$T/reg5.out') = 3 ]"
sqlite3 "$pd" "DELETE FROM change_point; UPDATE nightly SET disturbed_devices = NULL WHERE id = 8"
$H regressions --db "$pd" --no-confirm >"$T/reg6.out" 2>&1
check "night 8 disturbed with no device list (judged before per-device quality): all 6 change points at night 9" \
    [ "$(grep -c ' night 9 (.*regression' "$T/reg6.out")" = 6 ]
if command -v gnuplot >/dev/null 2>&1; then
    $H plot nightly --db "$hist" --out-dir "$T/plots" >"$T/plot.out" 2>&1; rc=$?
    check "plot nightly exits 0 (got $rc)" [ $rc -eq 0 ]
    check "plot nightly: 8 PNGs (6 timings, 2 canaries) and index.md linking each" \
        bash -c "[ \$(ls '$T'/plots/*.png | wc -l) -eq 8 ] && [ \$(grep -c '\\.png)' '$T/plots/index.md') -eq 8 ]"
    check "plot nightly: index.md lists the triage states" grep -q 'acknowledged' "$T/plots/index.md"
else
    echo "ok - plot nightly: skipped (no gnuplot) # skip"
fi
exit $((fails > 0))
