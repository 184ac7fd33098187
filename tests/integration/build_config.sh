#!/usr/bin/env bash
# Issue 34, item 4: the build follows its configuration. An object built
# without the OpenCL headers (HAVE_CL empty, as on a machine that lacks
# them) is rebuilt with them once they are found, and a second make with
# nothing changed compiles nothing. In a scratch copy of the tree (one
# object, so the suite's own build is never touched).
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir build_config
if ! printf '#include <CL/cl.h>\n' | cc -E -x c - >/dev/null 2>&1; then
    echo "ok - the build follows its configuration # skip no OpenCL headers here to find"
    exit 0
fi
cp -r Makefile harness kernels "$T/"
obj=build/obj/harness/backend/backend_opencl.o
(cd "$T" && make --no-print-directory "$obj" HAVE_CL= GIT_COMMIT=test GIT_DIRTY=0) >"$T/without.out" 2>&1
check "built once without the OpenCL headers (no -DHAVE_OPENCL_HEADERS)" \
    bash -c "[ -f '$T/$obj' ] && ! grep -q 'HAVE_OPENCL_HEADERS' '$T/without.out'"
(cd "$T" && make --no-print-directory "$obj" GIT_COMMIT=test GIT_DIRTY=0) >"$T/with.out" 2>&1
check "with the headers found, make rebuilds it with them" grep -q -- "-DHAVE_OPENCL_HEADERS .*-o $obj" "$T/with.out"
(cd "$T" && make --no-print-directory "$obj" GIT_COMMIT=test GIT_DIRTY=0) >"$T/again.out" 2>&1
check "nothing changed: nothing is compiled again" bash -c "! grep -q -- '-o $obj' '$T/again.out'"
exit $fails
