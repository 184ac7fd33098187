/* Loading series from the database (series.h). The key is built in SQL so
 * that rows arrive grouped and sorted by it; C only cuts the groups. */
#include "series.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

#define KEY_SQL "d.fingerprint || '|' || c.app || '|' || c.input || '|' || c.knobs || '|' || c.wg_x || 'x' || c.wg_y || '|' || COALESCE(m.iters, 0)"

static const char *text(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static void grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap) return;
    *cap = *cap ? *cap * 2 : 8;
    if (*cap < need) *cap = need;
    *p = realloc(*p, (size_t)*cap * size);
    if (!*p) abort();
}

/* Columns 0..10 of both queries: key, fingerprint, spec, device name, app,
 * input, variant, knobs, wg_x, wg_y, iters, warmup. */
#define ID_COLUMNS KEY_SQL ", d.fingerprint, d.spec, d.name, c.app, c.input, COALESCE(m.variant, c.variant)," \
                           " c.knobs, c.wg_x, c.wg_y, m.iters, m.warmup"
#define ID_NCOL 12

static void id_fill(sqlite3_stmt *st, struct series_id *id) {
    memset(id, 0, sizeof *id);
    str_copy(id->key, sizeof id->key, text(st, 0));
    str_copy(id->fp, sizeof id->fp, text(st, 1));
    str_copy(id->spec, sizeof id->spec, text(st, 2));
    str_copy(id->device, sizeof id->device, text(st, 3));
    str_copy(id->app, sizeof id->app, text(st, 4));
    str_copy(id->input, sizeof id->input, text(st, 5));
    str_copy(id->variant, sizeof id->variant, text(st, 6));
    str_copy(id->knobs, sizeof id->knobs, text(st, 7));
    id->wg[0] = (unsigned)sqlite3_column_int(st, 8);
    id->wg[1] = (unsigned)sqlite3_column_int(st, 9);
    id->iters = (long)sqlite3_column_int64(st, 10);
    id->warmup = sqlite3_column_int(st, 11);
}

