/* tune_call.h: what becomes of a search: the prior it starts from, the
 * stored configuration it has to beat, its report, the decision and the
 * stored row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/commands.h"
#include "cli/tune_call.h"
#include "core/knobs.h"
#include "store/store_tuned_history.h"

/* A measured row into the search's run. */
void tune_sink_keep(void *ctx, const struct measurement *m) {
    const struct tune_sink *k = ctx;
    char err[ERR_MAX];
    if (k->run_id >= 0 && store_measurement(k->store, k->run_id, m, err, sizeof err) != 0)
        fprintf(stderr, "harness: %s\n", err);
}

/* Each verdict round as it comes, stored: the candidate's row, then its
 * later rounds' samples (verdict_env.keep). */
void tune_sink_verdict(void *ctx, struct round_job *j, int round, int first_sample) {
    const struct tune_sink *k = ctx;
    (void)round;
    char err[512];
    int rc = j->mid > 0       ? store_measurement_more(k->store, j->mid, &j->m, first_sample, err, sizeof err)
             : k->run_id >= 0 ? store_measurement_id(k->store, k->run_id, &j->m, &j->mid, err, sizeof err)
                              : 0;
    if (rc != 0) fprintf(stderr, "harness: %s\n", err);
}

struct prior_build {
    const struct tune_target *d;
    double *best; /* per point, per source: the fastest ok median */
    char (*source)[160];
    int nsources;
};

#define PRIOR_SOURCES 16

static void prior_row(void *ctx, const char *fp, const char *input, long iters, const char *knobs, const unsigned wg[2],
                      double median) {
    struct prior_build *pb = ctx;
    char src[160];
    snprintf(src, sizeof src, "%s %s %ld steps", fp, input, iters);
    const int i = tune_plan_find(&pb->d->plan, knobs, wg);
    if (i < 0) return;
    int s = 0;
    while (s < pb->nsources && strcmp(pb->source[s], src)) s++;
    if (s == pb->nsources) {
        if (s == PRIOR_SOURCES) return;
        str_copy(pb->source[pb->nsources++], sizeof pb->source[0], src);
    }
    double *b = &pb->best[(size_t)s * pb->d->plan.n + i];
    if (isnan(*b) || median < *b) *b = median;
}

/* The source (device, input, step count) with the most points of this
 * space measured, as the search's prior; 0 points when there is none. */
void tune_warm_start(struct store *store, const struct tune_target *d, struct tune_prior *pr, int **point,
                       double **secs_out) {
    const int n = d->plan.n;
    struct prior_build pb = {d, xcalloc((size_t)n * PRIOR_SOURCES, sizeof(double)),
                             xcalloc(PRIOR_SOURCES, sizeof *pb.source), 0};
    for (size_t k = 0; k < (size_t)n * PRIOR_SOURCES; k++) pb.best[k] = NAN;
    store_tune_prior_rows(store, d->app->name, d->fp, d->app->input_name(d->in), prior_row, &pb);
    int bs = -1, bc = 0;
    for (int s = 0; s < pb.nsources; s++) {
        int cnt = 0;
        for (int i = 0; i < n; i++) cnt += !isnan(pb.best[(size_t)s * n + i]);
        if (cnt > bc) bc = cnt, bs = s;
    }
    *point = xcalloc((size_t)bc + 1, sizeof **point);
    *secs_out = xcalloc((size_t)bc + 1, sizeof **secs_out);
    pr->n = 0;
    for (int i = 0; bs >= 0 && i < n; i++)
        if (!isnan(pb.best[(size_t)bs * n + i]))
            (*point)[pr->n] = i, (*secs_out)[pr->n++] = pb.best[(size_t)bs * n + i];
    pr->point = *point, pr->seconds = *secs_out;
    if (bs >= 0) printf("warm start   %d points of this space measured on %s\n", pr->n, pb.source[bs]);
    else printf("warm start   nothing of this space measured elsewhere in the database: a cold start\n");
    free(pb.best);
    free(pb.source);
}

/* The stored configuration of this key, as a candidate; 0, or -1 when none
 * (or it no longer parses: a knob renamed since). */
