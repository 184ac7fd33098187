/* The results store: what goes in comes back out through plain SQL, a
 * reopen keeps it, and the printed CSV has one line per measurement.
 * Prints "ok - name" / "not ok - name"; exits nonzero on any failure. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "core/worker.h"
#include "store/store.h"
#include "store/store_report.h"

static int failures;

static void check(int cond, const char *name) {
    printf("%s - %s\n", cond ? "ok" : "not ok", name);
    if (!cond) failures++;
}

/* One integer from a query on a separate connection, -1 on any error. */
static long long q_int(const char *db, const char *sql) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    else fprintf(stderr, "# %s: %s\n", sql, h ? sqlite3_errmsg(h) : "no handle");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* One value as text (NULL becomes "<null>"), copied into out. */
static void q_text(const char *db, const char *sql, char *out, size_t n) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    str_copy(out, n, "<error>");
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        str_copy(out, n, t ? (const char *)t : "<null>");
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static double q_real(const char *db, const char *sql) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    double v = NAN;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* Complete, so every device column is exercised; the fingerprint is set by
 * hand because device_fingerprint lives with the backends. */
static void fake_device(struct device_info *d) {
    memset(d, 0, sizeof *d);
    str_copy(d->backend, sizeof d->backend, "opencl");
    str_copy(d->spec, sizeof d->spec, "opencl:0.0");
    str_copy(d->vendor, sizeof d->vendor, "Test Vendor");
    str_copy(d->name, sizeof d->name, "Test GPU, \"quoted\" model");
    str_copy(d->driver, sizeof d->driver, "1.2.3");
    str_copy(d->kind, sizeof d->kind, "gpu");
    d->compute_units = 132;
    d->max_wg = 1024;
    d->max_item[0] = d->max_item[1] = 1024;
    d->max_item[2] = 64;
    d->global_mem = 80ull << 30;
    d->local_mem = 48u << 10;
    d->max_alloc = 20ull << 30;
    str_copy(d->arch, sizeof d->arch, "sm_90");
    str_copy(d->fingerprint, sizeof d->fingerprint, "0123456789abcdef");
}

static void fake_measurement(struct measurement *m, const char *variant, enum status st, int n) {
    memset(m, 0, sizeof *m);
    str_copy(m->app, sizeof m->app, "lbm");
    str_copy(m->input, sizeof m->input, "128x128");
    str_copy(m->variant, sizeof m->variant, variant);
    str_copy(m->knobs, sizeof m->knobs, "kernels=fused layout=soa precision=float");
    m->wg[0] = 32;
    m->wg[1] = 1;
    m->iters = 100;
    m->iters_full = 20000;
    m->warmup = 1;
    m->status = st;
    measurement_unknown(m);
    m->cell_updates = 128.0 * 128.0 * 100.0;
    m->nsamples = n;
    if (n) {
        m->samples = calloc((size_t)n, sizeof *m->samples);
        m->device_samples = calloc((size_t)n, sizeof *m->device_samples);
        m->counters[MEASURE_CPU - 1] = calloc((size_t)n, sizeof(double));
        m->counters[MEASURE_CYCLES - 1] = calloc((size_t)n, sizeof(double));
        for (int i = 0; i < n; i++) {
            m->samples[i] = 0.010 + 0.001 * i;
            m->device_samples[i] = i == 2 ? NAN : 0.009 + 0.001 * i;
            m->counters[MEASURE_CPU - 1][i] = 0.020 + 0.001 * i;
            m->counters[MEASURE_CYCLES - 1][i] = i == 1 ? NAN : 3e7 + i;
        }
    }
    measurement_summarise(m, 72.0);
}

/* Lines in a buffer (each ends in '\n'). */
static int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* CSV records: line ends outside quotes ("" inside a quoted field toggles
 * twice, so it needs no special case). */
static int count_records(const char *s) {
    int n = 0, quoted = 0;
    for (; *s; s++) {
        if (*s == '"') quoted = !quoted;
        else if (*s == '\n' && !quoted) n++;
    }
    return n;
}

