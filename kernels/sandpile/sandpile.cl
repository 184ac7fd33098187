/* Sandpile kernels, OpenCL C. The algorithm is in sandpile_gpu.h; this file
 * maps its vocabulary onto OpenCL. OpenCL 1.2 has no work-group vote
 * (work_group_any is optional in 3.0 and NVIDIA's driver lacks it), so the
 * one-step kernel's group flag is one int of local memory: cleared by item
 * 0, set by any unstable item, read after a barrier (it is called once per
 * launch, so nothing reads it before the clear). The tiled kernel's group
 * maximum is atomic_max on local memory (OpenCL 1.1). */
#define KERNEL __kernel void
#define GLOBAL __global
#define RESTRICT restrict /* in and out are the two grids of a ping-pong: never the same */
#define LOCAL __local
#define LOCAL_PARAM(n) , __local unsigned *n
#define LOCAL_DECL(n)
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)
#define LID_X get_local_id(0)
#define LID_Y get_local_id(1)
#define LSIZE_X get_local_size(0)
#define LSIZE_Y get_local_size(1)
#define GROUP_X get_group_id(0)
#define GROUP_Y get_group_id(1)
#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)

int group_any(int p, __local volatile unsigned *slot) {
    const int first = get_local_id(0) == 0 && get_local_id(1) == 0;
    if (first) *slot = 0u;
    BARRIER;
    if (p) *slot = 1u;
    BARRIER;
    return *slot != 0u;
}
#define GROUP_ANY(p, slot) group_any((p), (slot))
#define LOCAL_MAX(p, v) atomic_max((__local volatile int *)(p), (v))
#include "sandpile_gpu.h"
