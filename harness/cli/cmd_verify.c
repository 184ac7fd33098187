/* harness verify APP: every named variant on every device present, on a
 * shortened run, as a matrix variant x device: verified, wrong (max relative
 * error) or invalid (reason). Exit 1 if any cell is wrong or failed. */
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "core/runner.h"
#include "core/worker.h"
#include "store/store.h"

static void usage(FILE *out) {
    fprintf(out, "usage: harness verify APP [--device SPEC[,SPEC]] [--variant NAMES] [--knobs k=v,...]\n"
                 "                      [--input NAME] [--iters N | --time T] [--wg WxH] [--db PATH] [--timeout SECONDS]\n"
                 "  Runs each variant once on a shortened run (the app's default input and step\n"
                 "  count unless given), each in a worker process under a watchdog (default\n"
                 "  600 s; an app may ask for less: selftest's drills 10 s), and prints the verification matrix.\n"
                 "  --knobs goes on top of every variant (cc=clang: each one built by clang).\n");
}

/* A cell of the matrix: short enough to align; reasons are listed below. */
static void cell_text(const struct measurement *m, int note, char *buf, size_t n) {
    switch (m->status) {
    case ST_OK: str_copy(buf, n, "verified"); break;
    case ST_WRONG: snprintf(buf, n, "WRONG %.1e", m->max_rel_err); break;
    case ST_INVALID: snprintf(buf, n, "invalid [%d]", note); break;
    case ST_UNVERIFIED: str_copy(buf, n, "not verified (empty)"); break;
    default: snprintf(buf, n, "%s [%d]", status_name(m->status), note); break;
    }
}

/* What the command line asks for. */
struct verify_opts {
    const char *device, *variant, *wg_text, *db, *knobs;
    double timeout_s; /* 0: the app's verify_timeout_s, else CONFIG_TIMEOUT_S */
    double end_time;  /* --time: run to it (the app's input_at_time) */
    struct app_opts ao;
};

