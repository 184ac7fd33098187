/* The nightly gate's steadiest measure through the store (track/steadiest.h),
 * issue 41's item 3 on GPUs: a series whose wall times swing with the host
 * (15 % between rounds) while its device events' times hold (0.3 %) is
 * judged by the device events: a clean pair is "same" where the wall time
 * alone is inconclusive, and an 8 % slower kernel is a regression where the
 * wall time cannot show it. A CPU device's series never takes the device
 * events (its "device" time is the host's own clock), and a GPU series with
 * no device events stays judged by its wall time. Rows are written into a
 * real database file as `harness nightly` stores them, then read back by the
 * same functions the gate calls. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "nightly_gen.h"
#include "store/store.h"
#include "store/store_nightly.h"
#include "track/compare.h"
#include "track/series.h"
#include "track/steadiest.h"

#define ROUNDS 6
#define REPS 2

static void exec(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "# %s: %s\n", sql, msg ? msg : "?");
        sqlite3_free(msg);
        exit(1);
    }
}

/* One run of one config on device `dev`: ROUNDS rounds of REPS repetitions,
 * wall times of 10 ms swinging by `wall_sd` a round, device times of
 * 9 ms x `device_level` swinging by 0.3 % (NULL when `events` is 0). */
static void add_run(sqlite3 *db, struct gen_rng *r, int run, int dev, double wall_sd, double device_level,
                    int events) {
    char sql[512];
    str_fmt(sql, sizeof sql,
            "INSERT INTO run(id, host_id, device_id, build_id) VALUES (%d, 1, %d, 1);"
            "INSERT INTO measurement(id, run_id, config_id, status, iters, iters_full, warmup, reps, median_s, rounds,"
            " rounds_done, variant) VALUES (%d, %d, 1, 'ok', 100, 100, 1, %d, 0.01, %d, %d, 'final')",
            run, dev, run, run, ROUNDS * REPS, ROUNDS, ROUNDS);
    exec(db, sql);
    for (int round = 0; round < ROUNDS; round++) {
        const double wall_round = exp(wall_sd * gen_rng_normal(r));
        const double dev_round = exp(0.003 * gen_rng_normal(r));
        for (int rep = 0; rep < REPS; rep++) {
            const double wall = 0.010 * wall_round * exp(0.002 * gen_rng_normal(r));
            const double device = 0.009 * device_level * dev_round * exp(0.001 * gen_rng_normal(r));
            char dv[32] = "NULL";
            if (events) str_fmt(dv, sizeof dv, "%.9g", device);
            str_fmt(sql, sizeof sql,
                    "INSERT INTO sample(measurement_id, rep, seconds, device_seconds, round) VALUES (%d, %d, %.9g, %s, %d)",
                    run, round * REPS + rep, wall, dv, round);
            exec(db, sql);
        }
    }
}

/* Builds a file with runs 1 (A) and 2 (B) of one config on a device of
 * `kind`, compares B with A as the gate does and returns the row. */
