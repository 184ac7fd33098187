/* tune_eval.h: the evaluators behind tune_eval_fn. */
#include "tune/tune_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/worker.h"

#define VERDICT_CLOSE 0.05 /* the verdict takes, of the VERDICT_SHAPES best, those within this of the best */

const char *tune_secs(char *buf, size_t n, double s) {
    if (s >= 1) snprintf(buf, n, "%.4f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.4f ms", s * 1e3);
    else snprintf(buf, n, "%.2f us", s * 1e6);
    return buf;
}

/* The configuration of point i at full length or at the screening length. */
void tune_point_config(const struct tune_live *l, int i, int screen, struct config *cfg) {
    const struct tune_target *d = l->d;
    const struct variant *v = &d->plan.vars.v[d->plan.pt[i].variant];
    memset(cfg, 0, sizeof *cfg);
    cfg->app = d->app;
    cfg->in = screen ? d->in_screen : d->in;
    cfg->source = screen ? &d->src_screen : &d->src;
    cfg->knobs = v->knobs;
    str_copy(cfg->variant, sizeof cfg->variant, v->name);
    cfg->wg[0] = d->plan.pt[i].wg[0], cfg->wg[1] = d->plan.pt[i].wg[1];
}

/* After each evaluation: how far the search is, the time left at the pace
 * so far (the finalists and the verdict come on top), the best so far. */
static void progress(struct tune_live *l) {
    int b = -1;
    for (int i = 0; i < l->d->plan.n; i++)
        if (isfinite(l->seen[i]) && (b < 0 || l->seen[i] < l->seen[b])) b = i;
    char best[320] = "best so far: none yet", fig[32];
    if (b >= 0) {
        if (strcmp(l->o->objective, "energy")) tune_secs(fig, sizeof fig, l->seen[b]);
        else snprintf(fig, sizeof fig, "%.4g J", l->seen[b]);
        snprintf(best, sizeof best, "best so far %ux%u %s%s%s", l->d->plan.pt[b].wg[0], l->d->plan.pt[b].wg[1], fig,
                 l->d->configs ? " " : "", l->d->configs ? tune_point_name(l->d, b) : "");
    }
    l->pr.total = l->planned;
    progress_update(&l->pr, l->measured, best);
}

/* Measures one configuration in a worker and hands the row to l->keep; the figure
 * the objective asks for, or -1 when it failed. */
static double measure(struct tune_live *l, const struct config *cfg, int screen, double *noise) {
    struct measurement m = {0};
    const double t0 = clock_now();
    runner_measure_isolated(l->pool, l->d->dev, cfg, screen ? &l->refs_screen : &l->refs, l->o->warmup, l->o->reps,
                            l->o->timeout_s, &m);
    l->device_s += clock_now() - t0;
    double v = -1;
    if (!harness_interrupted) { /* an interrupted row says nothing about the point */
        progress_end(&l->pr);   /* a terminal's progress line makes way */
        runner_print(stdout, l->d->dev, &m, l->peak);
        if (l->keep) l->keep(l->keep_ctx, &m);
        if (m.status == ST_OK && m.median > 0) {
            *noise = (m.q3 - m.q1) / m.median;
            v = m.median;
            if (!strcmp(l->o->objective, "energy")) {
                v = m.energy_j > 0 ? m.energy_j : -1;
                if (v < 0) note("%s reports no energy for this run: counted as failed\n", l->d->devname);
            }
        }
    }
    measurement_free(&m);
    return v;
}

double tune_live_eval(void *ctx, int point, double *noise) {
    struct tune_live *l = ctx;
    if (harness_interrupted) return -1; /* spend what is left of the budget at once */
    struct config cfg;
    tune_point_config(l, point, l->d->in_screen != NULL, &cfg);
    const double v = measure(l, &cfg, l->d->in_screen != NULL, noise);
    if (!harness_interrupted) {
        l->measured++;
        l->seen[point] = v > 0 ? v : INFINITY;
        progress(l);
    }
    return v;
}

double tune_stored_eval(void *ctx, int point, double *noise) {
    struct tune_stored *r = ctx;
    const struct tune_target *d = r->d;
    const double t = d->rt[point];
    *noise = d->rnoise[point];
    char a[32];
    printf("  %3d  %4ux%-4u  %s", ++r->count, d->plan.pt[point].wg[0], d->plan.pt[point].wg[1], tune_secs(a, sizeof a, t));
    if (!isnan(*noise)) printf("  IQR %.1f%%", 100 * *noise);
    if (d->configs) printf("  %s", tune_point_name(d, point));
    printf("\n");
    return t > 0 ? t : -1;
}