int tune_stored_candidate(struct store *store, const struct tune_target *d, struct tuned_config *tc,
                            struct verdict_cand *out) {
    if (store_tuned_get_config(store, d->fp, d->app->name, d->app->input_name(d->in), d->key_variant, tc) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->cfg.app = d->app;
    out->cfg.in = d->in;
    out->cfg.source = &d->src;
    out->cfg.wg[0] = tc->wg[0], out->cfg.wg[1] = tc->wg[1];
    if (d->configs) {
        char err[ERR_MAX];
        knobs_init(&out->cfg.knobs, d->app->knobs);
        if (knobs_apply(&out->cfg.knobs, tc->knobs, err, sizeof err) != 0) return -1;
        str_copy(out->cfg.variant, sizeof out->cfg.variant, tc->config);
    } else {
        out->cfg.knobs = d->plan.vars.v[0].knobs;
        str_copy(out->cfg.variant, sizeof out->cfg.variant, d->plan.vars.v[0].name);
    }
    char knobs[KNOBS_TEXT_MAX];
    knobs_canonical(&out->cfg.knobs, knobs, sizeof knobs);
    out->point = tune_plan_find(&d->plan, knobs, out->cfg.wg);
    return 0;
}

static void print_cand(const char *label, const struct verdict_cand *c, const struct tune_target *d, double s,
                       const char *obj) {
    char a[32];
    if (!strcmp(obj, "energy")) snprintf(a, sizeof a, "%.4g J", s);
    else tune_secs(a, sizeof a, s);
    printf("%-12s %ux%u  %s %s", label, c->cfg.wg[0], c->cfg.wg[1], !strcmp(obj, "energy") ? "energy" : "median", a);
    if (d->configs) printf("  %s", c->cfg.variant);
}

static void report(const struct tune_opts *o, const struct tune_target *d, const struct tune_outcome *oc,
                   const struct tune_live *l) {
    printf("\nstrategy     %s", o->strategy);
    if (strcmp(o->strategy, "exhaustive")) printf(" (seed %u, budget %d)", o->live.seed, o->budget);
    printf("\nevaluations  %d of %d %s", oc->r.evaluations, d->plan.n, d->configs ? "points" : "shapes");
    if (l) printf(" in %.1f s of measuring (%.1f s in all)", l->device_s, clock_now() - l->started);
    printf("\n");
    print_cand("best", &oc->best, d, oc->r.best_s, o->live.objective);
    printf("\n");
    if (oc->other.point == -2) {
        printf("runner-up    none (nothing else succeeded)\n");
        printf("verdict      winner by default: nothing to compare it with\n");
        return;
    }
    print_cand("runner-up", &oc->other, d, oc->r.runner_up_s, o->live.objective);
    printf("  margin %+.2f%%\n", 100 * oc->r.margin);
    if (oc->by_rounds)
        printf("noise        %.2f%% (the sd of their round-for-round differences over %d rounds)\n", 100 * oc->r.noise,
               o->live.rounds);
    else printf("noise        %.2f%% (the larger relative IQR of the two; never below 0.5%%)\n", 100 * oc->r.noise);
    /* A noise past 50 % is not a measurement to decide by (a 54051 % noise
     * once called a +3252 % margin a tie without a word). */
    if (oc->r.noise > 0.5)
        printf("warning      a noise of %.0f%% says these timings cannot decide anything (a busy host, or runs too short"
               " for the clock): tune again when the host is quiet, or with more steps (--iters)\n",
               100 * oc->r.noise);
    if (oc->r.tie)
        printf("verdict      TIE (%s): %ux%u%s%s and %ux%u%s%s cannot be told apart; either will do\n",
               oc->by_rounds ? "not ahead round for round" : "within noise", oc->best.cfg.wg[0], oc->best.cfg.wg[1],
               d->configs ? " " : "", d->configs ? oc->best.cfg.variant : "", oc->other.cfg.wg[0], oc->other.cfg.wg[1],
               d->configs ? " " : "", d->configs ? oc->other.cfg.variant : "");
    else
        printf("verdict      winner: %ux%u%s%s\n", oc->best.cfg.wg[0], oc->best.cfg.wg[1], d->configs ? " " : "",
               d->configs ? oc->best.cfg.variant : "");
}

static int same_config(const struct verdict_cand *a, const struct verdict_cand *b) {
    char x[KNOBS_TEXT_MAX], y[KNOBS_TEXT_MAX];
    knobs_canonical(&a->cfg.knobs, x, sizeof x);
    knobs_canonical(&b->cfg.knobs, y, sizeof y);
    return a->cfg.wg[0] == b->cfg.wg[0] && a->cfg.wg[1] == b->cfg.wg[1] && !strcmp(x, y);
}

/* What becomes of the stored row: a search's best replaces a stored
 * configuration only when the verdict measured both and the new one beats
 * it round for round (or on --replace); a search without that evidence
 * (--rounds 1, a replay, the energy objective) leaves it. A genetic search
 * on a budget of 10 once stored a shape 2.2x slower than the one an
 * exhaustive search had stored. */
static void decide(const struct tune_opts *o, const struct tune_outcome *oc, struct tuned_decision *d) {
    const unsigned *s = oc->stored_c.cfg.wg, *b = oc->best.cfg.wg;
    if (!oc->stored) {
        d->decision = "new";
        str_copy(d->why, sizeof d->why, "nothing was stored for this device and input");
    } else if (same_config(&oc->stored_c, &oc->best)) {
        d->decision = "confirmed";
        str_fmt(d->why, sizeof d->why, "the stored %ux%u is the best again (its figures updated)", s[0], s[1]);
    } else if (o->live.replace) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "--replace: %ux%u stored over %ux%u without a verdict between them", b[0], b[1],
                s[0], s[1]);
    } else if (oc->judged && verdict_beats(oc->stored_p, oc->stored_margin)) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "%ux%u beats the stored %ux%u round for round by %.2f %% (p %.2g)", b[0], b[1],
                s[0], s[1], 100 * oc->stored_margin, oc->stored_p);
    } else if (oc->judged) {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u does not beat the stored %ux%u round for round (%+.2f %%, p %.2g): the stored row stays "
                "(--replace stores the new one anyway)",
                b[0], b[1], s[0], s[1], 100 * oc->stored_margin, oc->stored_p);
    } else {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u was not measured against the stored %ux%u in rounds (%s): the stored row stays "
                "(--replace stores the new one anyway)",
                b[0], b[1], s[0], s[1],
                o->replay                         ? "a replay"
                : !strcmp(o->live.objective, "energy") ? "the energy objective"
                                                  : "--rounds 1 or too few points");
    }
}

