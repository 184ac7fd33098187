/* `harness report APP --from-db`: the cells of the latest report in a
 * database, loaded instead of measured, so a report measured on a GPU host
 * without gnuplot (or on a device not here) is drawn and written again from
 * exactly the rows it stored. Nothing is measured and nothing is written to
 * the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/report.h"
#include "store/store_report.h"

static void load_device(struct store_reader *rd, struct report *r, int64_t run_id, int64_t device_id) {
    struct device_info info;
    if (store_device_get(rd, device_id, &info) == 0 && r->ndev < REPORT_MAX_DEVICES) {
        struct report_device *d = &r->dev[r->ndev++];
        memset(d, 0, sizeof *d);
        d->info = info;
        d->run_id = run_id;
    }
}

static void load_launch(struct store_reader *rd, struct report *r, int dev) {
    struct launch_cost_per_args *rows;
    const int n = store_launch_cost_of_run(rd, r->dev[dev].run_id, &rows);
    struct launch_cost_summary *s = &r->launch[dev];
    for (int i = 0; i < n; i++) {
        const int buffer = !strcmp(rows[i].kind, "buffer"), nargs = rows[i].nargs;
        const double us = 1e6 * rows[i].seconds;
        if (nargs == 0 && buffer) s->us_0_args = us;
        if (nargs >= s->max_args) {
            s->max_args = nargs;
            if (buffer) s->us_max_buffers = us;
            else s->us_max_ints = us;
        }
        s->have = 1;
    }
    free(rows);
}

static void load_notes(struct store_reader *rd, struct report *r) {
    enum { MAX_NOTES = sizeof r->notes / sizeof r->notes[0] };
    struct report_note_row notes[MAX_NOTES];
    const int n = r->ndev ? store_report_notes(rd, r->dev[0].run_id, notes, MAX_NOTES - r->nnotes) : 0;
    for (int i = 0; i < n; i++, r->nnotes++) {
        str_copy(r->notes[r->nnotes][0], sizeof r->notes[0][0], notes[i].key);
        str_copy(r->notes[r->nnotes][1], sizeof r->notes[0][1], notes[i].text);
    }
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
        char err[ERR_MAX];
        struct app_input *in = r->app->input_load(&o, err, sizeof err);
        const int same = in && !strcmp(r->app->input_name(in), stored);
        if (in) r->app->input_free(in);
        if (same) return i;
    }
    return -1;
}

/* A stored row into the cell it measured. */
static void cell_fill(struct measurement *m, const struct measurement_row *row) {
    for (int s = ST_OK; s <= ST_UNVERIFIED; s++)
        if (!strcmp(status_name((enum status)s), row->status)) m->status = (enum status)s;
    str_copy(m->reason, sizeof m->reason, row->reason);
    m->iters = row->iters;
    m->iters_full = row->iters_full;
    m->median = row->median;
    m->q1 = row->q1;
    m->q3 = row->q3;
    m->device_median = row->device_median;
    m->cell_updates = row->cell_updates;
    m->mlups = row->mlups;
    m->gbs = row->gbs;
    m->max_rel_err = row->max_rel_err;
    m->wg[0] = row->wg[0];
    m->wg[1] = row->wg[1];
    str_copy(m->resources, sizeof m->resources, row->resources);
}

/* The number after ` NAME ` (or `NAME=`) in a stored command line, or dflt. */
static double stored_option(const char *command, const char *name, double dflt) {
    char key[48];
    str_fmt(key, sizeof key, " %s", name);
    for (const char *p = strstr(command, key); p; p = strstr(p + 1, key)) {
        const char *v = p + strlen(key);
        if (*v != ' ' && *v != '=') continue; /* --reps, not --repsx */
        char *end;
        const double x = strtod(v + 1, &end);
        if (end != v + 1) return x;
    }
    return dflt;
}

/* Every measurement of the device's run becomes a cell; returns how many
 * distinct variants it ran (more than one: it ran every table). */
