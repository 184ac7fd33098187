/* FP32 rate probe for the OpenMP target backend: one loop iteration a work-item,
 * eight independent multiply-add chains each (as flops_body.h); out is a
 * device address. */
#include "omp_kernel.h"

void fma_chain(const struct omp_launch *L, void *const *args) {
    float *out = args[0];
    const int iters = *(int *)args[1];
    const float x = *(float *)args[2], y = *(float *)args[3];
    const long items = (long)L->global[0];
#pragma omp target teams distribute parallel for simd thread_limit(8) is_device_ptr(out) /* 8 warps of 32 simd lanes (GCC nvptx) */
    for (long gid = 0; gid < items; gid++) {
        float a0 = (float)gid * 1e-7f, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
        float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
        for (int i = 0; i < iters; i++) {
            a0 = a0 * x + y; a1 = a1 * x + y; a2 = a2 * x + y; a3 = a3 * x + y;
            a4 = a4 * x + y; a5 = a5 * x + y; a6 = a6 * x + y; a7 = a7 * x + y;
        }
        out[gid] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    }
}
