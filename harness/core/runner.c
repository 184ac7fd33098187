#include "core/runner.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/devset.h"
#include "core/progress.h"
#include "core/worker.h"
#include "stats/stats.h"

void runner_describe(const struct config *c, struct measurement *m) {
    str_copy(m->app, sizeof m->app, c->app->name);
    str_copy(m->input, sizeof m->input, c->app->input_name(c->in));
    str_copy(m->variant, sizeof m->variant, c->variant);
    knobs_canonical(&c->knobs, m->knobs, sizeof m->knobs);
    m->wg[0] = c->wg[0];
    m->wg[1] = c->wg[1];
    m->iters = c->app->input_iters(c->in);
    m->iters_full = c->app->input_iters_full(c->in);
    m->cell_updates = c->app->cell_updates(c->in);
    m->resources[0] = 0;
    measurement_unknown(m);
}

_Static_assert(sizeof(((struct dev *)0)->resources) == sizeof(((struct measurement *)0)->resources),
               "a device's resources text fits a measurement's");

void runner_measure(struct dev *d, const struct config *c, struct ref_holder *refs, int warmup, int reps,
                    struct measurement *m, struct app_result **keep) {
    const struct app *app = c->app;
    runner_describe(c, m);
    char buf[ERR_MAX];
    const char *why = app_invalid(app, &c->knobs, c->in, &d->info, c->wg, buf, sizeof buf);
    if (why) {
        m->status = ST_INVALID;
        str_copy(m->reason, sizeof m->reason, why);
        return;
    }
    d->resources[0] = 0; /* this config's kernels only (a worker's device outlives its configs) */
    struct app_result *res = app->execute(d, c->in, &c->knobs, c->wg, warmup, reps, m);
    str_copy(m->resources, sizeof m->resources, d->resources);
    measurement_summarise(m, app->bytes_per_cell(&c->knobs));
    if (res && m->status == ST_OK) {
        if (!refs->ref) {
            char err[ERR_MAX] = "";
            refs->ref = app->reference(c->in, err, sizeof err);
            if (!refs->ref) {
                m->status = ST_RUNTIME_ERROR;
                snprintf(m->reason, sizeof m->reason, "reference: %s", err);
            }
        }
        if (refs->ref) app->verify(c->in, refs->ref, res, m);
        measurement_check_repetitions(m);
    }
    if (keep && res) *keep = res;
    else if (res) app->result_free(res);
}

void runner_job(const struct config *c, const struct device_info *dev, int warmup, int reps, struct job *j) {
    memset(j, 0, sizeof *j);
    *j = (struct job){
        .iters = c->source ? c->source->iters : 0, .warmup = warmup, .reps = reps, .wg = {c->wg[0], c->wg[1]}};
    str_copy(j->app, sizeof j->app, c->app->name);
    if (c->source && c->source->input) str_copy(j->input, sizeof j->input, c->source->input);
    if (c->source && c->source->params) str_copy(j->params, sizeof j->params, c->source->params);
    if (c->source && c->source->obstacles) str_copy(j->obstacles, sizeof j->obstacles, c->source->obstacles);
    str_copy(j->variant, sizeof j->variant, c->variant);
    knobs_canonical(&c->knobs, j->knobs, sizeof j->knobs);
    str_copy(j->device, sizeof j->device, dev->spec);
}

/* The serial reference under the config's watchdog: where the app keeps it
 * on disk, a child process makes it (the parent then loads it from the
 * cache), and one that outlives timeout_s is killed and the config is a
 * timeout. Before, `--iters 300000000 --timeout 3` ran the reference in the
 * command's own process at 40 s and on, its run row never ended. 0 when the
 * parent may go on (made, or not the app's kind), -1 with m's status set. */
int runner_reference_watched(const struct app *app, const struct app_input *in, double timeout_s,
                             struct measurement *m) {
    if (!app->reference_on_disk) return 0;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) return 0; /* no child: the parent makes it as before */
    if (pid == 0) {
        char err[ERR_MAX];
        struct app_ref *r = app->reference(in, err, sizeof err);
        _exit(r ? 0 : 1);
    }
    const double start = clock_now(), deadline = start + timeout_s, beat = progress_heartbeat_s();
    double next_beat = start + beat;
    int st = 0;
    for (;;) {
        const pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return 0; /* made (or failed: the parent says why) */
        /* A long reference says so, as a long config does (worker.c): the
         * DG solver's at the seed's case takes minutes on a small host. */
        if (!harness_quiet && clock_now() >= next_beat) {
            char so_far[32], limit[32];
            progress_duration(so_far, sizeof so_far, clock_now() - start);
            progress_duration(limit, sizeof limit, timeout_s);
            fprintf(stderr, "  ... %s %s: making the serial reference, %s so far (its watchdog: %s)\n", app->name,
                    app->input_name(in), so_far, limit);
            next_beat += beat;
        }
        if (w < 0 && errno != EINTR) return 0;
        if (harness_interrupted || clock_now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            m->status = harness_interrupted ? ST_CRASHED : ST_TIMEOUT;
            if (harness_interrupted) str_copy(m->reason, sizeof m->reason, "interrupted while making the serial reference");
            else
                snprintf(m->reason, sizeof m->reason,
                         "the serial reference did not finish within %.0f s (its process was killed)", timeout_s);
            return -1;
        }
        usleep(20000);
    }
}

