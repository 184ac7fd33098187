/* confirm.h. */
#include "track/confirm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "base/util.h"
#include "core/app.h"
#include "core/worker.h"
#include "stats/stats.h"
#include "store/store_confirm.h"
#include "track/compare.h"
#include "track/confirm_judge.h"

struct side_job {
    int series, side; /* side 0: A, 1: B */
};

/* The job for one series on one side, or a reason it cannot run here. */
static const char *job_for(const struct confirm_series *c, const struct device_info *all, int nall, struct round_job *j,
                           int side, const struct confirm_opts *o) {
    const struct app *app = app_find(c->id.app);
    if (!app) return "its app is not in this harness";
    int idx = -1;
    if (devices_match(all, nall, c->id.spec, &idx, 1) != 1 || strcmp(all[idx].fingerprint, c->id.fp))
        return "its device (that fingerprint) is not on this machine";
    memset(j, 0, sizeof *j);
    struct job *w = &j->job;
    str_copy(w->app, sizeof w->app, c->id.app);
    if (!strncmp(c->id.input, "gen-", 4)) str_fmt(w->input, sizeof w->input, "gen:%s", c->id.input + 4);
    else str_copy(w->input, sizeof w->input, c->id.input);
    w->iters = c->id.iters;
    str_copy(w->variant, sizeof w->variant, c->id.variant);
    str_copy(w->knobs, sizeof w->knobs, c->id.knobs);
    w->wg[0] = c->id.wg[0];
    w->wg[1] = c->id.wg[1];
    str_copy(w->device, sizeof w->device, c->id.spec);
    w->warmup = c->warmup;
    w->reps = c->reps > 0 ? c->reps : 1;
    struct knob_set k;
    char err[ERR_MAX];
    knobs_init(&k, app->knobs);
    if (knobs_apply(&k, c->id.knobs, err, sizeof err) != 0) return "its knobs are not this harness's";
    j->bytes_per_cell = app->bytes_per_cell(&k);
    str_copy(j->m.app, sizeof j->m.app, c->id.app);
    str_copy(j->m.variant, sizeof j->m.variant, c->id.variant);
    j->m.rounds = o->rounds;
    measurement_unknown(&j->m);
    j->exec = side;
    j->timeout_s = o->timeout_s;
    return NULL;
}

/* The log median of each round of a job's samples by the measure, by round
 * number (NAN where the round has none). */
static void round_logs(const struct measurement *m, enum measure measure, double *out, int rounds) {
    for (int r = 0; r < rounds; r++) out[r] = NAN;
    const double *v = measure == MEASURE_WALL     ? m->samples
                       : measure == MEASURE_DEVICE ? m->device_samples
                                                   : m->counters[measure - 1];
    if (!v || !m->sample_round) return;
    double *tmp = xcalloc((size_t)m->nsamples + 1, sizeof *tmp);
    for (int r = 0; r < rounds; r++) {
        int k = 0;
        for (int i = 0; i < m->nsamples; i++)
            if (m->sample_round[i] == r && v[i] > 0) tmp[k++] = v[i];
        if (k) out[r] = log(stats_median(tmp, (size_t)k));
    }
    free(tmp);
}

static void judge(struct confirm_series *c, const struct round_job *a, const struct round_job *b,
                  const struct confirm_opts *o) {
    if (a->m.status != ST_OK || b->m.status != ST_OK) {
        const struct round_job *bad = a->m.status != ST_OK ? a : b;
        str_copy(c->verdict, sizeof c->verdict, "failed");
        str_fmt(c->reason, sizeof c->reason, "build %s: %s: %s", bad == a ? "A" : "B", status_name(bad->m.status),
                bad->m.reason);
        return;
    }
    const int rounds = a->m.rounds > b->m.rounds ? a->m.rounds : b->m.rounds;
    double *la = xcalloc((size_t)rounds + 1, sizeof *la), *lb = xcalloc((size_t)rounds + 1, sizeof *lb);
    double *pa = xcalloc((size_t)rounds + 1, sizeof *pa), *pb = xcalloc((size_t)rounds + 1, sizeof *pb);
    round_logs(&a->m, c->measure, la, rounds);
    round_logs(&b->m, c->measure, lb, rounds);
    int n = 0;
    for (int r = 0; r < rounds; r++)
        if (!isnan(la[r]) && !isnan(lb[r])) pa[n] = la[r], pb[n++] = lb[r];
    confirm_judge_pairs(c, pa, pb, n, o->alpha, o->min_effect);
    free(la);
    free(lb);
    free(pa);
    free(pb);
}

