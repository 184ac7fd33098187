/* The FP32 ceiling probe used by `harness peak`: every work-item runs eight
 * independent chains of multiply-adds (a = a * x + y), enough independent
 * work to keep the FMA pipes full. flops.cl and flops.cu map the words. */
KERNEL fma_chain(GLOBAL float *out, int iters, float x, float y) {
    const int gid = (int)GID_X;
    float a0 = gid * 1e-7f, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
    float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
    for (int i = 0; i < iters; i++) {
        a0 = a0 * x + y; a1 = a1 * x + y; a2 = a2 * x + y; a3 = a3 * x + y;
        a4 = a4 * x + y; a5 = a5 * x + y; a6 = a6 * x + y; a7 = a7 * x + y;
    }
    /* Stored so the compiler cannot drop the work. */
    out[gid] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
