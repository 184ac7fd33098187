/* harness report APP: the app's published report (kernels/APP/report.def)
 * measured on the devices present: ceilings, launch cost, every table and
 * figure, written to results/report-<host>-<devices>.md with its figures and a CSV
 * of the cells, every measurement also stored in the database. */
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/launch_cost.h"
#include "backend/peak.h"
#include "base/buildinfo.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/devset.h"
#include "core/probe_isolated.h"
#include "core/worker.h"
#include "report/report.h"
#include "track/host_check.h"

struct report_opts {
    const char *app, *device, *db, *out, *def, *variant;
    int quick, reps, warmup, rounds, from_db;
    double budget_s, timeout_s;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness report APP [--device SPEC[,SPEC...]] [--quick] [--db PATH] [--out DIR]\n"
            "                          [--reps N] [--warmup N] [--rounds R] [--budget SECONDS] [--timeout SECONDS]\n"
            "                          [--def FILE] [--variant NAME]\n"
            "  Measures the tables and figures of the app's published report (kernels/APP/report.def,\n"
            "  or FILE in that format)\n"
            "  and writes DIR/report-<host>-<devices>.md (default DIR: results/) with PNG figures and a CSV.\n"
            "  Devices: every GPU present runs every table (or every device when there is no GPU);\n"
            "  every device present runs the device tables. --device picks them all by hand.\n"
            "  --budget: the longest one repetition may run (default 0.4 s; --quick 0.02 s); a longer\n"
            "  row runs the input's steps divided by a power of two and is scaled and marked.\n"
            "  --quick: also only the definition's quick inputs and a shorter launch-cost probe.\n"
            "  --rounds: each cell's repetitions spread over R rounds (default 3, --quick 2): the first\n"
            "  in table order (it sets the step counts), the others with every cell shuffled, each\n"
            "  round a fresh worker per device; the direction column is judged on the rounds. The host\n"
            "  is checked before and after (load, copy canaries); a disturbed host is said so.\n"
            "  --from-db: measure nothing; write the latest report stored in --db again (its devices,\n"
            "  cells and ceilings), e.g. on a machine with gnuplot after a run on a GPU host without.\n"
            "  --variant NAME: the per-device tables (classes, devices, host languages) run NAME instead\n"
            "  of the definition's variant. `tuned` (there, or `run tuned` in a definition) is, per device\n"
            "  and input, the configuration `harness tune FILE` stored, at its own shape; a cell with\n"
            "  none stored says \"not tuned\" (not a failure).\n");
}

static void on_signal(int sig) {
    (void)sig;
    harness_interrupted = 1;
}

static int parse(int argc, char **argv, struct report_opts *o) {
    static const struct option opts[] = {{"device", required_argument, 0, 'd'},  {"quick", no_argument, 0, 'q'},
                                         {"db", required_argument, 0, 'b'},      {"out", required_argument, 0, 'o'},
                                         {"reps", required_argument, 0, 'r'},    {"warmup", required_argument, 0, 'w'},
                                         {"budget", required_argument, 0, 's'},  {"timeout", required_argument, 0, 't'},
                                         {"help", no_argument, 0, 'h'},          {"def", required_argument, 0, 'f'},
                                         {"from-db", no_argument, 0, 'F'},       {"rounds", required_argument, 0, 'R'},
                                         {"variant", required_argument, 0, 'v'}, {0, 0, 0, 0}};
    *o = (struct report_opts){.reps = REPORT_REPS, .warmup = REPORT_WARMUP, .timeout_s = CONFIG_TIMEOUT_S};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        long v = 0;
        int bad = 0;
        switch (c) {
        case 'd': o->device = optarg; break;
        case 'q': o->quick = 1; break;
        case 'b': o->db = optarg; break;
        case 'o': o->out = optarg; break;
        case 'f': o->def = optarg; break;
        case 'F': o->from_db = 1; break;
        case 'v': o->variant = optarg; break;
        /* Out of int's range is as bad as not a number; the ranges are checked below. */
        case 'r': bad = parse_whole(optarg, INT_MIN, INT_MAX, &v), o->reps = (int)v; break;
        case 'w': bad = parse_whole(optarg, INT_MIN, INT_MAX, &v), o->warmup = (int)v; break;
        case 'R': bad = parse_whole(optarg, INT_MIN, INT_MAX, &v), o->rounds = (int)v; break;
        case 's': bad = parse_real(optarg, -DBL_MAX, DBL_MAX, &o->budget_s); break;
        case 't': bad = parse_real(optarg, -DBL_MAX, DBL_MAX, &o->timeout_s); break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "harness report: `%s` is not a number\n", optarg);
            return EXIT_USAGE;
        }
    }
    if (o->reps < 1 || o->warmup < 0 || o->budget_s < 0 || !(o->timeout_s > 0) || o->rounds < 0 || o->rounds > 1000) {
        fprintf(stderr,
                "harness report: --reps >= 1, --warmup >= 0, --rounds 1..1000, --budget >= 0 and --timeout > 0\n");
        return EXIT_USAGE;
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    o->app = argv[optind];
    if (!o->budget_s) o->budget_s = o->quick ? REPORT_BUDGET_QUICK_S : REPORT_BUDGET_S;
    if (!o->rounds) o->rounds = o->quick ? REPORT_ROUNDS_QUICK : REPORT_ROUNDS;
    return 0;
}

