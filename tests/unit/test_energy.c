/* Energy with every measurement (timed.h, energy.h): the window's arithmetic
 * and its threshold, rounds combined, the fields through the worker pipe and
 * into the store (NaN as NULL), runner_print's text, no meter for devices
 * without one; and the NVML path itself against a fake libnvidia-ml.so.1
 * built here, which this program runs itself again to load (the loader reads
 * LD_LIBRARY_PATH only at start). */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/energy.h"
#include "base/util.h"
#include "check.h"
#include "core/runner.h"
#include "core/timed.h"
#include "core/worker.h"
#include "store/store.h"

/* ---- the fake NVML ----------------------------------------------------- */

/* 300 W, the counter stepping every 100 ms as an H100's does; one GPU at
 * PCI 0000:65:00.0. FAKE_NVML_GPUS and FAKE_NVML_NO_COUNTER change that. */
static const char fake_nvml_src[] =
    "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
    "static int env(const char *k) { const char *v = getenv(k); return v ? atoi(v) : 0; }\n"
    "int nvmlInit_v2(void) { return 0; }\n"
    "int nvmlShutdown(void) { return 0; }\n"
    "const char *nvmlErrorString(int r) { return r == 3 ? \"Not Supported\" : \"Invalid Argument\"; }\n"
    "int nvmlDeviceGetCount_v2(unsigned *n) { *n = env(\"FAKE_NVML_GPUS\") ? env(\"FAKE_NVML_GPUS\") : 1; "
    "return 0; }\n"
    "int nvmlDeviceGetHandleByPciBusId_v2(const char *b, void **d) {\n"
    "    if (strcmp(b, \"0000:65:00.0\")) return 2;\n    *d = (void *)1;\n    return 0;\n}\n"
    "int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { if (i) return 2; *d = (void *)1; return 0; }\n"
    "int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj) {\n"
    "    (void)d;\n    if (env(\"FAKE_NVML_NO_COUNTER\")) return 3;\n"
    "    struct timespec t;\n    clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    unsigned long long steps = (unsigned long long)t.tv_sec * 10 + (unsigned long long)t.tv_nsec / 100000000;\n"
    "    *mj = 1000000ULL + steps * 30000ULL;\n    return 0;\n}\n";

