/* harness sweep FILE...: expand sweep files into configs, record the
 * invalid ones with their reason, and run every other one in rounds
 * (rounds.h): each round a fresh worker process per device, the configs of
 * all the files in a shuffled order, every round's samples stored as it
 * finishes (one transaction per config and round). A re-run skips configs
 * already measured for the same build and device and finishes the rounds of
 * a config a killed sweep left short (--force measures everything again);
 * Ctrl-C leaves every finished round stored. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/devset.h"
#include "core/progress.h"
#include "core/rounds.h"
#include "core/runner.h"
#include "core/sweep_file.h"
#include "core/worker.h"
#include "store/store.h"
#include "store/store_sweep.h"
#include "store/store_tuned.h"

#define SWEEP_MAX_FILES 64

/* One sweep file, loaded: its app, inputs, variants and devices. */
struct sweep_part {
    struct sweep_spec spec;
    const struct app *app;
    struct app_input *inputs[SWEEP_MAX_LIST];
    struct variant_list variants;
    struct device_pick devices;
};

struct point {
    int part, dev, input, variant;
    unsigned wg[2];
    long iters;        /* two files may run one config at two step counts */
    char key[768];     /* canonical: device, app, input, knobs, shape (as merge reads it) */
    char invalid[256]; /* the app's reason, or "" */
};

struct sweep_run {
    struct sweep_part parts[SWEEP_MAX_FILES];
    int nparts;
    struct point *points;
    int npoints, filtered;
    char bad_constraint[512]; /* the first constraint that could not be evaluated: the sweep stops, exit 2 */
    struct store *store;              /* where `variant tuned` is looked up; NULL: nothing stored */
    int untuned;                      /* `variant tuned` points with no usable configuration stored */
    int shard, shards, force, rounds; /* rounds: --rounds, 0 for each file's own */
    unsigned seed;
};

/* A run (one command on one device) per device spec, begun on first use. */
struct run_ids {
    int n;
    char spec[64][32];
    int64_t id[64];
};

struct tally {
    int measured, skipped, invalid, failed, resumed;
    struct cli_unstored unstored; /* results the database refused: the sweep stops at the first (cli.h) */
};

/* What the rounds callbacks need. */
struct sweep_ctx {
    struct sweep_run *r;
    struct store *store;
    struct tally *t;
    int64_t touched[128]; /* runs with a result in the current round */
    int ntouched;
};

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness sweep FILE... [--db PATH] [--rounds R] [--seed S] [--force] [--shard I/N]\n"
            "                     [--dry-run [--keys]]\n"
            "  Runs every config of the sweep files (format: sweeps/README.md), isolated,\n"
            "  verified and stored. A config's repetitions are spread over R rounds (each file's\n"
            "  `rounds`, default %d; --rounds overrides): every round starts a fresh worker\n"
            "  process per device and runs the configs of all the files in a shuffled order\n"
            "  (--seed makes the order repeatable; default: from the clock). Configs already\n"
            "  measured for this build and device are skipped, and a config a killed sweep left\n"
            "  with fewer rounds than planned gets its missing rounds, unless --force.\n"
            "  --shard I/N keeps the configs whose position in the canonical order is I mod N\n"
            "  (default: SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT).\n"
            "  `variant tuned` runs, on each device and input, the configuration (knobs and shape)\n"
            "  `harness tune FILE` stored, as variant tuned; the file's wg lines do not apply to it.\n"
            "  Where none is stored it is skipped with a note (not a failure).\n"
            "  --dry-run lists each config (device, app, input, variant, shape, steps) and what a\n"
            "  run would do with it (run, skip as measured, resume, invalid and why), reading the\n"
            "  database without creating it; with --keys, one canonical key a line instead (what\n"
            "  merge --sweep reads).\n"
            "Exit status: 0 all verified, 1 a config failed, 2 bad input (nothing run).\n",
            SWEEP_DEFAULT_ROUNDS);
}

static int cmp_points(const void *a, const void *b) {
    const struct point *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->iters > y->iters) - (x->iters < y->iters);
}

