/* selftest kernels, CUDA (the body is selftest_body.h). */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#include "selftest_body.h"
