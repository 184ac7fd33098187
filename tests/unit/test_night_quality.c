/* A night's quality judged from its series' own spread (issue 41): three
 * quiet nights of two devices' series, then a fourth whose series on one
 * device are several times noisier than usual. That device, and only it, is
 * disturbed; one erratic series alone is not; a usual spread under the floor
 * does not make 1 % look like a storm. Real stores, real SQL: nights written
 * through the store as `harness nightly` writes them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/measurement.h"
#include "store/store.h"
#include "store/store_nightly.h"
#include "store/store_nightly_run.h"
#include "track/night_quality.h"

static void device(struct device_info *d, const char *spec) {
    memset(d, 0, sizeof *d);
    str_copy(d->backend, sizeof d->backend, "openmp");
    str_copy(d->spec, sizeof d->spec, spec);
    str_copy(d->name, sizeof d->name, spec);
    str_copy(d->kind, sizeof d->kind, "cpu");
    str_fmt(d->fingerprint, sizeof d->fingerprint, "%016llx", (unsigned long long)hash_str(spec, 0));
}

/* A verified series `variant` whose rounds spread by `spread` (IQR/median). */
static void series(struct store *s, int64_t run, const char *variant, double spread) {
    struct measurement m;
    memset(&m, 0, sizeof m);
    measurement_unknown(&m);
    str_copy(m.app, sizeof m.app, "lbm");
    str_copy(m.input, sizeof m.input, "128x128");
    str_copy(m.variant, sizeof m.variant, variant);
    str_fmt(m.knobs, sizeof m.knobs, "variant=%s", variant);
    m.wg[0] = 32;
    m.wg[1] = 1;
    m.iters = m.iters_full = 100;
    m.status = ST_OK;
    m.median = 0.010;
    m.q1 = m.median * (1 - spread / 2);
    m.q3 = m.median * (1 + spread / 2);
    char err[512];
    if (store_measurement(s, run, &m, err, sizeof err)) fprintf(stderr, "# %s\n", err);
}

/* One night: each device's three series at its spreads. */
static int64_t night(struct store *s, const struct device_info dev[2], const double spread[2][3]) {
    static int nights;
    int64_t id = 0;
    char err[512], suite[32];
    /* (host, started_at, suite) is unique, and these nights start within a millisecond */
    str_fmt(suite, sizeof suite, "night-%d.sweep", ++nights);
    if (store_nightly_begin(s, suite, "", "", 1, &id)) fprintf(stderr, "# nightly_begin failed\n");
    const int64_t run0 = store_last_run_id(s), peak0 = store_last_peak_id(s);
    for (int d = 0; d < 2; d++) {
        const int64_t run = store_run_begin(s, &dev[d], "harness nightly --test", err, sizeof err);
        static const char *const names[] = {"final", "t09-deferred", "t05-soa"};
        for (int k = 0; k < 3; k++) series(s, run, names[k], spread[d][k]);
        store_run_end(s, run);
    }
    store_nightly_end(s, id, 0, "", run0, store_last_run_id(s), peak0, store_last_peak_id(s), err, sizeof err);
    return id;
}

int main(void) {
    char dir[] = "/tmp/test-night-quality-XXXXXX";
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    char db[600], err[512], quality[1024], devices[256];
    snprintf(db, sizeof db, "%s/q.db", dir);
    struct store *s = store_open(db, err, sizeof err);
    CHECK(s != NULL && store_nightly_tables(s, err, sizeof err) == 0, "a store with the nightly tables (%s)", err);
    if (!s) CHECK_DONE();
    struct device_info dev[2];
    device(&dev[0], "openmp");
    device(&dev[1], "opencl:0.0");
    const double quiet[2][3] = {{0.010, 0.012, 0.011}, {0.020, 0.018, 0.022}};
    for (int n = 0; n < 3; n++) night(s, dev, quiet);
    int64_t id = night(s, dev, quiet);
    int rc = night_quality(s, id, quality, sizeof quality, devices, sizeof devices);
    CHECK(rc == 0 && !strcmp(quality, "ok"), "a fourth night as quiet as the first three: ok (%s)", quality);

    const double openmp_noisy[2][3] = {{0.050, 0.060, 0.045}, {0.021, 0.019, 0.020}};
    id = night(s, dev, openmp_noisy);
    rc = night_quality(s, id, quality, sizeof quality, devices, sizeof devices);
    CHECK(rc == 1 && strstr(quality, "openmp series spread") && strstr(quality, "median of 3 series") &&
              !strcmp(devices, "openmp"),
          "every openmp series 4-5x its usual spread: disturbed, for openmp alone (%s | %s)", quality, devices);

    const double one_erratic[2][3] = {{0.011, 0.200, 0.010}, {0.020, 0.018, 0.022}};
    id = night(s, dev, one_erratic);
    rc = night_quality(s, id, quality, sizeof quality, devices, sizeof devices);
    CHECK(rc == 0, "one erratic series of three is the series' own business, not the night's (%s)", quality);
    store_close(s);

    /* A fresh history whose usual spread is 0.1 %: 1 % tonight is twice the
     * floor (0.5 %), not ten times the usual. */
    snprintf(db, sizeof db, "%s/floor.db", dir);
    s = store_open(db, err, sizeof err);
    if (!s || store_nightly_tables(s, err, sizeof err)) return fprintf(stderr, "# %s\n", err), 1;
    const double tight[2][3] = {{0.001, 0.001, 0.001}, {0.001, 0.001, 0.001}};
    const double one_pct[2][3] = {{0.010, 0.010, 0.010}, {0.001, 0.001, 0.001}};
    const double four_pct[2][3] = {{0.040, 0.040, 0.040}, {0.001, 0.001, 0.001}};
    for (int n = 0; n < 3; n++) night(s, dev, tight);
    id = night(s, dev, one_pct);
    rc = night_quality(s, id, quality, sizeof quality, devices, sizeof devices);
    CHECK(rc == 0, "usual 0.1 %%, tonight 1 %%: 2x the floor, ok (%s)", quality);
    id = night(s, dev, four_pct);
    rc = night_quality(s, id, quality, sizeof quality, devices, sizeof devices);
    CHECK(rc == 1 && strstr(quality, "openmp series spread 8.0x"), "usual 0.1 %%, tonight 4 %%: 8x the floor (%s)",
          quality);
    store_close(s);
    char cmd[700];
    snprintf(cmd, sizeof cmd, getenv("KEEP") ? "true %s" : "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "scratch removed");
    CHECK_DONE();
}
