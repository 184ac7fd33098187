/* harness tune: search a space of configurations (knob settings x
 * work-group shapes) on a device and record the best with how sure we are
 * (the runner-up, the margin, the noise, and "tie" when the margin is within
 * the noise).
 *
 * The space comes from a sweep file (`harness tune FILE`: its knobs
 * patterns, variants, shapes, constraints, inputs and devices; one search
 * per device and input) or, as a shorthand, from flags: the power-of-two
 * shapes of one variant. Live, every evaluation is a full measurement in a
 * worker process (a crash or hang costs one point), stored like any `harness
 * run` row, so a search leaves its evidence in the database. With --screen
 * the search measures shortened runs and only the finalists are measured at
 * full length. With --replay the strategy runs over measurements already
 * stored; with --replay FILE over a recorded landscape of any kernel
 * (cmd_tune_file.c: no database at all). Everything is checked before the
 * database is opened: bad input exits 2 and touches nothing. */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/energy.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "core/rounds.h"
#include "core/runner.h"
#include "core/sweep_file.h"
#include "core/worker.h"
#include "store/store.h"
#include "store/store_tuned.h"
#include "store/store_tuned_history.h"
#include "track/host_check.h"
#include "tune/tune.h"
#include "tune/tune_plan.h"
#include "tune/tune_verdict.h"

#define POW2_STEPS 11      /* 1, 2, 4, ..., 1024 per dimension */
#define VERDICT_SHAPES 4   /* configurations measured again for the verdict */
#define VERDICT_CLOSE 0.05 /* ... those within this of the best */
#define MAX_SEARCHES 64    /* devices x inputs of one call */

struct tune_opts {
    const char *file, *app, *device, *variant, *strategy, *db, *objective;
    struct app_opts in;
    int budget, reps, warmup, replay, store, rounds, replace, finalists, warm;
    int reps_set, warmup_set, timeout_set;
    unsigned seed;
    long wg_max, screen;
    double timeout_s;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness tune FILE --strategy S [--budget N] [options]\n"
            "       harness tune --input NAME --device SPEC --strategy S [--budget N] [--app lbm]\n"
            "                    [--variant NAME] [--wg-max N] [options]\n"
            "  FILE        a sweep file (sweeps/README.md) naming the space: its knobs patterns\n"
            "              and variants x its wg shapes (any sizes), less what its constraints and\n"
            "              the app's validity rules reject (an invalid point costs no evaluation);\n"
            "              one search per device and input it names (--device/--input override).\n"
            "              The best configuration (knobs + shape) is stored as variant 'tuned' for\n"
            "              the device and input: `harness run --variant tuned` runs it.\n"
            "              Without FILE: the power-of-two shapes (1..1024 a side, at most --wg-max\n"
            "              items, default 1024) of one --variant (default final), stored as that\n"
            "              variant's shape (`harness run` uses it when no --wg is given).\n"
            "  --strategy  exhaustive (every point), random (a spread-out sample, then the\n"
            "              neighbours of the best), anneal (simulated annealing over one-knob and\n"
            "              one-side moves), genetic, forest (model-based: an additive Bayesian\n"
            "              model of the log-time, cold from a belief that the time is a bowl in\n"
            "              the group's size and aspect, with a random forest on what it leaves\n"
            "              once 16 points are in, SMAC-style; expected improvement picks)\n"
            "  --budget    the most distinct points to measure (required but for exhaustive);\n"
            "              a point is never measured twice in one search\n"
            "  --seed      makes the strategies repeatable (default 1)\n"
            "  --iters N   the step count of every full-length measurement (default: FILE's\n"
            "              iters, else the input's own)\n"
            "  --screen N  the search measures N-step runs; then the --finalists best (default 8)\n"
            "              are measured at full length and only those go to the verdict\n"
            "  --objective time (default) or energy: energy per run where the device reports it\n"
            "              (NVML); the verdict on energy is the tie rule on the finalists\n"
            "  --warm-start  seed forest (and the first points of any strategy) with ok\n"
            "              measurements of the same configurations on other devices or inputs\n"
            "              in the database\n"
            "  --reps/--warmup  per point (default FILE's, else 5 and 1); --timeout per point\n"
            "              (default FILE's, else 600)\n"
            "  --rounds    the verdict: the best configurations found (the best, the runner-up, and\n"
            "              any within 5 %% of the best, at most %d) and the stored one measured again\n"
            "              in R rounds (default 5; FILE's rounds line is not used), each a fresh\n"
            "              worker process, shuffled; the best is a winner only when it beats the\n"
            "              runner-up round for round (paired t-test on the rounds' medians,\n"
            "              p <= 0.05, by at least 0.5 %%), else a TIE. 1: judge on the search's own\n"
            "              measurements (the IQR rule)\n"
            "  --replace   store the search's best even where it does not beat the stored one;\n"
            "              without it the stored configuration is measured in the verdict's rounds\n"
            "              too and replaced only when the new best beats it round for round\n"
            "              (`harness best --history` lists every decision)\n"
            "  --replay    run the strategy over the latest ok measurements already in the\n"
            "              database (nothing runs; --device may be a fingerprint), all at one step\n"
            "              count: --iters, else the newest row's; stored only with --store\n"
            "  --replay FILE  (or --replay=FILE) search a recorded landscape of any kernel instead,\n"
            "              with no device, database or input: below\n"
            "  Prints progress after each evaluation, the best and the runner-up and whether the\n"
            "  best is a winner or a TIE, the evaluations and the device time the search took;\n"
            "  the host is checked before and after the search (load, copy canary).\n"
            "Exit status: 0 done, 1 nothing succeeded or a database problem, 2 bad input\n"
            "(an empty space, a budget of 0, an unknown strategy: nothing stored).\n\n",
            VERDICT_SHAPES);
    tune_replay_file_usage(out);
}

static int parse_int(const char *opt, const char *text, long lo, long hi, long *v) {
    *v = lo;
    if (parse_whole(text, lo, hi, v))
        return fprintf(stderr, "harness: --%s %s: need a whole number in %ld..%ld\n", opt, text, lo, hi), EXIT_USAGE;
    return 0;
}

/* One option (getopt's c, its optarg) into o: 0, -1 after --help, or
 * EXIT_USAGE. */
