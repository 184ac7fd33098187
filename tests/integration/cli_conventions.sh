#!/usr/bin/env bash
# The command-line conventions every command keeps (README "Conventions"):
# -h and --help give the same text, exit 0 and state the exit codes;
# --version names the build; --quiet anywhere, or HARNESS_QUIET=1, silences
# notes and progress but no result; -h after `--` is an argument, not help.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir cli_conventions
H=bin/harness
cmds=$($H --help | awk '/^  [a-z-]+ / && $1 != "worker" {print $1}')
check "the top-level help lists the commands ($(echo $cmds | wc -w))" [ "$(echo $cmds | wc -w)" -ge 18 ]
for c in $cmds; do
    $H "$c" -h >"$T/$c.h" 2>&1
    rc=$?
    $H "$c" --help >"$T/$c.help" 2>&1
    rc2=$?
    check "$c -h and --help exit 0 ($rc, $rc2) with the same text" \
        bash -c "[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s '$T/$c.h' '$T/$c.help'"
    check "$c's help states its exit codes" grep -qi 'exit status' "$T/$c.help"
done
v=$($H --version | head -1)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null)
check "--version names the build's commit ($v)" bash -c "echo '$v' | head -1 | grep -q '^harness $commit'"
$H --quiet devices >/dev/null 2>"$T/q.err"
check "--quiet before the command: no notes" bash -c "! grep -q '^note' '$T/q.err'"
# tune's progress lines are notes too (tune.sh checks them; it runs alone
# since it judges timings, and this judges none).
$H --quiet tune --app lbm --input gen:64x64 --iters 200 --reps 1 --device openmp --strategy random --budget 3 \
    --db "$T/quiet.db" >"$T/quiet.out" 2>"$T/quiet.err"
check "tune --quiet: no progress and no notes" \
    bash -c "! grep -q '^tune \[' '$T/quiet.err' && ! grep -q '^note' '$T/quiet.err' && grep -q '^best ' '$T/quiet.out'"
HARNESS_QUIET=1 $H devices >"$T/q2.out" 2>"$T/q2.err"
$H devices >"$T/loud.out" 2>/dev/null
check "HARNESS_QUIET=1: no notes, the same device list" \
    bash -c "! grep -q '^note' '$T/q2.err' && cmp -s '$T/q2.out' '$T/loud.out'"
# ---- results --runs: the ids compare and exclude take ----
$H run --input gen:32x32 --iters 20 --reps 1 --device openmp --variant final --db "$T/r.db" >/dev/null 2>&1
$H results --runs --db "$T/r.db" >"$T/runs.out" 2>&1
rc=$?
commit=$(sqlite3 "$T/r.db" "select substr(git_commit, 1, 12) from build")
check "results --runs lists the run: id 1, openmp, its commit, 1/1 ok, the command (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && grep -Eq '^ +1 .* openmp .* $commit.* +- +1/1 +harness run --input gen:32x32' '$T/runs.out'"
$H results --runs --rounds --db "$T/r.db" >/dev/null 2>&1
rc=$?
check "results --runs --rounds exits 2 (got $rc)" [ $rc -eq 2 ]
$H nosuch >/dev/null 2>&1
rc=$?
check "an unknown command exits 2 (got $rc)" [ $rc -eq 2 ]
# ---- one result line: spread as CV %, n/a for one repetition, short ----
$H run --input gen:32x32 --iters 20 --reps 3 --device openmp --variant final --db "$T/r.db" >"$T/cv.out" 2>/dev/null
check "a run line shows its spread as CV % with 3 repetitions, no IQR ($(cat "$T/cv.out"))" \
    bash -c "grep -Eq ' ok +[0-9.]+ (us|ms|s) CV [0-9.]+% ' '$T/cv.out' && ! grep -q IQR '$T/cv.out'"
$H run --input gen:32x32 --iters 20 --reps 1 --device openmp --variant t02-ported --db "$T/r.db" >"$T/na.out" 2>/dev/null
check "one repetition: CV n/a, never 0" grep -q ' CV n/a ' "$T/na.out"
len=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/cv.out" "$T/na.out")
check "result lines are under 170 characters, was ~220 ($len)" [ "$len" -lt 170 ]
$H results --db "$T/r.db" >"$T/res.out" 2>&1
check "results shows cv_pct, and n/a for the one-repetition row" \
    bash -c "head -1 '$T/res.out' | grep -q cv_pct && grep 't02-ported' '$T/res.out' | grep -q 'n/a'"
# ---- --json wherever --csv exists: the same rows ----
for c in devices results best noise regressions; do
    $H "$c" --db "$T/r.db" --csv >"$T/$c.csv" 2>/dev/null || $H "$c" --csv >"$T/$c.csv" 2>/dev/null
    $H "$c" --db "$T/r.db" --json >"$T/$c.json" 2>/dev/null || $H "$c" --json >"$T/$c.json" 2>/dev/null
    check "$c --json: a JSON array with one object per CSV row, keyed by the header" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$T/$c.csv')))
js = json.load(open('$T/$c.json'))
assert isinstance(js, list) and len(js) == len(rows), (len(js), len(rows))
for r, j in zip(rows, js):
    assert list(r.keys()) == list(j.keys())
    for k, v in r.items():
        assert (v == '' and j[k] is None) or str(j[k]) == v or float(j[k]) == float(v), (k, v, j[k])
"
done
check "results --json has the two runs' rows" python3 -c "
import json; assert len(json.load(open('$T/results.json'))) == 3"
$H sweep --json sweeps/smoke.sweep >/dev/null 2>&1
rc=$?
check "--json on a command without --csv is refused (exit $rc)" [ $rc -eq 2 ]
# ---- the same option for the same thing; the same default timeout ----
for c in "run" "report" "plot wg" "plot nightly" "plot launch-cost" "plot variants"; do
    $H $c --help >"$T/opt.help" 2>&1
    check "$c takes --out" grep -q -- '--out ' "$T/opt.help"
