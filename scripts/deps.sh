#!/usr/bin/env bash
# What the build and the tests need, checked by what works (a header that
# compiles, a command that runs), not by package names: the GPU host has the
# headers unpacked by .gpu-host/setup.sh and no network, and there nothing
# must be installed. Missing pieces map to Debian packages; as root they are
# installed, otherwise the exact apt-get line is printed and we stop.
#   scripts/deps.sh build    what `make` needs
#   scripts/deps.sh run      + an OpenCL loader (the main job)
#   scripts/deps.sh check    + sqlite3, PoCL and gnuplot (the tests)
#   scripts/deps.sh install  install everything for `check`, plus clang and its
#                            libFuzzer for tests/fuzz.sh, a single-host Slurm for
#                            tests/integration/slurm.sh, pyopencl for the Python
#                            host's tests, GCC's nvptx offloading compiler for
#                            tests/integration/offload.sh, clang-19 with its
#                            OpenMP runtime for tests/integration/omp_clang.sh,
#                            and chromium for the
#                            headless-browser checks of tests/integration/publish.sh
#                            (each skipped without them)
#   scripts/deps.sh test     `make test`'s set-up: as root `install` (a fresh
#                            machine gets what every test and README example
#                            uses), otherwise `check` (what cannot be had is
#                            named, and those tests count as skipped)
set -u
mode=${1:-check}
if [ "$mode" = test ]; then
    if [ "$(id -u)" -eq 0 ]; then mode=install; else mode=check; fi
fi
cc=${CC:-cc}
missing=()

optional=()
compiles() { printf '#include <%s>\nint main(void){return 0;}\n' "$1" | $cc -x c - -o /dev/null "${@:2}" >/dev/null 2>&1; }
need() { missing+=("$1"); }

command -v "$cc" >/dev/null 2>&1 || need gcc
command -v make >/dev/null 2>&1 || need make
compiles sqlite3.h -lsqlite3 || need libsqlite3-dev
# zlib: `harness tune --replay` reads gzipped landscapes (Kernel Tuner's .json.gz).
compiles zlib.h -lz || need zlib1g-dev
compiles CL/cl.h -DCL_TARGET_OPENCL_VERSION=120 || need opencl-headers
if [ "$mode" != build ]; then
    ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' || need ocl-icd-libopencl1
fi
# The main job runs every backend it can: with no OpenCL implementation
# registered at all (a fresh machine), PoCL gives it one on the CPU; a
# machine with a vendor's (the GPU host) needs none. Its picture needs
# gnuplot, wanted but optional: without it the job says so and goes on.
if [ "$mode" = run ]; then
    ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need pocl-opencl-icd
    command -v gnuplot >/dev/null 2>&1 || optional+=(gnuplot-nox)
fi
if [ "$mode" = check ] || [ "$mode" = install ]; then
    command -v sqlite3 >/dev/null 2>&1 || need sqlite3
    command -v gnuplot >/dev/null 2>&1 || need gnuplot-nox
    ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 || need pocl-opencl-icd
    command -v git >/dev/null 2>&1 || need git
fi
# The fuzz tests (tests/fuzz.sh) need clang and its libFuzzer runtime, which
# Debian ships apart (libclang-rt-dev, which pulls libclang-rt-14-dev on
# Debian 12: clang only recommends it, and installs here skip
# recommendations). Without them those tests are skipped, so only `install`
# (CI's .ci/run, make deps) asks for them.
if [ "$mode" = install ] && ! bash "$(dirname "$0")/can_sanitize.sh" fuzz >/dev/null; then
    command -v clang >/dev/null 2>&1 || need clang
    need libclang-rt-dev
fi
# The Slurm test skips itself without Slurm, and the Python host's
# (tests/integration/python_host.sh, variant final-python) without a Python
# that imports pyopencl and numpy, so their packages are optional: failing
# to install them must not fail the install.
if [ "$mode" = install ]; then
    has_pyopencl() { "$1" -c 'import numpy, pyopencl' >/dev/null 2>&1; }
    has_pyopencl python3 || has_pyopencl /usr/bin/python3 || optional+=(python3-pyopencl python3-numpy)
    command -v munged >/dev/null 2>&1 || optional+=(munge)
    command -v slurmctld >/dev/null 2>&1 || optional+=(slurmctld)
    command -v slurmd >/dev/null 2>&1 || optional+=(slurmd)
    command -v sbatch >/dev/null 2>&1 || optional+=(slurm-client)
    # `harness publish`'s site is opened in a real headless browser by its test.
    command -v chromium >/dev/null 2>&1 || optional+=(chromium)
fi

# The directive backends (openacc, omp-target) need GCC 12's nvptx offloading
# compiler; without it they list no devices and tests/integration/offload.sh
# skips, so it is optional too. Probed by an offloaded build, not by name.
if [ "$mode" = install ]; then
    printf 'int main(void){int x=0;\n#pragma acc parallel copy(x)\nx=1;\nreturn !x;}\n' |
        gcc-12 -x c - -fopenacc -foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80 -o /dev/null \
            >/dev/null 2>&1 || optional+=(gcc-12-offload-nvptx libgomp-plugin-nvptx1)
fi

# OpenMP (target) built by clang, the compiler knob cc=clang (issue 37):
# LLVM 19's clang and its runtime with libomptarget; without them
# tests/integration/omp_clang.sh skips. Probed by what works.
if [ "$mode" = install ]; then
    ls /usr/lib/llvm-1[6-9]/lib/libomptarget.so /usr/lib/llvm-2[0-9]/lib/libomptarget.so 2>/dev/null | grep -q . ||
        optional+=(clang-19 libomp-19-dev)
fi

[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
line="apt-get install -y ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    [ ${#missing[@]} -eq 0 ] && exit 0 # only optional ones: not ours to demand
    echo "missing: ${missing[*]}" >&2
    echo "run as root:  apt-get update && $line" >&2
    exit 1
fi
echo "installing: ${missing[*]} ${optional[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Packages with daemons (munge, slurmd) must not start them here: the tests
# start their own. A policy-rc.d that says "no" for the install only.
rc_policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
    rc_policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$rc_policy" && chmod +x "$rc_policy"
    trap 'rm -f "$rc_policy"' EXIT
fi
apt-get update -qq || { echo "apt-get update failed" >&2; [ ${#missing[@]} -eq 0 ] && exit 0; exit 1; }
if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
        echo "apt-get failed; needed: ${missing[*]}" >&2
        exit 1
    }
fi
if [ ${#optional[@]} -gt 0 ]; then
    apt-get install -y -qq --no-install-recommends "${optional[@]}" >&2 ||
        echo "note: could not install ${optional[*]} (optional: the Slurm, Python-host, offload and browser tests skip, the main job draws no picture)" >&2
fi
exit 0