static int64_t record(struct store *store, const struct confirm_series *c, const struct confirm_opts *o,
                      const struct round_job *a, const struct round_job *b) {
    struct store_confirmation row = {
        .series = c->id.key,
        .nightly_id = c->nightly_id,
        .change_point_id = c->change_point_id,
        .source = o->source ? o->source : "",
        .build_a = o->build_a ? o->build_a : "",
        .build_b = o->build_b ? o->build_b : "",
        .flagged_ratio = c->flagged_ratio,
        .rounds = c->r.n,
        .ratio = c->r.ratio,
        .p = c->r.p,
        .sd = c->r.sd,
        .verdict = c->verdict,
        .reason = c->reason,
        .measure = measure_name(c->measure),
        .detectable = c->detectable,
    };
    return store_confirmation_put(store, &row, &a->m, &b->m);
}

/* Two jobs a series (jobs[2i]: build A, jobs[2i + 1]: B) on the devices
 * present. A series that cannot be measured here, or an inconclusive one
 * with no time to add rounds, is skipped and failed with the reason; an
 * inconclusive one with time is left open, planned with the added rounds. */
static void plan_jobs(struct confirm_series *s, int n, const struct confirm_opts *o, struct round_job *jobs) {
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0, nall = devices_all(&all, notes, 8, &nnotes);
    for (int i = 0; i < n; i++)
        for (int side = 0; side < 2; side++) {
            struct round_job *j = &jobs[2 * i + side];
            const char *why = job_for(&s[i], all, nall, j, side, o);
            j->group = i;
            if (why) {
                j->skip = 1;
                str_copy(s[i].verdict, sizeof s[i].verdict, "failed");
                str_fmt(s[i].reason, sizeof s[i].reason, "cannot measure it again here: %s", why);
            } else if (s[i].open && !(o->target > 0 && o->max_time_s > 0)) {
                j->skip = 1; /* inconclusive, and no time to add: it stays so */
                str_copy(s[i].verdict, sizeof s[i].verdict, "failed");
                str_copy(s[i].reason, sizeof s[i].reason, "not measured again: no time for added rounds (--max-time)");
            } else if (s[i].open) {
                j->done = 1; /* planned below, within the budget, from its rounds' spread */
                j->m.rounds = 0;
                str_copy(s[i].verdict, sizeof s[i].verdict, "open");
            }
        }
    free(all);
}

/* The next batch of added rounds: more[i] pairs for series i, every other
 * job done (and skipped for good once its series is settled). Returns the
 * pairs the batch runs. */
static int plan_batch(struct confirm_series *s, int n, const int *more, double target, struct round_job *jobs) {
    int batch_pairs = 0;
    for (int i = 0; i < n; i++)
        for (int side = 0; side < 2; side++) {
            struct round_job *j = &jobs[2 * i + side];
            if (!more[i] || j->skip) {
                j->done = 1;                                         /* nothing to add this time */
                if (!confirm_wants_more(&s[i], target)) j->skip = 1; /* settled (or failed) */
                continue;
            }
            j->first = j->m.rounds;
            j->m.rounds += more[i];
            j->done = 0;
            batch_pairs += side == 0 ? more[i] : 0;
        }
    return batch_pairs;
}

