#!/usr/bin/env bash
# Progress on commands that run many configs (issue 21): a sweep of 144
# configs into a file shows "[k/144] elapsed ..., about ... left" once per
# finished config, in order, ending at [144/144]; verify shows its own;
# --quiet (anywhere on the line) shows none and no notes, and changes no
# result. How close the estimate came is printed (a figure, not asserted:
# machines are noisy).
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir progress
H=bin/harness
cat >"$T/p.sweep" <<'S'
app lbm
input gen:32x32 gen:64x64
variant final t02-ported
device openmp
wg {1,2,4,8,16,32} x {1,2,4,8,16,32}
iters 30
reps 1
rounds 1
S
start=$(date +%s.%N)
$H sweep "$T/p.sweep" --db "$T/p.db" >"$T/sweep.out" 2>"$T/sweep.err"
rc=$?
end=$(date +%s.%N)
check "the sweep exits 0 (got $rc)" [ $rc -eq 0 ]
n=$(grep -cE '^sweep \[[0-9]+/144\] elapsed [0-9.hms]+(, about [0-9.hms]+ left)?$' "$T/sweep.err")
check "a plain progress line per config into a file: 144 ($n)" [ "$n" -eq 144 ]
check "the counts run 1..144 in order" \
    bash -c "grep -oE '^sweep \[[0-9]+' '$T/sweep.err' | tr -dc '0-9\n' | paste -sd' ' | grep -qx \"\$(seq -s' ' 1 144)\""
check "an estimate of the time left on every line but the last" \
    bash -c "[ \$(grep -c ', about [0-9.hms]* left\$' '$T/sweep.err') -eq 143 ]"
check "no terminal control characters in a file" bash -c "! grep -q \$'\\r' '$T/sweep.err'"
# The estimate at a quarter of the way against what the rest really took.
python3 - "$T/sweep.err" "$start" "$end" <<'P'
import re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith('sweep [')]
def secs(t):
    m = re.fullmatch(r'(?:(\d+)h)?(?:(\d+)m)?(?:([\d.]+)s)?', t)
    return sum(float(g or 0) * k for g, k in zip(m.groups(), (3600, 60, 1)))
total = float(sys.argv[3]) - float(sys.argv[2])
for frac in (0.25, 0.5):
    l = lines[int(frac * len(lines)) - 1]
    m = re.search(r'elapsed (\S+), about (\S+) left', l)
    if m:
        est = secs(m.group(1)) + secs(m.group(2))
        print("# at %d %%: elapsed + estimate %.1f s, the sweep took %.1f s (%+.0f %%)" % (100 * frac, est, total, 100 * (est / total - 1)))
P
check "the sweep's 144 configs verified" bash -c "[ \$(grep -c ' ok ' '$T/sweep.out') -eq 144 ]"
sed 's/^input .*/input gen:32x32/' "$T/p.sweep" >"$T/q.sweep"
$H sweep "$T/q.sweep" --db "$T/q.db" --quiet >"$T/quiet.out" 2>"$T/quiet.err"
rc=$?
check "sweep --quiet exits 0 (got $rc)" [ $rc -eq 0 ]
check "--quiet: no progress and no notes on stderr" bash -c "! grep -qE '^(sweep \[|note)' '$T/quiet.err'"
check "--quiet: every result line still there (72)" bash -c "[ \$(grep -c ' ok ' '$T/quiet.out') -eq 72 ]"
$H verify stencil --device openmp --db "$T/v.db" >"$T/v.out" 2>"$T/v.err"
nv=$(grep -cE '^verify \[[0-9]+/[0-9]+\] elapsed' "$T/v.err")
check "verify shows a progress line per variant ($nv)" [ "$nv" -ge 5 ]
HARNESS_QUIET=1 $H verify stencil --device openmp --db "$T/v2.db" >/dev/null 2>"$T/v2.err"
check "HARNESS_QUIET=1 quiets verify too" bash -c "! grep -qE '^(verify \[|note)' '$T/v2.err'"
# Inside one long config: a line every 30 s while it runs (issue 34: the
# main job's first config was silent for 6 minutes). A device set's config
# held at its first exchange (the test fault pauses, no CPU) under a 40 s
# watchdog; skipped without a second device to make the set.
other=$($H devices --csv 2>/dev/null | awk -F, 'NR > 1 && $1 != "openmp" {print $1; exit}')
if [ -n "$other" ]; then
    printf 'app sandpile\ninput 40x36\nknobs flag: split=0.5 exchange=7\ndevice %s+openmp\nwg 8x8\nreps 1\nwarmup 0\nrounds 1\ntimeout 40\n' \
        "$other" >"$T/long.sweep"
    HARNESS_TEST_SPLIT_FAULT=hang:7 $H sweep "$T/long.sweep" --db "$T/long.db" >"$T/long.out" 2>"$T/long.err"
    # The line is due at 30 s; a loaded host (CI: four tests on two cores)
    # wakes the poll late, and the seconds are rounded: 30 s and a few. With
    # a 32 s watchdog and 30-31 s wanted, it failed once under load (a clean
    # check at 77851f0, the suite at 1394 s of CPU): a line rounded to 32 s,
    # or a poll woken after the deadline, which prints none. 40 s leaves the
    # line 10 s to come; none, or one later than 39 s, still fails.
    check "a config running past 30 s says so while it runs: '... still running: 30s so far (its watchdog: 40s)'" \
        grep -qE 'sandpile flag\{split=0.5,exchange=7\} on .* still running: 3[0-9]s so far \(its watchdog: 40s\)' "$T/long.err"
else
    echo "ok - a long config's still-running lines # skip needs a second device for a set"
fi
exit $((fails > 0))
