/* Launch cost: how long the host takes to launch a near-empty kernel, as a
 * function of how many arguments it has and of what kind (buffers or ints).
 * This is the measurement behind the OpenCL report's Figure 1 ("time to
 * queue 50000 kernels with n arguments"), generic over every backend.
 *
 * For each argument count n and kind, a kernel with n parameters of that
 * kind is generated in the backend's language and built; after a warm-up,
 * `launches` launches of a 1x1 grid are timed on the host's monotonic
 * clock, twice over: the loop of launch() calls alone ("enqueue") and until
 * finish() returns ("total"). Arguments go through backend->launch on every
 * launch, exactly as apps pass them, so the enqueue time includes setting
 * them. Repetitions are interleaved over all (kind, n) pairs, so a slow
 * patch of the machine spreads over every point instead of bending one.
 *
 * Typical use (what `harness launch-cost` does):
 *
 *     struct launch_cost_opts o;
 *     launch_cost_defaults(&o);
 *     struct launch_cost_row rows[LAUNCH_COST_MAX_ROWS];
 *     int n = launch_cost_measure(dev, &o, rows, LAUNCH_COST_MAX_ROWS, err, sizeof err);
 *     int64_t run = store_run_begin(store, &dev->info, "my command", err, sizeof err);
 *     launch_cost_store(store, run, rows, n, err, sizeof err);
 *     store_run_end(store, run);
 *     launch_cost_plot(db_path, "fig1.png", NULL, err, sizeof err); (report/launch_cost_plot.h)
 *
 * Times in rows and in the database are seconds for the whole loop of one
 * repetition; per launch is seconds / launches. */
#ifndef HARNESS_LAUNCH_COST_H
#define HARNESS_LAUNCH_COST_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"

enum launch_cost_kind { LAUNCH_COST_BUFFER, LAUNCH_COST_INT };
#define LAUNCH_COST_KINDS 2

#define LAUNCH_COST_MAX_COUNTS 64 /* argument counts in one measurement */
#define LAUNCH_COST_MAX_REPS 100
#define LAUNCH_COST_MAX_ROWS (LAUNCH_COST_KINDS * LAUNCH_COST_MAX_COUNTS)
#define LAUNCH_COST_KERNEL "lc_probe" /* the generated kernel's name */

struct launch_cost_opts {
    int counts[LAUNCH_COST_MAX_COUNTS]; /* argument counts, each 0..KARG_MAX */
    int ncounts;
    long launches; /* timed launches per repetition (default 50000) */
    int reps;      /* repetitions (default 5, at most LAUNCH_COST_MAX_REPS) */
    int warmup;    /* untimed launches per (kind, n) before the first repetition (default 300) */
};

/* One (kind, argument count): every repetition and their quartiles. */
struct launch_cost_row {
    enum launch_cost_kind kind;
    int nargs;
    long launches;
    int reps;
    double enqueue_s[LAUNCH_COST_MAX_REPS]; /* per repetition: the launch() loop alone */
    double total_s[LAUNCH_COST_MAX_REPS];   /* per repetition: until finish() returned */
    double enqueue_median_s, enqueue_q1_s, enqueue_q3_s;
    double total_median_s, total_q1_s, total_q3_s;
};

/* The defaults: counts 0,1,2,4,8,12,16,24,32; 50000 launches; 5 reps; 300 warm-up. */
void launch_cost_defaults(struct launch_cost_opts *o);
/* Parses a comma-separated list of argument counts ("0,4,16") into o->counts.
 * 0, or -1 with err naming the bad value (not a number, negative, above
 * KARG_MAX, twice, or too many). o is unchanged on failure. */
int launch_cost_parse_counts(const char *list, struct launch_cost_opts *o, char *err, size_t errn);
/* "buffer" or "int": the database's and the CSV's spelling. */
const char *launch_cost_kind_name(enum launch_cost_kind k);

/* The probe kernel's source for a backend (by name, through its ops):
 * LAUNCH_COST_KERNEL with nargs parameters of the kind. Buffer kernels have
 * work-item 0 store nargs into a0 (so the launch has an effect that can be
 * checked and cannot be optimised away); int kernels store nothing, since a
 * place to store would be a buffer argument. malloc'd; NULL for an unknown
 * backend or nargs outside 0..KARG_MAX. */
char *launch_cost_source(const char *backend, enum launch_cost_kind kind, int nargs);
/* Each backend's probe (backend_ops.launch_cost_src), in launch_cost_src.c. */
void launch_cost_src_opencl(struct strbuf *b, int buffers, int nargs);
void launch_cost_src_cuda(struct strbuf *b, int buffers, int nargs);
void launch_cost_src_openmp(struct strbuf *b, int buffers, int nargs);
void launch_cost_src_openacc(struct strbuf *b, int buffers, int nargs);
void launch_cost_src_omp_target(struct strbuf *b, int buffers, int nargs);

/* Measures every (kind, count) of o on an open device (any backend) into
 * rows, in the order buffer then int, counts as given. Returns the number of
 * rows (2 * o->ncounts), or -1 with err (a build log, a refused launch, a
 * buffer kernel whose store did not arrive). maxrows must hold them all. */
int launch_cost_measure(struct dev *d, const struct launch_cost_opts *o, struct launch_cost_row *rows, int maxrows,
                        char *err, size_t errn);

/* One row as one line of text ("row ..."), and back: what a probe process
 * (core/probe_isolated.h) sends its parent. read: 0, or -1 for a line that
 * is not a whole row. */
void launch_cost_row_write(FILE *f, const struct launch_cost_row *r);
int launch_cost_row_read(const char *line, struct launch_cost_row *r);

struct store;
/* Stores rows under a run from store_run_begin (its device is the row's
 * device), one transaction for all of them, repetitions included.
 * 0, or -1 with err. */
int launch_cost_store(struct store *s, int64_t run_id, const struct launch_cost_row *rows, int nrows, char *err,
                      size_t errn);
#endif
