/* harness compare A B: the gate between two builds or two sets of runs
 * (compare.h for the statistics). A and B name sets of runs: a run id,
 * build:COMMIT (every run of that build) or nightly:N (every run of that
 * nightly; nightly:-1 is the latest). Exit 1 when a series regressed and no
 * confirmation called it noise.
 *
 * A flag on stored nights is a candidate: it says "unconfirmed" until a
 * confirmation (confirm.h: both builds interleaved on the device) judged
 * it; nightly confirms its own flags at once, and --rerun does it here. The
 * builds come from the kept builds (kept_build.h) of the sides' nights, or
 * from --a-bin/--b-bin and --a-root/--b-root. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "store/store.h"
#include "store/store_compare.h"
#include "store/store_nightly.h"
#include "track/burn_in.h"
#include "track/compare.h"
#include "track/confirm.h"
#include "track/host_check.h"
#include "track/kept_build.h"
#include "track/noise.h"
#include "track/steadiest.h"

struct side {
    const char *spec, *bin, *root;
    char table[16];
    struct series_list list;
    /* the build that measured it, when it is one */
    char build[80]; /* a kept build's hash, else the commit (+dirty) */
    char kept_bin[PATH_MAX], kept_root[PATH_MAX];
};

struct compare_opts {
    struct compare_params p;
    const char *db;
    int csv, rerun, rounds, burn;
    double max_time_s;
    struct side a, b;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness compare A B [--db PATH] [--alpha P] [--min-effect F] [--target PCT] [--csv]\n"
            "                       [--rerun [--rounds N] [--max-time SECONDS] [--a-bin PATH]\n"
            "                                [--b-bin PATH] [--a-root DIR] [--b-root DIR]\n"
            "                                [--burn-in SECONDS]]\n"
            "\n"
            "Per series (device fingerprint, app, input, knobs, work-group, steps) in both A\n"
            "and B. Each run is one night; its value comes from its rounds (the medians of its\n"
            "worker processes), never from repetitions pooled across one process. The test is a\n"
            "t-test on the night values with the variance of the series' noise model (learned\n"
            "from nights of one build: `harness noise`) and of the rounds. A series changed when\n"
            "p <= alpha and B differs by at least max(min effect, one night's spread).\n"
            "A flag on stored runs is unconfirmed until a confirmation measured both builds\n"
            "again, interleaved (nightly does it at once; --rerun does it here). A series whose\n"
            "comparison could not have shown a change of the target (the \"sees\" column) is\n"
            "inconclusive, never \"same\". CPU series are judged by the steadiest of wall time,\n"
            "CPU time and cycles where they were recorded.\n"
            "\n"
            "  A, B          a run id; build:COMMIT-PREFIX (all runs of that build);\n"
            "                nightly:N (all runs of nightly N; -1 the latest, -2 the one before);\n"
            "                or a comma-separated list of these (their union: 3,5,7)\n"
            "  --alpha P     significance (default 0.002)\n"
            "  --min-effect F  smallest relative change that counts (default 0.03)\n"
            "  --target PCT  the change a comparison must be able to show to call a series the\n"
            "                same (default %.0f; 0: never inconclusive)\n"
            "  --csv         CSV instead of the table\n"
            "  --pooled      the statistic used before rounds, to see what it says of the same runs:\n"
            "                every repetition pooled as if independent, Mann-Whitney U, a change at\n"
            "                p <= alpha beyond max(min effect, the larger relative IQR); never --rerun\n"
            "  --rerun       confirm each flagged series: A's and B's builds measured again on\n"
            "                the device, interleaved, --rounds pairs of rounds (default %d), each\n"
            "                round a fresh worker process of each build with the nights' warm-up\n"
            "                and repetitions; the paired test decides (p <= %g and the min effect).\n"
            "                The builds are the sides' kept builds (results/builds), or this\n"
            "                binary when a side was measured by it; --a-bin/--b-bin name another\n"
            "                binary, --a-root/--b-root another kernel tree (as HARNESS_ROOT).\n"
            "                The host is checked before and after; a burn-in (--burn-in, default\n"
            "                30 s at most) brings the devices to a steady state first; rounds are\n"
            "                added to a series that still cannot show the target, for at most\n"
            "                --max-time seconds (default 300; 0: none)\n"
            "\n"
            "Exit status: 0 no regression (or every one rejected by a confirmation; inconclusive\n"
            "series are counted in the summary line, not in the status: `nightly` has its own, 3),\n"
            "1 a regression or no database, 2 bad usage, no such runs, or a build --rerun cannot\n"
            "find.\n",
            100 * COMPARE_TARGET, CONFIRM_ROUNDS, CONFIRM_ALPHA);
}

