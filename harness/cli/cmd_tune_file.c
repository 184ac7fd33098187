/* harness tune --replay FILE: a strategy searched over a recorded
 * landscape (a Kernel Tuner cache, T4 results or a CSV: tune/landscape.h)
 * instead of the database. cmd_tune.c hands a call over here when
 * --replay is followed by a file (`--replay FILE` or `--replay=FILE`);
 * `--replay` alone still replays the database. This parses the options
 * that apply, runs tune_replay_file (tune/) and prints; nothing here
 * opens a database, so nothing is stored and none is created. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "tune/json.h"
#include "tune/tune_replay_file.h"

void tune_replay_file_usage(FILE *out) {
    fprintf(out,
            "usage: harness tune --replay FILE --strategy S [--budget N|P%%] [--seed N] [--json]\n"
            "                    [--input NAME] [--variant NAME] [--device NAME] [--app NAME] [--iters N]\n"
            "  FILE        a recorded landscape, told by its content (gzipped or not):\n"
            "              a Kernel Tuner cache file (.json, .json.gz; one cut off by a stopped run\n"
            "              is read as Kernel Tuner reads it), T4 results (Kernel Tuner's output, or\n"
            "              `harness export --format t4`), or a CSV with a time column named with its\n"
            "              unit (median_s, time_ms, ...; a bare `time` is Kernel Tuner's ms)\n"
            "  --strategy  %s\n"
            "  --budget    the most distinct points to evaluate: a count, or a percentage of the\n"
            "              space's points (10%%, rounded up); more than the space is refused. A\n"
            "              failed configuration costs an evaluation, as it would live\n"
            "  --seed      makes the strategies repeatable (default 1)\n"
            "  --json      one JSON object: strategy, seed, budget, evaluations, best (seconds),\n"
            "              best_config, optimum (seconds), optimum_config, within (best/optimum - 1)\n"
            "  --input, --variant, --device, --app, --iters  which landscape of a file that holds\n"
            "              several (a CSV's or a T4 export's rows by those columns; a variant\n"
            "              by its name before any {knobs}); an unclear choice lists them\n"
            "Nothing runs, no database is opened and nothing is stored.\n"
            "Exit status: 0 done, 1 no evaluated point succeeded, 2 bad input (the file, the\n"
            "options, a budget larger than the space).\n",
            TUNE_STRATEGIES);
}

int tune_replay_file_named(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strncmp(argv[i], "--replay=", 9)) return 1;
        if (!strcmp(argv[i], "--replay") && i + 1 < argc && argv[i + 1][0] != '-') return 1;
    }
    return 0;
}

/* The options of tune --replay FILE, and tune's other options, named so the
 * message can say why they do not apply. */
