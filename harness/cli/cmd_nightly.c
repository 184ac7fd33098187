/* harness nightly: the fixed suite every night on every device, so that
 * `harness regressions` has one point per series per night, gated at once
 * against the night before.
 *
 *   1. The build is kept (kept_build.h: the binary and its kernel tree,
 *      content-addressed beside the database), so a later night can
 *      measure it again.
 *   2. Burn-in (burn_in.h): every device runs its canary until it is steady.
 *   3. `peak` (the canary: each device's copy bandwidth, how the machine is
 *      tonight) and one `sweep` of every suite file plus one generated file
 *      per tuned work-group (`harness tune`'s winner) the suites lack and
 *      per tuned configuration (`variant tuned`) the suites do not name, with
 *      --rounds R: each round a fresh worker per device, all configs
 *      shuffled (rounds.h). These are child processes of this binary on the
 *      same database; the nightly row links the runs and peaks they made.
 *   4. The night's quality (night_quality.h): canary, throttling, load.
 *   5. The gate (nightly_gate.h): against the previous night of this host
 *      and suite, flags confirmed with both kept builds interleaved.
 * Exit 1 only for a confirmed regression or a step that failed. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "core/sweep_file.h"
#include "store/store.h"
#include "store/store_nightly.h"
#include "store/store_nightly_run.h"
#include "store/store_quality.h"
#include "store/store_tuned.h"
#include "track/burn_in.h"
#include "track/compare.h"
#include "track/confirm.h"
#include "track/kept_build.h"
#include "track/night_quality.h"
#include "track/nightly_gate.h"
#include "track/telemetry.h"

#define MAX_SUITES 16
#define MAX_TUNED 64
#define NIGHTLY_MAX_DEVICES 64

#define NIGHTLY_DEFAULT_ROUNDS 6

struct nightly_opts {
    const char *suites[MAX_SUITES], *db;
    int nsuites, rounds, confirm, confirm_rounds;
    double burn_in_s, keep_days;
    long long seed;
    double target, max_time_s; /* max_time_s < 0: as long as the night's measuring took */
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness nightly [--suite FILE]... [--db PATH] [--rounds R] [--burn-in SECONDS]\n"
            "                       [--no-confirm] [--confirm-rounds N] [--keep-days D] [--seed S]\n"
            "                       [--target PCT] [--max-time SECONDS]\n"
            "\n"
            "Runs the nightly suite on every device it names and gates it against the night\n"
            "before. The build is kept (beside the database, in builds/); the devices are\n"
            "burnt in until their canary is steady; the canary (harness peak) is stored; the\n"
            "suites (and the tuned work-group of each variant that `harness tune` stored and\n"
            "the suites lack, and the tuned configuration `harness tune FILE` stored for a\n"
            "suite's inputs and devices, as variant tuned) run in R rounds, each a fresh worker\n"
            "per device with every config in a shuffled order. A suite may name `variant tuned`\n"
            "itself: where nothing is stored it is skipped with a note. The night's quality is\n"
            "judged (canary, GPU throttling, load); then every series is compared with the\n"
            "previous night of this host and suite on its rounds and noise model, and each flag\n"
            "is confirmed at once: last night's kept build and tonight's measured again,\n"
            "interleaved, on the device. A series whose comparison could not have shown a\n"
            "change of the target is inconclusive, never \"same\": it is measured again the\n"
            "same way, rounds added until it can or --max-time is spent. CPU series are judged\n"
            "by the steadiest of wall time, CPU time and cycles (hardware counters where the\n"
            "host allows perf_event_open); GPU series by wall time or their device events'\n"
            "time, whichever sees the smaller change (a flag by wall time stands).\n"
            "\n"
            "  --suite FILE        a sweep file (default sweeps/nightly.sweep and\n"
            "                      sweeps/nightly-gpu.sweep); may repeat\n"
            "  --db PATH           results database (default %s; HARNESS_DB overrides)\n"
            "  --rounds R          rounds per config, at least 2 (default %d)\n"
            "  --burn-in SECONDS   the most the burn-in may take, all devices together\n"
            "                      (default 40; 0: none)\n"
            "  --no-confirm        leave flags unconfirmed (no second measurement)\n"
            "  --confirm-rounds N  pairs of rounds a confirmation runs (default %d)\n"
            "  --keep-days D       prune kept builds unused for D days (default 30)\n"
            "  --seed S            the shuffles' seed (default: from the clock)\n"
            "  --target PCT        the change every series must be able to show (default %.0f;\n"
            "                      0: never inconclusive, the old rule)\n"
            "  --max-time SECONDS  for rounds added to inconclusive series (default: as long\n"
            "                      as the night's own measuring took; 0: none)\n"
            "\n"
            "Then: harness compare nightly:-2 nightly:-1    (the last two nights, again)\n"
            "      harness regressions                      (change points over all nights)\n"
            "      harness noise                            (the per-series noise model)\n"
            "Exit status: 0 no confirmed regression, every series judged; 1 a confirmed\n"
            "regression, or a step failed (its runs are kept); 2 bad usage or a bad suite file\n"
            "(nothing run); 3 no confirmed regression, but some series inconclusive.\n",
            store_default_path(), NIGHTLY_DEFAULT_ROUNDS, CONFIRM_ROUNDS, 100 * COMPARE_TARGET);
}

