/* `harness report APP --from-db`: the cells of the latest report in a
 * database, loaded instead of measured, so a report measured on a GPU host
 * without gnuplot (or on a device not here) is drawn and written again from
 * exactly the rows it stored. Nothing is measured and nothing is written to
 * the database. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

static const char *text(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static double real_or_nan(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The latest invocation of `harness report ... APP`: its command line and
 * build; every run (one per device) with that command and build is part of it. */
static int latest_report(sqlite3 *db, const char *app, char *command, size_t n, int64_t *build) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT command, build_id FROM run WHERE command LIKE 'harness report %' AND "
                           "(command LIKE '% ' || ?1 OR command LIKE '% ' || ?1 || ' %') ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, app, -1, SQLITE_TRANSIENT);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        str_copy(command, n, text(st, 0));
        *build = sqlite3_column_int64(st, 1);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static void load_device(sqlite3 *db, struct report *r, int64_t run_id, int64_t device_id) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT backend, spec, vendor, name, driver, kind, fingerprint, arch, compute_units FROM device "
                           "WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, device_id);
    if (sqlite3_step(st) == SQLITE_ROW && r->ndev < REPORT_MAX_DEVICES) {
        struct report_device *d = &r->dev[r->ndev++];
        memset(d, 0, sizeof *d);
        struct device_info *i = &d->info;
        str_copy(i->backend, sizeof i->backend, text(st, 0));
        str_copy(i->spec, sizeof i->spec, text(st, 1));
        str_copy(i->vendor, sizeof i->vendor, text(st, 2));
        str_copy(i->name, sizeof i->name, text(st, 3));
        str_copy(i->driver, sizeof i->driver, text(st, 4));
        str_copy(i->kind, sizeof i->kind, text(st, 5));
        str_copy(i->fingerprint, sizeof i->fingerprint, text(st, 6));
        str_copy(i->arch, sizeof i->arch, text(st, 7));
        i->compute_units = (unsigned)sqlite3_column_int(st, 8);
        d->run_id = run_id;
    }
    sqlite3_finalize(st);
}

static void load_peak(sqlite3 *db, struct report_device *d, int64_t device_id) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT copy_gbs, fp32_gflops FROM peak WHERE device_id = ? ORDER BY id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, device_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        d->copy_gbs = sqlite3_column_double(st, 0);
        d->fp32_gflops = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
}

static void load_launch(sqlite3 *db, struct report *r, int dev) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT kind, nargs, enqueue_median_s / launches FROM launch_cost WHERE run_id = ? "
                           "ORDER BY nargs",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->dev[dev].run_id);
    struct launch_cost_summary *s = &r->launch[dev];
    while (sqlite3_step(st) == SQLITE_ROW) {
        const int buffer = !strcmp(text(st, 0), "buffer"), nargs = sqlite3_column_int(st, 1);
        const double us = 1e6 * sqlite3_column_double(st, 2);
        if (nargs == 0 && buffer) s->us_0_args = us;
        if (nargs >= s->max_args) {
            s->max_args = nargs;
            if (buffer) s->us_max_buffers = us;
            else s->us_max_ints = us;
        }
        s->have = 1;
    }
    sqlite3_finalize(st);
}

