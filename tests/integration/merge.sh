#!/usr/bin/env bash
# harness merge: two databases from real short runs (one per device, as two
# hosts would have), with a canary peak, a nightly, an exclusion and a change
# point, merged into one. Counts add up, ids are remapped, and merging the
# same inputs again (or one input twice, or a copy of one) adds nothing.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir merge
export HARNESS_CACHE=${HARNESS_CACHE:-$T/cache} OMP_NUM_THREADS=1
unset HARNESS_ROOT
H=bin/harness
q() { sqlite3 "$1" "$2" 2>/dev/null; }
counts() { # DB: runs measurements samples peaks configs nightlies nightly_runs exclusions change_points
    q "$1" "SELECT (SELECT count(*) FROM run), (SELECT count(*) FROM measurement), (SELECT count(*) FROM sample),
            (SELECT count(*) FROM peak), (SELECT count(*) FROM nightly), (SELECT count(*) FROM nightly_run),
            (SELECT count(*) FROM run_exclusion), (SELECT count(*) FROM change_point)"
}
run_small() { # DB DEVICE VARIANTS
    $H run --input gen:32x32 --iters 100 --device "$2" --variant "$3" --reps 2 --warmup 0 --db "$1" >/dev/null 2>&1
}

# Host 1: openmp, two runs; host 2: opencl, one run. Each gets a nightly row
# over its runs, one exclusion and one change point (made up in SQL; the
# nightly tables come from `harness exclude`, which creates them).
run_small "$T/a.db" openmp final,t09-deferred
run_small "$T/a.db" openmp t02-ported
run_small "$T/b.db" opencl:0.0 final
# b's one measurement in two rounds (rounds.h): its samples and rounds must survive the merge.
$H run --input gen:32x32 --iters 100 --device opencl:0.0 --variant final --reps 2 --rounds 2 --warmup 0 \
    --db "$T/r.db" >/dev/null 2>&1
for x in a b; do
    $H exclude 1 --reason "host $x: noisy" --db "$T/$x.db" >/dev/null 2>&1 || notok "exclude on $x.db failed"
    sqlite3 "$T/$x.db" "
      INSERT INTO peak(device_id, copy_gbs, fp32_gflops) VALUES (1, 10.5, 3.0);
      INSERT INTO nightly(host, suite, started_at, status, telemetry) VALUES ('host-$x', 's', '2030-01-01T02:00:00.000Z', 0, 't');
      INSERT INTO nightly_run(nightly_id, run_id) SELECT 1, id FROM run;
      INSERT INTO nightly_peak(nightly_id, peak_id) VALUES (1, 1);
      INSERT INTO change_point(series, night, magnitude, p_value, triage, run_id) VALUES ('s-$x', '2030-01-01', 0.1, 1e-5, 'acknowledged', 1);"
done
ca=$(counts "$T/a.db"); cb=$(counts "$T/b.db")
check "inputs: a.db has 2 runs, 3 measurements, 6 samples ($ca)" bash -c "[[ '$ca' == '2|3|6|'* ]]"
check "inputs: a.db $ca, b.db $cb" bash -c "[ '$ca' = '2|3|6|1|1|2|1|1' ] && [ '$cb' = '1|1|2|1|1|1|1|1' ]"

$H merge "$T/m.db" "$T/a.db" "$T/b.db" >"$T/merge1.out" 2>&1; rc=$?
check "merge m.db a.db b.db exits 0 (got $rc)" [ $rc -eq 0 ]
cm=$(counts "$T/m.db")
check "merged counts are the sums: $cm" [ "$cm" = "3|4|8|2|2|3|2|2" ]
check "merged: two devices, one build, one host per input" \
    [ "$(q "$T/m.db" "SELECT count(*) FROM device; SELECT count(*) FROM build; SELECT count(*) FROM host" | xargs)" = "2 1 1" ]
