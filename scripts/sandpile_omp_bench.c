/* The OpenMP sandpile kernels (kernels/sandpile/sandpile_omp.c) timed
 * alone, outside the harness: a loaded host's wall clock says little, so
 * this reports cell updates per CPU-second of the process too (with one
 * thread: per core, whatever the load). Not verified (the harness does
 * that); the grid starts at 4-6 grains, so every step topples everywhere.
 *   cc -O3 -march=native -fopenmp -std=c11 -Iharness/backend -Ikernels/sandpile -DK_STEPS=4 \
 *      -o /tmp/spbench scripts/sandpile_omp_bench.c kernels/sandpile/sandpile_omp.c
 *   OMP_NUM_THREADS=1 /tmp/spbench 4096 4096 16 4094 64   # W H STEPS TILE_W TILE_H (the tile's own cells)
 * K_STEPS=1 times topple (one step a launch), else topple_tiled; best of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "omp_kernel.h"
void topple(const struct omp_launch *L, void *const *args);
void topple_tiled(const struct omp_launch *L, void *const *args);
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
    int w = atoi(argv[1]), h = atoi(argv[2]), iters = atoi(argv[3]), tw = atoi(argv[4]), th = atoi(argv[5]);
    int T = K_STEPS;
    size_t n = (size_t)w * h;
    unsigned *a = calloc(n, 4), *b = calloc(n, 4);
    for (int y = 1; y < h - 1; y++) for (int x = 1; x < w - 1; x++) a[(size_t)y * w + x] = b[(size_t)y * w + x] = 4 + (x * 7 + y * 13) % 3;
    int *flags = calloc(iters + 2, sizeof(int));
    int iw = w - 2, ih = h - 2; if (tw > iw) tw = iw;
    struct omp_launch L;
    if (T > 1) { L.local[0] = tw + 2 * T; L.local[1] = th + 2 * T; } else { L.local[0] = tw; L.local[1] = th; }
    L.groups[0] = (iw + tw - 1) / tw; L.groups[1] = (ih + th - 1) / th;
    L.global[0] = L.groups[0] * L.local[0]; L.global[1] = L.groups[1] * L.local[1];
    double best = 1e9, bestc = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int it = 0; it < iters; it += T) {
            int itv = it + 1, nn = T, row0 = 1, row1 = h - 1;
            if (T > 1) { void *args[9] = {a, b, flags, &itv, &nn, &w, &h, &row0, &row1}; topple_tiled(&L, args); }
            else { void *args[9] = {a, b, flags, &itv, &w, &h, &row0, &row1, NULL}; topple(&L, args); }
            unsigned *t = a; a = b; b = t;
        }
        double t1 = now(CLOCK_MONOTONIC) - t0, c1 = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (t1 < best) best = t1;
        if (c1 < bestc) bestc = c1;
    }
    double upd = (double)iw * ih * iters;
    printf("%dx%d T=%d tile %dx%d threads %d: wall %.3f Gcell/s, per cpu-second %.3f Gcell/s\n", w, h, T, tw, th,
           omp_get_max_threads(), upd / best / 1e9, upd / bestc / 1e9);
    return 0;
}
