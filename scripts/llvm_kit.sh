#!/usr/bin/env bash
# Packs LLVM's OpenMP offloading compiler for the GPU host, from this Debian
# machine's packages (issue 37): the GPU host has no network and an image
# without clang, and the harness compiles its kernels there at run time, so
# the compiler travels with its runtime.
#
#   scripts/llvm_kit.sh OUT.tar.xz      (root; apt and PyPI reachable)
#   on the host:  source <(tar -xJOf OUT.tar.xz llvm-kit/env.sh)   # or KIT=OUT.tar.xz source .../env.sh
#
# One lib/ folder holds every library, so each object finds the next by its
# own $ORIGIN run path (clang's is $ORIGIN/../lib, libomptarget's $ORIGIN):
# the harness then needs no LD_LIBRARY_PATH, it links each kernel with a run
# path to this lib/ (backend/compilers.c). What keeps it under the 64 MiB a
# device call carries (about 49 MB):
# - libz3 (23 MB, which libLLVM links for the static analyser, never used
#   when compiling) is replaced by a stub whose functions abort;
# - ICU and libxml2 are not packed: the host image has them;
# - CUDA 12.6's ptxas (the wheel nvidia-cuda-nvcc-cu12) is the one large
#   extra. It is why the kit works at all: CUDA 13's ptxas writes cubins with
#   ELF ABI version 8, which LLVM 19's CUDA plugin misreads ("No images found
#   compatible with the installed hardware"); 12.6's writes version 7. The
#   two shims (../shared/gpu-host/llvm/ptxas, nvlink, or ours in
#   scripts/llvm-kit/) run it, once relocatable for clang-nvlink-wrapper and
#   once whole for the executable image, which needs -foffload-lto.
set -eu
out=${1:?usage: scripts/llvm_kit.sh OUT.tar.xz}
case $out in /*) ;; *) out=$PWD/$out ;; esac
here=$(cd "$(dirname "$0")" && pwd)
V=19
L=/usr/lib/llvm-$V
step() { echo "llvm-kit: $*" >&2; }
if [ ! -x $L/bin/clang ] || [ ! -f $L/lib/libomptarget-nvptx-sm_90.bc ]; then
    step "installing clang-$V clang-tools-$V libomp-$V-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang-$V clang-tools-$V \
        libomp-$V-dev >/dev/null
fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
K=$w/llvm-kit
mkdir -p $K/bin $K/lib/clang/$V $K/cuda-bin
step "copying the compiler and its runtime"
for b in clang clang-linker-wrapper clang-nvlink-wrapper clang-offload-packager; do cp -L $L/bin/$b $K/bin/; done
ln -s clang $K/bin/clang-$V
# libLLVM and libclang-cpp are where clang's loader finds them (Debian: the
# multiarch folder); the OpenMP runtime is in LLVM's own lib/.
llvm_so=$(ldd $L/bin/clang | awk '/libLLVM/ {print $3}')
cp -L "$llvm_so" $(ldd $L/bin/clang | awk '/libclang-cpp/ {print $3}') $K/lib/
for f in libomp.so.5 libomptarget.so.$V.1 libomptarget.devicertl.a; do cp -L $L/lib/$f $K/lib/; done
# Device runtimes for the data-centre GPUs the host may have (A100, H100/H200).
cp -L $L/lib/libomptarget-nvptx-sm_80.bc $L/lib/libomptarget-nvptx-sm_90.bc $K/lib/
ln -s libomptarget.so.$V.1 $K/lib/libomptarget.so
ln -s libomp.so.5 $K/lib/libomp.so
cp -rL $L/lib/clang/$V/include $K/lib/clang/$V/
# What libLLVM and clang need beyond a stock Ubuntu/Debian image (libc,
# libstdc++, ICU, libxml2), found by ldd, into the same lib/.
(ldd $L/bin/clang; ldd "$llvm_so") | awk '/=>/ {print $3}' | sort -u |
    grep -vE '/lib(c|m|stdc\+\+|gcc_s|dl|pthread|rt|xml2|icuuc|icudata|icui18n|z3|LLVM|clang-cpp)\.so|ld-linux' |
    while read -r lib; do cp -L "$lib" $K/lib/; done
step "stubbing libz3 ($(nm -D --undefined-only "$llvm_so" | grep -c ' Z3_') functions)"
{
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo 'static void z3_absent(const char *f) { fprintf(stderr, "llvm-kit: %s called; the kit has no Z3\n", f); abort(); }'
    nm -D --undefined-only "$llvm_so" | awk '/ Z3_/ {print "void " $2 "(void) { z3_absent(\"" $2 "\"); }"}'
} >$w/z3stub.c
cc -shared -fPIC -O1 -Wl,-soname,libz3.so.4 -o $K/lib/libz3.so.4 $w/z3stub.c
step "CUDA 12.6's ptxas (PyPI: nvidia-cuda-nvcc-cu12==12.6.85)"
pip download -q --no-deps -d $w/whl "nvidia-cuda-nvcc-cu12==12.6.85"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("nvidia/cuda_nvcc/bin/ptxas", sys.argv[2])' \
    $w/whl/*.whl $w/nvcc
cp $w/nvcc/nvidia/cuda_nvcc/bin/ptxas $K/cuda-bin/ptxas-12.6
cp $here/llvm-kit/ptxas $here/llvm-kit/nvlink $here/llvm-kit/env.sh $K/
chmod +x $K/cuda-bin/ptxas-12.6 $K/ptxas $K/nvlink
strip --strip-unneeded $K/bin/* $K/lib/*.so* 2>/dev/null || true
step "checking the packed compiler runs on its own lib/"
$K/bin/clang --version | head -1 >&2
step "packing $out"
tar -C $w -cf - llvm-kit | xz -9e -T2 >"$out"
ls -la "$out" >&2