static char *join(char list[][64], int n) {
    struct strbuf b = {0};
    for (int i = 0; i < n; i++) sb_printf(&b, "%s%s", i ? "," : "", list[i]);
    return b.s ? b.s : xstrdup("all");
}

/* Loads everything one file names; any problem is bad input (exit 2). */
static int part_load(struct sweep_part *p, const char *path) {
    char err[ERR_MAX];
    if (sweep_parse(path, &p->spec, err, sizeof err) != 0) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    if (!(p->app = cli_app(p->spec.app))) return EXIT_USAGE;
    /* Every input and the variants are checked before giving up, so one
     * run names every mistake the lines themselves did not show. */
    int bad = 0;
    for (int i = 0; i < p->spec.ninputs; i++) {
        struct app_opts o = {.input = p->spec.inputs[i], .iters = p->spec.iters};
        if (!(p->inputs[i] = p->app->input_load(&o, err, sizeof err)))
            bad = fprintf(stderr, "harness: %s:%d: input: %s\n", path, p->spec.input_lines[i], err);
    }
    struct variant_list named;
    if (variants_load_app(p->app->name, p->app->knobs, &named, err, sizeof err) != 0)
        return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    int rc = sweep_variants_tuned(&p->spec, p->app->knobs, &named, &p->variants, err, sizeof err);
    variants_free(&named);
    if (rc) bad = fprintf(stderr, "harness: %s\n", err);
    if (bad) return EXIT_USAGE;
    char *devs = p->spec.ndevices ? join(p->spec.devices, p->spec.ndevices) : xstrdup("all");
    rc = cli_devices_kinds_optional(devs, &p->devices);
    if (!rc && !p->devices.count) note("%s: no device of the kinds it names (%s) here; it runs nothing\n", path, devs);
    free(devs);
    return rc;
}

static const struct device_info *point_device(const struct sweep_run *r, const struct point *p) {
    const struct device_pick *d = &r->parts[p->part].devices;
    return &d->all[d->idx[p->dev]];
}

static void point_add(struct sweep_run *r, int part, int d, int i, int v, const unsigned wg[2]) {
    struct sweep_part *sp = &r->parts[part];
    const struct device_info *dev = &sp->devices.all[sp->devices.idx[d]];
    r->points = xrealloc(r->points, sizeof *r->points * (size_t)(r->npoints + 1));
    struct point *p = &r->points[r->npoints++];
    memset(p, 0, sizeof *p);
    p->part = part;
    p->dev = d;
    p->input = i;
    p->variant = v;
    p->wg[0] = wg[0];
    p->wg[1] = wg[1];
    char knobs[KNOBS_TEXT_MAX];
    knobs_canonical(&sp->variants.v[v].knobs, knobs, sizeof knobs);
    str_fmt(p->key, sizeof p->key, "%s|%s|%s|%s|%05ux%05u", dev->fingerprint, sp->app->name,
            sp->app->input_name(sp->inputs[i]), knobs, p->wg[0], p->wg[1]);
    p->iters = sp->app->input_iters(sp->inputs[i]);
    char why[ERR_MAX];
    const char *bad = app_invalid(sp->app, &sp->variants.v[v].knobs, sp->inputs[i], dev, p->wg, why, sizeof why);
    if (bad) str_copy(p->invalid, sizeof p->invalid, bad);
}

/* `variant tuned` on one device and input: the stored configuration at its
 * stored shape (the file's shapes and constraints are for the variants it
 * names), appended to the file's variants; or a note, and nothing. */
static void point_tuned(struct sweep_run *r, int part, int d, int i) {
    struct sweep_part *sp = &r->parts[part];
    const struct device_info *dev = &sp->devices.all[sp->devices.idx[d]];
    struct variant tv;
    unsigned wg[2];
    char why[ERR_MAX];
    if (store_tuned_variant(r->store, sp->app, sp->inputs[i], dev, &tv, wg, NULL, why, sizeof why) != 0) {
        note("%s: %s; skipped\n", sp->spec.path, why);
        r->untuned++;
        return;
    }
    sp->variants.v = xrealloc(sp->variants.v, sizeof *sp->variants.v * (size_t)(sp->variants.n + 1));
    sp->variants.v[sp->variants.n++] = tv;
    point_add(r, part, d, i, sp->variants.n - 1, wg);
}

