/* harness sweep FILE: expand a sweep file into configs, record the invalid
 * ones with their reason, run every other one isolated in a worker under a
 * watchdog, verify it and store every sample, one transaction per config.
 * A re-run skips configs already measured for the same build and device
 * (--force redoes them); Ctrl-C leaves every finished config stored. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli.h"
#include "commands.h"
#include "runner.h"
#include "store.h"
#include "sweep_file.h"
#include "util.h"
#include "worker.h"

struct point {
    int dev, input, variant;
    unsigned wg[2];
    char key[768];     /* canonical: device, app, input, knobs, shape */
    char invalid[256]; /* the app's reason, or "" */
};

struct sweep_run {
    struct sweep_spec spec;
    const struct app *app;
    struct app_input *inputs[SWEEP_MAX_LIST];
    struct variant_list variants;
    struct device_pick devices;
    struct point *points;
    int npoints, filtered;
    int shard, shards, force;
};

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

static void usage(FILE *out) {
    fprintf(out, "usage: harness sweep FILE [--db PATH] [--force] [--shard I/N] [--dry-run]\n"
                 "  Runs every config of a sweep file (format: sweeps/README.md), isolated,\n"
                 "  verified and stored; configs already measured for this build and device are\n"
                 "  skipped unless --force. --shard I/N keeps the configs whose position in the\n"
                 "  canonical order is I mod N (default: SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT).\n");
}

static int cmp_points(const void *a, const void *b) {
    return strcmp(((const struct point *)a)->key, ((const struct point *)b)->key);
}

static char *join(char list[][64], int n) {
    struct strbuf b = {0};
    for (int i = 0; i < n; i++) sb_printf(&b, "%s%s", i ? "," : "", list[i]);
    return b.s ? b.s : xstrdup("all");
}

/* Loads everything the sweep names; any problem is bad input (exit 2). */
static int sweep_load(struct sweep_run *r, const char *path) {
    char err[2048];
    if (sweep_parse(path, &r->spec, err, sizeof err) != 0) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    if (!(r->app = cli_app(r->spec.app))) return EXIT_USAGE;
    for (int i = 0; i < r->spec.ninputs; i++) {
        struct app_opts o = {.input = r->spec.inputs[i], .iters = r->spec.iters};
        if (!(r->inputs[i] = r->app->input_load(&o, err, sizeof err)))
            return fprintf(stderr, "harness: %s:%d: input: %s\n", path, r->spec.input_lines[i], err), EXIT_USAGE;
    }
    struct variant_list named;
    if (variants_load_app(r->app->name, r->app->knobs, &named, err, sizeof err) != 0)
        return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    int rc = sweep_variants(&r->spec, r->app->knobs, &named, &r->variants, err, sizeof err);
    variants_free(&named);
    if (rc) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    char *devs = r->spec.ndevices ? join(r->spec.devices, r->spec.ndevices) : xstrdup("all");
    rc = cli_devices(devs, &r->devices);
    free(devs);
    return rc;
}

/* Every device x input x variant x shape that passes the sweep's own
 * constraints; the app's verdict on each is kept for the invalid rows. */
static void sweep_expand(struct sweep_run *r) {
    for (int d = 0; d < r->devices.count; d++) {
        const struct device_info *dev = &r->devices.all[r->devices.idx[d]];
        for (int i = 0; i < r->spec.ninputs; i++) {
            size_t grid[2];
            r->app->grid(r->inputs[i], grid);
            for (int v = 0; v < r->variants.n; v++)
                for (int s = 0; s < r->spec.nshapes; s++) {
                    char why[256];
                    if (!sweep_constraints_ok(&r->spec, r->spec.shapes[s], dev, grid, why, sizeof why)) {
                        r->filtered++;
                        continue;
                    }
                    r->points = realloc(r->points, sizeof *r->points * (size_t)(r->npoints + 1));
                    if (!r->points) abort();
                    struct point *p = &r->points[r->npoints++];
                    memset(p, 0, sizeof *p);
                    p->dev = d;
                    p->input = i;
                    p->variant = v;
                    p->wg[0] = r->spec.shapes[s][0];
                    p->wg[1] = r->spec.shapes[s][1];
                    char knobs[512];
                    knobs_canonical(&r->variants.v[v].knobs, knobs, sizeof knobs);
                    str_fmt(p->key, sizeof p->key, "%s|%s|%s|%s|%05ux%05u", dev->fingerprint, r->app->name,
                            r->app->input_name(r->inputs[i]), knobs, p->wg[0], p->wg[1]);
                    const char *bad = r->app->invalid(&r->variants.v[v].knobs, r->inputs[i], dev, p->wg);
                    if (bad) str_copy(p->invalid, sizeof p->invalid, bad);
                }
        }
    }
    qsort(r->points, (size_t)r->npoints, sizeof *r->points, cmp_points);
}