/* The tables that run one variant on each device (`run VARIANT`). */
static int per_device(const struct report_table *t) {
    return t->kind == RK_CLASSES || t->kind == RK_DEVICES || t->kind == RK_HOSTLANG;
}

/* --variant NAME: the per-device tables run NAME. */
static void override_variant(struct report_def *d, const char *name) {
    for (int t = 0; t < d->ntables; t++)
        if (per_device(&d->tables[t])) str_copy(d->tables[t].variant, sizeof d->tables[t].variant, name);
}

/* The --variant a stored report command was given ("" for none). */
static void stored_variant(const char *command, char *out, size_t n) {
    const char *v = strstr(command, " --variant ");
    out[0] = 0;
    if (v) str_copy(out, strcspn(v + 11, " ") + 1 < n ? strcspn(v + 11, " ") + 1 : n, v + 11);
}

/* Every variant the definition names must exist: "file:line: ..." otherwise.
 * TUNED_VARIANT may be a per-device table's: it is resolved per device and
 * input; a step's row or a figure has no one configuration to name. */
static int check_variants(const struct report *r, char *err, size_t errn) {
    const struct report_def *d = r->def;
    const char *single[4 + REPORT_MAX_LADDER] = {d->wg_variant, d->roofline_variant, d->host_empty, d->host_full};
    int nsingle = 4;
    for (int i = 0; i < d->nladder; i++) single[nsingle++] = d->ladder[i];
    for (int i = 0; i < nsingle; i++)
        if (single[i][0] && !variant_find(&r->vars, single[i]))
            return snprintf(err, errn, "%s: unknown variant `%s`%s", d->path, single[i],
                            strcmp(single[i], TUNED_VARIANT) ? "" : " (tuned: only a per-device table's `run`)"),
                   -1;
    for (int t = 0; t < d->ntables; t++) {
        const struct report_table *tb = &d->tables[t];
        if (tb->variant[0] && !variant_find(&r->vars, tb->variant) &&
            !(per_device(tb) && !strcmp(tb->variant, TUNED_VARIANT)))
            return snprintf(err, errn, "%s:%d: unknown variant `%s`", d->path, tb->line, tb->variant), -1;
        for (int k = 0; k < tb->nprograms; k++)
            if (!variant_find(&r->vars, tb->programs[k]))
                return snprintf(err, errn, "%s:%d: unknown variant `%s`", d->path, tb->line, tb->programs[k]), -1;
        if (tb->against[0] && !variant_find(&r->vars, tb->against))
            return snprintf(err, errn, "%s:%d: unknown variant `%s`", d->path, tb->line, tb->against), -1;
        for (int k = 0; k < tb->nrows; k++) {
            const struct report_row *row = &tb->rows[k];
            if (row->variant[0] && !variant_find(&r->vars, row->variant))
                return snprintf(err, errn, "%s:%d: unknown variant `%s`%s", d->path, row->line, row->variant,
                                strcmp(row->variant, TUNED_VARIANT) ? "" : " (tuned: only a per-device table's `run`)"),
                       -1;
            if (row->from[0] && !variant_find(&r->vars, row->from))
                return snprintf(err, errn, "%s:%d: unknown variant `%s`", d->path, row->line, row->from), -1;
        }
    }
    return 0;
}