static struct compare_row judge(const char *path, const char *kind, double step, int events, uint64_t seed,
                                struct series_list *la, struct series_list *lb, double *wall_detectable) {
    unlink(path);
    char err[512] = "";
    struct store *s = store_open(path, err, sizeof err);
    if (!s) {
        fprintf(stderr, "# store_open: %s\n", err);
        exit(1);
    }
    if (store_nightly_tables(s, err, sizeof err) != 0) { /* the noise models read the nightly tables */
        fprintf(stderr, "# store_nightly_tables: %s\n", err);
        exit(1);
    }
    sqlite3 *db = store_db(s);
    char sql[512];
    exec(db, "INSERT INTO host(id, hostname) VALUES (1, 'test')");
    str_fmt(sql, sizeof sql,
            "INSERT INTO device(id, fingerprint, backend, spec, kind) VALUES (1, 'f1', 'cuda', 'cuda:0', '%s')", kind);
    exec(db, sql);
    exec(db, "INSERT INTO build(id, git_commit, dirty) VALUES (1, 'abc', 0)");
    exec(db, "INSERT INTO config(id, app, input, variant, knobs, wg_x, wg_y) VALUES (1, 'lbm', '128x128', 'final', '', 32, 1)");
    struct gen_rng r;
    gen_rng_seed(&r, seed);
    add_run(db, &r, 1, 1, 0.15, 1.0, events);
    add_run(db, &r, 2, 1, 0.15, 1.0 + step, events);
    if (store_runset(s, "1", "gate_a", err, sizeof err) != 1 || store_runset(s, "2", "gate_b", err, sizeof err) != 1 ||
        series_load_runs(s, "gate_a", la, err, sizeof err) != 0 || series_load_runs(s, "gate_b", lb, err, sizeof err) != 0) {
        fprintf(stderr, "# loading the runs: %s\n", err);
        exit(1);
    }
    struct compare_params p = COMPARE_DEFAULTS;
    struct compare_row *rows = NULL;
    int oa, ob, n = compare_lists(la, lb, &p, &rows, &oa, &ob);
    struct compare_row out = {0};
    if (n == 1) {
        out = rows[0];
        out.measure = MEASURE_WALL;
        struct compare_row wall = out;
        if (compare_steadiest(s, "gate_a", "gate_b", "", &p, &out, 1, err, sizeof err) != 0)
            fprintf(stderr, "# compare_steadiest: %s\n", err), out.v = V_FEW, out.measure = MEASURE_N;
        out.wall_ratio = wall.r.ratio; /* kept for the messages */
        *wall_detectable = wall.detectable;
    } else { /* nothing judged: no check below may pass on it */
        fprintf(stderr, "# %d rows compared, wanted 1\n", n);
        out.v = V_FEW, out.measure = MEASURE_N;
    }
    free(rows);
    store_close(s);
    return out;
}

int main(void) {
    char path[] = "/tmp/test_steadiest_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    struct series_list la = {0}, lb = {0};
    double wall_detectable = NAN;

    struct compare_row row = judge(path, "gpu", 0.0, 1, 41, &la, &lb, &wall_detectable);
    CHECK(wall_detectable > COMPARE_TARGET,
          "the wall time (15 %% a round) cannot show %.0f %% (it sees %.1f %%): inconclusive alone",
          100 * COMPARE_TARGET, 100 * wall_detectable);
    CHECK(row.measure == MEASURE_DEVICE && row.v == V_SAME && row.detectable < COMPARE_TARGET,
          "a clean GPU pair is judged by its device events: %s by %s, sees %.1f %%", verdict_name(row.v),
          measure_name(row.measure), 100 * row.detectable);
    series_list_free(&la), series_list_free(&lb);

    row = judge(path, "gpu", 0.08, 1, 42, &la, &lb, &wall_detectable);
    CHECK(row.measure == MEASURE_DEVICE && row.v == V_REGRESSION && fabs(row.r.ratio - 1.08) < 0.01,
          "an 8 %% slower kernel is a regression by its device events (%s by %s, ratio %.3f; wall %.3f)",
          verdict_name(row.v), measure_name(row.measure), row.r.ratio, row.wall_ratio);
    series_list_free(&la), series_list_free(&lb);

    row = judge(path, "cpu", 0.08, 1, 42, &la, &lb, &wall_detectable);
    CHECK(row.v != V_FEW && row.measure == MEASURE_WALL,
          "a CPU device's series never takes the device events (judged by %s; it has no CPU time stored)",
          measure_name(row.measure));
    series_list_free(&la), series_list_free(&lb);

    row = judge(path, "gpu", 0.0, 0, 41, &la, &lb, &wall_detectable);
    CHECK(row.measure == MEASURE_WALL && row.v == V_INCONCLUSIVE,
          "a GPU series without device events stays judged by its wall time: %s by %s", verdict_name(row.v),
          measure_name(row.measure));
    series_list_free(&la), series_list_free(&lb);

    CHECK(!strcmp(measure_name(MEASURE_DEVICE), "device") && !strcmp(measure_column(MEASURE_DEVICE), "device_seconds"),
          "the measure is named device and read from sample.device_seconds");
    unlink(path);
    CHECK_DONE();
}