done
for c in run verify tune; do
    $H $c --help >"$T/to.help" 2>&1
    check "$c's help: default timeout 600" bash -c "tr -s ' \n' ' ' <'$T/to.help' | grep -q 'timeout.*600'"
done
# ---- a readable dry run, every sweep-file mistake in one pass ----
$H --quiet sweep sweeps/smoke.sweep --dry-run --db "$T/r.db" >"$T/dry.out" 2>/dev/null
rc=$?
check "sweep --dry-run: a header, then device, app, input, variant, shape, steps, plan (exit $rc)" \
    bash -c "[ $rc -eq 0 ] && head -1 '$T/dry.out' | grep -q '^device  *app  *input  *variant  *shape  *steps  *plan' &&
             grep -Eq '^openmp +lbm +128x128 +final +[0-9]+x[0-9]+ +[0-9]+  run$' '$T/dry.out'"
check "sweep --dry-run: lines are short, no canonical keys" \
    bash -c "! grep -q 'layout=' '$T/dry.out' && [ \$(awk '{ if (length(\$0) > m) m = length(\$0) } END { print m }' '$T/dry.out') -lt 120 ]"
check "sweep --dry-run does not create a database" bash -c "$H --quiet sweep sweeps/smoke.sweep --dry-run --db '$T/none.db' >/dev/null 2>&1; [ ! -e '$T/none.db' ]"
printf 'app lbm\nvariant final,nosuch\nwg 0x3\nfoo bar\ninput 128x128\nreps -1\n' >"$T/bad.sweep"
$H sweep "$T/bad.sweep" --db "$T/bad.db" >/dev/null 2>"$T/bad.err"
rc=$?
n=$(grep -c "bad.sweep:[0-9]*:" "$T/bad.err")
check "a sweep file with 4 mistakes: all 4 named in one run, exit 2, no database ($n, rc $rc)" \
    bash -c "[ $n -eq 4 ] && [ $rc -eq 2 ] && [ ! -e '$T/bad.db' ] && grep -q ':2: variant' '$T/bad.err' &&
             grep -q ':3: wg' '$T/bad.err' && grep -q ':4: unknown keyword' '$T/bad.err' && grep -q ':6: reps' '$T/bad.err'"
# ---- verify selftest is quick by default: the hang drill costs seconds ----
# (On one OpenMP thread: the drill spins every thread of its team until the
# watchdog, 20 s of CPU on two threads for the same timeout.)
start=$(date +%s)
OMP_NUM_THREADS=1 $H --quiet verify selftest --device openmp --variant hang --db "$T/r.db" >"$T/st.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "verify selftest's hang drill times out in seconds by default (${took} s, exit $rc)" \
    bash -c "[ $rc -eq 1 ] && [ $took -lt 60 ] && grep -q 'timeout' '$T/st.out'"
# ---- a missing database: exit 1 (nothing to show) from every command that reads one, none created ----
for c in "results" "best" "export --format csv" "noise" "regressions" "compare 1 2" "plot wg" "plot nightly" \
    "publish $T/pub" "triage 1 acknowledged" "exclude 1 --reason x"; do
    $H --quiet $c --db "$T/missing.db" >/dev/null 2>&1
    rc=$?
    check "$c with a missing database exits 1 and creates none (got $rc)" bash -c "[ $rc -eq 1 ] && [ ! -e '$T/missing.db' ]"
done
# ---- a database that cannot be opened: a corrupt file, a folder nothing may be written in ----
head -c 4096 /dev/urandom >"$T/bad.db"
cp "$T/bad.db" "$T/bad.orig"
$H --quiet run --input gen:32x32 --iters 20 --reps 1 --device openmp --db "$T/bad.db" >"$T/bad.out" 2>&1
rc=$?
check "run on a corrupt database: exit 2, says so, the file unchanged (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'not a database' '$T/bad.out' && cmp -s '$T/bad.db' '$T/bad.orig'"
mkdir -p "$T/ro"
if { [ "$(id -u)" -eq 0 ] && chattr +i "$T/ro" 2>/dev/null; } || { [ "$(id -u)" -ne 0 ] && chmod 555 "$T/ro"; }; then
    $H --quiet run --input gen:32x32 --iters 20 --reps 1 --device openmp --db "$T/ro/x.db" >"$T/ro.out" 2>&1
    rc=$?
    check "run with its database in a read-only folder: exit 2, a message, nothing written (got $rc)" \
        bash -c "[ $rc -eq 2 ] && grep -q 'unable to open' '$T/ro.out' && [ -z \"\$(ls -A '$T/ro')\" ]"
    chattr -i "$T/ro" 2>/dev/null
else
    echo "ok - run with its database in a read-only folder # skip no way to make a folder read-only here"
fi
# Every environment variable the harness reads is in the README's table
# (issue 34: HARNESS_OMP_CC, HARNESS_CACHE, HARNESS_ROOT and HARNESS_BUILDS
# were documented nowhere).
read_vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' harness kernels --include=*.c | sed -E 's/getenv\("([A-Z_]+)"\)/\1/' | sort -u)
undocumented=$(for v in $read_vars; do
    awk '/^## Environment variables/ {on = 1; next} /^## / {on = 0} on' README.md | grep -q "\`$v\`" || echo "$v"
done)
check "every environment variable read ($(echo $read_vars | wc -w)) is in the README's table${undocumented:+ (missing: $undocumented)}" \
    [ -z "$undocumented" -a -n "$read_vars" ]
exit $((fails > 0))