/* The options into o; 0, -1 after --help, or the exit status of a mistake. */
static int parse_opts(int argc, char **argv, struct verify_opts *o) {
    static const struct option longopts[] = {{"device", required_argument, 0, 'd'},
                                             {"variant", required_argument, 0, 'v'},
                                             {"knobs", required_argument, 0, 'k'},
                                             {"input", required_argument, 0, 'i'},
                                             {"iters", required_argument, 0, 'n'},
                                             {"time", required_argument, 0, 'T'},
                                             {"wg", required_argument, 0, 'w'},
                                             {"db", required_argument, 0, 'b'},
                                             {"timeout", required_argument, 0, 't'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    *o = (struct verify_opts){.variant = "all"};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->device = optarg; break;
        case 'v': o->variant = optarg; break;
        case 'k': o->knobs = optarg; break;
        case 'i': o->ao.input = optarg; break;
        case 'n':
            if (parse_whole(optarg, 1, LONG_MAX, &o->ao.iters))
                return fprintf(stderr, "harness: --iters %s: need a positive integer\n", optarg), EXIT_USAGE;
            break;
        case 'T':
            if (parse_real(optarg, 0, 1e6, &o->end_time) || !(o->end_time > 0))
                return fprintf(stderr, "harness: --time %s: need a time above 0, at most 1e6\n", optarg), EXIT_USAGE;
            break;
        case 'w': o->wg_text = optarg; break;
        case 'b': o->db = optarg; break;
        case 't':
            if (parse_real(optarg, 0, DBL_MAX, &o->timeout_s) || o->timeout_s <= 0)
                return fprintf(stderr, "harness: --timeout %s: need seconds > 0\n", optarg), EXIT_USAGE;
            break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    return 0;
}

/* Every variant on every device, each in a worker (a pool per device),
 * stored as a run per device; cells[v * devices + d]. */
static void verify_all(const struct app *app, struct app_input *in, struct app_opts *ao, const unsigned wg[2],
                       const struct variant_list *vars, const struct device_pick *pick, struct store *store,
                       double timeout_s, const char *command, struct measurement *cells) {
    char err[ERR_MAX];
    struct ref_holder refs = {app, in, NULL};
    struct progress pr;
    progress_start(&pr, "verify", vars->n * pick->count);
    for (int di = 0; di < pick->count; di++) {
        const struct device_info *info = &pick->all[pick->idx[di]];
        /* A worker per device, as rounds.c keeps: one process that had run
         * CUDA and then OpenACC crashed at its first OpenACC region (libgomp:
         * "nvptx_alloc error: context is destroyed", an H100). */
        struct worker_pool *pool = pool_open();
        int64_t run_id = store_run_begin(store, info, command, err, sizeof err);
        for (int v = 0; v < vars->n; v++) {
            struct measurement *m = &cells[v * pick->count + di];
            struct config cfg = {.app = app, .in = in, .source = ao, .knobs = vars->v[v].knobs, .wg = {wg[0], wg[1]}};
            str_copy(cfg.variant, sizeof cfg.variant, vars->v[v].name);
            char detail[128];
            str_fmt(detail, sizeof detail, "%s on %s", vars->v[v].name, info->spec);
            progress_update(&pr, di * vars->n + v, detail);
            runner_measure_isolated(pool, info, &cfg, &refs, 0, 1, timeout_s, m);
            if (run_id >= 0) store_measurement(store, run_id, m, err, sizeof err);
            progress_end(&pr);
            fprintf(stderr, "  %-11s %-18s %s\n", info->spec, vars->v[v].name, status_name(m->status));
            if (!pr.tty) progress_update(&pr, di * vars->n + v + 1, NULL);
        }
        if (run_id >= 0) store_run_end(store, run_id);
        pool_close(pool);
    }
    if (refs.ref) app->ref_free(refs.ref);
}

/* The matrix variant x device, the reasons of the cells that are neither
 * verified nor wrong, and the devices. The cells that failed: wrong, or an
 * error (invalid and unverified ones are answers). */
static int print_matrix(const struct app *app, const struct app_input *in, const unsigned wg[2],
                        const struct variant_list *vars, const struct device_pick *pick,
                        const struct measurement *cells) {
    double tolerance = 0;
    for (int i = 0; i < vars->n * pick->count; i++)
        if (cells[i].tolerance > tolerance) tolerance = cells[i].tolerance;
    printf("\n%s verification: input %s, %ld steps, work-group %ux%u, tolerance %.0e\n\n", app->name,
           app->input_name(in), app->input_iters(in), wg[0], wg[1], tolerance);
    printf("%-18s", "variant");
    for (int di = 0; di < pick->count; di++) printf(" | %-22s", pick->all[pick->idx[di]].spec);
    printf("\n");
    int notes = 0, bad = 0;
    for (int v = 0; v < vars->n; v++) {
        printf("%-18s", vars->v[v].name);
        for (int di = 0; di < pick->count; di++) {
            const struct measurement *m = &cells[v * pick->count + di];
            char text[64];
            int note =
                m->reason[0] && m->status != ST_OK && m->status != ST_WRONG && m->status != ST_UNVERIFIED ? ++notes : 0;
            cell_text(m, note, text, sizeof text);
            printf(" | %-22s", text);
            bad += m->status != ST_OK && m->status != ST_INVALID && m->status != ST_UNVERIFIED;
        }
        printf("\n");
    }
    if (notes) printf("\n");
    for (int v = 0, k = 0; v < vars->n; v++)
        for (int di = 0; di < pick->count; di++) {
            const struct measurement *m = &cells[v * pick->count + di];
            if (m->reason[0] && m->status != ST_OK && m->status != ST_WRONG && m->status != ST_UNVERIFIED) {
                size_t len = strcspn(m->reason, "\n");
                printf("[%d] %s on %s: %.*s\n", ++k, vars->v[v].name, pick->all[pick->idx[di]].spec,
                       (int)(len > 400 ? 400 : len), m->reason);
            }
        }
    printf("\ndevices:\n");
    for (int di = 0; di < pick->count; di++)
        printf("  %-11s %s (%s)\n", pick->all[pick->idx[di]].spec, pick->all[pick->idx[di]].name,
               pick->all[pick->idx[di]].driver);
    return bad;
}

int cmd_verify(int argc, char **argv) {
    struct verify_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const struct app *app = cli_app(argv[optind]);
    if (!app) return EXIT_USAGE;
    if (!o.ao.input) o.ao.input = app->verify_input;
    if (o.timeout_s == 0) o.timeout_s = app->verify_timeout_s > 0 ? app->verify_timeout_s : CONFIG_TIMEOUT_S;
    char err[ERR_MAX], timed[128];
    if (o.end_time > 0 && (rc = cli_input_at_time(app, &o.ao.input, o.end_time, o.ao.iters, timed, sizeof timed)))
        return rc;
    if (o.ao.iters <= 0 && o.end_time == 0) o.ao.iters = app->verify_iters;
    struct app_input *in = app->input_load(&o.ao, err, sizeof err);
    if (!in) return fprintf(stderr, "harness: %s\n", err), EXIT_USAGE;
    unsigned wg[2];
    if (o.wg_text ? wg_parse(o.wg_text, wg) : (wg_default(app, in, wg), 0))
        return fprintf(stderr, "harness: --wg '%s': expected WIDTHxHEIGHT\n", o.wg_text), EXIT_USAGE;
    struct variant_list vars = {0};
    struct device_pick pick = {0};
    rc = cli_variants(app, o.variant, o.knobs, &vars);
    if (!rc) rc = cli_devices(o.device, &pick);
    struct store *store = rc ? NULL : store_open(o.db ? o.db : store_default_path(), err, sizeof err);
    if (!rc && !store) {
        fprintf(stderr, "harness: %s\n", err);
        /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
        rc = EXIT_USAGE;
    }
    if (rc) {
        variants_free(&vars);
        cli_devices_free(&pick);
        app->input_free(in);
        return rc;
    }
    struct measurement *cells = xcalloc((size_t)(vars.n * pick.count), sizeof *cells);
    char command[1024];
    cli_command_line(argc, argv, command, sizeof command);
    verify_all(app, in, &o.ao, wg, &vars, &pick, store, o.timeout_s, command, cells);
    const int bad = print_matrix(app, in, wg, &vars, &pick, cells);
    for (int i = 0; i < vars.n * pick.count; i++) measurement_free(&cells[i]);
    free(cells);
    store_close(store);
    variants_free(&vars);
    cli_devices_free(&pick);
    app->input_free(in);
    return bad ? EXIT_FOUND : EXIT_OK;
}
