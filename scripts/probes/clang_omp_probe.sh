#!/usr/bin/env bash
# Builds omp_target_matvec_probe.c with LLVM's OpenMP offloading instead of
# GCC's, to see whether the OpenMP-target mat-vec's distance from CUDA is the
# compiler's (issue 19: GCC 12, 74x). Run here (Debian 12); the result runs on
# the GPU host. A probe, not part of the harness:
#   - Debian 12's clang 14 (apt: clang-14 libomp-14-dev) knows no sm_90, so it
#     compiles the device code for sm_80 and a made-up CUDA folder (real one's
#     headers and libdevice by symlink) runs the real ptxas and nvlink for
#     sm_90 instead (sm_80 PTX compiles for sm_90); libomptarget's CUDA
#     plugin takes only an ELF cubin, so the PTX cannot simply be embedded
#     for the driver to compile.
#   - The GPU host has no LLVM: OUT/llvmrt.tar.xz bundles the probe with
#     libomp, libomptarget, its CUDA plugin and their libraries (libLLVM-14
#     among them; about 38 MB). On the host:
#       mkdir /tmp/r && tar -xJf llvmrt.tar.xz -C /tmp/r &&
#       OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=/tmp/r/lib /tmp/r/clang_probe
# Usage: OUT=DIR bash scripts/probes/clang_omp_probe.sh
set -eu
: "${OUT:?set OUT}"
cuda=${CUDA_HOME:-/usr/local/cuda}
fake=$OUT/fakecuda
mkdir -p "$fake/bin" "$OUT/llvmrt/lib"
for e in "$cuda"/*; do [ "$(basename "$e")" = bin ] || ln -sfn "$e" "$fake/$(basename "$e")"; done
cat >"$fake/bin/ptxas" <<EOF
#!/bin/bash
args=(); while [ \$# -gt 0 ]; do case "\$1" in --gpu-name) args+=(--gpu-name sm_90); shift 2;; *) args+=("\$1"); shift;; esac; done
exec "$cuda/bin/ptxas" "\${args[@]}"
EOF
cat >"$fake/bin/nvlink" <<EOF
#!/bin/bash
args=(); while [ \$# -gt 0 ]; do case "\$1" in -arch) args+=(-arch sm_90); shift 2;; *) args+=("\$1"); shift;; esac; done
exec "$cuda/bin/nvlink" "\${args[@]}"
EOF
chmod +x "$fake/bin/ptxas" "$fake/bin/nvlink"
clang-14 -O3 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target -march=sm_80 --cuda-path="$fake" \
    -Wno-unknown-cuda-version -Wno-pass-failed -o "$OUT/llvmrt/clang_probe" \
    "$(dirname "$0")/omp_target_matvec_probe.c" -lm
lib=/usr/lib/llvm-14/lib
cp -L "$lib/libomptarget.so" "$lib/libomptarget.rtl.cuda.so" "$lib/libomp.so.5" "$OUT/llvmrt/lib/"
ldd "$lib/libomptarget.rtl.cuda.so" "$lib/libomptarget.so" "$OUT/llvmrt/clang_probe" | awk '/=>/{print $3}' | sort -u |
    grep -vE 'lib(c|m|stdc\+\+|gcc_s|omp|dl|pthread|rt)\.so|ld-linux' | xargs -r -I{} cp -L {} "$OUT/llvmrt/lib/"
tar -cJf "$OUT/llvmrt.tar.xz" -C "$OUT/llvmrt" lib clang_probe
ls -la "$OUT/llvmrt.tar.xz"
