/* Measuring a report's cells: each config once, isolated and verified like
 * every other run, stored in the database, at as many of the input's steps
 * as the time budget allows.
 *
 * Why a budget: the report's slowest rows (the given program copies the
 * whole grid both ways every step) take minutes at full length, and a
 * report is meant to be re-run on every device. A row's length is chosen
 * from the per-step time already seen: the same variant on the previous
 * input scaled by the cell count, else the slowest per-step time seen on
 * this input; a row that then ran much shorter than the budget allows is
 * measured again at the longer length. The step count is the input's own divided by a power of two
 * (so few distinct references are computed), never below min_steps, and a
 * shortened row is scaled to the full count and marked so in every table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "core/progress.h"
#include "core/rounds.h"
#include "core/worker.h"
#include "report/report.h"
#include "store/store_tuned.h"

struct report_loaded {
    int input;
    long iters;
    struct app_opts opts;
    struct app_input *in;
    struct ref_holder refs;
};

int report_input_runs(const struct report *r, int input) {
    if (!r->quick) return 1;
    for (int i = 0; i < r->def->nquick; i++)
        if (!strcmp(r->def->quick[i], r->def->inputs[input])) return 1;
    return 0;
}

int report_input_run_first(const struct report *r) {
    for (int in = 0; in < r->def->ninputs; in++)
        if (report_input_runs(r, in)) return in;
    return -1;
}

int report_input_run_last(const struct report *r) {
    for (int in = r->def->ninputs - 1; in >= 0; in--)
        if (report_input_runs(r, in)) return in;
    return -1;
}

const struct report_cell *report_find(const struct report *r, int device, int input, const char *variant,
                                      const unsigned wg[2]) {
    for (int i = 0; i < r->ncells; i++) {
        const struct report_cell *c = &r->cells[i];
        if (c->device == device && c->input == input && !strcmp(c->variant, variant) &&
            ((c->wg[0] == wg[0] && c->wg[1] == wg[1]) || !strcmp(variant, TUNED_VARIANT)))
            return c;
    }
    return NULL;
}

static struct report_loaded *load(struct report *r, int input, long iters) {
    for (int i = 0; i < r->nloaded; i++)
        if (r->loaded[i].input == input && r->loaded[i].iters == iters) return &r->loaded[i];
    struct app_opts o = {.input = r->def->inputs[input], .iters = iters};
    char err[ERR_MAX];
    struct app_input *in = r->app->input_load(&o, err, sizeof err);
    if (!in) {
        fprintf(stderr, "harness report: %s\n", err);
        return NULL;
    }
    r->loaded = xrealloc(r->loaded, (size_t)(r->nloaded + 1) * sizeof *r->loaded);
    struct report_loaded *l = &r->loaded[r->nloaded++];
    *l = (struct report_loaded){.input = input, .iters = iters, .opts = o, .in = in, .refs = {r->app, in, NULL}};
    return l;
}

static double seconds_per_step(const struct report_cell *c) {
    const struct measurement *m = &c->m;
    if (isnan(m->median) || m->iters <= 0) return NAN;
    return m->median / (double)m->iters;
}

/* The per-step time to expect for this cell, or NaN when nothing is known. */
static double estimate(struct report *r, int device, int input, const char *variant) {
    double same_prev = NAN, slowest_here = NAN;
    for (int i = 0; i < r->ncells; i++) {
        const struct report_cell *c = &r->cells[i];
        const double s = seconds_per_step(c);
        if (c->device != device || isnan(s)) continue;
        if (c->input == input && !(s <= slowest_here)) slowest_here = s;
        if (c->input != input && !strcmp(c->variant, variant)) {
            /* Scale by cells: exact for bandwidth-bound rows, an
             * overestimate for launch-bound ones (the safe side). */
            const struct report_loaded *one = load(r, input, 1);
            if (!one) continue;
            const double cells = r->app->cell_updates(one->in);
            const double cells_then = c->m.cell_updates / (double)c->m.iters;
            same_prev = s * cells / cells_then;
        }
    }
    return !isnan(same_prev) ? same_prev : slowest_here;
}

