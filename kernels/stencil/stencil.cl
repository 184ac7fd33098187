/* Stencil kernels, OpenCL C. The algorithm is in stencil_gpu.h; this file
 * maps its vocabulary onto OpenCL. stencil_point.h turns FP_CONTRACT off. */
#define KERNEL __kernel void
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_PARAM(n) , __local float *n
#define LOCAL_DECL(n)
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)
#define GSIZE_X get_global_size(0)
#define LID_X get_local_id(0)
#define LID_Y get_local_id(1)
#define LSIZE_X get_local_size(0)
#define LSIZE_Y get_local_size(1)
#define GROUP_X get_group_id(0)
#define GROUP_Y get_group_id(1)
#define NGROUPS_X get_num_groups(0)
#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define RESTRICT restrict
/* OpenCL 1.1's 32-bit atomic_min/atomic_max take global and local words alike. */
#define ATOMIC_MIN(p, v) atomic_min((p), (v))
#define ATOMIC_MAX(p, v) atomic_max((p), (v))
#if defined(K_REDUCE_WARP)
/* reduce=warp, which the rules allow only on NVIDIA's OpenCL: its compiler
 * takes inline PTX, so the shuffle is CUDA's (work-items fill warps in
 * linear local-id order, as CUDA threads do). */
static inline float warp_xor(float v, int mask) {
    float t;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(t) : "f"(v), "r"(mask));
    return t;
}
#define WARP_XOR(v, m) warp_xor((v), (m))
#endif
#include "stencil_gpu.h"