static int pick_devices(struct report *r, const char *spec) {
    struct device_pick pick;
    int rc = cli_devices(spec, &pick);
    if (rc) return rc;
    int gpus = 0;
    for (int i = 0; i < pick.count; i++) gpus += !strcmp(pick.all[pick.idx[i]].kind, "gpu");
    for (int i = 0; i < pick.count && r->ndev < REPORT_MAX_DEVICES; i++) {
        struct report_device *d = &r->dev[r->ndev++];
        d->info = pick.all[pick.idx[i]];
        /* A directive device runs its own programs (the openacc table), not the ladder. */
        d->ladder = (spec || !gpus || !strcmp(d->info.kind, "gpu")) && !d->info.caps.directives;
        d->run_id = -1;
    }
    cli_devices_free(&pick);
    return 0;
}

/* Ceilings: measured afresh in a full report (they belong beside the
 * numbers compared with them); --quick reuses stored ones when there are. */
static void ceilings(struct report *r) {
    for (int i = 0; i < r->ndev; i++) {
        struct report_device *d = &r->dev[i];
        if (r->quick && store_peak_get(r->store, d->info.fingerprint, &d->copy_gbs, &d->fp32_gflops) == 0 &&
            d->copy_gbs > 0 && d->fp32_gflops > 0)
            continue;
        if (devset_is(&d->info)) continue; /* a set has no ceiling of its own: its members have theirs */
        char err[ERR_MAX];
        struct probe_peak p; /* in a process of its own: a runtime's failure costs this device's ceiling */
        if (probe_peak(&d->info, 1, &p, err, sizeof err) != 0) {
            fprintf(stderr, "harness report: %s: copy: %.300s\n", d->info.spec, err);
            continue;
        }
        d->copy_gbs = p.gbs;
        d->fp32_gflops = p.gflops;
        if (p.fp32_err[0]) fprintf(stderr, "harness report: %s: FP32: %.300s\n", d->info.spec, p.fp32_err);
        printf("%-11s copy %.1f GB/s, FP32 %.0f GFLOP/s\n", d->info.spec, d->copy_gbs, d->fp32_gflops);
        if (d->copy_gbs > 0 && store_peak_put(r->store, &d->info, d->copy_gbs, d->fp32_gflops, err, sizeof err) != 0)
            fprintf(stderr, "harness report: %s\n", err);
    }
}

/* Figure 1's data: the launch cost on every device that runs every table. */
static void launch_costs(struct report *r) {
    struct launch_cost_opts o;
    launch_cost_defaults(&o);
    char err[ERR_MAX];
    launch_cost_parse_counts(r->quick ? "0,4,16,32" : "0,1,2,4,8,12,16,24,32", &o, err, sizeof err);
    o.reps = 3;
    if (r->quick) o.launches = 5000;
    struct launch_cost_row *rows = xcalloc(LAUNCH_COST_MAX_ROWS, sizeof *rows);
    for (int i = 0; i < r->ndev; i++) {
        struct report_device *d = &r->dev[i];
        if (!d->ladder || devset_is(&d->info)) continue; /* a set launches nothing itself */
        const int n = probe_launch_cost(&d->info, &o, rows, LAUNCH_COST_MAX_ROWS, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "harness report: %s: launch cost: %.500s\n", d->info.spec, err);
            continue;
        }
        if (d->run_id >= 0 && launch_cost_store(r->store, d->run_id, rows, n, err, sizeof err) != 0)
            fprintf(stderr, "harness report: %s\n", err);
        struct launch_cost_summary *s = &r->launch[i];
        for (int k = 0; k < n; k++) {
            const double us = 1e6 * rows[k].enqueue_median_s / (double)rows[k].launches;
            if (rows[k].nargs == 0 && rows[k].kind == LAUNCH_COST_BUFFER) s->us_0_args = us;
            if (rows[k].nargs >= s->max_args) {
                s->max_args = rows[k].nargs;
                if (rows[k].kind == LAUNCH_COST_BUFFER) s->us_max_buffers = us;
                else s->us_max_ints = us;
            }
        }
        s->have = 1;
        printf("%-11s launch: %.2f us with no arguments, %.2f us with %d buffers, %.2f us with %d ints\n", d->info.spec,
               s->us_0_args, s->us_max_buffers, s->max_args, s->us_max_ints, s->max_args);
    }
    free(rows);
}

