/* Launch cost without a device: the generated probe sources have the
 * parameters asked for in each backend's language, --args parsing refuses
 * what it must, rows round-trip through the store, and a version-2 database
 * (before the launch_cost tables) is migrated without losing its data. */
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/launch_cost.h"
#include "base/util.h"
#include "check.h"
#include "report/launch_cost_plot.h"
#include "store/store.h"

/* HARNESS_ROOT from this program's path (build/tests/<name>), before
 * anything asks repo_root(): the plot finds plots/launch_cost.gp there. */
static void set_root(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (getenv("HARNESS_ROOT") || n <= 0) return;
    exe[n] = '\0';
    for (int i = 0; i < 3; i++) {
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
    }
    setenv("HARNESS_ROOT", exe, 1);
}

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* The parameter list: the text between the kernel name's "(" and ")". */
static void param_list(const char *src, char *out, size_t n) {
    const char *open = strstr(src, LAUNCH_COST_KERNEL "(");
    const char *close = open ? strchr(open, ')') : NULL;
    str_copy(out, n, "");
    if (open && close) {
        open += strlen(LAUNCH_COST_KERNEL) + 1;
        size_t len = (size_t)(close - open);
        if (len >= n) len = n - 1;
        memcpy(out, open, len);
        out[len] = '\0';
    }
}

static void check_gpu_sources(const char *backend, const char *buf_type) {
    const int ns[] = {0, 1, 5, KARG_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        const int n = ns[i];
        char *b = launch_cost_source(backend, LAUNCH_COST_BUFFER, n);
        char *k = launch_cost_source(backend, LAUNCH_COST_INT, n);
        char pb[4096] = "", pk[4096] = "", last[16];
        if (b) param_list(b, pb, sizeof pb);
        if (k) param_list(k, pk, sizeof pk);
        snprintf(last, sizeof last, "a%d", n - 1);
        CHECK(b && k, "%s: sources for %d arguments", backend, n);
        if (n == 0) {
            CHECK(!strcmp(pb, "void") && !strcmp(pk, "void"), "%s: no arguments is (void) (%s / %s)", backend, pb, pk);
            CHECK(b && !strstr(b, "a0[0]"), "%s: a buffer probe without arguments stores nothing", backend);
        } else {
            CHECK(count(pb, buf_type) == n && count(pb, ",") == n - 1 && strstr(pb, last),
                  "%s: %d buffer parameters, the last %s", backend, n, last);
            CHECK(count(pk, "int a") == n && count(pk, ",") == n - 1 && !strstr(pk, "*"),
                  "%s: %d int parameters and no pointer", backend, n);
            char store[32];
            snprintf(store, sizeof store, "a0[0] = %d.0f", n);
            CHECK(b && strstr(b, store), "%s: the %d-buffer probe stores %d into a0", backend, n, n);
            CHECK(k && !strstr(k, "a0[0]"), "%s: the int probe stores nothing", backend);
        }
        free(b);
        free(k);
    }
}

static void check_sources(void) {
    check_gpu_sources("opencl", "__global float *a");
    check_gpu_sources("cuda", "float *a");
    char *c = launch_cost_source("cuda", LAUNCH_COST_INT, 2);
    CHECK(c && strstr(c, "extern \"C\" __global__ void " LAUNCH_COST_KERNEL "("),
          "cuda: an extern \"C\" __global__ kernel");
    free(c);
    c = launch_cost_source("opencl", LAUNCH_COST_INT, 2);
    CHECK(c && strstr(c, "__kernel void " LAUNCH_COST_KERNEL "("), "opencl: a __kernel");
    free(c);

    /* OpenMP kernels take (L, args); the count shows in what they read. */
    for (int n = 0; n <= KARG_MAX; n += 20) {
        char *b = launch_cost_source("openmp", LAUNCH_COST_BUFFER, n);
        char *k = launch_cost_source("openmp", LAUNCH_COST_INT, n);
        CHECK(b && k && strstr(b, "void " LAUNCH_COST_KERNEL "(const struct omp_launch *L, void *const *args)") &&
                  strstr(b, "#include \"omp_kernel.h\"") && strstr(b, "#pragma omp parallel for"),
              "openmp: the omp_kernel.h ABI and a parallel region (%d arguments)", n);
        CHECK(k && count(k, "*(const int *)args[") == n, "openmp: the int probe reads its %d ints", n);
        CHECK(b && count(b, "args[0]") == (n > 0), "openmp: the %d-buffer probe %s a0", n, n ? "uses" : "has no");
        free(b);
        free(k);
    }
    CHECK(!launch_cost_source("opencl", LAUNCH_COST_BUFFER, KARG_MAX + 1), "more than KARG_MAX arguments: no source");
    CHECK(!launch_cost_source("opencl", LAUNCH_COST_INT, -1), "a negative count: no source");
    CHECK(!launch_cost_source("vulkan", LAUNCH_COST_INT, 1), "an unknown backend: no source");
}

