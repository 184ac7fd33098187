/* The change points `harness regressions` finds in the nightly history, with
 * the triage state a person sets (`harness triage`) and the verdict of a
 * confirmation. The table's nightly columns come from nightly_schema
 * (store_nightly.h): open the store with nightly_store_open. */
#ifndef HARNESS_STORE_CHANGEPOINT_H
#define HARNESS_STORE_CHANGEPOINT_H
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One change point as found: a series' step at night (the nightly's start,
 * ISO 8601 UTC), the first night of the new level. */
struct change_point_found {
    const char *series; /* the series key (series.h) */
    const char *night;
    const char *near[2];     /* the nights before and after it (night itself at an end) */
    const char *fingerprint; /* the device's */
    const char *direction;   /* "regression" (worse) or "improvement" */
    int64_t run_id;          /* the night's run, <= 0 when unknown */
    int64_t nightly_id;
    double magnitude; /* > 0: worse by this fraction */
    double p_value;
};

/* A refresh of the stored change points, in one transaction so a reader
 * never sees half of it: begin, put every point found, withdraw the rest,
 * commit (or abandon). 0, or -1 with err. */
int store_change_points_begin(struct store *s, char *err, size_t errn);
/* Inserts or refreshes c and marks it found by this refresh; its id, or -1.
 * A stored point of the series at c's night or a night either side is the
 * same change seen again: it keeps its id and triage. */
int64_t store_change_point_put(struct store *s, const struct change_point_found *c);
/* Deletes the untriaged points this refresh did not find; how many. */
int64_t store_change_points_withdraw(struct store *s);
int store_change_points_commit(struct store *s, char *err, size_t errn);
/* Rolls back a refresh not committed (nothing when none is open). */
void store_change_points_abandon(struct store *s);

/* Whether change point id has a confirmation's verdict yet. */
int store_change_point_confirmed(struct store *s, int64_t id);
/* Stores the verdict (confirm_describe's line) on change point id. */
void store_change_point_set_confirmation(struct store *s, int64_t id, const char *text);
/* Sets a change point's triage state and, when note is not NULL, its note.
 * 1, 0 when there is no change point id, -1 on an error (store_errmsg). */
int store_change_point_triage(struct store *s, int64_t id, const char *state, const char *note);

/* A stored change point; the texts are never NULL ("" when unset). */
struct change_point_row {
    int64_t id, run_id, nightly_id; /* 0 when unset */
    char *series, *night, *triage, *direction, *note, *confirmation;
    double magnitude, p_value;
};
/* Every stored change point by night, then id (*out malloc'd). How many, or -1. */
int store_change_points(struct store *s, struct change_point_row **out);
void store_change_points_free(struct change_point_row *rows, int n);

/* The build nightly measured: its kept build's hash, else its first run's
 * commit, else "?"; "" when there is no such nightly. */
void store_nightly_build_name(struct store *s, int64_t nightly, char *buf, size_t n);
#endif
