/* x <- 0.5 x + 1 per element, and the failures the behaviour knob asks for.
 * selftest.cl and selftest.cu map KERNEL, GLOBAL and GID_X. */
KERNEL map_step(GLOBAL const float *x, GLOBAL float *y, int n) {
    const int i = (int)GID_X;
    if (i >= n) return;
#if defined(K_BEHAVIOUR_CRASH)
    /* A write through a null pointer: the process (or the context) dies. */
    if (i == 0) *(volatile GLOBAL int *)0 = 1;
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