static int parse_option(int c, struct tune_opts *o) {
    int rc = 0;
    long v;
    switch (c) {
    case 'a': o->app = optarg; break;
    case 'i': o->in.input = optarg; break;
    case 'p': o->in.params = optarg; break;
    case 'o': o->in.obstacles = optarg; break;
    case 'n': rc = parse_int("iters", optarg, 1, 1L << 40, &o->in.iters); break;
    case 'd': o->device = optarg; break;
    case 'v': o->variant = optarg; break;
    case 's': o->strategy = optarg; break;
    case 'B': rc = parse_int("budget", optarg, 1, 1 << 24, &v), o->budget = (int)v; break;
    case 'S': rc = parse_int("seed", optarg, 0, 0xffffffffL, &v), o->seed = (unsigned)v; break;
    case 'r': rc = parse_int("reps", optarg, 1, 1 << 20, &v), o->reps = (int)v, o->reps_set = 1; break;
    case 'u': rc = parse_int("warmup", optarg, 0, 1 << 20, &v), o->warmup = (int)v, o->warmup_set = 1; break;
    case 'O': rc = parse_int("rounds", optarg, 1, 1000, &v), o->rounds = (int)v; break;
    case 'W': rc = parse_int("wg-max", optarg, 1, 1 << 20, &o->wg_max); break;
    case 'c': rc = parse_int("screen", optarg, 1, 1L << 40, &o->screen); break;
    case 'f': rc = parse_int("finalists", optarg, 2, 64, &v), o->finalists = (int)v; break;
    case 'j': o->objective = optarg; break;
    case 'w': o->warm = 1; break;
    case 't':
        o->timeout_set = 1;
        if (parse_real(optarg, 0, DBL_MAX, &o->timeout_s) || !(o->timeout_s > 0))
            rc = (fprintf(stderr, "harness: --timeout %s: need seconds > 0\n", optarg), EXIT_USAGE);
        break;
    case 'R': o->replay = 1; break;
    case 'T': o->store = 1; break;
    case 'P': o->replace = 1; break;
    case 'b': o->db = optarg; break;
    case 'h': usage(stdout); return -1;
    default: usage(stderr); return EXIT_USAGE;
    }
    return rc;
}

/* The options together: a strategy and what it needs, an objective a
 * replay can use, and without a file an app, device, input and one
 * variant (their defaults filled in). 0, or EXIT_USAGE with the reason. */
static int check_opts(struct tune_opts *o) {
    if (!tune_strategy_known(o->strategy)) {
        fprintf(stderr, "harness: tune: %s%s; choose %s\n",
                o->strategy ? "unknown --strategy " : "--strategy is required", o->strategy ? o->strategy : "",
                TUNE_STRATEGIES);
        return EXIT_USAGE;
    }
    if (!o->budget && strcmp(o->strategy, "exhaustive"))
        return fprintf(stderr, "harness: tune: --strategy %s needs --budget N (distinct points to measure)\n",
                       o->strategy),
               EXIT_USAGE;
    if (strcmp(o->objective, "time") && strcmp(o->objective, "energy"))
        return fprintf(stderr, "harness: tune: --objective %s: choose time or energy\n", o->objective), EXIT_USAGE;
    if (!strcmp(o->objective, "energy") && o->replay)
        return fprintf(stderr, "harness: tune: --objective energy cannot be replayed (stored rows keep time)\n"),
               EXIT_USAGE;
    if (o->file) {
        if (o->variant)
            return fprintf(stderr, "harness: tune: %s names the variants; --variant is for tuning without a file\n",
                           o->file),
                   EXIT_USAGE;
        return 0;
    }
    if (!o->variant) o->variant = "final";
    if (!o->app) o->app = "lbm";
    if (!o->device) return fprintf(stderr, "harness: tune: --device is required (or a sweep file)\n"), EXIT_USAGE;
    if (!o->in.input && !o->in.params)
        return fprintf(stderr, "harness: tune: --input is required (or a sweep file)\n"), EXIT_USAGE;
    if (strchr(o->variant, ',') || !strcmp(o->variant, "all"))
        return fprintf(stderr, "harness: tune: one --variant per search, not '%s' (a sweep file searches several)\n",
                       o->variant),
               EXIT_USAGE;
    if (o->store && !o->replay) note("--store is implied without --replay\n");
    return 0;
}

