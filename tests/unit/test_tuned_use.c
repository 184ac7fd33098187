/* TUNED_VARIANT, the name of each device's stored configuration: a variants
 * file cannot define it; variant_tuned turns a stored knob string into a
 * variant (and refuses one that no longer parses); store_tuned_variant finds
 * the configuration stored for a device and input, says what to do where
 * there is none, and never hands back another variant in its place. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/variants.h"
#include "store/store.h"
#include "store/store_tuned.h"
#include "test_files.h"

static char tmpdir[] = "/tmp/test_tuned_use.XXXXXX";

static void test_variants(const struct app *lbm) {
    char path[PATH_MAX], err[1024] = "";
    struct variant_list l;
    write_file_in(tmpdir, "reserved.variants", "a: layout=soa\ntuned: layout=aos\n", path, sizeof path);
    int rc = variants_load(path, lbm->knobs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2) && strstr(err, "reserved"),
          "a variants file cannot define '" TUNED_VARIANT "' (%s)", err);

    struct variant v;
    variant_tuned_placeholder(&v, lbm->knobs);
    CHECK(v.tuned == 1 && !strcmp(v.name, TUNED_VARIANT), "the placeholder is named tuned and marked unresolved");

    err[0] = '\0';
    rc = variant_tuned(&v, lbm->knobs, "obstacles=branch,layout=soa", "final{obstacles=branch}", err, sizeof err);
    CHECK(rc == 0 && v.tuned == 0 && !strcmp(v.name, TUNED_VARIANT) && knob_is(&v.knobs, "obstacles", "branch") &&
              knob_is(&v.knobs, "layout", "soa") && !strcmp(v.description, "final{obstacles=branch}"),
          "variant_tuned: the stored knobs on top of the defaults, the config's name as description (%s)", err);
    err[0] = '\0';
    rc = variant_tuned(&v, lbm->knobs, "obstacles=branch,colour=red", "x", err, sizeof err);
    CHECK(rc != 0 && strstr(err, "colour"), "variant_tuned: a knob that no longer exists is an error (%s)", err);
}

static void put(struct store *s, const char *fp, const char *input, const char *knobs, unsigned x, unsigned y) {
    struct tune_result r = {.best_s = 0.01, .margin = 0.05, .noise = 0.01, .evaluations = 12};
    struct tuned_put p = {.wg = {x, y},
                          .knobs = knobs,
                          .config = "final{obstacles=branch}",
                          .objective = "time",
                          .strategy = "exhaustive",
                          .samples = 5,
                          .evaluations = 12,
                          .search_s = 42.5,
                          .energy_j = NAN};
    char err[512] = "";
    int rc = store_tuned_put(s, fp, "lbm", input, TUNED_VARIANT, &r, &p, err, sizeof err);
    CHECK(rc == 0, "store_tuned_put %s %s %ux%u (%s)", fp, input, x, y, err);
}

static void test_resolve(const struct app *lbm) {
    char path[PATH_MAX], err[1024] = "", why[1024] = "";
    snprintf(path, sizeof path, "%s/t.db", tmpdir);
    struct store *s = store_open(path, err, sizeof err);
    CHECK(s != NULL, "store_open (%s)", err);
    if (!s) return;
    struct app_opts o = {.input = "128x128"};
    struct app_input *in = lbm->input_load(&o, err, sizeof err);
    CHECK(in != NULL, "lbm 128x128 loads (%s)", err);
    if (!in) return;
    struct device_info dev = {.spec = "openmp", .fingerprint = "00112233aabbccdd"};

    struct variant v;
    struct tuned_config cfg;
    unsigned wg[2] = {7, 7};
    int rc = store_tuned_variant(s, lbm, in, &dev, &v, wg, &cfg, why, sizeof why);
    CHECK(rc == 1 && strstr(why, "openmp") && strstr(why, "128x128") && strstr(why, "harness tune FILE") &&
              wg[0] == 7 && v.tuned,
          "nothing stored: 1, the shape untouched, a note naming device, input and the command (%s)", why);
    rc = store_tuned_variant(NULL, lbm, in, &dev, &v, wg, NULL, why, sizeof why);
    CHECK(rc == 1, "no database: nothing stored (%s)", why);

    /* A shape-only row of another variant is not a configuration. */
    struct tune_result shape = {.best_s = 0.02, .margin = NAN, .noise = NAN};
    struct tuned_put none = {.wg = {64, 1}, .search_s = NAN, .energy_j = NAN};
    store_tuned_put(s, dev.fingerprint, "lbm", "128x128", "final", &shape, &none, err, sizeof err);
    rc = store_tuned_variant(s, lbm, in, &dev, &v, wg, NULL, why, sizeof why);
    CHECK(rc == 1, "a shape-only row of final does not stand in for tuned");

    put(s, dev.fingerprint, "128x128", "obstacles=branch", 16, 2);
    rc = store_tuned_variant(s, lbm, in, &dev, &v, wg, &cfg, why, sizeof why);
    char canon[KNOBS_TEXT_MAX];
    knobs_canonical(&v.knobs, canon, sizeof canon);
    CHECK(rc == 0 && wg[0] == 16 && wg[1] == 2 && !v.tuned && !strcmp(v.name, TUNED_VARIANT) &&
              knob_is(&v.knobs, "obstacles", "branch") && !strcmp(cfg.config, "final{obstacles=branch}"),
          "stored: knobs obstacles=branch at 16x2, named tuned (%s)", canon);
    struct device_info other = {.spec = "opencl:0.0", .fingerprint = "ffffffffffffffff"};
    rc = store_tuned_variant(s, lbm, in, &other, &v, wg, &cfg, why, sizeof why);
    CHECK(rc == 1 && strstr(why, "opencl:0.0"), "another device has none (%s)", why);

    put(s, dev.fingerprint, "128x128", "obstacles=branch,colour=red", 16, 2);
    rc = store_tuned_variant(s, lbm, in, &dev, &v, wg, &cfg, why, sizeof why);
    CHECK(rc == -1 && strstr(why, "colour") && v.tuned, "knobs that no longer parse: -1 and why (%s)", why);

    lbm->input_free(in);
    store_close(s);
}

int main(void) {
    set_root();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct app *lbm = app_find("lbm");
    CHECK(lbm != NULL, "the lbm app is built in");
    if (lbm) {
        test_variants(lbm);
        test_resolve(lbm);
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
