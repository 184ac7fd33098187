/* Series from the database (series.h). store_series.c delivers the rows
 * grouped and sorted by the series' key; C only cuts the groups. */
#include "track/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/stats.h"
#include "store/store_series.h"

static void grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap) return;
    *cap = *cap ? *cap * 2 : 8;
    if (*cap < need) *cap = need;
    *p = realloc(*p, (size_t)*cap * size);
    if (!*p) abort();
}

static void id_fill(const struct store_series_key *k, struct series_id *id) {
    memset(id, 0, sizeof *id);
    str_copy(id->key, sizeof id->key, k->key);
    str_copy(id->fp, sizeof id->fp, k->fp);
    str_copy(id->spec, sizeof id->spec, k->spec);
    str_copy(id->device, sizeof id->device, k->device);
    str_copy(id->kind, sizeof id->kind, k->kind ? k->kind : "");
    str_copy(id->app, sizeof id->app, k->app);
    str_copy(id->input, sizeof id->input, k->input);
    str_copy(id->variant, sizeof id->variant, k->variant);
    str_copy(id->knobs, sizeof id->knobs, k->knobs);
    id->wg[0] = k->wg[0];
    id->wg[1] = k->wg[1];
    id->iters = k->iters;
    id->warmup = k->warmup;
}

static void run_sample_add(const struct store_run_sample *r, void *ctx) {
    struct series_list *out = ctx;
    struct series_samples *cur = out->n ? &out->s[out->n - 1] : NULL;
    if (!cur || strcmp(cur->id.key, r->id.key)) {
        grow((void **)&out->s, &out->cap, out->n + 1, sizeof *out->s);
        cur = &out->s[out->n++];
        memset(cur, 0, sizeof *cur);
        id_fill(&r->id, &cur->id);
    }
    if (cur->n == cur->cap) {
        int cap = cur->cap;
        grow((void **)&cur->v, &cur->cap, cur->n + 1, sizeof *cur->v);
        int c2 = cap, c3 = cap, c4 = cap;
        grow((void **)&cur->run, &cap, cur->n + 1, sizeof *cur->run);
        grow((void **)&cur->meas, &c2, cur->n + 1, sizeof *cur->meas);
        grow((void **)&cur->round, &c3, cur->n + 1, sizeof *cur->round);
        grow((void **)&cur->disturbed, &c4, cur->n + 1, sizeof *cur->disturbed);
    }
    cur->v[cur->n] = r->seconds;
    cur->run[cur->n] = r->run_id;
    cur->meas[cur->n] = r->measurement_id;
    cur->round[cur->n] = r->round;
    cur->disturbed[cur->n++] = r->disturbed;
}

int series_load_runs_by(struct store *s, const char *table, enum measure measure, struct series_list *out, char *err,
                        size_t errn) {
    memset(out, 0, sizeof *out);
    if (store_run_samples(s, table, measure, run_sample_add, out, err, errn) != 0) {
        series_list_free(out);
        return -1;
    }
    return 0;
}

int series_load_runs(struct store *s, const char *table, struct series_list *out, char *err, size_t errn) {
    return series_load_runs_by(s, table, MEASURE_WALL, out, err, errn);
}

void series_list_free(struct series_list *l) {
    for (int i = 0; i < l->n; i++) {
        free(l->s[i].v);
        free(l->s[i].run);
        free(l->s[i].meas);
        free(l->s[i].round);
        free(l->s[i].disturbed);
    }
    free(l->s);
    memset(l, 0, sizeof *l);
}

/* Samples in (measurement, round) order into the log medians of their
 * rounds: a round is a run of equal (meas, round) keys. Returns the count. */
static int round_medians(const double *v, const int64_t *meas, const int *round, const int *disturbed, int n,
                         double *log_med, int *dist) {
    double *tmp = xcalloc((size_t)n + 1, sizeof *tmp);
    int k = 0;
    for (int i = 0; i < n;) {
        int m = 0, j = i;
        while (j < n && meas[j] == meas[i] && round[j] == round[i]) tmp[m++] = v[j++];
        log_med[k] = log(stats_median(tmp, (size_t)m));
        dist[k++] = disturbed ? disturbed[i] : 0;
        i = j;
    }
    free(tmp);
    return k;
}

