/* DG kernels, OpenCL C (doubles: cl_khr_fp64). The algorithm is in
 * dg_cell.h, the kernels in dg_gpu.h; this file maps their vocabulary. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define KERNEL __kernel void
#define GLOBAL __global
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)
#define DG_FN static inline
#define DG_RESTRICT_KW restrict
#define DG_UNROLL_ON _Pragma("unroll")
#define DG_UNROLL_OFF _Pragma("unroll 1")
#include "dg_gpu.h"