static long steps_for(const struct report *r, int input, double per_step) {
    const long full = r->full_iters[input];
    long iters = full;
    if (isnan(per_step)) {
        iters = r->min_steps; /* nothing known: a short first row teaches the rest */
    } else {
        while (iters / 2 >= r->min_steps && per_step * (double)iters > r->target_s) iters /= 2;
    }
    return iters < full ? iters : full;
}

/* The knobs a cell runs: its tuned configuration's, its variant's, or for
 * "VARIANT+k=v,..." (Table 15's compiler columns: a06-async+cc=clang) the
 * variant's with those on top, kept in the cell. NULL when the definition
 * names no such variant or the knobs do not apply. */
static const struct knob_set *cell_knobs(const struct report *r, struct report_cell *c) {
    if (c->tuned) return &c->knobs;
    const struct variant *v = variant_find(&r->vars, c->variant);
    if (v) return &v->knobs;
    const char *plus = strchr(c->variant, '+');
    char base[64], err[ERR_MAX];
    if (!plus || (size_t)(plus - c->variant) >= sizeof base) return NULL;
    str_fmt(base, sizeof base, "%.*s", (int)(plus - c->variant), c->variant);
    if (!(v = variant_find(&r->vars, base))) return NULL;
    c->knobs = v->knobs;
    return knobs_apply(&c->knobs, plus + 1, err, sizeof err) ? NULL : &c->knobs;
}

static void measure(struct report *r, struct report_cell *c, long iters) {
    const struct report_device *dv = &r->dev[c->device];
    struct report_loaded *l = load(r, c->input, iters);
    const struct knob_set *v = cell_knobs(r, c);
    memset(&c->m, 0, sizeof c->m);
    measurement_unknown(&c->m);
    if (harness_interrupted) { /* Ctrl-C: what is measured stays; nothing new starts */
        c->m.status = ST_CRASHED;
        str_copy(c->m.reason, sizeof c->m.reason, "interrupted");
        return;
    }
    if (!l || !v) {
        c->m.status = ST_INVALID;
        str_copy(c->m.reason, sizeof c->m.reason, !l ? "the input did not load" : "no such variant");
        return;
    }
    struct config cfg = {.app = r->app, .in = l->in, .source = &l->opts, .knobs = *v, .wg = {c->wg[0], c->wg[1]}};
    str_copy(cfg.variant, sizeof cfg.variant, c->variant);
    runner_measure_isolated(r->pool, &dv->info, &cfg, &l->refs, r->warmup, rounds_reps_each(r->reps, r->rounds),
                            r->timeout_s, &c->m);
    c->m.rounds = r->rounds > 1 && (c->m.status == ST_OK || c->m.status == ST_UNVERIFIED) ? r->rounds : 1;
    c->m.rounds_done = 1;
    runner_print(stdout, &dv->info, &c->m, dv->copy_gbs);
    fflush(stdout);
    char err[ERR_MAX];
    if (dv->run_id >= 0 && store_measurement_id(r->store, dv->run_id, &c->m, &c->mid, err, sizeof err) != 0)
        fprintf(stderr, "harness report: %s\n", err);
}

struct report_cell *report_cell_new(struct report *r, int device, int input, const char *variant,
                                    const unsigned wg[2]) {
    if (r->ncells == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->cells = xrealloc(r->cells, (size_t)r->cap * sizeof *r->cells);
    }
    struct report_cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    c->device = device;
    c->input = input;
    str_copy(c->variant, sizeof c->variant, variant);
    c->wg[0] = wg[0];
    c->wg[1] = wg[1];
    return c;
}

