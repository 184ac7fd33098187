/* noise.h: learning the noise model from the nightly history. */
#include "noise.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store_nightly.h"
#include "util.h"

/* One series: its clean nights and the build group of each. */
static void learn_series(const struct history *h, const char *before, struct noise_model *own) {
    struct night_value *v = xcalloc((size_t)h->n + 1, sizeof *v);
    int *group = xcalloc((size_t)h->n + 1, sizeof *group), n = 0;
    for (int i = 0; i < h->n; i++) {
        const struct night_point *p = &h->p[i];
        if (p->bad || p->nv.rounds < 1 || (before && before[0] && strcmp(p->when, before) >= 0)) continue;
        int g = -1;
        for (int j = 0; j < i && g < 0; j++)
            if (!strcmp(h->p[j].build, p->build)) g = j;
        group[n] = g < 0 ? i : g;
        v[n++] = p->nv;
    }
    noise_learn(v, group, n, own);
    free(v);
    free(group);
}

void noise_set_learn(const struct history_list *hl, const char *before, struct noise_set *out) {
    memset(out, 0, sizeof *out);
    out->e = xcalloc((size_t)hl->n + 1, sizeof *out->e);
    for (int i = 0; i < hl->n; i++) {
        const struct history *h = &hl->h[i];
        if (h->id.higher_better) continue; /* the canary has its own veto */
        struct noise_entry *e = &out->e[out->n++];
        str_copy(e->key, sizeof e->key, h->id.key);
        str_copy(e->fp, sizeof e->fp, h->id.fp);
        series_label(&h->id, e->label, sizeof e->label);
        learn_series(h, before, &e->own);
    }
    for (int i = 0; i < out->n; i++) noise_effective(&out->e[i].own, &out->e[i].used);
}

int noise_set_load(sqlite3 *db, const char *before, struct noise_set *out, char *err, size_t errn) {
    struct history_list hl;
    if (history_load(db, &hl, err, errn) != 0) return -1;
    noise_set_learn(&hl, before, out);
    history_list_free(&hl);
    return 0;
}

void noise_set_find(const struct noise_set *s, const char *key, struct noise_model *out) {
    for (int i = 0; s && i < s->n; i++)
        if (!strcmp(s->e[i].key, key)) {
            *out = s->e[i].own;
            return;
        }
    *out = (struct noise_model){0}; /* no history: the priors alone (round_stats.h) */
}

int noise_set_store(sqlite3 *db, const struct noise_set *s, char *err, size_t errn) {
    if (db_exec(db, "BEGIN IMMEDIATE; DELETE FROM noise_model", err, errn) != 0) return -1;
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO noise_model(series, fingerprint, label, nights, builds, own_sigma_night,"
                      " own_df_night, sigma_night, df_night, sigma_round, df_round)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    for (int i = 0; rc == 0 && i < s->n; i++) {
        const struct noise_entry *e = &s->e[i];
        sqlite3_bind_text(st, 1, e->key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, e->fp, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, e->label, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, e->own.nights);
        sqlite3_bind_int(st, 5, e->own.builds);
        sqlite3_bind_double(st, 6, e->own.sigma_night);
        sqlite3_bind_double(st, 7, e->own.df_night);
        sqlite3_bind_double(st, 8, e->used.sigma_night);
        sqlite3_bind_double(st, 9, e->used.df_night);
        sqlite3_bind_double(st, 10, e->used.sigma_round);
        sqlite3_bind_double(st, 11, e->used.df_round);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
    }
    if (rc) err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == 0) return db_exec(db, "COMMIT", err, errn);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

void noise_set_free(struct noise_set *s) {
    free(s->e);
    memset(s, 0, sizeof *s);
}