static int parse_opts(int argc, char **argv, struct tune_opts *o) {
    static const struct option longopts[] = {{"app", required_argument, 0, 'a'},
                                             {"input", required_argument, 0, 'i'},
                                             {"params", required_argument, 0, 'p'},
                                             {"obstacles", required_argument, 0, 'o'},
                                             {"iters", required_argument, 0, 'n'},
                                             {"device", required_argument, 0, 'd'},
                                             {"variant", required_argument, 0, 'v'},
                                             {"strategy", required_argument, 0, 's'},
                                             {"budget", required_argument, 0, 'B'},
                                             {"seed", required_argument, 0, 'S'},
                                             {"reps", required_argument, 0, 'r'},
                                             {"warmup", required_argument, 0, 'u'},
                                             {"wg-max", required_argument, 0, 'W'},
                                             {"timeout", required_argument, 0, 't'},
                                             {"replay", no_argument, 0, 'R'},
                                             {"store", no_argument, 0, 'T'},
                                             {"rounds", required_argument, 0, 'O'},
                                             {"db", required_argument, 0, 'b'},
                                             {"replace", no_argument, 0, 'P'},
                                             {"screen", required_argument, 0, 'c'},
                                             {"finalists", required_argument, 0, 'f'},
                                             {"objective", required_argument, 0, 'j'},
                                             {"warm-start", no_argument, 0, 'w'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    *o = (struct tune_opts){.app = NULL,
                            .reps = 5,
                            .warmup = 1,
                            .seed = 1,
                            .wg_max = 1024,
                            .timeout_s = CONFIG_TIMEOUT_S,
                            .rounds = 5,
                            .finalists = 8,
                            .objective = "time"};
    optind = 1;
    int c, rc = 0;
    while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) rc = parse_option(c, o);
    if (rc) return rc;
    if (optind < argc) o->file = argv[optind++];
    if (optind < argc) return fprintf(stderr, "harness: unexpected argument '%s'\n", argv[optind]), EXIT_USAGE;
    return check_opts(o);
}

/* A replay may name a device that is not in this machine by its fingerprint. */
static int is_fingerprint(const char *s) { return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16; }

static const char *secs(char *buf, size_t n, double s) {
    if (s >= 1) snprintf(buf, n, "%.4f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.4f ms", s * 1e3);
    else snprintf(buf, n, "%.2f us", s * 1e6);
    return buf;
}

/* ---- what to search: one entry per device x input ----------------------- */

struct search_def {
    const struct app *app;
    struct app_opts src, src_screen; /* how the inputs were loaded (workers load them again) */
    struct app_input *in, *in_screen;
    const struct device_info *dev; /* NULL: a replay by fingerprint */
    char fp[32], devname[64];
    struct tune_plan plan;
    const char *key_variant; /* the tuned row's variant: TUNED_VARIANT, or the variant tuned */
    int configs;             /* 1: a space of knobs (stored with knobs and name) */
    /* replay: every point's stored figures */
    double *rt, *rnoise;
    int *rsamples;
    long riters;
    int rskipped;
};

struct call {
    struct tune_opts o;
    struct sweep_spec spec;
    int have_spec;
    struct variant_list vars; /* every setting the call names */
    unsigned (*shapes)[2];
    int nshapes;
    struct device_pick pick;
    int nsearch;
    struct search_def s[MAX_SEARCHES];
};

/* Replay: the stored rows of each setting at one step count; keep_measured
 * keeps the points that have one. */
struct replay_load {
    struct store *store;
    struct search_def *d;
    int n;
    struct replay_table *tables; /* per variant of the call */
    char (*knobs)[KNOBS_TEXT_MAX];         /* ... and its canonical knobs */
    long iters;
};

/* The stored row of a setting and shape: its index in the setting's table, or -1. */
static int replay_row(const struct replay_load *rl, const char *knobs, const unsigned wg[2], int *table) {
    for (int v = 0; v < rl->n; v++) {
        if (strcmp(rl->knobs[v], knobs)) continue;
        const struct replay_table *t = &rl->tables[v];
        for (int i = 0; i < t->n; i++)
            if (t->wg[i][0] == wg[0] && t->wg[i][1] == wg[1]) return *table = v, i;
        return -1;
    }
    return -1;
}

static int keep_measured(void *ctx, int variant, const char *knobs, const unsigned wg[2]) {
    int t;
    (void)variant;
    return replay_row(ctx, knobs, wg, &t) >= 0;
}

/* The power-of-two shapes within wg_max (x outer, y inner). */
static int pow2_shapes(long wg_max, unsigned (*out)[2]) {
    int n = 0;
    for (int i = 0; i < POW2_STEPS; i++)
        for (int j = 0; j < POW2_STEPS; j++)
            if ((1L << i) * (1L << j) <= wg_max) out[n][0] = 1u << i, out[n++][1] = 1u << j;
    return n;
}

static int load_input(const struct app *app, const struct app_opts *src, struct app_input **out, const char *where) {
    char err[ERR_MAX];
    if (!(*out = app->input_load(src, err, sizeof err))) {
        fprintf(stderr, "harness: %s%s%s\n", where ? where : "", where ? ": input: " : "", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* A sweep file's call: its app, variants, shapes, repetitions and (unless
 * --device) devices, the command line's options over the file's. 0, or
 * EXIT_USAGE with the reason. */
static int call_load_file(struct call *c, const struct app **app, char *devs_buf, size_t devs_n, const char **devices) {
    struct tune_opts *o = &c->o;
    char err[ERR_MAX];
    if (sweep_parse(o->file, &c->spec, err, sizeof err) != 0) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    c->have_spec = 1;
    if (o->app && strcmp(o->app, c->spec.app))
        return fprintf(stderr, "harness: tune: %s is for app %s, not %s\n", o->file, c->spec.app, o->app), EXIT_USAGE;
    if (!(*app = cli_app(c->spec.app))) return EXIT_USAGE;
    struct variant_list named;
    if (variants_load_app((*app)->name, (*app)->knobs, &named, err, sizeof err) != 0)
        return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    int rc = sweep_variants(&c->spec, (*app)->knobs, &named, &c->vars, err, sizeof err);
    variants_free(&named);
    if (rc) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    if (c->spec.nshapes) {
        c->shapes = xcalloc((size_t)c->spec.nshapes, sizeof *c->shapes);
        memcpy(c->shapes, c->spec.shapes, sizeof *c->shapes * (size_t)c->spec.nshapes);
        c->nshapes = c->spec.nshapes;
    } else {
        c->shapes = xcalloc(POW2_STEPS * POW2_STEPS, sizeof *c->shapes);
        c->nshapes = pow2_shapes(o->wg_max, c->shapes);
    }
    if (!o->reps_set) o->reps = c->spec.reps;
    if (!o->warmup_set) o->warmup = c->spec.warmup;
    if (!o->timeout_set) o->timeout_s = c->spec.timeout_s;
    if (!*devices) {
        for (int i = 0; i < c->spec.ndevices; i++)
            snprintf(devs_buf + strlen(devs_buf), devs_n - strlen(devs_buf), "%s%s", i ? "," : "", c->spec.devices[i]);
        *devices = c->spec.ndevices ? devs_buf : "all";
    }
    return 0;
}

/* Search d: input i (the file's, or the command line's) on device dv (none
 * for a replay by fingerprint), loaded, with its screening input, and able
 * to measure what the objective asks. 0, or the exit status. */
static int search_setup(struct call *c, struct search_def *d, const struct app *app, int dv, int i, int by_fp,
                        const char *devices) {
    const struct tune_opts *o = &c->o;
    memset(d, 0, sizeof *d);
    d->app = app;
    d->src = o->in;
    if (o->file && !o->in.input && !o->in.params) d->src.input = c->spec.inputs[i];
    if (!d->src.iters && o->file) d->src.iters = c->spec.iters;
    char where[1200] = "";
    if (o->file && d->src.input == c->spec.inputs[i])
        snprintf(where, sizeof where, "%s:%d", o->file, c->spec.input_lines[i]);
    int rc = load_input(app, &d->src, &d->in, *where ? where : NULL);
    if (rc) return rc;
    if (o->screen && o->screen < app->input_iters(d->in)) {
        d->src_screen = d->src;
        d->src_screen.iters = o->screen;
        if ((rc = load_input(app, &d->src_screen, &d->in_screen, NULL)) != 0) return rc;
    }
    d->dev = by_fp ? NULL : &c->pick.all[c->pick.idx[dv]];
    if (d->dev && !strcmp(o->objective, "energy")) { /* a search that could measure nothing */
        char why[256] = "";
        struct energy_meter *em = energy_open_why(d->dev, why, sizeof why);
        if (!em)
            return fprintf(stderr, "harness: tune --objective energy: %s reports no energy%s%s\n", d->dev->spec,
                           *why ? ": " : " (an NVIDIA GPU with NVML has a meter)", why),
                   EXIT_USAGE;
        energy_close(em);
    }
    str_copy(d->fp, sizeof d->fp, d->dev ? d->dev->fingerprint : devices);
    str_copy(d->devname, sizeof d->devname, d->dev ? d->dev->spec : devices);
    d->configs = o->file != NULL;
    d->key_variant = d->configs ? TUNED_VARIANT : c->vars.v[0].name;
    return 0;
}

/* Everything the call names, checked: exit 2 on anything wrong, before any
 * database is opened. */
static int call_load(struct call *c) {
    struct tune_opts *o = &c->o;
    const char *devices = o->device;
    char devs_buf[1024] = "";
    const struct app *app;
    if (o->file) {
        int rc = call_load_file(c, &app, devs_buf, sizeof devs_buf, &devices);
        if (rc) return rc;
    } else {
        if (!(app = cli_app(o->app))) return EXIT_USAGE;
        if (cli_variants(app, o->variant, NULL, &c->vars) != 0) return EXIT_USAGE;
        c->shapes = xcalloc(POW2_STEPS * POW2_STEPS, sizeof *c->shapes);
        c->nshapes = pow2_shapes(o->wg_max, c->shapes);
    }
    /* Devices: a replay may name a fingerprint of a device not here. */
    int by_fp = o->replay && devices && is_fingerprint(devices);
    if (!by_fp) {
        int rc = o->file ? cli_devices_kinds_optional(devices, &c->pick) : cli_devices(devices, &c->pick);
        if (rc) return rc;
        if (!c->pick.count)
            return fprintf(stderr, "harness: tune: no device of the kinds named (%s) here\n", devices), EXIT_USAGE;
        if (!o->file && c->pick.count != 1)
            return fprintf(stderr, "harness: tune: '%s' names %d devices; a sweep file tunes several\n", devices,
                           c->pick.count),
                   EXIT_USAGE;
    }
    const int ndev = by_fp ? 1 : c->pick.count;
    const int ninputs = o->file && !o->in.input && !o->in.params ? c->spec.ninputs : 1;
    if ((long)ndev * ninputs > MAX_SEARCHES)
        return fprintf(stderr, "harness: tune: %d devices x %d inputs is more than %d searches in one call\n", ndev,
                       ninputs, MAX_SEARCHES),
               EXIT_USAGE;
    for (int dv = 0; dv < ndev; dv++)
        for (int i = 0; i < ninputs; i++) {
            int rc = search_setup(c, &c->s[c->nsearch++], app, dv, i, by_fp, devices);
            if (rc) return rc;
        }
    return 0;
}

/* The space of each search; in a replay, only what was measured. Exit 2
 * when a space is empty (nothing to search), 1 for a replay with nothing
 * stored. */
static int call_plan(struct call *c, struct store *store) {
    char err[ERR_MAX];
    for (int k = 0; k < c->nsearch; k++) {
        struct search_def *d = &c->s[k];
        const struct app *app = d->app;
        struct replay_load rl = {store, d, c->vars.n, NULL, NULL, c->o.in.iters};
        if (c->o.replay) {
            rl.tables = xcalloc((size_t)c->vars.n, sizeof *rl.tables);
            rl.knobs = xcalloc((size_t)c->vars.n, sizeof *rl.knobs);
            for (int v = 0; v < c->vars.n; v++) {
                char *knobs = rl.knobs[v];
                knobs_canonical(&c->vars.v[v].knobs, knobs, sizeof rl.knobs[v]);
                if (store_replay_load_iters(store, d->fp, app->name, app->input_name(d->in), knobs, rl.iters,
                                            &rl.tables[v]) != 0) {
                    fprintf(stderr, "harness: %s\n", store_errmsg(store));
                    return EXIT_FOUND;
                }
                if (!rl.iters && rl.tables[v].n) rl.iters = rl.tables[v].iters; /* the first setting's newest */
                else if (rl.tables[v].n && rl.tables[v].iters != rl.iters) {
                    replay_free(&rl.tables[v]); /* measured at another step count only */
                    store_replay_load_iters(store, d->fp, app->name, app->input_name(d->in), knobs, rl.iters,
                                            &rl.tables[v]);
                }
                d->rskipped += rl.tables[v].skipped;
            }
        }
        int rc =
            tune_plan_build(&d->plan, app, d->in, d->dev, &c->vars, (const unsigned(*)[2])c->shapes, c->nshapes,
                            c->have_spec ? &c->spec : NULL, c->o.replay ? keep_measured : NULL, &rl, err, sizeof err);
        if (rc) {
            fprintf(stderr, "harness: tune: %s\n", err);
            rc = EXIT_USAGE;
        } else if (!d->plan.n && c->o.replay) {
            fprintf(stderr, "harness: tune --replay: no ok measurements of %s %s%s on %s%s in the database\n",
                    app->name, app->input_name(d->in), d->configs ? " in this space" : "", d->devname,
                    c->o.in.iters ? " at --iters" : "");
            rc = EXIT_FOUND;
        } else if (!d->plan.n) {
            fprintf(stderr,
                    "harness: tune: the space is empty for %s %s on %s: %d points, %d left out by constraints, %d "
                    "invalid (%s); nothing stored\n",
                    app->name, app->input_name(d->in), d->devname, d->plan.considered, d->plan.constrained,
                    d->plan.invalid, *d->plan.why ? d->plan.why : "no shape fits --wg-max");
            rc = EXIT_USAGE;
        }
        if (!rc && c->o.replay) { /* every point's figures, from its setting's table */
            d->rt = xcalloc((size_t)d->plan.n, sizeof *d->rt);
            d->rnoise = xcalloc((size_t)d->plan.n, sizeof *d->rnoise);
            d->rsamples = xcalloc((size_t)d->plan.n, sizeof *d->rsamples);
            d->riters = rl.iters;
            for (int i = 0; i < d->plan.n; i++) {
                int t;
                const int q = replay_row(&rl, d->plan.knobs[d->plan.pt[i].variant], d->plan.pt[i].wg, &t);
                d->rt[i] = rl.tables[t].median[q], d->rnoise[i] = rl.tables[t].noise[q];
                d->rsamples[i] = rl.tables[t].samples[q];
            }
        }
        for (int v = 0; rl.tables && v < c->vars.n; v++) replay_free(&rl.tables[v]);
        free(rl.tables);
        free(rl.knobs);
        if (rc) return rc;
    }
    return 0;
}

/* ---- live evaluation --------------------------------------------------- */

struct live {
    const struct call *c;
    struct search_def *d;
    struct worker_pool *pool;
    struct store *store;
    int64_t run_id;
    double peak;
    struct ref_holder refs, refs_screen;
    int measured, planned;
    struct progress pr;       /* the line after each evaluation */
    double started, device_s; /* device_s: wall seconds inside measurements */
    double *seen;             /* per point: its figure at the search's length; NAN unseen, INFINITY failed */
    double *full;             /* per point: at full length (screening only) */
};

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

/* The configuration of point i at full length or at the screening length. */
static void point_config(const struct live *l, int i, int screen, struct config *cfg) {
    const struct search_def *d = l->d;
    const struct variant *v = &d->plan.vars.v[d->plan.pt[i].variant];
    memset(cfg, 0, sizeof *cfg);
    cfg->app = d->app;
    cfg->in = screen ? d->in_screen : d->in;
    cfg->source = screen ? &d->src_screen : &d->src;
    cfg->knobs = v->knobs;
    str_copy(cfg->variant, sizeof cfg->variant, v->name);
    cfg->wg[0] = d->plan.pt[i].wg[0], cfg->wg[1] = d->plan.pt[i].wg[1];
}

static const char *point_name(const struct search_def *d, int i) { return d->plan.vars.v[d->plan.pt[i].variant].name; }

/* After each evaluation: how far the search is, the time left at the pace
 * so far (the finalists and the verdict come on top), the best so far. */
static void progress(struct live *l) {
    int b = -1;
    for (int i = 0; i < l->d->plan.n; i++)
        if (isfinite(l->seen[i]) && (b < 0 || l->seen[i] < l->seen[b])) b = i;
    char best[320] = "best so far: none yet", fig[32];
    if (b >= 0) {
        if (strcmp(l->c->o.objective, "energy")) secs(fig, sizeof fig, l->seen[b]);
        else snprintf(fig, sizeof fig, "%.4g J", l->seen[b]);
        snprintf(best, sizeof best, "best so far %ux%u %s%s%s", l->d->plan.pt[b].wg[0], l->d->plan.pt[b].wg[1], fig,
                 l->d->configs ? " " : "", l->d->configs ? point_name(l->d, b) : "");
    }
    l->pr.total = l->planned;
    progress_update(&l->pr, l->measured, best);
}

/* Measures one configuration in a worker and stores the row; the figure
 * the objective asks for, or -1 when it failed. */
static double measure(struct live *l, const struct config *cfg, int screen, double *noise) {
    char err[ERR_MAX];
    struct measurement m = {0};
    const double t0 = clock_now();
    runner_measure_isolated(l->pool, l->d->dev, cfg, screen ? &l->refs_screen : &l->refs, l->c->o.warmup, l->c->o.reps,
                            l->c->o.timeout_s, &m);
    l->device_s += clock_now() - t0;
    double v = -1;
    if (!harness_interrupted) { /* an interrupted row says nothing about the point */
        progress_end(&l->pr);   /* a terminal's progress line makes way */
        runner_print(stdout, l->d->dev, &m, l->peak);
        if (l->run_id >= 0 && store_measurement(l->store, l->run_id, &m, err, sizeof err) != 0)
            fprintf(stderr, "harness: %s\n", err);
        if (m.status == ST_OK && m.median > 0) {
            *noise = (m.q3 - m.q1) / m.median;
            v = m.median;
            if (!strcmp(l->c->o.objective, "energy")) {
                v = m.energy_j > 0 ? m.energy_j : -1;
                if (v < 0) note("%s reports no energy for this run: counted as failed\n", l->d->devname);
            }
        }
    }
    measurement_free(&m);
    return v;
}

static double live_eval(void *ctx, int point, double *noise) {
    struct live *l = ctx;
    if (harness_interrupted) return -1; /* spend what is left of the budget at once */
    struct config cfg;
    point_config(l, point, l->d->in_screen != NULL, &cfg);
    const double v = measure(l, &cfg, l->d->in_screen != NULL, noise);
    if (!harness_interrupted) {
        l->measured++;
        l->seen[point] = v > 0 ? v : INFINITY;
        progress(l);
    }
    return v;
}

/* ---- replay evaluation ------------------------------------------------- */

struct replay_ctx {
    struct search_def *d;
    int count;
};

static double replay_point_eval(void *ctx, int point, double *noise) {
    struct replay_ctx *r = ctx;
    const struct search_def *d = r->d;
    const double t = d->rt[point];
    *noise = d->rnoise[point];
    char a[32];
    printf("  %3d  %4ux%-4u  %s", ++r->count, d->plan.pt[point].wg[0], d->plan.pt[point].wg[1], secs(a, sizeof a, t));
    if (!isnan(*noise)) printf("  IQR %.1f%%", 100 * *noise);
    if (d->configs) printf("  %s", point_name(d, point));
    printf("\n");
    return t > 0 ? t : -1;
}

/* ---- warm start: the same configurations measured elsewhere ------------ */

struct prior_build {
    const struct search_def *d;
    double *best; /* per point, per source: the fastest ok median */
    char (*source)[160];
    int nsources;
};

#define PRIOR_SOURCES 16

static void prior_row(void *ctx, const char *fp, const char *input, long iters, const char *knobs, const unsigned wg[2],
                      double median) {
    struct prior_build *pb = ctx;
    char src[160];
    snprintf(src, sizeof src, "%s %s %ld steps", fp, input, iters);
    const int i = tune_plan_find(&pb->d->plan, knobs, wg);
    if (i < 0) return;
    int s = 0;
    while (s < pb->nsources && strcmp(pb->source[s], src)) s++;
    if (s == pb->nsources) {
        if (s == PRIOR_SOURCES) return;
        str_copy(pb->source[pb->nsources++], sizeof pb->source[0], src);
    }
    double *b = &pb->best[(size_t)s * pb->d->plan.n + i];
    if (isnan(*b) || median < *b) *b = median;
}

/* The source (device, input, step count) with the most points of this
 * space measured, as the search's prior; 0 points when there is none. */
static void warm_start(struct store *store, const struct search_def *d, struct tune_prior *pr, int **point,
                       double **secs_out) {
    const int n = d->plan.n;
    struct prior_build pb = {d, xcalloc((size_t)n * PRIOR_SOURCES, sizeof(double)),
                             xcalloc(PRIOR_SOURCES, sizeof *pb.source), 0};
    for (size_t k = 0; k < (size_t)n * PRIOR_SOURCES; k++) pb.best[k] = NAN;
    store_tune_prior_rows(store, d->app->name, d->fp, d->app->input_name(d->in), prior_row, &pb);
    int bs = -1, bc = 0;
    for (int s = 0; s < pb.nsources; s++) {
        int cnt = 0;
        for (int i = 0; i < n; i++) cnt += !isnan(pb.best[(size_t)s * n + i]);
        if (cnt > bc) bc = cnt, bs = s;
    }
    *point = xcalloc((size_t)bc + 1, sizeof **point);
    *secs_out = xcalloc((size_t)bc + 1, sizeof **secs_out);
    pr->n = 0;
    for (int i = 0; bs >= 0 && i < n; i++)
        if (!isnan(pb.best[(size_t)bs * n + i]))
            (*point)[pr->n] = i, (*secs_out)[pr->n++] = pb.best[(size_t)bs * n + i];
    pr->point = *point, pr->seconds = *secs_out;
    if (bs >= 0) printf("warm start   %d points of this space measured on %s\n", pr->n, pb.source[bs]);
    else printf("warm start   nothing of this space measured elsewhere in the database: a cold start\n");
    free(pb.best);
    free(pb.source);
}

/* ---- finalists and the verdict ------------------------------------------ */

/* The k best points by fig (ascending), skipping NAN and INFINITY. */
static int top_points(const double *fig, int n, int k, int *out) {
    int m = 0;
    for (int q = 0; q < k; q++) {
        int b = -1;
        for (int i = 0; i < n; i++) {
            if (!isfinite(fig[i])) continue;
            int used = 0;
            for (int j = 0; j < m; j++) used |= out[j] == i;
            if (!used && (b < 0 || fig[i] < fig[b])) b = i;
        }
        if (b < 0) break;
        out[m++] = b;
    }
    return m;
}

/* Screening: the finalists measured at full length. */
static void finalists(struct live *l) {
    const int n = l->d->plan.n;
    int *pick = xcalloc((size_t)l->c->o.finalists, sizeof *pick);
    const int m = top_points(l->seen, n, l->c->o.finalists, pick);
    printf("\nfinalists: the %d best of the %ld-step search at full length (%ld steps)\n", m, l->c->o.screen,
           l->d->app->input_iters(l->d->in));
    fflush(stdout);
    for (int k = 0; k < m && !harness_interrupted; k++) {
        struct config cfg;
        double noise = NAN;
        point_config(l, pick[k], 0, &cfg);
        const double v = measure(l, &cfg, 0, &noise);
        l->full[pick[k]] = v > 0 ? v : INFINITY;
    }
    free(pick);
}

/* The stored configuration of this key, as a candidate; 0, or -1 when none
 * (or it no longer parses: a knob renamed since). */
static int stored_candidate(struct store *store, const struct search_def *d, struct tuned_config *tc,
                            struct verdict_cand *out) {
    if (store_tuned_get_config(store, d->fp, d->app->name, d->app->input_name(d->in), d->key_variant, tc) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->cfg.app = d->app;
    out->cfg.in = d->in;
    out->cfg.source = &d->src;
    out->cfg.wg[0] = tc->wg[0], out->cfg.wg[1] = tc->wg[1];
    if (d->configs) {
        char err[ERR_MAX];
        knobs_init(&out->cfg.knobs, d->app->knobs);
        if (knobs_apply(&out->cfg.knobs, tc->knobs, err, sizeof err) != 0) return -1;
        str_copy(out->cfg.variant, sizeof out->cfg.variant, tc->config);
    } else {
        out->cfg.knobs = d->plan.vars.v[0].knobs;
        str_copy(out->cfg.variant, sizeof out->cfg.variant, d->plan.vars.v[0].name);
    }
    char knobs[KNOBS_TEXT_MAX];
    knobs_canonical(&out->cfg.knobs, knobs, sizeof knobs);
    out->point = tune_plan_find(&d->plan, knobs, out->cfg.wg);
    return 0;
}

/* What the search decided, as configurations. */
struct outcome {
    struct tune_result r;      /* figures (best_s, margin, noise, tie, evaluations) */
    struct verdict_cand best;  /* the winner (or the best of a tie) */
    struct verdict_cand other; /* the runner-up; point -2 when there is none */
    int by_rounds, samples;
    int stored; /* a row was stored before */
    struct verdict_cand stored_c;
    int judged; /* the verdict measured the stored one against the best */
    double stored_margin, stored_p;
};

static void cand_of_point(const struct live *l, int i, struct verdict_cand *c) {
    memset(c, 0, sizeof *c);
    point_config(l, i, 0, &c->cfg);
    c->point = i;
}

/* Each verdict round as it comes, stored: the candidate's row, then its
 * later rounds' samples (verdict_env.keep). */
static void verdict_keep(void *ctx, struct round_job *j, int round, int first_sample) {
    const struct live *l = ctx;
    (void)round;
    char err[512];
    int rc = j->mid > 0       ? store_measurement_more(l->store, j->mid, &j->m, first_sample, err, sizeof err)
             : l->run_id >= 0 ? store_measurement_id(l->store, l->run_id, &j->m, &j->mid, err, sizeof err)
                              : 0;
    if (rc != 0) fprintf(stderr, "harness: %s\n", err);
}

/* The verdict among the best the search found (by full-length figures when
 * it screened) and the stored configuration. */
static void judge(struct live *l, struct outcome *oc) {
    const struct tune_opts *o = &l->c->o;
    const double *fig = l->d->in_screen ? l->full : l->seen;
    const int n = l->d->plan.n;
    int pick[VERDICT_SHAPES];
    int m = top_points(fig, n, VERDICT_SHAPES, pick);
    while (m > 2 && fig[pick[m - 1]] > fig[pick[0]] * (1 + VERDICT_CLOSE)) m--; /* the close ones only */
    if (m >= 1) {
        oc->r.best = pick[0], oc->r.best_s = fig[pick[0]];
        cand_of_point(l, pick[0], &oc->best);
    }
    oc->other.point = -2;
    if (m >= 2) {
        oc->r.runner_up = pick[1], oc->r.runner_up_s = fig[pick[1]];
        cand_of_point(l, pick[1], &oc->other);
        oc->r.margin = oc->r.runner_up_s / oc->r.best_s - 1;
        oc->r.noise = 0.005;
        oc->r.tie = tune_tied(oc->r.best_s, 0, oc->r.runner_up_s, 0);
    } else {
        oc->r.runner_up_s = oc->r.margin = NAN;
    }
    if (m < 1 || o->rounds < 2 || !strcmp(o->objective, "energy") || harness_interrupted) return;
    struct verdict_cand c[VERDICT_MAX];
    int nc = 0, stored_k = -1;
    for (int k = 0; k < m; k++) {
        cand_of_point(l, pick[k], &c[nc]);
        if (oc->stored && oc->stored_c.point == pick[k]) stored_k = nc;
        nc++;
    }
    if (oc->stored && !o->replace && stored_k < 0) { /* not among the best the search saw: measured here */
        stored_k = nc;
        c[nc++] = oc->stored_c;
    }
    if (nc < 2) return;
    struct verdict_env env = {.pool = l->pool,
                              .dev = l->d->dev,
                              .keep = verdict_keep,
                              .keep_ctx = l,
                              .peak = l->peak,
                              .warmup = o->warmup,
                              .reps = o->reps,
                              .rounds = o->rounds,
                              .timeout_s = o->timeout_s,
                              .seed = o->seed};
    struct verdict_out v;
    const double t0 = clock_now();
    const int ok = verdict_rounds(&env, c, nc, stored_k, &v) == 0;
    l->device_s += clock_now() - t0;
    if (!ok) return;
    oc->by_rounds = 1;
    oc->samples = o->rounds * rounds_reps_each(o->reps, o->rounds);
    oc->best = c[v.best], oc->other = c[v.runner_up];
    oc->r.best = c[v.best].point, oc->r.runner_up = c[v.runner_up].point;
    oc->r.best_s = v.best_s, oc->r.runner_up_s = v.runner_up_s;
    oc->r.margin = v.margin, oc->r.noise = v.noise, oc->r.tie = v.tie;
    oc->judged = v.stored_judged, oc->stored_margin = v.stored_margin, oc->stored_p = v.stored_p;
}

/* ---- report and decision ------------------------------------------------- */

static void print_cand(const char *label, const struct verdict_cand *c, const struct search_def *d, double s,
                       const char *obj) {
    char a[32];
    if (!strcmp(obj, "energy")) snprintf(a, sizeof a, "%.4g J", s);
    else secs(a, sizeof a, s);
    printf("%-12s %ux%u  %s %s", label, c->cfg.wg[0], c->cfg.wg[1], !strcmp(obj, "energy") ? "energy" : "median", a);
    if (d->configs) printf("  %s", c->cfg.variant);
}

static void report(const struct tune_opts *o, const struct search_def *d, const struct outcome *oc,
                   const struct live *l) {
    printf("\nstrategy     %s", o->strategy);
    if (strcmp(o->strategy, "exhaustive")) printf(" (seed %u, budget %d)", o->seed, o->budget);
    printf("\nevaluations  %d of %d %s", oc->r.evaluations, d->plan.n, d->configs ? "points" : "shapes");
    if (l) printf(" in %.1f s of measuring (%.1f s in all)", l->device_s, clock_now() - l->started);
    printf("\n");
    print_cand("best", &oc->best, d, oc->r.best_s, o->objective);
    printf("\n");
    if (oc->other.point == -2) {
        printf("runner-up    none (nothing else succeeded)\n");
        printf("verdict      winner by default: nothing to compare it with\n");
        return;
    }
    print_cand("runner-up", &oc->other, d, oc->r.runner_up_s, o->objective);
    printf("  margin %+.2f%%\n", 100 * oc->r.margin);
    if (oc->by_rounds)
        printf("noise        %.2f%% (the sd of their round-for-round differences over %d rounds)\n", 100 * oc->r.noise,
               o->rounds);
    else printf("noise        %.2f%% (the larger relative IQR of the two; never below 0.5%%)\n", 100 * oc->r.noise);
    /* A noise past 50 % is not a measurement to decide by (a 54051 % noise
     * once called a +3252 % margin a tie without a word). */
    if (oc->r.noise > 0.5)
        printf("warning      a noise of %.0f%% says these timings cannot decide anything (a busy host, or runs too short"
               " for the clock): tune again when the host is quiet, or with more steps (--iters)\n",
               100 * oc->r.noise);
    if (oc->r.tie)
        printf("verdict      TIE (%s): %ux%u%s%s and %ux%u%s%s cannot be told apart; either will do\n",
               oc->by_rounds ? "not ahead round for round" : "within noise", oc->best.cfg.wg[0], oc->best.cfg.wg[1],
               d->configs ? " " : "", d->configs ? oc->best.cfg.variant : "", oc->other.cfg.wg[0], oc->other.cfg.wg[1],
               d->configs ? " " : "", d->configs ? oc->other.cfg.variant : "");
    else
        printf("verdict      winner: %ux%u%s%s\n", oc->best.cfg.wg[0], oc->best.cfg.wg[1], d->configs ? " " : "",
               d->configs ? oc->best.cfg.variant : "");
}

static int same_config(const struct verdict_cand *a, const struct verdict_cand *b) {
    char x[KNOBS_TEXT_MAX], y[KNOBS_TEXT_MAX];
    knobs_canonical(&a->cfg.knobs, x, sizeof x);
    knobs_canonical(&b->cfg.knobs, y, sizeof y);
    return a->cfg.wg[0] == b->cfg.wg[0] && a->cfg.wg[1] == b->cfg.wg[1] && !strcmp(x, y);
}

/* What becomes of the stored row: a search's best replaces a stored
 * configuration only when the verdict measured both and the new one beats
 * it round for round (or on --replace); a search without that evidence
 * (--rounds 1, a replay, the energy objective) leaves it. A genetic search
 * on a budget of 10 once stored a shape 2.2x slower than the one an
 * exhaustive search had stored. */
static void decide(const struct tune_opts *o, const struct outcome *oc, struct tuned_decision *d) {
    const unsigned *s = oc->stored_c.cfg.wg, *b = oc->best.cfg.wg;
    if (!oc->stored) {
        d->decision = "new";
        str_copy(d->why, sizeof d->why, "nothing was stored for this device and input");
    } else if (same_config(&oc->stored_c, &oc->best)) {
        d->decision = "confirmed";
        str_fmt(d->why, sizeof d->why, "the stored %ux%u is the best again (its figures updated)", s[0], s[1]);
    } else if (o->replace) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "--replace: %ux%u stored over %ux%u without a verdict between them", b[0], b[1],
                s[0], s[1]);
    } else if (oc->judged && verdict_beats(oc->stored_p, oc->stored_margin)) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "%ux%u beats the stored %ux%u round for round by %.2f %% (p %.2g)", b[0], b[1],
                s[0], s[1], 100 * oc->stored_margin, oc->stored_p);
    } else if (oc->judged) {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u does not beat the stored %ux%u round for round (%+.2f %%, p %.2g): the stored row stays "
                "(--replace stores the new one anyway)",
                b[0], b[1], s[0], s[1], 100 * oc->stored_margin, oc->stored_p);
    } else {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u was not measured against the stored %ux%u in rounds (%s): the stored row stays "
                "(--replace stores the new one anyway)",
                b[0], b[1], s[0], s[1],
                o->replay                         ? "a replay"
                : !strcmp(o->objective, "energy") ? "the energy objective"
                                                  : "--rounds 1 or too few points");
    }
}

