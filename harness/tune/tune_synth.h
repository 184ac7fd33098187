/* Generated GPU tuning landscapes (tune_synth.c): spaces unlike the LBM's,
 * deterministic from a seed, for judging the strategies on landscapes they
 * were not fitted on (tests/unit/test_tune_replay.c, test_tune_scale.c).
 * Each is a family of kernel (a 2-D convolution, a 3-D diffusion kernel, a
 * dedispersion, a point-in-polygon test) with its parameters (work-group
 * sides, tiles, unroll factors, booleans, categorical methods), a constraint
 * that prunes the space, a time per point from a simple performance model
 * (waves of groups over the multiprocessors, occupancy from registers and
 * local memory, coalescing, halos, bank conflicts, each method's own best
 * tile), failed points (resources exceeded at launch) and measurement noise. */
#ifndef HARNESS_TUNE_SYNTH_H
#define HARNESS_TUNE_SYNTH_H
#include "tune/tune.h"

struct tune_synth {
    char name[96];
    struct tune_space space;
    double *seconds; /* per point: the measured median; -1: the point fails at launch */
    double *noise;   /* per point: the relative spread (IQR / median) */
    double sigma;    /* the landscape's measurement noise (relative standard deviation) */
    int failed;      /* points that fail */
};

/* A landscape of the seed's family, sized near `points` (its levels chosen
 * to land within a factor of about two of it; 0: the family's own size).
 * Returns 0, -1 when it cannot be built. */
int tune_synth_make(struct tune_synth *ls, unsigned seed, long points);
void tune_synth_free(struct tune_synth *ls);
/* An evaluation function over a tune_synth (ctx), for tune_search. */
double tune_synth_eval(void *ctx, int point, double *noise);
#endif
