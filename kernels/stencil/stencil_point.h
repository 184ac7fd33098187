/* The arithmetic of the stencil app, shared word for word by the serial
 * reference (reference.c), the host's range (schedule.c), the OpenMP kernels
 * (stencil_omp.c) and the GPU kernels (stencil_gpu.h, through stencil.cl and
 * stencil.cu), so that every backend performs the same float operations in
 * the same order.
 *
 * The update of an interior point (apps.md section 2; the slides' kernel):
 *     out = (((0.1f*N + 0.2f*W) + 0.2f*S) + 0.1f*E) + 0.4f*C
 * with N = in[y-1][x], W = in[y][x-1], S = in[y+1][x], E = in[y][x+1],
 * C = in[y][x]. Single precision throughout, float constants (the slides'
 * C code writes double literals, which a GPU without fp64 reads as float;
 * we choose float everywhere so that host and device agree).
 *
 * Why every backend gets the same bits: five products and four sums, each
 * an IEEE-754 binary32 operation rounded to nearest, in a fixed order. Such
 * an operation has exactly one correct result, so the only ways two
 * implementations can differ are (1) contraction of a*b + c into one fused
 * multiply-add (one rounding instead of two), (2) reassociation, (3) excess
 * precision, (4) flushing subnormals. We exclude each:
 *   (1) CUDA: __fmul_rn / __fadd_rn, which NVCC and NVRTC never contract
 *       (the build also passes --fmad=false). OpenCL: #pragma OPENCL
 *       FP_CONTRACT OFF below. C: every product is its own statement (clang's
 *       default -ffp-contract=on only fuses within one expression), clang also
 *       gets #pragma STDC FP_CONTRACT OFF, GCC compiles -std=c11, whose
 *       default is -ffp-contract=off, and the OpenMP build passes
 *       -ffp-contract=off explicitly (schedule.c).
 *   (2) no backend is built with fast-math or -cl-unsafe-math-optimizations.
 *   (3) x86-64 and every GPU evaluate float in float (FLT_EVAL_METHOD 0).
 *   (4) no backend flushes subnormals as built (NVRTC's default is
 *       -ftz=false, no OpenCL build passes -cl-denorms-are-zero, CPUs keep
 *       them), and none occur: in the serial runs to convergence of 64x64,
 *       256x256, 1024x1024 and 4096x4096 the smallest nonzero |value| ever
 *       computed was 1.5e-8, thirty decades above the subnormal range.
 * The range (below) is a min and a max, which are exact in any order, and
 * one subtraction. So the iteration count, the final range and indeed the
 * final grid are bit-for-bit the serial program's; verify.c checks exact
 * equality, and the tests run every variant on OpenMP and PoCL (whose
 * clang would otherwise contract on an FMA-capable CPU). */
#ifndef STENCIL_POINT_H
#define STENCIL_POINT_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define ST_FN static __device__ __forceinline__
#define ST_MUL(a, b) __fmul_rn((a), (b))
#define ST_ADD(a, b) __fadd_rn((a), (b))
#elif defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#define ST_FN static inline
#define ST_MUL(a, b) ((a) * (b))
#define ST_ADD(a, b) ((a) + (b))
#else
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#define ST_FN static inline
#define ST_MUL(a, b) ((a) * (b))
#define ST_ADD(a, b) ((a) + (b))
#endif

/* The convergence test: the loop runs while range > ST_LIMIT. */
#define ST_LIMIT 100.0f

ST_FN float stencil_point(float n, float w, float s, float e, float c) {
    float acc = ST_MUL(0.1f, n);
    const float pw = ST_MUL(0.2f, w);
    acc = ST_ADD(acc, pw);
    const float ps = ST_MUL(0.2f, s);
    acc = ST_ADD(acc, ps);
    const float pe = ST_MUL(0.1f, e);
    acc = ST_ADD(acc, pe);
    const float pc = ST_MUL(0.4f, c);
    return ST_ADD(acc, pc);
}

/* The slides' find_range step: min and max both start at 0 and take
 *     if (d < min) min = d; else if (d > max) max = d;
 * Written as two selections: the same result for every non-NaN d (if
 * d < min <= 0 <= max then d > max is false), and no branch to diverge on.
 * Combining partial results uses the same selections. */
#define ST_LO(lo, d) ((d) < (lo) ? (d) : (lo))
#define ST_HI(hi, d) ((d) > (hi) ? (d) : (hi))

/* range=atomic keeps an iteration's (min, max) as two unsigned words that
 * every work-group folds its pair into with one atomic min and one atomic
 * max (no partials array, no second kernel). A float maps to a key in the
 * same order: a negative float's bits all flipped, a positive one's sign
 * bit set, so unsigned comparison orders keys as the floats are ordered.
 * The one difference from ST_LO/ST_HI is that -0 sorts below +0; a min or
 * max of 0 may then come back as -0, and hi - lo is the same float either
 * way (x - (-0) = x - 0 = x), so the range, the test and the count are the
 * serial program's. Both words start at the key of +0, as the slides' min
 * and max start at 0: lo <= 0 <= hi throughout, and an untouched pair reads
 * as range 0. */
#define ST_KEY_ZERO 0x80000000u
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define ST_UINT unsigned
#define ST_AS_UINT(f) __float_as_uint(f)
#define ST_AS_FLOAT(u) __uint_as_float(u)
#elif defined(__OPENCL_VERSION__)
#define ST_UINT uint
#define ST_AS_UINT(f) as_uint(f)
#define ST_AS_FLOAT(u) as_float(u)
#else
#include <string.h>
#define ST_UINT unsigned
static inline unsigned st_as_uint(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float st_as_float(unsigned u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define ST_AS_UINT(f) st_as_uint(f)
#define ST_AS_FLOAT(u) st_as_float(u)
#endif

ST_FN ST_UINT st_key(float f) {
    const ST_UINT u = ST_AS_UINT(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
ST_FN float st_unkey(ST_UINT k) { return ST_AS_FLOAT((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }
/* The range an iteration's pair of keys stands for (slots[2j], slots[2j+1]). */
ST_FN float st_slot_range(ST_UINT lo_key, ST_UINT hi_key) { return st_unkey(hi_key) - st_unkey(lo_key); }
#endif
