/* harness run: run, verify and time configs on devices; store every sample.
 * Everything is checked before anything runs: a bad input, variant, device
 * or work-group shape exits 2 and leaves the database untouched. */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/app.h"
#include "core/devset.h"
#include "core/progress.h"
#include "core/rounds.h"
#include "core/runner.h"
#include "core/worker.h"
#include "store/store.h"
#include "store/store_tuned.h"

static struct cli_unstored unstored; /* the first refused result stops the run (cli.h) */

#define MAX_WG 64

struct run_opts {
    const char *app, *device, *variant, *knobs, *wg, *db, *out;
    struct app_opts in;
    int reps, warmup, rounds;
    double timeout_s;
    double end_time; /* --time: run to it (the app's input_at_time) */
};

static void usage(FILE *out) {
    fprintf(out, "usage: harness run [--app lbm] [--input NAME | --params FILE --obstacles FILE]\n"
                 "                   [--iters N | --time T] [--device SPEC[,SPEC]] [--variant NAME[,NAME|all]]\n"
                 "                   [--knobs k=v,...] [--wg WxH[,WxH]] [--reps N] [--warmup N] [--rounds R]\n"
                 "                   [--db PATH] [--out DIR]\n"
                 "  --input     a shipped input (128x128, 128x256, 256x256, 1024x1024) or gen:NXxNY\n"
                 "  --params/--obstacles  any coursework-format input files instead\n"
                 "  --iters     override the input's step count\n"
                 "  --time      run to time T instead of a count of steps (apps whose inputs run to a time)\n"
                 "  --device    opencl:P.D, cuda:N, openmp, a backend, a name substring, or all (default)\n"
                 "  (--device, --variant, --knobs and --wg may be repeated; the values add up)\n"
                 "  --variant   names from variants/<app>.variants (default: final), or `tuned`: on each\n"
                 "              device and input, the configuration (knobs and shape) `harness tune FILE`\n"
                 "              stored; stored as variant tuned with its knobs. Where none is stored it\n"
                 "              is skipped with a note (exit 2 when nothing else runs)\n"
                 "  --knobs     knob settings applied on top (see variants/lbm.variants; not on tuned)\n"
                 "  --wg        work-group (tile) shapes (default: the one `harness tune` stored for the\n"
                 "              device, input and variant, else 32x1 narrowed to divide the grid); given,\n"
                 "              it overrides the stored shape of tuned too\n"
                 "  --reps      timed repetitions (default 5); --warmup untimed ones first (default 1)\n"
                 "  --rounds    spread the repetitions over R rounds, each a fresh worker process,\n"
                 "              the configs in a shuffled order every round (default 1)\n"
                 "  --db        SQLite database (default results/results.db)\n"
                 "  --out       write the app's output files (LBM: av_vels.dat, final_state.dat);\n"
                 "              this runs in the harness's own process\n"
                 "  --timeout   seconds per config before its worker is killed (default 600); every\n"
                 "              config runs in a worker process, so a crash or hang costs one row\n");
    /* The knobs, from the apps themselves: what --knobs and sweep files take. */
    fprintf(out, "\nKnobs (--knobs name=value, applied on top of the variant; sweep files take the same):\n");
    for (int a = 0; apps[a]; a++) {
        fprintf(out, "  %s:\n", apps[a]->name);
        for (const struct knob_def *k = apps[a]->knobs; k && k->name; k++)
            fprintf(out, "    %-14s %s (default %s)%s%s\n", k->name, k->values, k->def, k->help ? ": " : "",
                    k->help ? k->help : "");
    }
}

/* Repeated list options add up: `--variant a --variant b` is `--variant a,b`,
 * so no value given on the command line is silently dropped. */
static const char *append_list(const char *old, const char *more) {
    if (!old) return more;
    struct strbuf b = {0};
    sb_printf(&b, "%s,%s", old, more);
    return b.s; /* lives until the process ends, like argv */
}

