/* store_noise.h. */
#include "store/store_noise.h"

#include <sqlite3.h>

#include "base/util.h"
#include "store/store.h"
#include "store/store_nightly.h"

static void bind_row(sqlite3_stmt *st, const struct store_noise_row *r) {
    sqlite3_bind_text(st, 1, r->series, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->label, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, r->nights);
    sqlite3_bind_int(st, 5, r->builds);
    sqlite3_bind_double(st, 6, r->own_sigma_night);
    sqlite3_bind_double(st, 7, r->own_df_night);
    sqlite3_bind_double(st, 8, r->sigma_night);
    sqlite3_bind_double(st, 9, r->df_night);
    sqlite3_bind_double(st, 10, r->sigma_round);
    sqlite3_bind_double(st, 11, r->df_round);
}

int store_noise_models(struct store *s, const struct store_noise_row *rows, int n, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    if (db_exec(db, "BEGIN IMMEDIATE; DELETE FROM noise_model", err, errn) != 0) return -1;
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO noise_model(series, fingerprint, label, nights, builds, own_sigma_night,"
                      " own_df_night, sigma_night, df_night, sigma_round, df_round)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        bind_row(st, &rows[i]);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
    }
    if (rc) err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == 0) return db_exec(db, "COMMIT", err, errn);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}
