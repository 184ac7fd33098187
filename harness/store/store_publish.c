/* publish's queries (store_publish.h). */
#include "store/store_publish.h"

#include <math.h>
#include <sqlite3.h>

#include "base/util.h"
#include "store/store_sql.h"

static int prepare(struct store_reader *p, const char *sql, sqlite3_stmt **st, char *err, size_t errn) {
    if (sqlite3_prepare_v2(store_reader_db(p), sql, -1, st, NULL) == SQLITE_OK) return 0;
    return err_set(err, errn, "not a harness results database? %s", sqlite3_errmsg(store_reader_db(p)));
}

static int finish(struct store_reader *p, sqlite3_stmt *st, int rc, char *err, size_t errn) {
    if (rc != SQLITE_DONE) err_set(err, errn, "%s", sqlite3_errmsg(store_reader_db(p)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int store_pub_devices(struct store_reader *p, void (*row)(const struct pub_device *d, void *ctx), void *ctx, char *err,
                      size_t errn) {
    static const char sql[] = "SELECT d.fingerprint, d.spec, d.name, d.driver, d.vendor, d.kind, count(m.id),"
                              " sum(m.status = 'ok'), max(m.created_at)"
                              " FROM device d JOIN run r ON r.device_id = d.id JOIN measurement m ON m.run_id = r.id"
                              " GROUP BY d.id ORDER BY d.spec, d.fingerprint";
    sqlite3_stmt *st = NULL;
    if (prepare(p, sql, &st, err, errn) != 0) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct pub_device d = {store_text(st, 0),
                               store_text(st, 1),
                               store_text(st, 2),
                               store_text(st, 3),
                               store_text(st, 4),
                               store_text(st, 5),
                               (long)sqlite3_column_int64(st, 6),
                               (long)sqlite3_column_int64(st, 7),
                               store_text(st, 8)};
        row(&d, ctx);
    }
    return finish(p, st, rc, err, errn);
}

int store_pub_cases(struct store_reader *p, void (*row)(const struct pub_case *c, void *ctx), void *ctx, char *err,
                    size_t errn) {
    static const char sql[] =
        "WITH x AS (SELECT d.fingerprint AS fp, d.spec AS spec, c.app AS app, c.input AS input,"
        " COALESCE(m.variant, c.variant) AS variant, c.knobs AS knobs, c.wg_x AS wx, c.wg_y AS wy,"
        " m.created_at AS at"
        " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
        " JOIN device d ON d.id = r.device_id WHERE m.status = 'ok' AND m.median_s IS NOT NULL),"
        " v AS (SELECT fp, app, input, variant, knobs, count(DISTINCT wx || 'x' || wy) AS shapes FROM x"
        " GROUP BY fp, app, input, variant, knobs)"
        " SELECT x.fp, x.spec, x.app, x.input, count(*), count(DISTINCT x.variant),"
        " (SELECT max(shapes) FROM v WHERE v.fp = x.fp AND v.app = x.app AND v.input = x.input), max(x.at)"
        " FROM x GROUP BY x.fp, x.app, x.input ORDER BY x.app, x.input, x.spec, x.fp";
    if (!store_has_column(store_reader_db(p), "measurement", "variant"))
        return err_set(err, errn, "a results file from before measurement.variant: run `harness results` once on it");
    sqlite3_stmt *st = NULL;
    if (prepare(p, sql, &st, err, errn) != 0) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct pub_case c = {store_text(st, 0),
                             store_text(st, 1),
                             store_text(st, 2),
                             store_text(st, 3),
                             (long)sqlite3_column_int64(st, 4),
                             sqlite3_column_int(st, 5),
                             sqlite3_column_int(st, 6),
                             store_text(st, 7)};
        row(&c, ctx);
    }
    return finish(p, st, rc, err, errn);
}

int store_pub_latest(struct store_reader *p, const char *fp, const char *app, const char *input,
                     void (*row)(const struct pub_latest *r, void *ctx), void *ctx, char *err, size_t errn) {
    static const char sql[] =
        "WITH x AS (SELECT m.id AS id, COALESCE(m.variant, c.variant) AS variant, c.knobs AS knobs"
        " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
        " JOIN device d ON d.id = r.device_id"
        " WHERE m.status = 'ok' AND m.median_s IS NOT NULL AND d.fingerprint = ?1 AND c.app = ?2 AND c.input = ?3)"
        " SELECT x.variant, c.knobs, b.git_commit, m.created_at, m.status, c.wg_x, c.wg_y, b.dirty,"
        " COALESCE(m.iters, 0), m.reps, m.median_s, m.q1_s, m.q3_s,"
        " (SELECT count(s.seconds) FROM sample s WHERE s.measurement_id = m.id AND s.seconds > 0),"
        " (SELECT avg(s.seconds) FROM sample s WHERE s.measurement_id = m.id AND s.seconds > 0),"
        " (SELECT avg(s.seconds * s.seconds) FROM sample s WHERE s.measurement_id = m.id AND s.seconds > 0)"
        " FROM x JOIN measurement m ON m.id = x.id JOIN config c ON c.id = m.config_id"
        " JOIN run r ON r.id = m.run_id JOIN build b ON b.id = r.build_id"
        " WHERE x.id IN (SELECT max(id) FROM x GROUP BY variant, knobs) ORDER BY m.median_s, x.variant";
    sqlite3_stmt *st = NULL;
    if (prepare(p, sql, &st, err, errn) != 0) return -1;
    sqlite3_bind_text(st, 1, fp, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, app, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, input, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const long n = (long)sqlite3_column_int64(st, 13);
        const double mean = sqlite3_column_double(st, 14), sq = sqlite3_column_double(st, 15);
        /* The sample standard deviation from the two means, n/(n-1) corrected. */
        double var = n > 1 ? (sq - mean * mean) * (double)n / (double)(n - 1) : NAN;
        if (var < 0) var = 0;
        struct pub_latest r = {store_text(st, 0),
                               store_text(st, 1),
                               store_text(st, 2),
                               store_text(st, 3),
                               store_text(st, 4),
                               sqlite3_column_int(st, 5),
                               sqlite3_column_int(st, 6),
                               sqlite3_column_int(st, 7),
                               (long)sqlite3_column_int64(st, 8),
                               (long)sqlite3_column_int64(st, 9),
                               n,
                               store_real(st, 10),
                               store_real(st, 11),
                               store_real(st, 12),
                               n > 1 && mean > 0 ? sqrt(var) / mean : NAN};
        row(&r, ctx);
    }
    return finish(p, st, rc, err, errn);
}

int store_pub_has_nightly(struct store_reader *p) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_reader_db(p),
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('nightly',"
                           " 'nightly_run', 'nightly_peak', 'run_exclusion')",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return n == 4;
}