/* Lower case, runs of other characters as one dash, at most n - 1 long. */
static void slug_append(char *slug, size_t n, const char *text) {
    size_t k = strlen(slug);
    for (const char *p = text; *p && k < n - 1; p++) {
        const char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) slug[k++] = ch;
        else if (k && slug[k - 1] != '-' && slug[k - 1] != '+') slug[k++] = '-';
    }
    while (k && slug[k - 1] == '-') k--;
    slug[k] = 0;
}

/* A device in the words its owner knows it by: a GPU's name ("NVIDIA
 * H200"); a CPU's brand, whichever backend drives it (PoCL names its CPU
 * device "pthread-<llvm arch>-<brand>": the brand starts at the first
 * capital), so OpenMP and PoCL on one CPU read alike. */
static void device_words(const struct device_info *d, char *out, size_t n) {
    const char *name = d->name;
    if (!strcmp(d->kind, "cpu"))
        for (const char *p = d->name; *p; p++)
            if (*p >= 'A' && *p <= 'Z') {
                name = p;
                break;
            }
    out[0] = 0;
    slug_append(out, n, name);
    if (!out[0]) slug_append(out, n, d->spec);
}

/* results/report-<host>-<device>+<device>.md: the host's name and every
 * device of the report in words (each once), so a report from a laptop, a
 * GPU host or a two-GPU run is found by what it measured. */
static void output_paths(struct report *r, const char *dir) {
    char slug[160] = "", host[128] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !host[0]) str_copy(host, sizeof host, "host");
    host[strcspn(host, ".")] = 0; /* the short name */
    slug_append(slug, 48, host);
    char seen[REPORT_MAX_DEVICES][64];
    int nseen = 0;
    for (int i = 0; i < r->ndev; i++) {
        char words[64];
        device_words(&r->dev[i].info, words, sizeof words);
        int dup = 0;
        for (int k = 0; k < nseen; k++) dup |= !strcmp(seen[k], words);
        if (dup || nseen == REPORT_MAX_DEVICES) continue;
        str_copy(seen[nseen++], sizeof seen[0], words);
        const size_t len = strlen(slug);
        if (len + 2 >= sizeof slug) break;
        slug[len] = nseen == 1 ? '-' : '+', slug[len + 1] = 0;
        slug_append(slug, sizeof slug, words);
    }
    if (!slug[0]) str_copy(slug, sizeof slug, "device");
    str_fmt(r->out_md, sizeof r->out_md, "%s/report-%s.md", dir, slug);
    str_fmt(r->fig_dir, sizeof r->fig_dir, "%s/report-%s", dir, slug);
    str_fmt(r->fig_rel, sizeof r->fig_rel, "report-%s", slug);
}