$H merge "$T/mr.db" "$T/r.db" >/dev/null 2>&1
check "merged: samples keep their rounds and each round its host state ($(q "$T/mr.db" "SELECT group_concat(round) FROM sample"))" \
    [ "$(q "$T/mr.db" "SELECT group_concat(round) FROM (SELECT round FROM sample ORDER BY round); SELECT count(*) FROM round_state")" = "$(printf '0,1\n2')" ]
# A shard merged half-measured, then again after its sweep resumed the missing
# round (r1.db: r.db as it stood after round 0): the run is not copied twice,
# its measurement gains the round's sample and figures, a third merge adds nothing.
cp "$T/r.db" "$T/r1.db"
sqlite3 "$T/r1.db" "DELETE FROM sample WHERE round = 1; DELETE FROM round_state WHERE round = 1;
    UPDATE measurement SET rounds_done = 1, median_s = 1.0"
$H merge "$T/mr2.db" "$T/r1.db" >/dev/null 2>&1
out=$($H merge "$T/mr2.db" "$T/r.db" 2>&1)
got=$(sqlite3 "$T/mr2.db" "ATTACH '$T/r.db' AS src; SELECT count(*) FROM main.run;
    SELECT m.rounds_done || ',' || (m.median_s = s.median_s) FROM main.measurement m, src.measurement s;
    SELECT group_concat(round) FROM (SELECT round FROM main.sample ORDER BY round);
    SELECT count(*) FROM main.round_state" 2>&1 | xargs)
check "a resumed shard merged again: one run, both rounds, src's figures, both round states ($got; $out)" \
    [ "$got" = "1 2,1 0,1 2" ]
$H merge "$T/mr2.db" "$T/r.db" >/dev/null 2>&1
check "a third merge of the same shard adds nothing" \
    [ "$(q "$T/mr2.db" "SELECT count(*) FROM sample; SELECT count(*) FROM measurement; SELECT count(*) FROM round_state" | xargs)" = "2 1 2" ]
check "merged: b's run is remapped to id 3 with its measurement and 2 samples" \
    [ "$(q "$T/m.db" "SELECT count(*) FROM measurement m JOIN sample s ON s.measurement_id = m.id WHERE m.run_id = 3")" = 2 ]
check "merged: every sample's measurement and every measurement's run and config exist" \
    [ "$(q "$T/m.db" "SELECT (SELECT count(*) FROM sample WHERE measurement_id NOT IN (SELECT id FROM measurement))
        + (SELECT count(*) FROM measurement WHERE run_id NOT IN (SELECT id FROM run) OR config_id NOT IN (SELECT id FROM config))")" = 0 ]
check "merged: b's nightly links b's run and b's peak (device opencl)" \
    [ "$(q "$T/m.db" "SELECT count(*) FROM nightly n JOIN nightly_run nr ON nr.nightly_id = n.id JOIN run r ON r.id = nr.run_id
        JOIN device d ON d.id = r.device_id JOIN nightly_peak np ON np.nightly_id = n.id JOIN peak p ON p.id = np.peak_id
        WHERE n.host = 'host-b' AND d.backend = 'opencl' AND p.device_id = d.id")" = 1 ]
check "merged: b's exclusion and change point point at b's run (id 3)" \
    [ "$(q "$T/m.db" "SELECT run_id FROM run_exclusion WHERE reason LIKE 'host b%'; SELECT run_id FROM change_point WHERE series = 's-b'" | xargs)" = "3 3" ]

$H merge "$T/m.db" "$T/a.db" "$T/b.db" >"$T/merge2.out" 2>&1; rc=$?
check "merging the same inputs again exits 0 and adds nothing ($(counts "$T/m.db"))" \
    bash -c "[ $rc -eq 0 ] && [ '$(counts "$T/m.db")' = '$cm' ]"
check "the second merge reports every run as already there" \
    bash -c "grep -q 'a.db: 0 runs added (2 already there)' '$T/merge2.out' && grep -q 'b.db: 0 runs added (1 already there)' '$T/merge2.out'"
cp "$T/a.db" "$T/a-copy.db"
$H merge "$T/m2.db" "$T/a.db" "$T/a-copy.db" >/dev/null 2>&1; rc=$?
check "a file and its copy merge to one file's worth (no duplicates): $(counts "$T/m2.db")" \
    bash -c "[ $rc -eq 0 ] && [ '$(counts "$T/m2.db")' = '$ca' ]"
$H merge "$T/m.db" "$T/m.db" >/dev/null 2>&1; rc=$?
check "merging the output into itself is refused (exit 1, got $rc)" [ $rc -eq 1 ]
$H merge "$T/m.db" "$T/missing.db" >/dev/null 2>&1; rc=$?
check "a missing input is bad usage (exit 2, got $rc)" [ $rc -eq 2 ]
echo "not a database" >"$T/junk.db"
$H merge "$T/m3.db" "$T/junk.db" >/dev/null 2>&1; rc=$?
# Bad input, as the README's conventions say (exit 2), found before OUT is
# made (issue 34: it was exit 1, with OUT created).
check "a file that is not a results database is bad input (exit 2, got $rc) and OUT is not made" \
    bash -c "[ $rc -eq 2 ] && [ ! -e '$T/m3.db' ]"
# A run's launch-cost rows (a real `harness launch-cost`) and report notes
# (made up in SQL, as `harness report` stores them) travel with the run:
# the rows land on the run's new id with their samples, once.
$H launch-cost --device openmp --launches 200 --reps 2 --warmup 10 --args 0,2 --db "$T/c.db" >/dev/null 2>&1 ||
    notok "launch-cost into c.db failed"
sqlite3 "$T/c.db" "INSERT INTO report_note(run_id, key, text) SELECT id, 'openacc', 'no OpenACC compiler' FROM run"
lc_c=$(q "$T/c.db" "SELECT (SELECT count(*) FROM launch_cost) || ' ' || (SELECT count(*) FROM launch_cost_sample)")
$H merge "$T/m4.db" "$T/a.db" "$T/c.db" >/dev/null 2>&1; rc=$?
lc_m=$(q "$T/m4.db" "SELECT (SELECT count(*) FROM launch_cost) || ' ' || (SELECT count(*) FROM launch_cost_sample)")
check "launch-cost rows and samples merged ($lc_m of $lc_c, exit $rc)" \
    bash -c "[ $rc -eq 0 ] && [ '$lc_m' = '$lc_c' ] && [ '${lc_c%% *}' -gt 0 ]"
check "merged launch-cost rows sit on c's run (id 3) and its device, each with its samples" \
    [ "$(q "$T/m4.db" "SELECT count(*) FROM launch_cost lc JOIN run r ON r.id = lc.run_id AND r.device_id = lc.device_id
        WHERE lc.run_id = 3 AND (SELECT count(*) FROM launch_cost_sample s WHERE s.launch_cost_id = lc.id) = lc.reps")" = "${lc_c%% *}" ]
check "the report note came with c's run" [ "$(q "$T/m4.db" "SELECT run_id || ' ' || key FROM report_note")" = "3 openacc" ]
$H merge "$T/m4.db" "$T/c.db" >/dev/null 2>&1
check "merging c.db again adds no launch-cost rows or notes" \
    [ "$(q "$T/m4.db" "SELECT (SELECT count(*) FROM launch_cost) || ' ' || (SELECT count(*) FROM launch_cost_sample) || ' ' || (SELECT count(*) FROM report_note)")" = "$lc_c 1" ]

out=$($H compare 1 2 --db "$T/m.db" 2>&1); rc=$?
check "the merged file is usable: compare of two merged runs exits 0 (got $rc)" [ $rc -eq 0 ]
exit $((fails > 0))
