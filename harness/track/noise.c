/* noise.h: learning the noise model from the nightly history. */
#include "track/noise.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store_noise.h"

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

int noise_set_load(struct store *s, const char *before, struct noise_set *out, char *err, size_t errn) {
    return noise_set_load_by(s, MEASURE_WALL, before, out, err, errn);
}

int noise_set_load_by(struct store *s, enum measure measure, const char *before, struct noise_set *out, char *err,
                      size_t errn) {
    struct history_list hl;
    if ((measure == MEASURE_WALL ? history_load(s, &hl, err, errn) : history_load_by(s, measure, &hl, err, errn)) != 0)
        return -1;
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

int noise_set_store(struct store *store, const struct noise_set *s, char *err, size_t errn) {
    struct store_noise_row *rows = xcalloc((size_t)s->n + 1, sizeof *rows);
    for (int i = 0; i < s->n; i++) {
        const struct noise_entry *e = &s->e[i];
        rows[i] = (struct store_noise_row){
            .series = e->key,
            .fingerprint = e->fp,
            .label = e->label,
            .nights = e->own.nights,
            .builds = e->own.builds,
            .own_sigma_night = e->own.sigma_night,
            .own_df_night = e->own.df_night,
            .sigma_night = e->used.sigma_night,
            .df_night = e->used.df_night,
            .sigma_round = e->used.sigma_round,
            .df_round = e->used.df_round,
        };
    }
    int rc = store_noise_models(store, rows, s->n, err, errn);
    free(rows);
    return rc;
}

void noise_set_free(struct noise_set *s) {
    free(s->e);
    memset(s, 0, sizeof *s);
}
