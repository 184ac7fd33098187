/* harness compare A B: the gate between two builds or two runs (compare.h
 * for the statistics). A and B name sets of runs: a run id, build:COMMIT
 * (every run of that build) or nightly:N (every run of that nightly;
 * nightly:-1 is the latest). Exit 1 when a series regressed.
 *
 * --rerun confirms: every flagged series is measured again on its device,
 * A and B interleaved (A B A B ...), so a drift of the machine between the
 * two original runs cannot masquerade as a regression; the rerun's verdict
 * is the one that counts. A build other than this binary's needs its
 * binary (--a-bin/--b-bin); kernels from another tree need its root
 * (--a-root/--b-root, passed as HARNESS_ROOT). */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buildinfo.h"
#include "commands.h"
#include "compare.h"
#include "store.h"
#include "store_nightly.h"
#include "util.h"

struct side {
    const char *spec, *bin, *root;
    char table[16];
    struct series_list list;
};

struct compare_opts {
    struct compare_params p;
    const char *db;
    int csv, rerun, rounds, reps;
    struct side a, b;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness compare A B [--db PATH] [--alpha P] [--min-effect F] [--csv]\n"
            "                       [--rerun [--rounds N] [--reps N] [--a-bin PATH] [--b-bin PATH]\n"
            "                                [--a-root DIR] [--b-root DIR]]\n"
            "\n"
            "Per series (device fingerprint, app, input, knobs, work-group, steps) in both A\n"
            "and B: medians, B/A, a two-sided Mann-Whitney U test. A series regressed when\n"
            "p <= alpha and B is slower by at least max(min effect, noise), noise being the\n"
            "larger relative IQR of the two sides. With one run a side the repetitions are\n"
            "tested; with several, one median per run (\"9r\" in the n column), since\n"
            "repetitions of one run share its machine state. With too few values for p to\n"
            "reach alpha at all (3 against 3 cannot go below 0.1) it says so, never flags.\n"
            "\n"
            "  A, B          a run id; build:COMMIT-PREFIX (all runs of that build);\n"
            "                nightly:N (all runs of nightly N; -1 the latest, -2 the one before);\n"
            "                or a comma-separated list of these (their union: 3,5,7)\n"
            "  --alpha P     significance (default 0.002)\n"
            "  --min-effect F  smallest relative change that counts (default 0.03)\n"
            "  --csv         CSV instead of the table\n"
            "  --rerun       measure each flagged series again, A B A B ...: --rounds runs a\n"
            "                side (default 9) of --reps repetitions (default 1), so each run is\n"
            "                one value; the rerun decides. A build other than this binary's\n"
            "                needs --a-bin or --b-bin; another kernel tree --a-root or --b-root\n"
            "                (passed as HARNESS_ROOT)\n"
            "\n"
            "Exit status: 0 no regression, 1 a regression, 2 bad usage or no such runs.\n");
}

