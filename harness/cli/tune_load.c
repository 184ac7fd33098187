/* tune_call.h: loading a tune call's searches and their spaces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/energy.h"
#include "base/util.h"
#include "cli/commands.h"
#include "cli/tune_call.h"
#include "core/variants.h"

/* A replay may name a device that is not in this machine by its fingerprint. */
static int is_fingerprint(const char *s) { return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16; }

/* Replay: the stored rows of each setting at one step count; keep_measured
 * keeps the points that have one. */
struct replay_load {
    struct store *store;
    struct tune_target *d;
    int n;
    struct replay_table *tables; /* per variant of the call */
    char (*knobs)[KNOBS_TEXT_MAX];         /* ... and its canonical knobs */
    long iters;
};

/* The stored row of a setting and shape: its index in the setting's table, or -1. */
static int replay_row(const struct replay_load *rl, const char *knobs, const unsigned wg[2], int *table) {
    for (int v = 0; v < rl->n; v++) {
        if (strcmp(rl->knobs[v], knobs)) continue;
        const struct replay_table *t = &rl->tables[v];
        for (int i = 0; i < t->n; i++)
            if (t->wg[i][0] == wg[0] && t->wg[i][1] == wg[1]) return *table = v, i;
        return -1;
    }
    return -1;
}

static int keep_measured(void *ctx, int variant, const char *knobs, const unsigned wg[2]) {
    int t;
    (void)variant;
    return replay_row(ctx, knobs, wg, &t) >= 0;
}

/* The power-of-two shapes within wg_max (x outer, y inner). */
static int pow2_shapes(long wg_max, unsigned (*out)[2]) {
    int n = 0;
    for (int i = 0; i < POW2_STEPS; i++)
        for (int j = 0; j < POW2_STEPS; j++)
            if ((1L << i) * (1L << j) <= wg_max) out[n][0] = 1u << i, out[n++][1] = 1u << j;
    return n;
}

