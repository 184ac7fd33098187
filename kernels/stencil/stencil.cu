/* Stencil kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in stencil_gpu.h; this file maps its vocabulary onto CUDA. Work-group
 * scratch is dynamic shared memory, so it is not a parameter. The update
 * uses __fmul_rn/__fadd_rn (stencil_point.h), which are never contracted. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define LOCAL
#define LOCAL_PARAM(n)
#define LOCAL_DECL(n) extern __shared__ float n[];
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define GSIZE_X (gridDim.x * blockDim.x)
#define LID_X threadIdx.x
#define LID_Y threadIdx.y
#define LSIZE_X blockDim.x
#define LSIZE_Y blockDim.y
#define GROUP_X blockIdx.x
#define GROUP_Y blockIdx.y
#define NGROUPS_X gridDim.x
#define BARRIER __syncthreads()
#define RESTRICT __restrict__
#define ATOMIC_MIN(p, v) atomicMin((p), (v))
#define ATOMIC_MAX(p, v) atomicMax((p), (v))
#define WARP_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#include "stencil_gpu.h"
