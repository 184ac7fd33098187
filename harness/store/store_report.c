/* The report's rows (store_report.h). Statements are prepared per call: a
 * report runs each once per device, and the reader is not store.c's
 * connection. */
#include "store/store_report.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "store/store_sql.h"

/* Room for row n of an array grown by doubling. */
static void *grow(void *rows, int n, int *cap, size_t size) {
    if (n < *cap) return rows;
    *cap = *cap ? 2 * *cap : 32;
    return xrealloc(rows, (size_t)*cap * size);
}

int store_report_note_put(struct store *s, int64_t run_id, const char *key, const char *text, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO report_note (run_id, key, text) VALUES (?, ?, ?)", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    }
    if (rc) err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

/* Per launch, in microseconds. */
static const char launch_cost_latest_sql[] =
    "SELECT d.spec, d.name, lc.kind, lc.nargs,"
    " lc.enqueue_median_s / lc.launches * 1e6, lc.enqueue_q1_s / lc.launches * 1e6,"
    " lc.enqueue_q3_s / lc.launches * 1e6"
    " FROM launch_cost lc JOIN device d ON d.id = lc.device_id"
    " WHERE lc.run_id IN (SELECT max(l.run_id) FROM launch_cost l JOIN device x ON x.id = l.device_id"
    "                     GROUP BY x.fingerprint)"
    " AND lc.enqueue_median_s IS NOT NULL"
    " ORDER BY d.spec, d.fingerprint, lc.run_id, lc.kind, lc.nargs";

int store_launch_cost_latest(struct store_reader *rd, struct launch_cost_point **points, char *err, size_t errn) {
    *points = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(store_reader_db(rd), launch_cost_latest_sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "no launch-cost table (%s)", sqlite3_errmsg(store_reader_db(rd)));
    int n = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        *points = grow(*points, n, &cap, sizeof **points);
        struct launch_cost_point *p = &(*points)[n++];
        str_copy(p->spec, sizeof p->spec, store_text(st, 0));
        str_copy(p->name, sizeof p->name, store_text(st, 1));
        str_copy(p->kind, sizeof p->kind, store_text(st, 2));
        p->nargs = sqlite3_column_int(st, 3);
        p->median_us = sqlite3_column_double(st, 4);
        p->q1_us = sqlite3_column_type(st, 5) == SQLITE_NULL ? p->median_us : sqlite3_column_double(st, 5);
        p->q3_us = sqlite3_column_type(st, 6) == SQLITE_NULL ? p->median_us : sqlite3_column_double(st, 6);
    }
    if (rc != SQLITE_DONE) err_set(err, errn, "%s", sqlite3_errmsg(store_reader_db(rd)));
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return n;
    free(*points);
    *points = NULL;
    return -1;
}

int store_report_latest(struct store_reader *rd, const char *app, char *command, size_t n, int64_t *build) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd),
                           "SELECT command, build_id FROM run WHERE command LIKE 'harness report %' AND "
                           "(command LIKE '% ' || ?1 OR command LIKE '% ' || ?1 || ' %') ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, app, -1, SQLITE_TRANSIENT);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        str_copy(command, n, store_text(st, 0));
        *build = sqlite3_column_int64(st, 1);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_build_get(struct store_reader *rd, int64_t build, struct stored_build *out) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd), "SELECT git_commit, dirty, compiler FROM build WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, build);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        str_copy(out->commit, sizeof out->commit, store_text(st, 0));
        out->dirty = sqlite3_column_int(st, 1);
        str_copy(out->compiler, sizeof out->compiler, store_text(st, 2));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_report_runs(struct store_reader *rd, const char *command, int64_t build, struct report_run_row **rows,
                      char *err, size_t errn) {
    *rows = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd),
                           "SELECT id, device_id, started_at FROM run WHERE command = ? AND build_id = ? ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s", sqlite3_errmsg(store_reader_db(rd)));
    sqlite3_bind_text(st, 1, command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, build);
    int n = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *rows = grow(*rows, n, &cap, sizeof **rows);
        struct report_run_row *r = &(*rows)[n++];
        r->run_id = sqlite3_column_int64(st, 0);
        r->device_id = sqlite3_column_int64(st, 1);
        str_copy(r->started_at, sizeof r->started_at, store_text(st, 2));
    }
    sqlite3_finalize(st);
    return n;
}