static int load_input(const struct app *app, const struct app_opts *src, struct app_input **out, const char *where) {
    char err[ERR_MAX];
    if (!(*out = app->input_load(src, err, sizeof err))) {
        fprintf(stderr, "harness: %s%s%s\n", where ? where : "", where ? ": input: " : "", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* A sweep file's call: its app, variants, shapes, repetitions and (unless
 * --device) devices, the command line's options over the file's. 0, or
 * EXIT_USAGE with the reason. */
static int call_load_file(struct call *c, const struct app **app, char *devs_buf, size_t devs_n, const char **devices) {
    struct tune_opts *o = &c->o;
    char err[ERR_MAX];
    if (sweep_parse(o->file, &c->spec, err, sizeof err) != 0) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    c->have_spec = 1;
    if (o->app && strcmp(o->app, c->spec.app))
        return fprintf(stderr, "harness: tune: %s is for app %s, not %s\n", o->file, c->spec.app, o->app), EXIT_USAGE;
    if (!(*app = cli_app(c->spec.app))) return EXIT_USAGE;
    struct variant_list named;
    if (variants_load_app((*app)->name, (*app)->knobs, &named, err, sizeof err) != 0)
        return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    int rc = sweep_variants(&c->spec, (*app)->knobs, &named, &c->vars, err, sizeof err);
    variants_free(&named);
    if (rc) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    if (c->spec.nshapes) {
        c->shapes = xcalloc((size_t)c->spec.nshapes, sizeof *c->shapes);
        memcpy(c->shapes, c->spec.shapes, sizeof *c->shapes * (size_t)c->spec.nshapes);
        c->nshapes = c->spec.nshapes;
    } else {
        c->shapes = xcalloc(POW2_STEPS * POW2_STEPS, sizeof *c->shapes);
        c->nshapes = pow2_shapes(o->wg_max, c->shapes);
    }
    if (!o->reps_set) o->live.reps = c->spec.reps;
    if (!o->warmup_set) o->live.warmup = c->spec.warmup;
    if (!o->timeout_set) o->live.timeout_s = c->spec.timeout_s;
    if (!*devices) {
        for (int i = 0; i < c->spec.ndevices; i++)
            snprintf(devs_buf + strlen(devs_buf), devs_n - strlen(devs_buf), "%s%s", i ? "," : "", c->spec.devices[i]);
        *devices = c->spec.ndevices ? devs_buf : "all";
    }
    return 0;
}

/* Search d: input i (the file's, or the command line's) on device dv (none
 * for a replay by fingerprint), loaded, with its screening input, and able
 * to measure what the objective asks. 0, or the exit status. */
static int search_setup(struct call *c, struct tune_target *d, const struct app *app, int dv, int i, int by_fp,
                        const char *devices) {
    const struct tune_opts *o = &c->o;
    memset(d, 0, sizeof *d);
    d->app = app;
    d->src = o->in;
    if (o->file && !o->in.input && !o->in.params) d->src.input = c->spec.inputs[i];
    if (!d->src.iters && o->file) d->src.iters = c->spec.iters;
    char where[1200] = "";
    if (o->file && d->src.input == c->spec.inputs[i])
        snprintf(where, sizeof where, "%s:%d", o->file, c->spec.input_lines[i]);
    int rc = load_input(app, &d->src, &d->in, *where ? where : NULL);
    if (rc) return rc;
    if (o->live.screen && o->live.screen < app->input_iters(d->in)) {
        d->src_screen = d->src;
        d->src_screen.iters = o->live.screen;
        if ((rc = load_input(app, &d->src_screen, &d->in_screen, NULL)) != 0) return rc;
    }
    d->dev = by_fp ? NULL : &c->pick.all[c->pick.idx[dv]];
    if (d->dev && !strcmp(o->live.objective, "energy")) { /* a search that could measure nothing */
        char why[256] = "";
        struct energy_meter *em = energy_open_why(d->dev, why, sizeof why);
        if (!em)
            return fprintf(stderr, "harness: tune --objective energy: %s reports no energy%s%s\n", d->dev->spec,
                           *why ? ": " : " (an NVIDIA GPU with NVML has a meter)", why),
                   EXIT_USAGE;
        energy_close(em);
    }
    str_copy(d->fp, sizeof d->fp, d->dev ? d->dev->fingerprint : devices);
    str_copy(d->devname, sizeof d->devname, d->dev ? d->dev->spec : devices);
    d->configs = o->file != NULL;
    d->key_variant = d->configs ? TUNED_VARIANT : c->vars.v[0].name;
    return 0;
}

int tune_call_load(struct call *c) {
    struct tune_opts *o = &c->o;
    const char *devices = o->device;
    char devs_buf[1024] = "";
    const struct app *app;
    if (o->file) {
        int rc = call_load_file(c, &app, devs_buf, sizeof devs_buf, &devices);
        if (rc) return rc;
    } else {
        if (!(app = cli_app(o->app))) return EXIT_USAGE;
        if (cli_variants(app, o->variant, NULL, &c->vars) != 0) return EXIT_USAGE;
        c->shapes = xcalloc(POW2_STEPS * POW2_STEPS, sizeof *c->shapes);
        c->nshapes = pow2_shapes(o->wg_max, c->shapes);
    }
    /* Devices: a replay may name a fingerprint of a device not here. */
    int by_fp = o->replay && devices && is_fingerprint(devices);
    if (!by_fp) {
        int rc = o->file ? cli_devices_kinds_optional(devices, &c->pick) : cli_devices(devices, &c->pick);
        if (rc) return rc;
        if (!c->pick.count)
            return fprintf(stderr, "harness: tune: no device of the kinds named (%s) here\n", devices), EXIT_USAGE;
        if (!o->file && c->pick.count != 1)
            return fprintf(stderr, "harness: tune: '%s' names %d devices; a sweep file tunes several\n", devices,
                           c->pick.count),
                   EXIT_USAGE;
    }
    const int ndev = by_fp ? 1 : c->pick.count;
    const int ninputs = o->file && !o->in.input && !o->in.params ? c->spec.ninputs : 1;
    if ((long)ndev * ninputs > MAX_SEARCHES)
        return fprintf(stderr, "harness: tune: %d devices x %d inputs is more than %d searches in one call\n", ndev,
                       ninputs, MAX_SEARCHES),
               EXIT_USAGE;
    for (int dv = 0; dv < ndev; dv++)
        for (int i = 0; i < ninputs; i++) {
            int rc = search_setup(c, &c->s[c->nsearch++], app, dv, i, by_fp, devices);
            if (rc) return rc;
        }
    return 0;
}

/* The space of each search; in a replay, only what was measured. Exit 2
 * when a space is empty (nothing to search), 1 for a replay with nothing
 * stored. */
int tune_call_plan(struct call *c, struct store *store) {
    char err[ERR_MAX];
    for (int k = 0; k < c->nsearch; k++) {
        struct tune_target *d = &c->s[k];
        const struct app *app = d->app;
        struct replay_load rl = {store, d, c->vars.n, NULL, NULL, c->o.in.iters};
        if (c->o.replay) {
            rl.tables = xcalloc((size_t)c->vars.n, sizeof *rl.tables);
            rl.knobs = xcalloc((size_t)c->vars.n, sizeof *rl.knobs);
            for (int v = 0; v < c->vars.n; v++) {
                char *knobs = rl.knobs[v];
                knobs_canonical(&c->vars.v[v].knobs, knobs, sizeof rl.knobs[v]);
                if (store_replay_load_iters(store, d->fp, app->name, app->input_name(d->in), knobs, rl.iters,
                                            &rl.tables[v]) != 0) {
                    fprintf(stderr, "harness: %s\n", store_errmsg(store));
                    return EXIT_FOUND;
                }
                if (!rl.iters && rl.tables[v].n) rl.iters = rl.tables[v].iters; /* the first setting's newest */
                else if (rl.tables[v].n && rl.tables[v].iters != rl.iters) {
                    replay_free(&rl.tables[v]); /* measured at another step count only */
                    store_replay_load_iters(store, d->fp, app->name, app->input_name(d->in), knobs, rl.iters,
                                            &rl.tables[v]);
                }
                d->rskipped += rl.tables[v].skipped;
            }
        }
        int rc =
            tune_plan_build(&d->plan, app, d->in, d->dev, &c->vars, (const unsigned(*)[2])c->shapes, c->nshapes,
                            c->have_spec ? &c->spec : NULL, c->o.replay ? keep_measured : NULL, &rl, err, sizeof err);
        if (rc) {
            fprintf(stderr, "harness: tune: %s\n", err);
            rc = EXIT_USAGE;
        } else if (!d->plan.n && c->o.replay) {
            fprintf(stderr, "harness: tune --replay: no ok measurements of %s %s%s on %s%s in the database\n",
                    app->name, app->input_name(d->in), d->configs ? " in this space" : "", d->devname,
                    c->o.in.iters ? " at --iters" : "");
            rc = EXIT_FOUND;
        } else if (!d->plan.n) {
            fprintf(stderr,
                    "harness: tune: the space is empty for %s %s on %s: %d points, %d left out by constraints, %d "
                    "invalid (%s); nothing stored\n",
                    app->name, app->input_name(d->in), d->devname, d->plan.considered, d->plan.constrained,
                    d->plan.invalid, *d->plan.why ? d->plan.why : "no shape fits --wg-max");
            rc = EXIT_USAGE;
        }
        if (!rc && c->o.replay) { /* every point's figures, from its setting's table */
            d->rt = xcalloc((size_t)d->plan.n, sizeof *d->rt);
            d->rnoise = xcalloc((size_t)d->plan.n, sizeof *d->rnoise);
            d->rsamples = xcalloc((size_t)d->plan.n, sizeof *d->rsamples);
            d->riters = rl.iters;
            for (int i = 0; i < d->plan.n; i++) {
                int t;
                const int q = replay_row(&rl, d->plan.knobs[d->plan.pt[i].variant], d->plan.pt[i].wg, &t);
                d->rt[i] = rl.tables[t].median[q], d->rnoise[i] = rl.tables[t].noise[q];
                d->rsamples[i] = rl.tables[t].samples[q];
            }
        }
        for (int v = 0; rl.tables && v < c->vars.n; v++) replay_free(&rl.tables[v]);
        free(rl.tables);
        free(rl.knobs);
        if (rc) return rc;
    }
    return 0;
}

void tune_call_free(struct call *c) {
    for (int k = 0; k < c->nsearch; k++) {
        struct tune_target *d = &c->s[k];
        tune_plan_free(&d->plan);
        if (d->in) d->app->input_free(d->in);
        if (d->in_screen) d->app->input_free(d->in_screen);
        free(d->rt);
        free(d->rnoise);
        free(d->rsamples);
    }
    if (c->have_spec) sweep_free(&c->spec);
    variants_free(&c->vars);
    free(c->shapes);
    cli_devices_free(&c->pick);
}
