/* Runs a person took out of the nightly history, with a reason (`harness
 * exclude`); `harness regressions` and `plot nightly` leave them out. The
 * table comes from nightly_schema (store_nightly.h): open the store with
 * nightly_store_open. */
#ifndef HARNESS_STORE_EXCLUSION_H
#define HARNESS_STORE_EXCLUSION_H
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Takes the runs spec names (a run id, build:PREFIX, nightly:N or a list of
 * these, as runset_resolve reads them) out of the history, or with reason
 * NULL puts them back. The number of runs; -1 with err when spec is
 * malformed or names no run; -2 with err on a database error. */
int store_runs_exclude(struct store *s, const char *spec, const char *reason, char *err, size_t errn);

/* An excluded run; the texts are never NULL ("?" for a run or device not stored). */
struct run_exclusion_row {
    int64_t run_id;
    char *device, *started_at, *reason;
};
/* Every excluded run by id (*out malloc'd). How many, or -1. */
int store_run_exclusions(struct store *s, struct run_exclusion_row **out);
void store_run_exclusions_free(struct run_exclusion_row *rows, int n);
#endif