/* Measures a new cell at the steps the budget picks. */
static void cell_measure(struct report *r, struct report_cell *c) {
    const double per_step = estimate(r, c->device, c->input, c->variant);
    long iters = steps_for(r, c->input, per_step);
    measure(r, c, iters);
    /* The estimate errs long (it is the slowest row seen), so a row often
     * ran short: when the budget allows four times the steps or more, it is
     * measured again at the length the budget picks. */
    const long better = steps_for(r, c->input, seconds_per_step(c));
    if (better >= 4 * iters) {
        measurement_free(&c->m);
        measure(r, c, better);
    }
    r->measured++;
    r->failed += c->m.status != ST_OK && c->m.status != ST_UNVERIFIED && c->m.status != ST_INVALID;
}

/* TUNED_VARIANT's cell: the stored configuration of the device and input,
 * or a cell that says there is none (and a note). */
static const struct report_cell *tuned_cell(struct report *r, int device, int input) {
    struct report_loaded *l = load(r, input, 1); /* for its name; estimate() loads it so too */
    struct variant tv;
    struct tuned_config cfg;
    unsigned wg[2] = {r->def->wg[0], r->def->wg[1]};
    char why[ERR_MAX] = "the input did not load";
    const int rc =
        l ? store_tuned_variant(r->store, r->app, l->in, &r->dev[device].info, &tv, wg, &cfg, why, sizeof why) : -1;
    struct report_cell *c = report_cell_new(r, device, input, TUNED_VARIANT, wg);
    if (rc != 0) {
        note("report: %s; its cells say \"not tuned\"\n", why);
        c->untuned = 1;
        c->m.status = ST_INVALID;
        c->m.median = NAN;
        str_copy(c->m.reason, sizeof c->m.reason, why);
        return c;
    }
    c->tuned = 1;
    c->knobs = tv.knobs;
    str_copy(c->config, sizeof c->config, cfg.config);
    cell_measure(r, c);
    return c;
}

const struct report_cell *report_cell(struct report *r, int device, int input, const char *variant,
                                      const unsigned wg[2]) {
    const struct report_cell *done = report_find(r, device, input, variant, wg);
    const int tuned = !strcmp(variant, TUNED_VARIANT);
    if (done) return done;
    if (!report_input_runs(r, input)) return NULL;
    if (r->from_db && tuned) { /* the report ran, and stored no configuration here: there was none */
        struct report_cell *c = report_cell_new(r, device, input, variant, wg);
        c->untuned = 1;
        c->m.status = ST_INVALID;
        c->m.median = NAN;
        str_copy(c->m.reason, sizeof c->m.reason, "no tuned configuration when the report ran");
        return c;
    }
    if (r->from_db) return NULL;
    if (tuned) return tuned_cell(r, device, input);
    struct report_cell *c = report_cell_new(r, device, input, variant, wg);
    cell_measure(r, c);
    return c;
}

struct report_time report_time_of(const struct report *r, const struct report_cell *c) {
    struct report_time t = {NAN, 0, 0, NULL};
    if (!c) {
        t.why = r->quick ? "not run (--quick)" : "not run";
        return t;
    }
    const struct measurement *m = &c->m;
    if (c->untuned) {
        t.why = "not tuned";
        return t;
    }
    if (m->status != ST_OK && m->status != ST_UNVERIFIED) {
        t.why = status_name(m->status);
        return t;
    }
    t.seconds = m->median * (double)m->iters_full / (double)m->iters;
    t.scaled = m->iters < m->iters_full;
    t.unverified = m->status == ST_UNVERIFIED;
    return t;
}

double report_rate_of(const struct report *r, const struct report_cell *c) {
    if (!(r->def->rate_factor > 0) || isnan(report_time_of(r, c).seconds) || !(c->m.mlups > 0)) return NAN;
    /* MLUPS comes from the median of the steps that ran, so the rate needs
     * no scaling where the time does (rate x time = the input's updates). */
    return c->m.mlups * r->def->rate_factor;
}

