/* store_exclusion.h: run_exclusion's reads and writes. */
#include "store/store_exclusion.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store_nightly.h"
#include "store/store_sql.h"

int store_runs_exclude(struct store *s, const char *spec, const char *reason, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    int n = runset_resolve(db, spec, "excl", err, errn);
    if (n <= 0) return -1;
    const char *sql = reason ? "INSERT OR REPLACE INTO run_exclusion(run_id, reason) SELECT run_id, ?1 FROM temp.excl"
                             : "DELETE FROM run_exclusion WHERE run_id IN (SELECT run_id FROM temp.excl)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errn, "%s", sqlite3_errmsg(db));
        return -2;
    }
    if (reason) sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        err_set(err, errn, "%s", sqlite3_errmsg(db));
        n = -2;
    }
    sqlite3_finalize(st);
    return n;
}

static char *text_at(sqlite3_stmt *st, int i) { return xstrdup(store_text(st, i)); }

int store_run_exclusions(struct store *s, struct run_exclusion_row **out) {
    sqlite3_stmt *st = NULL;
    *out = NULL;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT e.run_id, COALESCE(dv.spec, '?'), COALESCE(r.started_at, '?'), e.reason"
                           " FROM run_exclusion e LEFT JOIN run r ON r.id = e.run_id"
                           " LEFT JOIN device dv ON dv.id = r.device_id ORDER BY e.run_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *out = xrealloc(*out, (size_t)(n + 1) * sizeof **out);
        (*out)[n++] = (struct run_exclusion_row){.run_id = sqlite3_column_int64(st, 0),
                                                 .device = text_at(st, 1),
                                                 .started_at = text_at(st, 2),
                                                 .reason = text_at(st, 3)};
    }
    sqlite3_finalize(st);
    return n;
}

void store_run_exclusions_free(struct run_exclusion_row *rows, int n) {
    for (int i = 0; i < n; i++) {
        free(rows[i].device);
        free(rows[i].started_at);
        free(rows[i].reason);
    }
    free(rows);
}
