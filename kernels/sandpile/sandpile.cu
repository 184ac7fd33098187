/* Sandpile kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in sandpile_gpu.h; this file maps its vocabulary onto CUDA. Local memory
 * is dynamic shared memory, so it is not a parameter; the group's flag is
 * __syncthreads_or, one barrier, so its slot goes unused. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define RESTRICT __restrict__ /* in and out are never the same grid: read-only loads */
#define LOCAL
#define LOCAL_PARAM(n)
#define LOCAL_DECL(n) extern __shared__ unsigned n[];
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define LID_X threadIdx.x
#define LID_Y threadIdx.y
#define LSIZE_X blockDim.x
#define LSIZE_Y blockDim.y
#define GROUP_X blockIdx.x
#define GROUP_Y blockIdx.y
#define BARRIER __syncthreads()
#define GROUP_ANY(p, slot) __syncthreads_or(p)
#define LOCAL_MAX(p, v) atomicMax((p), (v))
#include "sandpile_gpu.h"
