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

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/tune_call.h"
#include "core/worker.h"
#include "track/host_check.h"
#include "tune/tune.h"
#include "tune/tune_eval.h"

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
    case 'S': rc = parse_int("seed", optarg, 0, 0xffffffffL, &v), o->live.seed = (unsigned)v; break;
    case 'r': rc = parse_int("reps", optarg, 1, 1 << 20, &v), o->live.reps = (int)v, o->reps_set = 1; break;
    case 'u': rc = parse_int("warmup", optarg, 0, 1 << 20, &v), o->live.warmup = (int)v, o->warmup_set = 1; break;
    case 'O': rc = parse_int("rounds", optarg, 1, 1000, &v), o->live.rounds = (int)v; break;
    case 'W': rc = parse_int("wg-max", optarg, 1, 1 << 20, &o->wg_max); break;
    case 'c': rc = parse_int("screen", optarg, 1, 1L << 40, &o->live.screen); break;
    case 'f': rc = parse_int("finalists", optarg, 2, 64, &v), o->live.finalists = (int)v; break;
    case 'j': o->live.objective = optarg; break;
    case 'w': o->warm = 1; break;
    case 't':
        o->timeout_set = 1;
        if (parse_real(optarg, 0, DBL_MAX, &o->live.timeout_s) || !(o->live.timeout_s > 0))
            rc = (fprintf(stderr, "harness: --timeout %s: need seconds > 0\n", optarg), EXIT_USAGE);
        break;
    case 'R': o->replay = 1; break;
    case 'T': o->store = 1; break;
    case 'P': o->live.replace = 1; break;
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
    if (strcmp(o->live.objective, "time") && strcmp(o->live.objective, "energy"))
        return fprintf(stderr, "harness: tune: --objective %s: choose time or energy\n", o->live.objective), EXIT_USAGE;
    if (!strcmp(o->live.objective, "energy") && o->replay)
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
                            .wg_max = 1024,
                            .live = {.reps = 5,
                                     .warmup = 1,
                                     .seed = 1,
                                     .timeout_s = CONFIG_TIMEOUT_S,
                                     .rounds = 5,
                                     .finalists = 8,
                                     .objective = "time"}};
    optind = 1;
    int c, rc = 0;
    while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) rc = parse_option(c, o);
    if (rc) return rc;
    if (optind < argc) o->file = argv[optind++];
    if (optind < argc) return fprintf(stderr, "harness: unexpected argument '%s'\n", argv[optind]), EXIT_USAGE;
    return check_opts(o);
}

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

/* --replay: the strategy over the stored points, nothing run. 1 when it
 * found a best (oc filled from the stored figures). */
static int search_replay(const struct tune_opts *o, struct tune_target *d, struct tune_live *l, struct tune_outcome *oc,
                         const struct tuned_config *tc) {
    printf("tune --replay %s %s on %s: %d measured %s at %ld steps", d->app->name, d->app->input_name(d->in),
           d->devname, d->plan.n, d->configs ? "points" : "shapes", d->riters);
    if (d->rskipped) printf(" (%d measured only at other step counts left out)", d->rskipped);
    printf("\n");
    if (oc->stored && o->store)
        printf("stored       %ux%u, tuned before: a new best replaces it only when it beats it round for round\n",
               tc->wg[0], tc->wg[1]);
    fflush(stdout);
    struct tune_stored ctx = {d, 0};
    const int found =
        tune_search(o->strategy, &d->plan.space, o->budget, o->live.seed, tune_stored_eval, &ctx, &oc->r) == 0;
    if (found) {
        tune_cand_of_point(l, oc->r.best, &oc->best);
        oc->other.point = -2;
        if (oc->r.runner_up >= 0) tune_cand_of_point(l, oc->r.runner_up, &oc->other);
        oc->samples = d->rsamples[oc->r.best];
    }
    return found;
}

/* A live search's first lines: what is searched, and the stored
 * configuration it has to beat. */