static int parse_args(int argc, char **argv, struct compare_opts *o) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"alpha", required_argument, 0, 'p'},
                                             {"min-effect", required_argument, 0, 'e'},
                                             {"csv", no_argument, 0, 'c'},
                                             {"rerun", no_argument, 0, 'r'},
                                             {"rounds", required_argument, 0, 'n'},
                                             {"reps", required_argument, 0, 'R'},
                                             {"a-bin", required_argument, 0, 'A'},
                                             {"b-bin", required_argument, 0, 'B'},
                                             {"a-root", required_argument, 0, 'X'},
                                             {"b-root", required_argument, 0, 'Y'},
                                             {"burn-in", required_argument, 0, 'u'},
                                             {"pooled", no_argument, 0, 'P'},
                                             {"target", required_argument, 0, 'T'},
                                             {"max-time", required_argument, 0, 'M'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->p = COMPARE_DEFAULTS;
    o->rounds = CONFIRM_ROUNDS;
    o->burn = 30;
    o->max_time_s = 300;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->db = optarg; break;
        case 'p':
            if (cli_alpha("compare", optarg, &o->p.alpha)) return EXIT_USAGE;
            break;
        case 'e':
            if (cli_min_effect("compare", optarg, &o->p.min_effect)) return EXIT_USAGE;
            break;
        case 'c': o->csv = 1; break;
        case 'P': o->p.pooled = 1; break;
        case 'T':
            if (cli_target("compare", optarg, &o->p.target)) return EXIT_USAGE;
            break;
        case 'M':
            if (cli_max_time("compare", optarg, &o->max_time_s)) return EXIT_USAGE;
            break;
        case 'r': o->rerun = 1; break;
        case 'n':
        case 'R': /* --reps: the nights' own repetitions per round are used; kept for old scripts */
        case 'u': {
            long v, lo = c == 'u' ? 0 : c == 'n' ? 2 : 1;
            if (parse_whole(optarg, lo, 1000, &v))
                return fprintf(stderr, "harness compare: --%s %s: want %ld..1000\n",
                               c == 'n'   ? "rounds"
                               : c == 'u' ? "burn-in"
                                          : "reps",
                               optarg, lo),
                       EXIT_USAGE;
            if (c == 'n') o->rounds = (int)v;
            if (c == 'u') o->burn = (int)v;
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

/* ---- the sides' builds ---------------------------------------------------- */

/* The one build a side's runs came from: its kept hash when its nights were
 * kept, else the commit (+dirty). -1 (message on stderr) when the side
 * mixes builds. */
static int side_build(struct store *store, struct side *s, const char *name) {
    char second[128];
    int k = store_runset_builds(store, s->table, s->build, sizeof s->build, second, sizeof second);
    if (k >= 2)
        fprintf(stderr, "harness compare: %s (%s) holds runs of several builds (%s, %s, ...)\n", name, s->spec,
                s->build, second);
    return k == 1 ? 0 : -1;
}

/* Which binary and root measure a side again. EXIT_USAGE with the reason
 * when the build is not at hand. */
static int side_exec(const struct side *s, const char *name, struct round_exec *e, struct side *mut) {
    char flag = name[0] == 'A' ? 'a' : 'b';
    if (s->bin || s->root) {
        e->bin = s->bin;
        e->root = s->root;
        return 0;
    }
    char err[ERR_MAX];
    if (strlen(s->build) == KEPT_HASH_LEN && strspn(s->build, "0123456789abcdef") == KEPT_HASH_LEN) {
        if (kept_build_find(s->build, mut->kept_root, sizeof mut->kept_root, mut->kept_bin, sizeof mut->kept_bin, err,
                            sizeof err) != 0) {
            fprintf(stderr, "harness compare: --rerun: %s: %s; give --%c-bin (and --%c-root)\n", name, err, flag, flag);
            return EXIT_USAGE;
        }
        e->bin = mut->kept_bin;
        e->root = mut->kept_root;
        return 0;
    }
    const struct build_info *me = build_info_get();
    char mine[80];
    str_fmt(mine, sizeof mine, "%s%s", me->commit, me->dirty ? "+dirty" : "");
    if (!strcmp(s->build, mine) && !me->dirty) {
        e->bin = e->root = NULL; /* this very build */
        return 0;
    }
    fprintf(stderr,
            "harness compare: --rerun: %s was measured with build %.20s, which is not kept%s; this binary is"
            " %.20s: give --%c-bin with that build's bin/harness\n",
            name, s->build, me->dirty ? " (and a dirty tree cannot be told apart)" : "", mine, flag);
    return EXIT_USAGE;
}

/* ---- confirmations already made ------------------------------------------- */

/* A flag that a confirmation of these two builds already judged says so. */
static void attach_confirmations(struct store *store, const struct compare_opts *o, struct compare_row *rows, int n) {
    if (!o->a.build[0] || !o->b.build[0]) return;
    for (int i = 0; i < n; i++) {
        struct compare_row *r = &rows[i];
        struct confirmation_seen c;
        if (!compare_wants_confirmation(r) ||
            !store_confirmation_latest(store, r->a->id.key, o->a.build, o->b.build, &c))
            continue;
        char line[200];
        if (!c.has_ratio) str_fmt(line, sizeof line, "%s: %s", c.verdict, c.reason);
        else str_fmt(line, sizeof line, "%s: B/A %.3f over %d pairs, p %.2g", c.verdict, c.ratio, c.rounds, c.p);
        compare_row_confirmation(r, line, c.has_ratio ? c.ratio : NAN, c.has_ratio ? c.detectable : NAN);
    }
}

/* ---- --rerun ---------------------------------------------------------------- */

static int rerun(struct store *store, struct compare_opts *o, struct compare_row *rows, int n) {
    struct round_exec ea = {0}, eb = {0};
    if (side_exec(&o->a, "A", &ea, &o->a) || side_exec(&o->b, "B", &eb, &o->b)) return EXIT_USAGE;
    struct confirm_series *cs = xcalloc((size_t)n + 1, sizeof *cs);
    struct strbuf devs = {0};
    const int k = confirm_from_rows(rows, n, 0, cs, &devs);
    if (!k) {
        printf("rerun: nothing flagged, suspect or inconclusive, nothing to confirm\n");
        free(cs);
        return EXIT_OK;
    }
    struct host_check before, after;
    cli_host_check(store, devs.s, 1, &before);
    host_check_print(stdout, "before", &before);
    if (o->burn > 0) cli_burn_in(devs.s, 3, o->burn, stdout);
    printf("rerun: %d series, %d pairs of rounds, A = %s, B = %s\n", k, o->rounds, ea.bin ? ea.bin : "this binary",
           eb.bin    ? eb.bin
           : eb.root ? eb.root
                     : "this binary");
    fflush(stdout);
    struct confirm_opts co = {.a = ea,
                              .b = eb,
                              .build_a = o->a.build,
                              .build_b = o->b.build,
                              .rounds = o->rounds,
                              .min_effect = o->p.min_effect,
                              .source = "compare",
                              .seed = (unsigned)(clock_now() * 1e3),
                              .target = o->p.target,
                              .max_time_s = o->max_time_s};
    int confirmed = confirm_run(store, cs, k, &co), regressions = 0;
    cli_host_check(store, devs.s, 1, &after);
    host_check_print(stdout, "after", &after);
    printf("\nrerun (A and B interleaved, paired by round):\n");
    for (int i = 0, j = 0; i < n && confirmed >= 0; i++) {
        if (!compare_wants_confirmation(&rows[i])) continue;
        char line[200];
        confirm_describe(&cs[j], line, sizeof line);
        compare_row_confirmation(&rows[i], line, cs[j].r.ratio, cs[j].r.n ? cs[j].detectable : NAN);
        regressions += rows[i].v == V_REGRESSION && !strcmp(cs[j].verdict, "confirmed");
        j++;
    }
    compare_print(stdout, rows, n, 0);
    int inconclusive = 0;
    for (int i = 0; i < n; i++) inconclusive += rows[i].v == V_INCONCLUSIVE;
    if (co.added_rounds)
        printf("rerun: %d pairs of rounds added in %.0f s (--max-time %.0f s) where a series could not yet show"
               " %.0f %%\n",
               co.added_rounds, co.added_s, o->max_time_s, 100 * o->p.target);
    if (confirmed < 0) printf("rerun: interrupted\n");
    else
        printf("rerun: %d of %d flags and suspects confirmed (%d regression%s)%s\n", confirmed, k, regressions,
               regressions == 1 ? "" : "s",
               before.disturbed || after.disturbed ? "; the host was DISTURBED (above): read the verdicts with care"
                                                   : "");
    sb_free(&devs);
    free(cs);
    if (inconclusive) printf("rerun: %d series still inconclusive\n", inconclusive);
    return confirmed < 0 ? EXIT_FOUND : regressions ? EXIT_FOUND : EXIT_OK;
}

/* ---- the command ------------------------------------------------------------ */

static int load_side(struct store *store, struct side *s, char *err, size_t errn) {
    int n = store_runset(store, s->spec, s->table, err, errn);
    if (n <= 0) return -1;
    return series_load_runs(store, s->table, &s->list, err, errn);
}

/* The summary under the table: the verdicts counted (a flag the
 * confirmation rejected counted as noise), what is only on one side, and
 * what --rerun would settle. Returns how many regressions stand. */
static int summarise(const struct compare_opts *o, const struct compare_row *rows, int n, int only_a, int only_b) {
    int counts[5] = {0}, open = 0, unconfirmed = 0, suspects = 0, rejected = 0;
    for (int i = 0; i < n; i++) {
        /* A flag the confirmation rejected is noise, counted as such: the
         * summary said "1 regression" under a row "REGRESSION (rejected ...)". */
        if ((rows[i].v == V_REGRESSION || rows[i].v == V_IMPROVEMENT) && rows[i].rejected) {
            rejected++;
            continue;
        }
        counts[rows[i].v]++;
        suspects += rows[i].v == V_SAME && rows[i].suspect && !rows[i].rejected;
        open += rows[i].v == V_REGRESSION && !rows[i].rejected;
        unconfirmed += (rows[i].v == V_REGRESSION || rows[i].v == V_IMPROVEMENT) && !rows[i].confirmation[0];
    }
    if (o->csv) return open;
    printf("%d series compared: %d regression%s, %d improvement%s, %d same, %d inconclusive (cannot show %.0f"
           " %%), %d that cannot be told",
           n, counts[V_REGRESSION], counts[V_REGRESSION] == 1 ? "" : "s", counts[V_IMPROVEMENT],
           counts[V_IMPROVEMENT] == 1 ? "" : "s", counts[V_SAME], counts[V_INCONCLUSIVE], 100 * o->p.target,
           counts[V_FEW]);
    if (rejected) printf(", %d flag%s rejected as noise by the confirmation", rejected, rejected == 1 ? "" : "s");
    if (only_a || only_b) printf("; %d only in A, %d only in B", only_a, only_b);
    printf("\n");
    if (suspects && !o->rerun)
        printf("%d suspect%s (past the minimum effect at p <= %.2g, not a change by itself): --rerun"
               " measures both builds again\n",
               suspects, suspects == 1 ? "" : "s", o->p.screen_alpha);
    if (unconfirmed && !o->rerun)
        printf("%d flag%s unconfirmed: no confirmation measured these builds again (harness compare %s %s"
               " --rerun)\n",
               unconfirmed, unconfirmed == 1 ? " is" : "s are", o->a.spec, o->b.spec);
    if (n == 0) printf("no series in common: A and B measured different devices, configs or step counts\n");
    return open;
}

int cmd_compare(int argc, char **argv) {
    struct compare_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    struct store *store = nightly_store_open("compare", o.db, 1, &rc);
    if (!store) return rc;
    kept_builds_for_db(o.db);
    char err[ERR_MAX], before[40];
    if (load_side(store, &o.a, err, sizeof err) != 0 || load_side(store, &o.b, err, sizeof err) != 0) {
        fprintf(stderr, "harness compare: %s\n", err);
        series_list_free(&o.a.list);
        store_close(store);
        return EXIT_USAGE;
    }
    int builds_ok = side_build(store, &o.a, "A") == 0 && side_build(store, &o.b, "B") == 0;
    if (!builds_ok) o.a.build[0] = o.b.build[0] = '\0';
    /* The noise model learns from the nights before B's first ("" when B
     * holds no nightly: all history). */
    store_runset_first_night(store, o.b.table, before, sizeof before);
    struct noise_set ns;
    if (noise_set_load(store, before, &ns, err, sizeof err) != 0) {
        fprintf(stderr, "harness compare: %s\n", err);
        store_close(store);
        return EXIT_FOUND;
    }
    o.p.noise = &ns;
    struct compare_row *rows = NULL;
    int only_a, only_b, n = compare_lists(&o.a.list, &o.b.list, &o.p, &rows, &only_a, &only_b);
    if (compare_steadiest(store, o.a.table, o.b.table, before, &o.p, rows, n, err, sizeof err) != 0)
        fprintf(stderr, "harness compare: the CPU counters: %s (wall time alone judges)\n", err);
    attach_confirmations(store, &o, rows, n);
    if (!o.csv && o.p.pooled)
        printf("A = %s, B = %s: THE OLD STATISTIC (every repetition pooled, Mann-Whitney U; the nights/rnds column"
               " counts repetitions): a change when p <= %g and |B/A - 1| >= max(%.0f %%, the larger IQR)\n",
               o.a.spec, o.b.spec, o.p.alpha, 100 * o.p.min_effect);
    else if (!o.csv)
        printf("A = %s, B = %s: nights from their rounds; a change when p <= %g and |B/A - 1| >= max(%.0f %%, a"
               " night's spread)\n",
               o.a.spec, o.b.spec, o.p.alpha, 100 * o.p.min_effect);
    if (o.rerun && o.p.pooled) {
        fprintf(stderr, "harness compare: --pooled shows the old statistic; it does not confirm (drop --rerun)\n");
        rc = EXIT_USAGE;
    }
    if (o.rerun && !builds_ok) {
        fprintf(stderr, "harness compare: --rerun needs each side to be one build (or --a-bin/--b-bin)\n");
        if (!o.a.bin && !o.b.bin) rc = EXIT_USAGE;
    }
    if (!rc) compare_print(stdout, rows, n, o.csv);
    const int open = summarise(&o, rows, n, only_a, only_b);
    if (!rc) rc = open ? EXIT_FOUND : EXIT_OK;
    if (!rc || rc == EXIT_FOUND) {
        if (o.rerun) rc = rerun(store, &o, rows, n);
    }
    free(rows);
    noise_set_free(&ns);
    series_list_free(&o.a.list);
    series_list_free(&o.b.list);
    store_close(store);
    return rc;
}
