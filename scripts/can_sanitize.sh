#!/usr/bin/env bash
# Whether this machine can build what `make test-sanitize` and the fuzz
# tests need, checked by building a tiny program (what works, not package
# names, as scripts/deps.sh does). Exit 0, or 1 with the reason on stdout:
#   scripts/can_sanitize.sh asan   $SAN_CC (default $CC, cc) with ASan and UBSan
#   scripts/can_sanitize.sh fuzz   $FUZZ_CC (default clang) with libFuzzer, ASan, UBSan
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "${1:-}" in
asan)
    cc=${SAN_CC:-${CC:-cc}}
    printf 'int main(void){return 0;}\n' >"$tmp/p.c"
    command -v "$cc" >/dev/null 2>&1 || { echo "no $cc"; exit 1; }
    "$cc" -fsanitize=address,undefined "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1 && "$tmp/p" ||
        { echo "$cc cannot build with -fsanitize=address,undefined (its libasan/libubsan are missing)"; exit 1; }
    ;;
fuzz)
    cc=${FUZZ_CC:-clang}
    printf '#include <stddef.h>\nint LLVMFuzzerTestOneInput(const unsigned char *d, size_t n){(void)d;(void)n;return 0;}\n' >"$tmp/p.c"
    command -v "$cc" >/dev/null 2>&1 || { echo "no $cc (Debian: apt-get install clang libclang-rt-dev)"; exit 1; }
    "$cc" -fsanitize=fuzzer,address,undefined "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1 && "$tmp/p" -runs=1 >/dev/null 2>&1 ||
        { echo "$cc has no libFuzzer runtime (Debian: apt-get install libclang-rt-dev)"; exit 1; }
    ;;
*) echo "usage: $0 asan|fuzz" >&2; exit 2 ;;
esac