static void check_parse(void) {
    struct launch_cost_opts o;
    char err[256] = "";
    launch_cost_defaults(&o);
    CHECK(o.ncounts == 9 && o.counts[0] == 0 && o.counts[8] == 32 && o.launches == 50000 && o.reps == 5,
          "defaults: 0..32 in 9 counts, 50000 launches, 5 reps");
    CHECK(launch_cost_parse_counts("0,4,16,40", &o, err, sizeof err) == 0 && o.ncounts == 4 && o.counts[3] == 40,
          "'0,4,16,40' parses");
    const char *bad[] = {"", "x", "4,,5", "4,", "-1", "41", "3.5", "2,99999999999999999999", " 4", "4,8,4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = launch_cost_parse_counts(bad[i], &o, err, sizeof err);
        CHECK(rc == -1 && err[0] && o.ncounts == 4 && o.counts[3] == 40, "'%s' is refused, opts unchanged (%s)", bad[i],
              err);
    }
}

static long long q_int(const char *db, const char *sql) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    else printf("# %s: %s\n", sql, h ? sqlite3_errmsg(h) : "no handle");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static void fake_device(struct device_info *d) {
    memset(d, 0, sizeof *d);
    str_copy(d->backend, sizeof d->backend, "openmp");
    str_copy(d->spec, sizeof d->spec, "openmp");
    str_copy(d->name, sizeof d->name, "Test CPU");
    str_copy(d->fingerprint, sizeof d->fingerprint, "fedcba9876543210");
}

static void fake_rows(struct launch_cost_row *r, int n) {
    for (int i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].kind = i % 2 ? LAUNCH_COST_INT : LAUNCH_COST_BUFFER;
        r[i].nargs = i / 2 * 4;
        r[i].launches = 1000;
        r[i].reps = 3;
        for (int k = 0; k < 3; k++) {
            r[i].enqueue_s[k] = 1e-3 * (1 + i) + 1e-5 * k;
            r[i].total_s[k] = 2e-3 * (1 + i) + 1e-5 * k;
        }
        r[i].enqueue_median_s = r[i].enqueue_s[1];
        r[i].enqueue_q1_s = r[i].enqueue_s[0];
        r[i].enqueue_q3_s = r[i].enqueue_s[2];
        r[i].total_median_s = r[i].total_s[1];
        r[i].total_q1_s = r[i].total_s[0];
        r[i].total_q3_s = r[i].total_s[2];
    }
}

/* A database as version 2 left it: the same file without the launch_cost
 * tables, stamped 2, holding a run. */