int confirm_run(struct store *store, struct confirm_series *s, int n, struct confirm_opts *opts) {
    struct confirm_opts o = *opts;
    if (o.rounds < 2) o.rounds = CONFIRM_ROUNDS;
    if (!(o.alpha > 0)) o.alpha = CONFIRM_ALPHA;
    if (!(o.min_effect > 0)) o.min_effect = 0.03;
    if (!(o.timeout_s > 0)) o.timeout_s = CONFIG_TIMEOUT_S;
    struct round_job *jobs = xcalloc((size_t)(2 * n) + 1, sizeof *jobs);
    plan_jobs(s, n, &o, jobs);
    struct round_exec execs[2] = {o.a, o.b};
    struct rounds_opts ro = {.seed = o.seed, .execs = execs, .nexecs = 2, .what = "confirm"};
    double t0 = clock_now();
    int rc = rounds_run(jobs, 2 * n, &ro), confirmed = 0;
    for (int i = 0; i < n && rc >= 0; i++) {
        if (jobs[2 * i].skip || jobs[2 * i + 1].skip) s[i].r = (struct paired_result){0};
        else if (!s[i].open) judge(&s[i], &jobs[2 * i], &jobs[2 * i + 1], &o);
    }
    /* Rounds added to the series that cannot yet see the target, the builds
     * interleaved as before, each as many pairs as confirm_plan grants it
     * from what is left of the budget at the last batch's cost a pair. */
    int pairs_run = 0;
    for (int i = 0; i < n; i++) pairs_run += jobs[2 * i].skip || s[i].open ? 0 : jobs[2 * i].m.rounds;
    double per_pair = pairs_run ? (clock_now() - t0) / pairs_run : 0, t_added = clock_now();
    int *more = xcalloc((size_t)n + 1, sizeof *more);
    while (rc >= 0 && o.target > 0 && o.max_time_s > 0) {
        if (!confirm_plan(s, n, o.target, per_pair, o.max_time_s - (clock_now() - t_added), more)) break;
        const int batch_pairs = plan_batch(s, n, more, o.target, jobs);
        const double tb = clock_now();
        rc = rounds_run(jobs, 2 * n, &ro);
        per_pair = (clock_now() - tb) / batch_pairs;
        o.added_rounds += batch_pairs;
        for (int i = 0; i < n && rc >= 0; i++)
            if (more[i] && !jobs[2 * i].skip && !jobs[2 * i + 1].skip) judge(&s[i], &jobs[2 * i], &jobs[2 * i + 1], &o);
    }
    free(more);
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].verdict, "open")) { /* never measured again */
            str_copy(s[i].verdict, sizeof s[i].verdict, "failed");
            str_copy(s[i].reason, sizeof s[i].reason,
                     "not measured again: the added rounds' budget (--max-time) did not reach it");
        }
    o.added_s = clock_now() - t_added;
    opts->added_rounds = o.added_rounds;
    opts->added_s = o.added_rounds ? o.added_s : 0;
    for (int i = 0; i < n && rc >= 0; i++) {
        confirmed += !strcmp(s[i].verdict, "confirmed");
        if (record(store, &s[i], &o, &jobs[2 * i], &jobs[2 * i + 1]) < 0)
            fprintf(stderr, "harness: storing the confirmation: %s\n", store_errmsg(store));
    }
    for (int i = 0; i < 2 * n; i++) measurement_free(&jobs[i].m);
    free(jobs);
    return rc < 0 ? -1 : confirmed;
}

void confirm_describe(const struct confirm_series *c, char *buf, size_t n) {
    if (!strcmp(c->verdict, "failed") || !c->r.n) {
        str_fmt(buf, n, "%s: %s", c->verdict, c->reason);
        return;
    }
    str_fmt(buf, n, "%s: B/A %.3f over %d pairs of rounds, p %.2g, sees %.1f %%%s%s", c->verdict, c->r.ratio, c->r.n,
            c->r.p, 100 * c->detectable, c->reason[0] ? "; " : "", c->reason);
}

int confirm_from_rows(const struct compare_row *rows, int n, int64_t nightly_id, struct confirm_series *out,
                      struct strbuf *devs) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        const struct compare_row *r = &rows[i];
        if (!compare_wants_confirmation(r)) continue;
        struct confirm_series *c = &out[k++];
        memset(c, 0, sizeof *c);
        c->id = r->b->id;
        /* A flag claims a direction; a suspect's or an inconclusive series'
         * night difference may have the night's sign, not the change's (a
         * 25 % night effect can turn a 40 % slowdown into a speed-up), so
         * either way counts there. */
        c->evidence = r->v == V_REGRESSION || r->v == V_IMPROVEMENT;
        c->flagged_ratio = c->evidence ? r->r.ratio : NAN;
        c->open = r->v == V_INCONCLUSIVE;
        c->round_sd = r->r.sigma_round;
        c->measure = r->measure;
        c->warmup = r->b->id.warmup;
        /* The nights' own repetitions per round: the confirmation measures what they measured. */
        c->reps = r->r.rounds_b > 0 ? (int)lround((double)r->b->n / r->r.rounds_b) : 1;
        if (c->reps < 1) c->reps = 1;
        c->nightly_id = nightly_id;
        if (!strstr(devs->s ? devs->s : "", c->id.spec)) sb_printf(devs, "%s%s", devs->len ? "," : "", c->id.spec);
    }
    return k;
}