int store_device_get(struct store_reader *rd, int64_t device_id, struct device_info *out) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd),
                           "SELECT backend, spec, vendor, name, driver, kind, fingerprint, arch, compute_units"
                           " FROM device WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, device_id);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        str_copy(out->backend, sizeof out->backend, store_text(st, 0));
        str_copy(out->spec, sizeof out->spec, store_text(st, 1));
        str_copy(out->vendor, sizeof out->vendor, store_text(st, 2));
        str_copy(out->name, sizeof out->name, store_text(st, 3));
        str_copy(out->driver, sizeof out->driver, store_text(st, 4));
        str_copy(out->kind, sizeof out->kind, store_text(st, 5));
        str_copy(out->fingerprint, sizeof out->fingerprint, store_text(st, 6));
        str_copy(out->arch, sizeof out->arch, store_text(st, 7));
        out->compute_units = (unsigned)sqlite3_column_int(st, 8);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_peak_latest(struct store_reader *rd, int64_t device_id, double *copy_gbs, double *fp32_gflops) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd),
                           "SELECT copy_gbs, fp32_gflops FROM peak WHERE device_id = ? ORDER BY id DESC LIMIT 1", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, device_id);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *copy_gbs = sqlite3_column_double(st, 0);
        *fp32_gflops = sqlite3_column_double(st, 1);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_launch_cost_of_run(struct store_reader *rd, int64_t run_id, struct launch_cost_per_args **rows) {
    *rows = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd),
                           "SELECT kind, nargs, enqueue_median_s / launches FROM launch_cost WHERE run_id = ? "
                           "ORDER BY nargs",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int n = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *rows = grow(*rows, n, &cap, sizeof **rows);
        struct launch_cost_per_args *r = &(*rows)[n++];
        str_copy(r->kind, sizeof r->kind, store_text(st, 0));
        r->nargs = sqlite3_column_int(st, 1);
        r->seconds = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    return n;
}

static void measurement_row_read(sqlite3_stmt *st, struct measurement_row *m) {
    str_copy(m->input, sizeof m->input, store_text(st, 0));
    str_copy(m->variant, sizeof m->variant, store_text(st, 1));
    m->wg[0] = (unsigned)sqlite3_column_int(st, 2);
    m->wg[1] = (unsigned)sqlite3_column_int(st, 3);
    str_copy(m->status, sizeof m->status, store_text(st, 4));
    str_copy(m->reason, sizeof m->reason, store_text(st, 5));
    m->iters = sqlite3_column_int64(st, 6);
    m->iters_full = sqlite3_column_int64(st, 7);
    m->median = store_real(st, 8);
    m->q1 = store_real(st, 9);
    m->q3 = store_real(st, 10);
    m->device_median = store_real(st, 11);
    m->cell_updates = store_real(st, 12);
    m->mlups = store_real(st, 13);
    m->gbs = store_real(st, 14);
    m->max_rel_err = store_real(st, 15);
    m->reps = sqlite3_column_int(st, 16);
    m->warmup = sqlite3_column_int(st, 17);
    str_copy(m->knobs, sizeof m->knobs, store_text(st, 18));
    str_copy(m->resources, sizeof m->resources, store_text(st, 19));
}

int store_measurement_rows(struct store_reader *rd, int64_t run_id, struct measurement_row **rows) {
    *rows = NULL;
    sqlite3_stmt *st;
    /* A reader never migrates: a file from before resources (version 10)
     * reads as none stored. */
    char sql[512];
    str_fmt(sql, sizeof sql,
            "SELECT c.input, m.variant, c.wg_x, c.wg_y, m.status, m.reason, m.iters, m.iters_full, "
            "m.median_s, m.q1_s, m.q3_s, m.device_median_s, m.cell_updates, m.mlups, m.gbs, "
            "m.max_rel_err, m.reps, m.warmup, c.knobs, %s FROM measurement m"
            " JOIN config c ON c.id = m.config_id "
            "WHERE m.run_id = ? ORDER BY m.id",
            store_has_column(store_reader_db(rd), "measurement", "resources") ? "m.resources" : "NULL");
    if (sqlite3_prepare_v2(store_reader_db(rd), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int n = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        *rows = grow(*rows, n, &cap, sizeof **rows);
        measurement_row_read(st, &(*rows)[n++]);
    }
    sqlite3_finalize(st);
    return n;
}

int store_report_notes(struct store_reader *rd, int64_t run_id, struct report_note_row *out, int max) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(store_reader_db(rd), "SELECT key, text FROM report_note WHERE run_id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int n = 0;
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        str_copy(out[n].key, sizeof out[n].key, store_text(st, 0));
        str_copy(out[n].text, sizeof out[n].text, store_text(st, 1));
        n++;
    }
    sqlite3_finalize(st);
    return n;
}
