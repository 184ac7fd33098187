/* FP32 rate probe, CUDA (the body is flops_body.h). */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#include "flops_body.h"
