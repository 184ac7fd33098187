/* Mat-vec kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in matvec_gpu.h; this file maps its vocabulary onto CUDA. atomicAdd on
 * double needs sm_60 or later (every GPU the harness targets). */
/* The paired form's lane holds its 8 16-byte matrix loads (128 bytes) in
 * flight before the first multiply only with room for them: ptxas, free to
 * pick, keeps 32 registers for full occupancy and issues 2-3 loads ahead of
 * their use (32-48 bytes a lane). A bound of 1024 threads and 1 block an SM
 * (no launch is refused: 1024 is the limit anyway) lets it take 56 and
 * hoist all 8: 36 warps an SM x 32 lanes x 128 bytes = 147 KB in flight,
 * against about 34 KB that 1/132 of 4.5 TB/s needs at 1 us latency. */
#if defined(K_FORM_PAIRED)
#define KERNEL extern "C" __global__ void __launch_bounds__(1024, 1)
#else
#define KERNEL extern "C" __global__ void
#endif
#define GLOBAL
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define ATOMIC_ADD(p, v) atomicAdd((p), (v))
/* Read-only loads (ld.global.nc) for what no lane writes: the matrix, x and
 * map. The paired form's matrix load is one 16-byte ld.global.nc.v2.f64, or
 * under load=stream ld.global.cs.v2.f64: evict-first in L1 and L2, so the
 * matrix, read once, does not push out x and lhs, which neighbours reuse. */
#define LDG(p) __ldg(p)
#if defined(K_LOAD_STREAM)
#define LOAD_M2(p, a, b)                                                                                               \
    do {                                                                                                               \
        const double2 v_ = __ldcs((const double2 *)(p));                                                               \
        (a) = v_.x;                                                                                                    \
        (b) = v_.y;                                                                                                    \
    } while (0)
#else
#define LOAD_M2(p, a, b)                                                                                               \
    do {                                                                                                               \
        const double2 v_ = __ldg((const double2 *)(p));                                                                \
        (a) = v_.x;                                                                                                    \
        (b) = v_.y;                                                                                                    \
    } while (0)
#endif
#include "matvec_gpu.h"
