/* Search strategies over a space of configurations (Kernel Tuner's, CLTune's
 * and KTT's vocabulary): exhaustive, random, anneal, genetic, and forest, a
 * model-based search. A space is a list of valid points, each a level per
 * parameter (a knob's value, a work-group side); a strategy only sees an
 * evaluation function over points, so the same code searches a live device
 * or replays measurements already in the database. harness/tune/README.md
 * says which file holds what, and why the strategies are as they are. */
#ifndef HARNESS_TUNE_H
#define HARNESS_TUNE_H
#include <stddef.h>

/* Returns the median seconds of point i, or a negative number when it
 * failed (wrong, crashed, timed out); *noise gets its relative spread
 * (IQR / median) when known. */
typedef double (*tune_eval_fn)(void *ctx, int point, double *noise);

/* The most parameters a space holds (struct tune_space keeps them inline);
 * a caller with more refuses the search and says this number. */
#define TUNE_MAX_PARAMS 48
/* Not a cap: a parameter takes any number of levels. Kept for callers that
 * size fixed buffers by it (and must then refuse larger spaces saying so). */
#define TUNE_MAX_LEVELS 64
/* The most work-group dimensions a space maps parameters to (x, y, z). */
#define TUNE_MAX_SIDES 3

struct tune_param {
    char name[32];
    int levels;  /* values 0..levels-1 */
    int ordinal; /* 1: levels are ordered (a shape's side, a step count): a move goes to the next level;
                    0: categorical (a knob's alternatives, a boolean switch): a move goes to any other
                    level, and the model gives every level its own weight, in no order */
};

/* Evaluations from elsewhere (the same app on another device or input)
 * that seed a search: points of this space and their times. */
struct tune_prior {
    int n;
    const int *point;
    const double *seconds;
};

struct tune_space {
    int n, nparams;
    struct tune_param params[TUNE_MAX_PARAMS];
    int *coord; /* n * nparams levels, point i at coord + i * nparams */
    int cap;
    int *slot, slots;               /* a hash of the points' levels (index + 1; 0: empty), kept by tune_space_add */
    const struct tune_prior *prior; /* NULL: none */
    /* The work-group dimensions that parameters stand for, when the space has
     * any: sides of them (0 to 3), their parameters (-1: none) and each
     * level's length (owned, side_len[k][level]), so a model can learn from
     * the group's size and aspect as well as from each side. */
    int sides;
    int side_param[TUNE_MAX_SIDES];
    unsigned *side_len[TUNE_MAX_SIDES];
};

/* An empty space over nparams parameters (names and level counts filled by
 * the caller in params[]). nparams must be at most TUNE_MAX_PARAMS. */
void tune_space_init(struct tune_space *sp, int nparams);
/* Appends a point; returns its index. */
int tune_space_add(struct tune_space *sp, const int *coord);
/* The point with these levels, or -1. */
int tune_space_find(const struct tune_space *sp, const int *coord);
void tune_space_free(struct tune_space *sp);
/* Names parameters px and py as the work-group sides, their levels' lengths
 * vx[0..levels) and vy[0..levels) (copied): tune_space_set_shape with nd 2. */
void tune_space_set_sides(struct tune_space *sp, int px, const unsigned *vx, int py, const unsigned *vy);
/* Names nd (0 to TUNE_MAX_SIDES) parameters as the work-group's dimensions
 * x, y, z in that order: param[k] and its levels' lengths len[k][0..levels)
 * (copied). nd 0 declares no shape; 0, or -1 when nd or a parameter is out
 * of range (the space is left without a shape). */
int tune_space_set_shape(struct tune_space *sp, int nd, const int *param, const unsigned *const *len);
/* The distinct values of one side (dim 0: x, 1: y) of n shapes, increasing,
 * into out (room for n); returns how many. */
int tune_sides(const unsigned (*shapes)[2], int n, int dim, unsigned *out);
/* The index of x among the n values v, or -1. */
int tune_level_of(const unsigned *v, int n, unsigned x);
/* A space of work-group shapes: parameters x and y, ordinal, their levels
 * the distinct sides in increasing order; point i is shapes[i]. */
void tune_space_of_shapes(struct tune_space *sp, int n, const unsigned (*shapes)[2]);

struct tune_result {
    int best, runner_up; /* point indices; runner_up -1 when nothing else succeeded */
    double best_s, runner_up_s;
    double margin;   /* runner_up_s / best_s - 1 */
    double noise;    /* the larger relative spread of the two */
    int tie;         /* the margin is within the noise: not a winner */
    int evaluations; /* distinct points evaluated */
};

/* The tie rule: `other` is tied with `best` when it is slower by no more
 * than the larger relative spread (IQR / median) of the two, and never less
 * than half a percent. Tuning results, `best` and the replay tests use it. */
int tune_tied(double best_s, double best_noise, double other_s, double other_noise);

/* 1 when strategy names one of tune_search's strategies. */
int tune_strategy_known(const char *strategy);
#define TUNE_STRATEGIES "exhaustive, random, anneal, genetic or forest"

/* strategy: see TUNE_STRATEGIES. budget: the most distinct points to
 * evaluate (exhaustive ignores it). seed makes runs repeatable. Returns 0,
 * or -1 when no point succeeded or the strategy is unknown. */
int tune_search(const char *strategy, const struct tune_space *space, int budget, unsigned seed, tune_eval_fn eval,
                void *ctx, struct tune_result *out);
#endif
