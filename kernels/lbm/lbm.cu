/* LBM D2Q9 kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in lbm_gpu.h; this file maps its vocabulary onto CUDA. Work-group scratch
 * is dynamic shared memory, so it is not a parameter. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define LOCAL
#define LOCAL_PARAM(n)
#define LOCAL_DECL(n) extern __shared__ float n[];
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define LID_X threadIdx.x
#define LID_Y threadIdx.y
#define LSIZE_X blockDim.x
#define LSIZE_Y blockDim.y
#define GROUP_X blockIdx.x
#define GROUP_Y blockIdx.y
#define NGROUPS_X gridDim.x
#define NGROUPS_Y gridDim.y
#define BARRIER __syncthreads()
#define LATTICE_PARAM struct lattices lat
#define LAT(f) (lat.f)
#define LBM_FN static __device__ __forceinline__
#define LBM_SQRT sqrtf
typedef unsigned char uchar;

/* A grid-wide barrier, for a cooperative launch only (every block resident,
 * so a block that waits is never waiting on one that cannot start).
 * bar[0] counts arrivals, bar[1] is the generation: each block's thread 0
 * reads the generation, publishes its writes (fence) and arrives; the last
 * resets the count and moves the generation on, which releases the rest. */
static __device__ __forceinline__ void grid_sync(volatile unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const unsigned gen = bar[1];
        __threadfence();
        if (atomicAdd((unsigned *)&bar[0], 1u) == gridDim.x * gridDim.y - 1) {
            bar[0] = 0;
            __threadfence();
            atomicAdd((unsigned *)&bar[1], 1u);
        } else {
            while (bar[1] == gen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}
#define GRID_SYNC(bar) grid_sync(bar)
#include "lbm_gpu.h"