static int parse_opts(int argc, char **argv, struct run_opts *o) {
    static const struct option longopts[] = {{"app", required_argument, 0, 'a'},
                                             {"input", required_argument, 0, 'i'},
                                             {"params", required_argument, 0, 'p'},
                                             {"obstacles", required_argument, 0, 'o'},
                                             {"iters", required_argument, 0, 'n'},
                                             {"time", required_argument, 0, 'T'},
                                             {"device", required_argument, 0, 'd'},
                                             {"variant", required_argument, 0, 'v'},
                                             {"knobs", required_argument, 0, 'k'},
                                             {"wg", required_argument, 0, 'w'},
                                             {"reps", required_argument, 0, 'r'},
                                             {"warmup", required_argument, 0, 'u'},
                                             {"db", required_argument, 0, 'b'},
                                             {"out", required_argument, 0, 'O'},
                                             {"help", no_argument, 0, 'h'},
                                             {"timeout", required_argument, 0, 't'},
                                             {"rounds", required_argument, 0, 'R'},
                                             {0, 0, 0, 0}};
    *o = (struct run_opts){.app = "lbm", .reps = 5, .warmup = 1, .rounds = 1, .timeout_s = CONFIG_TIMEOUT_S};
    optind = 1;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': o->app = optarg; break;
        case 'i': o->in.input = optarg; break;
        case 'p': o->in.params = optarg; break;
        case 'o': o->in.obstacles = optarg; break;
        case 'n':
            if (parse_whole(optarg, 1, LONG_MAX, &o->in.iters))
                return fprintf(stderr, "harness: --iters %s: need a positive integer\n", optarg), EXIT_USAGE;
            break;
        case 'T':
            if (parse_real(optarg, 0, 1e6, &o->end_time) || !(o->end_time > 0))
                return fprintf(stderr, "harness: --time %s: need a time above 0, at most 1e6\n", optarg), EXIT_USAGE;
            break;
        case 'd': o->device = append_list(o->device, optarg); break;
        case 'v': o->variant = append_list(o->variant, optarg); break;
        case 'k': o->knobs = append_list(o->knobs, optarg); break;
        case 'w': o->wg = append_list(o->wg, optarg); break;
        case 'r':
            if (parse_whole(optarg, 1, INT_MAX, &v))
                return fprintf(stderr, "harness: --reps %s: need at least 1\n", optarg), EXIT_USAGE;
            o->reps = (int)v;
            break;
        case 'u':
            if (parse_whole(optarg, 0, INT_MAX, &v))
                return fprintf(stderr, "harness: --warmup %s: need 0 or more\n", optarg), EXIT_USAGE;
            o->warmup = (int)v;
            break;
        case 'R':
            if (parse_whole(optarg, 1, 10000, &v))
                return fprintf(stderr, "harness: --rounds %s: need a whole number in 1..10000\n", optarg), EXIT_USAGE;
            o->rounds = (int)v;
            break;
        case 'b': o->db = optarg; break;
        case 'O': o->out = optarg; break;
        case 't':
            if (parse_real(optarg, 0, DBL_MAX, &o->timeout_s) || o->timeout_s <= 0)
                return fprintf(stderr, "harness: --timeout %s: need seconds > 0\n", optarg), EXIT_USAGE;
            break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) return fprintf(stderr, "harness: unexpected argument '%s'\n", argv[optind]), EXIT_USAGE;
    if (o->out && o->rounds > 1)
        return fprintf(stderr, "harness: --out runs in this process: it takes one round, not --rounds %d\n", o->rounds),
               EXIT_USAGE;
    /* A place the files cannot go is bad usage, found before anything runs:
     * it was an error line after the run, exit 0, the measurement stored. */
    if (o->out && (dir_make_p(o->out) != 0 || access(o->out, W_OK) != 0))
        return fprintf(stderr, "harness: --out %s: cannot write there (%s)\n", o->out, strerror(errno)), EXIT_USAGE;
    return 0;
}

static int parse_shapes(const char *list, const struct app *app, const struct app_input *in, unsigned wgs[][2],
                        int *n) {
    *n = 0;
    if (!list) {
        wg_default(app, in, wgs[0]);
        *n = 1;
        return 0;
    }
    char *copy = xstrdup(list);
    int rc = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && *n < MAX_WG; t = strtok_r(NULL, ",", &save)) {
        if (wg_parse(t, wgs[*n]) != 0) {
            fprintf(stderr, "harness: --wg '%s': expected WIDTHxHEIGHT, e.g. 32x1\n", t);
            rc = EXIT_USAGE;
            break;
        }
        (*n)++;
    }
    free(copy);
    return rc;
}

/* With no --device, a directive device (OpenACC, OpenMP target) stays in the
 * pick only where every variant asked for is a program it can run: the
 * ladder's kernels mostly are not, and `make run` or `run --variant X` must
 * not fail for a device nobody named. Named (--device openacc), it runs what
 * it can and refuses the rest with the reason, as every device does. */
