/* Where GCC 12's OpenMP-target mat-vec loses its time (issue 19: 74x CUDA's
 * product, where GCC's own OpenMP copy loop, 783-858 GB/s, would allow about
 * 3.5x). The suspicion: the copy loop does one element an iteration and GCC's
 * SIMT simd loop has a cost per iteration, so a loop with more loads an
 * iteration gets nearer the memory's speed; and the harness's nest (a team a
 * cell, its lanes a simd loop) pays a simd loop's set-up per cell. Forms of
 * the paired mat-vec (two rows a lane, lhs added to atomically) over a
 * 162x81x40 LFRic-like mesh (13122 cells, 8 dofs a cell on 4 vertices' two
 * dof columns, 40 layers; the matrix Fortran's df-fastest, 269 MB), each
 * timed as 20 products, best of 5 after a warm-up (host clock around
 * finished regions), printed as us a product and effective GB/s (560 B a
 * cell-layer, as the harness counts), with the max difference from form A:
 *   A  the harness's nest at 32x1: teams distribute over cells (one warp a
 *      team), the cell's 160 (k, pair) lanes a simd loop;
 *   B  one combined `teams distribute parallel for simd collapse(3)` over
 *      cells x layers x pairs (CUDA's mapping: a lane a (cell, k, pair));
 *   B8, B128, B256 B with thread_limit(8, 128, 256) (GCC counts warps, LLVM
 *      threads); Bn B without simd (LLVM maps parallel for to the threads);
 *   C  B's loop without atomics (racy: the time of the loads alone);
 *   and copy loops over doubles, one and four elements an iteration.
 * Built and run on the GPU host:
 *   $OFFLOAD_CC -O3 -fopenmp -fno-math-errno $OFFLOAD_FLAGS -o p omp_target_matvec_probe.c
 *   LD_LIBRARY_PATH=$OFFLOAD_LIBDIR ./p
 * A probe, not part of the harness. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NX 162
#define NY 81
#define NL 40
#define NDF 8
#define NCELLS (NX * NY)
#define NCOLS (2 * (NX + 1) * (NY + 1))
#define REPS 20

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A's nest: a team a cell, its lanes a simd loop (one warp a team). */
static void form_a(const double *m, const double *x, double *lhs, const int *map) {
#pragma omp target teams distribute thread_limit(1) is_device_ptr(m, x, lhs, map)
    for (int cell = 0; cell < NCELLS; cell++) {
        const int *map2 = map + cell * NDF;
#pragma omp simd collapse(2)
        for (int k = 0; k < NL; k++)
            for (int p = 0; p < NDF / 2; p++) {
                double s0 = 0.0, s1 = 0.0;
                const double *row = m + ((long)cell * NL + k) * (NDF * NDF) + 2 * p;
                for (int df2 = 0; df2 < NDF; df2++) {
                    const double xv = x[map2[df2] + k];
                    s0 += row[NDF * df2] * xv;
                    s1 += row[NDF * df2 + 1] * xv;
                }
#pragma omp atomic update
                lhs[map2[2 * p] + k] += s0;
#pragma omp atomic update
                lhs[map2[2 * p + 1] + k] += s1;
            }
    }
}

/* The loop body of B and C: lane (cell, k, p). */
#define PAIRED_BODY(UPDATE)                                                                                  \
    const int *map2 = map + cell * NDF;                                                                       \
    double s0 = 0.0, s1 = 0.0;                                                                                \
    const double *row = m + ((long)cell * NL + k) * (NDF * NDF) + 2 * p;                                      \
    for (int df2 = 0; df2 < NDF; df2++) {                                                                     \
        const double xv = x[map2[df2] + k];                                                                   \
        s0 += row[NDF * df2] * xv;                                                                            \
        s1 += row[NDF * df2 + 1] * xv;                                                                        \
    }                                                                                                         \
    UPDATE(lhs[map2[2 * p] + k], s0);                                                                         \
    UPDATE(lhs[map2[2 * p + 1] + k], s1)

#define ATOMIC_ADD(dst, v) _Pragma("omp atomic update") dst += (v)
#define PLAIN_ADD(dst, v) dst += (v)

/* One combined construct over cells x layers x pairs: FN's pragma is
 * `omp target teams distribute parallel for LOOP collapse(3) CLAUSES`. */
#define P_(x) _Pragma(#x)
#define P(x) P_(x)
#define COMBINED_FORM(FN, LOOP, CLAUSES, UPDATE)                                                           \
    static void FN(const double *m, const double *x, double *lhs, const int *map) {                          \
        P(omp target teams distribute parallel for LOOP collapse(3) CLAUSES is_device_ptr(m, x, lhs, map))   \
        for (int cell = 0; cell < NCELLS; cell++)                                                            \
            for (int k = 0; k < NL; k++)                                                                     \
                for (int p = 0; p < NDF / 2; p++) {                                                          \
                    PAIRED_BODY(UPDATE);                                                                     \
                }                                                                                            \
    }
COMBINED_FORM(form_b, simd, , ATOMIC_ADD)
COMBINED_FORM(form_b8, simd, thread_limit(8), ATOMIC_ADD)
/* Widths (GCC counts thread_limit in warps, LLVM in threads). */
COMBINED_FORM(form_b128, simd, thread_limit(128), ATOMIC_ADD)
COMBINED_FORM(form_b256, simd, thread_limit(256), ATOMIC_ADD)
/* B without simd (LLVM maps `parallel for` to a team's threads). */
COMBINED_FORM(form_bnosimd, , , ATOMIC_ADD)
COMBINED_FORM(form_c, simd, , PLAIN_ADD)