/* The cells behind the tables, one CSV row each, beside the figures. */
static void write_csv(const struct report *r) {
    char path[4200];
    str_fmt(path, sizeof path, "%s/cells.csv", r->fig_dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "device,name,input,variant,wg_x,wg_y,status,iters,iters_full,median_s,q1_s,q3_s,scaled_s,gbs,reason\n");
    for (int i = 0; i < r->ncells; i++) {
        const struct report_cell *c = &r->cells[i];
        const struct measurement *m = &c->m;
        const struct report_time t = report_time_of(r, c);
        fprintf(f, "%s,", r->dev[c->device].info.spec);
        csv_field(f, r->dev[c->device].info.name);
        fprintf(f, ",%s,%s,%u,%u,%s,%ld,%ld,%.9g,%.9g,%.9g,%.9g,%.6g,", r->def->inputs[c->input], c->variant, c->wg[0],
                c->wg[1], c->untuned ? "not-tuned" : status_name(m->status), m->iters, m->iters_full, m->median, m->q1,
                m->q3, t.seconds, m->gbs);
        csv_field(f, m->reason);
        fputc('\n', f);
    }
    fclose(f);
}

static int full_step_counts(struct report *r) {
    for (int i = 0; i < r->def->ninputs; i++) {
        struct app_opts o = {.input = r->def->inputs[i]};
        char err[ERR_MAX];
        struct app_input *in = r->app->input_load(&o, err, sizeof err);
        if (!in) {
            fprintf(stderr, "harness report: %s: %s\n", r->def->path, err);
            return -1;
        }
        r->full_iters[i] = r->app->input_iters_full(in);
        r->app->input_free(in);
    }
    return 0;
}

/* The app's report definition (kernels/APP/report.def, or --def): 0, or
 * EXIT_USAGE with the reason said. */
static int load_definition(const struct app *app, const char *def_path, struct report_def *def) {
    char path[4096], rel[128], err[ERR_MAX];
    str_fmt(rel, sizeof rel, "kernels/%s/report.def", app->name);
    if (def_path) str_copy(path, sizeof path, def_path);
    else repo_path(path, sizeof path, rel);
    if (report_def_parse(path, def, err, sizeof err) != 0) {
        fprintf(stderr, "harness report: %s\n", err);
        return EXIT_USAGE;
    }
    if (strcmp(def->app, app->name) != 0) {
        fprintf(stderr, "harness report: %s: the definition is for app %s, not %s\n", path, def->app, app->name);
        return EXIT_USAGE;
    }
    return 0;
}

/* Everything the tables need before anything is measured or drawn: the
 * variants (and --variant), the inputs' full step counts, and either the
 * stored run (--from-db) or the devices and this build. 0, or the exit
 * status, r freed. */
