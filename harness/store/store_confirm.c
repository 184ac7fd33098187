/* store_confirm.h. */
#include "store/store_confirm.h"

#include <sqlite3.h>

static int64_t insert_verdict(sqlite3 *db, const struct store_confirmation *c) {
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO confirmation(series, nightly_id, change_point_id, source, build_a, build_b,"
                      " flagged_ratio, rounds, ratio, p, sd, verdict, reason, measure, detectable)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, c->series, -1, SQLITE_STATIC);
    if (c->nightly_id > 0) sqlite3_bind_int64(st, 2, c->nightly_id);
    if (c->change_point_id > 0) sqlite3_bind_int64(st, 3, c->change_point_id);
    sqlite3_bind_text(st, 4, c->source, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, c->build_a, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, c->build_b, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 7, c->flagged_ratio);
    sqlite3_bind_int(st, 8, c->rounds);
    if (c->rounds) {
        sqlite3_bind_double(st, 9, c->ratio);
        sqlite3_bind_double(st, 10, c->p);
        sqlite3_bind_double(st, 11, c->sd);
    }
    sqlite3_bind_text(st, 12, c->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, c->reason, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 14, c->measure ? c->measure : "wall", -1, SQLITE_STATIC);
    if (c->rounds > 0 && c->detectable > 0) sqlite3_bind_double(st, 15, c->detectable);
    int ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    return ok ? sqlite3_last_insert_rowid(db) : -1;
}

int64_t store_confirmation_put(struct store *s, const struct store_confirmation *c, const struct measurement *a,
                               const struct measurement *b) {
    sqlite3 *db = store_db(s);
    int64_t id = insert_verdict(db, c);
    if (id < 0) return -1;
    /* Every sample of both sides, with its round, so a verdict can be re-read. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO confirmation_sample(confirmation_id, side, round, seconds)"
                           " VALUES (?1, ?2, ?3, ?4)",
                           -1, &st, NULL) != SQLITE_OK)
        return id;
    for (int side = 0; side < 2; side++) {
        const struct measurement *m = side ? b : a;
        for (int i = 0; i < m->nsamples; i++) {
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_text(st, 2, side ? "B" : "A", -1, SQLITE_STATIC);
            sqlite3_bind_int(st, 3, m->sample_round ? m->sample_round[i] : 0);
            sqlite3_bind_double(st, 4, m->samples[i]);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    return id;
}