/* Runs this binary with args (NULL-terminated, args[0] the command) and waits. */
static int run_child(char *const args[]) {
    fprintf(stderr, "nightly: harness");
    for (int i = 0; args[i]; i++) fprintf(stderr, " %s", args[i]);
    fprintf(stderr, "\n");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        char *argv[32] = {"harness"};
        for (int i = 0; args[i] && i < 30; i++) argv[i + 1] = args[i];
        execv("/proc/self/exe", argv);
        perror("nightly: exec /proc/self/exe");
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* "gen-64x64" (how inputs are stored) back to "gen:64x64" (how they are named). */
static void input_spec(const char *stored, char *buf, size_t n) {
    if (!strncmp(stored, "gen-", 4)) str_fmt(buf, n, "gen:%s", stored + 4);
    else str_copy(buf, n, stored);
}

static void input_stored(const char *spec, char *buf, size_t n) {
    if (!strncmp(spec, "gen:", 4)) str_fmt(buf, n, "gen-%s", spec + 4);
    else str_copy(buf, n, spec);
}

static int suite_has_shape(const struct sweep_spec *s, const unsigned wg[2]) {
    if (s->nshapes == 0) return wg[0] == 32 && wg[1] == 1; /* the format's default */
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i][0] == wg[0] && s->shapes[i][1] == wg[1]) return 1;
    return 0;
}

static int suite_names(const struct sweep_spec *s, const char *variant) {
    for (int v = 0; v < s->nvariants; v++)
        if (!strcmp(s->variants[v], variant)) return 1;
    return 0;
}

/* One generated sweep file: the suite's input on one device, `variant`
 * (a named one at a shape, or TUNED_VARIANT, whose shape is stored). 1 when
 * it was written. */
static int tuned_file(const struct sweep_spec *s, const struct device_info *dev, const char *input, const char *variant,
                      const unsigned *wg, const char *path) {
    struct strbuf b = {0};
    if (wg)
        sb_printf(&b, "# harness nightly: the tuned work-group of %s on %s (%s)\n", variant, dev->spec,
                  dev->fingerprint);
    else sb_printf(&b, "# harness nightly: the tuned configuration on %s (%s)\n", dev->spec, dev->fingerprint);
    sb_printf(&b, "app %s\ninput %s\nvariant %s\ndevice %s\n", s->app, input, variant, dev->spec);
    if (wg) sb_printf(&b, "wg %ux%u\n", wg[0], wg[1]);
    sb_printf(&b, "reps %d\nwarmup %d\ntimeout %g\n", s->reps, s->warmup, s->timeout_s);
    if (s->iters > 0) sb_printf(&b, "iters %ld\n", s->iters);
    const int ok = file_write_all(path, b.s, b.len) == 0;
    sb_free(&b);
    return ok;
}