/* In a replay the whole table is known, so how far the pick is from the best
 * measured point is known too: the measure of a strategy. */
static void replay_regret(const struct search_def *d, const struct outcome *oc) {
    int b = 0;
    for (int i = 1; i < d->plan.n; i++)
        if (d->rt[i] < d->rt[b]) b = i;
    char a[32];
    printf("best known   %ux%u  median %s  (the pick is %+.2f%% from it)%s%s\n", d->plan.pt[b].wg[0],
           d->plan.pt[b].wg[1], secs(a, sizeof a, d->rt[b]), 100 * (oc->r.best_s / d->rt[b] - 1),
           d->configs ? "  " : "", d->configs ? point_name(d, b) : "");
}

static int store_outcome(struct store *store, const struct tune_opts *o, const struct search_def *d,
                         const struct outcome *oc, double search_s, long iters) {
    char err[ERR_MAX], knobs[KNOBS_TEXT_MAX];
    knobs_canonical(&oc->best.cfg.knobs, knobs, sizeof knobs);
    struct tuned_decision dec = {.wg = {oc->best.cfg.wg[0], oc->best.cfg.wg[1]},
                                 .strategy = o->strategy,
                                 .budget = strcmp(o->strategy, "exhaustive") ? o->budget : 0,
                                 .iters = iters,
                                 .knobs = d->configs ? knobs : NULL,
                                 .config = d->configs ? oc->best.cfg.variant : NULL,
                                 .objective = o->objective,
                                 .search_s = search_s};
    decide(o, oc, &dec);
    printf("decision     %s: %s\n", dec.decision, dec.why);
    const int keep = !strcmp(dec.decision, "kept");
    struct tuned_put put = {.wg = {oc->best.cfg.wg[0], oc->best.cfg.wg[1]},
                            .knobs = dec.knobs,
                            .config = dec.config,
                            .objective = o->objective,
                            .strategy = o->strategy,
                            .samples = oc->samples,
                            .evaluations = oc->r.evaluations,
                            .search_s = search_s,
                            .energy_j = !strcmp(o->objective, "energy") ? oc->r.best_s : NAN};
    const char *in = d->app->input_name(d->in);
    if ((!keep &&
         store_tuned_put(store, d->fp, d->app->name, in, d->key_variant, &oc->r, &put, err, sizeof err) != 0) ||
        store_tuned_history_add(store, d->fp, d->app->name, in, d->key_variant, &oc->r, &dec, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_FOUND;
    }
    if (!keep && d->configs)
        printf("stored       as the tuned configuration for %s %s on %s (`harness run --variant tuned` runs it)\n",
               d->app->name, in, d->devname);
    else if (!keep)
        printf("stored       as the tuned work-group for %s %s %s on %s (`harness run` uses it without --wg)\n",
               d->app->name, in, d->key_variant, d->devname);
    return 0;
}

/* ---- one search ------------------------------------------------------------ */

/* --replay: the strategy over the stored points, nothing run. 1 when it
 * found a best (oc filled from the stored figures). */
static int search_replay(const struct tune_opts *o, struct search_def *d, struct live *l, struct outcome *oc,
                         const struct tuned_config *tc) {
    printf("tune --replay %s %s on %s: %d measured %s at %ld steps", d->app->name, d->app->input_name(d->in),
           d->devname, d->plan.n, d->configs ? "points" : "shapes", d->riters);
    if (d->rskipped) printf(" (%d measured only at other step counts left out)", d->rskipped);
    printf("\n");
    if (oc->stored && o->store)
        printf("stored       %ux%u, tuned before: a new best replaces it only when it beats it round for round\n",
               tc->wg[0], tc->wg[1]);
    fflush(stdout);
    struct replay_ctx ctx = {d, 0};
    const int found =
        tune_search(o->strategy, &d->plan.space, o->budget, o->seed, replay_point_eval, &ctx, &oc->r) == 0;
    if (found) {
        cand_of_point(l, oc->r.best, &oc->best);
        oc->other.point = -2;
        if (oc->r.runner_up >= 0) cand_of_point(l, oc->r.runner_up, &oc->other);
        oc->samples = d->rsamples[oc->r.best];
    }
    return found;
}

/* A live search's first lines: what is searched, and the stored
 * configuration it has to beat. */
static void live_header(const struct call *c, const struct search_def *d, const struct outcome *oc,
                        const struct tuned_config *tc) {
    printf("tune %s %s (%ld steps%s) on %s [%s]: %d valid %s", d->app->name, d->app->input_name(d->in),
           d->app->input_iters(d->in), d->in_screen ? ", screened at fewer" : "", d->devname, d->fp, d->plan.n,
           d->configs ? "points" : "shapes");
    if (d->configs)
        printf(" (%d settings x %d shapes: %d left out by constraints, %d invalid)", d->plan.vars.n, c->nshapes,
               d->plan.constrained, d->plan.invalid);
    else printf(" of %s", d->plan.vars.v[0].name);
    printf("\n");
    if (oc->stored)
        printf("stored       %ux%u%s%s, tuned before: a new best replaces it only when it beats it round for round\n",
               tc->wg[0], tc->wg[1], d->configs ? " " : "", d->configs ? tc->config : "");
    fflush(stdout);
}

/* What the search came to: interrupted, nothing found, or the best
 * reported and (live, or a replay with --store) stored. Its exit status. */
static int conclude(struct store *store, const struct tune_opts *o, struct search_def *d, struct outcome *oc,
                    struct live *l, int found, int disturbed) {
    if (harness_interrupted) {
        fprintf(stderr, "harness: tune interrupted after %d measured points (stored); nothing decided\n", l->measured);
        return EXIT_FOUND;
    }
    if (!found) {
        fprintf(stderr, "harness: tune: nothing succeeded on %s %s (%d evaluated)\n", d->devname,
                d->app->input_name(d->in), oc->r.evaluations);
        return EXIT_FOUND;
    }
    report(o, d, oc, o->replay ? NULL : l);
    if (disturbed)
        printf("host         DISTURBED while tuning (above): the verdict may be the host's; tune again when it is "
               "quiet\n");
    if (o->replay) replay_regret(d, oc);
    if (!o->replay || o->store)
        return store_outcome(store, o, d, oc, o->replay ? NAN : l->device_s,
                             o->replay ? d->riters : d->app->input_iters(d->in));
    return 0;
}

static int run_search(struct call *c, struct search_def *d, struct store *store, int argc, char **argv) {
    const struct tune_opts *o = &c->o;
    struct outcome oc = {0};
    oc.samples = o->reps;
    struct tuned_config tc;
    oc.stored = stored_candidate(store, d, &tc, &oc.stored_c) == 0;
    struct tune_prior prior = {0};
    int *prior_pt = NULL;
    double *prior_s = NULL;
    if (o->warm) {
        warm_start(store, d, &prior, &prior_pt, &prior_s);
        d->plan.space.prior = prior.n ? &prior : NULL;
    }
    int found, disturbed = 0;
    struct live l = {.c = c, .d = d, .store = store, .run_id = -1, .started = clock_now()};
    progress_start(&l.pr, "tune", 0);
    if (o->replay) {
        found = search_replay(o, d, &l, &oc, &tc);
    } else {
        live_header(c, d, &oc, &tc);
        char command[1024], err[ERR_MAX];
        cli_command_line(argc, argv, command, sizeof command);
        l.pool = pool_open();
        l.planned = strcmp(o->strategy, "exhaustive") && o->budget < d->plan.n ? o->budget : d->plan.n;
        l.refs = (struct ref_holder){d->app, d->in, NULL};
        l.refs_screen = (struct ref_holder){d->app, d->in_screen, NULL};
        l.peak = store_peak_gbs(store, d->dev);
        l.seen = xcalloc((size_t)d->plan.n, sizeof *l.seen);
        l.full = xcalloc((size_t)d->plan.n, sizeof *l.full);
        for (int i = 0; i < d->plan.n; i++) l.seen[i] = l.full[i] = NAN;
        l.run_id = store_run_begin(store, d->dev, command, err, sizeof err);
        if (l.run_id < 0) fprintf(stderr, "harness: %s\n", err);
        struct host_check hc;
        cli_host_check(store, d->dev->spec, 1, &hc);
        host_check_print(stdout, "before", &hc);
        disturbed |= hc.disturbed;
        found = tune_search(o->strategy, &d->plan.space, o->budget, o->seed, live_eval, &l, &oc.r) == 0;
        progress_end(&l.pr);
        const int evaluations = oc.r.evaluations;
        if (found && d->in_screen && !harness_interrupted) finalists(&l);
        if (found && !harness_interrupted) judge(&l, &oc);
        oc.r.evaluations = evaluations;
        found &= oc.best.cfg.app != NULL;
        cli_host_check(store, d->dev->spec, 1, &hc);
        host_check_print(stdout, "after", &hc);
        disturbed |= hc.disturbed;
        if (l.run_id >= 0) store_run_end(store, l.run_id);
        pool_close(l.pool);
        if (l.refs.ref) d->app->ref_free(l.refs.ref);
        if (l.refs_screen.ref) d->app->ref_free(l.refs_screen.ref);
    }
    const int rc = conclude(store, o, d, &oc, &l, found, disturbed);
    free(l.seen);
    free(l.full);
    free(prior_pt);
    free(prior_s);
    d->plan.space.prior = NULL;
    return rc;
}

static void call_free(struct call *c) {
    for (int k = 0; k < c->nsearch; k++) {
        struct search_def *d = &c->s[k];
        tune_plan_free(&d->plan);
        if (d->in) d->app->input_free(d->in);
        if (d->in_screen) d->app->input_free(d->in_screen);
        free(d->rt);
        free(d->rnoise);
        free(d->rsamples);
    }
    if (c->have_spec) sweep_free(&c->spec);
    variants_free(&c->vars);
    free(c->shapes);
    cli_devices_free(&c->pick);
}

int cmd_tune(int argc, char **argv) {
    /* --replay FILE searches a recorded landscape: another command in all but name. */
    if (tune_replay_file_named(argc, argv)) return cmd_tune_replay_file(argc, argv);
    static struct call c; /* large (the searches' inputs and plans); one per process */
    memset(&c, 0, sizeof c);
    int rc = parse_opts(argc, argv, &c.o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *db = c.o.db ? c.o.db : store_default_path();
    struct store *store = NULL;
    char err[ERR_MAX];
    if ((rc = call_load(&c)) != 0) goto done;
    if (c.o.replay) {
        /* Reading must not create: a missing file has nothing to replay. */
        if (access(db, F_OK) != 0) {
            fprintf(stderr, "harness: tune --replay: %s does not exist; nothing to replay\n", db);
            rc = EXIT_FOUND;
            goto done;
        }
    } else {
        /* An empty space is bad input: found before the database is opened. */
        if ((rc = call_plan(&c, NULL)) != 0) goto done;
    }
    if (!(store = store_open(db, err, sizeof err))) {
        fprintf(stderr, "harness: %s\n", err);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        rc = EXIT_USAGE;
        goto done;
    }
    if (c.o.replay && (rc = call_plan(&c, store)) != 0) goto done;
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    for (int k = 0; k < c.nsearch && !harness_interrupted; k++) {
        if (c.nsearch > 1) printf("%s== search %d of %d ==\n", k ? "\n" : "", k + 1, c.nsearch);
        const int r = run_search(&c, &c.s[k], store, argc, argv);
        if (r && !rc) rc = r;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
done:
    store_close(store);
    call_free(&c);
    return rc;
}
