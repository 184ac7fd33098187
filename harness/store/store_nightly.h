/* The tables of nightly tracking, kept out of schema.sql (another issue's
 * file): which runs and canary peaks each nightly produced, with its
 * telemetry; runs excluded from the history, with a reason; and the columns
 * change_point needs beyond the shared schema. Created on first use on the
 * connection store.c opened (store_db), idempotently. */
#ifndef HARNESS_STORE_NIGHTLY_H
#define HARNESS_STORE_NIGHTLY_H
#include <stddef.h>
#include <stdint.h>

struct sqlite3;

/* Creates the tables and adds the change_point columns when missing.
 * 0, or -1 with err. */
int nightly_schema(struct sqlite3 *db, char *err, size_t errn);

struct store;
/* Opens PATH (the default database when NULL) with the nightly tables. With
 * must_exist, a missing file is refused ("no database PATH", *code =
 * EXIT_USAGE) rather than created; other failures set *code = EXIT_FOUND.
 * NULL after one message on stderr naming the command. */
struct store *nightly_store_open(const char *cmd, const char *path, int must_exist, int *code);
/* The previous finished nightly of the same host and suite as `id`, or 0. */
int64_t store_nightly_previous(struct store *s, int64_t id);
/* A nightly's kept build hash and start time ("" when unknown). */
void store_nightly_build(struct store *s, int64_t id, char *hash, size_t hn, char *start, size_t sn);

/* Runs a statement that returns no rows (or ignores them). 0 or -1 + err. */
int db_exec(struct sqlite3 *db, const char *sql, char *err, size_t errn);
/* The first column of the first row as an integer; dflt when there is no row
 * or it is NULL. -1 with err on a database error, else 0. */
int db_int(struct sqlite3 *db, const char *sql, int64_t dflt, int64_t *out, char *err, size_t errn);

/* Fills the temporary table temp.<table>(run_id) with the runs a spec names:
 *   N              run N
 *   build:PREFIX   every run of the builds whose commit starts with PREFIX
 *   nightly:N      every run nightly N produced; nightly:-1 is the latest,
 *                  nightly:-2 the one before, ...
 * or a comma-separated list of these (their union: "3,5,7").
 * Returns the number of runs, or -1 with err when a part is malformed or
 * names no run, or on a database error. */
int runset_resolve(struct sqlite3 *db, const char *spec, const char *table, char *err, size_t errn);
/* The same two on an open store, for code outside store/. */
int store_nightly_tables(struct store *s, char *err, size_t errn);
int store_runset(struct store *s, const char *spec, const char *table, char *err, size_t errn);
#endif
