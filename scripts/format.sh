#!/usr/bin/env bash
# Formats the C the style covers (.clang-format): harness/, tests/unit/, fuzz/ and the
# apps' host code; not the device sources (nor offload/offload_rt.c) nor the peak probes. --check lists
# the files that differ and exits 1 if any do.
set -eu
cd "$(dirname "$0")/.."
# The C kernel sources the backends compile at run time: each backend's source_suffix that names a .c file.
runtime=()
for s in $(sed -n 's/.*\.source_suffix = "\([^"]*\.c\)".*/\1/p' harness/backend/*.c | sort -u); do runtime+=(-not -name "*$s"); done
files=$(find harness tests/unit kernels fuzz -name '*.[ch]' -not -path 'harness/backend/peak/*' -not -path 'harness/backend/offload/*' "${runtime[@]}" \
        -not -name 'lbm_*.h' -not -name 'stencil_*.h' -not -name '*_body.h' | sort)
if [ "${1:-}" = --check ]; then
    bad=0
    for f in $files; do clang-format --style=file "$f" | cmp -s - "$f" || { echo "$f"; bad=1; }; done
    exit $bad
fi
clang-format -i --style=file $files
