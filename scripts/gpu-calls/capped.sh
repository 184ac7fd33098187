# Sourced by the GPU-host calls (matvec-gpu.sh, dg-gpu.sh): `capped CAP LABEL
# FILE CMD...` runs CMD, its output appended to FILE, under a timeout of CAP
# seconds or the time left before DEADLINE less RESERVE (kept for the table
# at the end), whichever is less; skipped (and listed in SKIPPED) when too
# little is left. Says how it ended either way.
SKIPPED=()
capped() {
    local cap=$1 label=$2 file=$3 t rc
    shift 3
    t=$((DEADLINE - RESERVE - SECONDS))
    [ "$t" -gt "$cap" ] && t=$cap
    if [ "$t" -lt 8 ]; then
        SKIPPED+=("$label")
        echo "skipped $label at ${SECONDS}s: out of time"
        return 0
    fi
    timeout -k 5 "$t" "$@" >>"$file" 2>&1
    rc=$?
    echo "$label: exit $rc at ${SECONDS}s$([ $rc -eq 124 ] || [ $rc -eq 137 ] && echo " (stopped at its ${t}s cap)")"
}
