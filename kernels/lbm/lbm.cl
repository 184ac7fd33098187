/* LBM D2Q9 kernels, OpenCL C. The algorithm is in lbm_gpu.h; this file maps
 * its vocabulary onto OpenCL. */
#define KERNEL __kernel void
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_PARAM(n) , __local float *n
#define LOCAL_DECL(n)
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)
#define LID_X get_local_id(0)
#define LID_Y get_local_id(1)
#define LSIZE_X get_local_size(0)
#define LSIZE_Y get_local_size(1)
#define GROUP_X get_group_id(0)
#define GROUP_Y get_group_id(1)
#define NGROUPS_X get_num_groups(0)
#define NGROUPS_Y get_num_groups(1)
#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define LATTICE_PARAM __global struct lattices *lat
#define LAT(f) (lat->f)
#define LBM_FN static inline
#if defined(K_MATH_FAST)
/* math=fast: besides -cl-fast-relaxed-math, the native (implementation-
 * defined precision) reciprocal and square root, which the option alone
 * leaves to the compiler's choice. */
#define LBM_SQRT native_sqrt
#define LBM_RECIP(x) native_recip(x)
#else
#define LBM_SQRT sqrt
#endif
#if defined(K_TREE_WARP)
/* tree=warp, which the rules allow only on NVIDIA's OpenCL: its compiler
 * takes inline PTX, so the warp sum is the same shuffle as CUDA's (work-items
 * fill warps in linear local-id order, as CUDA threads do). */
LBM_FN float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) {
        float t;
        asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(t) : "f"(v), "r"(o));
        v += t;
    }
    return v;
}
#define WARP_SUM(v) warp_sum(v)
#endif
/* No GRID_SYNC: OpenCL promises no co-residency of work-groups, so a
 * grid-wide barrier could wait forever on a group never scheduled. */
#include "lbm_gpu.h"
#include "lbm_temporal.h"
