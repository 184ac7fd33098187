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
#define LDG(p) __ldg(p)
#if defined(K_OVERLAP_PDL)
/* overlap=pdl: this launch may start while the previous step's kernel is
 * still finishing (programmatic dependent launch); nothing is read before
 * that kernel is complete and its writes visible. */
#define DEPENDENCY_WAIT asm volatile("griddepcontrol.wait;" ::: "memory")
#define DEPENDENTS_LAUNCH asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#elif defined(K_OVERLAP_PDL_EARLY)
/* overlap=pdl-early: as pdl, but each block lets the next launch be
 * scheduled as soon as its own wait returns, not when it ends: the next
 * grid's blocks are resident and waiting (griddepcontrol.wait still holds
 * them until this grid has completed and its writes are visible) when this
 * one finishes, so the launch's latency leaves the chain of steps. Waiting
 * first keeps it to one grid ahead: the next grid's blocks trigger the one
 * after only when this grid is done. */
#define DEPENDENCY_WAIT                                                                      \
    asm volatile("griddepcontrol.wait;" ::: "memory");                                       \
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#define DEPENDENTS_LAUNCH
#endif

/* The sum of v over the 32 lanes of a whole warp, in lane 0 (tree=warp). */
static __device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
#define WARP_SUM(v) warp_sum(v)

/* A grid-wide barrier, for a cooperative launch only (every block resident,
 * so a block that waits is never waiting on one that cannot start).
 * bar[0] counts arrivals, bar[1] is the generation: each block's thread 0
 * reads the generation and arrives with a release (its block's writes go
 * first, ordered by the __syncthreads before); the last to arrive (an
 * acquire too: it sees every block's writes) resets the count and moves
 * the generation on with a release; the others wait for that with acquire
 * loads. Release/acquire at GPU scope instead of two full fences
 * (__threadfence) per block: the barrier is the step's fixed cost. */
static __device__ __forceinline__ unsigned bar_arrive(volatile unsigned *p) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
    return old;
}
static __device__ __forceinline__ unsigned bar_load(volatile unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void grid_sync(volatile unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const unsigned gen = bar_load(&bar[1]);
        if (bar_arrive(&bar[0]) == gridDim.x * gridDim.y - 1) {
            bar[0] = 0;
            bar_arrive(&bar[1]); /* a release: the reset is seen before the new generation */
        } else {
            while (bar_load(&bar[1]) == gen) {
            }
        }
    }
    __syncthreads();
}
#define GRID_SYNC(bar) grid_sync(bar)

#if defined(K_PERSISTENT_CLUSTER) || defined(K_HALO_CLUSTER)
/* Thread-block clusters (sm_90): this block's rank and the cluster's size,
 * another block's copy of a shared-memory address (distributed shared
 * memory, read with ordinary loads through the generic address), and the
 * cluster barrier, a release on arrival and an acquire on the wait so the
 * bands written before it are seen after it. */
static __device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned cluster_size() {
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}
static __device__ __forceinline__ const float *cluster_map(const float *p, unsigned rank) {
    const float *q;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "r"(rank));
    return q;
}
static __device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
#endif
#include "lbm_gpu.h"
#include "lbm_cluster.h"
#include "lbm_temporal.h"
