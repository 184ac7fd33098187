/* The per-series noise model, learned from history (round_stats.h has the
 * arithmetic and the priors every test adds): for every series, the nights
 * of each build (where nothing changed: same build, and the fingerprint
 * keeps the driver and device the same), bad nights and excluded runs left
 * out. `harness noise` shows and stores it; compare, regressions and
 * nightly use it. */
#ifndef HARNESS_NOISE_H
#define HARNESS_NOISE_H
#include <stddef.h>

#include "stats/round_stats.h"
#include "track/series.h"

struct store;

struct noise_entry {
    char key[1024], fp[24], label[256];
    struct noise_model own;  /* from this series' nights alone */
    struct noise_model used; /* with the priors (noise_effective), as shown */
};

struct noise_set {
    int n;
    struct noise_entry *e;
};

/* Learns from the loaded history, counting only nights that started before
 * `before` (ISO 8601; NULL or "" for all). */
void noise_set_learn(const struct history_list *hl, const char *before, struct noise_set *out);
/* The same from the database. 0, or -1 with err. */
int noise_set_load(struct store *s, const char *before, struct noise_set *out, char *err, size_t errn);
/* The same for another measure than wall time (measurement.h). */
int noise_set_load_by(struct store *s, enum measure measure, const char *before, struct noise_set *out, char *err,
                      size_t errn);
/* A series' own model (zeros when it has no history); the tests add the
 * priors. */
void noise_set_find(const struct noise_set *s, const char *key, struct noise_model *out);
/* Replaces the noise_model table's rows with these. 0, or -1 with err. */
int noise_set_store(struct store *store, const struct noise_set *s, char *err, size_t errn);
void noise_set_free(struct noise_set *s);
#endif