/* Every device x input x variant x shape of one file that passes its own
 * constraints; the app's verdict on each is kept for the invalid rows. */
static void part_expand(struct sweep_run *r, int part) {
    struct sweep_part *sp = &r->parts[part];
    const int nvariants = sp->variants.n; /* resolved tuned ones are appended */
    for (int d = 0; d < sp->devices.count; d++) {
        const struct device_info *dev = &sp->devices.all[sp->devices.idx[d]];
        for (int i = 0; i < sp->spec.ninputs; i++) {
            size_t grid[2];
            sp->app->grid(sp->inputs[i], grid);
            for (int v = 0; v < nvariants; v++) {
                if (sp->variants.v[v].tuned) {
                    point_tuned(r, part, d, i);
                    continue;
                }
                for (int s = 0; s < sp->spec.nshapes; s++) {
                    char why[256];
                    const int ok = sweep_constraints_ok(&sp->spec, sp->spec.shapes[s], dev, grid, why, sizeof why);
                    if (ok < 0 && !r->bad_constraint[0]) str_copy(r->bad_constraint, sizeof r->bad_constraint, why);
                    if (ok <= 0) {
                        r->filtered++;
                        continue;
                    }
                    point_add(r, part, d, i, v, sp->spec.shapes[s]);
                }
            }
        }
    }
}

static int point_is_tuned(const struct sweep_run *r, const struct point *p) {
    return !strcmp(r->parts[p->part].variants.v[p->variant].name, TUNED_VARIANT);
}

/* Sorted by key, one point per key: two files naming one config run it once.
 * When one of them is the tuned configuration, it runs under that name, so
 * the tuned configuration's rows are found as tuned. */
static void sweep_expand(struct sweep_run *r) {
    for (int i = 0; i < r->nparts; i++) part_expand(r, i);
    if (r->npoints > 1) qsort(r->points, (size_t)r->npoints, sizeof *r->points, cmp_points); /* none: no array (UBSan) */
    int kept = 0;
    for (int i = 0; i < r->npoints; i++)
        if (!kept || cmp_points(&r->points[kept - 1], &r->points[i])) r->points[kept++] = r->points[i];
        else if (point_is_tuned(r, &r->points[i])) r->points[kept - 1] = r->points[i];
    r->npoints = kept;
}

/* Keeps the points whose position is shard mod shards. */
static void sweep_shard(struct sweep_run *r) {
    if (r->shards <= 1) return;
    int kept = 0;
    for (int i = 0; i < r->npoints; i++)
        if (i % r->shards == r->shard) r->points[kept++] = r->points[i];
    r->npoints = kept;
}

static int64_t run_for(struct run_ids *ids, struct store *store, const struct device_info *dev, const char *command) {
    for (int i = 0; i < ids->n; i++)
        if (!strcmp(ids->spec[i], dev->spec)) return ids->id[i];
    if (ids->n == 64) return -1;
    char err[ERR_MAX];
    int64_t id = store_run_begin(store, dev, command, err, sizeof err);
    if (id < 0) fprintf(stderr, "harness: %s\n", err);
    str_copy(ids->spec[ids->n], sizeof ids->spec[0], dev->spec);
    ids->id[ids->n++] = id;
    return id;
}

static void job_of(const struct sweep_run *r, const struct point *p, int rounds, struct job *j) {
    const struct sweep_part *sp = &r->parts[p->part];
    memset(j, 0, sizeof *j);
    str_copy(j->app, sizeof j->app, sp->app->name);
    str_copy(j->input, sizeof j->input, sp->spec.inputs[p->input]);
    j->iters = sp->spec.iters;
    str_copy(j->variant, sizeof j->variant, sp->variants.v[p->variant].name);
    knobs_canonical(&sp->variants.v[p->variant].knobs, j->knobs, sizeof j->knobs);
    j->wg[0] = p->wg[0];
    j->wg[1] = p->wg[1];
    str_copy(j->device, sizeof j->device, point_device(r, p)->spec);
    j->warmup = sp->spec.warmup;
    j->reps = rounds_reps_each(sp->spec.reps, rounds);
}