/* Keeps the points whose position is shard mod shards. */
static void sweep_shard(struct sweep_run *r) {
    if (r->shards <= 1) return;
    int kept = 0;
    for (int i = 0; i < r->npoints; i++)
        if (i % r->shards == r->shard) r->points[kept++] = r->points[i];
    r->npoints = kept;
}

/* Already measured with this build on this device (any status: a config
 * that crashed is not retried unless --force). */
static int already_measured(struct store *s, int64_t run_id, const struct measurement *m) {
    static const char *sql =
        "SELECT 1 FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id "
        "WHERE c.app = ?1 AND c.input = ?2 AND c.knobs = ?3 AND c.wg_x = ?4 AND c.wg_y = ?5 "
        "AND r.device_id = ?6 AND r.build_id = ?7 AND m.iters = ?8 LIMIT 1";
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, m->app, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->input, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->knobs, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, (int)m->wg[0]);
    sqlite3_bind_int(st, 5, (int)m->wg[1]);
    sqlite3_bind_int64(st, 6, store_device_id(s, run_id));
    sqlite3_bind_int64(st, 7, store_build_id(s, run_id));
    sqlite3_bind_int64(st, 8, m->iters);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static void progress(int done, int total, double started, const char *what) {
    if (!isatty(2)) return; /* quiet in logs */
    double per = done ? (clock_now() - started) / done : 0;
    int eta = (int)(per * (total - done));
    fprintf(stderr, "\r\033[K[%d/%d] ETA %d:%02d  %.60s", done, total, eta / 60, eta % 60, what);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

static void job_of(const struct sweep_run *r, const struct point *p, struct job *j) {
    memset(j, 0, sizeof *j);
    str_copy(j->app, sizeof j->app, r->app->name);
    str_copy(j->input, sizeof j->input, r->spec.inputs[p->input]);
    j->iters = r->spec.iters;
    str_copy(j->variant, sizeof j->variant, r->variants.v[p->variant].name);
    knobs_canonical(&r->variants.v[p->variant].knobs, j->knobs, sizeof j->knobs);
    j->wg[0] = p->wg[0];
    j->wg[1] = p->wg[1];
    str_copy(j->device, sizeof j->device, r->devices.all[r->devices.idx[p->dev]].spec);
    j->warmup = r->spec.warmup;
    j->reps = r->spec.reps;
}

struct tally { int measured, skipped, invalid, failed; };

static int sweep_execute(struct sweep_run *r, struct store *store, const char *command, struct tally *t) {
    char err[1024];
    int64_t run_ids[CLI_MAX_DEVICES];
    for (int d = 0; d < CLI_MAX_DEVICES; d++) run_ids[d] = -1;
    struct worker_pool *pool = pool_open();
    int refs_ready[SWEEP_MAX_LIST] = {0};
    double started = clock_now();
    for (int i = 0; i < r->npoints && !harness_interrupted; i++) {
        const struct point *p = &r->points[i];
        const struct device_info *dev = &r->devices.all[r->devices.idx[p->dev]];
        if (run_ids[p->dev] < 0 && (run_ids[p->dev] = store_run_begin(store, dev, command, err, sizeof err)) < 0) {
            fprintf(stderr, "harness: %s\n", err);
            pool_close(pool);
            return -1;
        }
        struct config c = {.app = r->app, .in = r->inputs[p->input], .knobs = r->variants.v[p->variant].knobs,
                           .wg = {p->wg[0], p->wg[1]}};
        str_copy(c.variant, sizeof c.variant, r->variants.v[p->variant].name);
        struct measurement m = {0};
        runner_describe(&c, &m);
        if (!r->force && already_measured(store, run_ids[p->dev], &m)) {
            t->skipped++;
            progress(i + 1, r->npoints, started, "skipped (already measured)");
            continue;
        }
        if (p->invalid[0]) {
            m.status = ST_INVALID;
            str_copy(m.reason, sizeof m.reason, p->invalid);
            t->invalid++;
        } else {
            if (!refs_ready[p->input]) {
                /* Computed here, once, so no worker spends its watchdog on it. */
                struct app_ref *ref = r->app->reference(r->inputs[p->input], err, sizeof err);
                if (ref) r->app->ref_free(ref);
                refs_ready[p->input] = 1;
            }
            struct job j;
            job_of(r, p, &j);
            pool_run(pool, &j, r->spec.timeout_s, &m);
            if (harness_interrupted) {
                measurement_free(&m);
                break; /* the config in flight is not stored */
            }
            measurement_summarise(&m, r->app->bytes_per_cell(&c.knobs));
            t->measured++;
            t->failed += m.status != ST_OK && m.status != ST_UNVERIFIED;
        }
        if (store_measurement(store, run_ids[p->dev], &m, err, sizeof err) != 0) fprintf(stderr, "harness: %s\n", err);
        if (isatty(2)) fprintf(stderr, "\r\033[K");
        runner_print(stdout, dev, &m, runner_peak(store, dev));
        fflush(stdout);
        progress(i + 1, r->npoints, started, m.variant);
        measurement_free(&m);
    }
    for (int d = 0; d < r->devices.count; d++)
        if (run_ids[d] >= 0) store_run_end(store, run_ids[d]);
    pool_close(pool);
    return 0;
}

static int parse_shard(const char *text, int *shard, int *shards) {
    char extra;
    return sscanf(text, "%d/%d%c", shard, shards, &extra) == 2 && *shards >= 1 && *shard >= 0 && *shard < *shards
               ? 0
               : -1;
}

static void sweep_free_all(struct sweep_run *r) {
    for (int i = 0; i < r->spec.ninputs; i++)
        if (r->inputs[i]) r->app->input_free(r->inputs[i]);
    variants_free(&r->variants);
    cli_devices_free(&r->devices);
    free(r->points);
    sweep_free(&r->spec);
}

int cmd_sweep(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'b'}, {"force", no_argument, 0, 'f'},
                                             {"shard", required_argument, 0, 's'}, {"dry-run", no_argument, 0, 'n'},
                                             {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *db = NULL, *shard = NULL;
    int dry = 0, c;
    struct sweep_run r = {.shards = 1};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'b') db = optarg;
        else if (c == 'f') r.force = 1;
        else if (c == 's') shard = optarg;
        else if (c == 'n') dry = 1;
        else if (c == 'h') return usage(stdout), EXIT_OK;
        else return usage(stderr), EXIT_USAGE;
    }
    if (optind != argc - 1) return usage(stderr), EXIT_USAGE;
    char env_shard[64];
    if (!shard && getenv("SLURM_ARRAY_TASK_ID") && getenv("SLURM_ARRAY_TASK_COUNT")) {
        str_fmt(env_shard, sizeof env_shard, "%s/%s", getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT"));
        shard = env_shard;
    }
    if (shard && parse_shard(shard, &r.shard, &r.shards) != 0)
        return fprintf(stderr, "harness: --shard %s: expected I/N with 0 <= I < N\n", shard), EXIT_USAGE;
    int rc = sweep_load(&r, argv[optind]);
    if (rc) {
        sweep_free_all(&r);
        return rc;
    }
    sweep_expand(&r);
    int total = r.npoints;
    sweep_shard(&r);
    fprintf(stderr, "sweep %s: %d configs (%d outside the constraints)%s; this shard: %d\n", r.spec.path, total,
            r.filtered, r.shards > 1 ? "" : "", r.npoints);
    if (dry) {
        for (int i = 0; i < r.npoints; i++) printf("%s%s%s\n", r.points[i].key, r.points[i].invalid[0] ? "  invalid: " : "", r.points[i].invalid);
        sweep_free_all(&r);
        return EXIT_OK;
    }
    char err[1024], command[1024];
    struct store *store = store_open(db ? db : store_default_path(), err, sizeof err);
    if (!store) {
        fprintf(stderr, "harness: %s\n", err);
        sweep_free_all(&r);
        return EXIT_FOUND;
    }
    cli_command_line(argc, argv, command, sizeof command);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct tally t = {0};
    rc = sweep_execute(&r, store, command, &t);
    store_close(store);
    fprintf(stderr, "sweep %s: %d measured (%d failed), %d invalid, %d skipped as already measured%s\n",
            r.spec.path, t.measured, t.failed, t.invalid, t.skipped, harness_interrupted ? "; interrupted" : "");
    sweep_free_all(&r);
    if (harness_interrupted) return 130;
    return rc ? EXIT_FOUND : t.failed ? EXIT_FOUND : EXIT_OK;
}