static void load_notes(sqlite3 *db, struct report *r) {
    sqlite3_stmt *st;
    if (r->ndev == 0 || sqlite3_prepare_v2(db, "SELECT key, text FROM report_note WHERE run_id = ?", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->dev[0].run_id);
    while (sqlite3_step(st) == SQLITE_ROW && r->nnotes < (int)(sizeof r->notes / sizeof r->notes[0])) {
        str_copy(r->notes[r->nnotes][0], sizeof r->notes[0][0], text(st, 0));
        str_copy(r->notes[r->nnotes][1], sizeof r->notes[0][1], text(st, 1));
        r->nnotes++;
    }
    sqlite3_finalize(st);
}

static struct report_cell *cell_slot(struct report *r, int device, int input, const char *variant,
                                     const unsigned wg[2]) {
    struct report_cell *c = (struct report_cell *)report_find(r, device, input, variant, wg);
    if (c) {
        measurement_free(&c->m); /* a later row of the same cell (a longer re-measure) wins */
        return c;
    }
    return report_cell_new(r, device, input, variant, wg);
}

/* The input as the database names it (the app's input_name: "gen:4096" is
 * stored as "gen-4096"), or -1. */
static int input_of(const struct report *r, const char *stored) {
    for (int i = 0; i < r->def->ninputs; i++) {
        struct app_opts o = {.input = r->def->inputs[i]};
        char err[256];
        struct app_input *in = r->app->input_load(&o, err, sizeof err);
        const int same = in && !strcmp(r->app->input_name(in), stored);
        if (in) r->app->input_free(in);
        if (same) return i;
    }
    return -1;
}

/* Every measurement of the device's run becomes a cell; returns how many
 * distinct variants it ran (more than one: it ran every table). */
static int load_cells(sqlite3 *db, struct report *r, int dev) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT c.input, m.variant, c.wg_x, c.wg_y, m.status, m.reason, m.iters, m.iters_full, "
                           "m.median_s, m.q1_s, m.q3_s, m.device_median_s, m.cell_updates, m.mlups, m.gbs, "
                           "m.max_rel_err, m.reps, m.warmup FROM measurement m JOIN config c ON c.id = m.config_id "
                           "WHERE m.run_id = ? ORDER BY m.id",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->dev[dev].run_id);
    char first[64] = "";
    int variants = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const int input = input_of(r, text(st, 0));
        if (input < 0) continue;
        const unsigned wg[2] = {(unsigned)sqlite3_column_int(st, 2), (unsigned)sqlite3_column_int(st, 3)};
        struct report_cell *c = cell_slot(r, dev, input, text(st, 1), wg);
        struct measurement *m = &c->m;
        for (int s = ST_OK; s <= ST_UNVERIFIED; s++)
            if (!strcmp(status_name((enum status)s), text(st, 4))) m->status = (enum status)s;
        str_copy(m->reason, sizeof m->reason, text(st, 5));
        m->iters = sqlite3_column_int64(st, 6);
        m->iters_full = sqlite3_column_int64(st, 7);
        m->median = real_or_nan(st, 8);
        m->q1 = real_or_nan(st, 9);
        m->q3 = real_or_nan(st, 10);
        m->device_median = real_or_nan(st, 11);
        m->cell_updates = real_or_nan(st, 12);
        m->mlups = real_or_nan(st, 13);
        m->gbs = real_or_nan(st, 14);
        m->max_rel_err = real_or_nan(st, 15);
        m->wg[0] = wg[0];
        m->wg[1] = wg[1];
        if (sqlite3_column_int(st, 16) > 0) r->reps = sqlite3_column_int(st, 16);
        r->warmup = sqlite3_column_int(st, 17);
        if (!first[0]) str_copy(first, sizeof first, c->variant), variants = 1;
        else if (variants == 1 && strcmp(first, c->variant)) variants = 2;
    }
    sqlite3_finalize(st);
    return variants;
}

static void load_build(sqlite3 *db, struct report *r, int64_t build) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT git_commit, dirty, compiler FROM build WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, build);
    if (sqlite3_step(st) == SQLITE_ROW) {
        str_copy(r->commit, sizeof r->commit, text(st, 0));
        r->dirty = sqlite3_column_int(st, 1);
        str_copy(r->compiler, sizeof r->compiler, text(st, 2));
    }
    sqlite3_finalize(st);
}

int report_load_db(struct report *r, char *err, size_t errn) {
    sqlite3 *db = store_open_readonly("report", r->db_path);
    if (!db) return snprintf(err, errn, "no database to draw from"), -1;
    int64_t build = 0;
    if (latest_report(db, r->app->name, r->command, sizeof r->command, &build) != 0) {
        sqlite3_close(db);
        return snprintf(err, errn, "%s holds no `harness report %s` run", r->db_path, r->app->name), -1;
    }
    load_build(db, r, build);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, device_id, started_at FROM run WHERE command = ? AND build_id = ? ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return snprintf(err, errn, "%s: %s", r->db_path, sqlite3_errmsg(db)), -1;
    }
    sqlite3_bind_text(st, 1, r->command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, build);
    int64_t device_ids[REPORT_MAX_DEVICES];
    while (sqlite3_step(st) == SQLITE_ROW && r->ndev < REPORT_MAX_DEVICES) {
        /* The same command run twice: the later invocation's runs replace the earlier's. */
        const int64_t device_id = sqlite3_column_int64(st, 1);
        int seen = -1;
        for (int i = 0; i < r->ndev; i++)
            if (device_ids[i] == device_id) seen = i;
        if (seen >= 0) {
            r->dev[seen].run_id = sqlite3_column_int64(st, 0);
            continue;
        }
        device_ids[r->ndev] = device_id;
        str_copy(r->when, sizeof r->when, text(st, 2));
        load_device(db, r, sqlite3_column_int64(st, 0), device_id);
    }
    sqlite3_finalize(st);
    r->quick = strstr(r->command, " --quick") != NULL;
    const char *b = strstr(r->command, " --budget ");
    if (b) r->target_s = atof(b + 10);
    for (int i = 0; i < r->ndev; i++) {
        load_peak(db, &r->dev[i], device_ids[i]);
        load_launch(db, r, i);
        r->dev[i].ladder = load_cells(db, r, i) > 1;
    }
    load_notes(db, r);
    sqlite3_close(db);
    return r->ndev ? 0 : (snprintf(err, errn, "the report's runs name no device"), -1);
}