void report_run_free(struct report *r) {
    for (int i = 0; i < r->ncells; i++) measurement_free(&r->cells[i].m);
    free(r->cells);
    for (int i = 0; i < r->nloaded; i++) {
        if (r->loaded[i].refs.ref) r->app->ref_free(r->loaded[i].refs.ref);
        r->app->input_free(r->loaded[i].in);
    }
    free(r->loaded);
    variants_free(&r->vars);
}

/* ---- the rounds after the first ---------------------------------------- */

struct more_ctx {
    struct report *r;
    struct report_cell **cells; /* per job */
    struct round_job *jobs;
};

static void more_result(void *ctx, struct round_job *j, int round, int first_sample) {
    struct more_ctx *c = ctx;
    (void)round;
    struct report_cell *cell = c->cells[j - c->jobs];
    char err[ERR_MAX];
    if (cell->mid > 0 && store_measurement_more(c->r->store, cell->mid, &j->m, first_sample, err, sizeof err) != 0)
        fprintf(stderr, "harness report: %s\n", err);
    if (j->m.status != ST_OK && j->m.status != ST_UNVERIFIED) c->r->failed++;
}

static void more_round_end(void *ctx, const struct round_state *st) {
    struct more_ctx *c = ctx;
    char err[ERR_MAX];
    for (int d = 0; d < c->r->ndev; d++)
        if (c->r->dev[d].run_id >= 0) store_round_state(c->r->store, c->r->dev[d].run_id, st, err, sizeof err);
    rounds_note(stderr, "report", st);
}

void report_more_rounds(struct report *r) {
    if (r->rounds < 2 || harness_interrupted) return;
    struct round_job *jobs = xcalloc((size_t)r->ncells + 1, sizeof *jobs);
    struct report_cell **cells = xcalloc((size_t)r->ncells + 1, sizeof *cells);
    int n = 0;
    for (int i = 0; i < r->ncells; i++) {
        struct report_cell *c = &r->cells[i];
        if (c->m.status != ST_OK && c->m.status != ST_UNVERIFIED) continue;
        struct report_loaded *l = load(r, c->input, c->m.iters);
        const struct knob_set *v = cell_knobs(r, c);
        if (!l || !v) continue;
        struct config cfg = {.app = r->app, .in = l->in, .source = &l->opts, .knobs = *v, .wg = {c->wg[0], c->wg[1]}};
        str_copy(cfg.variant, sizeof cfg.variant, c->variant);
        struct round_job *j = &jobs[n];
        runner_job(&cfg, &r->dev[c->device].info, r->warmup, rounds_reps_each(r->reps, r->rounds), &j->job);
        j->group = -1;
        j->timeout_s = r->timeout_s;
        j->bytes_per_cell = r->app->bytes_per_cell(v);
        j->first = 1;
        j->m = c->m; /* the cell's measurement, with its first round; handed back below */
        j->m.rounds = r->rounds;
        cells[n++] = c;
    }
    printf("report: rounds 2..%d of %d cells, each round a fresh worker per device, cells shuffled\n", r->rounds, n);
    fflush(stdout);
    struct more_ctx ctx = {r, cells, jobs};
    struct rounds_opts o = {.seed = (unsigned)(clock_now() * 1e3),
                            .on_result = more_result,
                            .on_round = more_round_end,
                            .ctx = &ctx,
                            .what = "report"};
    rounds_run(jobs, n, &o);
    for (int i = 0; i < n; i++) cells[i]->m = jobs[i].m;
    free(jobs);
    free(cells);
}

int report_round_logs(const struct report_cell *c, double *out, int max) {
    const struct measurement *m = &c->m;
    if (m->status != ST_OK && m->status != ST_UNVERIFIED) return 0;
    double *med = xcalloc((size_t)m->nsamples + 1, sizeof *med);
    int k = measurement_round_medians(m, med);
    const double scale = (double)m->iters_full / (double)m->iters;
    int n = 0;
    for (int i = 0; i < k && n < max; i++)
        if (med[i] > 0) out[n++] = log(med[i] * scale);
    free(med);
    return n;
}
