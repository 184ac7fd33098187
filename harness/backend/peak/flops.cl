/* FP32 rate probe, OpenCL C (the body is flops_body.h). */
#define KERNEL __kernel void
#define GLOBAL __global
#define GID_X get_global_id(0)
#include "flops_body.h"