int series_nights(const struct series_samples *x, struct night_value **out, int64_t **runs) {
    *out = xcalloc((size_t)x->n + 1, sizeof **out);
    if (runs) *runs = xcalloc((size_t)x->n + 1, sizeof **runs);
    double *lm = xcalloc((size_t)x->n + 1, sizeof *lm);
    int *dist = xcalloc((size_t)x->n + 1, sizeof *dist), k = 0;
    for (int i = 0; i < x->n;) {
        int j = i;
        while (j < x->n && x->run[j] == x->run[i]) j++;
        int nr = round_medians(x->v + i, x->meas + i, x->round + i, x->disturbed + i, j - i, lm, dist);
        if (night_from_rounds(lm, dist, nr, &(*out)[k]) == 0) {
            if (runs) (*runs)[k] = x->run[i];
            k++;
        }
        i = j;
    }
    free(lm);
    free(dist);
    return k;
}

/* A night's samples (in measurement, round order) into its value and, for
 * plots, the geometric mean and quartiles of its round medians. */
struct gather {
    double *v;
    int64_t *meas;
    int *round, *dist;
    int n, cap;
};

static void gather_add(struct gather *g, double v, int64_t meas, int round, int dist) {
    if (g->n == g->cap) {
        int c = g->cap, c2 = c, c3 = c;
        grow((void **)&g->v, &g->cap, g->n + 1, sizeof *g->v);
        grow((void **)&g->meas, &c, g->n + 1, sizeof *g->meas);
        grow((void **)&g->round, &c2, g->n + 1, sizeof *g->round);
        grow((void **)&g->dist, &c3, g->n + 1, sizeof *g->dist);
    }
    g->v[g->n] = v;
    g->meas[g->n] = meas;
    g->round[g->n] = round;
    g->dist[g->n++] = dist;
}

static void night_close(struct night_point *p, struct gather *g) {
    p->n = g->n;
    double *lm = xcalloc((size_t)g->n + 1, sizeof *lm);
    int *dist = xcalloc((size_t)g->n + 1, sizeof *dist);
    int nr = round_medians(g->v, g->meas, g->round, g->dist, g->n, lm, dist);
    if (night_from_rounds(lm, dist, nr, &p->nv) != 0) p->nv = (struct night_value){.mean = NAN, .var = NAN};
    for (int i = 0; i < nr; i++) lm[i] = exp(lm[i]);
    p->median = exp(p->nv.mean);
    p->q1 = stats_quantile(lm, (size_t)nr, 0.25);
    p->q3 = stats_quantile(lm, (size_t)nr, 0.75);
    free(lm);
    free(dist);
    g->n = 0;
}

static void gather_free(struct gather *g) {
    free(g->v);
    free(g->meas);
    free(g->round);
    free(g->dist);
}

static struct history *history_add(struct history_list *out) {
    grow((void **)&out->h, &out->cap, out->n + 1, sizeof *out->h);
    struct history *h = &out->h[out->n++];
    memset(h, 0, sizeof *h);
    return h;
}

static struct night_point *point_add(struct history *h) {
    grow((void **)&h->p, &h->cap, h->n + 1, sizeof *h->p);
    struct night_point *p = &h->p[h->n++];
    memset(p, 0, sizeof *p);
    return p;
}

/* Samples of every series per nightly, in key then time order, into one
 * night_point per nightly. */
struct timings {
    struct history_list *out;
    struct history *h;
    struct night_point *p;
    struct gather g;
};

