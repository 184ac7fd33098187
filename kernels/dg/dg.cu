/* DG kernels, CUDA C++ (built at run time by NVRTC). The algorithm is in
 * dg_cell.h, the kernels in dg_gpu.h; this file maps their vocabulary. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define DG_FN static __device__ inline
#define DG_RESTRICT_KW __restrict__
#define DG_UNROLL_ON _Pragma("unroll")
#define DG_UNROLL_OFF _Pragma("unroll 1")
#include "dg_gpu.h"
