#!/usr/bin/env bash
# Issue 39: a command that touches several devices survives one device's
# runtime dying under it. Each device's probe (peak, report's ceilings and
# launch costs, nightly's burn-in and canaries) and each device's configs
# run in processes of their own; HARNESS_DRILL_ABORT=SPEC makes a child
# that opens that device abort, as libgomp's "device memory allocation
# fail" did on the GPU host. The other device's figures must come through
# and the command must say what happened, never end with nothing.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir isolation
H=bin/harness
other=$($H devices --csv 2>/dev/null | awk -F, 'NR > 1 && $1 != "openmp" {print $1; exit}')
if [ -z "$other" ]; then
    echo "ok - device isolation # skip needs a second device beside openmp (PoCL)"
    exit 0
fi

# ---- peak: two ceilings, then one device aborting ----
$H peak --device "openmp,$other" --db "$T/p.db" >"$T/p.out" 2>&1
rc=$?
check "peak over openmp and $other exits 0 with two ceilings (rc $rc)" \
    [ $rc -eq 0 -a "$(grep -c ' copy [0-9.]* GB/s' "$T/p.out")" -eq 2 ]
HARNESS_DRILL_ABORT=openmp $H peak --device "openmp,$other" --db "$T/d.db" >"$T/d.out" 2>&1
rc=$?
check "peak with openmp's runtime aborting exits 1 (a failure found; got $rc)" [ $rc -eq 1 ]
check "the aborting device's line says how its probe died" grep -q 'openmp: its probe process died of signal 6' "$T/d.out"
check "$other's ceiling still comes through" grep -q "^$other .* copy [0-9.]* GB/s" "$T/d.out"
check "only $other's ceiling is stored" \
    [ "$(sqlite3 "$T/d.db" "select count(*) from device d join peak p on p.device_id = d.id")" = 1 ]

# ---- launch-cost: the same, through its own probe ----
HARNESS_DRILL_ABORT=openmp $H launch-cost --device "openmp,$other" --launches 200 --reps 1 --args 0,2 \
    --db "$T/l.db" >"$T/l.out" 2>&1
rc=$?
check "launch-cost with openmp aborting exits 1 and still prints $other's table (rc $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q '^$other ' '$T/l.out' && grep -q 'openmp: its probe process died' '$T/l.out'"

# ---- report: one device's worker aborting costs its cells only ----
HARNESS_DRILL_ABORT=openmp $H report selftest --quick --device "openmp,$other" --db "$T/r.db" --out "$T/r" \
    >"$T/r.out" 2>&1
rc=$?
md=$(ls "$T"/r/report-*.md 2>/dev/null | head -1)
check "the report is written although openmp's runtime aborts (rc $rc, file ${md:-none})" [ -n "$md" -a $rc -eq 1 ]
# A device's cell by its column's heading ("| size | openmp (s) | ...").
cell() {
    grep -A6 '^## Table 1:' "$md" 2>/dev/null | awk -F'|' -v dev="$1 (s)" '
        $2 ~ /size/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/^ +| +$/, "", h); if (h == dev) c = i } }
        $2 ~ /gen:4096/ && c { v = $c; gsub(/ /, "", v); print v }'
}
check "table 1: $other has a time ($(cell "$other")), openmp says crashed ($(cell openmp))" \
    bash -c "echo '$(cell "$other")' | grep -qE '^[0-9.]+' && [ '$(cell openmp)' = crashed ]"
check "a report that ran to its end does not call itself partial" bash -c "! grep -q PARTIAL '$md'"
check "the report's ceiling line for openmp says its probe died" grep -q 'openmp: copy: its probe process died' "$T/r.out"
exit $fails
