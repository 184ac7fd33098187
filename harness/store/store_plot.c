/* plot's queries (store_plot.h). */
#include "store/store_plot.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store_sql.h"

/* Latest ok measurement per (device fingerprint, input, variant, knobs, shape),
 * of one step count per figure: the one its latest measurement ran (a
 * chart of 40000-step and 2000-step bars side by side would compare
 * nothing). Knobs are in the key because "custom" names many knob sets. */
static const char plot_sql[] =
    "WITH x AS (SELECT m.id AS id, d.fingerprint AS fp, d.spec AS spec, d.name AS dname, d.driver AS driver,"
    " c.input AS input, %s AS variant, c.knobs AS knobs, c.wg_x AS wx, c.wg_y AS wy,"
    " m.median_s AS med, m.q1_s AS q1, m.q3_s AS q3, COALESCE(m.iters, 0) AS iters"
    " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
    " JOIN device d ON d.id = r.device_id"
    " WHERE m.status = 'ok' AND m.median_s IS NOT NULL AND c.app = ?1),"
    " y AS (SELECT * FROM x WHERE iters = (SELECT x2.iters FROM x x2 WHERE x2.fp = x.fp AND x2.input = x.input"
    " AND x2.variant = x.variant AND x2.knobs = x.knobs ORDER BY x2.id DESC LIMIT 1))"
    " SELECT fp, spec, dname, driver, input, variant, knobs, wx, wy, med, q1, q3, iters FROM y"
    " WHERE id IN (SELECT max(id) FROM y GROUP BY fp, input, variant, knobs, wx, wy)"
    " AND (?2 IS NULL OR spec = ?2 OR fp = ?2) AND (?3 IS NULL OR input = ?3)"
    " AND (?4 IS NULL OR variant = ?4)"
    " ORDER BY spec, fp, input, variant, knobs, wx * wy, wx, wy";

int store_wg_rows(struct store_reader *p, const char *const filt[4], void (*row)(const struct wg_row *r, void *ctx),
                  void *ctx, char *err, size_t errn) {
    struct strbuf sql = {0};
    /* A file from before measurement.variant (opened read-only, so never
     * migrated) names the variant in config alone. */
    sb_printf(&sql, plot_sql,
              store_has_column(store_reader_db(p), "measurement", "variant") ? "COALESCE(m.variant, c.variant)"
                                                                             : "c.variant");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(store_reader_db(p), sql.s, -1, &st, NULL);
    sb_free(&sql);
    if (rc != SQLITE_OK)
        return err_set(err, errn, "not a harness results database? %s", sqlite3_errmsg(store_reader_db(p)));
    for (int i = 0; i < 4; i++)
        if (filt[i]) sqlite3_bind_text(st, i + 1, filt[i], -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct wg_row r = {store_text(st, 0),
                           store_text(st, 1),
                           store_text(st, 2),
                           store_text(st, 3),
                           store_text(st, 4),
                           store_text(st, 5),
                           store_text(st, 6),
                           sqlite3_column_int(st, 7),
                           sqlite3_column_int(st, 8),
                           sqlite3_column_double(st, 9),
                           store_real(st, 10),
                           store_real(st, 11),
                           (long)sqlite3_column_int64(st, 12)};
        row(&r, ctx);
    }
    if (rc != SQLITE_DONE) err_set(err, errn, "%s", sqlite3_errmsg(store_reader_db(p)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static const char variant_sql[] =
    "WITH x AS (SELECT m.id AS id, d.fingerprint AS fp, d.spec AS spec, d.name AS dname,"
    " COALESCE(m.variant, c.variant) AS variant, m.iters AS iters, m.median_s AS med, m.q1_s AS q1, m.q3_s AS q3"
    " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
    " JOIN device d ON d.id = r.device_id"
    " WHERE m.status = 'ok' AND m.median_s IS NOT NULL AND c.app = ?1 AND c.input = ?2),"
    " y AS (SELECT * FROM x WHERE iters = CASE WHEN ?3 > 0 THEN ?3 ELSE (SELECT iters FROM x ORDER BY id DESC"
    " LIMIT 1) END)"
    " SELECT fp, spec, dname, variant, iters, med, q1, q3 FROM y"
    " WHERE id IN (SELECT max(id) FROM y GROUP BY fp, variant) ORDER BY variant, spec, fp";

int store_variant_rows(struct store_reader *p, const char *app, const char *input, long iters,
                       void (*row)(const struct variant_row *r, void *ctx), void *ctx, char *err, size_t errn) {
    sqlite3_stmt *st = NULL;
    if (!store_has_column(store_reader_db(p), "measurement", "variant"))
        return err_set(err, errn, "a results file from before measurement.variant: run `harness results` once on it");
    if (sqlite3_prepare_v2(store_reader_db(p), variant_sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "not a harness results database? %s", sqlite3_errmsg(store_reader_db(p)));
    sqlite3_bind_text(st, 1, app, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, input, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, iters);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct variant_row r = {store_text(st, 0),
                                store_text(st, 1),
                                store_text(st, 2),
                                store_text(st, 3),
                                (long)sqlite3_column_int64(st, 4),
                                sqlite3_column_double(st, 5),
                                store_real(st, 6),
                                store_real(st, 7)};
        row(&r, ctx);
    }
    if (rc != SQLITE_DONE) err_set(err, errn, "%s", sqlite3_errmsg(store_reader_db(p)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int store_series_change_points(struct store *s, const char *series, struct series_change_point *out, int max) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_db(s),
                           "SELECT id, night, triage, COALESCE(direction, ''), COALESCE(magnitude, 0)"
                           " FROM change_point WHERE series = ?1 ORDER BY night",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, series, -1, SQLITE_TRANSIENT);
    int n = 0;
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        out[n].id = sqlite3_column_int64(st, 0);
        str_copy(out[n].night, sizeof out[n].night, (const char *)sqlite3_column_text(st, 1));
        str_copy(out[n].triage, sizeof out[n].triage, (const char *)sqlite3_column_text(st, 2));
        str_copy(out[n].direction, sizeof out[n].direction, (const char *)sqlite3_column_text(st, 3));
        out[n].magnitude = sqlite3_column_double(st, 4);
        n++;
    }
    sqlite3_finalize(st);
    return n;
}