static void live_header(const struct call *c, const struct tune_target *d, const struct tune_outcome *oc,
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

/* A live search: its run begun, the host checked before and after, the
 * strategy over the device, the finalists (screening) and the verdict. 1
 * when it found a best. */
static int search_live(struct call *c, struct tune_target *d, struct store *store, struct tune_live *l,
                       struct tune_outcome *oc, const struct tuned_config *tc, int *disturbed, int argc, char **argv) {
    const struct tune_opts *o = &c->o;
    struct tune_sink *sink = l->keep_ctx;
    live_header(c, d, oc, tc);
    char command[1024], err[ERR_MAX];
    cli_command_line(argc, argv, command, sizeof command);
    l->pool = pool_open();
    l->planned = strcmp(o->strategy, "exhaustive") && o->budget < d->plan.n ? o->budget : d->plan.n;
    l->refs = (struct ref_holder){d->app, d->in, NULL};
    l->refs_screen = (struct ref_holder){d->app, d->in_screen, NULL};
    l->peak = store_peak_gbs(store, d->dev);
    l->seen = xcalloc((size_t)d->plan.n, sizeof *l->seen);
    l->full = xcalloc((size_t)d->plan.n, sizeof *l->full);
    for (int i = 0; i < d->plan.n; i++) l->seen[i] = l->full[i] = NAN;
    sink->run_id = store_run_begin(store, d->dev, command, err, sizeof err);
    if (sink->run_id < 0) fprintf(stderr, "harness: %s\n", err);
    struct host_check hc;
    cli_host_check(store, d->dev->spec, 1, &hc);
    host_check_print(stdout, "before", &hc);
    *disturbed |= hc.disturbed;
    int found = tune_search(o->strategy, &d->plan.space, o->budget, o->live.seed, tune_live_eval, l, &oc->r) == 0;
    progress_end(&l->pr);
    const int evaluations = oc->r.evaluations;
    if (found && d->in_screen && !harness_interrupted) tune_finalists(l);
    if (found && !harness_interrupted) tune_judge(l, oc);
    oc->r.evaluations = evaluations; /* the verdict's measurements are not the strategy's */
    found &= oc->best.cfg.app != NULL;
    cli_host_check(store, d->dev->spec, 1, &hc);
    host_check_print(stdout, "after", &hc);
    *disturbed |= hc.disturbed;
    if (sink->run_id >= 0) store_run_end(store, sink->run_id);
    pool_close(l->pool);
    if (l->refs.ref) d->app->ref_free(l->refs.ref);
    if (l->refs_screen.ref) d->app->ref_free(l->refs_screen.ref);
    return found;
}

static int run_search(struct call *c, struct tune_target *d, struct store *store, int argc, char **argv) {
    const struct tune_opts *o = &c->o;
    struct tune_outcome oc = {0};
    oc.samples = o->live.reps;
    struct tuned_config tc;
    oc.stored = tune_stored_candidate(store, d, &tc, &oc.stored_c) == 0;
    struct tune_prior prior = {0};
    int *prior_pt = NULL;
    double *prior_s = NULL;
    if (o->warm) {
        tune_warm_start(store, d, &prior, &prior_pt, &prior_s);
        d->plan.space.prior = prior.n ? &prior : NULL;
    }
    struct tune_sink sink = {store, -1};
    struct tune_live l = {.o = &o->live,
                          .d = d,
                          .keep = tune_sink_keep,
                          .verdict_keep = tune_sink_verdict,
                          .keep_ctx = &sink,
                          .started = clock_now()};
    progress_start(&l.pr, "tune", 0);
    int disturbed = 0;
    const int found = o->replay ? search_replay(o, d, &l, &oc, &tc)
                                : search_live(c, d, store, &l, &oc, &tc, &disturbed, argc, argv);
    const int rc = tune_conclude(store, o, d, &oc, &l, found, disturbed);
    free(l.seen);
    free(l.full);
    free(prior_pt);
    free(prior_s);
    d->plan.space.prior = NULL;
    return rc;
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
    if ((rc = tune_call_load(&c)) != 0) goto done;
    if (c.o.replay) {
        /* Reading must not create: a missing file has nothing to replay. */
        if (access(db, F_OK) != 0) {
            fprintf(stderr, "harness: tune --replay: %s does not exist; nothing to replay\n", db);
            rc = EXIT_FOUND;
            goto done;
        }
    } else {
        /* An empty space is bad input: found before the database is opened. */
        if ((rc = tune_call_plan(&c, NULL)) != 0) goto done;
    }
    if (!(store = store_open(db, err, sizeof err))) {
        fprintf(stderr, "harness: %s\n", err);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        rc = EXIT_USAGE;
        goto done;
    }
    if (c.o.replay && (rc = tune_call_plan(&c, store)) != 0) goto done;
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
    tune_call_free(&c);
    return rc;
}