static void touch(struct sweep_ctx *c, int64_t run_id) {
    for (int i = 0; i < c->ntouched; i++)
        if (c->touched[i] == run_id) return;
    if (c->ntouched < 128) c->touched[c->ntouched++] = run_id;
}

static void on_result(void *ctx, struct round_job *j, int round, int first_sample) {
    struct sweep_ctx *c = ctx;
    (void)round;
    char err[ERR_MAX];
    const struct point *p = j->user;
    const struct device_info *dev = point_device(c->r, p);
    int rc = j->mid > 0 ? store_measurement_more(c->store, j->mid, &j->m, first_sample, err, sizeof err)
                        : store_measurement_id(c->store, j->run_id, &j->m, &j->mid, err, sizeof err);
    if (rc != 0) {
        cli_unstored(&c->t->unstored, dev->spec, j->m.variant, err);
        return;
    }
    touch(c, j->run_id);
    if (!j->done) return;
    c->t->measured++;
    c->t->failed += j->m.status != ST_OK && j->m.status != ST_UNVERIFIED;
    if (isatty(2)) fprintf(stderr, "\r\033[K");
    runner_print(stdout, dev, &j->m, store_peak_gbs(c->store, dev));
    fflush(stdout);
}

static void on_round(void *ctx, const struct round_state *st) {
    struct sweep_ctx *c = ctx;
    char err[ERR_MAX];
    for (int i = 0; i < c->ntouched; i++)
        if (c->touched[i] > 0 && store_round_state(c->store, c->touched[i], st, err, sizeof err) != 0)
            fprintf(stderr, "harness: %s\n", err);
    rounds_note(stderr, "sweep", st);
    c->ntouched = 0;
}

/* Invalid configs are stored at once (nothing runs); the others become jobs,
 * a resumed one with the rounds it has loaded. Returns the number of jobs. */
static int plan_jobs(struct sweep_run *r, struct store *store, const char *command, struct run_ids *ids,
                     struct round_job *jobs, struct tally *t) {
    char err[ERR_MAX];
    int n = 0;
    for (int i = 0; i < r->npoints && !harness_interrupted; i++) {
        struct point *p = &r->points[i];
        const struct sweep_part *sp = &r->parts[p->part];
        const struct device_info *dev = point_device(r, p);
        struct config c = {.app = sp->app,
                           .in = sp->inputs[p->input],
                           .knobs = sp->variants.v[p->variant].knobs,
                           .wg = {p->wg[0], p->wg[1]}};
        str_copy(c.variant, sizeof c.variant, sp->variants.v[p->variant].name);
        struct round_job *j = &jobs[n];
        memset(j, 0, sizeof *j);
        j->group = -1;
        runner_describe(&c, &j->m);
        j->m.warmup = sp->spec.warmup;
        int rounds = r->rounds ? r->rounds : sp->spec.rounds;
        struct earlier_measurement e;
        if (!r->force && store_latest_measurement(store, dev, &j->m, &e)) {
            if (!e.ok || e.rounds_done >= e.rounds) {
                t->skipped++;
                continue;
            }
            /* A killed sweep's row: its missing rounds, appended to it. */
            if (store_measurement_samples(store, e.mid, &j->m, err, sizeof err) != 0) {
                fprintf(stderr, "harness: %s\n", err);
                continue;
            }
            j->mid = e.mid;
            j->run_id = e.run_id;
            j->first = e.rounds_done;
            rounds = e.rounds;
            t->resumed++;
        } else {
            j->run_id = run_for(ids, store, dev, command);
        }
        j->m.rounds = rounds;
        j->m.rounds_done = j->first;
        if (p->invalid[0]) {
            j->m.status = ST_INVALID;
            str_copy(j->m.reason, sizeof j->m.reason, p->invalid);
            if (store_measurement(store, j->run_id, &j->m, err, sizeof err) != 0) {
                cli_unstored(&t->unstored, dev->spec, j->m.variant, err);
                measurement_free(&j->m);
                break;
            }
            runner_print(stdout, dev, &j->m, 0);
            measurement_free(&j->m);
            t->invalid++;
            continue;
        }
        job_of(r, p, rounds, &j->job);
        j->timeout_s = sp->spec.timeout_s;
        j->bytes_per_cell = sp->app->bytes_per_cell(&c.knobs);
        j->user = p;
        n++;
    }
    return n;
}

