/* LBM D2Q9 kernels, CUDA C++ (built at run time by NVRTC). The algorithm is
 * in lbm_gpu.h; this file maps its vocabulary onto CUDA. Work-group scratch
 * is dynamic shared memory, so it is not a parameter. */
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define LOCAL
#define LOCAL_PARAM(n)
#define LOCAL_DECL(n) extern __shared__ float n[];
#define GID_X (blockIdx.x * blockDim.x + threadIdx.x)
#define GID_Y (blockIdx.y * blockDim.y + threadIdx.y)
#define LID_X threadIdx.x
#define LID_Y threadIdx.y
#define LSIZE_X blockDim.x
#define LSIZE_Y blockDim.y
#define GROUP_X blockIdx.x
#define GROUP_Y blockIdx.y
#define NGROUPS_X gridDim.x
#define NGROUPS_Y gridDim.y
#define BARRIER __syncthreads()
#define LATTICE_PARAM struct lattices lat
#define LAT(f) (lat.f)
#define LBM_FN static __device__ __forceinline__
#define LBM_SQRT sqrtf
typedef unsigned char uchar;
#include "lbm_gpu.h"