/* Writes one sweep file per tuned shape the suite lacks, and one per tuned
 * configuration (TUNED_VARIANT, `harness tune FILE`) stored for the suite's
 * app and inputs when the suite does not name `variant tuned` itself, on
 * devices the suite runs on; returns how many (paths in files). */
static int tuned_sweeps(struct store *store, const struct sweep_spec *s, const char *dir, char files[][PATH_MAX],
                        int max) {
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0, nall = devices_all(&all, notes, 8, &nnotes), nfiles = 0;
    char seen[NIGHTLY_MAX_DEVICES][24];
    int nseen = 0;
    for (int d = 0; d < s->ndevices || (s->ndevices == 0 && d == 0); d++) {
        int idx[64];
        int k = devices_match(all, nall, s->ndevices ? s->devices[d] : "all", idx, 64);
        for (int j = 0; j < k; j++) {
            const struct device_info *dev = &all[idx[j]];
            int dup = 0;
            for (int q = 0; q < nseen; q++) dup |= !strcmp(seen[q], dev->fingerprint);
            if (dup || nseen >= NIGHTLY_MAX_DEVICES) continue;
            str_copy(seen[nseen++], sizeof seen[0], dev->fingerprint);
            for (int in = 0; in < s->ninputs; in++) {
                char stored[64], spec_in[64];
                input_stored(s->inputs[in], stored, sizeof stored);
                input_spec(stored, spec_in, sizeof spec_in);
                for (int v = 0; v < s->nvariants; v++) {
                    unsigned wg[2];
                    int tie = 0;
                    /* named variants only; the sweep resolves `tuned` itself */
                    if (!strcmp(s->variants[v], "all") || !strcmp(s->variants[v], TUNED_VARIANT)) continue;
                    if (store_tuned_get(store, dev->fingerprint, s->app, stored, s->variants[v], wg, &tie) != 0 ||
                        suite_has_shape(s, wg) || nfiles >= max)
                        continue;
                    str_fmt(files[nfiles], PATH_MAX, "%s/tuned-%d.sweep", dir, nfiles);
                    if (tuned_file(s, dev, spec_in, s->variants[v], wg, files[nfiles])) {
                        fprintf(stderr, "nightly: tracking the tuned %ux%u of %s %s on %s\n", wg[0], wg[1],
                                s->variants[v], spec_in, dev->spec);
                        nfiles++;
                    }
                }
                struct tuned_config cfg;
                if (suite_names(s, TUNED_VARIANT) || nfiles >= max ||
                    store_tuned_get_config(store, dev->fingerprint, s->app, stored, TUNED_VARIANT, &cfg) != 0)
                    continue;
                str_fmt(files[nfiles], PATH_MAX, "%s/tuned-%d.sweep", dir, nfiles);
                if (tuned_file(s, dev, spec_in, TUNED_VARIANT, NULL, files[nfiles])) {
                    fprintf(stderr, "nightly: tracking the tuned configuration %s at %ux%u for %s on %s\n", cfg.config,
                            cfg.wg[0], cfg.wg[1], spec_in, dev->spec);
                    nfiles++;
                }
            }
        }
    }
    free(all);
    return nfiles;
}

/* "openmp,opencl:0.0" from the suites' device lines; NULL for every device. */
static char *peak_devices(struct sweep_spec *specs, int n) {
    struct strbuf b = {0};
    for (int i = 0; i < n; i++) {
        if (specs[i].ndevices == 0) goto all;
        for (int d = 0; d < specs[i].ndevices; d++) {
            if (!strcmp(specs[i].devices[d], "all")) goto all;
            sb_printf(&b, "%s%s", b.len ? "," : "", specs[i].devices[d]);
        }
    }
    return b.s;
all:
    sb_free(&b);
    return NULL;
}

/* One option (getopt's c, its optarg) into o: 0, -1 after --help, or
 * EXIT_USAGE. */
