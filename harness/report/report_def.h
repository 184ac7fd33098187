/* A report definition: which tables a published report has, what each
 * measures, and the report's own numbers beside which ours are printed
 * (`harness report APP` reads kernels/APP/report.def). The format is
 * documented at the top of kernels/lbm/report.def; errors are
 * "file:line: message". The core knows no report by name: the tables are data. */
#ifndef HARNESS_REPORT_DEF_H
#define HARNESS_REPORT_DEF_H
#include <stddef.h>
#include <stdio.h>

#define REPORT_MAX_INPUTS 4
#define REPORT_MAX_TABLES 32
#define REPORT_MAX_ROWS 8
#define REPORT_MAX_SHAPES 64
#define REPORT_MAX_PROGRAMS 8 /* a `run VARIANT...` line: openacc tables take 4, resources tables 8 */
#define REPORT_MAX_LADDER 16  /* the ladder figure's steps */

enum report_kind {
    RK_STEP,     /* rows of variants, each against the step it builds on */
    RK_CLASSES,  /* one variant on one device of each named class (opencl/gpu, openmp, ...) */
    RK_DEVICES,  /* one variant on every device present */
    RK_OPENACC,  /* directive programs (`run` variants) on every directive device; a probe where none */
    RK_HOSTLANG, /* host languages: C, and those a `host` line names a variant for; others probed */
    RK_SPEEDUP,  /* a variant against a base, as a speedup (the report's final table) */
    RK_RESOURCES /* registers and local memory per kernel of `run` variants, per device that reports them */
};

/* One row of a step or speedup table: a variant, the variant its speedup is
 * taken against ("" for none), and the report's numbers per input (NaN = the
 * report has none). Published-only columns (classes, devices, probes) use
 * `label` instead of a variant; so does a step table's `pending` row, a row
 * of the report that cannot be measured here yet, with `why`. A hostlang
 * column with a `host` line has both: its label, and the variant that runs
 * that host language. */
struct report_row {
    char variant[64], from[64], label[96], why[160];
    double published[REPORT_MAX_INPUTS];
    int line;
};

struct report_table {
    int number;
    enum report_kind kind;
    char title[256];
    char variant[64]; /* classes, devices, hostlang: what runs */
    int nclasses;
    char classes[4][32]; /* classes: "backend" or "backend/kind" */
    int nprograms;
    char programs[REPORT_MAX_PROGRAMS][64]; /* openacc: the directive variants run on every directive device;
                                               resources: the variants whose kernels are listed */
    char against[64]; /* openacc: `against VARIANT`, the GPU devices' variant each directive cell is timed
                         against ("" for none) */
    int nrows;
    struct report_row rows[REPORT_MAX_ROWS];
    int line;
};

struct report_def {
    char path[1024];
    char app[32];
    char reference[128]; /* whose numbers: "Tesla P100 (seed 000)" */
    char figures_note[256]; /* figures-note: said where the figures start (a figure of the report with nothing to measure) */
    int ninputs, nquick;
    char inputs[REPORT_MAX_INPUTS][64];
    char quick[REPORT_MAX_INPUTS][64]; /* the inputs --quick runs (a subset of inputs) */
    unsigned wg[2];                    /* the shape every table runs with */
    char wg_variant[64];               /* the work-group figures' variant */
    int nshapes;
    unsigned shapes[REPORT_MAX_SHAPES][2];
    char roofline_variant[64];
    char host_empty[64], host_full[64]; /* host-probe: the empty twin of a variant */
    /* rate LABEL "UNIT" FACTOR: a rate column beside each time, the
     * measurement's MLUPS times FACTOR ("P", "cell updates/s", 1e6);
     * factor 0 where the definition has none. */
    char rate_label[16], rate_unit[48];
    double rate_factor;
    /* ladder-figure [VARIANT...]: the rate (or 1/seconds) of each step,
     * one series per ladder device; no variants named: the step tables'
     * rows in order. */
    int ladder_figure, nladder;
    char ladder[REPORT_MAX_LADDER][64];
    int ntables;
    struct report_table tables[REPORT_MAX_TABLES];
};

int report_def_parse(const char *path, struct report_def *d, char *err, size_t errn);
/* The same from an open stream (the caller closes it), `name` standing for
 * the path in messages: what fuzz/ feeds from memory through fmemopen. */
int report_def_read(FILE *f, const char *name, struct report_def *d, char *err, size_t errn);
const char *report_kind_name(enum report_kind k);
/* The ladder figure's steps into out (room for REPORT_MAX_LADDER): the
 * `ladder-figure` line's variants, else every step table's measured rows in
 * order, each once. Returns how many. */
int report_ladder_steps(const struct report_def *d, const char *out[]);
/* The index of an input in d->inputs, or -1. */
int report_input_index(const struct report_def *d, const char *input);
#endif
