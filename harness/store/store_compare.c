/* compare's queries on its sets of runs (store_compare.h). */
#include "store/store_compare.h"

#include <math.h>
#include <sqlite3.h>

#include "base/util.h"

int store_runset_builds(struct store *s, const char *table, char *first, size_t fn, char *second, size_t sn) {
    char sql[512];
    str_fmt(sql, sizeof sql,
            "SELECT DISTINCT COALESCE(n.build_hash, b.git_commit || CASE WHEN b.dirty THEN '+dirty' ELSE '' END)"
            " FROM temp.%s t JOIN run r ON r.id = t.run_id JOIN build b ON b.id = r.build_id"
            " LEFT JOIN nightly_run nr ON nr.run_id = r.id LEFT JOIN nightly n ON n.id = nr.nightly_id",
            table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int k = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (k == 0) str_copy(first, fn, (const char *)sqlite3_column_text(st, 0));
        else if (k == 1) str_copy(second, sn, (const char *)sqlite3_column_text(st, 0));
        k++;
    }
    sqlite3_finalize(st);
    return k;
}

void store_runset_first_night(struct store *s, const char *table, char *buf, size_t n) {
    char sql[256];
    str_fmt(sql, sizeof sql,
            "SELECT min(n.started_at) FROM temp.%s t JOIN nightly_run nr ON nr.run_id = t.run_id"
            " JOIN nightly n ON n.id = nr.nightly_id",
            table);
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        str_copy(buf, n, (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

int store_confirmation_latest(struct store *s, const char *series, const char *build_a, const char *build_b,
                              struct confirmation_seen *c) {
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT verdict, ratio, rounds, p, COALESCE(reason, ''), detectable FROM confirmation"
                      " WHERE series = ?1 AND build_a = ?2 AND build_b = ?3 ORDER BY id DESC LIMIT 1";
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, series, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, build_a, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, build_b, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        str_copy(c->verdict, sizeof c->verdict, (const char *)sqlite3_column_text(st, 0));
        c->has_ratio = sqlite3_column_type(st, 1) != SQLITE_NULL;
        c->ratio = sqlite3_column_double(st, 1);
        c->rounds = sqlite3_column_int(st, 2);
        c->p = sqlite3_column_double(st, 3);
        str_copy(c->reason, sizeof c->reason, (const char *)sqlite3_column_text(st, 4));
        c->detectable = sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
    }
    sqlite3_finalize(st);
    return found;
}
