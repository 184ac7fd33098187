/* What a GCC 12 OpenMP target region costs to launch on an H100, and why.
 * The guess this probe was written to test: libgomp's nvptx plugin gives
 * every warp of a launch a 128 KiB soft stack, in one block kept between
 * launches but freed before any device allocation once it is over 128 MiB,
 * and GCC's own team count (8 warps x 1056 teams) asks for 1.1 GB; so a
 * region that allocates (its argument block) would reallocate 1.1 GB every
 * launch. The forms: GCC's counts, counts that keep teams x warps <= 1024
 * (128 MiB), a region that maps nothing (its pointers in declare-target
 * globals), and empty regions; each timed as a 1 GiB copy (GB/s, read +
 * write, best of 10) and as 200 launches of a 32-float copy.
 * Found (call U, 2026-11-26, H100, driver 580.159.04): the guess is wrong.
 * An empty region that maps nothing launches in 25 us; the same region with
 * one is_device_ptr in 510 us, and in 829 us with num_teams(128)
 * thread_limit(8); capped copies launch in 550-1350 us and copy at 365-520
 * GB/s against 544 with GCC's counts. What costs is passing a variable (the
 * region's mapping); the globals form, which updates three globals before
 * each launch, 206 us. Built like directive_copy_probe.c:
 *   $OFFLOAD_CC -O3 -fopenmp $OFFLOAD_FLAGS -o stacks_probe omp_target_stacks_probe.c
 * A probe, not part of the harness. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define N ((long)1 << 28) /* floats: 1 GiB a buffer */

static void f_default(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t128w8(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(128) thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t129w8(float *d, const float *s, long n) { /* 1032 warps: just over 128 MiB */
#pragma omp target teams distribute parallel for simd num_teams(129) thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t256w4(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(256) thread_limit(4) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t64w16(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(64) thread_limit(16) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t1024w1(float *d, const float *s, long n) {
#pragma omp target teams distribute simd num_teams(1024) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
static void f_t132w7(float *d, const float *s, long n) {
#pragma omp target teams distribute parallel for simd num_teams(132) thread_limit(7) is_device_ptr(d, s)
    for (long i = 0; i < n; i++) d[i] = s[i];
}
/* Four elements a lane an iteration: more loads in flight with fewer warps. */
static void f_t128w8x4(float *d, const float *s, long n) {
    const long q = n / 4;
#pragma omp target teams distribute parallel for simd num_teams(128) thread_limit(8) is_device_ptr(d, s)
    for (long i = 0; i < q; i++) {
        const float a = s[i], b = s[i + q], c = s[i + 2 * q], e = s[i + 3 * q];
        d[i] = a, d[i + q] = b, d[i + 2 * q] = c, d[i + 3 * q] = e;
    }
}
/* Nothing mapped: the region's pointers and count are device globals. */
#pragma omp declare target
static float *g_d;
static const float *g_s;
static long g_n;
#pragma omp end declare target
static void f_globals(float *d, const float *s, long n) {
    g_d = d, g_s = s, g_n = n;
#pragma omp target update to(g_d, g_s, g_n)
#pragma omp target teams distribute parallel for simd
    for (long i = 0; i < g_n; i++) g_d[i] = g_s[i];
}
static void f_empty(float *d, const float *s, long n) {
    (void)d, (void)s, (void)n;
#pragma omp target teams
    {
    }
}
static void f_empty_arg(float *d, const float *s, long n) {
    (void)s, (void)n;
#pragma omp target teams is_device_ptr(d)
    {
        if (omp_get_team_num() < 0) d[0] = 0;
    }
}
static void f_empty_arg_t128(float *d, const float *s, long n) {
    (void)s, (void)n;
#pragma omp target teams num_teams(128) thread_limit(8) is_device_ptr(d)
    {
        if (omp_get_team_num() < 0) d[0] = 0;
    }
}

static struct {
    const char *name;
    void (*f)(float *, const float *, long);
} forms[] = {{"empty teams region, nothing mapped", f_empty},
             {"empty teams region, one is_device_ptr", f_empty_arg},
             {"empty, one is_device_ptr, num_teams(128) tl8", f_empty_arg_t128},
             {"parallel for simd, GCC's counts", f_default},
             {"... num_teams(128) thread_limit(8): 1024 warps", f_t128w8},
             {"... num_teams(129) thread_limit(8): 1032 warps", f_t129w8},
             {"... num_teams(256) thread_limit(4)", f_t256w4},
             {"... num_teams(64) thread_limit(16)", f_t64w16},
             {"... num_teams(132) thread_limit(7)", f_t132w7},
             {"teams distribute simd num_teams(1024)", f_t1024w1},
             {"... num_teams(128) tl8, 4 a lane", f_t128w8x4},
             {"GCC's counts, globals (nothing mapped)", f_globals}};

int main(void) {
    printf("omp devices: %d\n", omp_get_num_devices());
    const int dev = omp_get_default_device();
    float *a = omp_target_alloc(N * sizeof(float), dev), *b = omp_target_alloc(N * sizeof(float), dev);
    if (!a || !b) return 1;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        forms[f].f(b, a, N); /* warm-up (and the JIT) */
        double best = 1e30;
        for (int r = 0; r < 10; r++) {
            const double t0 = now();
            forms[f].f(b, a, N);
            const double t = now() - t0;
            if (t < best) best = t;
        }
        const double t0 = now();
        for (int r = 0; r < 200; r++) forms[f].f(b, a, 32);
        const double launch_us = (now() - t0) / 200 * 1e6;
        printf("%-52s best %8.1f GB/s  launch %8.1f us\n", forms[f].name, 2.0 * N * sizeof(float) / best / 1e9,
               launch_us);
        fflush(stdout);
    }
    omp_target_free(a, dev);
    omp_target_free(b, dev);
    return 0;
}