static void drop_directive_misfits(struct device_pick *p, const struct variant_list *vars, const struct app *app,
                                   const struct app_input *in, unsigned wgs[][2], int nwg) {
    int kept = 0;
    for (int d = 0; d < p->count; d++) {
        const struct device_info *info = &p->all[p->idx[d]];
        const char *why = NULL, *name = "";
        char buf[ERR_MAX];
        for (int v = 0; v < vars->n && info->caps.directives && !why; v++)
            for (int w = 0; w < nwg && !vars->v[v].tuned && !why; w++)
                if ((why = app_invalid(app, &vars->v[v].knobs, in, info, wgs[w], buf, sizeof buf)))
                    name = vars->v[v].name;
        if (why) fprintf(stderr, "note: %s skipped (not named by --device): %s: %s\n", info->spec, name, why);
        else p->idx[kept++] = p->idx[d];
    }
    p->count = kept;
}

/* Every config must be valid on every chosen device before anything runs. */
static int check_all(const struct device_pick *p, const struct variant_list *vars, const struct app *app,
                     const struct app_input *in, unsigned wgs[][2], int nwg) {
    int bad = 0;
    char buf[ERR_MAX];
    for (int d = 0; d < p->count; d++)
        for (int v = 0; v < vars->n; v++)
            for (int w = 0; w < nwg && !vars->v[v].tuned; w++) { /* tuned: checked once resolved */
                const char *why = app_invalid(app, &vars->v[v].knobs, in, &p->all[p->idx[d]], wgs[w], buf, sizeof buf);
                if (why) {
                    fprintf(stderr, "harness: %s on %s with work-group %ux%u: %s\n", vars->v[v].name,
                            p->all[p->idx[d]].spec, wgs[w][0], wgs[w][1], why);
                    bad = 1;
                }
            }
    return bad ? EXIT_USAGE : 0;
}

/* Without --wg, the shape `harness tune` stored for this device, input and
 * variant replaces the default, if it is still valid: the variant's knobs
 * may have changed since it was tuned. The default was already checked with
 * everything else, before the database was opened, so bad input still never
 * touches the database; the lookup happens once it is open for the run. */
static void tuned_shape(struct store *s, const struct app *app, const struct app_input *in,
                        const struct device_info *dev, const struct variant *v, unsigned wg[2]) {
    unsigned t[2];
    int tie = 0;
    if (store_tuned_get(s, dev->fingerprint, app->name, app->input_name(in), v->name, t, &tie) != 0) return;
    char buf[ERR_MAX];
    const char *why = app_invalid(app, &v->knobs, in, dev, t, buf, sizeof buf);
    if (why) {
        note("the tuned work-group %ux%u for %s on %s is no longer valid (%s); using %ux%u\n", t[0], t[1], v->name,
             dev->spec, why, wg[0], wg[1]);
        return;
    }
    fprintf(stderr, "using tuned work-group %ux%u for %s on %s (from harness tune%s)\n", t[0], t[1], v->name, dev->spec,
            tie ? "; a tie within noise with its runner-up" : "");
    wg[0] = t[0];
    wg[1] = t[1];
}

/* One config of the run: a device (an index into the pick), the variant as
 * it runs (TUNED_VARIANT resolved to its stored knobs) and a shape. */
struct planned {
    int dev;
    struct variant v;
    unsigned wg[2];
};

struct plan {
    struct planned *p;
    int n;
    int skipped; /* tuned configs with nothing stored, or stored but unusable here */
};

static void plan_add(struct plan *pl, int dev, const struct variant *v, const unsigned wg[2]) {
    pl->p = xrealloc(pl->p, sizeof *pl->p * (size_t)(pl->n + 1));
    struct planned *x = &pl->p[pl->n++];
    x->dev = dev;
    x->v = *v;
    x->wg[0] = wg[0];
    x->wg[1] = wg[1];
}

/* TUNED_VARIANT on one device: its stored knobs at its stored shape, or at
 * every --wg shape (given, they override it). Nothing stored, knobs that no
 * longer parse, a shape the app refuses here: a note, and the config is
 * skipped (never another variant in its place). */
