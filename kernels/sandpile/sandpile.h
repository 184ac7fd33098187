/* The sandpile app's private types, shared by its files (seed 002: the
 * abelian sandpile, run until stable, with termination strategies as knobs). */
#ifndef SANDPILE_H
#define SANDPILE_H
#include <stddef.h>

#include "core/app.h"

enum sp_start { SP_FOUR, SP_PILE, SP_RANDOM };

/* The serial program's run on an input: computed on first use (and cached
 * on disk: 512x512 takes 69190 iterations, seconds on one core) and kept
 * with the input, because the input's own step count is its stability count. */
struct sp_serial {
    long iters_full; /* iterations until stable (-1: not yet run) */
    long iters;      /* the same, or the cap (--iters) when that is smaller */
    int stable;      /* the grid after `iters` is stable */
    unsigned *grid;  /* the grid after `iters` iterations (w*h) */
};

struct app_input {
    char name[64]; /* as stored: "512x512", "pile-65x65-4096", "random-64x48-s1" */
    int w, h;      /* the grid, border included */
    enum sp_start start;
    unsigned long grains; /* SP_PILE: the grains at the centre */
    unsigned seed;        /* SP_RANDOM: the generator's seed */
    long cap;             /* --iters: the most iterations a run may take (0 = none) */
    unsigned *initial;    /* w*h, border 0 */
    int initial_stable;   /* the start is already stable: 0 iterations */
    struct sp_serial *serial;
};

struct app_ref {
    long iters, iters_full;
    int stable;
    unsigned *grid;
};

/* What a device run produced. `count_comparable` is 0 for the asynchronous
 * rule, whose sweeps are not the synchronous rule's iterations: only its
 * stable grid can be compared (the abelian property makes it unique). */
struct app_result {
    long iters;
    int count_comparable;
    unsigned *grid;
};

/* input.c */
struct app_input *sandpile_input_load(const struct app_opts *o, char *err, size_t errn);
void sandpile_input_free(struct app_input *in);
/* The grid's interior cells (border excluded): the cells an iteration updates. */
double sandpile_interior(const struct app_input *in);

/* reference.c */
/* One synchronous step of the interior from in to out; returns nonzero when
 * the new grid is unstable (some cell >= 4). */
int sandpile_step(const unsigned *in, unsigned *out, int w, int h);
/* Whether no cell of the grid holds 4 or more. */
int sandpile_is_stable(const unsigned *g, int w, int h);
const struct sp_serial *sandpile_serial(const struct app_input *in);
/* The most iterations a device run may take: the cap, and otherwise twice
 * the serial count plus 64, so that a broken kernel that never settles is
 * stopped (and reported wrong) rather than running into the watchdog. */
long sandpile_run_limit(const struct app_input *in);
struct app_ref *sandpile_reference(const struct app_input *in, char *err, size_t errn);
void sandpile_ref_free(struct app_ref *r);

/* verify.c */
void sandpile_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                     struct measurement *m);
int sandpile_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                          size_t errn);
void sandpile_result_free(struct app_result *r);

/* predict.c */
/* The seed's fitted stability count for the default start on a DIMxDIM
 * grid (its quadratic-regression polynomial, rounded), or -1 where the fit
 * does not apply (another start, a non-square grid). */
long sandpile_seed_prediction(const struct app_input *in);

/* app.c */
/* The tile shape a device runs a config with: a CPU's host_tile when one is
 * given (returns 1), else the config's shape wg (returns 0). */
int sandpile_tile_shape(const struct device_info *dev, const struct knob_set *k, const unsigned wg[2],
                        unsigned shape[2]);

/* schedule.c */
/* The local memory a group of shape wg needs (the tiles, the padding of
 * cells=R, the group's vote), as the launch asks for it and app.c checks it. */
size_t sandpile_local_bytes(int steps, int double_tile, int cells, const unsigned wg[2]);
struct app_result *sandpile_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                    const unsigned wg[2], int warmup, int reps, struct measurement *m);
#endif