/* Every reference is computed here, once, so no worker spends its watchdog
 * on it (the apps keep them on disk for the workers). */
static void references(struct sweep_run *r, const struct round_job *jobs, int n) {
    char err[ERR_MAX];
    for (int pi = 0; pi < r->nparts; pi++)
        for (int in = 0; in < r->parts[pi].spec.ninputs; in++) {
            const struct app *app = r->parts[pi].app;
            int used = 0; /* by a config that is verified (app.h: verified) */
            for (int i = 0; i < n && !used; i++) {
                const struct point *p = jobs[i].user;
                used = p->part == pi && p->input == in &&
                       (!app->verified || app->verified(&r->parts[pi].variants.v[p->variant].knobs));
            }
            if (!used) continue;
            /* Under the part's watchdog: a reference that outlives it is left
             * to the workers (each config then a timeout row). */
            struct measurement why = {0};
            if (runner_reference_watched(app, r->parts[pi].inputs[in], r->parts[pi].spec.timeout_s, &why) != 0) {
                fprintf(stderr, "harness: %s: %s\n", r->parts[pi].inputs[in] ? app->input_name(r->parts[pi].inputs[in]) : "?",
                        why.reason);
                continue;
            }
            struct app_ref *ref = r->parts[pi].app->reference(r->parts[pi].inputs[in], err, sizeof err);
            if (ref) r->parts[pi].app->ref_free(ref);
        }
}

static int sweep_execute(struct sweep_run *r, struct store *store, const char *command, struct tally *t) {
    struct run_ids ids = {0};
    struct round_job *jobs = xcalloc((size_t)r->npoints + 1, sizeof *jobs);
    int n = plan_jobs(r, store, command, &ids, jobs, t);
    references(r, jobs, n);
    struct sweep_ctx ctx = {.r = r, .store = store, .t = t};
    struct rounds_opts o = {
        .seed = r->seed, .on_result = on_result, .on_round = on_round, .ctx = &ctx, .what = "sweep"};
    rounds_run(jobs, n, &o);
    for (int i = 0; i < n; i++) measurement_free(&jobs[i].m);
    free(jobs);
    for (int d = 0; d < ids.n; d++)
        if (ids.id[d] >= 0) store_run_end(store, ids.id[d]);
    return 0;
}

static void sweep_free_all(struct sweep_run *r) {
    for (int p = 0; p < r->nparts; p++) {
        struct sweep_part *sp = &r->parts[p];
        for (int i = 0; i < sp->spec.ninputs; i++)
            if (sp->inputs[i]) sp->app->input_free(sp->inputs[i]);
        variants_free(&sp->variants);
        cli_devices_free(&sp->devices);
        sweep_free(&sp->spec);
    }
    free(r->points);
}

/* What a run would do with one point: run it, skip it (measured by this
 * build already, all its rounds; `--force` runs it again), resume it, or
 * store it as invalid with the app's reason. */
static const char *point_plan(const struct sweep_run *r, struct store *store, const struct point *p, char *buf,
                              size_t n) {
    if (p->invalid[0]) return str_fmt(buf, n, "invalid: %s", p->invalid), buf;
    if (!store || r->force) return "run";
    const struct sweep_part *sp = &r->parts[p->part];
    struct config c = {.app = sp->app,
                       .in = sp->inputs[p->input],
                       .knobs = sp->variants.v[p->variant].knobs,
                       .wg = {p->wg[0], p->wg[1]}};
    str_copy(c.variant, sizeof c.variant, sp->variants.v[p->variant].name);
    struct measurement m = {0};
    runner_describe(&c, &m);
    struct earlier_measurement e;
    if (!store_latest_measurement(store, point_device(r, p), &m, &e)) return "run";
    if (!e.ok || e.rounds_done >= e.rounds) return "skip: measured already (--force to run again)";
    return str_fmt(buf, n, "resume: %d of %d rounds missing", e.rounds - e.rounds_done, e.rounds), buf;
}

