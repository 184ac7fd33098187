/* Sweep files: what to run, as data (files NAME.sweep in sweeps/). The format is
 * documented in sweeps/README.md. Parsing checks everything it can without a
 * device (names of knobs and values, generators, constraint expressions);
 * errors are "file:line: message". */
#ifndef HARNESS_SWEEP_FILE_H
#define HARNESS_SWEEP_FILE_H
#include <stddef.h>

#include "backend/backend.h"
#include "core/variants.h"

#define SWEEP_MAX_LIST 64
#define SWEEP_MAX_CONSTRAINTS 16
#define SWEEP_MAX_SHAPES 4096     /* distinct shapes over all wg lines */
#define SWEEP_MAX_EXTENT 1048576  /* the largest size one dimension may name */
#define SWEEP_MAX_EXPANSIONS 4096 /* variants from all knobs patterns together */
#define SWEEP_DEFAULT_ROUNDS 3    /* rounds.h: the fewest that show a spread between processes */
#define SWEEP_MAX_PATTERN 1024    /* a knobs line's text, its alternatives unexpanded */

struct sweep_pattern {
    char base[64];    /* a named variant to start from, or "" for the app's defaults */
    char knobs[SWEEP_MAX_PATTERN]; /* "k=v1|v2 k2=v3": the cartesian product of the alternatives */
    int line;
};

struct sweep_constraint {
    char expr[256]; /* e.g. "x*y <= max_wg", over the variables listed in sweeps/README.md */
    int line;
};

struct sweep_spec {
    char path[1024];
    char app[32];
    int app_line;
    int ninputs;
    char inputs[SWEEP_MAX_LIST][64]; /* the app's input names, unchecked here */
    int input_lines[SWEEP_MAX_LIST]; /* where each was named, for the app's errors */
    int nvariants;
    char variants[SWEEP_MAX_LIST][64]; /* named variants, or "all" */
    int variant_lines[SWEEP_MAX_LIST]; /* where each was named, for sweep_variants' errors */
    int npatterns;
    struct sweep_pattern patterns[SWEEP_MAX_LIST];
    int ndevices;
    char devices[SWEEP_MAX_LIST][64]; /* specs as --device takes them, or "all" */
    int nshapes;
    unsigned (*shapes)[2]; /* every shape of every wg line, deduplicated, in order */
    int nconstraints;
    struct sweep_constraint constraints[SWEEP_MAX_CONSTRAINTS];
    int reps, warmup; /* defaults 5 and 1; reps in all, over the rounds */
    int rounds;       /* fresh worker processes the reps are spread over */
    long iters;       /* 0: each input's own step count */
    double timeout_s; /* per config; default CONFIG_TIMEOUT_S (worker.h) */
};

int sweep_parse(const char *path, struct sweep_spec *s, char *err, size_t errn);
/* The same from a file's contents (up to its first NUL, where sweep_parse
 * stops too), `name` standing for the path in messages: fuzz/ feeds it. */
int sweep_parse_text(const char *name, const char *contents, struct sweep_spec *s, char *err, size_t errn);
void sweep_free(struct sweep_spec *s);

/* 1 when the shape satisfies every constraint on this device and grid; 0 with
 * the first failing constraint in `why` (e.g. "x*y <= max_wg: 2048 > 1024");
 * -1 when a constraint cannot be evaluated for this shape (a division by
 * zero, an overflow), with `why` as "file:line: ..." : the file is wrong,
 * not the shape (it used to count as outside, the sweep exit 0). */
int sweep_constraints_ok(const struct sweep_spec *s, const unsigned wg[2], const struct device_info *d,
                         const size_t grid[2], char *why, size_t whyn);

/* The variants the sweep names (named ones from `named`, "all" = every one of
 * them) followed by the expansions of every pattern, each a complete knob set
 * named "<base or custom>{k=v,...}" after the knobs the pattern set. Unknown
 * names give "file:line: ..." errors. */
int sweep_variants(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                   struct variant_list *out, char *err, size_t errn);
/* The same for a command that runs stored configurations (sweep): `variant
 * tuned` gives a placeholder (variant.tuned) it resolves per device and
 * input; sweep_variants refuses it with file:line. */
int sweep_variants_tuned(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                         struct variant_list *out, char *err, size_t errn);
#endif
