/* `harness report APP`: a published report's tables and figures measured on
 * the devices present. The tables are data (report_def.h); this header is
 * the state the measuring, drawing and writing modules share. */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H
#include <stdint.h>

#include "base/util.h"
#include "core/app.h"
#include "core/runner.h"
#include "core/variants.h"
#include "report/report_def.h"
#include "store/store.h"

#define REPORT_MAX_DEVICES 16
/* The longest one repetition may run before a row is shortened and scaled
 * (report --budget), by default and with --quick. */
#define REPORT_BUDGET_S 0.4
#define REPORT_BUDGET_QUICK_S 0.02
/* report's defaults: repetitions, warm-up, and rounds (with --quick 2). */
#define REPORT_REPS 3
#define REPORT_WARMUP 1
#define REPORT_ROUNDS 3
#define REPORT_ROUNDS_QUICK 2

/* One measured config: a device, an input, a variant and a shape, at the
 * number of steps the time budget allowed (m.iters of m.iters_full). */
struct report_cell {
    int device, input;
    char variant[64];
    unsigned wg[2];
    struct measurement m; /* every round's samples (rounds.h) */
    int64_t mid;          /* its stored row, for the later rounds */
    /* TUNED_VARIANT: the device and input's stored configuration (its knobs,
     * its name; wg is its shape), or untuned = 1 where none is stored (the
     * cell says so and is not measured). */
    int tuned, untuned;
    struct knob_set knobs;
    char config[192];
};

/* What a cell's time means in a table: the median scaled to the input's
 * full step count (scaled = 1 when fewer steps ran), or a reason there is
 * no time (not run, failed verification, crashed, ...). */
struct report_time {
    double seconds; /* NaN when there is no time to show */
    int scaled, unverified;
    const char *why; /* "not run (--quick)", "wrong", ... when seconds is NaN */
};

struct report_device {
    struct device_info info;
    int ladder; /* runs every table, not only the device tables */
    int64_t run_id;
    double copy_gbs, fp32_gflops; /* measured ceilings, 0 when unknown */
};

struct report_loaded; /* an input loaded at one step count, with its reference */

struct report {
    const struct report_def *def;
    const struct app *app;
    struct variant_list vars;
    int quick;
    double target_s; /* the longest one repetition should take */
    long min_steps;  /* never fewer steps than this (or the input's own count) */
    int warmup, reps;
    int rounds; /* each cell's rounds: the first in table order, the rest shuffled */
    double timeout_s;
    int ndev;
    struct report_device dev[REPORT_MAX_DEVICES];
    int ncells, cap;
    struct report_cell *cells;
    struct report_loaded *loaded;
    int nloaded;
    struct store *store;
    struct worker_pool *pool;
    char command[1024], db_path[4096];
    struct launch_cost_summary {
        int have;
        double us_0_args, us_max_buffers, us_max_ints; /* per enqueue, medians */
        int max_args;
    } launch[REPORT_MAX_DEVICES];
    char out_md[4096], fig_dir[4096], fig_rel[1024];
    long full_iters[REPORT_MAX_INPUTS];
    int measured, failed;
    int drawing;                              /* 0 on the pass that measures every cell, 1 on the pass that writes */
    int measured_all;                         /* report_measure ran */
    int from_db;                              /* --from-db: cells come from the database; nothing is measured */
    char commit[48], compiler[128], when[64]; /* the build that measured, and when */
    int dirty;
    char host[2][600]; /* the host checks before and after (host_check.h), in words */
    int disturbed;     /* either found the host disturbed */
    int nnotes;        /* what the probes found (report_note), by key */
    char notes[8][2][512];
    double started;
};

/* report_run.c: measures (once) and returns a cell; NULL when the input is
 * not part of this run (--quick). TUNED_VARIANT is the device and input's
 * stored configuration at its own shape (wg is then not used). */
const struct report_cell *report_cell(struct report *r, int device, int input, const char *variant,
                                      const unsigned wg[2]);
/* A new, empty cell (the caller measures or loads it). */
struct report_cell *report_cell_new(struct report *r, int device, int input, const char *variant, const unsigned wg[2]);
/* TUNED_VARIANT's cell is found whatever wg is: there is one a device and input. */
const struct report_cell *report_find(const struct report *r, int device, int input, const char *variant,
                                      const unsigned wg[2]);
int report_input_runs(const struct report *r, int input);
/* The first and the last input this report runs (the definition lists them
 * smallest first), or -1 when none does. */
int report_input_run_first(const struct report *r);
int report_input_run_last(const struct report *r);
struct report_time report_time_of(const struct report *r, const struct report_cell *c);
/* The definition's rate (`rate`: the MLUPS column times its factor) of a
 * cell with a time; NaN where it has none or the definition no rate. */
double report_rate_of(const struct report *r, const struct report_cell *c);
/* The rounds after the first for every measured cell, all cells shuffled in
 * each round (rounds.h), appended to the cells and their stored rows. */
void report_more_rounds(struct report *r);
/* The log of each round's median of a cell, scaled to the input's full step
 * count; returns how many (at most max). */
int report_round_logs(const struct report_cell *c, double *out, int max);
void report_run_free(struct report *r);

/* report_load.c: the latest `harness report APP` of r->db_path as cells
 * (devices, ceilings, launch costs, every measurement). 0, or -1 with err. */
int report_load_db(struct report *r, char *err, size_t errn);

/* report_probe.c: is there an OpenACC compiler that offloads ("openacc"),
 * which other host languages are installed ("hostlang:Python")? Probed once
 * and stored with the report's runs; --from-db reads what was stored. */
const char *report_probe(struct report *r, const char *key);

/* report_figures.c: gnuplot figures into r->fig_dir; each returns the PNG's
 * path relative to the markdown file, or "" with a reason in why. */
int report_figure_wg(struct report *r, int device, int input, char *rel, size_t reln, char *why, size_t whyn);
int report_figure_roofline(struct report *r, int device, char *rel, size_t reln, char *why, size_t whyn);
/* The ladder (report_ladder_steps) at `input`: the rate of each step, or
 * 1/seconds where the definition has no rate, one series per ladder device. */
int report_figure_ladder(struct report *r, int input, char *rel, size_t reln, char *why, size_t whyn);
int report_figure_launch_cost(struct report *r, const char *db_path, char *rel, size_t reln, char *why, size_t whyn);

/* report_md.c: every cell measured (report_measure), then the markdown file
 * (tables, then figures drawn on the way). */
void report_measure(struct report *r);
int report_write_markdown(struct report *r);
/* report_resources.c: a resources table, registers and local memory per
 * kernel of the table's variants on every device that reports them, at the
 * first input the report runs; a sentence where no device does. */
void report_resources_table(struct report *r, const struct report_table *t, struct strbuf *b);
/* report_explain.c: where our speedup of `variant` over `from` goes the other
 * way from the report's, the measurements that say why, as one paragraph. */
void report_explain(struct report *r, struct strbuf *out, int device, int input, const char *variant, const char *from,
                    double ours, double theirs);
#endif
