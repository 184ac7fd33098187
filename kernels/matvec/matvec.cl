/* Mat-vec kernels, OpenCL C. The algorithm is in matvec_gpu.h; this file
 * maps its vocabulary onto OpenCL. Doubles need cl_khr_fp64, and the atomic
 * add a 64-bit compare-and-swap (cl_khr_int64_base_atomics): OpenCL 1.2 has
 * no atomic add on double. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define KERNEL __kernel void
#define GLOBAL __global
#define GID_X get_global_id(0)
#define GID_Y get_global_id(1)

static inline void mv_atomic_add(volatile __global double *p, double v) {
    union {
        ulong u;
        double d;
    } seen, want;
    seen.d = *p;
    for (;;) {
        want.d = seen.d + v;
        const ulong got = atom_cmpxchg((volatile __global ulong *)p, seen.u, want.u);
        if (got == seen.u) break;
        seen.u = got;
    }
}
/* The paired form on NVIDIA's OpenCL (cl_nv_pragma_unroll defined; it takes
 * inline PTX, as CUDA's atomicAdd compiles to) updates lhs with one
 * red.global.add.f64 instead of a compare-and-swap loop, each of whose
 * turns is a round trip to L2: the paired form is the one meant to run at
 * the copy ceiling. The other forms keep the loop, as published. */
#if defined(K_FORM_PAIRED) && defined(cl_nv_pragma_unroll)
#define ATOMIC_ADD(p, v) asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory")
#else
#define ATOMIC_ADD(p, v) mv_atomic_add((p), (v))
#endif

/* OpenCL C has no read-only or cache-hint load: x and map are plain loads,
 * the paired form's matrix load is vload2 (one 16-byte load where the
 * compiler sees the alignment). load=stream on NVIDIA's OpenCL (which
 * defines cl_nv_pragma_unroll and takes inline PTX) is ld.global.cs, as in
 * matvec.cu; elsewhere (PoCL) a plain vload2, so the knob changes nothing
 * there. */
#define LDG(p) (*(p))
#if defined(K_LOAD_STREAM) && defined(cl_nv_pragma_unroll)
#define LOAD_M2(p, a, b) asm("ld.global.cs.v2.f64 {%0, %1}, [%2];" : "=d"(a), "=d"(b) : "l"(p))
#else
#define LOAD_M2(p, a, b)                                                                                               \
    do {                                                                                                               \
        const double2 v_ = vload2(0, (p));                                                                             \
        (a) = v_.x;                                                                                                    \
        (b) = v_.y;                                                                                                    \
    } while (0)
#endif
#include "matvec_gpu.h"
