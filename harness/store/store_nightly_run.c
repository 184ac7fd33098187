/* The nightly row of `harness nightly` (store_nightly_run.h). */
#include "store/store_nightly_run.h"

#include <sqlite3.h>
#include <unistd.h>

#include "base/util.h"
#include "store/store_nightly.h"

static int64_t max_id(sqlite3 *db, const char *table) {
    char sql[128];
    int64_t v = 0;
    str_fmt(sql, sizeof sql, "SELECT max(id) FROM %s", table);
    db_int(db, sql, 0, &v, NULL, 0);
    return v;
}

int64_t store_last_run_id(struct store *s) { return max_id(store_db(s), "run"); }

int64_t store_last_peak_id(struct store *s) { return max_id(store_db(s), "peak"); }

int store_nightly_begin(struct store *s, const char *suites, const char *telemetry, const char *hash, int rounds,
                        int64_t *id) {
    sqlite3 *db = store_db(s);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO nightly(host, suite, started_at, telemetry, build_hash, rounds)"
                      " VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?3, ?4, ?5)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, suites, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, telemetry, -1, SQLITE_TRANSIENT);
    if (hash && hash[0]) sqlite3_bind_text(st, 4, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 5, rounds);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    *id = sqlite3_last_insert_rowid(db);
    return rc;
}

int store_nightly_end(struct store *s, int64_t id, int status, const char *telemetry, int64_t run0, int64_t run1,
                      int64_t peak0, int64_t peak1, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    char sql[512];
    if (db_exec(db, "BEGIN IMMEDIATE", err, errn) != 0) return -1;
    str_fmt(sql, sizeof sql,
            "INSERT OR IGNORE INTO nightly_run(nightly_id, run_id)"
            " SELECT %lld, id FROM run WHERE id > %lld AND id <= %lld;"
            "INSERT OR IGNORE INTO nightly_peak(nightly_id, peak_id)"
            " SELECT %lld, id FROM peak WHERE id > %lld AND id <= %lld;",
            (long long)id, (long long)run0, (long long)run1, (long long)id, (long long)peak0, (long long)peak1);
    sqlite3_stmt *st = NULL;
    int rc = db_exec(db, sql, err, errn);
    if (rc == 0 && sqlite3_prepare_v2(db,
                                      "UPDATE nightly SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
                                      " status = ?1, telemetry = telemetry || ?2 WHERE id = ?3",
                                      -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, status);
        sqlite3_bind_text(st, 2, telemetry, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
    } else if (rc == 0) {
        rc = err_set(err, errn, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    if (rc == 0) return db_exec(db, "COMMIT", err, errn);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}