static void remove_db(const char *dir, const char *db) {
    char p[4096];
    const char *sfx[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", db, sfx[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub/dir", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
}

int main(void) {
    char dir[] = "/tmp/test_store.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char db[4096], err[1024] = "", sql[512], text[512];
    snprintf(db, sizeof db, "%s/sub/dir/results.db", dir); /* folders made by store_open */

    struct store *s = store_open(db, err, sizeof err);
    check(s != NULL, "store_open creates folders and schema");
    if (!s) {
        fprintf(stderr, "# %s\n", err);
        return 1;
    }
    struct device_info dev;
    fake_device(&dev);
    int64_t run = store_run_begin(s, &dev, "harness run --test", err, sizeof err);
    check(run > 0, "store_run_begin returns a run id");

    struct measurement ok, bad;
    fake_measurement(&ok, "t05-soa", ST_OK, 5);
    fake_measurement(&bad, "t05-soa", ST_INVALID, 0);
    /* As a CUDA worker reads them: the report's registers table comes from these. */
    const char *kernels = "dg_flux_x:196:0 dg_fused:255:292";
    str_copy(ok.resources, sizeof ok.resources, kernels);
    {
        /* Through the worker's protocol first, as the parent receives it. */
        char *wire = NULL;
        size_t wire_len = 0;
        FILE *out = open_memstream(&wire, &wire_len);
        measurement_send(out, &ok);
        fclose(out);
        struct measurement got = {0};
        int retire = -1;
        FILE *in = fmemopen(wire, wire_len, "r");
        const int rc_recv = measurement_receive(in, &got, &retire);
        fclose(in);
        check(rc_recv == 0 && !strcmp(got.resources, kernels) && got.nsamples == 5,
              "resources survive measurement_send and measurement_receive");
        measurement_free(&got);
        free(wire);
        out = open_memstream(&wire, &wire_len);
        measurement_send(out, &bad);
        fclose(out);
        check(!strstr(wire, "resources"), "a measurement without resources sends no resources line");
        free(wire);
        /* A parent from before them (or a worker's line it does not know) goes on reading. */
        const char *future = "status 0\nreason \nresources a:1:2\nsomething-new 1 2 3\nnsamples 0\nend\n";
        in = fmemopen((void *)future, strlen(future), "r");
        struct measurement got2 = {0};
        check(measurement_receive(in, &got2, &retire) == 0 && !strcmp(got2.resources, "a:1:2"),
              "a line the parent does not know is skipped; resources are read");
        fclose(in);
        measurement_free(&got2);
    }
    str_copy(bad.reason, sizeof bad.reason, "work-group 32x1 exceeds, \"the\" limit\nsecond line");
    check(store_measurement(s, run, &ok, err, sizeof err) == 0, "store ok measurement");
    check(store_measurement(s, run, &bad, err, sizeof err) == 0, "store invalid measurement");
    check(store_run_end(s, run) == 0, "store_run_end");
    store_close(s);

    check(q_int(db, "SELECT count(*) FROM measurement") == 2, "2 measurement rows");
    check(q_int(db, "SELECT count(*) FROM sample") == 5, "5 sample rows");
    check(q_int(db, "SELECT count(*) FROM sample WHERE device_seconds IS NULL") == 1,
          "NaN device sample stored as NULL");
    check(q_real(db, "SELECT sum(cpu_seconds) FROM sample") > 0.1099 &&
              q_real(db, "SELECT sum(cpu_seconds) FROM sample") < 0.1101 &&
              q_int(db, "SELECT count(*) FROM sample WHERE cycles IS NULL") == 1 &&
              q_int(db, "SELECT count(*) FROM sample WHERE instructions IS NULL") == 5,
          "the CPU counters are stored per repetition (NaN and counters not taken as NULL)");
    snprintf(sql, sizeof sql, "SELECT median_s FROM measurement WHERE status = 'ok'");
    check(q_real(db, sql) == ok.median, "median_s round-trips");
    check(q_int(db, "SELECT count(*) FROM measurement WHERE status = 'invalid' AND median_s IS NULL"
                    " AND reps = 0 AND scaled = 1") == 1,
          "invalid measurement: NULL median, 0 reps, scaled");
    q_text(db, "SELECT knobs FROM config", text, sizeof text);
    check(strcmp(text, ok.knobs) == 0, "config knobs round-trip");
    q_text(db, "SELECT name FROM device WHERE fingerprint = '0123456789abcdef'", text, sizeof text);
    check(strcmp(text, dev.name) == 0, "device row keyed by fingerprint");
    check(q_int(db, "SELECT max_item2 FROM device") == 64 &&
              q_int(db, "SELECT global_mem FROM device") == (long long)(80ull << 30),
          "device limits stored");
    check(q_int(db, "SELECT count(*) FROM run WHERE ended_at IS NOT NULL AND started_at LIKE '____-__-__T%Z'") == 1,
          "run has ISO start and an end");
    q_text(db, "SELECT resources FROM measurement WHERE status = 'ok'", text, sizeof text);
    check(strcmp(text, kernels) == 0, "resources stored in the measurement row");
    q_text(db, "SELECT resources FROM measurement WHERE status = 'invalid'", text, sizeof text);
    check(strcmp(text, "<null>") == 0, "no resources stored as NULL");
    {
        /* Read back as `report --from-db` does. */
        struct store_reader *rd = store_reader_open(db, err, sizeof err);
        struct measurement_row *rows = NULL;
        const int n = rd ? store_measurement_rows(rd, run, &rows) : -1;
        check(n == 2 && !strcmp(rows[0].resources, kernels) && !rows[1].resources[0],
              "the report's loader reads the resources back (and none as empty)");
        free(rows);
        if (rd) store_reader_close(rd);
    }
    q_text(db, "PRAGMA journal_mode", text, sizeof text);
    check(strcmp(text, "wal") == 0, "journal_mode is wal");

    s = store_open(db, err, sizeof err);
    check(s != NULL, "reopen applies the schema again");
    if (!s) {
        fprintf(stderr, "# %s\n", err);
        return 1;
    }
    check(q_int(db, "SELECT count(*) FROM measurement") == 2 && q_int(db, "SELECT count(*) FROM sample") == 5,
          "reopen keeps the counts");
    check(q_int(db, "PRAGMA user_version") == 11,
          "user_version is 11 (rounds, tuned_history, energy and tuned configurations, device sets, run pid/boot,"
          " the samples' CPU counters, then the measurements' resources per kernel)");
    check(q_int(db, "SELECT count(*) FROM run WHERE pid IS NOT NULL AND boot IS NOT NULL AND outcome IS NULL") ==
              q_int(db, "SELECT count(*) FROM run"),
          "every run row names its process and boot, and none was closed as interrupted");
    check(q_int(db, "SELECT count(*) FROM pragma_table_info('measurement') WHERE name = 'variant'") == 1,
          "measurement has the variant column");
    check(q_int(db, "SELECT count(*) FROM measurement WHERE variant IS NOT NULL") == 2,
          "each measurement keeps the variant name it ran under");

    double copy = 0, flops = 0;
    check(store_peak_get(s, dev.fingerprint, &copy, &flops) == -1, "no peak before one is stored");
    check(store_peak_put(s, &dev, 100.0, 1000.0, err, sizeof err) == 0 &&
              store_peak_put(s, &dev, 2000.5, 51000.25, err, sizeof err) == 0,
          "store_peak_put");
    check(store_peak_get(s, dev.fingerprint, &copy, &flops) == 0 && copy == 2000.5 && flops == 51000.25,
          "store_peak_get returns the latest");

    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = store_print_recent(s, 10, 1, mem);
    fclose(mem);
    check(rc == 0 && count_records(buf) == 3 && strncmp(buf, "id,when,device,", 15) == 0,
          "CSV has a header and 2 data lines");
    check(strstr(buf, "\"work-group 32x1 exceeds, \"\"the\"\" limit\nsecond line\"") != NULL,
          "CSV quotes commas, quotes and line breaks");
    free(buf);

    buf = NULL;
    mem = open_memstream(&buf, &len);
    rc = store_print_recent(s, 1, 0, mem);
    fclose(mem);
    check(rc == 0 && count_lines(buf) == 2 && strstr(buf, "invalid") && strstr(buf, " - "),
          "table: header, newest row, '-' for NULL");
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) printf("# %s\n", line);
    free(buf);

    /* The knobs are the identity: another name for them is the same config. */
    fake_measurement(&bad, "final", ST_INVALID, 0);
    check(store_measurement(s, run, &bad, err, sizeof err) == 0 && q_int(db, "SELECT count(*) FROM config") == 1,
          "same knobs under another variant name reuse the config");
    q_text(db, "SELECT variant FROM config", text, sizeof text);
    check(strcmp(text, "t05-soa") == 0, "the first variant name is kept");

    /* A failed measurement leaves nothing behind (one transaction). */
    check(store_measurement(s, 999999, &ok, err, sizeof err) == -1 && strstr(err, db) != NULL,
          "unknown run fails with the path in the message");
    check(q_int(db, "SELECT count(*) FROM measurement") == 3 && q_int(db, "SELECT count(*) FROM sample") == 5,
          "the failed measurement was rolled back");

    store_close(s);
    measurement_free(&ok);
    measurement_free(&bad);
    remove_db(dir, db);
    printf("# %d failed\n", failures);
    return failures ? 1 : 0;
}
