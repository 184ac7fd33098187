/* harness tune: search the work-group shapes of one app, input and variant
 * on one device, and record the best with how sure we are (the runner-up,
 * the margin, the noise, and "tie" when the margin is within the noise).
 *
 * Live, every evaluation is a full measurement in a worker process (a crash
 * or hang costs one shape), stored like any `harness run` row, so a tuning
 * session leaves its evidence in the database. With --replay the strategy
 * runs over measurements already stored, which makes comparing strategies
 * free and repeatable. Everything is checked before the database is opened:
 * bad input exits 2 and touches nothing. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "host_check.h"
#include "round_stats.h"
#include "rounds.h"
#include "runner.h"
#include "stats.h"
#include "store.h"
#include "store_tuned.h"
#include "store_tuned_history.h"
#include "tune.h"
#include "util.h"
#include "worker.h"

#define POW2_STEPS 11      /* 1, 2, 4, ..., 1024 per dimension */
#define VERDICT_SHAPES 4   /* shapes measured again for the verdict */
#define VERDICT_CLOSE 0.05 /* ... those within this of the best */
#define VERDICT_ALPHA 0.05
#define VERDICT_FLOOR 0.005

struct tune_opts {
    const char *app, *device, *variant, *strategy, *db;
    struct app_opts in;
    int budget, reps, warmup, replay, store, rounds, replace;
    unsigned seed;
    long wg_max;
    double timeout_s;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness tune --input NAME --device SPEC --strategy S [--budget N] [--app lbm]\n"
            "                    [--variant NAME] [--iters N] [--seed S] [--reps N] [--warmup N]\n"
            "                    [--wg-max N] [--timeout SECONDS] [--replay [--store]] [--replace]\n"
            "                    [--db PATH]\n"
            "  Searches the power-of-two work-group shapes (1..1024 per side, at most --wg-max\n"
            "  items, default 1024) that the app accepts on the device, and stores the best for\n"
            "  `harness run` to use when no --wg is given.\n"
            "  --strategy  exhaustive (every shape), random (sampled without replacement),\n"
            "              anneal (simulated annealing over doubling/halving moves), genetic\n"
            "  --budget    the most distinct shapes to measure (required but for exhaustive);\n"
            "              a shape is never measured twice in one search\n"
            "  --seed      makes random, anneal and genetic repeatable (default 1)\n"
            "  --variant   one variant (default final); --iters shortens each run (the tuned\n"
            "              shape is stored for the input, so tune at a step count that keeps the\n"
            "              per-step time representative)\n"
            "  --reps/--warmup  per shape (default 5 and 1); --timeout per shape (default 300)\n"
            "  --rounds    the verdict: the best shapes found (the best, the runner-up, and any\n"
            "              within 5 %% of the best, at most %d) measured again in R rounds (default 5),\n"
            "              each a fresh worker process with the shapes shuffled; the best is a\n"
            "              winner only when it beats the runner-up round for round (paired t-test\n"
            "              on the rounds' medians, p <= 0.05, by at least 0.5 %%), else a TIE.\n"
            "              1: judge on the search's own measurements (the IQR rule below)\n"
            "  --replace   store the search's best even where it does not beat the stored shape;\n"
            "              without it a stored shape is measured in the verdict's rounds too and\n"
            "              replaced only when the new best beats it round for round\n"
            "              (`harness best --history` lists every decision)\n"
            "  --replay    run the strategy over the latest ok measurements already in the\n"
            "              database (nothing runs; --device may be a fingerprint), all at one step\n"
            "              count: --iters, else the newest row's; stored only with --store\n"
            "  Prints the best shape and the runner-up and whether the best is a winner or a TIE;\n"
            "  the host is checked before and after the search (load, copy canary).\n",
            VERDICT_SHAPES);
}