static void nvidia_gpu(struct device_info *d, const char *pci) {
    memset(d, 0, sizeof *d);
    str_copy(d->backend, sizeof d->backend, "cuda");
    str_copy(d->spec, sizeof d->spec, "cuda:0");
    str_copy(d->vendor, sizeof d->vendor, "NVIDIA");
    str_copy(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    str_copy(d->kind, sizeof d->kind, "gpu");
    str_copy(d->pci_bus, sizeof d->pci_bus, pci);
}

/* A repetition that sleeps ctx's seconds, or fails when ctx's count runs out. */
struct sleeper {
    double seconds;
    int left; /* repetitions before one fails; < 0: never */
};
static int sleep_rep(void *ctx, double *wall, double *device) {
    struct sleeper *s = ctx;
    if (s->left == 0) return -1;
    if (s->left > 0) s->left--;
    double t0 = clock_now();
    struct timespec ts = {(time_t)s->seconds, (long)((s->seconds - (double)(time_t)s->seconds) * 1e9)};
    nanosleep(&ts, NULL);
    *wall = *device = clock_now() - t0;
    return 0;
}

static void fake_nvml_checks(void) {
    struct device_info d;
    char why[256];
    nvidia_gpu(&d, "0000:65:00.0");
    struct energy_meter *m = energy_open_why(&d, why, sizeof why);
    CHECK(m != NULL, "fake NVML: an NVIDIA GPU's meter is found by its PCI bus id (%s)", m ? "" : why);
    if (!m) return;
    CHECK(strstr(energy_describe(m), "PCI 0000:65:00.0") != NULL, "fake NVML: described as '%s'", energy_describe(m));
    unsigned long long a = 0;
    CHECK(energy_read_mj(m, &a) == 0 && a >= 1000000ULL, "fake NVML: the counter reads (%llu mJ)", a);

    /* 5 timed repetitions of 0.15 s: a 0.75 s window at 300 W is 45 J each
     * (more if the sleeps ran long: the samples say by how much), within one
     * 100 ms step of the counter (13 %). */
    struct dev dv = {0};
    dv.energy = m;
    struct measurement mm = {0};
    measurement_unknown(&mm);
    struct sleeper s = {0.15, -1};
    int rc = timed_reps(&dv, 1, 5, &mm, sleep_rep, &s, NULL);
    CHECK(rc == 0 && mm.nsamples == 5, "timed_reps: 5 samples after 1 warm-up (rc %d, %d)", rc, mm.nsamples);
    double slept = 0;
    for (int i = 0; i < mm.nsamples; i++) slept += mm.samples[i];
    const double expect = 300 * slept / 5;
    CHECK(fabs(mm.energy_j - expect) <= 0.2 * expect && fabs(mm.power_w - 300) <= 0.2 * 300 && mm.energy_reps == 5,
          "timed_reps: %.1f J per repetition at %.0f W over 5 (a 300 W fake board: %.1f J expected)", mm.energy_j,
          mm.power_w, expect);
    measurement_free(&mm);

    measurement_unknown(&mm);
    s = (struct sleeper){0.02, -1};
    timed_reps(&dv, 1, 5, &mm, sleep_rep, &s, NULL);
    CHECK(mm.nsamples == 5 && isnan(mm.energy_j) && isnan(mm.power_w),
          "timed_reps: a 0.1 s window (under %.1f s) leaves the energy unknown", ENERGY_MIN_WINDOW_S);
    measurement_free(&mm);

    measurement_unknown(&mm);
    s = (struct sleeper){0.3, 2}; /* the warm-up and one timed repetition, then a failure */
    rc = timed_reps(&dv, 1, 5, &mm, sleep_rep, &s, NULL);
    CHECK(rc == -1 && mm.nsamples == 1 && isnan(mm.energy_j),
          "timed_reps: a failed repetition stops the run, keeps 1 sample, and has no energy (rc %d, %d)", rc,
          mm.nsamples);
    measurement_free(&mm);
    energy_close(m);

    nvidia_gpu(&d, "0000:66:00.0");
    m = energy_open_why(&d, why, sizeof why);
    CHECK(!m && strstr(why, "no NVML device at PCI 0000:66:00.0"), "fake NVML: another board's PCI id: none (%s)", why);
    energy_close(m);

    nvidia_gpu(&d, "");
    m = energy_open_why(&d, why, sizeof why);
    CHECK(m && strstr(energy_describe(m), "only GPU"), "fake NVML: no PCI id, one GPU: index 0 (%s)",
          m ? energy_describe(m) : why);
    energy_close(m);
    setenv("FAKE_NVML_GPUS", "2", 1);
    m = energy_open_why(&d, why, sizeof why);
    CHECK(!m && strstr(why, "2 GPUs"), "fake NVML: no PCI id, two GPUs: none, never a guess (%s)", why);
    energy_close(m);
    unsetenv("FAKE_NVML_GPUS");

    nvidia_gpu(&d, "0000:65:00.0");
    setenv("FAKE_NVML_NO_COUNTER", "1", 1);
    m = energy_open_why(&d, why, sizeof why);
    CHECK(!m && strstr(why, "nvmlDeviceGetTotalEnergyConsumption: Not Supported"),
          "fake NVML: a board without the counter (before Volta): none (%s)", why);
    energy_close(m);
    unsetenv("FAKE_NVML_NO_COUNTER");

    str_copy(d.vendor, sizeof d.vendor, "Advanced Micro Devices, Inc.");
    m = energy_open_why(&d, why, sizeof why);
    CHECK(!m && !why[0], "fake NVML: another vendor's GPU has no meter and no reason to give");
    energy_close(m);
}

/* Builds the fake library in dir and runs this program again against it. */
static void run_fake_nvml(const char *self, const char *dir) {
    char src[4096], lib[4096], cmd[9000];
    snprintf(src, sizeof src, "%s/fake_nvml.c", dir);
    snprintf(lib, sizeof lib, "%s/libnvidia-ml.so.1", dir);
    if (file_write_all(src, fake_nvml_src, strlen(fake_nvml_src)) != 0) {
        CHECK(0, "write %s", src);
        return;
    }
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -o '%s' '%s' 2>&1", lib, src);
    if (system(cmd) != 0) {
        printf("ok - the NVML path against a fake libnvidia-ml.so.1 # skip no C compiler to build it\n");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LD_LIBRARY_PATH", dir, 1);
        execl(self, self, "--fake-nvml", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the fake-NVML run ended cleanly (status %d)", st);
}

/* ---- without a meter --------------------------------------------------- */

static void window_checks(void) {
    struct measurement m = {0};
    measurement_unknown(&m);
    timed_energy(&m, 1000, 301000, 1.0, 5);
    CHECK(m.energy_j == 60 && m.power_w == 300 && m.energy_reps == 5, "300 J over 1 s and 5 reps: 60 J each, 300 W");
    measurement_unknown(&m);
    timed_energy(&m, 1000, 301000, ENERGY_MIN_WINDOW_S * 0.8, 5);
    CHECK(isnan(m.energy_j) && isnan(m.power_w), "a window under %.1f s: unknown, not quantisation",
          ENERGY_MIN_WINDOW_S);
    timed_energy(&m, 5000, 5000, 2.0, 5);
    CHECK(isnan(m.energy_j), "a counter that did not move: unknown");
    timed_energy(&m, 5000, 4000, 2.0, 5);
    CHECK(isnan(m.energy_j), "a counter that went back: unknown");
}

static void rounds_checks(void) {
    struct measurement acc = {0}, r = {0};
    measurement_unknown(&acc);
    acc.rounds = 3;
    double s4[4] = {1, 1, 1, 1}, s2[2] = {1, 1};
    measurement_unknown(&r);
    r.samples = r.device_samples = s4;
    r.nsamples = 4;
    r.energy_j = 2, r.power_w = 200, r.energy_reps = 4; /* 8 J over 0.04 s */
    measurement_add_round(&acc, &r, 0);
    CHECK(acc.energy_j == 2 && acc.power_w == 200 && acc.energy_reps == 4, "rounds: the first round's energy taken");
    measurement_unknown(&r);
    r.samples = r.device_samples = s2;
    r.nsamples = 2; /* a round too short for the counter */
    measurement_add_round(&acc, &r, 1);
    CHECK(acc.energy_j == 2 && acc.power_w == 200 && acc.energy_reps == 4, "rounds: an unknown round weighs nothing");
    r.energy_j = 1, r.power_w = 100, r.energy_reps = 2; /* 2 J over 0.02 s */
    measurement_add_round(&acc, &r, 2);
    CHECK(fabs(acc.energy_j - 10.0 / 6) < 1e-12 && fabs(acc.power_w - 10 / 0.06) < 1e-9 && acc.energy_reps == 6,
          "rounds: 10 J over 6 reps and 0.06 s: %.4f J each, %.2f W", acc.energy_j, acc.power_w);
    measurement_free(&acc);
}

static void pipe_checks(void) {
    double s[2] = {0.25, 0.5};
    struct measurement m = {0}, back = {0};
    measurement_unknown(&m);
    m.status = ST_OK;
    m.samples = m.device_samples = s;
    m.nsamples = 2;
    m.energy_j = 1.5, m.power_w = 300, m.energy_reps = 2;
    FILE *f = tmpfile();
    int retire = -1;
    measurement_send(f, &m);
    rewind(f);
    measurement_unknown(&back);
    int rc = measurement_receive(f, &back, &retire);
    CHECK(rc == 0 && back.energy_j == 1.5 && back.power_w == 300 && back.energy_reps == 2 && back.nsamples == 2,
          "pipe: energy 1.5 J, 300 W over 2 reps survive the worker protocol");
    measurement_free(&back);
    fclose(f);

    m.energy_j = m.power_w = NAN, m.energy_reps = 0;
    f = tmpfile();
    measurement_send(f, &m);
    rewind(f);
    measurement_unknown(&back);
    back.energy_j = back.power_w = 7; /* must be overwritten */
    measurement_receive(f, &back, &retire);
    CHECK(isnan(back.energy_j) && isnan(back.power_w), "pipe: unknown energy arrives unknown");
    measurement_free(&back);
    fclose(f);

    /* A worker from before energy sends no energy line. */
    f = tmpfile();
    fputs("status 0\nreason \nnsamples 0\nend\n", f);
    rewind(f);
    measurement_unknown(&back);
    CHECK(measurement_receive(f, &back, &retire) == 0 && isnan(back.energy_j),
          "pipe: an older worker's block leaves the energy unknown");
    measurement_free(&back);
    fclose(f);
}

/* One REAL column of the measurement with this id as text, "<null>" for NULL. */
static void q_col(const char *db, const char *col, long long id, char *out, size_t n) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM measurement WHERE id = %lld", col, id);
    str_copy(out, n, "<error>");
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        str_copy(out, n,
                 sqlite3_column_type(st, 0) == SQLITE_NULL ? "<null>" : (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static void store_checks(const char *dir) {
    char db[4096], err[512] = "", a[64], b[64];
    snprintf(db, sizeof db, "%s/energy.db", dir);
    struct store *s = store_open(db, err, sizeof err);
    CHECK(s != NULL, "store_open (%s)", err);
    if (!s) return;
    struct device_info dev;
    nvidia_gpu(&dev, "0000:65:00.0");
    str_copy(dev.fingerprint, sizeof dev.fingerprint, "00000000000e0e0e");
    int64_t run = store_run_begin(s, &dev, "test_energy", err, sizeof err);
    struct measurement m = {0};
    measurement_unknown(&m);
    str_copy(m.app, sizeof m.app, "lbm");
    str_copy(m.input, sizeof m.input, "128x128");
    str_copy(m.variant, sizeof m.variant, "final");
    m.wg[0] = 32, m.wg[1] = 1;
    m.status = ST_OK;
    m.energy_j = 1.5, m.power_w = 300;
    int64_t with = 0, without = 0;
    CHECK(store_measurement_id(s, run, &m, &with, err, sizeof err) == 0, "store: a measurement with energy (%s)", err);
    m.energy_j = m.power_w = NAN;
    CHECK(store_measurement_id(s, run, &m, &without, err, sizeof err) == 0, "store: one without");
    store_close(s);
    q_col(db, "energy_j", with, a, sizeof a);
    q_col(db, "power_w", with, b, sizeof b);
    CHECK(!strcmp(a, "1.5") && !strcmp(b, "300.0"), "store: energy_j 1.5 and power_w 300 read back (%s, %s)", a, b);
    q_col(db, "energy_j", without, a, sizeof a);
    q_col(db, "power_w", without, b, sizeof b);
    CHECK(!strcmp(a, "<null>") && !strcmp(b, "<null>"), "store: NaN energy is NULL (%s, %s)", a, b);

    /* A later round's update carries the energy too. */
    s = store_open(db, err, sizeof err);
    m.energy_j = 2.5, m.power_w = 250;
    CHECK(s && store_measurement_more(s, without, &m, 0, err, sizeof err) == 0, "store: a later round's update");
    store_close(s);
    q_col(db, "energy_j", without, a, sizeof a);
    q_col(db, "power_w", without, b, sizeof b);
    CHECK(!strcmp(a, "2.5") && !strcmp(b, "250.0"), "store: the update wrote energy_j 2.5, power_w 250 (%s, %s)", a, b);
}

static void print_checks(void) {
    struct device_info dev;
    nvidia_gpu(&dev, "");
    struct measurement m = {0};
    measurement_unknown(&m);
    str_copy(m.app, sizeof m.app, "lbm");
    m.status = ST_OK;
    m.energy_j = 51.25, m.power_w = 301.4;
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    runner_print(f, &dev, &m, 0);
    m.energy_j = 0.0123;
    runner_print(f, &dev, &m, 0);
    m.energy_j = m.power_w = NAN;
    runner_print(f, &dev, &m, 0);
    /* The spread: CV of the samples, n/a for one repetition (never "0"). */
    double one[1] = {2.0}, three[3] = {1.0, 1.1, 1.2};
    m.samples = one, m.nsamples = 1;
    runner_print(f, &dev, &m, 0);
    m.samples = three, m.nsamples = 3;
    runner_print(f, &dev, &m, 0);
    m.samples = NULL, m.nsamples = 0;
    fclose(f);
    char *l2 = strchr(text, '\n') + 1, *l3 = strchr(l2, '\n') + 1, *l4 = strchr(l3, '\n') + 1;
    char *l5 = strchr(l4, '\n') + 1;
    CHECK(strstr(text, "  51.25 J/rep 301 W") && strstr(l2, "  12.3 mJ/rep 301 W") && !strstr(l3, "/rep"),
          "runner_print: energy in J or mJ per repetition and watts, only when known");
    CHECK(strstr(l4, " CV n/a ") && strstr(l5, " CV 9.1% ") && !strstr(text, "IQR"),
          "runner_print: spread as CV %% (0.1/1.1 = 9.1%%), n/a for one repetition");
    CHECK(strlen(text) / 5 < 170, "runner_print: lines under 170 characters on average (%zu)", strlen(text) / 5);
    free(text);
}

static void local_device_checks(void) {
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0, n = devices_all(&all, notes, 8, &nnotes), others = 0;
    for (int i = 0; i < n; i++) {
        struct energy_meter *m = energy_open(&all[i]);
        if (!strcasestr(all[i].vendor, "nvidia") || strcmp(all[i].kind, "gpu")) {
            CHECK(!m, "%s (%s) has no energy meter", all[i].spec, all[i].name);
            others++;
        } else {
            unsigned long long mj = 0;
            printf("# %s: energy meter %s\n", all[i].spec, energy_describe(m));
            if (m) CHECK(energy_read_mj(m, &mj) == 0 && mj > 0, "%s's meter reads %llu mJ", all[i].spec, mj);
        }
        energy_close(m);
    }
    if (!others) printf("# no device here without a meter to check\n");
    free(all);

    char why[256];
    struct device_info d;
    nvidia_gpu(&d, "0000:ff:1f.7"); /* no board sits there */
    struct energy_meter *m = energy_open_why(&d, why, sizeof why);
    CHECK(!m && why[0], "an NVIDIA GPU NVML cannot find has no meter, and a reason (%s)", why);
    energy_close(m);
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--fake-nvml")) {
        fake_nvml_checks();
        CHECK_DONE();
    }
    char dir[] = "/tmp/test_energy.XXXXXX";
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    window_checks();
    rounds_checks();
    pipe_checks();
    store_checks(dir);
    print_checks();
    local_device_checks();
    run_fake_nvml("/proc/self/exe", dir);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", dir);
    CHECK_DONE();
}