static int parse_option(int c, struct nightly_opts *o) {
    switch (c) {
    case 's':
        if (o->nsuites == MAX_SUITES)
            return fprintf(stderr, "harness nightly: at most %d --suite files\n", MAX_SUITES), EXIT_USAGE;
        o->suites[o->nsuites++] = optarg;
        break;
    case 'b': o->db = optarg; break;
    case 'r':
    case 'c': {
        long v;
        if (parse_whole(optarg, 2, 1000, &v))
            return fprintf(stderr,
                           "harness nightly: --%s %s: want a whole number in 2..1000 (rounds are what"
                           " a night is judged on: one round has no spread)\n",
                           c == 'r' ? "rounds" : "confirm-rounds", optarg),
                   EXIT_USAGE;
        *(c == 'r' ? &o->rounds : &o->confirm_rounds) = (int)v;
        break;
    }
    case 'B':
    case 'k': {
        double v;
        if (parse_real(optarg, 0, 1e6, &v))
            return fprintf(stderr, "harness nightly: --%s %s: want a number >= 0\n", c == 'B' ? "burn-in" : "keep-days",
                           optarg),
                   EXIT_USAGE;
        *(c == 'B' ? &o->burn_in_s : &o->keep_days) = v;
        break;
    }
    case 'N': o->confirm = 0; break;
    case 'T':
        if (cli_target("nightly", optarg, &o->target)) return EXIT_USAGE;
        break;
    case 'M':
        if (cli_max_time("nightly", optarg, &o->max_time_s)) return EXIT_USAGE;
        break;
    case 'S': {
        long seed;
        if (parse_whole(optarg, 0, 0xffffffffL, &seed))
            return fprintf(stderr, "harness nightly: --seed %s: want a whole number >= 0\n", optarg), EXIT_USAGE;
        o->seed = seed;
        break;
    }
    case 'h': usage(stdout); return -1;
    default: usage(stderr); return EXIT_USAGE;
    }
    return 0;
}

