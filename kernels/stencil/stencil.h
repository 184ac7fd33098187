/* The stencil app's private types, shared by its files (seed 001: a 5-point
 * stencil PDE solver with a max-min range convergence test). */
#ifndef STENCIL_H
#define STENCIL_H
#include <stddef.h>

#include "core/app.h"

/* The serial program's run on an input: computed on first use (it is cheap:
 * 34 iterations, about a second on one core at 4096x4096) and kept with the
 * input, because the input's own step count is its convergence count. */
struct stencil_serial {
    long iters_full; /* iterations until range <= 100 (-1: not yet run) */
    long iters;      /* the same, or the cap (--iters) when that is smaller */
    float range;     /* the range after `iters` iterations */
    float *grid;     /* the grid after `iters` iterations (w*h) */
};

struct app_input {
    char name[64];                 /* "4096x4096", "64x64", "100x60" */
    int w, h;                      /* the grid, border included; x in [0, w), y in [0, h) */
    long cap;                      /* --iters: the most iterations a run may take (0 = none) */
    float *initial;                /* w*h: interior uniform in [-200, 200) from the fixed seed, border 0 */
    struct stencil_serial *serial; /* allocated at load, filled on first use */
};

struct app_ref {
    long iters, iters_full;
    float range;
    float *grid;
    int w, h;
};

/* What a device run produced: its iteration count, its last range, and the
 * final grid (read back after the timed loop, for the comparison). */
struct app_result {
    long iters;
    float range;
    float *grid;
    int w, h;
};

/* input.c */
#define STENCIL_SEED 1u
struct app_input *stencil_input_load(const struct app_opts *o, char *err, size_t errn);
void stencil_input_free(struct app_input *in);
/* Parses "WxH", "gen:WxH" or "gen:N" (a square); 0, or -1 with err filled. */
int stencil_parse_size(const char *text, int *w, int *h, char *err, size_t errn);
/* The initial grid: splitmix64 from `seed`, one draw per interior point in
 * row order, value = k * 400 / 2^24 - 200 with k the draw's top 24 bits;
 * the border 0. */
void stencil_initial(int w, int h, unsigned seed, float *grid);

/* reference.c */
/* The slides' find_range over n floats: min and max start at 0. */
float stencil_find_range(const float *data, size_t n);
/* One update of the interior from in to out (out's border untouched). */
void stencil_update(const float *in, float *out, int w, int h);
/* The serial program from `initial` until range <= 100 or `limit`
 * iterations (<= 0: no limit); the grid after `snapshot` iterations (or at
 * the end, if that comes first) is copied to snap_grid, with its range and
 * count (any of the three may be NULL). Returns the iteration count. */
long stencil_serial_run(const float *initial, int w, int h, long limit, long snapshot, float *snap_grid,
                        float *snap_range, long *snap_iters);
const struct stencil_serial *stencil_serial(const struct app_input *in);
/* The most iterations a device run may take: the cap, and in any case twice
 * the serial count plus 16, so a broken kernel whose range never falls stops
 * (and is reported wrong) instead of running into the watchdog. */
long stencil_run_limit(const struct app_input *in);
struct app_ref *stencil_reference(const struct app_input *in, char *err, size_t errn);
void stencil_ref_free(struct app_ref *r);

/* verify.c */
void stencil_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                    struct measurement *m);
int stencil_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                         size_t errn);
void stencil_result_free(struct app_result *r);

/* app.c */
/* range=atomic with steps > 1: update_blocked's local memory in bytes, for
 * a work-group of local[0] x local[1] items (the reduction's 2 floats an
 * item and two tiles with their halo). */
size_t stencil_blocked_local(const size_t local[2], const struct knob_set *k);

/* schedule.c */
struct app_result *stencil_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                   const unsigned wg[2], int warmup, int reps, struct measurement *m);
#define STENCIL_STEPS_MAX 16   /* range=atomic: the most iterations per launch */
#define STENCIL_FINISH_MAX 256 /* the largest group of the fused variant's final reduction */
#endif
