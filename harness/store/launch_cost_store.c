/* Launch-cost rows into the results database (tables launch_cost and
 * launch_cost_sample in schema.sql), on the store's own connection. */
#include <sqlite3.h>

#include "backend/launch_cost.h"
#include "base/util.h"
#include "store/store.h"
#include "store/store_sql.h"

static int db_fail(sqlite3 *db, char *err, size_t errn) {
    return err_set(err, errn, "storing launch cost: %s", sqlite3_errmsg(db));
}

static int insert_row(sqlite3 *db, sqlite3_stmt *row, sqlite3_stmt *sample, int64_t run_id, int64_t device_id,
                      const struct launch_cost_row *r) {
    sqlite3_reset(row);
    sqlite3_bind_int64(row, 1, run_id);
    sqlite3_bind_int64(row, 2, device_id);
    sqlite3_bind_text(row, 3, launch_cost_kind_name(r->kind), -1, SQLITE_STATIC);
    sqlite3_bind_int(row, 4, r->nargs);
    sqlite3_bind_int64(row, 5, r->launches);
    sqlite3_bind_int(row, 6, r->reps);
    store_bind_real(row, 7, r->enqueue_median_s);
    store_bind_real(row, 8, r->enqueue_q1_s);
    store_bind_real(row, 9, r->enqueue_q3_s);
    store_bind_real(row, 10, r->total_median_s);
    store_bind_real(row, 11, r->total_q1_s);
    store_bind_real(row, 12, r->total_q3_s);
    if (sqlite3_step(row) != SQLITE_DONE) return -1;
    const int64_t id = sqlite3_last_insert_rowid(db);
    for (int i = 0; i < r->reps && i < LAUNCH_COST_MAX_REPS; i++) {
        sqlite3_reset(sample);
        sqlite3_bind_int64(sample, 1, id);
        sqlite3_bind_int(sample, 2, i);
        store_bind_real(sample, 3, r->enqueue_s[i]);
        store_bind_real(sample, 4, r->total_s[i]);
        if (sqlite3_step(sample) != SQLITE_DONE) return -1;
    }
    return 0;
}

int launch_cost_store(struct store *s, int64_t run_id, const struct launch_cost_row *rows, int nrows, char *err,
                      size_t errn) {
    sqlite3 *db = store_db(s);
    const int64_t device_id = store_device_id(s, run_id);
    if (device_id < 0) return err_set(err, errn, "storing launch cost: no run %lld", (long long)run_id);
    sqlite3_stmt *row = NULL, *sample = NULL;
    int rc = -1;
    /* One transaction: a killed command leaves all of a device's rows or none. */
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return db_fail(db, err, errn);
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO launch_cost(run_id, device_id, kind, nargs, launches, reps,"
                           " enqueue_median_s, enqueue_q1_s, enqueue_q3_s, total_median_s, total_q1_s, total_q3_s)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, &row, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "INSERT INTO launch_cost_sample(launch_cost_id, rep, enqueue_s, total_s)"
                           " VALUES (?1, ?2, ?3, ?4)",
                           -1, &sample, NULL) == SQLITE_OK) {
        rc = 0;
        for (int i = 0; i < nrows && !rc; i++) rc = insert_row(db, row, sample, run_id, device_id, &rows[i]);
    }
    if (rc) db_fail(db, err, errn); /* before the rollback replaces the message */
    sqlite3_finalize(row);
    sqlite3_finalize(sample);
    if (!rc && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = db_fail(db, err, errn);
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc ? -1 : 0;
}