static void check_store_and_migration(const char *dir) {
    char db[4096], err[1024] = "";
    snprintf(db, sizeof db, "%s/lc.db", dir);
    struct store *s = store_open(db, err, sizeof err);
    CHECK(s != NULL, "store_open (%s)", err);
    if (!s) return;
    struct device_info dev;
    fake_device(&dev);
    int64_t run = store_run_begin(s, &dev, "harness launch-cost --test", err, sizeof err);
    store_run_end(s, run);
    store_close(s);
    sqlite3 *h = NULL;
    int rc = sqlite3_open(db, &h) == SQLITE_OK &&
             sqlite3_exec(h, "DROP TABLE launch_cost_sample; DROP TABLE launch_cost; PRAGMA user_version = 2", NULL,
                          NULL, NULL) == SQLITE_OK;
    sqlite3_close(h);
    CHECK(rc && q_int(db, "PRAGMA user_version") == 2 &&
              q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'launch_cost'") == 0,
          "a version-2 database without launch_cost");

    s = store_open(db, err, sizeof err);
    CHECK(s != NULL, "store_open migrates version 2 (%s)", err);
    if (!s) return;
    CHECK(q_int(db, "PRAGMA user_version") == 11, "the migrated file is version 11 (the newest)");
    CHECK(q_int(db, "SELECT count(*) FROM run WHERE command = 'harness launch-cost --test'") == 1 &&
              q_int(db, "SELECT count(*) FROM device WHERE fingerprint = 'fedcba9876543210'") == 1,
          "the migration keeps the runs and devices");
    CHECK(q_int(db, "SELECT count(*) FROM launch_cost") == 0 &&
              q_int(db, "SELECT count(*) FROM launch_cost_sample") == 0,
          "the migration creates empty launch_cost tables");

    struct launch_cost_row rows[4];
    fake_rows(rows, 4);
    run = store_run_begin(s, &dev, "harness launch-cost --test 2", err, sizeof err);
    CHECK(launch_cost_store(s, run, rows, 4, err, sizeof err) == 0, "launch_cost_store (%s)", err);
    CHECK(q_int(db, "SELECT count(*) FROM launch_cost") == 4 &&
              q_int(db, "SELECT count(*) FROM launch_cost_sample") == 12,
          "4 rows with 3 samples each");
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM launch_cost lc JOIN run r ON r.id = lc.run_id WHERE lc.run_id = %lld"
             " AND lc.device_id = r.device_id AND lc.launches = 1000 AND lc.reps = 3",
             (long long)run);
    CHECK(q_int(db, sql) == 4, "rows name their run and its device, launches and reps");
    CHECK(q_int(db, "SELECT count(*) FROM launch_cost WHERE kind = 'int' AND nargs = 4 AND"
                    " enqueue_median_s = 0.00401 AND total_q3_s = 0.00802") == 1,
          "the int row with 4 arguments keeps its quartiles exactly");
    CHECK(q_int(db, "SELECT count(*) FROM launch_cost_sample s JOIN launch_cost lc ON lc.id = s.launch_cost_id"
                    " WHERE lc.kind = 'buffer' AND lc.nargs = 0 AND s.rep = 2 AND s.enqueue_s = 0.00102") == 1,
          "samples keep their repetition index and value");
    CHECK(launch_cost_store(s, run, rows, 4, err, sizeof err) == -1 &&
              q_int(db, "SELECT count(*) FROM launch_cost") == 4,
          "the same rows twice in one run are refused, and nothing is half-stored");
    CHECK(launch_cost_store(s, 99999, rows, 4, err, sizeof err) == -1, "an unknown run is refused");
    store_run_end(s, run);
    store_close(s);

    /* The figure needs gnuplot; its absence is the integration test's concern. */
    char png[4200];
    snprintf(png, sizeof png, "%s/lc.png", dir);
    err[0] = '\0';
    rc = launch_cost_plot("/nonexistent/x.db", png, NULL, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "no database"), "launch_cost_plot without a database fails (%s)", err);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        rc = launch_cost_plot(db, png, NULL, err, sizeof err);
        CHECK(rc == 0 && access(png, R_OK) == 0, "launch_cost_plot draws %s (%s)", png, rc ? err : "");
    } else {
        printf("ok - launch_cost_plot draws a PNG # skip: no gnuplot on PATH\n");
    }
    const char *sfx[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", db, sfx[i]);
        unlink(p);
    }
    unlink(png);
}

int main(void) {
    set_root();
    char dir[] = "/tmp/test_launch_cost.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    check_sources();
    check_parse();
    check_store_and_migration(dir);
    rmdir(dir);
    CHECK_DONE();
}
