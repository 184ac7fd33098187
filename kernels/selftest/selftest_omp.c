/* selftest kernels for the OpenMP backend (see selftest_body.h). */
#include "omp_kernel.h"

void map_step(const struct omp_launch *L, void *const *args) {
    const float *x = args[0];
    float *y = args[1];
    const int n = *(int *)args[2];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < (int)L->global[0]; i++) {
        if (i >= n) continue;
#if defined(K_BEHAVIOUR_CRASH)
        if (i == 0) *(volatile int *)0 = 1;
#endif
#if defined(K_BEHAVIOUR_HANG)
        volatile int spin = 1;
        while (spin) {}
#endif
#if defined(K_BEHAVIOUR_WRONG)
        y[i] = 0.5f * x[i] + 1.1f;
#else
        y[i] = 0.5f * x[i] + 1.0f;
#endif
    }
}