static int prepare(struct report *r, struct report_def *def, const struct report_opts *o) {
    char err[ERR_MAX];
    const struct app *app = r->app;
    if (cli_variants(app, "all", NULL, &r->vars) != 0) return EXIT_USAGE;
    if (o->variant && strcmp(o->variant, TUNED_VARIANT) && !variant_find(&r->vars, o->variant)) {
        fprintf(stderr, "harness report: --variant %s: no such variant in variants/%s.variants (nor %s)\n", o->variant,
                app->name, TUNED_VARIANT);
        report_run_free(r);
        return EXIT_USAGE;
    }
    if (o->variant) override_variant(def, o->variant);
    err[0] = 0;
    if (check_variants(r, err, sizeof err) != 0 || full_step_counts(r) != 0) {
        if (err[0]) fprintf(stderr, "harness report: %s\n", err);
        report_run_free(r);
        return EXIT_USAGE;
    }
    str_copy(r->db_path, sizeof r->db_path, o->db ? o->db : store_default_path());
    int rc;
    if (o->from_db) {
        r->from_db = 1;
        if (report_load_db(r, err, sizeof err) != 0) {
            fprintf(stderr, "harness report: %s\n", err);
            report_run_free(r);
            return EXIT_FOUND;
        }
        /* The tables as they were measured: the stored command's --variant. */
        char measured[64];
        stored_variant(r->command, measured, sizeof measured);
        if (!o->variant && measured[0]) override_variant(def, measured);
    } else if ((rc = pick_devices(r, o->device)) != 0) {
        report_run_free(r);
        return rc;
    } else {
        const struct build_info *bi = build_info_get();
        str_copy(r->commit, sizeof r->commit, bi->commit);
        str_copy(r->compiler, sizeof r->compiler, bi->compiler);
        r->dirty = bi->dirty;
        const time_t now = time(NULL);
        strftime(r->when, sizeof r->when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    }
    return 0;
}

/* --from-db: the tables and figures drawn again from the stored rows. */
static int draw_from_db(struct report *r) {
    const int rc = report_write_markdown(r);
    write_csv(r);
    printf("report: %s (drawn from %s, %d cells)\n", r->out_md, r->db_path, r->ncells);
    report_run_free(r);
    return rc ? EXIT_FOUND : EXIT_OK;
}

/* The database, and a run in it for each device, for this command. 0, or
 * the exit status, r freed. */
static int open_runs(struct report *r, int argc, char **argv) {
    char err[ERR_MAX];
    r->store = store_open(r->db_path, err, sizeof err);
    if (!r->store) {
        fprintf(stderr, "harness report: %s\n", err);
        report_run_free(r);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        return EXIT_USAGE;
    }
    cli_command_line(argc, argv, r->command, sizeof r->command);
    for (int i = 0; i < r->ndev; i++) {
        r->dev[i].run_id = store_run_begin(r->store, &r->dev[i].info, r->command, err, sizeof err);
        if (r->dev[i].run_id < 0) fprintf(stderr, "harness report: %s\n", err);
    }
    return 0;
}

int cmd_report(int argc, char **argv) {
    struct report_opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const struct app *app = cli_app(o.app);
    if (!app) return EXIT_USAGE;
    static struct report_def def;
    if ((rc = load_definition(app, o.def, &def)) != 0) return rc;
    struct report r = {.def = &def,
                       .app = app,
                       .quick = o.quick,
                       .target_s = o.budget_s,
                       .min_steps = o.quick ? 32 : 64,
                       .warmup = o.warmup,
                       .reps = o.reps,
                       .rounds = o.rounds,
                       .timeout_s = o.timeout_s};
    if ((rc = prepare(&r, &def, &o)) != 0) return rc;
    char outdir[4096];
    if (o.out) str_copy(outdir, sizeof outdir, o.out);
    else repo_path(outdir, sizeof outdir, "results");
    output_paths(&r, outdir);
    if (dir_make_p(r.fig_dir) != 0) {
        perror(r.fig_dir);
        report_run_free(&r);
        return EXIT_FOUND;
    }
    if (r.from_db) return draw_from_db(&r);
    if ((rc = open_runs(&r, argc, argv)) != 0) return rc;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    const time_t start = time(NULL);
    struct host_check hc;
    cli_host_check(r.store, o.device, 0, &hc); /* the ceilings below are the canaries */
    host_check_words(&hc, r.host[0], sizeof r.host[0]);
    r.disturbed |= hc.disturbed;
    host_check_print(stdout, "before", &hc);
    ceilings(&r);
    launch_costs(&r);
    r.pool = pool_open();
    report_measure(&r);
    cli_host_check(r.store, o.device, 1, &hc);
    host_check_words(&hc, r.host[1], sizeof r.host[1]);
    r.disturbed |= hc.disturbed;
    host_check_print(stdout, "after", &hc);
    rc = report_write_markdown(&r);
    pool_close(r.pool);
    write_csv(&r);
    for (int i = 0; i < r.ndev; i++)
        if (r.dev[i].run_id >= 0) store_run_end(r.store, r.dev[i].run_id);
    store_close(r.store);
    printf("report: %s (%d configs measured, %d failed, %ld s)%s\n", r.out_md, r.measured, r.failed,
           (long)(time(NULL) - start), harness_interrupted ? " — interrupted, cells after that are missing" : "");
    const int failed = r.failed;
    report_run_free(&r);
    if (rc != 0) {
        perror(r.out_md);
        return EXIT_FOUND;
    }
    return harness_interrupted || failed ? EXIT_FOUND : EXIT_OK;
}