/* In a replay the whole table is known, so how far the pick is from the best
 * measured point is known too: the measure of a strategy. */
static void replay_regret(const struct tune_target *d, const struct tune_outcome *oc) {
    int b = 0;
    for (int i = 1; i < d->plan.n; i++)
        if (d->rt[i] < d->rt[b]) b = i;
    char a[32];
    printf("best known   %ux%u  median %s  (the pick is %+.2f%% from it)%s%s\n", d->plan.pt[b].wg[0],
           d->plan.pt[b].wg[1], tune_secs(a, sizeof a, d->rt[b]), 100 * (oc->r.best_s / d->rt[b] - 1),
           d->configs ? "  " : "", d->configs ? tune_point_name(d, b) : "");
}

static int store_outcome(struct store *store, const struct tune_opts *o, const struct tune_target *d,
                         const struct tune_outcome *oc, double search_s, long iters) {
    char err[ERR_MAX], knobs[KNOBS_TEXT_MAX];
    knobs_canonical(&oc->best.cfg.knobs, knobs, sizeof knobs);
    struct tuned_decision dec = {.wg = {oc->best.cfg.wg[0], oc->best.cfg.wg[1]},
                                 .strategy = o->strategy,
                                 .budget = strcmp(o->strategy, "exhaustive") ? o->budget : 0,
                                 .iters = iters,
                                 .knobs = d->configs ? knobs : NULL,
                                 .config = d->configs ? oc->best.cfg.variant : NULL,
                                 .objective = o->live.objective,
                                 .search_s = search_s};
    decide(o, oc, &dec);
    printf("decision     %s: %s\n", dec.decision, dec.why);
    const int keep = !strcmp(dec.decision, "kept");
    struct tuned_put put = {.wg = {oc->best.cfg.wg[0], oc->best.cfg.wg[1]},
                            .knobs = dec.knobs,
                            .config = dec.config,
                            .objective = o->live.objective,
                            .strategy = o->strategy,
                            .samples = oc->samples,
                            .evaluations = oc->r.evaluations,
                            .search_s = search_s,
                            .energy_j = !strcmp(o->live.objective, "energy") ? oc->r.best_s : NAN};
    const char *in = d->app->input_name(d->in);
    if ((!keep &&
         store_tuned_put(store, d->fp, d->app->name, in, d->key_variant, &oc->r, &put, err, sizeof err) != 0) ||
        store_tuned_history_add(store, d->fp, d->app->name, in, d->key_variant, &oc->r, &dec, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_FOUND;
    }
    if (!keep && d->configs)
        printf("stored       as the tuned configuration for %s %s on %s (`harness run --variant tuned` runs it)\n",
               d->app->name, in, d->devname);
    else if (!keep)
        printf("stored       as the tuned work-group for %s %s %s on %s (`harness run` uses it without --wg)\n",
               d->app->name, in, d->key_variant, d->devname);
    return 0;
}

/* What the search came to: interrupted, nothing found, or the best
 * reported and (live, or a replay with --store) stored. Its exit status. */
int tune_conclude(struct store *store, const struct tune_opts *o, struct tune_target *d, struct tune_outcome *oc,
                    struct tune_live *l, int found, int disturbed) {
    if (harness_interrupted) {
        fprintf(stderr, "harness: tune interrupted after %d measured points (stored); nothing decided\n", l->measured);
        return EXIT_FOUND;
    }
    if (!found) {
        fprintf(stderr, "harness: tune: nothing succeeded on %s %s (%d evaluated)\n", d->devname,
                d->app->input_name(d->in), oc->r.evaluations);
        return EXIT_FOUND;
    }
    report(o, d, oc, o->replay ? NULL : l);
    if (disturbed)
        printf("host         DISTURBED while tuning (above): the verdict may be the host's; tune again when it is "
               "quiet\n");
    if (o->replay) replay_regret(d, oc);
    if (!o->replay || o->store)
        return store_outcome(store, o, d, oc, o->replay ? NAN : l->device_s,
                             o->replay ? d->riters : d->app->input_iters(d->in));
    return 0;
}