static int parse_args(int argc, char **argv, struct compare_opts *o) {
    static const struct option longopts[] = {
        {"db", required_argument, 0, 'd'},     {"alpha", required_argument, 0, 'p'},
        {"min-effect", required_argument, 0, 'e'}, {"csv", no_argument, 0, 'c'},
        {"rerun", no_argument, 0, 'r'},        {"rounds", required_argument, 0, 'n'},
        {"reps", required_argument, 0, 'R'},   {"a-bin", required_argument, 0, 'A'},
        {"b-bin", required_argument, 0, 'B'},  {"a-root", required_argument, 0, 'X'},
        {"b-root", required_argument, 0, 'Y'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->p = COMPARE_DEFAULTS;
    o->rounds = 9; /* 9 runs a side can reach p = 4e-5 */
    o->reps = 1;
    optind = 1;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->db = optarg; break;
        case 'p':
            o->p.alpha = strtod(optarg, &end);
            if (*end || !(o->p.alpha > 0 && o->p.alpha < 1))
                return fprintf(stderr, "harness compare: --alpha %s: want 0 < P < 1\n", optarg), EXIT_USAGE;
            break;
        case 'e':
            o->p.min_effect = strtod(optarg, &end);
            if (*end || !(o->p.min_effect >= 0 && o->p.min_effect < 10))
                return fprintf(stderr, "harness compare: --min-effect %s: want a fraction such as 0.03\n", optarg),
                       EXIT_USAGE;
            break;
        case 'c': o->csv = 1; break;
        case 'r': o->rerun = 1; break;
        case 'n':
        case 'R': {
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000)
                return fprintf(stderr, "harness compare: --%s %s: want 1..1000\n", c == 'n' ? "rounds" : "reps", optarg),
                       EXIT_USAGE;
            *(c == 'n' ? &o->rounds : &o->reps) = (int)v;
            break;
        }
        case 'A': o->a.bin = optarg; break;
        case 'B': o->b.bin = optarg; break;
        case 'X': o->a.root = optarg; break;
        case 'Y': o->b.root = optarg; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "harness compare: want two run sets, A and B\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    o->a.spec = argv[optind];
    o->b.spec = argv[optind + 1];
    str_copy(o->a.table, sizeof o->a.table, "cmp_a");
    str_copy(o->b.table, sizeof o->b.table, "cmp_b");
    if (!o->db) o->db = store_default_path();
    return 0;
}

/* ---- --rerun ---------------------------------------------------------- */

/* Refuses to rerun a side with this binary when its runs came from another
 * build: the rerun would measure this build twice. */
static int check_build(sqlite3 *db, const struct side *s, const char *name) {
    if (s->bin) return 0;
    const struct build_info *me = build_info_get();
    char sql[256];
    str_fmt(sql, sizeof sql,
            "SELECT b.git_commit, b.dirty FROM run r JOIN build b ON b.id = r.build_id"
            " WHERE r.id IN (SELECT run_id FROM temp.%s) GROUP BY 1, 2",
            s->table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int bad = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *commit = (const char *)sqlite3_column_text(st, 0);
        if (!commit || strcmp(commit, me->commit)) {
            fprintf(stderr, "harness compare: --rerun: %s was measured with build %.12s, this binary is %.12s;"
                            " give --%c-bin with that build's bin/harness\n",
                    name, commit ? commit : "?", me->commit, name[0] == 'A' ? 'a' : 'b');
            bad = 1;
        }
    }
    sqlite3_finalize(st);
    return bad ? -1 : 0;
}

/* One `run` of one series with one side's binary and root, its output sent
 * to stderr so that stdout keeps the tables. */
static int rerun_child(const struct side *s, const struct series_id *id, int reps, const char *db) {
    char input[80], iters[24], wg[32], reps_s[16], warm[16];
    if (!strncmp(id->input, "gen-", 4)) str_fmt(input, sizeof input, "gen:%s", id->input + 4);
    else str_copy(input, sizeof input, id->input);
    str_fmt(iters, sizeof iters, "%ld", id->iters);
    str_fmt(wg, sizeof wg, "%ux%u", id->wg[0], id->wg[1]);
    str_fmt(reps_s, sizeof reps_s, "%d", reps);
    str_fmt(warm, sizeof warm, "%d", id->warmup);
    const char *bin = s->bin ? s->bin : "/proc/self/exe";
    char *argv[] = {"harness", "run", "--app", (char *)id->app, "--input", input, "--iters", iters,
                    "--device", (char *)id->spec, "--knobs", (char *)id->knobs, "--wg", wg,
                    "--reps", reps_s, "--warmup", warm, "--db", (char *)db, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(2, 1);
        if (s->root) setenv("HARNESS_ROOT", s->root, 1);
        execv(bin, argv);
        perror(bin);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int64_t max_run(sqlite3 *db) {
    int64_t v = 0;
    db_int(db, "SELECT max(id) FROM run", 0, &v, NULL, 0);
    return v;
}

/* Measures each regressed series again, A B A B..., and judges the rerun. */
static int rerun(sqlite3 *db, struct compare_opts *o, const struct compare_row *rows, int n) {
    if (check_build(db, &o->a, "A") || check_build(db, &o->b, "B")) return EXIT_USAGE;
    if (db_exec(db, "DROP TABLE IF EXISTS temp.rerun_a; CREATE TEMP TABLE rerun_a (run_id INTEGER PRIMARY KEY);"
                    "DROP TABLE IF EXISTS temp.rerun_b; CREATE TEMP TABLE rerun_b (run_id INTEGER PRIMARY KEY);",
                NULL, 0) != 0)
        return EXIT_FOUND;
    int todo = 0;
    for (int i = 0; i < n; i++) todo += rows[i].v == V_REGRESSION;
    if (!todo) {
        printf("rerun: nothing flagged, nothing to confirm\n");
        return EXIT_OK;
    }
    printf("rerun: %d series, %d rounds of A B with %d repetition%s each\n", todo, o->rounds, o->reps, o->reps == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        if (rows[i].v != V_REGRESSION) continue;
        for (int r = 0; r < o->rounds; r++)
            for (int side = 0; side < 2; side++) {
                const struct side *s = side ? &o->b : &o->a;
                int64_t before = max_run(db);
                int rc = rerun_child(s, &rows[i].a->id, o->reps, o->db);
                if (rc != 0) fprintf(stderr, "harness compare: rerun of %s side %c exited %d\n", rows[i].a->id.key,
                                     side ? 'B' : 'A', rc);
                char sql[160];
                str_fmt(sql, sizeof sql, "INSERT OR IGNORE INTO temp.rerun_%c SELECT id FROM run WHERE id > %lld",
                        side ? 'b' : 'a', (long long)before);
                db_exec(db, sql, NULL, 0);
            }
    }
    struct series_list la, lb;
    char err[512];
    if (series_load_runs(db, "rerun_a", &la, err, sizeof err) != 0 ||
        series_load_runs(db, "rerun_b", &lb, err, sizeof err) != 0) {
        fprintf(stderr, "harness compare: %s\n", err);
        return EXIT_FOUND;
    }
    /* The reruns ran under --knobs ("custom"): show the original names. */
    for (int side = 0; side < 2; side++) {
        struct series_list *l = side ? &lb : &la;
        for (int j = 0; j < l->n; j++)
            for (int i = 0; i < n; i++)
                if (!strcmp(l->s[j].id.key, rows[i].a->id.key))
                    str_copy(l->s[j].id.variant, sizeof l->s[j].id.variant, rows[i].a->id.variant);
    }
    struct compare_row *rr = NULL;
    int oa, ob, m = compare_lists(&la, &lb, &o->p, &rr, &oa, &ob), confirmed = 0;
    printf("\nrerun (interleaved):\n");
    compare_print(stdout, rr, m, o->csv);
    for (int i = 0; i < m; i++) confirmed += rr[i].v == V_REGRESSION;
    if (m < todo) printf("rerun: %d of %d series gave no samples on both sides\n", todo - m, todo);
    printf("rerun: %d of %d regressions confirmed\n", confirmed, todo);
    free(rr);
    series_list_free(&la);
    series_list_free(&lb);
    return confirmed ? EXIT_FOUND : EXIT_OK;
}

/* ---- the command -------------------------------------------------------- */

static int load_side(sqlite3 *db, struct side *s, char *err, size_t errn) {
    int n = runset_resolve(db, s->spec, s->table, err, errn);
    if (n <= 0) return -1;
    return series_load_runs(db, s->table, &s->list, err, errn);
}

int cmd_compare(int argc, char **argv) {
    struct compare_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    struct store *store = nightly_store_open("compare", o.db, 1, &rc);
    if (!store) return rc;
    char err[1024];
    sqlite3 *db = store_db(store);
    if (load_side(db, &o.a, err, sizeof err) != 0 || load_side(db, &o.b, err, sizeof err) != 0) {
        fprintf(stderr, "harness compare: %s\n", err);
        series_list_free(&o.a.list);
        store_close(store);
        return EXIT_USAGE;
    }
    struct compare_row *rows = NULL;
    int only_a, only_b, n = compare_lists(&o.a.list, &o.b.list, &o.p, &rows, &only_a, &only_b);
    int counts[4] = {0};
    for (int i = 0; i < n; i++) counts[rows[i].v]++;
    if (!o.csv) printf("A = %s, B = %s: Mann-Whitney U, two-sided, flag at p <= %g and |B/A - 1| >= max(%.0f %%, noise)\n",
                       o.a.spec, o.b.spec, o.p.alpha, 100 * o.p.min_effect);
    compare_print(stdout, rows, n, o.csv);
    if (!o.csv) {
        printf("%d series compared: %d regression%s, %d improvement%s, %d same, %d with too few samples",
               n, counts[V_REGRESSION], counts[V_REGRESSION] == 1 ? "" : "s", counts[V_IMPROVEMENT],
               counts[V_IMPROVEMENT] == 1 ? "" : "s", counts[V_SAME], counts[V_FEW]);
        if (only_a || only_b) printf("; %d only in A, %d only in B", only_a, only_b);
        printf("\n");
        if (n == 0) printf("no series in common: A and B measured different devices, configs or step counts\n");
    }
    rc = counts[V_REGRESSION] ? EXIT_FOUND : EXIT_OK;
    if (o.rerun) rc = rerun(db, &o, rows, n);
    free(rows);
    series_list_free(&o.a.list);
    series_list_free(&o.b.list);
    store_close(store);
    return rc;
}