/* --dry-run --keys: one canonical key per config (device fingerprint, app,
 * input, knobs, shape, as merge reads them), then the tuned variant's name
 * and the app's reason for an invalid one. `merge --sweep` reads these. */
static void dry_keys(const struct sweep_run *r) {
    for (int i = 0; i < r->npoints; i++) {
        const struct point *p = &r->points[i];
        const struct sweep_part *sp = &r->parts[p->part];
        const int tuned = point_is_tuned(r, p);
        printf("%s%s%s%s%s\n", p->key, tuned ? "  tuned: " : "", tuned ? sp->variants.v[p->variant].description : "",
               p->invalid[0] ? "  invalid: " : "", p->invalid);
    }
}

/* One readable line per config, in the order the keys sort (what a shard
 * takes): device, app, input, variant (the tuned configuration's knobs
 * named), shape, steps, and what a run would do with it. */
static void dry_run(const struct sweep_run *r, struct store *store) {
    printf("%-10s %-8s %-10s %-20s %-9s %7s  %s\n", "device", "app", "input", "variant", "shape", "steps", "plan");
    for (int i = 0; i < r->npoints; i++) {
        const struct point *p = &r->points[i];
        const struct sweep_part *sp = &r->parts[p->part];
        const struct variant *v = &sp->variants.v[p->variant];
        char shape[32], plan[320];
        str_fmt(shape, sizeof shape, "%ux%u", p->wg[0], p->wg[1]);
        const int tuned = point_is_tuned(r, p);
        printf("%-10s %-8s %-10s %-20s %-9s %7ld  %s%s%s%s\n", point_device(r, p)->spec, sp->app->name,
               sp->app->input_name(sp->inputs[p->input]), v->name, shape, p->iters,
               point_plan(r, store, p, plan, sizeof plan), tuned ? "  (tuned: " : "", tuned ? v->description : "",
               tuned ? ")" : "");
    }
}

/* The command line's own options (the files follow them). */
struct sweep_opts {
    const char *db;
    int dry, keys;
};

/* The options into o and r (force, rounds, seed, the shard: --shard, or a
 * Slurm array task's). 0, -1 after --help, or EXIT_USAGE. */
static int parse_opts(int argc, char **argv, struct sweep_opts *o, struct sweep_run *r) {
    static const struct option longopts[] = {
        {"db", required_argument, 0, 'b'},   {"force", no_argument, 0, 'f'}, {"shard", required_argument, 0, 's'},
        {"dry-run", no_argument, 0, 'n'},    {"keys", no_argument, 0, 'k'},  {"rounds", required_argument, 0, 'R'},
        {"seed", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},  {0, 0, 0, 0}};
    const char *shard = NULL;
    int c, seeded = 0;
    long v;
    *o = (struct sweep_opts){0};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'b') o->db = optarg;
        else if (c == 'f') r->force = 1;
        else if (c == 's') shard = optarg;
        else if (c == 'n') o->dry = 1;
        else if (c == 'k') o->keys = 1;
        else if (c == 'R') {
            if (parse_whole(optarg, 1, 10000, &v))
                return fprintf(stderr, "harness: sweep --rounds %s: want a whole number in 1..10000\n", optarg),
                       EXIT_USAGE;
            r->rounds = (int)v;
        } else if (c == 'S') {
            if (parse_whole(optarg, 0, 0xffffffffL, &v))
                return fprintf(stderr, "harness: sweep --seed %s: want a whole number >= 0\n", optarg), EXIT_USAGE;
            r->seed = (unsigned)v;
            seeded = 1;
        } else if (c == 'h') return usage(stdout), -1;
        else return usage(stderr), EXIT_USAGE;
    }
    if (optind >= argc) return usage(stderr), EXIT_USAGE;
    if (argc - optind > SWEEP_MAX_FILES)
        return fprintf(stderr, "harness: sweep: at most %d files at once\n", SWEEP_MAX_FILES), EXIT_USAGE;
    if (!seeded) r->seed = (unsigned)(clock_now() * 1e3) ^ (unsigned)getpid();
    char env_shard[64];
    if (!shard && getenv("SLURM_ARRAY_TASK_ID") && getenv("SLURM_ARRAY_TASK_COUNT")) {
        str_fmt(env_shard, sizeof env_shard, "%s/%s", getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT"));
        shard = env_shard;
    }
    if (shard && cli_shard(shard, &r->shard, &r->shards) != 0)
        return fprintf(stderr, "harness: --shard %s: expected I/N with 0 <= I < N\n", shard), EXIT_USAGE;
    return 0;
}

