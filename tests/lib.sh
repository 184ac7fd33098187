# Shared by the integration tests; sourced after `cd` to the repository root.
# Each check prints "ok - ..." or "not ok - ..." (tests/run_all.sh counts
# them) and a failure adds to $fails, which the script's exit status reports.
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { # NAME COMMAND...: ok when the command succeeds (status 1 when not)
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; return 1; fi
}
# test_dir NAME: a fresh folder $T for the test's files (under
# $HARNESS_TEST_TMP when run_all.sh sets it, so they are cleaned up together).
test_dir() {
    T=${HARNESS_TEST_TMP:-$(mktemp -d)}/$1
    rm -rf "$T"
    mkdir -p "$T"
}

# matvec_variants: names (the variants of variants/matvec.variants, in file
# order) and acc[NAME]=1 for OpenACC's own (params=globals, async=on or
# atomics=ptx, on the line or its base's), which every other backend refuses.
matvec_variants() {
    names=()
    declare -gA acc=()
    local line name rest base a
    while IFS= read -r line; do
        line=${line%%#*}
        [[ "$line" =~ ^[[:space:]]*$ ]] && continue
        name=$(echo "${line%%:*}" | tr -d '[:space:]')
        rest=" ${line#*:} "
        base=$(echo "$rest" | awk '{print $1}')
        a=0
        [ -n "$base" ] && [[ "$base" != *=* ]] && a=${acc[$base]:-0}
        [[ "$rest" == *" params=globals "* || "$rest" == *" async=on "* || "$rest" == *" atomics=ptx "* ]] && a=1
        acc[$name]=$a
        names+=("$name")
    done <variants/matvec.variants
}

# first_ptx SO OUT: the first PTX module GCC's offloading embedded in the
# shared object SO (the program's own; libgomp's and libm's follow it),
# written to OUT; OUT is empty where SO holds none.
first_ptx() {
    python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.find(b'// BEGIN PREAMBLE')
open(sys.argv[2], 'wb').write(d[i:d.find(b'\\0', i)] if i >= 0 else b'')" "$1" "$2"
}

# has_python_opencl: true when a Python the harness's Python host would use
# (HARNESS_PYTHON, else python3 on the PATH, else /usr/bin/python3) imports
# numpy and pyopencl.
has_python_opencl() {
    local py
    for py in ${HARNESS_PYTHON:-python3 /usr/bin/python3}; do
        "$py" -c 'import numpy, pyopencl' >/dev/null 2>&1 && return 0
    done
    return 1
}

# lbm_slowed_tree DIR COLLISIONS: a copy of the kernel tree in DIR (what a
# nightly run with HARNESS_ROOT=DIR reads) with SLOWDOWN(s, omega) defined in
# lbm_physics.h: COLLISIONS more collisions of a scratch copy of a cell,
# folded back at 1e-30 so the compiler keeps them and the answer (and its
# verification) does not change. The caller plants SLOWDOWN where it wants.
lbm_slowed_tree() {
    local dir=$1 n=$2
    mkdir -p "$dir/harness/backend" "$dir/bin"
    cp -r kernels variants "$dir/"
    cp harness/backend/omp_kernel.h "$dir/harness/backend/"
    cp -r harness/backend/peak "$dir/harness/backend/"
    cat >>"$dir/kernels/lbm/lbm_physics.h" <<C

/* tests/lib.sh lbm_slowed_tree: a deliberate slowdown of $n collisions. */
#define SLOWDOWN(s_, om_)                                                         \\
    do {                                                                          \\
        float acc_ = 0.0f;                                                        \\
        for (int rep_ = 0; rep_ < $n; rep_++) {                                   \\
            float t_[9];                                                          \\
            for (int k_ = 0; k_ < 9; k_++) t_[k_] = s_[k_] + (float)rep_ * 1e-7f; \\
            lbm_collide(t_, om_);                                                 \\
            acc_ += t_[rep_ % 9];                                                 \\
        }                                                                         \\
        s_[0] += acc_ * 1e-30f;                                                   \\
    } while (0)
C
}
