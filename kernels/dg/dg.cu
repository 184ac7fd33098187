/* DG kernels, CUDA C++ (built at run time by NVRTC). The algorithm is in
 * dg_cell.h, the kernels in dg_gpu.h; this file maps their vocabulary. The
 * tiled form's work-group memory is dynamic shared memory (its size set by
 * the launch), so it is not a parameter. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define LOCAL
#define LOCAL_PARAM(n)
#define LOCAL_DECL(n) extern __shared__ double n[];
#define LID_X threadIdx.x
#define LID_Y threadIdx.y
#define LSIZE_X blockDim.x
#define LSIZE_Y blockDim.y
#define GROUP_X blockIdx.x
#define GROUP_Y blockIdx.y
#define BARRIER __syncthreads()
#define DG_FN static __device__ inline
#define DG_RESTRICT_KW __restrict__
#define DG_UNROLL_ON _Pragma("unroll")
#define DG_UNROLL_OFF _Pragma("unroll 1")
#include "dg_gpu.h"