int series_load_runs(sqlite3 *db, const char *table, struct series_list *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    char sql[2048];
    str_fmt(sql, sizeof sql,
            "SELECT " ID_COLUMNS ", s.seconds, m.run_id, m.id, s.round, COALESCE(rs.disturbed, 0)"
            " FROM measurement m JOIN config c ON c.id = m.config_id"
            " JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
            " JOIN sample s ON s.measurement_id = m.id"
            " LEFT JOIN round_state rs ON rs.run_id = m.run_id AND rs.round = s.round"
            " WHERE m.status = 'ok' AND s.seconds > 0 AND m.run_id IN (SELECT run_id FROM temp.%s)"
            " ORDER BY 1, m.run_id, m.id, s.round, s.rep",
            table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct series_samples *cur = out->n ? &out->s[out->n - 1] : NULL;
        if (!cur || strcmp(cur->id.key, text(st, 0))) {
            grow((void **)&out->s, &out->cap, out->n + 1, sizeof *out->s);
            cur = &out->s[out->n++];
            memset(cur, 0, sizeof *cur);
            id_fill(st, &cur->id);
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
        cur->v[cur->n] = sqlite3_column_double(st, ID_NCOL);
        cur->run[cur->n] = sqlite3_column_int64(st, ID_NCOL + 1);
        cur->meas[cur->n] = sqlite3_column_int64(st, ID_NCOL + 2);
        cur->round[cur->n] = sqlite3_column_int(st, ID_NCOL + 3);
        cur->disturbed[cur->n++] = sqlite3_column_int(st, ID_NCOL + 4);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        series_list_free(out);
        return err_set(err, errn, "%s", sqlite3_errmsg(db));
    }
    return 0;
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

/* Samples of every series per nightly, in key then time order. A night's
 * build is its kept build's content hash (nightly.build_hash) when it has
 * one, else the commit with "+dirty" for a dirty tree. */
static int load_timings(sqlite3 *db, struct history_list *out, char *err, size_t errn) {
    static const char sql[] =
        "SELECT " ID_COLUMNS ", n.id, n.started_at, r.id, b.git_commit, b.dirty, s.seconds,"
        " COALESCE(n.build_hash, b.git_commit || CASE WHEN b.dirty THEN '+dirty' ELSE '' END),"
        " COALESCE(n.quality, 'ok') != 'ok', m.id, s.round, COALESCE(rs.disturbed, 0)"
        " FROM nightly n JOIN nightly_run nr ON nr.nightly_id = n.id JOIN run r ON r.id = nr.run_id"
        " JOIN build b ON b.id = r.build_id JOIN device d ON d.id = r.device_id"
        " JOIN measurement m ON m.run_id = r.id JOIN config c ON c.id = m.config_id"
        " JOIN sample s ON s.measurement_id = m.id"
        " LEFT JOIN round_state rs ON rs.run_id = m.run_id AND rs.round = s.round"
        " WHERE m.status = 'ok' AND s.seconds > 0"
        " AND r.id NOT IN (SELECT run_id FROM run_exclusion)"
        " ORDER BY 1, n.started_at, n.id, r.id, m.id, s.round, s.rep";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    struct gather g = {0};
    int rc;
    struct history *h = NULL;
    struct night_point *p = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t nightly = sqlite3_column_int64(st, ID_NCOL);
        if (!h || strcmp(h->id.key, text(st, 0))) {
            if (p) night_close(p, &g);
            h = history_add(out);
            id_fill(st, &h->id);
            p = NULL;
        }
        if (!p || p->nightly_id != nightly) {
            if (p) night_close(p, &g);
            p = point_add(h);
            p->nightly_id = nightly;
            str_copy(p->when, sizeof p->when, text(st, ID_NCOL + 1));
            p->run_id = sqlite3_column_int64(st, ID_NCOL + 2);
            str_copy(p->commit, sizeof p->commit, text(st, ID_NCOL + 3));
            p->dirty = sqlite3_column_int(st, ID_NCOL + 4);
            str_copy(p->build, sizeof p->build, text(st, ID_NCOL + 6));
            p->bad = sqlite3_column_int(st, ID_NCOL + 7);
        }
        gather_add(&g, sqlite3_column_double(st, ID_NCOL + 5), sqlite3_column_int64(st, ID_NCOL + 8),
                   sqlite3_column_int(st, ID_NCOL + 9), sqlite3_column_int(st, ID_NCOL + 10));
    }
    if (p) night_close(p, &g);
    gather_free(&g);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
}

/* The canary: each nightly's copy bandwidth per device (GB/s, one value). */
static int load_canary(sqlite3 *db, struct history_list *out, char *err, size_t errn) {
    static const char sql[] =
        "SELECT d.fingerprint, d.spec, d.name, n.id, n.started_at, p.copy_gbs,"
        " (SELECT b.git_commit FROM nightly_run nr JOIN run r ON r.id = nr.run_id JOIN build b ON b.id = r.build_id"
        "  WHERE nr.nightly_id = n.id ORDER BY r.id LIMIT 1),"
        " (SELECT b.dirty FROM nightly_run nr JOIN run r ON r.id = nr.run_id JOIN build b ON b.id = r.build_id"
        "  WHERE nr.nightly_id = n.id ORDER BY r.id LIMIT 1)"
        " FROM nightly n JOIN nightly_peak np ON np.nightly_id = n.id JOIN peak p ON p.id = np.peak_id"
        " JOIN device d ON d.id = p.device_id WHERE p.copy_gbs > 0"
        " ORDER BY d.fingerprint, n.started_at, n.id, p.id";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc;
    struct history *h = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!h || strcmp(h->id.fp, text(st, 0))) {
            h = history_add(out);
            str_copy(h->id.fp, sizeof h->id.fp, text(st, 0));
            str_copy(h->id.spec, sizeof h->id.spec, text(st, 1));
            str_copy(h->id.device, sizeof h->id.device, text(st, 2));
            str_copy(h->id.app, sizeof h->id.app, "canary");
            str_copy(h->id.input, sizeof h->id.input, "copy");
            str_copy(h->id.variant, sizeof h->id.variant, "copy-bandwidth");
            str_fmt(h->id.key, sizeof h->id.key, "%s|canary|copy||", h->id.fp);
            h->id.higher_better = 1;
        }
        int64_t nightly = sqlite3_column_int64(st, 3);
        if (h->n && h->p[h->n - 1].nightly_id == nightly) continue; /* one per night: the first */
        struct night_point *p = point_add(h);
        p->nightly_id = nightly;
        str_copy(p->when, sizeof p->when, text(st, 4));
        str_copy(p->commit, sizeof p->commit, text(st, 6));
        p->dirty = sqlite3_column_int(st, 7);
        p->n = 1;
        p->median = p->q1 = p->q3 = sqlite3_column_double(st, 5);
        p->nv = (struct night_value){.rounds = 1, .mean = log(p->median), .var = NAN};
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
}

static int cmp_history(const void *a, const void *b) {
    return strcmp(((const struct history *)a)->id.key, ((const struct history *)b)->id.key);
}

int history_load(sqlite3 *db, struct history_list *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    if (load_timings(db, out, err, errn) != 0 || load_canary(db, out, err, errn) != 0) {
        history_list_free(out);
        return -1;
    }
    qsort(out->h, (size_t)out->n, sizeof *out->h, cmp_history);
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
