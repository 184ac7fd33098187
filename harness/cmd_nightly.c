/* harness nightly: the fixed suite every night on every device, so that
 * `harness regressions` has one point per series per night and `harness
 * compare nightly:-2 nightly:-1` can gate two builds.
 *
 * The work is done by the harness's own commands, run as child processes of
 * this binary (/proc/self/exe) on the same database:
 *   1. `peak` (the canary: each device's copy bandwidth, a measure of how
 *      noisy the machine is tonight),
 *   2. `sweep SUITE --force` for each suite (build metadata and drivers are
 *      recorded by the sweep in build, device and run),
 *   3. one small generated sweep per tuned work-group (`harness tune`'s
 *      winner for a device, input and variant of the suite) that the suite's
 *      own shapes do not already cover, so the tuned best is tracked too.
 * The nightly row then links the runs and peaks created in between (ids
 * above the largest before; another command writing the same database at
 * the same time would be linked too) and the telemetry at start and end. */
#include <getopt.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "commands.h"
#include "store.h"
#include "store_nightly.h"
#include "store_tuned.h"
#include "sweep_file.h"
#include "telemetry.h"
#include "util.h"

#define MAX_SUITES 16
#define MAX_TUNED 64
#define NIGHTLY_MAX_DEVICES 64

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness nightly [--suite FILE]... [--db PATH]\n"
            "\n"
            "Runs the nightly suite on every device it names: the canary (harness peak),\n"
            "then each suite with `harness sweep FILE --force`, then the tuned work-group of\n"
            "each of its variants where `harness tune` stored one the suite does not run.\n"
            "Records a nightly row linking the runs it made, with telemetry (CPU governor\n"
            "and load; GPU clocks, temperature and throttle reasons through NVML).\n"
            "\n"
            "  --suite FILE  a sweep file (default sweeps/nightly.sweep); may repeat\n"
            "  --db PATH     results database (default %s; HARNESS_DB overrides)\n"
            "\n"
            "Then: harness compare nightly:-2 nightly:-1    (the last two nights)\n"
            "      harness regressions                      (change points over all nights)\n"
            "Exit status: 0 when every step succeeded, 1 when one failed (its runs are kept).\n",
            store_default_path());
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

/* Writes one sweep file per tuned shape the suite lacks, on devices the
 * suite runs on; returns how many (paths in files). */