static int parse_int(const char *opt, const char *text, long lo, long hi, long *v) {
    char *end;
    *v = strtol(text, &end, 10);
    if (!*text || *end || *v < lo || *v > hi)
        return fprintf(stderr, "harness: --%s %s: need a whole number in %ld..%ld\n", opt, text, lo, hi), EXIT_USAGE;
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
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    *o = (struct tune_opts){.app = "lbm",
                            .variant = "final",
                            .reps = 5,
                            .warmup = 1,
                            .seed = 1,
                            .wg_max = 1024,
                            .timeout_s = 300,
                            .rounds = 5};
    optind = 1;
    int c, rc = 0;
    long v;
    char *end;
    while (!rc && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': o->app = optarg; break;
        case 'i': o->in.input = optarg; break;
        case 'p': o->in.params = optarg; break;
        case 'o': o->in.obstacles = optarg; break;
        case 'n': rc = parse_int("iters", optarg, 1, 1L << 40, &o->in.iters); break;
        case 'd': o->device = optarg; break;
        case 'v': o->variant = optarg; break;
        case 's': o->strategy = optarg; break;
        case 'B': rc = parse_int("budget", optarg, 1, 1 << 20, &v), o->budget = (int)v; break;
        case 'S': rc = parse_int("seed", optarg, 0, 0xffffffffL, &v), o->seed = (unsigned)v; break;
        case 'r': rc = parse_int("reps", optarg, 1, 1 << 20, &v), o->reps = (int)v; break;
        case 'u': rc = parse_int("warmup", optarg, 0, 1 << 20, &v), o->warmup = (int)v; break;
        case 'O': rc = parse_int("rounds", optarg, 1, 1000, &v), o->rounds = (int)v; break;
        case 'W': rc = parse_int("wg-max", optarg, 1, 1 << 20, &o->wg_max); break;
        case 't':
            o->timeout_s = strtod(optarg, &end);
            if (*end || !(o->timeout_s > 0))
                rc = (fprintf(stderr, "harness: --timeout %s: need seconds > 0\n", optarg), EXIT_USAGE);
            break;
        case 'R': o->replay = 1; break;
        case 'T': o->store = 1; break;
        case 'P': o->replace = 1; break;
        case 'b': o->db = optarg; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (rc) return rc;
    if (optind < argc) return fprintf(stderr, "harness: unexpected argument '%s'\n", argv[optind]), EXIT_USAGE;
    const char *known[] = {"exhaustive", "random", "anneal", "genetic"};
    int ok = 0;
    for (int i = 0; i < 4; i++) ok |= o->strategy && !strcmp(o->strategy, known[i]);
    if (!ok) {
        fprintf(stderr, "harness: tune: %s%s; choose exhaustive, random, anneal or genetic\n",
                o->strategy ? "unknown --strategy " : "--strategy is required", o->strategy ? o->strategy : "");
        return EXIT_USAGE;
    }
    if (!o->budget && strcmp(o->strategy, "exhaustive"))
        return fprintf(stderr, "harness: tune: --strategy %s needs --budget N (distinct shapes to measure)\n",
                       o->strategy),
               EXIT_USAGE;
    if (!o->device) return fprintf(stderr, "harness: tune: --device is required (one device per search)\n"), EXIT_USAGE;
    if (!o->in.input && !o->in.params) return fprintf(stderr, "harness: tune: --input is required\n"), EXIT_USAGE;
    if (strchr(o->variant, ',') || !strcmp(o->variant, "all"))
        return fprintf(stderr, "harness: tune: one --variant per search, not '%s'\n", o->variant), EXIT_USAGE;
    if (o->store && !o->replay) fprintf(stderr, "note: --store is implied without --replay\n");
    return 0;
}

/* A replay may name a device that is not in this machine by its fingerprint. */
static int is_fingerprint(const char *s) { return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16; }

/* The candidates: power-of-two shapes within wg_max that the app accepts on
 * the device (dev NULL: not checked, the replayed rows ran) and, when
 * replaying, that have a measurement. Fixed order: x outer, y inner. */
static int space_build(const struct tune_opts *o, const struct app *app, const struct app_input *in,
                       const struct knob_set *k, const struct device_info *dev, struct replay_table *table,
                       unsigned (*shapes)[2], const char **why) {
    int n = 0;
    for (int i = 0; i < POW2_STEPS; i++)
        for (int j = 0; j < POW2_STEPS; j++) {
            const unsigned wg[2] = {1u << i, 1u << j};
            if ((long)wg[0] * wg[1] > o->wg_max) continue;
            const char *reason = dev ? app->invalid(k, in, dev, wg) : NULL;
            if (reason) *why = reason;
            else if (!table || replay_eval(table, wg, NULL) > 0) shapes[n][0] = wg[0], shapes[n++][1] = wg[1];
        }
    return n;
}

/* ---- live evaluation --------------------------------------------------- */

struct live {
    struct worker_pool *pool;
    const struct device_info *dev;
    struct config cfg;
    struct ref_holder refs;
    int warmup, reps;
    double timeout_s, peak;
    struct store *store;
    int64_t run_id;
    int *measured; /* shapes actually run (an interrupt ends the running) */
    int planned;   /* the search's evaluations at most: progress against it */
    double started;
    int nseen; /* every shape the search measured ok, with its median */
    unsigned seen_wg[POW2_STEPS * POW2_STEPS][2];
    double seen_s[POW2_STEPS * POW2_STEPS];
};

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

static const char *secs(char *buf, size_t n, double s);

/* After each evaluation: how far the search is, the best so far, and the
 * time left at the pace so far (the verdict's rounds come on top). */
static void progress(const struct live *l) {
    const int done = *l->measured;
    int b = -1;
    for (int i = 0; i < l->nseen; i++)
        if (b < 0 || l->seen_s[i] < l->seen_s[b]) b = i;
    char best[64] = "none yet", t[32];
    if (b >= 0)
        snprintf(best, sizeof best, "%ux%u %s", l->seen_wg[b][0], l->seen_wg[b][1], secs(t, sizeof t, l->seen_s[b]));
    const double spent = clock_now() - l->started, left = done ? spent / done * (l->planned - done) : NAN;
    printf("progress     %d of %d evaluations, best so far %s, about %.0f s left of the search\n", done, l->planned,
           best, isnan(left) ? 0 : left);
    fflush(stdout);
}

/* One shape, measured in a worker and stored; the median when it verified. */
static double live_eval(void *ctx, const unsigned wg[2], double *noise) {
    struct live *l = ctx;
    if (harness_interrupted) return -1; /* spend what is left of the budget at once */
    char err[512];
    struct measurement m = {0};
    l->cfg.wg[0] = wg[0], l->cfg.wg[1] = wg[1];
    runner_measure_isolated(l->pool, l->dev, &l->cfg, &l->refs, l->warmup, l->reps, l->timeout_s, &m);
    double t = -1;
    if (!harness_interrupted) { /* an interrupted row says nothing about the shape */
        ++*l->measured;
        runner_print(stdout, l->dev, &m, l->peak);
        fflush(stdout);
        if (l->run_id >= 0 && store_measurement(l->store, l->run_id, &m, err, sizeof err) != 0)
            fprintf(stderr, "harness: %s\n", err);
        if (m.status == ST_OK && m.median > 0) {
            t = m.median;
            *noise = (m.q3 - m.q1) / m.median;
            if (l->nseen < POW2_STEPS * POW2_STEPS) {
                l->seen_wg[l->nseen][0] = wg[0];
                l->seen_wg[l->nseen][1] = wg[1];
                l->seen_s[l->nseen++] = t;
            }
        }
        progress(l);
    }
    measurement_free(&m);
    return t;
}

static const char *secs(char *buf, size_t n, double s) {
    if (s >= 1) snprintf(buf, n, "%.4f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.4f ms", s * 1e3);
    else snprintf(buf, n, "%.2f us", s * 1e6);
    return buf;
}

/* ---- the verdict on rounds -------------------------------------------- */

struct verdict_ctx {
    struct live *l;
};

static void verdict_result(void *ctx, struct round_job *j, int round, int first_sample) {
    struct verdict_ctx *v = ctx;
    (void)round;
    char err[512];
    int rc = j->mid > 0          ? store_measurement_more(v->l->store, j->mid, &j->m, first_sample, err, sizeof err)
             : v->l->run_id >= 0 ? store_measurement_id(v->l->store, v->l->run_id, &j->m, &j->mid, err, sizeof err)
                                 : 0;
    if (rc != 0) fprintf(stderr, "harness: %s\n", err);
    if (j->done) runner_print(stdout, v->l->dev, &j->m, v->l->peak);
}

/* The log median of each round of a job, by round; NaN where it has none. */
static void round_logs(const struct measurement *m, double *out, int rounds) {
    double med[1024];
    for (int r = 0; r < rounds; r++) out[r] = NAN;
    int k = measurement_round_medians(m, med);
    /* rounds are numbered from 0 and a job runs every round, so the k-th
     * median is round k's unless the job failed early */
    for (int r = 0; r < k && r < rounds; r++) out[r] = log(med[r]);
}

/* One shape beats another round for round: the paired test's p and the
 * margin (the other's time over this one's, less 1). */
static int beats(double p, double margin) { return p <= VERDICT_ALPHA && margin >= VERDICT_FLOOR; }

/* The stored decision a new search is held against: the stored shape is
 * measured in the verdict's rounds too, and the search's best replaces it
 * only when it beats it round for round. */
struct stored_check {
    int has;          /* a tuned row exists for this key */
    unsigned wg[2];   /* its shape */
    int judged;       /* the verdict measured both and they differ */
    double margin, p; /* stored over the new best, round for round */
};

/* The best shapes the search found (and the stored shape, when there is
 * one), measured again in o->rounds rounds; the result rewritten from the
 * rounds. 0, or -1 when fewer than two shapes are left to judge (the
 * search's verdict stands). */
static int verdict_rounds(const struct tune_opts *o, struct live *l, struct tune_result *r, struct stored_check *sc) {
    if (o->rounds < 2 || l->nseen < 2) return -1;
    int pick[VERDICT_SHAPES], n = 0;
    double best = INFINITY;
    for (int i = 0; i < l->nseen; i++) best = fmin(best, l->seen_s[i]);
    for (int k = 0; k < VERDICT_SHAPES; k++) { /* the fastest first, close ones and always the runner-up */
        int b = -1;
        for (int i = 0; i < l->nseen; i++) {
            int used = 0;
            for (int q = 0; q < n; q++) used |= pick[q] == i;
            if (!used && (b < 0 || l->seen_s[i] < l->seen_s[b])) b = i;
        }
        if (b < 0 || (n >= 2 && l->seen_s[b] > best * (1 + VERDICT_CLOSE))) break;
        pick[n++] = b;
    }
    unsigned shape[VERDICT_SHAPES + 1][2];
    int stored_k = -1;
    for (int k = 0; k < n; k++) {
        shape[k][0] = l->seen_wg[pick[k]][0], shape[k][1] = l->seen_wg[pick[k]][1];
        if (sc->has && shape[k][0] == sc->wg[0] && shape[k][1] == sc->wg[1]) stored_k = k;
    }
    if (sc->has && !o->replace && stored_k < 0) { /* not among the best the search saw: measured here */
        stored_k = n;
        shape[n][0] = sc->wg[0], shape[n++][1] = sc->wg[1];
    }
    struct round_job jobs[VERDICT_SHAPES + 1];
    memset(jobs, 0, sizeof jobs);
    for (int k = 0; k < n; k++) {
        struct round_job *j = &jobs[k];
        l->cfg.wg[0] = shape[k][0];
        l->cfg.wg[1] = shape[k][1];
        runner_describe(&l->cfg, &j->m);
        j->m.warmup = l->warmup;
        j->m.rounds = o->rounds;
        runner_job(&l->cfg, l->dev, l->warmup, rounds_reps_each(l->reps, o->rounds), &j->job);
        j->group = -1;
        j->timeout_s = l->timeout_s;
        j->bytes_per_cell = l->cfg.app->bytes_per_cell(&l->cfg.knobs);
    }
    printf("\nverdict: the %d best shapes again%s, %d rounds (a fresh worker each, shapes shuffled)\n", n,
           stored_k >= 0 ? " (the stored one among them)" : "", o->rounds);
    fflush(stdout);
    struct verdict_ctx vc = {l};
    struct rounds_opts ro = {.seed = o->seed, .on_result = verdict_result, .ctx = &vc, .what = "tune verdict"};
    int ran = rounds_run(jobs, n, &ro);
    double logs[VERDICT_SHAPES][1000], mean[VERDICT_SHAPES];
    int order[VERDICT_SHAPES], ok = 0;
    for (int k = 0; k < n; k++) {
        round_logs(&jobs[k].m, logs[k], o->rounds);
        int c = 0;
        mean[k] = 0;
        for (int q = 0; q < o->rounds; q++)
            if (!isnan(logs[k][q])) mean[k] += logs[k][q], c++;
        mean[k] = jobs[k].m.status == ST_OK && c == o->rounds ? mean[k] / c : INFINITY;
        if (isfinite(mean[k])) order[ok++] = k;
    }
    for (int a = 1; a < ok; a++) /* fastest first by the rounds */
        for (int b = a; b > 0 && mean[order[b]] < mean[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    int rc = -1;
    if (ran >= 0 && ok >= 2) {
        int b = order[0], u = order[1];
        struct paired_result p;
        rc_paired(logs[b], logs[u], o->rounds, &p); /* ratio: runner-up over best */
        r->best[0] = jobs[b].job.wg[0], r->best[1] = jobs[b].job.wg[1];
        r->runner_up[0] = jobs[u].job.wg[0], r->runner_up[1] = jobs[u].job.wg[1];
        /* Ordered and tested on the rounds' mean log (the paired test's
         * scale); the figure stored is the median round, as robust to one
         * disturbed round as a measurement's median. */
        r->best_s = exp(stats_median(logs[b], (size_t)o->rounds));
        r->runner_up_s = exp(stats_median(logs[u], (size_t)o->rounds));
        r->margin = p.ratio - 1;
        r->noise = expm1(p.sd);
        r->tie = !beats(p.p, r->margin);
        printf("rounds       %ux%u against %ux%u round for round: %+.2f %%, sd of the differences %.2f %%, p %.2g\n",
               r->best[0], r->best[1], r->runner_up[0], r->runner_up[1], 100 * r->margin, 100 * r->noise, p.p);
        if (stored_k >= 0 && stored_k != b) {
            struct paired_result q;
            if (isfinite(mean[stored_k])) {
                rc_paired(logs[b], logs[stored_k], o->rounds, &q);
                sc->margin = q.ratio - 1, sc->p = q.p;
            } else { /* the stored shape failed here: anything that ran beats it */
                sc->margin = INFINITY, sc->p = 0;
            }
            sc->judged = 1;
        }
        rc = 0;
    }
    for (int k = 0; k < n; k++) measurement_free(&jobs[k].m);
    return rc;
}

/* ---- replay evaluation: the table, with a line per evaluation ----------- */

struct replay_ctx {
    struct replay_table *table;
    int count;
};

static double replay_eval_print(void *ctx, const unsigned wg[2], double *noise) {
    struct replay_ctx *r = ctx;
    double t = replay_eval(r->table, wg, noise);
    char a[32];
    printf("  %3d  %4ux%-4u  %s", ++r->count, wg[0], wg[1], secs(a, sizeof a, t));
    if (!isnan(*noise)) printf("  IQR %.1f%%", 100 * *noise);
    printf("\n");
    return t;
}

/* ---- report -------------------------------------------------------------- */

static void report(const struct tune_opts *o, const struct tune_result *r, int nspace, int by_rounds) {
    printf("\nstrategy     %s", o->strategy);
    if (strcmp(o->strategy, "exhaustive")) printf(" (seed %u, budget %d)", o->seed, o->budget);
    printf("\nevaluations  %d of %d shapes\n", r->evaluations, nspace);
    char a[32], b[32];
    printf("best         %ux%u  median %s\n", r->best[0], r->best[1], secs(a, sizeof a, r->best_s));
    if (isnan(r->margin)) {
        printf("runner-up    none (no other shape succeeded)\n");
        printf("verdict      winner by default: nothing to compare it with\n");
        return;
    }
    printf("runner-up    %ux%u  median %s  margin %+.2f%%\n", r->runner_up[0], r->runner_up[1],
           secs(b, sizeof b, r->runner_up_s), 100 * r->margin);
    if (by_rounds)
        printf("noise        %.2f%% (the sd of their round-for-round differences over %d rounds)\n", 100 * r->noise,
               o->rounds);
    else printf("noise        %.2f%% (the larger relative IQR of the two; never below 0.5%%)\n", 100 * r->noise);
    if (r->tie)
        printf("verdict      TIE (%s): %ux%u and %ux%u cannot be told apart; either will do\n",
               by_rounds ? "not ahead round for round" : "within noise", r->best[0], r->best[1], r->runner_up[0],
               r->runner_up[1]);
    else printf("verdict      winner: %ux%u\n", r->best[0], r->best[1]);
}

/* What becomes of the stored row: a search's best replaces a stored shape
 * only when the verdict measured both and the new one beats it round for
 * round (or on --replace); a search without that evidence (--rounds 1, a
 * replay) leaves it. A genetic search on a budget of 10 once stored a shape
 * 2.2x slower than the one an exhaustive search had stored. */
static void decide(const struct tune_opts *o, const struct stored_check *sc, const struct tune_result *r,
                   struct tuned_decision *d) {
    const unsigned *s = sc->wg;
    if (!sc->has) {
        d->decision = "new";
        str_copy(d->why, sizeof d->why, "nothing was stored for this device, input and variant");
    } else if (s[0] == r->best[0] && s[1] == r->best[1]) {
        d->decision = "confirmed";
        str_fmt(d->why, sizeof d->why, "the stored %ux%u is the best again (its figures updated)", s[0], s[1]);
    } else if (o->replace) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "--replace: %ux%u stored over %ux%u without a verdict between them", r->best[0],
                r->best[1], s[0], s[1]);
    } else if (sc->judged && beats(sc->p, sc->margin)) {
        d->decision = "replaced";
        str_fmt(d->why, sizeof d->why, "%ux%u beats the stored %ux%u round for round by %.2f %% (p %.2g)", r->best[0],
                r->best[1], s[0], s[1], 100 * sc->margin, sc->p);
    } else if (sc->judged) {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u does not beat the stored %ux%u round for round (%+.2f %%, p %.2g): the stored row stays "
                "(--replace stores the new shape anyway)",
                r->best[0], r->best[1], s[0], s[1], 100 * sc->margin, sc->p);
    } else {
        d->decision = "kept";
        str_fmt(d->why, sizeof d->why,
                "%ux%u was not measured against the stored %ux%u in rounds (%s): the stored row stays "
                "(--replace stores the new shape anyway)",
                r->best[0], r->best[1], s[0], s[1], o->replay ? "a replay" : "--rounds 1 or too few shapes");
    }
}

