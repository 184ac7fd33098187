/* store_quality.h. */
#include "store/store_quality.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store.h"

/* The past canaries come as one group_concat list per device. */
static int parse_list(const char *list, double *v) {
    int k = 0;
    for (const char *p = list; p && *p && k < STORE_CANARY_PAST;) {
        v[k++] = strtod(p, (char **)&p);
        if (*p == ',') p++;
    }
    return k;
}

/* Runs sql (?1: nightly id; columns: spec, tonight's value, the past list)
 * and hands each row to fn. */
static int each_with_past(struct store *s, int64_t id, const char *sql, store_past_fn fn, void *ctx) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_past r = {.now = sqlite3_column_double(st, 1)};
        r.npast = parse_list((const char *)sqlite3_column_text(st, 2), r.past);
        const unsigned char *spec = sqlite3_column_text(st, 0);
        r.spec = spec ? (const char *)spec : "";
        fn(&r, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int store_nightly_canaries(struct store *s, int64_t id, store_past_fn fn, void *ctx) {
    return each_with_past(s, id,
                          "SELECT d.spec, p.copy_gbs,"
                          " (SELECT group_concat(q.copy_gbs) FROM (SELECT p2.copy_gbs FROM nightly_peak np2"
                          "   JOIN peak p2 ON p2.id = np2.peak_id JOIN nightly n2 ON n2.id = np2.nightly_id"
                          "   WHERE p2.device_id = p.device_id AND n2.id < ?1 AND p2.copy_gbs > 0"
                          "   ORDER BY n2.id DESC LIMIT 7) q)" /* STORE_CANARY_PAST */
                          " FROM nightly_peak np JOIN peak p ON p.id = np.peak_id JOIN device d ON d.id = p.device_id"
                          " WHERE np.nightly_id = ?1 AND p.copy_gbs > 0",
                          fn, ctx);
}

int store_nightly_spreads(struct store *s, int64_t id, store_past_fn fn, void *ctx) {
    return each_with_past(s, id,
                          "SELECT d.spec, (m.q3_s - m.q1_s) / m.median_s,"
                          " (SELECT group_concat(q.spread) FROM (SELECT (m2.q3_s - m2.q1_s) / m2.median_s AS spread"
                          "   FROM measurement m2 JOIN nightly_run nr2 ON nr2.run_id = m2.run_id"
                          "   JOIN run r2 ON r2.id = m2.run_id"
                          "   WHERE m2.config_id = m.config_id AND r2.device_id = r.device_id AND nr2.nightly_id < ?1"
                          "   AND m2.status = 'ok' AND m2.median_s > 0 AND m2.q3_s >= m2.q1_s"
                          "   ORDER BY nr2.nightly_id DESC LIMIT 7) q)" /* STORE_CANARY_PAST */
                          " FROM measurement m JOIN nightly_run nr ON nr.run_id = m.run_id JOIN run r ON r.id = m.run_id"
                          " JOIN device d ON d.id = r.device_id"
                          " WHERE nr.nightly_id = ?1 AND m.status = 'ok' AND m.median_s > 0 AND m.q3_s >= m.q1_s",
                          fn, ctx);
}

char *store_nightly_telemetry(struct store *s, int64_t id) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT telemetry FROM nightly WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_int64(st, 1, id);
    char *t = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        t = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return t;
}

int store_nightly_round_load(struct store *s, int64_t id, struct store_round_load *out) {
    sqlite3 *db = store_db(s);
    const char *sql = "SELECT count(*), COALESCE(sum(rs.disturbed), 0), COALESCE(max(rs.foreign_cores), 0),"
                      " COALESCE(max(rs.steal_cores), 0)"
                      " FROM round_state rs JOIN nightly_run nr ON nr.run_id = rs.run_id WHERE nr.nightly_id = ?1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc == 0)
        *out = (struct store_round_load){sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
                                         sqlite3_column_double(st, 2), sqlite3_column_double(st, 3)};
    sqlite3_finalize(st);
    return rc;
}

int store_nightly_quality(struct store *s, int64_t id, const char *quality, const char *devices) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE nightly SET quality = ?1, disturbed_devices = ?3 WHERE id = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, quality, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, id);
    if (devices && *devices) sqlite3_bind_text(st, 3, devices, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, 3);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

int store_nightly_inconclusive(struct store *s, int64_t id, int count, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE nightly SET inconclusive = ?1 WHERE id = ?2", -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_bind_int(st, 1, count);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

static void bind_real_or_null(sqlite3_stmt *st, int i, double v) {
    if (v == v) sqlite3_bind_double(st, i, v); /* NaN stays NULL */
    else sqlite3_bind_null(st, i);
}

int store_nightly_verdict_put(struct store *s, int64_t nightly_id, const struct store_night_verdict *v, char *err,
                              size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT OR REPLACE INTO nightly_verdict(nightly_id, series, verdict, ratio, detectable,"
                           " target, measure, confirmation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, nightly_id);
    sqlite3_bind_text(st, 2, v->series, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, v->verdict, -1, SQLITE_STATIC);
    bind_real_or_null(st, 4, v->ratio);
    bind_real_or_null(st, 5, v->detectable);
    bind_real_or_null(st, 6, v->target);
    sqlite3_bind_text(st, 7, v->measure ? v->measure : "wall", -1, SQLITE_STATIC);
    if (v->confirmation && *v->confirmation) sqlite3_bind_text(st, 8, v->confirmation, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

static double real_or_nan(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? (double)NAN : sqlite3_column_double(st, i);
}

int store_nightly_verdicts(struct store *s, const char *series, store_night_verdict_fn fn, void *ctx) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT nightly_id, verdict, ratio, detectable, target, COALESCE(measure, 'wall'),"
                           " COALESCE(confirmation, '') FROM nightly_verdict WHERE series = ?1 ORDER BY nightly_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1; /* a database from before the table: nothing to show */
    sqlite3_bind_text(st, 1, series, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_night_verdict v = {.series = series,
                                        .verdict = (const char *)sqlite3_column_text(st, 1),
                                        .ratio = real_or_nan(st, 2),
                                        .detectable = real_or_nan(st, 3),
                                        .target = real_or_nan(st, 4),
                                        .measure = (const char *)sqlite3_column_text(st, 5),
                                        .confirmation = (const char *)sqlite3_column_text(st, 6)};
        fn(sqlite3_column_int64(st, 0), &v, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int64_t store_latest_inconclusive(struct store *s, store_night_verdict_fn fn, void *ctx) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT nightly_id, series, verdict, ratio, detectable, target, COALESCE(measure, 'wall'),"
                           " COALESCE(confirmation, '') FROM nightly_verdict"
                           " WHERE nightly_id = (SELECT max(nightly_id) FROM nightly_verdict)"
                           " AND verdict = 'inconclusive' ORDER BY series",
                           -1, &st, NULL) != SQLITE_OK)
        return 0; /* a database from before the table */
    int64_t night = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        night = sqlite3_column_int64(st, 0);
        struct store_night_verdict v = {.series = (const char *)sqlite3_column_text(st, 1),
                                        .verdict = (const char *)sqlite3_column_text(st, 2),
                                        .ratio = real_or_nan(st, 3),
                                        .detectable = real_or_nan(st, 4),
                                        .target = real_or_nan(st, 5),
                                        .measure = (const char *)sqlite3_column_text(st, 6),
                                        .confirmation = (const char *)sqlite3_column_text(st, 7)};
        fn(night, &v, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? night : -1;
}
