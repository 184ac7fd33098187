/* DG kernels, OpenCL C (doubles: cl_khr_fp64). The algorithm is in
 * dg_cell.h, the kernels in dg_gpu.h; this file maps their vocabulary. The
 * tiled form's work-group memory is a __local parameter (its size set by
 * the launch). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define KERNEL __kernel void
#define GLOBAL __global
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)
#define LOCAL __local
#define LOCAL_PARAM(n) , __local double *n
#define LOCAL_DECL(n)
#define LID_X get_local_id(0)
#define LID_Y get_local_id(1)
#define LSIZE_X get_local_size(0)
#define LSIZE_Y get_local_size(1)
#define GROUP_X get_group_id(0)
#define GROUP_Y get_group_id(1)
#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define DG_FN static inline
#define DG_RESTRICT_KW restrict
#define DG_UNROLL_ON _Pragma("unroll")
#define DG_UNROLL_OFF _Pragma("unroll 1")
#include "dg_gpu.h"
