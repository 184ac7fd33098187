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
#define NUM_GROUPS gridDim.x

/* launch=resident's grid-wide barrier (every block is resident: the
 * cooperative launch promises it). bar[0] counts arrivals, bar[1] is the
 * generation: the last block to arrive resets the count and moves the
 * generation on, the others wait for it to move. Arrival is a release and
 * the wait an acquire at GPU scope, so every write made before the barrier
 * (grid cells, flags) is seen after it; the block's other threads are
 * ordered behind thread 0 by __syncthreads. */
static __device__ __forceinline__ unsigned sp_arrive(unsigned *p) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
    return old;
}
static __device__ __forceinline__ unsigned sp_generation(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ void sp_grid_sync(unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const unsigned gen = sp_generation(bar + 1);
        if (sp_arrive(bar) == gridDim.x - 1) {
            *(volatile unsigned *)bar = 0;
            sp_arrive(bar + 1);
        } else {
            while (sp_generation(bar + 1) == gen) {
            }
        }
    }
    __syncthreads();
}
#define GRID_SYNC(bar) sp_grid_sync(bar)
#include "sandpile_gpu.h"
