/* FP32 rate probe for the OpenMP backend: each tile of work-items runs the
 * eight multiply-add chains of flops_body.h side by side, so the compiler
 * can put the items in SIMD lanes. */
#include "omp_kernel.h"

#define LANES 64

void fma_chain(const struct omp_launch *L, void *const *args) {
    float *out = args[0];
    const int iters = *(int *)args[1];
    const float x = *(float *)args[2], y = *(float *)args[3];
    const long items = (long)L->global[0];
#pragma omp parallel for schedule(static)
    for (long base = 0; base < items; base += LANES) {
        float a[8][LANES];
        for (int c = 0; c < 8; c++)
            for (int j = 0; j < LANES; j++) a[c][j] = (float)(base + j) * 1e-7f + (float)c;
        for (int i = 0; i < iters; i++)
            for (int c = 0; c < 8; c++)
#pragma omp simd
                for (int j = 0; j < LANES; j++) a[c][j] = a[c][j] * x + y;
        for (int j = 0; j < LANES && base + j < items; j++) {
            float s = 0.0f;
            for (int c = 0; c < 8; c++) s += a[c][j];
            out[base + j] = s;
        }
    }
}