void runner_measure_isolated(struct worker_pool *pool, const struct device_info *dev, const struct config *c,
                             struct ref_holder *refs, int warmup, int reps, double timeout_s, struct measurement *m) {
    const struct app *app = c->app;
    runner_describe(c, m);
    char buf[ERR_MAX];
    const char *why = app_invalid(app, &c->knobs, c->in, dev, c->wg, buf, sizeof buf);
    if (why) {
        m->status = ST_INVALID;
        str_copy(m->reason, sizeof m->reason, why);
        return;
    }
    /* Made here and cached for the worker; not for a setting that is never
     * verified (LBM's work=empty, whose step count the report's budget
     * stretches to thousands: a reference no one reads). */
    if (!refs->ref && (!app->verified || app->verified(&c->knobs))) {
        char err[ERR_MAX] = "";
        if (runner_reference_watched(app, c->in, timeout_s, m) != 0) return;
        refs->ref = app->reference(c->in, err, sizeof err);
    }
    struct job j;
    runner_job(c, dev, warmup, reps, &j);
    pool_run(pool, &j, timeout_s, m);
    measurement_summarise(m, app->bytes_per_cell(&c->knobs));
}

static const char *seconds(char *buf, size_t n, double s) {
    if (isnan(s)) str_copy(buf, n, "-");
    else if (s >= 1) snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.3f ms", s * 1e3);
    else snprintf(buf, n, "%.1f us", s * 1e6);
    return buf;
}

/* The spread as the coefficient of variation, "n/a" for one repetition:
 * relative, so it reads the same for 40 us and 40 s runs. */
static const char *spread(char *buf, size_t n, const struct measurement *m) {
    double cv = m->samples ? stats_cv(m->samples, (size_t)m->nsamples) : NAN;
    if (isnan(cv)) str_copy(buf, n, "CV n/a");
    else snprintf(buf, n, "CV %.1f%%", 100 * cv);
    return buf;
}

/* The arithmetic rate by the app's flops model (its counts per cell update
 * for these knobs) beside the bytes' effective rate, for an app that asks
 * (app.h: prints_gflops; DG's double precision at 1.3 flops a byte, where
 * the FP64 roof may bind as well as the copy's). */
static void print_gflops(FILE *out, const struct app *app, const struct measurement *m) {
    if (!app || !app->prints_gflops || !app->flops_per_cell || isnan(m->mlups)) return;
    struct knob_set k;
    char err[ERR_MAX];
    knobs_init(&k, app->knobs);
    if (knobs_apply(&k, m->knobs, err, sizeof err) != 0) return;
    fprintf(out, " %.1f GFLOP/s", m->mlups * app->flops_per_cell(&k) / 1e3);
}

void runner_print(FILE *out, const struct device_info *dev, const struct measurement *m, double peak_gbs) {
    char med[32], cv[32], peak[48] = "";
    fprintf(out, "%-10s %-8s %-9s %-16s %ux%-4u %-7s", dev->spec, m->app, m->input, m->variant, m->wg[0], m->wg[1],
            status_name(m->status));
    if (m->status == ST_OK || m->status == ST_WRONG || m->status == ST_UNVERIFIED) {
        /* "effective": the app's byte model counts what a cell update would
         * move with no cache, so it can exceed DRAM traffic (temporal blocking,
         * a grid that fits in a CPU's caches) and read past 100 % of the copy. */
        if (peak_gbs > 0 && !isnan(m->gbs)) snprintf(peak, sizeof peak, " (%.0f%% of copy)", 100 * m->gbs / peak_gbs);
        fprintf(out, " %s %s %.1f MLUPS %.1f eff. GB/s%s", seconds(med, sizeof med, m->median),
                spread(cv, sizeof cv, m), m->mlups, m->gbs, peak);
        const struct app *app = app_find(m->app);
        print_gflops(out, app, m);
        if (m->iters < m->iters_full)
            fprintf(out, "  [%ld/%ld steps, scaled %s]", m->iters, m->iters_full,
                    seconds(med, sizeof med, m->median * (double)m->iters_full / (double)m->iters));
        if (!isnan(m->result))
            fprintf(out, "  %s %.6g", app && app->result_label ? app->result_label : "result", m->result);
        if (!isnan(m->max_rel_err)) fprintf(out, "  err %.2g", m->max_rel_err);
        /* Only where the board's counter measured it (timed.h). */
        if (!isnan(m->energy_j) && !isnan(m->power_w))
            fprintf(out, "  %.4g %s/rep %.0f W", m->energy_j >= 1 ? m->energy_j : m->energy_j * 1e3,
                    m->energy_j >= 1 ? "J" : "mJ", m->power_w);
    }
    if (m->reason[0]) {
        /* The first line of the reason; build logs can be long. */
        size_t len = strcspn(m->reason, "\n");
        fprintf(out, "  (%.*s)", (int)(len > 300 ? 300 : len), m->reason);
    }
    fputc('\n', out);
}

/* One side of a shape: decimal digits only, 1..WG_MAX_EXTENT; the text
 * after it, or NULL. */
static const char *wg_side(const char *p, unsigned *out) {
    const char *start = p;
    unsigned long v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (unsigned long)(*p - '0')) > WG_MAX_EXTENT) return NULL;
    if (p == start || !v) return NULL;
    *out = (unsigned)v;
    return p;
}

int wg_parse(const char *text, unsigned wg[2]) {
    unsigned w, h;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    if (!(p = wg_side(p, &w)) || *p++ != 'x' || !(p = wg_side(p, &h))) return -1;
    while (isspace((unsigned char)*p)) p++;
    if (*p) return -1;
    wg[0] = w;
    wg[1] = h;
    return 0;
}

void wg_default(const struct app *app, const struct app_input *in, unsigned wg[2]) {
    if (app->default_wg[0] && app->default_wg[1]) {
        wg[0] = app->default_wg[0];
        wg[1] = app->default_wg[1];
        return;
    }
    size_t g[2];
    app->grid(in, g);
    wg[0] = 32;
    wg[1] = 1;
    while (wg[0] > 1 && g[0] % wg[0]) wg[0] /= 2;
}
