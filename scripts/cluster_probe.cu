// Thread-block clusters on device 0, measured: how many clusters of 2..16
// blocks can be resident at once for a block of THREADS threads and BYTES
// of dynamic shared memory (more clusters than that run in waves), and
// what one barrier costs: a cluster barrier (barrier.cluster arrive with
// release, wait with acquire, as halo=cluster's sub-steps use) against a
// block barrier (__syncthreads), each timed over 100000 back-to-back
// barriers in one launch of 128 blocks of 256 threads. Built and run by
// scripts/halo_cluster.sh on the GPU host:
//   nvcc -arch=sm_90 -o probe scripts/cluster_probe.cu && ./probe THREADS:BYTES...
#include <cstdio>
#include <cuda_runtime.h>

__global__ void occupy(float *out) {
    extern __shared__ float s[];
    s[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    if (out) out[blockIdx.x] = s[0];
}

// n barriers; the shared write between them keeps the compiler honest.
template <bool cluster>
__global__ void barriers(int n, float *out) {
    __shared__ float s[256];
    float v = 0.0f;
    for (int i = 0; i < n; i++) {
        s[threadIdx.x] = v + (float)i;
        if (cluster)
            asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
        else
            __syncthreads();
        v += s[(threadIdx.x + 1) & 255];
    }
    if (out) out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static float time_barriers(bool cluster, int c, int n, float *out) {
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = c;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(128, 1, 1);
    cfg.blockDim = dim3(256, 1, 1);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    float best = 1e30f;
    for (int rep = 0; rep < 3; rep++) {
        cudaEventRecord(a);
        cudaError_t r = cluster ? cudaLaunchKernelEx(&cfg, barriers<true>, n, out)
                                : cudaLaunchKernelEx(&cfg, barriers<false>, n, out);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        if (r != cudaSuccess) return printf("  launch: %s\n", cudaGetErrorString(r)), -1.0f;
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
    }
    return best * 1e3f / (float)n; // us per barrier, the fastest of three
}

int main(int argc, char **argv) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return fprintf(stderr, "no CUDA device\n"), 1;
    printf("%s: %d SMs\n", p.name, p.multiProcessorCount);
    cudaFuncSetAttribute(occupy, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaFuncSetAttribute(barriers<true>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int a = 1; a < argc; a++) {
        int threads = 0, bytes = 0;
        if (sscanf(argv[a], "%d:%d", &threads, &bytes) != 2) return fprintf(stderr, "%s: THREADS:BYTES\n", argv[a]), 2;
        cudaFuncSetAttribute(occupy, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        printf("resident clusters, blocks of %d threads and %d bytes shared:", threads, bytes);
        for (int c = 2; c <= 16; c *= 2) {
            cudaLaunchAttribute attr;
            attr.id = cudaLaunchAttributeClusterDimension;
            attr.val.clusterDim.x = c;
            attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(c * 16, 1, 1);
            cfg.blockDim = dim3(threads, 1, 1);
            cfg.dynamicSmemBytes = bytes;
            cfg.attrs = &attr;
            cfg.numAttrs = 1;
            int n = 0;
            cudaError_t r = cudaOccupancyMaxActiveClusters(&n, occupy, &cfg);
            if (r != cudaSuccess) printf("  %d: %s", c, cudaGetErrorString(r));
            else printf("  %d: %d (%d blocks)", c, n, n * c);
        }
        printf("\n");
    }
    float *out = nullptr;
    cudaMalloc(&out, 128 * 256 * sizeof(float));
    const int n = 100000;
    time_barriers(false, 1, 1000, out); // warm-up
    printf("block barrier (__syncthreads), 128 blocks of 256: %.3f us\n", time_barriers(false, 1, n, out));
    for (int c = 2; c <= 16; c *= 2)
        printf("cluster barrier, clusters of %2d, 128 blocks of 256: %.3f us\n", c, time_barriers(true, c, n, out));
    cudaFree(out);
    return 0;
}