/* The database first (`variant tuned` is looked up in it): a dry run opens
 * an existing one read-only and never creates one. 0, or EXIT_USAGE when
 * it cannot be opened to write. */
static int open_db(struct sweep_run *r, const char *path, int dry) {
    char err[ERR_MAX];
    if (dry && access(path, F_OK) == 0) {
        /* Read-only: a dry run never creates or migrates the database. */
        r->store = store_open_readonly(path, err, sizeof err);
        if (!r->store) note("%s: %s; the plan assumes nothing is measured\n", path, err);
    } else if (!dry) {
        r->store = store_open(path, err, sizeof err);
        if (!r->store) {
            fprintf(stderr, "harness: %s\n", err);
            /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The sweep's last line, and its exit status. */
static int finish(const struct sweep_run *r, const struct tally *t, const char *path, int rc) {
    fprintf(stderr, "sweep: %d measured (%d failed), %d invalid, %d skipped as already measured", t->measured,
            t->failed, t->invalid, t->skipped);
    if (r->untuned) fprintf(stderr, ", %d skipped without a tuned configuration", r->untuned);
    if (t->resumed) fprintf(stderr, ", %d resumed (rounds a killed sweep left)", t->resumed);
    fprintf(stderr, "%s\n",
            t->unstored.count     ? "; STOPPED: the database refused a result"
            : harness_interrupted ? "; interrupted"
                                  : "");
    if (t->unstored.count) {
        fprintf(stderr,
                "harness: the database %s could not store a result (%s): what is printed above was stored; "
                "the rest of the sweep did not run (free space and run it again: it resumes)\n",
                path, t->unstored.first);
        return EXIT_FOUND;
    }
    if (harness_interrupted) return 130;
    return rc ? EXIT_FOUND : t->failed ? EXIT_FOUND : EXIT_OK;
}

int cmd_sweep(int argc, char **argv) {
    static struct sweep_run r;
    memset(&r, 0, sizeof r);
    r.shards = 1;
    struct sweep_opts o;
    int rc = parse_opts(argc, argv, &o, &r);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    for (int i = optind; i < argc && !rc; i++) rc = part_load(&r.parts[r.nparts++], argv[i]);
    if (rc) {
        sweep_free_all(&r);
        return rc;
    }
    char command[1024];
    const char *path = o.db ? o.db : store_default_path();
    if ((rc = open_db(&r, path, o.dry)) != 0) {
        sweep_free_all(&r);
        return rc;
    }
    struct store *store = r.store;
    sweep_expand(&r);
    if (r.bad_constraint[0]) {
        fprintf(stderr, "harness: %s\n", r.bad_constraint);
        store_close(store);
        sweep_free_all(&r);
        return EXIT_USAGE;
    }
    int total = r.npoints;
    sweep_shard(&r);
    char untuned[64] = "";
    if (r.untuned) str_fmt(untuned, sizeof untuned, ", %d without a tuned configuration", r.untuned);
    fprintf(stderr, "sweep %s%s: %d configs (%d outside the constraints%s); this shard: %d\n", r.parts[0].spec.path,
            r.nparts > 1 ? " and more" : "", total, r.filtered, untuned, r.npoints);
    if (o.dry) {
        if (o.keys) dry_keys(&r);
        else dry_run(&r, store);
        store_close(store);
        sweep_free_all(&r);
        return EXIT_OK;
    }
    cli_command_line(argc, argv, command, sizeof command);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct tally t = {0};
    rc = sweep_execute(&r, store, command, &t);
    store_close(store);
    rc = finish(&r, &t, path, rc);
    sweep_free_all(&r);
    return rc;
}
