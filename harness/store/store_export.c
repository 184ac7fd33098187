/* store_export.h: the reads behind `harness export`, on a read-only file
 * (store_reader). */
#include "store/store_export.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store.h"
#include "store/store_sql.h"

struct export_rows {
    sqlite3_stmt *st;
};

/* Every measurement with its context, one place for CSV, T4 and their
 * filters. The aliases are the CSV header. The %s are expressions that
 * depend on the file's schema (a reader never migrates): the variant
 * (measurement.variant since v2), energy and power (v7), whether the
 * measurement is of a stored tuned decision (below), each kernel's
 * registers and local bytes (v11), then the columns and the tail. */
static const char export_cte[] =
    "WITH x AS (SELECT m.id AS id, m.created_at AS created_at, h.hostname AS host,"
    " h.os AS host_os, h.cpu AS host_cpu,"
    " d.spec AS device, d.name AS device_name, d.vendor AS device_vendor,"
    " d.fingerprint AS fingerprint, d.driver AS driver, d.backend AS backend,"
    " b.git_commit AS build_commit, b.dirty AS dirty, c.app AS app, c.input AS input,"
    " %s AS variant, c.knobs AS knobs, c.wg_x AS wg_x, c.wg_y AS wg_y, m.status AS status,"
    " m.reason AS reason, m.iters AS iters, m.iters_full AS iters_full, m.scaled AS scaled,"
    " m.reps AS reps, m.median_s AS median_s, m.q1_s AS q1_s, m.q3_s AS q3_s,"
    " m.device_median_s AS device_median_s, m.mlups AS mlups, m.gbs AS gbs,"
    " m.max_rel_err AS max_rel_err, m.result AS result, %s AS energy_j, %s AS power_w, %s AS tuned,"
    " %s AS resources"
    " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
    " JOIN host h ON h.id = r.host_id JOIN device d ON d.id = r.device_id"
    " JOIN build b ON b.id = r.build_id)"
    " SELECT %s FROM x WHERE (?1 IS NULL OR app = ?1)"
    " AND (?2 IS NULL OR device = ?2 OR fingerprint = ?2)"
    " AND (?3 IS NULL OR input = ?3) AND (?4 IS NULL OR variant = ?4) %s";

/* In the order of enum export_column. */
static const char measurement_columns[] =
    "id, created_at, host, device, device_name, fingerprint, driver, backend, build_commit,"
    " dirty, app, input, variant, knobs, wg_x, wg_y, status, reason, iters, iters_full, scaled,"
    " reps, median_s, q1_s, q3_s, device_median_s, mlups, gbs, max_rel_err, result, energy_j, power_w, tuned,"
    " resources";

/* 1 when the measurement is of what the tuned table holds for its device,
 * app and input: a configuration's knobs (TUNED_VARIANT rows, schema v7) or
 * a shape-only row's variant, at the stored shape. 0 without the table. */
static void tuned_expr(sqlite3 *db, const char *variant, struct strbuf *out) {
    if (!store_has_column(db, "tuned", "wg_x")) {
        sb_printf(out, "0");
        return;
    }
    sb_printf(out, "EXISTS (SELECT 1 FROM tuned t WHERE t.device_fingerprint = d.fingerprint AND t.app = c.app"
                   " AND t.input = c.input AND t.wg_x = c.wg_x AND t.wg_y = c.wg_y AND ");
    if (store_has_column(db, "tuned", "knobs"))
        sb_printf(out, "CASE WHEN t.knobs IS NOT NULL THEN t.knobs = c.knobs ELSE t.variant = %s END)", variant);
    else sb_printf(out, "t.variant = %s)", variant);
}

static struct export_rows *rows_of(sqlite3_stmt *st) {
    struct export_rows *r = xcalloc(1, sizeof *r);
    r->st = st;
    return r;
}

/* SELECT cols FROM the filtered measurements, then tail (ORDER BY ...). */
static struct export_rows *filtered(struct store_reader *x, const struct export_filter *f, const char *cols,
                                    const char *tail) {
    sqlite3 *db = store_reader_db(x);
    const char *variant =
        store_has_column(db, "measurement", "variant") ? "COALESCE(m.variant, c.variant)" : "c.variant";
    const int energy = store_has_column(db, "measurement", "energy_j");
    const int resources = store_has_column(db, "measurement", "resources");
    struct strbuf sql = {0}, tuned = {0};
    tuned_expr(db, variant, &tuned);
    sb_printf(&sql, export_cte, variant, energy ? "m.energy_j" : "NULL", energy ? "m.power_w" : "NULL", tuned.s,
              resources ? "m.resources" : "NULL", cols, tail);
    sb_free(&tuned);
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(store_reader_db(x), sql.s, -1, &st, NULL) == SQLITE_OK;
    sb_free(&sql);
    if (!ok) return NULL;
    const char *v[4] = {f->app, f->device, f->input, f->variant};
    for (int i = 0; i < 4; i++)
        if (v[i]) sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
    return rows_of(st);
}