static void plan_tuned(struct plan *pl, const struct run_opts *o, const struct app *app, const struct app_input *in,
                       const struct device_pick *pick, int d, unsigned wgs[][2], int nwg, struct store *store) {
    const struct device_info *info = &pick->all[pick->idx[d]];
    struct variant tv;
    struct tuned_config cfg;
    unsigned stored[2];
    char why[ERR_MAX];
    if (store_tuned_variant(store, app, in, info, &tv, stored, &cfg, why, sizeof why) != 0) {
        note("%s; skipped\n", why);
        pl->skipped += o->wg ? nwg : 1;
        return;
    }
    const int n = o->wg ? nwg : 1;
    for (int w = 0; w < n; w++) {
        const unsigned *wg = o->wg ? wgs[w] : stored;
        const char *bad = app_invalid(app, &tv.knobs, in, info, wg, why, sizeof why);
        if (bad) {
            note("the tuned configuration %s at %ux%u is not valid on %s: %s; skipped\n", cfg.config, wg[0], wg[1],
                 info->spec, bad);
            pl->skipped++;
            continue;
        }
        plan_add(pl, d, &tv, wg);
    }
    if (o->wg)
        fprintf(stderr, "using the tuned configuration %s for %s %s on %s, at the --wg shapes (stored: %ux%u)\n",
                cfg.config, app->name, app->input_name(in), info->spec, stored[0], stored[1]);
    else
        fprintf(stderr, "using the tuned configuration %s at %ux%u for %s %s on %s (from harness tune%s)\n", cfg.config,
                stored[0], stored[1], app->name, app->input_name(in), info->spec,
                cfg.tie ? "; a tie within noise with its runner-up" : "");
}

/* Every device x variant x shape, in that order; store may be NULL only
 * when every variant is TUNED_VARIANT (no database: nothing stored). */
static void plan_build(struct plan *pl, const struct run_opts *o, const struct app *app, const struct app_input *in,
                       const struct variant_list *vars, const struct device_pick *pick, unsigned wgs[][2], int nwg,
                       struct store *store) {
    for (int d = 0; d < pick->count; d++)
        for (int v = 0; v < vars->n; v++) {
            if (vars->v[v].tuned) {
                plan_tuned(pl, o, app, in, pick, d, wgs, nwg, store);
                continue;
            }
            for (int w = 0; w < nwg; w++) {
                unsigned wg[2] = {wgs[w][0], wgs[w][1]};
                if (!o->wg) tuned_shape(store, app, in, &pick->all[pick->idx[d]], &vars->v[v], wg);
                plan_add(pl, d, &vars->v[v], wg);
            }
        }
}

static int out_failed; /* an --out file could not be written: the run's exit is 1 */

static void write_out(const struct run_opts *o, const struct app *app, const struct app_input *in,
                      const struct app_result *res, const struct measurement *m, const char *spec, int many) {
    char dir[PATH_MAX], err[ERR_MAX];
    if (many) str_fmt(dir, sizeof dir, "%s/%s-%s-%ux%u", o->out, spec, m->variant, m->wg[0], m->wg[1]);
    else str_copy(dir, sizeof dir, o->out);
    for (char *p = dir + strlen(o->out); *p; p++)
        if (*p == ':') *p = '_';
    if (app->write_output(in, res, dir, err, sizeof err) != 0) {
        fprintf(stderr, "harness: --out: %s\n", err);
        out_failed = 1;
    }
}

static int device_planned(const struct plan *pl, int d) {
    for (int i = 0; i < pl->n; i++)
        if (pl->p[i].dev == d) return 1;
    return 0;
}

/* --out: the device's result is needed here, so these configs run in this
 * process, one after another (no watchdog). */
static int run_in_process(const struct run_opts *o, const struct app *app, const struct app_input *in,
                          const struct plan *pl, const struct device_pick *pick, struct store *store,
                          const char *command, struct ref_holder *refs) {
    char err[ERR_MAX];
    int failures = 0, many = pl->n > 1;
    for (int di = 0; di < pick->count; di++) {
        if (!device_planned(pl, di)) continue;
        const struct device_info *info = &pick->all[pick->idx[di]];
        struct dev *d = dev_open_measuring(info, err, sizeof err);
        if (!d) {
            fprintf(stderr, "harness: %s: %s\n", info->spec, err);
            failures++;
            continue;
        }
        int64_t run_id = store_run_begin(store, info, command, err, sizeof err);
        if (run_id < 0) {
            cli_unstored(&unstored, info->spec, "(the run's row)", err);
            dev_close(d);
            break;
        }
        const double peak = store_peak_gbs(store, info);
        for (int i = 0; i < pl->n; i++) {
            const struct planned *x = &pl->p[i];
            if (x->dev != di) continue;
            struct config c = {.app = app, .in = in, .knobs = x->v.knobs, .wg = {x->wg[0], x->wg[1]}};
            str_copy(c.variant, sizeof c.variant, x->v.name);
            struct measurement m = {0};
            struct app_result *res = NULL;
            c.source = &o->in;
            runner_measure(d, &c, refs, o->warmup, o->reps, &m, &res);
            if (store_measurement(store, run_id, &m, err, sizeof err) != 0) {
                cli_unstored(&unstored, info->spec, m.variant, err);
                app->result_free(res);
                measurement_free(&m);
                break;
            }
            runner_print(stdout, info, &m, peak);
            fflush(stdout);
            if (res) {
                write_out(o, app, in, res, &m, info->spec, many);
                app->result_free(res);
            }
            failures += m.status != ST_OK && m.status != ST_UNVERIFIED;
            measurement_free(&m);
        }
        if (run_id >= 0) store_run_end(store, run_id);
        dev_close(d);
        if (unstored.count) break;
    }
    return failures;
}

