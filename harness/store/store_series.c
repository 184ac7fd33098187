/* Series' rows (store_series.h). The key is built in SQL so that rows arrive
 * grouped and sorted by it. */
#include "store/store_series.h"

#include <sqlite3.h>
#include <string.h>

#include "base/util.h"
#include "store/store.h"
#include "store/store_sql.h"

#define KEY_SQL                                                                                                        \
    "d.fingerprint || '|' || c.app || '|' || c.input || '|' || c.knobs || '|' || c.wg_x || 'x' || c.wg_y"              \
    " || '|' || COALESCE(m.iters, 0)"

/* Columns 0..12 of both sample queries: key, fingerprint, spec, device name,
 * app, input, variant, knobs, wg_x, wg_y, iters, warmup, device kind. */
#define ID_COLUMNS                                                                                                     \
    KEY_SQL ", d.fingerprint, d.spec, d.name, c.app, c.input, COALESCE(m.variant, c.variant),"                         \
            " c.knobs, c.wg_x, c.wg_y, m.iters, m.warmup, d.kind"
#define ID_NCOL 13

static void key_fill(sqlite3_stmt *st, struct store_series_key *id) {
    id->key = store_text(st, 0);
    id->fp = store_text(st, 1);
    id->spec = store_text(st, 2);
    id->device = store_text(st, 3);
    id->app = store_text(st, 4);
    id->input = store_text(st, 5);
    id->variant = store_text(st, 6);
    id->knobs = store_text(st, 7);
    id->wg[0] = (unsigned)sqlite3_column_int(st, 8);
    id->wg[1] = (unsigned)sqlite3_column_int(st, 9);
    id->iters = (long)sqlite3_column_int64(st, 10);
    id->warmup = sqlite3_column_int(st, 11);
    id->kind = store_text(st, 12);
}

int store_run_samples(struct store *s, const char *table, enum measure measure, store_run_sample_fn fn, void *ctx,
                      char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    char sql[2048];
    const char *col = measure_column(measure); /* a name of ours, never the user's */
    str_fmt(sql, sizeof sql,
            "SELECT " ID_COLUMNS ", s.%s, m.run_id, m.id, s.round, COALESCE(rs.disturbed, 0)"
            " FROM measurement m JOIN config c ON c.id = m.config_id"
            " JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
            " JOIN sample s ON s.measurement_id = m.id"
            " LEFT JOIN round_state rs ON rs.run_id = m.run_id AND rs.round = s.round"
            " WHERE m.status = 'ok' AND s.%s > 0 AND m.run_id IN (SELECT run_id FROM temp.%s)"
            " ORDER BY 1, m.run_id, m.id, s.round, s.rep",
            col, col, table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_run_sample r;
        key_fill(st, &r.id);
        r.seconds = sqlite3_column_double(st, ID_NCOL);
        r.run_id = sqlite3_column_int64(st, ID_NCOL + 1);
        r.measurement_id = sqlite3_column_int64(st, ID_NCOL + 2);
        r.round = sqlite3_column_int(st, ID_NCOL + 3);
        r.disturbed = sqlite3_column_int(st, ID_NCOL + 4);
        fn(&r, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
}

/* A night's build is its kept build's content hash (nightly.build_hash) when
 * it has one, else the commit with "+dirty" for a dirty tree. */
int store_nightly_samples(struct store *s, enum measure measure, store_night_sample_fn fn, void *ctx, char *err,
                          size_t errn) {
    sqlite3 *db = store_db(s);
    const char *col = measure_column(measure); /* a name of ours, never the user's */
    char sql[2048];
    str_fmt(sql, sizeof sql,
        "SELECT " ID_COLUMNS ", n.id, n.started_at, r.id, b.git_commit, b.dirty, s.%s,"
        " COALESCE(n.build_hash, b.git_commit || CASE WHEN b.dirty THEN '+dirty' ELSE '' END),"
        /* bad: the night's disturbance touched this series' device */
        " COALESCE(n.quality, 'ok') != 'ok' AND (n.disturbed_devices IS NULL OR n.disturbed_devices = '*'"
        "   OR instr(',' || n.disturbed_devices || ',', ',' || d.spec || ',') > 0),"
        " m.id, s.round, COALESCE(rs.disturbed, 0)"
        " FROM nightly n JOIN nightly_run nr ON nr.nightly_id = n.id JOIN run r ON r.id = nr.run_id"
        " JOIN build b ON b.id = r.build_id JOIN device d ON d.id = r.device_id"
        " JOIN measurement m ON m.run_id = r.id JOIN config c ON c.id = m.config_id"
        " JOIN sample s ON s.measurement_id = m.id"
        " LEFT JOIN round_state rs ON rs.run_id = m.run_id AND rs.round = s.round"
        " WHERE m.status = 'ok' AND s.%s > 0"
        " AND r.id NOT IN (SELECT run_id FROM run_exclusion)"
        " ORDER BY 1, n.started_at, n.id, r.id, m.id, s.round, s.rep", col, col);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_night_sample r;
        key_fill(st, &r.id);
        r.nightly_id = sqlite3_column_int64(st, ID_NCOL);
        r.started_at = store_text(st, ID_NCOL + 1);
        r.run_id = sqlite3_column_int64(st, ID_NCOL + 2);
        r.commit = store_text(st, ID_NCOL + 3);
        r.dirty = sqlite3_column_int(st, ID_NCOL + 4);
        r.seconds = sqlite3_column_double(st, ID_NCOL + 5);
        r.build = store_text(st, ID_NCOL + 6);
        r.bad = sqlite3_column_int(st, ID_NCOL + 7);
        r.measurement_id = sqlite3_column_int64(st, ID_NCOL + 8);
        r.round = sqlite3_column_int(st, ID_NCOL + 9);
        r.disturbed = sqlite3_column_int(st, ID_NCOL + 10);
        fn(&r, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
}

int store_canary_history(struct store *s, store_night_canary_fn fn, void *ctx, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    static const char sql[] =
        "SELECT d.fingerprint, d.spec, d.name, n.id, n.started_at, p.copy_gbs,"
        " (SELECT b.git_commit FROM nightly_run nr JOIN run r ON r.id = nr.run_id JOIN build b ON b.id = r.build_id"
        "  WHERE nr.nightly_id = n.id ORDER BY r.id LIMIT 1),"
        " (SELECT b.dirty FROM nightly_run nr JOIN run r ON r.id = nr.run_id JOIN build b ON b.id = r.build_id"
        "  WHERE nr.nightly_id = n.id ORDER BY r.id LIMIT 1)"
        " FROM nightly n JOIN nightly_peak np ON np.nightly_id = n.id JOIN peak p ON p.id = np.peak_id"
        " JOIN device d ON d.id = p.device_id WHERE p.copy_gbs > 0"
        " ORDER BY d.fingerprint, n.started_at, n.id, p.id";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_night_canary r = {
            .fp = store_text(st, 0),
            .spec = store_text(st, 1),
            .device = store_text(st, 2),
            .nightly_id = sqlite3_column_int64(st, 3),
            .started_at = store_text(st, 4),
            .copy_gbs = sqlite3_column_double(st, 5),
            .commit = store_text(st, 6),
            .dirty = sqlite3_column_int(st, 7),
        };
        fn(&r, ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
}