struct export_rows *store_export_measurements(struct store_reader *x, const struct export_filter *f) {
    return filtered(x, f, measurement_columns, "ORDER BY id");
}

struct export_rows *store_export_devices(struct store_reader *x, const struct export_filter *f) {
    return filtered(x, f, "DISTINCT device, device_name, device_vendor, driver, backend, fingerprint", "ORDER BY 1");
}

struct export_rows *store_export_hosts(struct store_reader *x, const struct export_filter *f) {
    return filtered(x, f, "DISTINCT host, host_os, host_cpu", "ORDER BY 1");
}

struct export_rows *store_export_tuned(struct store_reader *x, const struct export_filter *f) {
    sqlite3 *db = store_reader_db(x);
    if (!store_has_column(db, "tuned", "wg_x")) return NULL;
    /* Columns a file from before schema v7 lacks read as NULL. */
    static const char *const v7[] = {"knobs", "config", "objective", "strategy", "evaluations", "search_s", "energy_j"};
    struct strbuf sql = {0};
    sb_printf(&sql, "SELECT t.device_fingerprint, d.spec, t.app, t.input, t.variant, t.wg_x, t.wg_y");
    for (size_t i = 0; i < sizeof v7 / sizeof v7[0]; i++)
        sb_printf(&sql, ", %s%s", store_has_column(db, "tuned", v7[i]) ? "t." : "NULL AS ", v7[i]);
    sb_printf(&sql, ", t.median_s, t.margin, t.noise, t.samples, t.tie, t.decided_at"
                    " FROM tuned t LEFT JOIN (SELECT fingerprint, min(spec) AS spec FROM device GROUP BY fingerprint) d"
                    "   ON d.fingerprint = t.device_fingerprint"
                    " WHERE (?1 IS NULL OR t.app = ?1) AND (?2 IS NULL OR d.spec = ?2 OR t.device_fingerprint = ?2)"
                    " AND (?3 IS NULL OR t.input = ?3) AND (?4 IS NULL OR t.variant = ?4)"
                    " ORDER BY d.spec, t.device_fingerprint, t.app, t.input, t.variant");
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(db, sql.s, -1, &st, NULL) == SQLITE_OK;
    sb_free(&sql);
    if (!ok) {
        sqlite3_finalize(st);
        return NULL;
    }
    const char *v[4] = {f->app, f->device, f->input, f->variant};
    for (int i = 0; i < 4; i++)
        if (v[i]) sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
    return rows_of(st);
}

struct export_rows *store_export_samples(struct store_reader *x, int64_t measurement_id) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_reader_db(x),
                           "SELECT rep, seconds, device_seconds FROM sample"
                           " WHERE measurement_id = ?1 ORDER BY rep",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, measurement_id);
    return rows_of(st);
}

int store_export_columns(const struct export_rows *r) { return sqlite3_column_count(r->st); }

const char *store_export_column_name(const struct export_rows *r, int i) { return sqlite3_column_name(r->st, i); }

int store_export_next(struct export_rows *r, struct export_value *row) {
    int rc = sqlite3_step(r->st);
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? 0 : -1;
    for (int i = 0; i < sqlite3_column_count(r->st); i++) {
        struct export_value *v = &row[i];
        int t = sqlite3_column_type(r->st, i);
        v->kind = t == SQLITE_NULL      ? EXPORT_NULL
                  : t == SQLITE_INTEGER ? EXPORT_INT
                  : t == SQLITE_FLOAT   ? EXPORT_REAL
                                        : EXPORT_TEXT;
        /* The text last: no later read may convert the value under its pointer. */
        v->i = sqlite3_column_int64(r->st, i);
        v->d = sqlite3_column_double(r->st, i);
        v->s = (const char *)sqlite3_column_text(r->st, i);
    }
    return 1;
}

void store_export_rows_close(struct export_rows *r) {
    if (!r) return;
    sqlite3_finalize(r->st);
    free(r);
}
