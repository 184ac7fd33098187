# Sourced, from the repository root, by the directive GPU-host calls
# (results/published/nvidia-h100-80gb/calls/2026-11-26b-directives.sh,
# -26c-acc-lbm.sh, -26e-matvec-acc.sh, -26g-acc-regs.sh): `capped` (a step under a timeout of its cap or
# the time left before DEADLINE), then the host's set-up (NVIDIA OpenCL,
# SQLite, GCC 12's offloading unless OFFLOAD_CC is already set: a dry run
# elsewhere) and the build, logs in $OUT.
left() { echo $((DEADLINE - SECONDS - 15)); }
# capped CAP LABEL FILE CMD...: CMD under a timeout of CAP s or the time left.
capped() {
    local cap=$1 label=$2 file=$3 t rc
    shift 3
    t=$(left)
    [ "$t" -gt "$cap" ] && t=$cap
    if [ "$t" -lt 10 ]; then echo "skipped $label: out of time"; return 0; fi
    timeout -k 5 "$t" "$@" >>"$file" 2>&1
    rc=$?
    echo "[${SECONDS}s] $label: exit $rc$([ $rc -eq 124 ] && echo " (cut at ${t}s)")"
}
[ -f .gpu-host/setup.sh ] && source .gpu-host/setup.sh >"$OUT/setup.log" 2>&1
if [ -z "${OFFLOAD_CC:-}" ]; then
    source .gpu-host/offload/offload.sh >>"$OUT/setup.log" 2>&1 || { echo "offload.sh failed"; tail -5 "$OUT/setup.log"; exit 1; }
fi
C=$(cat .gpu-host/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
make -j16 GIT_COMMIT="$C" GIT_DIRTY=0 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "[${SECONDS}s] built $C"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
# table15 CAP DEVICES DB: Table 15 alone (`report lbm` with its definition
# cut to the table) on DEVICES, printed; the report under $OUT/report.
table15() {
    awk '/^(app|reference|inputs|quick|wg) /{print} /^table 15 /{t=1} /^table 16 /{exit} t&&/^(table|run|published)/{print}' \
        kernels/lbm/report.def >"$OUT/report-t15.def"
    capped "$1" "report t15" "$OUT/report.log" env LD_LIBRARY_PATH="$OFFLOAD_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        bin/harness report lbm --def "$OUT/report-t15.def" --device "$2" --rounds 2 --db "$3" --out "$OUT/report"
    sed -n '/^## Table 15/,/^## Figures/p' "$OUT"/report/report-*.md 2>/dev/null | head -14
}