/* In a replay the whole table is known, so how far the pick is from the best
 * measured shape is known too: the measure of a strategy. */
static void replay_regret(const struct replay_table *t, const struct tune_result *r) {
    int b = 0;
    for (int i = 1; i < t->n; i++)
        if (t->median[i] < t->median[b]) b = i;
    char a[32];
    printf("best known   %ux%u  median %s  (the pick is %+.2f%% from it)\n", t->wg[b][0], t->wg[b][1],
           secs(a, sizeof a, t->median[b]), 100 * (r->best_s / t->median[b] - 1));
}

int cmd_tune(int argc, char **argv) {
    struct tune_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const struct app *app = cli_app(o.app);
    if (!app) return EXIT_USAGE;
    char err[2048];
    struct app_input *in = app->input_load(&o.in, err, sizeof err);
    if (!in) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    struct variant_list vars = {0};
    struct device_pick pick = {0};
    const struct device_info *dev = NULL;
    const char *fp = o.device, *db = o.db ? o.db : store_default_path();
    struct store *store = NULL;
    struct replay_table table = {0};
    unsigned shapes[POW2_STEPS * POW2_STEPS][2];
    int nspace = 0;
    char knobs[512];
    rc = cli_variants(app, o.variant, NULL, &vars);
    if (!rc && !(o.replay && is_fingerprint(o.device))) {
        rc = cli_devices(o.device, &pick);
        if (!rc && pick.count != 1)
            rc = (fprintf(stderr, "harness: tune: '%s' names %d devices; tune one at a time\n", o.device, pick.count),
                  EXIT_USAGE);
        if (!rc) dev = &pick.all[pick.idx[0]], fp = dev->fingerprint;
    }
    if (rc) goto done;
    knobs_canonical(&vars.v[0].knobs, knobs, sizeof knobs);
    const char *why = "no shape fits --wg-max";
    if (o.replay) {
        /* Reading must not create: a missing file has nothing to replay. */
        if (access(db, F_OK) != 0) {
            fprintf(stderr, "harness: tune --replay: %s does not exist; nothing to replay\n", db);
            rc = EXIT_FOUND;
            goto done;
        }
        if (!(store = store_open(db, err, sizeof err)) ||
            store_replay_load_iters(store, fp, app->name, app->input_name(in), knobs, o.in.iters, &table) != 0) {
            if (store) fprintf(stderr, "harness: %s: %s\n", db, store_errmsg(store));
            else fprintf(stderr, "harness: %s\n", err);
            rc = EXIT_FOUND;
            goto done;
        }
        nspace = space_build(&o, app, in, &vars.v[0].knobs, dev, &table, shapes, &why);
        if (!nspace) {
            fprintf(stderr, "harness: tune --replay: no ok measurements of %s %s %s on %s%s in %s\n", app->name,
                    app->input_name(in), vars.v[0].name, o.device, o.in.iters ? " at --iters" : "", db);
            rc = EXIT_FOUND;
            goto done;
        }
        printf("tune --replay %s %s %s on %s%s%s: %d measured shapes at %ld steps from %s", app->name,
               app->input_name(in), vars.v[0].name, dev ? dev->spec : fp, dev ? " " : "", dev ? fp : "", nspace,
               table.iters, db);
        if (table.skipped) printf(" (%d measured only at other step counts left out)", table.skipped);
        printf("\n");
    } else {
        nspace = space_build(&o, app, in, &vars.v[0].knobs, dev, NULL, shapes, &why);
        if (!nspace) {
            fprintf(stderr, "harness: tune: no work-group shape is valid for %s on %s (%s)\n", vars.v[0].name,
                    dev->spec, why);
            rc = EXIT_USAGE;
            goto done;
        }
        if (!(store = store_open(db, err, sizeof err))) {
            fprintf(stderr, "harness: %s\n", err);
            rc = EXIT_FOUND;
            goto done;
        }
        printf("tune %s %s (%ld steps) %s on %s [%s]: %d valid shapes\n", app->name, app->input_name(in),
               app->input_iters(in), vars.v[0].name, dev->spec, fp, nspace);
    }
    fflush(stdout);

    struct tune_space space = {nspace, (const unsigned(*)[2])shapes};
    struct tune_result r;
    struct stored_check sc = {0};
    sc.has = store_tuned_get(store, fp, app->name, app->input_name(in), vars.v[0].name, sc.wg, NULL) == 0;
    if (sc.has && (!o.replay || o.store))
        printf("stored       %ux%u, tuned before: a new best replaces it only when it beats it round for round\n",
               sc.wg[0], sc.wg[1]);
    int samples = o.reps, found, measured = 0, by_rounds = 0, disturbed = 0;
    if (o.replay) {
        struct replay_ctx ctx = {&table, 0};
        found = tune_search(o.strategy, &space, o.budget, o.seed, replay_eval_print, &ctx, &r) == 0;
        for (int i = 0; found && i < table.n; i++)
            if (table.wg[i][0] == r.best[0] && table.wg[i][1] == r.best[1]) samples = table.samples[i];
    } else {
        char command[1024];
        cli_command_line(argc, argv, command, sizeof command);
        struct live l = {.pool = pool_open(),
                         .planned = strcmp(o.strategy, "exhaustive") && o.budget < nspace ? o.budget : nspace,
                         .started = clock_now(),
                         .dev = dev,
                         .refs = {app, in, NULL},
                         .warmup = o.warmup,
                         .reps = o.reps,
                         .timeout_s = o.timeout_s,
                         .store = store,
                         .measured = &measured,
                         .peak = runner_peak(store, dev),
                         .cfg = {.app = app, .in = in, .source = &o.in, .knobs = vars.v[0].knobs}};
        str_copy(l.cfg.variant, sizeof l.cfg.variant, vars.v[0].name);
        l.run_id = store_run_begin(store, dev, command, err, sizeof err);
        if (l.run_id < 0) fprintf(stderr, "harness: %s\n", err);
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        struct host_check hc;
        host_check(store, dev->spec, 1, &hc);
        host_check_print(stdout, "before", &hc);
        disturbed |= hc.disturbed;
        found = tune_search(o.strategy, &space, o.budget, o.seed, live_eval, &l, &r) == 0;
        if (found && !harness_interrupted && verdict_rounds(&o, &l, &r, &sc) == 0) {
            by_rounds = 1;
            samples = o.rounds * rounds_reps_each(o.reps, o.rounds);
        }
        host_check(store, dev->spec, 1, &hc);
        host_check_print(stdout, "after", &hc);
        disturbed |= hc.disturbed;
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (l.run_id >= 0) store_run_end(store, l.run_id);
        pool_close(l.pool);
        if (l.refs.ref) app->ref_free(l.refs.ref);
    }
    if (harness_interrupted) {
        fprintf(stderr, "harness: tune interrupted after %d measured shapes (stored); nothing decided\n", measured);
        rc = EXIT_FOUND;
        goto done;
    }
    if (!found) {
        fprintf(stderr, "harness: tune: no shape succeeded (%d evaluated)\n", r.evaluations);
        rc = EXIT_FOUND;
        goto done;
    }
    report(&o, &r, nspace, by_rounds);
    if (disturbed)
        printf("host         DISTURBED while tuning (above): the verdict may be the host's; tune again when it is "
               "quiet\n");
    if (o.replay) replay_regret(&table, &r);
    if (!o.replay || o.store) {
        struct tuned_decision d = {.strategy = o.strategy,
                                   .search_s = NAN,
                                   .budget = strcmp(o.strategy, "exhaustive") ? o.budget : 0,
                                   .iters = o.replay     ? table.iters
                                            : o.in.iters ? o.in.iters
                                                         : app->input_iters(in)};
        decide(&o, &sc, &r, &d);
        printf("decision     %s: %s\n", d.decision, d.why);
        int keep = !strcmp(d.decision, "kept");
        if ((!keep && store_tuned_put(store, fp, app->name, app->input_name(in), vars.v[0].name, &r,
                                      &(struct tuned_put){.strategy = o.strategy,
                                                          .samples = samples,
                                                          .evaluations = r.evaluations,
                                                          .search_s = NAN,
                                                          .energy_j = NAN},
                                      err, sizeof err) != 0) ||
            store_tuned_history_add(store, fp, app->name, app->input_name(in), vars.v[0].name, &r, &d, err,
                                    sizeof err) != 0) {
            fprintf(stderr, "harness: %s\n", err);
            rc = EXIT_FOUND;
            goto done;
        }
        if (!keep)
            printf("stored       as the tuned work-group for %s %s %s on %s (`harness run` uses it without --wg)\n",
                   app->name, app->input_name(in), vars.v[0].name, dev ? dev->spec : fp);
    }
done:
    replay_free(&table);
    store_close(store);
    variants_free(&vars);
    cli_devices_free(&pick);
    app->input_free(in);
    return rc;
}