#define NCOPY ((long)NCELLS * NL * NDF * NDF) /* the matrix's doubles */
static void copy1(double *d, const double *s) {
#pragma omp target teams distribute parallel for simd is_device_ptr(d, s)
    for (long i = 0; i < NCOPY; i++) d[i] = s[i];
}
static void copy4(double *d, const double *s) {
#pragma omp target teams distribute parallel for simd is_device_ptr(d, s)
    for (long i = 0; i < NCOPY / 4; i++) {
        const double a = s[i], b = s[i + NCOPY / 4], c = s[i + NCOPY / 2], e = s[i + 3 * (NCOPY / 4)];
        d[i] = a, d[i + NCOPY / 4] = b, d[i + NCOPY / 2] = c, d[i + 3 * (NCOPY / 4)] = e;
    }
}

int main(void) {
    const int dev = omp_get_default_device(), host = omp_get_initial_device();
    printf("omp devices: %d\n", omp_get_num_devices());
    const size_t nm = (size_t)NCOPY, nx = (size_t)NCOLS * NL;
    double *m = malloc(nm * sizeof *m), *x = malloc(nx * sizeof *x), *l0 = calloc(nx, sizeof *l0),
           *l1 = malloc(nx * sizeof *l1);
    int *map = malloc((size_t)NCELLS * NDF * sizeof *map);
    for (size_t i = 0; i < nm; i++) m[i] = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
    for (size_t i = 0; i < nx; i++) x[i] = (double)((i * 40503u) % 997) / 997.0;
    for (int j = 0; j < NY; j++) /* a cell's 4 vertices, two dof columns each */
        for (int i = 0; i < NX; i++) {
            const int c = i + j * NX, v[4] = {i + j * (NX + 1), i + 1 + j * (NX + 1), i + (j + 1) * (NX + 1),
                                              i + 1 + (j + 1) * (NX + 1)};
            for (int q = 0; q < 4; q++) {
                map[c * NDF + 2 * q] = (2 * v[q]) * NL;
                map[c * NDF + 2 * q + 1] = (2 * v[q] + 1) * NL;
            }
        }
    double *dm = omp_target_alloc(nm * sizeof *m, dev), *dx = omp_target_alloc(nx * sizeof *x, dev),
           *dl = omp_target_alloc(nx * sizeof *x, dev), *dc = omp_target_alloc(nm * sizeof *m, dev);
    int *dmap = omp_target_alloc((size_t)NCELLS * NDF * sizeof *map, dev);
    if (!dm || !dx || !dl || !dc || !dmap) return 1;
    omp_target_memcpy(dm, m, nm * sizeof *m, 0, 0, dev, host);
    omp_target_memcpy(dx, x, nx * sizeof *x, 0, 0, dev, host);
    omp_target_memcpy(dmap, map, (size_t)NCELLS * NDF * sizeof *map, 0, 0, dev, host);
    struct {
        const char *name;
        void (*f)(const double *, const double *, double *, const int *);
    } forms[] = {{"A  teams a cell, simd lanes (the harness's 32x1)", form_a},
                 {"B  teams distribute parallel for simd collapse(3)", form_b},
                 {"B8 B with thread_limit(8)", form_b8},
                 {"B128 B with thread_limit(128)", form_b128},
                 {"B256 B with thread_limit(256)", form_b256},
                 {"Bn B without simd", form_bnosimd},
                 {"C  B without atomics (racy: loads alone)", form_c}};
    const double bytes = 560.0 * NCELLS * NL;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        omp_target_memcpy(dl, l0, nx * sizeof *x, 0, 0, dev, host);
        forms[f].f(dm, dx, dl, dmap); /* one product, checked against A's */
        omp_target_memcpy(l1, dl, nx * sizeof *x, 0, 0, host, dev);
        static double *ref;
        double diff = 0;
        if (!ref) {
            ref = malloc(nx * sizeof *ref);
            for (size_t i = 0; i < nx; i++) ref[i] = l1[i];
        }
        for (size_t i = 0; i < nx; i++) diff = fmax(diff, fabs(l1[i] - ref[i]));
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            const double t0 = now();
            for (int i = 0; i < REPS; i++) forms[f].f(dm, dx, dl, dmap);
            const double t = (now() - t0) / REPS;
            if (t < best) best = t;
        }
        printf("%-52s %9.1f us a product  %7.1f GB/s effective  max diff from A %.1e\n", forms[f].name, best * 1e6,
               bytes / best / 1e9, diff);
        fflush(stdout);
    }
    void (*copies[2])(double *, const double *) = {copy1, copy4};
    const char *cn[2] = {"copy, doubles, one an iteration", "copy, doubles, four an iteration"};
    for (int c = 0; c < 2; c++) {
        copies[c](dc, dm);
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            const double t0 = now();
            copies[c](dc, dm);
            const double t = now() - t0;
            if (t < best) best = t;
        }
        printf("%-52s %9.1f us            %7.1f GB/s (read + write)\n", cn[c], best * 1e6,
               2.0 * nm * sizeof *m / best / 1e9);
    }
    return 0;
}