struct run_ctx {
    struct store *store;
    struct round_job *jobs;
    const struct device_info **dev; /* per job */
    const int64_t *runs;            /* per device; -1 where none began */
    int nruns;
    int failures;
};

static void run_result(void *ctx, struct round_job *j, int round, int first_sample) {
    struct run_ctx *c = ctx;
    (void)round;
    char err[ERR_MAX];
    const struct device_info *dev = c->dev[j - c->jobs];
    int rc = j->mid > 0 ? store_measurement_more(c->store, j->mid, &j->m, first_sample, err, sizeof err)
                        : store_measurement_id(c->store, j->run_id, &j->m, &j->mid, err, sizeof err);
    if (rc != 0) {
        cli_unstored(&unstored, dev->spec, j->m.variant, err);
        return;
    }
    if (!j->done) return;
    runner_print(stdout, dev, &j->m, store_peak_gbs(c->store, dev));
    fflush(stdout);
    c->failures += j->m.status != ST_OK && j->m.status != ST_UNVERIFIED;
}

/* Each run's round: what the rest of the host did while it ran, as sweep stores it. */
static void run_round_end(void *ctx, const struct round_state *st) {
    struct run_ctx *c = ctx;
    char err[ERR_MAX];
    for (int i = 0; i < c->nruns; i++)
        if (c->runs[i] >= 0 && store_round_state(c->store, c->runs[i], st, err, sizeof err) != 0)
            fprintf(stderr, "harness: %s\n", err);
    rounds_note(stderr, "run", st);
}

/* Every config in a worker process under a watchdog, in rounds (rounds.h). */
static int run_in_rounds(const struct run_opts *o, const struct app *app, const struct app_input *in,
                         const struct plan *pl, const struct device_pick *pick, struct store *store,
                         const char *command, struct ref_holder *refs) {
    char err[ERR_MAX];
    int k = 0;
    struct round_job *jobs = xcalloc((size_t)pl->n + 1, sizeof *jobs);
    const struct device_info **devs = xcalloc((size_t)pl->n + 1, sizeof *devs);
    int64_t *runs = xcalloc((size_t)pick->count + 1, sizeof *runs);
    int verified = 0; /* configs that are (app.h: verified), which need the reference */
    for (int di = 0; di < pick->count; di++) {
        const struct device_info *info = &pick->all[pick->idx[di]];
        runs[di] = -1;
        if (!device_planned(pl, di)) continue; /* every config of it skipped: no empty run row */
        runs[di] = store_run_begin(store, info, command, err, sizeof err);
        if (runs[di] < 0) { /* nothing runs whose result could not be kept */
            cli_unstored(&unstored, info->spec, "(the run's row)", err);
            for (int i = 0; i < k; i++) measurement_free(&jobs[i].m);
            free(jobs);
            free(devs);
            free(runs);
            return 0;
        }
        for (int i = 0; i < pl->n; i++) {
            const struct planned *x = &pl->p[i];
            if (x->dev != di) continue;
            struct config c = {.app = app, .in = in, .knobs = x->v.knobs, .wg = {x->wg[0], x->wg[1]}, .source = &o->in};
            str_copy(c.variant, sizeof c.variant, x->v.name);
            verified += !app->verified || app->verified(&c.knobs);
            struct round_job *j = &jobs[k];
            devs[k++] = info;
            j->group = -1;
            j->run_id = runs[di];
            j->timeout_s = o->timeout_s;
            j->bytes_per_cell = app->bytes_per_cell(&c.knobs);
            runner_describe(&c, &j->m);
            j->m.warmup = o->warmup;
            j->m.rounds = o->rounds;
            runner_job(&c, info, o->warmup, rounds_reps_each(o->reps, o->rounds), &j->job);
        }
    }
    /* Once, here, under the watchdog: one that outlives it is left to the
     * workers, where each config's own watchdog ends it (a timeout row). */
    struct measurement why = {0};
    if (!refs->ref && verified && runner_reference_watched(app, in, o->timeout_s, &why) == 0)
        refs->ref = app->reference(in, err, sizeof err);
    else if (why.reason[0])
        fprintf(stderr, "harness: %s\n", why.reason);
    struct run_ctx ctx = {.store = store, .jobs = jobs, .dev = devs, .runs = runs, .nruns = pick->count};
    struct rounds_opts ro = {.seed = (unsigned)(clock_now() * 1e3),
                             .on_result = run_result,
                             .on_round = run_round_end,
                             .ctx = &ctx,
                             .what = "run"};
    rounds_run(jobs, k, &ro);
    for (int di = 0; di < pick->count; di++)
        if (runs[di] >= 0) store_run_end(store, runs[di]);
    for (int i = 0; i < k; i++) measurement_free(&jobs[i].m);
    free(jobs);
    free(devs);
    free(runs);
    return ctx.failures;
}