static const struct option longopts[] = {{"replay", required_argument, 0, 'R'},
                                         {"strategy", required_argument, 0, 's'},
                                         {"budget", required_argument, 0, 'B'},
                                         {"seed", required_argument, 0, 'S'},
                                         {"json", no_argument, 0, 'J'},
                                         {"app", required_argument, 0, 'a'},
                                         {"device", required_argument, 0, 'd'},
                                         {"input", required_argument, 0, 'i'},
                                         {"variant", required_argument, 0, 'v'},
                                         {"iters", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'},
                                         {"params", required_argument, 0, 'X'},
                                         {"obstacles", required_argument, 0, 'X'},
                                         {"reps", required_argument, 0, 'X'},
                                         {"warmup", required_argument, 0, 'X'},
                                         {"wg-max", required_argument, 0, 'X'},
                                         {"timeout", required_argument, 0, 'X'},
                                         {"rounds", required_argument, 0, 'X'},
                                         {"db", required_argument, 0, 'X'},
                                         {"screen", required_argument, 0, 'X'},
                                         {"finalists", required_argument, 0, 'X'},
                                         {"objective", required_argument, 0, 'X'},
                                         {"store", no_argument, 0, 'X'},
                                         {"replace", no_argument, 0, 'X'},
                                         {"warm-start", no_argument, 0, 'X'},
                                         {0, 0, 0, 0}};

static int parse(int argc, char **argv, struct replay_file_opts *o, int *json) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    *json = 0;
    optind = 1;
    int c, at;
    long v;
    while ((c = getopt_long(argc, argv, "h", longopts, &at)) != -1) {
        switch (c) {
        case 'R': o->path = optarg; break;
        case 's': o->strategy = optarg; break;
        case 'B':
            if (tune_budget_parse(optarg, &o->budget))
                return fprintf(stderr,
                               "harness: --budget %s: need a count of evaluations (1 or more) or a percentage of the "
                               "points (0%% < P <= 100%%)\n",
                               optarg),
                       EXIT_USAGE;
            break;
        case 'S':
            if (parse_whole(optarg, 0, 0xffffffffL, &v))
                return fprintf(stderr, "harness: --seed %s: need a whole number in 0..4294967295\n", optarg),
                       EXIT_USAGE;
            o->seed = (unsigned)v;
            break;
        case 'J': *json = 1; break;
        case 'a': o->pick.app = optarg; break;
        case 'd': o->pick.device = optarg; break;
        case 'i': o->pick.input = optarg; break;
        case 'v': o->pick.variant = optarg; break;
        case 'n': o->pick.iters = optarg; break;
        case 'X':
            return fprintf(stderr,
                           "harness: tune --replay FILE: --%s does not apply (a recorded landscape: nothing runs, no "
                           "database is read or written)\n",
                           longopts[at].name),
                   EXIT_USAGE;
        case 'h': tune_replay_file_usage(stdout); return -1;
        default: tune_replay_file_usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        const char *arg = argv[optind];
        const size_t n = strlen(arg);
        return fprintf(stderr, "harness: tune --replay FILE: unexpected argument '%s'%s\n", arg,
                       n > 6 && !strcmp(arg + n - 6, ".sweep") ? " (a sweep file goes before --replay, which then "
                                                                 "replays the database over its space)"
                                                               : ""),
               EXIT_USAGE;
    }
    const size_t n = strlen(o->path);
    if (n > 6 && !strcmp(o->path + n - 6, ".sweep"))
        return fprintf(stderr,
                       "harness: tune --replay %s: a sweep file, not a recorded landscape; to replay the database over "
                       "its space put it first: harness tune %s --replay ...\n",
                       o->path, o->path),
               EXIT_USAGE;
    return 0;
}

static const char *secs(char *buf, size_t n, double s) {
    if (s >= 1) snprintf(buf, n, "%.4f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.4f ms", s * 1e3);
    else if (s >= 1e-6) snprintf(buf, n, "%.3f us", s * 1e6);
    else snprintf(buf, n, "%.1f ns", s * 1e9);
    return buf;
}

/* Warnings the file deserves, on stderr (so --json's stdout stays one object). */
static void notes(const struct landscape *l) {
    if (l->cut_off)
        note("%s: a Kernel Tuner cache cut off before its closing (a run that stopped): read as Kernel Tuner reads "
             "it, %d entries\n",
             l->path, l->n);
    if (l->repeated)
        note("%s: %d configuration%s recorded more than once; the last record of each is used\n", l->path, l->repeated,
             l->repeated == 1 ? " was" : "s were");
    if (l->objective && strcmp(l->objective, "time"))
        note("%s: the tuning's objective was %s; the replay minimises the time\n", l->path, l->objective);
}

static void print_config(const struct landscape *l, int point) {
    for (int k = 0; k < l->nparams; k++)
        printf("%s%s=%s", k ? " " : "", l->param[k].name, landscape_value_at(l, point, k)->text);
}

static void print_human(const struct replay_file_opts *o, const struct replay_file_run *run) {
    const struct landscape *l = &run->l;
    char a[32];
    printf("tune --replay %s: %s", l->path, l->format);
    if (l->kernel) printf(" of %s", l->kernel);
    if (l->device) printf(" on %s", l->device);
    if (l->group) printf(" (%s)", l->group);
    printf(": %d points (%d failed), %d parameter%s\n", l->n, l->failed, l->nparams, l->nparams == 1 ? "" : "s");
    printf("parameters  ");
    for (int k = 0; k < l->nparams; k++) {
        const struct landscape_param *p = &l->param[k];
        printf("%s %s %s", k ? "," : "", p->name, landscape_kind_name(p->kind));
        if (p->kind == LANDSCAPE_ORDERED && p->nlevels > 1)
            printf(" %s..%s", p->level[0].text, p->level[p->nlevels - 1].text);
        printf(" (%d)", p->nlevels);
    }
    printf("\nstrategy     %s, seed %u, budget %d", o->strategy, o->seed, run->budget);
    if (!strcmp(o->strategy, "exhaustive")) printf(" (every point)");
    else if (o->budget.percent > 0) printf(" (%g%% of %d points)", o->budget.percent, l->n);
    printf("\nevaluations  %d of %d points\n", run->r.evaluations, l->n);
    printf("best         %s  ", secs(a, sizeof a, run->r.best_s));
    print_config(l, run->r.best);
    printf("\noptimum      %s  ", secs(a, sizeof a, l->seconds[l->optimum]));
    print_config(l, l->optimum);
    const double within = run->r.best_s / l->seconds[l->optimum] - 1;
    printf("\nwithin       %+.2f%% of the optimum%s\n", 100 * within, within <= 0 ? ": found it" : "");
}

static void json_value(const struct landscape_value *v) {
    if (v->type == LANDSCAPE_NUMBER) json_put_number(stdout, v->number);
    else if (v->type == LANDSCAPE_BOOL) fputs(v->number ? "true" : "false", stdout);
    else json_put_string(stdout, v->text);
}

static void json_config(const struct landscape *l, int point) {
    if (point < 0) {
        fputs("null", stdout);
        return;
    }
    putchar('{');
    for (int k = 0; k < l->nparams; k++) {
        if (k) fputs(", ", stdout);
        json_put_string(stdout, l->param[k].name);
        fputs(": ", stdout);
        json_value(landscape_value_at(l, point, k));
    }
    putchar('}');
}

static void json_text(const char *key, const char *v) {
    printf(", \"%s\": ", key);
    if (v) json_put_string(stdout, v);
    else fputs("null", stdout);
}

/* One object; found = 0 (nothing succeeded) leaves best, best_config and within null. */
static void print_json(const struct replay_file_opts *o, const struct replay_file_run *run, int found) {
    const struct landscape *l = &run->l;
    fputs("{\"file\": ", stdout);
    json_put_string(stdout, l->path);
    json_text("format", l->format);
    json_text("kernel", l->kernel);
    json_text("device", l->device);
    json_text("landscape", l->group);
    printf(", \"points\": %d, \"failed\": %d, \"parameters\": [", l->n, l->failed);
    for (int k = 0; k < l->nparams; k++) {
        printf("%s{\"name\": ", k ? ", " : "");
        json_put_string(stdout, l->param[k].name);
        printf(", \"kind\": \"%s\", \"values\": %d}", landscape_kind_name(l->param[k].kind), l->param[k].nlevels);
    }
    fputs("]", stdout);
    json_text("strategy", o->strategy);
    printf(", \"seed\": %u, \"budget\": %d, \"evaluations\": %d, \"best\": ", o->seed, run->budget, run->r.evaluations);
    json_put_number(stdout, found ? run->r.best_s : NAN);
    fputs(", \"best_config\": ", stdout);
    json_config(l, found ? run->r.best : -1);
    fputs(", \"optimum\": ", stdout);
    json_put_number(stdout, l->seconds[l->optimum]);
    fputs(", \"optimum_config\": ", stdout);
    json_config(l, l->optimum);
    fputs(", \"within\": ", stdout);
    json_put_number(stdout, found ? run->r.best_s / l->seconds[l->optimum] - 1 : NAN);
    fputs("}\n", stdout);
}

int cmd_tune_replay_file(int argc, char **argv) {
    struct replay_file_opts o;
    int json;
    int rc = parse(argc, argv, &o, &json);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    struct replay_file_run run;
    char err[8192];
    rc = tune_replay_file(&o, &run, err, sizeof err);
    if (rc == EXIT_USAGE) {
        fprintf(stderr, "harness: tune --replay: %s\n", err);
    } else {
        notes(&run.l);
        if (rc) fprintf(stderr, "harness: tune --replay: %s\n", err);
        if (json) print_json(&o, &run, rc == EXIT_OK);
        else if (!rc) print_human(&o, &run);
    }
    tune_replay_file_free(&run);
    return rc;
}