static int tuned_sweeps(struct store *store, const struct sweep_spec *s, const char *dir,
                        char files[][PATH_MAX], int max) {
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
            for (int in = 0; in < s->ninputs; in++)
                for (int v = 0; v < s->nvariants; v++) {
                    char stored[64];
                    unsigned wg[2];
                    int tie = 0;
                    if (!strcmp(s->variants[v], "all")) continue; /* named variants only */
                    input_stored(s->inputs[in], stored, sizeof stored);
                    if (store_tuned_get(store, dev->fingerprint, s->app, stored, s->variants[v], wg, &tie) != 0 ||
                        suite_has_shape(s, wg) || nfiles >= max)
                        continue;
                    char spec_in[64];
                    input_spec(stored, spec_in, sizeof spec_in);
                    str_fmt(files[nfiles], PATH_MAX, "%s/tuned-%d.sweep", dir, nfiles);
                    struct strbuf b = {0};
                    sb_printf(&b, "# harness nightly: the tuned work-group of %s on %s (%s)\n", s->variants[v],
                              dev->spec, dev->fingerprint);
                    sb_printf(&b, "app %s\ninput %s\nvariant %s\ndevice %s\nwg %ux%u\n", s->app, spec_in,
                              s->variants[v], dev->spec, wg[0], wg[1]);
                    sb_printf(&b, "reps %d\nwarmup %d\ntimeout %g\n", s->reps, s->warmup, s->timeout_s);
                    if (s->iters > 0) sb_printf(&b, "iters %ld\n", s->iters);
                    if (file_write_all(files[nfiles], b.s, b.len) == 0) {
                        fprintf(stderr, "nightly: tracking the tuned %ux%u of %s %s on %s\n", wg[0], wg[1],
                                s->variants[v], spec_in, dev->spec);
                        nfiles++;
                    }
                    sb_free(&b);
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

static int64_t max_id(sqlite3 *db, const char *table) {
    char sql[128];
    int64_t v = 0;
    str_fmt(sql, sizeof sql, "SELECT max(id) FROM %s", table);
    db_int(db, sql, 0, &v, NULL, 0);
    return v;
}

static int nightly_begin(sqlite3 *db, const char *suites, const char *telemetry, int64_t *id) {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO nightly(host, suite, started_at, telemetry)"
                      " VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?3)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, suites, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, telemetry, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    *id = sqlite3_last_insert_rowid(db);
    return rc;
}

static int nightly_end(sqlite3 *db, int64_t id, int status, const char *telemetry, int64_t run0, int64_t run1,
                       int64_t peak0, int64_t peak1, char *err, size_t errn) {
    char sql[512];
    if (db_exec(db, "BEGIN IMMEDIATE", err, errn) != 0) return -1;
    str_fmt(sql, sizeof sql,
            "INSERT OR IGNORE INTO nightly_run(nightly_id, run_id) SELECT %lld, id FROM run WHERE id > %lld AND id <= %lld;"
            "INSERT OR IGNORE INTO nightly_peak(nightly_id, peak_id) SELECT %lld, id FROM peak WHERE id > %lld AND id <= %lld;",
            (long long)id, (long long)run0, (long long)run1, (long long)id, (long long)peak0, (long long)peak1);
    sqlite3_stmt *st = NULL;
    int rc = db_exec(db, sql, err, errn);
    if (rc == 0 && sqlite3_prepare_v2(db, "UPDATE nightly SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
                                          " status = ?1, telemetry = telemetry || ?2 WHERE id = ?3",
                                      -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int(st, 1, status);
        sqlite3_bind_text(st, 2, telemetry, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
    } else if (rc == 0) {
        rc = err_set(err, errn, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    if (rc == 0) return db_exec(db, "COMMIT", err, errn);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int cmd_nightly(int argc, char **argv) {
    static const struct option longopts[] = {{"suite", required_argument, 0, 's'},
                                             {"db", required_argument, 0, 'b'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *suites[MAX_SUITES], *db_path = NULL;
    int nsuites = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 's' && nsuites < MAX_SUITES) suites[nsuites++] = optarg;
        else if (c == 'b') db_path = optarg;
        else if (c == 'h') return usage(stdout), EXIT_OK;
        else return usage(stderr), EXIT_USAGE;
    }
    if (optind != argc) return fprintf(stderr, "harness nightly: unexpected '%s'\n", argv[optind]), usage(stderr), EXIT_USAGE;
    static char default_suite[PATH_MAX];
    if (!nsuites) suites[nsuites++] = repo_path(default_suite, sizeof default_suite, "sweeps/nightly.sweep");
    if (!db_path) db_path = store_default_path();

    /* Every suite is read first: a bad file stops the night before anything runs. */
    struct sweep_spec specs[MAX_SUITES];
    char err[1024];
    for (int i = 0; i < nsuites; i++)
        if (sweep_parse(suites[i], &specs[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            for (int j = 0; j < i; j++) sweep_free(&specs[j]);
            return EXIT_USAGE;
        }
    struct store *store = store_open(db_path, err, sizeof err);
    if (!store || nightly_schema(store_db(store), err, sizeof err) != 0) {
        fprintf(stderr, "harness nightly: %s\n", err);
        store_close(store);
        for (int j = 0; j < nsuites; j++) sweep_free(&specs[j]);
        return EXIT_FOUND;
    }
    sqlite3 *db = store_db(store);
    struct strbuf tel = {0}, names = {0};
    sb_printf(&tel, "[start]\n");
    telemetry_collect(&tel);
    for (int i = 0; i < nsuites; i++) sb_printf(&names, "%s%s", i ? " " : "", suites[i]);
    int64_t id = 0, run0 = max_id(db, "run"), peak0 = max_id(db, "peak");
    if (nightly_begin(db, names.s, tel.s, &id) != 0) {
        fprintf(stderr, "harness nightly: %s\n", sqlite3_errmsg(db));
        store_close(store);
        return EXIT_FOUND;
    }
    fprintf(stderr, "nightly %lld: %s\n%s", (long long)id, names.s, tel.s);

    int failed = 0;
    char *devs = peak_devices(specs, nsuites);
    char *peak_args[] = {"peak", "--db", (char *)db_path, devs ? "--device" : NULL, devs, NULL};
    failed += run_child(peak_args) != 0;
    free(devs);
    /* --shard 0/1: a nightly is the whole suite even inside a Slurm array. */
    for (int i = 0; i < nsuites; i++) {
        char *args[] = {"sweep", (char *)suites[i], "--db", (char *)db_path, "--force", "--shard", "0/1", NULL};
        failed += run_child(args) != 0;
    }
    char tmp[] = "/tmp/harness-nightly-XXXXXX";
    if (mkdtemp(tmp)) {
        static char files[MAX_TUNED][PATH_MAX];
        int n = 0;
        for (int i = 0; i < nsuites; i++) n += tuned_sweeps(store, &specs[i], tmp, files + n, MAX_TUNED - n);
        for (int i = 0; i < n; i++) {
            char *args[] = {"sweep", files[i], "--db", (char *)db_path, "--force", "--shard", "0/1", NULL};
            failed += run_child(args) != 0;
            unlink(files[i]);
        }
        rmdir(tmp);
    }

    sb_free(&tel);
    sb_printf(&tel, "[end]\n");
    telemetry_collect(&tel);
    int64_t run1 = max_id(db, "run"), peak1 = max_id(db, "peak");
    int rc = nightly_end(db, id, failed ? 1 : 0, tel.s, run0, run1, peak0, peak1, err, sizeof err);
    if (rc != 0) fprintf(stderr, "harness nightly: %s\n", err);
    printf("nightly %lld: runs %lld..%lld, %d step%s failed\n", (long long)id, (long long)run0 + 1, (long long)run1,
           failed, failed == 1 ? "" : "s");
    printf("compare with the night before: harness compare nightly:-2 nightly:-1 --db %s\n", db_path);
    sb_free(&tel);
    sb_free(&names);
    store_close(store);
    for (int j = 0; j < nsuites; j++) sweep_free(&specs[j]);
    return failed || rc ? EXIT_FOUND : EXIT_OK;
}
