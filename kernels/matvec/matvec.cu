/* Mat-vec kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in matvec_gpu.h; this file maps its vocabulary onto CUDA. atomicAdd on
 * double needs sm_60 or later (every GPU the harness targets). */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define ATOMIC_ADD(p, v) atomicAdd((p), (v))
#include "matvec_gpu.h"
