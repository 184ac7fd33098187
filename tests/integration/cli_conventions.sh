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
exit $((fails > 0))