static int load_cells(struct store_reader *rd, struct report *r, int dev) {
    struct measurement_row *rows;
    const int n = store_measurement_rows(rd, r->dev[dev].run_id, &rows);
    char first[64] = "";
    int variants = 0;
    for (int i = 0; i < n; i++) {
        const int input = input_of(r, rows[i].input);
        if (input < 0) continue;
        struct report_cell *c = cell_slot(r, dev, input, rows[i].variant, rows[i].wg);
        cell_fill(&c->m, &rows[i]);
        if (!strcmp(c->variant, TUNED_VARIANT)) { /* the configuration it ran: its knobs and shape */
            char err[ERR_MAX];
            knobs_init(&c->knobs, r->app->knobs);
            c->tuned = knobs_apply(&c->knobs, rows[i].knobs, err, sizeof err) == 0;
            c->wg[0] = rows[i].wg[0];
            c->wg[1] = rows[i].wg[1];
        }
        if (!first[0]) str_copy(first, sizeof first, c->variant), variants = 1;
        else if (variants == 1 && strcmp(first, c->variant)) variants = 2;
    }
    free(rows);
    return variants;
}

static void load_build(struct store_reader *rd, struct report *r, int64_t build) {
    struct stored_build b;
    if (store_build_get(rd, build, &b) != 0) return;
    str_copy(r->commit, sizeof r->commit, b.commit);
    r->dirty = b.dirty;
    str_copy(r->compiler, sizeof r->compiler, b.compiler);
}

/* The devices of the report's runs; device_ids[i] is r->dev[i]'s. 0, or -1
 * with err. */
static int load_runs(struct store_reader *rd, struct report *r, int64_t build, int64_t *device_ids, char *err,
                     size_t errn) {
    struct report_run_row *runs;
    char why[512];
    const int n = store_report_runs(rd, r->command, build, &runs, why, sizeof why);
    if (n < 0) return snprintf(err, errn, "%s: %s", r->db_path, why), -1;
    for (int k = 0; k < n && r->ndev < REPORT_MAX_DEVICES; k++) {
        /* The same command run twice: the later invocation's runs replace the earlier's. */
        const int64_t device_id = runs[k].device_id;
        int seen = -1;
        for (int i = 0; i < r->ndev; i++)
            if (device_ids[i] == device_id) seen = i;
        if (seen >= 0) {
            r->dev[seen].run_id = runs[k].run_id;
            continue;
        }
        device_ids[r->ndev] = device_id;
        str_copy(r->when, sizeof r->when, runs[k].started_at);
        load_device(rd, r, runs[k].run_id, device_id);
    }
    free(runs);
    return 0;
}

int report_load_db(struct report *r, char *err, size_t errn) {
    char why[1024 + 4096];
    struct store_reader *rd = store_reader_open(r->db_path, why, sizeof why);
    if (!rd) {
        fprintf(stderr, "harness report: %s\n", why);
        return snprintf(err, errn, "no database to draw from"), -1;
    }
    int64_t build = 0, device_ids[REPORT_MAX_DEVICES];
    if (store_report_latest(rd, r->app->name, r->command, sizeof r->command, &build) != 0) {
        store_reader_close(rd);
        return snprintf(err, errn, "%s holds no `harness report %s` run", r->db_path, r->app->name), -1;
    }
    load_build(rd, r, build);
    if (load_runs(rd, r, build, device_ids, err, errn) != 0) {
        store_reader_close(rd);
        return -1;
    }
    /* The header states how the stored rows were measured: the stored
     * command's settings (or report's defaults), not this command line's. */
    r->quick = strstr(r->command, " --quick") != NULL;
    r->target_s = stored_option(r->command, "--budget", r->quick ? REPORT_BUDGET_QUICK_S : REPORT_BUDGET_S);
    r->reps = (int)stored_option(r->command, "--reps", REPORT_REPS);
    r->warmup = (int)stored_option(r->command, "--warmup", REPORT_WARMUP);
    r->rounds = (int)stored_option(r->command, "--rounds", r->quick ? REPORT_ROUNDS_QUICK : REPORT_ROUNDS);
    for (int i = 0; i < r->ndev; i++) {
        store_peak_latest(rd, device_ids[i], &r->dev[i].copy_gbs, &r->dev[i].fp32_gflops);
        load_launch(rd, r, i);
        device_caps(&r->dev[i].info);
        r->dev[i].ladder = load_cells(rd, r, i) > 1 && !r->dev[i].info.caps.directives;
    }
    load_notes(rd, r);
    store_reader_close(rd);
    return r->ndev ? 0 : (snprintf(err, errn, "the report's runs name no device"), -1);
}
