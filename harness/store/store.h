/* The SQLite results store. The schema is harness/store/schema.sql (embedded at
 * build time as schema_sql); store_open creates and migrates it. WAL mode, a
 * busy timeout so two sweeps can share a file, prepared statements, and one
 * transaction per finished measurement. */
#ifndef HARNESS_STORE_H
#define HARNESS_STORE_H
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "core/measurement.h"

struct store;

/* Opens (creating folders, schema and migrations as needed). NULL + err on failure. */
struct store *store_open(const char *path, char *err, size_t errn);
void store_close(struct store *s);
/* The default database: ROOT/results/results.db. */
const char *store_default_path(void);

/* Starts a run (a session of one command on one device): records host,
 * device (with fingerprint), build and the command line. Returns the run id
 * or -1. */
int64_t store_run_begin(struct store *s, const struct device_info *dev, const char *command, char *err, size_t errn);
int store_run_end(struct store *s, int64_t run_id);
/* Stores one measurement and every sample in a single transaction. */
int store_measurement(struct store *s, int64_t run_id, const struct measurement *m, char *err, size_t errn);
/* The same, giving the new row's id (for its later rounds). */
int store_measurement_id(struct store *s, int64_t run_id, const struct measurement *m, int64_t *id, char *err,
                         size_t errn);
/* A later round of measurement mid: stores samples [from, m->nsamples) and
 * refreshes the row's summary, status and rounds_done, in one transaction. */
int store_measurement_more(struct store *s, int64_t mid, const struct measurement *m, int from, char *err, size_t errn);
/* Loads measurement mid's samples (with their rounds) into m, replacing
 * what m held: a resumed sweep continues the rounds of a stored row. */
int store_measurement_samples(struct store *s, int64_t mid, struct measurement *m, char *err, size_t errn);

/* One round of a measuring command as seen on one run (core/rounds.h). */
struct round_state;
int store_round_state(struct store *s, int64_t run_id, const struct round_state *r, char *err, size_t errn);

/* Device ceilings, keyed by fingerprint (the latest wins). */
int store_peak_put(struct store *s, const struct device_info *dev, double copy_gbs, double fp32_gflops, char *err,
                   size_t errn);
/* 0 and the values when known; -1 when the device has none yet. */
int store_peak_get(struct store *s, const char *fingerprint, double *copy_gbs, double *fp32_gflops);
/* The device's measured copy bandwidth, or 0 (no store, or none measured yet). */
double store_peak_gbs(struct store *s, const struct device_info *dev);
/* The median of the device's last nine copy bandwidths: what it usually
 * measures. 0, or -1 when it has none. */
int store_peak_usual(struct store *s, const char *fingerprint, double *copy_gbs);

/* A results file opened read-only: never created, never migrated (export,
 * plot, report --from-db read what is there). The store's files reach its
 * connection through store_reader_db. */
struct store_reader;
/* NULL with err: "no database at PATH" (SQLite alone would only say "unable
 * to open"), or "PATH: why". */
struct store_reader *store_reader_open(const char *path, char *err, size_t errn);
/* The same, with the message printed as "harness CMD: ..." on stderr. */
struct store_reader *store_reader_open_cmd(const char *cmd, const char *path);
void store_reader_close(struct store_reader *rd);
const char *store_reader_errmsg(struct store_reader *rd);
struct sqlite3 *store_reader_db(struct store_reader *rd);

/* A results file opened read-only as a struct store, for the loaders that
 * take one (track/'s history_load, store_series_change_points) where a
 * command must not write (publish): never created or migrated, nothing
 * prepared, so only functions that prepare their own queries may use it.
 * NULL with err ("no database at PATH"). store_close closes it. */
struct store *store_open_readonly(const char *path, char *err, size_t errn);

/* The open connection, for the store's own files (store_*.c) only. */
struct sqlite3 *store_db(struct store *s);
/* The last SQLite error on s, for a message. */
const char *store_errmsg(struct store *s);
/* The ids the last store_run_begin recorded for host, device and build. */
int64_t store_device_id(struct store *s, int64_t run_id);
int64_t store_build_id(struct store *s, int64_t run_id);
/* This binary's build row (created when missing), or -1. */
int64_t store_build_this(struct store *s);

/* `harness results`: the most recent measurements as a table or CSV. */
int store_print_recent(struct store *s, int limit, int csv, FILE *out);
/* `harness results --rounds`: the same measurements with each round's
 * median (a round: one worker process, rounds.h). */
int store_print_rounds(struct store *s, int limit, int csv, FILE *out);
#endif
