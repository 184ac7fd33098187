/* The directive backends' own runtime calls, compiled at run time by the
 * offloading compiler with -DORT_ACC (OpenACC) or -DORT_OMP (OpenMP target)
 * into a shared object the backend loads (backend_offload.c). The harness
 * itself is built by the system compiler without offloading, so everything
 * that touches the accelerator runtime lives here: the device count, device
 * selection, device memory, transfers, and the copy loop that `peak`
 * measures. Buffers are device addresses; kernels take them through
 * deviceptr (OpenACC) or is_device_ptr (OpenMP), so no present-table lookup
 * and no hidden transfer happens at a launch. */
#include <stddef.h>
#include <string.h>

#if defined(ORT_ACC)
#include <openacc.h>
#elif defined(ORT_OMP)
#include <omp.h>
#else
#error "build with -DORT_ACC or -DORT_OMP"
#endif

#if defined(ORT_TGT_INIT)
/* clang with no offload target (the host fallback): target regions are host
 * code, but the device-memory calls are libomptarget's, which initialises
 * itself only when an offload image registers; with none its first call
 * dereferences an absent plugin manager. Its own entry point does it here. */
void __tgt_rtl_init(void);
__attribute__((constructor)) static void ort_tgt_init(void) { __tgt_rtl_init(); }
#endif

/* Accelerators the runtime reports: 0 also when the process loaded a
 * libgomp without the nvptx plugin (it then silently runs on the host). */
int ort_devices(void) {
#if defined(ORT_ACC)
    return acc_get_num_devices(acc_device_nvidia);
#else
    return omp_get_num_devices();
#endif
}

/* Makes device `num` (accel != 0) or the host fallback (accel == 0) the one
 * every later region runs on; 0, or -1 when it is not there. */
int ort_select(int accel, int num) {
#if defined(ORT_ACC)
    if (!accel) {
        acc_set_device_type(acc_device_host);
        return acc_get_device_type() == acc_device_host ? 0 : -1;
    }
    if (num < 0 || num >= acc_get_num_devices(acc_device_nvidia)) return -1;
    acc_set_device_num(num, acc_device_nvidia);
    return acc_get_device_type() == acc_device_nvidia ? 0 : -1;
#else
    if (!accel) {
        omp_set_default_device(omp_get_initial_device());
        return 0;
    }
    if (num < 0 || num >= omp_get_num_devices()) return -1;
    omp_set_default_device(num);
    return 0;
#endif
}

/* Whether the selected device's regions really run off the host: asked from
 * inside a region, so a silent fallback shows here. */
int ort_offloaded(void) {
    int on_host = 1;
#if defined(ORT_ACC)
#pragma acc parallel num_gangs(1) copyout(on_host)
    on_host = acc_on_device(acc_device_host);
#else
#pragma omp target map(from : on_host)
    on_host = omp_is_initial_device();
#endif
    return !on_host;
}

/* The device's name where the runtime tells it ("" otherwise). */
void ort_name(char *out, size_t n) {
    out[0] = 0;
#if defined(ORT_ACC) && defined(_OPENACC) && _OPENACC >= 201711
    if (acc_get_device_type() == acc_device_nvidia) {
        const char *s = acc_get_property_string(acc_get_device_num(acc_device_nvidia), acc_device_nvidia,
                                                acc_property_name);
        if (s) strncpy(out, s, n - 1), out[n - 1] = 0;
    }
#else
    (void)n;
#endif
}

/* Global memory in bytes where the runtime tells it (0 otherwise). */
size_t ort_memory(void) {
#if defined(ORT_ACC) && defined(_OPENACC) && _OPENACC >= 201711
    if (acc_get_device_type() == acc_device_nvidia)
        return acc_get_property(acc_get_device_num(acc_device_nvidia), acc_device_nvidia, acc_property_memory);
#endif
    return 0;
}

void *ort_alloc(size_t bytes) {
#if defined(ORT_ACC)
    return acc_malloc(bytes ? bytes : 64);
#else
    return omp_target_alloc(bytes ? bytes : 64, omp_get_default_device());
#endif
}

void ort_free(void *p) {
    if (!p) return;
#if defined(ORT_ACC)
    acc_free(p);
#else
    omp_target_free(p, omp_get_default_device());
#endif
}

int ort_to(void *dev, const void *host, size_t bytes) {
#if defined(ORT_ACC)
    acc_memcpy_to_device(dev, (void *)host, bytes);
    return 0;
#else
    return omp_target_memcpy(dev, host, bytes, 0, 0, omp_get_default_device(), omp_get_initial_device());
#endif
}

int ort_from(void *host, const void *dev, size_t bytes) {
#if defined(ORT_ACC)
    acc_memcpy_from_device(host, (void *)dev, bytes);
    return 0;
#else
    return omp_target_memcpy(host, dev, bytes, 0, 0, omp_get_initial_device(), omp_get_default_device());
#endif
}

/* The copy `peak` times: a plain parallel loop over floats, as a kernel
 * written with these directives would copy (BabelStream's Copy). */
void ort_copy(float *restrict dst, const float *restrict src, size_t n) {
#if defined(ORT_ACC)
#pragma acc parallel loop gang vector vector_length(256) deviceptr(dst, src)
    for (size_t i = 0; i < n; i++) dst[i] = src[i];
#else
    /* simd: GCC's nvptx OpenMP threads are warps and simd their lanes, so
     * without it one lane a warp copies. On an H100 (2026-11-26, scripts/
     * probes/directive_copy_probe.c): 315 GB/s without simd, 546 with
     * thread_limit(8), 783-856 with GCC's own team and thread counts. */
#pragma omp target teams distribute parallel for simd is_device_ptr(dst, src)
    for (size_t i = 0; i < n; i++) dst[i] = src[i];
#endif
}

/* Waits for every queued region (async/nowait kernels). */
void ort_wait(void) {
#if defined(ORT_ACC)
    acc_wait_all();
#else
#pragma omp taskwait
#endif
}
