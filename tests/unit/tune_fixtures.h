/* The synthetic landscapes test_tune.c and test_tune_quality.c share: the
 * 121 power-of-two shapes 1..1024 x 1..1024 with a smooth bowl and a valley
 * over them, and a space of three shape sides and a 200-level categorical. */
#ifndef TUNE_FIXTURES_H
#define TUNE_FIXTURES_H
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "tune_shapes.h"

#define N 121
static unsigned shapes[N][2];
static const struct shape_list space = {N, (const unsigned (*)[2])shapes};

static int lg(unsigned v) {
    int k = 0;
    while (v > 1) v >>= 1, k++;
    return k;
}

/* A smooth bowl in log2 space with its unique minimum at 64x4 (1.0 s), a
 * slight tilt so no two shapes tie exactly, and the very large work-groups
 * (x*y > 2^14) failing as they would at launch. */
struct landscape {
    int calls[N]; /* per shape */
    int ncalls;
    unsigned long long trace; /* a hash of the order of calls */
    int order[N];             /* the shapes in the order of their calls */
    double noise;
};

static double curvature = 0.01; /* per octave squared */

static int shape_index(const unsigned wg[2]) { return lg(wg[0]) * 11 + lg(wg[1]); }

static double smooth(void *ctx, const unsigned wg[2], double *noise) {
    struct landscape *l = ctx;
    int i = shape_index(wg);
    l->calls[i]++;
    l->ncalls++;
    l->trace = l->trace * 1000003u + (unsigned)i + 1;
    if (l->ncalls <= N) l->order[l->ncalls - 1] = i;
    *noise = l->noise;
    const int dx = lg(wg[0]) - 6, dy = lg(wg[1]) - 2;
    if (lg(wg[0]) + lg(wg[1]) > 14) return -1;
    return 1.0 + curvature * (dx * dx + dy * dy) + 0.001 * (dx + 2 * dy > 0 ? dx + 2 * dy : -(dx + 2 * dy)) / 7.0;
}

static const char *strategies[] = {"exhaustive", "random", "anneal", "genetic", "forest"};
#define NSTRAT 5

/* A space of three shape sides and a categorical parameter of 200 levels
 * (more than TUNE_MAX_LEVELS, which no longer caps anything), minus a
 * constraint: x*y*z <= 256. Its fast level is 137. */
static const unsigned side_x[4] = {8, 16, 32, 64}, side_y[4] = {1, 2, 4, 8}, side_z[3] = {1, 2, 4};
static int wide_calls;
static double wide_eval(void *ctx, int point, double *noise) {
    const struct tune_space *sp = ctx;
    const int *c = sp->coord + (size_t)point * sp->nparams;
    wide_calls++;
    *noise = 0.01;
    const double lx = c[0] - 2, ly = c[1] - 1, lz = c[2];
    return (1 + 0.1 * (lx * lx + ly * ly + lz * lz)) * (c[3] == 137 ? 0.5 : 1.0 + 0.001 * (c[3] % 17));
}


static void shapes_init(void) {
    for (int i = 0; i < N; i++) shapes[i][0] = 1u << (i / 11), shapes[i][1] = 1u << (i % 11);
}

static void wide_space_build(struct tune_space *sp) {
    tune_space_init(sp, 4);
    const int levels[4] = {4, 4, 3, 200};
    for (int k = 0; k < 4; k++) {
        snprintf(sp->params[k].name, sizeof sp->params[k].name, "p%d", k);
        sp->params[k].levels = levels[k], sp->params[k].ordinal = k < 3;
    }
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int z = 0; z < 3; z++)
                for (int m = 0; m < 200; m++) {
                    const int c[4] = {a, b, z, m};
                    if (side_x[a] * side_y[b] * side_z[z] <= 256) tune_space_add(sp, c);
                }
}
#endif