/* The k best points by fig (ascending), skipping NAN and INFINITY. */
static int top_points(const double *fig, int n, int k, int *out) {
    int m = 0;
    for (int q = 0; q < k; q++) {
        int b = -1;
        for (int i = 0; i < n; i++) {
            if (!isfinite(fig[i])) continue;
            int used = 0;
            for (int j = 0; j < m; j++) used |= out[j] == i;
            if (!used && (b < 0 || fig[i] < fig[b])) b = i;
        }
        if (b < 0) break;
        out[m++] = b;
    }
    return m;
}

/* Screening: the finalists measured at full length. */
void tune_finalists(struct tune_live *l) {
    const int n = l->d->plan.n;
    int *pick = xcalloc((size_t)l->o->finalists, sizeof *pick);
    const int m = top_points(l->seen, n, l->o->finalists, pick);
    printf("\nfinalists: the %d best of the %ld-step search at full length (%ld steps)\n", m, l->o->screen,
           l->d->app->input_iters(l->d->in));
    fflush(stdout);
    for (int k = 0; k < m && !harness_interrupted; k++) {
        struct config cfg;
        double noise = NAN;
        tune_point_config(l, pick[k], 0, &cfg);
        const double v = measure(l, &cfg, 0, &noise);
        l->full[pick[k]] = v > 0 ? v : INFINITY;
    }
    free(pick);
}

void tune_cand_of_point(const struct tune_live *l, int i, struct verdict_cand *c) {
    memset(c, 0, sizeof *c);
    tune_point_config(l, i, 0, &c->cfg);
    c->point = i;
}

/* The verdict among the best the search found (by full-length figures when
 * it screened) and the stored configuration. */
void tune_judge(struct tune_live *l, struct tune_outcome *oc) {
    const struct tune_live_opts *o = l->o;
    const double *fig = l->d->in_screen ? l->full : l->seen;
    const int n = l->d->plan.n;
    int pick[VERDICT_SHAPES];
    int m = top_points(fig, n, VERDICT_SHAPES, pick);
    while (m > 2 && fig[pick[m - 1]] > fig[pick[0]] * (1 + VERDICT_CLOSE)) m--; /* the close ones only */
    if (m >= 1) {
        oc->r.best = pick[0], oc->r.best_s = fig[pick[0]];
        tune_cand_of_point(l, pick[0], &oc->best);
    }
    oc->other.point = -2;
    if (m >= 2) {
        oc->r.runner_up = pick[1], oc->r.runner_up_s = fig[pick[1]];
        tune_cand_of_point(l, pick[1], &oc->other);
        oc->r.margin = oc->r.runner_up_s / oc->r.best_s - 1;
        oc->r.noise = 0.005;
        oc->r.tie = tune_tied(oc->r.best_s, 0, oc->r.runner_up_s, 0);
    } else {
        oc->r.runner_up_s = oc->r.margin = NAN;
    }
    if (m < 1 || o->rounds < 2 || !strcmp(o->objective, "energy") || harness_interrupted) return;
    struct verdict_cand c[VERDICT_MAX];
    int nc = 0, stored_k = -1;
    for (int k = 0; k < m; k++) {
        tune_cand_of_point(l, pick[k], &c[nc]);
        if (oc->stored && oc->stored_c.point == pick[k]) stored_k = nc;
        nc++;
    }
    if (oc->stored && !o->replace && stored_k < 0) { /* not among the best the search saw: measured here */
        stored_k = nc;
        c[nc++] = oc->stored_c;
    }
    if (nc < 2) return;
    struct verdict_env env = {.pool = l->pool,
                              .dev = l->d->dev,
                              .keep = l->verdict_keep,
                              .keep_ctx = l->keep_ctx,
                              .peak = l->peak,
                              .warmup = o->warmup,
                              .reps = o->reps,
                              .rounds = o->rounds,
                              .timeout_s = o->timeout_s,
                              .seed = o->seed};
    struct verdict_out v;
    const double t0 = clock_now();
    const int ok = verdict_rounds(&env, c, nc, stored_k, &v) == 0;
    l->device_s += clock_now() - t0;
    if (!ok) return;
    oc->by_rounds = 1;
    oc->samples = o->rounds * rounds_reps_each(o->reps, o->rounds);
    oc->best = c[v.best], oc->other = c[v.runner_up];
    oc->r.best = c[v.best].point, oc->r.runner_up = c[v.runner_up].point;
    oc->r.best_s = v.best_s, oc->r.runner_up_s = v.runner_up_s;
    oc->r.margin = v.margin, oc->r.noise = v.noise, oc->r.tie = v.tie;
    oc->judged = v.stored_judged, oc->stored_margin = v.stored_margin, oc->stored_p = v.stored_p;
}