static void night_sample_add(const struct store_night_sample *r, void *ctx) {
    struct timings *t = ctx;
    if (!t->h || strcmp(t->h->id.key, r->id.key)) {
        if (t->p) night_close(t->p, &t->g);
        t->h = history_add(t->out);
        id_fill(&r->id, &t->h->id);
        t->p = NULL;
    }
    if (!t->p || t->p->nightly_id != r->nightly_id) {
        if (t->p) night_close(t->p, &t->g);
        struct night_point *p = t->p = point_add(t->h);
        p->nightly_id = r->nightly_id;
        str_copy(p->when, sizeof p->when, r->started_at);
        p->run_id = r->run_id;
        str_copy(p->commit, sizeof p->commit, r->commit);
        p->dirty = r->dirty;
        str_copy(p->build, sizeof p->build, r->build);
        p->bad = r->bad;
    }
    gather_add(&t->g, r->seconds, r->measurement_id, r->round, r->disturbed);
}

static int load_timings(struct store *s, enum measure measure, struct history_list *out, char *err, size_t errn) {
    struct timings t = {.out = out};
    int rc = store_nightly_samples(s, measure, night_sample_add, &t, err, errn);
    if (t.p) night_close(t.p, &t.g);
    gather_free(&t.g);
    return rc;
}

/* The canary: each nightly's copy bandwidth per device (GB/s, one value). */
static void canary_add(const struct store_night_canary *r, void *ctx) {
    struct history_list *out = ctx;
    struct history *h = out->n ? &out->h[out->n - 1] : NULL;
    if (!h || !h->id.higher_better || strcmp(h->id.fp, r->fp)) { /* not yet this device's canary */
        h = history_add(out);
        str_copy(h->id.fp, sizeof h->id.fp, r->fp);
        str_copy(h->id.spec, sizeof h->id.spec, r->spec);
        str_copy(h->id.device, sizeof h->id.device, r->device);
        str_copy(h->id.app, sizeof h->id.app, "canary");
        str_copy(h->id.input, sizeof h->id.input, "copy");
        str_copy(h->id.variant, sizeof h->id.variant, "copy-bandwidth");
        str_fmt(h->id.key, sizeof h->id.key, "%s|canary|copy||", h->id.fp);
        h->id.higher_better = 1;
    }
    if (h->n && h->p[h->n - 1].nightly_id == r->nightly_id) return; /* one per night: the first */
    struct night_point *p = point_add(h);
    p->nightly_id = r->nightly_id;
    str_copy(p->when, sizeof p->when, r->started_at);
    str_copy(p->commit, sizeof p->commit, r->commit);
    p->dirty = r->dirty;
    p->n = 1;
    p->median = p->q1 = p->q3 = r->copy_gbs;
    p->nv = (struct night_value){.rounds = 1, .mean = log(p->median), .var = NAN};
}

static int cmp_history(const void *a, const void *b) {
    return strcmp(((const struct history *)a)->id.key, ((const struct history *)b)->id.key);
}

int history_load_by(struct store *s, enum measure measure, struct history_list *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    if (load_timings(s, measure, out, err, errn) != 0) {
        history_list_free(out);
        return -1;
    }
    if (out->n > 1) qsort(out->h, (size_t)out->n, sizeof *out->h, cmp_history); /* no history: h is NULL */
    return 0;
}

int history_load(struct store *s, struct history_list *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    if (load_timings(s, MEASURE_WALL, out, err, errn) != 0 || store_canary_history(s, canary_add, out, err, errn) != 0) {
        history_list_free(out);
        return -1;
    }
    if (out->n > 1) qsort(out->h, (size_t)out->n, sizeof *out->h, cmp_history); /* no history: h is NULL */
    return 0;
}

void history_list_free(struct history_list *l) {
    for (int i = 0; i < l->n; i++) free(l->h[i].p);
    free(l->h);
    memset(l, 0, sizeof *l);
}

void series_label(const struct series_id *id, char *buf, size_t n) {
    if (id->higher_better) str_fmt(buf, n, "%s canary copy GB/s", id->spec);
    else str_fmt(buf, n, "%s %s %s %s %ux%u", id->spec, id->app, id->input, id->variant, id->wg[0], id->wg[1]);
}