static int only_tuned(const struct variant_list *vars) {
    for (int i = 0; i < vars->n; i++)
        if (!vars->v[i].tuned) return 0;
    return 1;
}

int cmd_run(int argc, char **argv) {

    struct run_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const struct app *app = cli_app(o.app);
    if (!app) return EXIT_USAGE;
    char err[ERR_MAX], timed[128];
    if (o.end_time > 0 && (rc = cli_input_at_time(app, &o.in.input, o.end_time, o.in.iters, timed, sizeof timed)))
        return rc;
    struct app_input *in = app->input_load(&o.in, err, sizeof err);
    if (!in) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    struct variant_list vars = {0};
    struct device_pick pick = {0};
    unsigned wgs[MAX_WG][2];
    int nwg = 0;
    rc = cli_variants_tuned(app, o.variant, o.knobs, &vars);
    if (!rc) rc = cli_devices(o.device, &pick);
    if (!rc) rc = parse_shapes(o.wg, app, in, wgs, &nwg);
    if (!rc && !o.device) {
        drop_directive_misfits(&pick, &vars, app, in, wgs, nwg);
        if (!pick.count) rc = EXIT_USAGE, fprintf(stderr, "harness: no device can run these variants\n");
    }
    if (rc || (rc = check_all(&pick, &vars, app, in, wgs, nwg))) {
        variants_free(&vars);
        cli_devices_free(&pick);
        app->input_free(in);
        return rc;
    }

    /* Only tuned configurations and no database yet: none is stored, and
     * looking must not create the file. */
    const char *db = o.db ? o.db : store_default_path();
    struct store *store = NULL;
    if (!only_tuned(&vars) || access(db, F_OK) == 0) {
        store = store_open(db, err, sizeof err);
        if (!store) {
            fprintf(stderr, "harness: %s\n", err);
            variants_free(&vars);
            cli_devices_free(&pick);
            app->input_free(in);
            /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
            return EXIT_USAGE;
        }
    }
    struct plan pl = {0};
    plan_build(&pl, &o, app, in, &vars, &pick, wgs, nwg, store);
    int failures = 0;
    if (pl.n) {
        char command[1024];
        cli_command_line(argc, argv, command, sizeof command);
        struct ref_holder refs = {app, in, NULL};
        failures = o.out ? run_in_process(&o, app, in, &pl, &pick, store, command, &refs)
                         : run_in_rounds(&o, app, in, &pl, &pick, store, command, &refs);
        if (refs.ref) app->ref_free(refs.ref);
    }
    if (pl.skipped)
        fprintf(stderr, "run: %d config%s skipped (no usable tuned configuration)%s\n", pl.skipped,
                pl.skipped == 1 ? "" : "s", pl.n ? "" : "; nothing ran, nothing stored");
    store_close(store);
    free(pl.p);
    variants_free(&vars);
    cli_devices_free(&pick);
    app->input_free(in);
    if (!pl.n) return EXIT_USAGE; /* everything asked for was a tuned configuration not stored */
    if (unstored.count) {
        fprintf(stderr, "harness: the database could not store a result (%s): what is printed above was stored, "
                        "nothing after it ran\n", unstored.first);
        return EXIT_FOUND;
    }
    return failures || out_failed ? EXIT_FOUND : EXIT_OK;
}
