/* selftest kernels, OpenCL C (the body is selftest_body.h). */
#define KERNEL __kernel void
#define GLOBAL __global
#define GID_X get_global_id(0)
#include "selftest_body.h"