static int parse_opts(int argc, char **argv, struct nightly_opts *o) {
    static const struct option longopts[] = {{"suite", required_argument, 0, 's'},
                                             {"db", required_argument, 0, 'b'},
                                             {"rounds", required_argument, 0, 'r'},
                                             {"burn-in", required_argument, 0, 'B'},
                                             {"no-confirm", no_argument, 0, 'N'},
                                             {"confirm-rounds", required_argument, 0, 'c'},
                                             {"keep-days", required_argument, 0, 'k'},
                                             {"seed", required_argument, 0, 'S'},
                                             {"target", required_argument, 0, 'T'},
                                             {"max-time", required_argument, 0, 'M'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->rounds = NIGHTLY_DEFAULT_ROUNDS;
    o->confirm = 1;
    o->confirm_rounds = CONFIRM_ROUNDS;
    o->burn_in_s = 40;
    o->keep_days = 30;
    o->seed = -1;
    o->target = COMPARE_TARGET;
    o->max_time_s = -1;
    optind = 1;
    int c;
    int rc = 0;
    while (!rc && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) rc = parse_option(c, o);
    if (rc) return rc;
    if (optind != argc)
        return fprintf(stderr, "harness nightly: unexpected '%s'\n", argv[optind]), usage(stderr), EXIT_USAGE;
    /* The default suite: every device at 128x128, where the launches and the
     * host set the time, and the GPUs at 1024x1024, where the kernels'
     * memory traffic does (measured on an H100 host: fresh processes move the
     * first by 5-17 %, the second by 0.2-0.3 %, so only the second can show
     * a 5 % change in a kernel). */
    static char default_suite[2][PATH_MAX];
    if (!o->nsuites) {
        o->suites[o->nsuites++] = repo_path(default_suite[0], sizeof default_suite[0], "sweeps/nightly.sweep");
        o->suites[o->nsuites++] = repo_path(default_suite[1], sizeof default_suite[1], "sweeps/nightly-gpu.sweep");
    }
    if (!o->db) o->db = store_default_path();
    return 0;
}

/* This binary and the tree it reads, kept; "" (and a note) when it cannot be. */
static void keep_this_build(char *hash, size_t n) {
    char exe[PATH_MAX], dir[PATH_MAX], err[ERR_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    hash[0] = '\0';
    if (len <= 0) return;
    exe[len] = '\0';
    char h[KEPT_HASH_LEN + 1];
    if (kept_build_keep(repo_root(), exe, h, dir, sizeof dir, err, sizeof err) != 0) {
        fprintf(stderr, "nightly: the build is not kept (%s): tonight's flags cannot be confirmed tomorrow\n", err);
        return;
    }
    str_copy(hash, n, h);
    fprintf(stderr, "nightly: build kept as %s\n", dir);
}

/* The sweep child's arguments: every suite and tuned file, the rounds. */
static int run_sweeps(const struct nightly_opts *o, char files[][PATH_MAX], int nfiles) {
    char *args[MAX_SUITES + MAX_TUNED + 16];
    char rounds[16], seed[24];
    int k = 0;
    args[k++] = "sweep";
    for (int i = 0; i < o->nsuites; i++) args[k++] = (char *)o->suites[i];
    for (int i = 0; i < nfiles; i++) args[k++] = files[i];
    str_fmt(rounds, sizeof rounds, "%d", o->rounds);
    args[k++] = "--db";
    args[k++] = (char *)o->db;
    args[k++] = "--force";
    /* --shard 0/1: a nightly is the whole suite even inside a Slurm array. */
    args[k++] = "--shard";
    args[k++] = "0/1";
    args[k++] = "--rounds";
    args[k++] = rounds;
    if (o->seed >= 0) {
        str_fmt(seed, sizeof seed, "%lld", o->seed);
        args[k++] = "--seed";
        args[k++] = seed;
    }
    args[k] = NULL;
    return run_child(args);
}

/* Every suite read, then the database opened: a bad file or database
 * stops the night before anything runs. The store, or NULL (said why)
 * with nothing left to free. */
static struct store *night_open(const struct nightly_opts *o, struct sweep_spec *specs) {
    char err[ERR_MAX];
    for (int i = 0; i < o->nsuites; i++)
        if (sweep_parse(o->suites[i], &specs[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            for (int j = 0; j < i; j++) sweep_free(&specs[j]);
            return NULL;
        }
    struct store *store = store_open(o->db, err, sizeof err);
    if (!store || store_nightly_tables(store, err, sizeof err) != 0) {
        fprintf(stderr, "harness nightly: %s\n", err);
        store_close(store);
        for (int j = 0; j < o->nsuites; j++) sweep_free(&specs[j]);
        return NULL;
    }
    return store;
}

/* The suites, each as the sweep files it becomes with its `variant tuned`
 * lines resolved, measured in one go. Fails the night's step when a sweep
 * did; sets the added rounds' default budget, as long again as the suite
 * took. */
static int measure_suites(struct nightly_opts *o, struct store *store, const struct sweep_spec *specs) {
    char tmp[] = "/tmp/harness-nightly-XXXXXX";
    static char files[MAX_TUNED][PATH_MAX];
    int nfiles = 0;
    if (mkdtemp(tmp))
        for (int i = 0; i < o->nsuites; i++)
            nfiles += tuned_sweeps(store, &specs[i], tmp, files + nfiles, MAX_TUNED - nfiles);
    const double t_measure = clock_now();
    const int failed = run_sweeps(o, files, nfiles) != 0;
    if (o->max_time_s < 0) o->max_time_s = clock_now() - t_measure;
    for (int i = 0; i < nfiles; i++) unlink(files[i]);
    rmdir(tmp);
    return failed;
}

/* The kept builds older than --keep-days go, but never tonight's nor the
 * previous night's (the next confirmation needs both). */
static void prune_builds(struct store *store, const struct nightly_opts *o, int64_t prev, const char *hash) {
    char prev_hash[KEPT_HASH_LEN + 8] = "";
    if (prev > 0) {
        char prev_start[40];
        store_nightly_build(store, prev, prev_hash, sizeof prev_hash, prev_start, sizeof prev_start);
    }
    const char *keep[2] = {hash, prev_hash};
    kept_build_prune(o->keep_days, keep, 2, stderr);
}

int cmd_nightly(int argc, char **argv) {
    struct nightly_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    struct sweep_spec specs[MAX_SUITES];
    char err[ERR_MAX];
    struct store *store = night_open(&o, specs);
    /* A database that cannot be opened (corrupt, or in a place that cannot be written) is bad input: exit 2. */
    if (!store) return EXIT_USAGE;
    kept_builds_for_db(o.db);
    char hash[KEPT_HASH_LEN + 1];
    keep_this_build(hash, sizeof hash);
    struct strbuf tel = {0}, names = {0};
    sb_printf(&tel, "[start]\n");
    telemetry_collect(&tel);
    for (int i = 0; i < o.nsuites; i++) sb_printf(&names, "%s%s", i ? " " : "", o.suites[i]);
    int64_t id = 0, run0 = store_last_run_id(store), peak0 = store_last_peak_id(store);
    if (store_nightly_begin(store, names.s, tel.s, hash, o.rounds, &id) != 0) {
        fprintf(stderr, "harness nightly: %s\n", store_errmsg(store));
        store_close(store);
        return EXIT_FOUND;
    }
    fprintf(stderr, "nightly %lld: %s\n%s", (long long)id, names.s, tel.s);

    int failed = 0;
    char *devs = peak_devices(specs, o.nsuites);
    if (o.burn_in_s > 0) cli_burn_in(devs, 5, o.burn_in_s, stderr);
    char *peak_args[] = {"peak", "--db", (char *)o.db, devs ? "--device" : NULL, devs, NULL};
    failed += run_child(peak_args) != 0;
    free(devs);
    failed += measure_suites(&o, store, specs);

    sb_free(&tel);
    sb_printf(&tel, "[end]\n");
    telemetry_collect(&tel);
    int64_t run1 = store_last_run_id(store), peak1 = store_last_peak_id(store);
    rc = store_nightly_end(store, id, failed ? 1 : 0, tel.s, run0, run1, peak0, peak1, err, sizeof err);
    if (rc != 0) fprintf(stderr, "harness nightly: %s\n", err);
    char quality[1024], disturbed[512];
    night_quality(store, id, quality, sizeof quality, disturbed, sizeof disturbed);
    printf("nightly %lld: runs %lld..%lld, %d step%s failed; quality: %s\n", (long long)id, (long long)run0 + 1,
           (long long)run1, failed, failed == 1 ? "" : "s", quality);

    int64_t prev = store_nightly_previous(store, id);
    struct gate_result g = {0};
    if (prev > 0) {
        struct gate_opts go = {.confirm = o.confirm,
                               .confirm_rounds = o.confirm_rounds,
                               .burn_in_s = o.burn_in_s > 30 ? 30 : o.burn_in_s,
                               .burn_in = cli_burn_in,
                               .disturbed_devices = disturbed,
                               .target = o.target,
                               .max_time_s = o.max_time_s};
        fflush(stdout);
        if (nightly_gate(store, prev, id, &go, &g, stdout, err, sizeof err) != 0) {
            fprintf(stderr, "harness nightly: the gate: %s\n", err);
            failed++;
        } else if (store_nightly_inconclusive(store, id, g.inconclusive, err, sizeof err) != 0) {
            fprintf(stderr, "harness nightly: %s\n", err);
        }
    } else {
        printf("nightly %lld: the first night of this host and suite: nothing to compare with yet\n", (long long)id);
    }
    prune_builds(store, &o, prev, hash);
    printf("again: harness compare nightly:-2 nightly:-1 --db %s\n", o.db);
    sb_free(&tel);
    sb_free(&names);
    store_close(store);
    for (int j = 0; j < o.nsuites; j++) sweep_free(&specs[j]);
    if (failed || rc || g.confirmed_regressions) return EXIT_FOUND;
    return g.inconclusive ? EXIT_INCONCLUSIVE : EXIT_OK;
}
