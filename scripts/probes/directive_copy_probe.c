/* Which directive spellings let GCC 12's nvptx code use every lane of a
 * warp: device-to-device copies of 1 GiB through several forms of one loop,
 * each timed over 10 runs after a warm-up (host clock around a finished
 * region), printed as GB/s (read + write). Built twice, once per model:
 *   $OFFLOAD_CC -O3 -fopenmp $OFFLOAD_FLAGS -o omp_probe directive_copy_probe.c
 *   $OFFLOAD_CC -O3 -fopenacc $OFFLOAD_FLAGS -o acc_probe directive_copy_probe.c
 * and run with LD_LIBRARY_PATH=$OFFLOAD_LIBDIR. GCC's nvptx mapping (libgomp
 * manual, "nvptx"): OpenMP simd and OpenACC vector are a warp's lanes,
 * OpenMP threads and OpenACC workers are warps, so a `parallel for` without
 * `simd` runs one lane a warp. A probe, not part of the harness. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(_OPENACC)
#include <openacc.h>
#else
#include <omp.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define N ((long)1 << 28) /* floats: 1 GiB a buffer */

#if defined(_OPENACC)
static void f_vec256(float *d, const float *s, long n) {
#pragma acc parallel loop gang vector vector_length(256) deviceptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_vec128(float *d, const float *s, long n) {
#pragma acc parallel loop gang vector vector_length(128) deviceptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_vec1024(float *d, const float *s, long n) {
#pragma acc parallel loop gang vector vector_length(1024) deviceptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_dbl256(float *d, const float *s, long n) {
    double *dd = (double *)d;
    const double *ss = (const double *)s;
#pragma acc parallel loop gang vector vector_length(256) deviceptr(dd, ss)
    for (long i = 0; i < n / 2; i++) dd[i] = ss[i];
}
static void f_gangs(float *d, const float *s, long n) {
#pragma acc parallel loop gang vector num_gangs(132 * 16) vector_length(256) deviceptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_worker(float *d, const float *s, long n) {
#pragma acc parallel loop gang worker vector num_workers(8) vector_length(32) deviceptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_int(float *d, const float *s, long n) {
    const int m = (int)n;
#pragma acc parallel loop gang vector vector_length(256) deviceptr(d, s)
    for (int i = 0; i < m; i++) d[i] = s[i];
}
/* 16-byte elements: GCC keeps a copy of a 16-byte integer vector as PTX's
 * ld.v2.u64 / st.v2.u64 (doubles in a vector, or a struct of two, it splits
 * into 8-byte loads), as CUDA's float4 copy moves 16 bytes a lane. */
typedef long long v2i64 __attribute__((vector_size(16)));
static void f_v2(float *d, const float *s, long n) {
    v2i64 *vd = (v2i64 *)d;
    const v2i64 *vs = (const v2i64 *)s;
#pragma acc parallel loop gang vector vector_length(256) deviceptr(vd, vs)
    for (long i = 0; i < n / 4; i++) vd[i] = vs[i];
}
static void f_v2_128(float *d, const float *s, long n) {
    v2i64 *vd = (v2i64 *)d;
    const v2i64 *vs = (const v2i64 *)s;
#pragma acc parallel loop gang vector vector_length(128) deviceptr(vd, vs)
    for (long i = 0; i < n / 4; i++) vd[i] = vs[i];
}
static struct {
    const char *name;
    void (*f)(float *, const float *, long);
} forms[] = {{"acc gang vector vl256 (harness peak)", f_vec256},
             {"acc gang vector vl256, 16-byte vectors", f_v2},
             {"acc gang vector vl128, 16-byte vectors", f_v2_128},
             {"acc gang vector vl128", f_vec128},
             {"acc gang vector vl1024", f_vec1024},
             {"acc gang vector vl256, doubles", f_dbl256},
             {"acc gang vector num_gangs(2112) vl256", f_gangs},
             {"acc gang worker(8) vector vl32", f_worker},
             {"acc gang vector vl256, int index", f_int}};
static void *dalloc(size_t b) { return acc_malloc(b); }
static void dfree(void *p) { acc_free(p); }
#else
static void f_par(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for thread_limit(256) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd_tl8(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd_tl256(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd thread_limit(256) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd_teams(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(132 * 8) thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd_dbl(float *d, const float *s, long n) {
    double *dd = (double *)d;
    const double *ss = (const double *)s;
#pragma omp target teams distribute parallel for simd thread_limit(8) is_device_ptr(dd, ss)
    for (long i = 0; i < n / 2; i++) dd[i] = ss[i];
}
static void f_simd_dist(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd dist_schedule(static, 8192) num_teams(n / 8192) thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
/* No parallel region: a team is one warp, its lanes the simd loop. */
static void f_tsimd(float *d, const float *s, long n) {
#pragma omp target teams distribute simd is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_tsimd_few(float *d, const float *s, long n) {
#pragma omp target teams distribute simd num_teams(132 * 16) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
/* One team an SM, its 32 warps: few team starts. */
static void f_simd_sm(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(132) thread_limit(32) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_simd_sm4(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(528) thread_limit(16) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static struct {
    const char *name;
    void (*f)(float *, const float *, long);
} forms[] = {{"omp teams distribute simd", f_tsimd},
             {"omp teams distribute simd num_teams(2112)", f_tsimd_few},
             {"omp ... parallel for simd num_teams(132) tl32", f_simd_sm},
             {"omp ... parallel for simd num_teams(528) tl16", f_simd_sm4},
             {"omp teams distribute parallel for tl256 (harness peak)", f_par},
             {"omp ... parallel for simd", f_simd},
             {"omp ... parallel for simd tl8", f_simd_tl8},
             {"omp ... parallel for simd tl256", f_simd_tl256},
             {"omp ... parallel for simd num_teams(1056) tl8", f_simd_teams},
             {"omp ... parallel for simd tl8, doubles", f_simd_dbl},
             {"omp ... simd dist_schedule(8192) teams n/8192 tl8", f_simd_dist}};
static void *dalloc(size_t b) { return omp_target_alloc(b, omp_get_default_device()); }
static void dfree(void *p) { omp_target_free(p, omp_get_default_device()); }
#endif

int main(void) {
#if defined(_OPENACC)
    printf("openacc devices: %d\n", acc_get_num_devices(acc_device_nvidia));
#else
    printf("omp devices: %d\n", omp_get_num_devices());
#endif
    float *a = dalloc(N * sizeof(float)), *b = dalloc(N * sizeof(float));
    if (!a || !b) return 1;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        forms[f].f(b, a, N); /* warm-up (and the JIT) */
        double best = 1e30, sum = 0;
        for (int r = 0; r < 10; r++) {
            const double t0 = now();
            forms[f].f(b, a, N);
            const double t = now() - t0;
            sum += t;
            if (t < best) best = t;
        }
        /* The cost of a launch itself: 200 copies of 32 floats. */
        const double t0 = now();
        for (int r = 0; r < 200; r++) forms[f].f(b, a, 32);
        const double launch_us = (now() - t0) / 200 * 1e6;
        printf("%-58s best %8.1f GB/s  mean %8.1f GB/s  launch %8.1f us\n", forms[f].name,
               2.0 * N * sizeof(float) / best / 1e9, 2.0 * N * sizeof(float) / (sum / 10) / 1e9, launch_us);
        fflush(stdout);
    }
    dfree(a);
    dfree(b);
    return 0;
}
