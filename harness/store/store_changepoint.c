/* store_changepoint.h: change_point's reads and writes. A refresh remembers
 * the ids it found in temp.cp_seen, so what it no longer finds can be
 * withdrawn at the end. */
#include "store/store_changepoint.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store_nightly.h"

int store_change_points_begin(struct store *s, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    if (db_exec(db, "BEGIN IMMEDIATE", err, errn) != 0) return -1;
    return db_exec(db, "DROP TABLE IF EXISTS temp.cp_seen; CREATE TEMP TABLE cp_seen (id INTEGER PRIMARY KEY)", err,
                   errn);
}

/* *id: the stored point that c is the same change as, or -1. 0, or -1 on an error. */
static int change_point_same(sqlite3 *db, const struct change_point_found *c, int64_t *id) {
    sqlite3_stmt *st = NULL;
    const char *find = "SELECT id FROM change_point WHERE series = ?1 AND night IN (?2, ?3, ?4)"
                       " ORDER BY night = ?3 DESC LIMIT 1";
    *id = -1;
    if (sqlite3_prepare_v2(db, find, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, c->series, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, c->near[0], -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, c->night, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, c->near[1], -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

int64_t store_change_point_put(struct store *s, const struct change_point_found *c) {
    sqlite3 *db = store_db(s);
    int64_t id;
    if (change_point_same(db, c, &id) != 0) return -1;
    const char *sql = id > 0 ? "UPDATE change_point SET night = ?2, run_id = ?3, magnitude = ?4, p_value = ?5,"
                               " direction = ?6, device_fingerprint = ?7, nightly_id = ?9 WHERE id = ?8"
                             : "INSERT INTO change_point(series, night, run_id, magnitude, p_value, direction,"
                               " device_fingerprint, triage, detected_at, nightly_id)"
                               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'detected',"
                               " strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?9)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, c->series, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, c->night, -1, SQLITE_TRANSIENT);
    if (c->run_id > 0) sqlite3_bind_int64(st, 3, c->run_id);
    else sqlite3_bind_null(st, 3);
    sqlite3_bind_double(st, 4, c->magnitude);
    sqlite3_bind_double(st, 5, c->p_value);
    sqlite3_bind_text(st, 6, c->direction, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, c->fingerprint, -1, SQLITE_TRANSIENT);
    if (id > 0) sqlite3_bind_int64(st, 8, id);
    sqlite3_bind_int64(st, 9, c->nightly_id);
    int ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!ok) return -1;
    if (id <= 0) id = sqlite3_last_insert_rowid(db);
    char seen[96];
    str_fmt(seen, sizeof seen, "INSERT OR IGNORE INTO temp.cp_seen VALUES (%lld)", (long long)id);
    db_exec(db, seen, NULL, 0);
    return id;
}

int64_t store_change_points_withdraw(struct store *s) {
    sqlite3 *db = store_db(s);
    int64_t gone = 0;
    db_int(db,
           "SELECT count(*) FROM change_point WHERE triage = 'detected'"
           " AND id NOT IN (SELECT id FROM temp.cp_seen)",
           0, &gone, NULL, 0);
    db_exec(db, "DELETE FROM change_point WHERE triage = 'detected' AND id NOT IN (SELECT id FROM temp.cp_seen)", NULL,
            0);
    return gone;
}

int store_change_points_commit(struct store *s, char *err, size_t errn) {
    return db_exec(store_db(s), "COMMIT", err, errn);
}

void store_change_points_abandon(struct store *s) {
    sqlite3 *db = store_db(s);
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int store_change_point_confirmed(struct store *s, int64_t id) {
    char sql[160];
    str_fmt(sql, sizeof sql, "SELECT count(*) FROM change_point WHERE id = %lld AND confirmation IS NOT NULL",
            (long long)id);
    int64_t done = 0;
    db_int(store_db(s), sql, 0, &done, NULL, 0);
    return done > 0;
}

void store_change_point_set_confirmation(struct store *s, int64_t id, const char *text) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s), "UPDATE change_point SET confirmation = ?1 WHERE id = ?2", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, id);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
}

int store_change_point_triage(struct store *s, int64_t id, const char *state, const char *note) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE change_point SET triage = ?1, note = COALESCE(?2, note) WHERE id = ?3", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
    if (note) sqlite3_bind_text(st, 2, note, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, id);
    int rc = sqlite3_step(st) != SQLITE_DONE ? -1 : sqlite3_changes(db) > 0;
    sqlite3_finalize(st);
    return rc;
}

static char *text_at(sqlite3_stmt *st, int i) {
    const char *v = (const char *)sqlite3_column_text(st, i);
    return xstrdup(v ? v : "");
}

int store_change_points(struct store *s, struct change_point_row **out) {
    static const char sql[] = "SELECT id, series, night, magnitude, p_value, triage, direction, note, run_id,"
                              " nightly_id, confirmation FROM change_point ORDER BY night, id";
    sqlite3_stmt *st = NULL;
    *out = NULL;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *out = xrealloc(*out, (size_t)(n + 1) * sizeof **out);
        (*out)[n++] = (struct change_point_row){
            .id = sqlite3_column_int64(st, 0),
            .series = text_at(st, 1),
            .night = text_at(st, 2),
            .magnitude = sqlite3_column_double(st, 3),
            .p_value = sqlite3_column_double(st, 4),
            .triage = text_at(st, 5),
            .direction = text_at(st, 6),
            .note = text_at(st, 7),
            .run_id = sqlite3_column_int64(st, 8),
            .nightly_id = sqlite3_column_int64(st, 9),
            .confirmation = text_at(st, 10),
        };
    }
    sqlite3_finalize(st);
    return n;
}

void store_change_points_free(struct change_point_row *rows, int n) {
    for (int i = 0; i < n; i++) {
        free(rows[i].series);
        free(rows[i].night);
        free(rows[i].triage);
        free(rows[i].direction);
        free(rows[i].note);
        free(rows[i].confirmation);
    }
    free(rows);
}

void store_nightly_build_name(struct store *s, int64_t nightly, char *buf, size_t n) {
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT COALESCE(n.build_hash, (SELECT b.git_commit FROM nightly_run nr JOIN run r ON"
                           " r.id = nr.run_id JOIN build b ON b.id = r.build_id WHERE nr.nightly_id = n.id LIMIT 1),"
                           " '?') FROM nightly n WHERE n.id = ?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, nightly);
        if (sqlite3_step(st) == SQLITE_ROW) str_copy(buf, n, (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
}
