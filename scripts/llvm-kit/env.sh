# The kit on the GPU host (scripts/llvm_kit.sh built it). Source with bash:
#     KIT=/path/llvm-kit.tar.xz source <kit>/env.sh   (or from the unpacked folder)
# Unpacks into /tmp/llvm-kit when given the tarball; exports HARNESS_CLANG,
# the compiler the harness probes first (backend/compilers.c), and
# LLVM_OMP_CUDA, a CUDA folder whose ptxas and nvlink are the kit's.
_k=/tmp/llvm-kit
if [ -n "${KIT:-}" ] && [ ! -x $_k/bin/clang ]; then tar -xJf "$KIT" -C /tmp; fi
# libomptarget's CUDA plugin opens "libcuda.so", which driver images may
# have only as libcuda.so.1: a link beside it, found through its $ORIGIN.
for _c in /usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1; do
    [ -e $_c ] && { ln -sf $_c $_k/lib/libcuda.so; break; }
done
mkdir -p $_k/cuda/bin
for _e in /usr/local/cuda/*; do [ "$(basename $_e)" = bin ] || ln -sfn $_e $_k/cuda/; done
cp $_k/ptxas $_k/nvlink $_k/cuda/bin/
export HARNESS_CLANG=$_k/bin/clang LLVM_OMP_CUDA=$_k/cuda
echo "llvm-kit: $($HARNESS_CLANG --version | head -1)"
unset _k _c _e
