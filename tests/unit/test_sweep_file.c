/* Sweep files: the shipped sweeps, shape generators, constraint expressions,
 * knob patterns, and one bad file per kind of error, each reported at
 * "path:LINE:". */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/sweep_file.h"
#include "core/variants.h"
#include "core/worker.h"
#include "test_files.h"

static char tmpdir[] = "/tmp/test_sweep_file.XXXXXX";

static const char *write_tmp(const char *name, const char *text, char *path, size_t n) {
    return write_file_in(tmpdir, name, text, path, n);
}

/* The message begins "path:line:". */
#define at_line names_line

static struct device_info fake_device(size_t max_wg, size_t max_x, size_t max_y) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, "opencl");
    d.max_wg = max_wg;
    d.max_item[0] = max_x;
    d.max_item[1] = max_y;
    d.max_item[2] = 1;
    d.local_mem = 49152;
    d.compute_units = 132;
    device_caps(&d);
    return d;
}

/* Shapes of s that pass its constraints on d with this grid. */
static int count_ok(const struct sweep_spec *s, const struct device_info *d, size_t nx, size_t ny) {
    const size_t grid[2] = {nx, ny};
    int n = 0;
    char why[256];
    for (int i = 0; i < s->nshapes; i++) n += sweep_constraints_ok(s, s->shapes[i], d, grid, why, sizeof why);
    return n;
}

static int has_shape(const struct sweep_spec *s, int i, unsigned x, unsigned y) {
    return i < s->nshapes && s->shapes[i][0] == x && s->shapes[i][1] == y;
}

/* Powers of two 2^a x 2^b with a, b in 0..max_log, a + b <= 10 (1024 items):
 * the hand count the exhaustive sweep's constraint must agree with. */
static int pow2_pairs(int max_log) {
    int n = 0;
    for (int a = 0; a <= max_log; a++)
        for (int b = 0; b <= max_log; b++) n += a + b <= 10;
    return n;
}

static void test_shipped(void) {
    char path[PATH_MAX], err[2048] = "";
    struct sweep_spec s;
    int rc = sweep_parse(repo_path(path, sizeof path, "sweeps/smoke.sweep"), &s, err, sizeof err);
    CHECK(rc == 0, "smoke.sweep parses (%s)", rc ? err : "");
    if (rc == 0) {
        CHECK(strcmp(s.app, "lbm") == 0 && s.ninputs == 1 && strcmp(s.inputs[0], "128x128") == 0,
              "smoke: app lbm, input 128x128");
        CHECK(s.nvariants == 2 && strcmp(s.variants[0], "final") == 0 && strcmp(s.variants[1], "t09-deferred") == 0,
              "smoke: variants final, t09-deferred");
        CHECK(s.ndevices == 1 && strcmp(s.devices[0], "all") == 0, "smoke: device all");
        CHECK(s.nshapes == 4 && has_shape(&s, 0, 16, 1) && has_shape(&s, 1, 32, 1) && has_shape(&s, 2, 64, 1) &&
                  has_shape(&s, 3, 32, 2),
              "smoke: shapes 16x1 32x1 64x1 32x2 in order (%d)", s.nshapes);
        CHECK(s.iters == 300 && s.reps == 3 && s.warmup == 1 && s.timeout_s == 120,
              "smoke: iters 300, reps 3, warmup 1, timeout 120");
        CHECK(s.nconstraints == 1 && strcmp(s.constraints[0].expr, "x*y <= max_wg") == 0,
              "smoke: constraint x*y <= max_wg");
        struct device_info big = fake_device(1024, 1024, 1024), small = fake_device(32, 1024, 1024);
        CHECK(count_ok(&s, &big, 128, 128) == 4 && count_ok(&s, &small, 128, 128) == 2,
              "smoke: all 4 shapes fit max_wg 1024, 2 fit max_wg 32");

        const struct app *lbm = app_find("lbm");
        struct variant_list named = {0}, out = {0};
        if (lbm && variants_load_app("lbm", lbm->knobs, &named, err, sizeof err) == 0) {
            rc = sweep_variants(&s, lbm->knobs, &named, &out, err, sizeof err);
            CHECK(rc == 0 && out.n == 2 && strcmp(out.v[0].name, "final") == 0 &&
                      strcmp(out.v[1].name, "t09-deferred") == 0,
                  "smoke: sweep_variants gives final, t09-deferred (%s)", rc ? err : "");
            variants_free(&out);
        } else {
            CHECK(0, "smoke: lbm app and its variants load (%s)", err);
        }
        variants_free(&named);
        sweep_free(&s);
    }

    rc = sweep_parse(repo_path(path, sizeof path, "sweeps/wg-exhaustive.sweep"), &s, err, sizeof err);
    CHECK(rc == 0, "wg-exhaustive.sweep parses (%s)", rc ? err : "");
    if (rc) return;
    CHECK(s.ninputs == 2 && strcmp(s.inputs[1], "1024x1024") == 0 && s.nvariants == 1 && s.iters == 2000 &&
              s.reps == 3 && s.warmup == 1 && s.timeout_s == CONFIG_TIMEOUT_S,
          "wg-exhaustive: two inputs, final, iters 2000, reps 3, warmup 1, default timeout CONFIG_TIMEOUT_S");
    CHECK(s.nshapes == 121 && has_shape(&s, 0, 1, 1) && has_shape(&s, 1, 1, 2) && has_shape(&s, 120, 1024, 1024),
          "wg-exhaustive: pow2(1..1024) x pow2(1..1024) is 121 shapes, 1x1 first, 1024x1024 last (%d)", s.nshapes);
    struct device_info d = fake_device(1024, 1024, 1024);
    /* 128x128: x and y are 1..128 (2^0..2^7) to divide the grid; x*y <= 1024
     * drops a+b >= 11: 4+3+2+1 = 10 of the 64 pairs. */
    CHECK(pow2_pairs(7) == 54, "hand count: 54 shapes on 128x128");
    CHECK(count_ok(&s, &d, 128, 128) == 54, "wg-exhaustive: 54 shapes on 128x128 (%d)", count_ok(&s, &d, 128, 128));
    /* 1024x1024: every power up to 1024 divides; a+b <= 10 leaves 66 of 121. */
    CHECK(pow2_pairs(10) == 66, "hand count: 66 shapes on 1024x1024");
    CHECK(count_ok(&s, &d, 1024, 1024) == 66, "wg-exhaustive: 66 shapes on 1024x1024 (%d)",
          count_ok(&s, &d, 1024, 1024));
    /* Per-dimension limits of 1024x1024x64 (CUDA's) cap y at 64: a+b <= 10, b <= 6. */
    struct device_info cuda = fake_device(1024, 1024, 64);
    CHECK(count_ok(&s, &cuda, 1024, 1024) == 66 - (1 + 2 + 3 + 4), "wg-exhaustive: max_y 64 leaves 56 (%d)",
          count_ok(&s, &cuda, 1024, 1024));
    const unsigned wg[2] = {64, 32};
    const size_t grid[2] = {128, 128};
    char why[256] = "";
    CHECK(!sweep_constraints_ok(&s, wg, &d, grid, why, sizeof why) && strstr(why, ": x*y <= max_wg: 2048 > 1024"),
          "wg-exhaustive: 64x32 fails naming x*y <= max_wg and 2048 > 1024 (%s)", why);
    sweep_free(&s);
}

static void test_generators(void) {
    char path[PATH_MAX], err[2048] = "";
    struct sweep_spec s;
    write_tmp("gen.sweep",
              "# generators\n"
              "app lbm   # trailing comment\n"
              "\n"
              "input 128x128 gen:300x200\n"
              "input 128x128\n"
              "variant final\n"
              "wg range(8..32 step 8) x 1\n"
              "wg 32x1 64x1 16x{1,2,4}\n"
              "wg range(1..3)x{ 2 , 1 }  pow2(4..8) X 1\n",
              path, sizeof path);
    int rc = sweep_parse(path, &s, err, sizeof err);
    CHECK(rc != 0 && at_line(err, path, 9), "gen: an upper-case X is not the shape separator (%s)", err);

    write_tmp("gen.sweep",
              "# generators\n"
              "app lbm   # trailing comment\n"
              "\n"
              "input 128x128 gen:300x200\n"
              "input 128x128\n"
              "variant final\n"
              "wg range(8..32 step 8) x 1\n"
              "wg 32x1 64x1 16x{1,2,4}\n"
              "wg range(1..3)x{ 2 , 1 }  pow2(4..8) x 1\n",
              path, sizeof path);
    rc = sweep_parse(path, &s, err, sizeof err);
    CHECK(rc == 0, "gen: parses (%s)", rc ? err : "");
    if (rc) return;
    CHECK(s.ninputs == 2 && strcmp(s.inputs[1], "gen:300x200") == 0, "gen: inputs add up, repeats dropped");
    /* range: 8 16 24 32 (x1); then 32x1 again (dropped), 64x1, 16x1 (dropped),
     * 16x2, 16x4; then 1x2 1x1 2x2 2x1 3x2 3x1; then 4x1 (new), 8x1 (dropped). */
    static const unsigned want[][2] = {{8, 1}, {16, 1}, {24, 1}, {32, 1}, {64, 1}, {16, 2}, {16, 4},
                                       {1, 2}, {1, 1},  {2, 2},  {2, 1},  {3, 2},  {3, 1},  {4, 1}};
    const int nwant = (int)(sizeof want / sizeof want[0]);
    int same = s.nshapes == nwant;
    for (int i = 0; same && i < nwant; i++) same = has_shape(&s, i, want[i][0], want[i][1]);
    CHECK(same, "gen: range with step, sets, pow2, union in order without repeats (%d shapes)", s.nshapes);
    CHECK(s.ndevices == 1 && strcmp(s.devices[0], "all") == 0, "gen: device defaults to all");
    CHECK(s.reps == 5 && s.warmup == 1 && s.iters == 0 && s.timeout_s == CONFIG_TIMEOUT_S && s.nconstraints == 0,
          "gen: defaults reps 5, warmup 1, iters 0, timeout CONFIG_TIMEOUT_S");
    sweep_free(&s);

    write_tmp("nowg.sweep", "app lbm\ninput 128x128\nknobs layout=soa\ndevice openmp cuda:0\ndevice openmp\n", path,
              sizeof path);
    rc = sweep_parse(path, &s, err, sizeof err);
    CHECK(rc == 0 && s.nshapes == 1 && has_shape(&s, 0, 32, 1), "gen: no wg line gives 32x1 (%s)", rc ? err : "");
    CHECK(rc == 0 && s.ndevices == 2 && strcmp(s.devices[1], "cuda:0") == 0, "gen: device lists add up");
    CHECK(rc == 0 && s.npatterns == 1 && s.nvariants == 0, "gen: a knobs line alone is enough");
    if (rc == 0) sweep_free(&s);

    write_tmp("scalars.sweep", "app lbm\ninput 128x128\nvariant all\nreps 2\nreps 7\ntimeout 0.5\nwarmup 0\n", path,
              sizeof path);
    rc = sweep_parse(path, &s, err, sizeof err);
    CHECK(rc == 0 && s.reps == 7 && s.timeout_s == 0.5 && s.warmup == 0,
          "gen: a later number replaces an earlier one; fractional timeout; warmup 0 (%s)", rc ? err : "");
    if (rc == 0) sweep_free(&s);
}

/* Evaluates one constraint for a shape on a 1024/1024/64 device, grid 128x128. */
static int eval(const char *expr, unsigned x, unsigned y, char *why, size_t whyn) {
    struct sweep_spec s;
    memset(&s, 0, sizeof s);
    s.nconstraints = 1;
    str_copy(s.constraints[0].expr, sizeof s.constraints[0].expr, expr);
    struct device_info d = fake_device(1024, 1024, 64);
    const unsigned wg[2] = {x, y};
    const size_t grid[2] = {128, 128};
    return sweep_constraints_ok(&s, wg, &d, grid, why, whyn);
}

static void test_constraints(void) {
    char why[256];
    static const struct {
        const char *expr;
        unsigned x, y;
        int want;
    } cases[] = {
        {"x+y*2 == 10", 4, 3, 1},    /* * before + */
        {"(x+y)*2 == 14", 4, 3, 1},  /* parentheses */
        {"x - y - 1 == 0", 4, 3, 1}, /* left to right */
        {"x / y * y == 3", 4, 3, 1}, /* integer division, left to right */
        {"x % y == 1", 4, 3, 1},
        {"1 || 0 && 0", 4, 3, 1}, /* && before || */
        {"(1 || 0) && 0", 4, 3, 0},
        {"!0 == 1", 4, 3, 1}, /* ! before == */
        {"!x", 4, 3, 0},
        {"!!x", 4, 3, 1},
        {"1 < 2 == 1", 4, 3, 1},  /* < before == */
        {"-x + 5 == 1", 4, 3, 1}, /* unary minus */
        {"x*y <= max_wg", 32, 32, 1},
        {"x*y <= max_wg", 64, 32, 0},
        {"x <= max_x && y <= max_y", 1024, 64, 1},
        {"x <= max_x && y <= max_y", 1, 128, 0},
        {"nx == 128 && ny == 128 && local_mem == 49152 && compute_units == 132", 1, 1, 1},
        {"x >= 2 || y >= 2", 1, 1, 0},
        {"x > 2 != y > 2", 4, 1, 1},
        {"x != 4 && nx % (x - 4) == 0", 4, 1, 0}, /* short-circuit: no division by zero */
        {"x == 4 || nx / (x - 4) > 0", 4, 1, 1},
        {"x*y", 0, 5, 0}, /* any integer: zero is false */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why[0] = '\0';
        int got = eval(cases[i].expr, cases[i].x, cases[i].y, why, sizeof why);
        CHECK(got == cases[i].want, "constraint %s with x=%u y=%u is %d (%s)", cases[i].expr, cases[i].x, cases[i].y,
              cases[i].want, why);
    }
    CHECK(!eval("x != 4 && nx % (x - 4) == 0", 4, 1, why, sizeof why) && !strstr(why, "division"),
          "constraint: the skipped side of && does not divide (%s)", why);
    /* Issue 34: a constraint that cannot be evaluated is the file's mistake
     * (-1, the sweep stops with file:line), not a shape outside it. */
    CHECK(eval("nx / (x - 4) > 0", 4, 1, why, sizeof why) < 0 && strstr(why, "division by zero"),
          "constraint: division by zero is an error with a reason, not 'outside' (%s)", why);
    CHECK(eval("nx % (y - 1) == 0", 4, 1, why, sizeof why) < 0 && strstr(why, "division by zero in 'nx % (y - 1)'") &&
              strstr(why, "at shape 4x1"),
          "constraint: %% by zero is an error naming the shape (%s)", why);
    CHECK(!eval("x*y <= max_wg", 64, 32, why, sizeof why) && strcmp(why, "x*y <= max_wg: 2048 > 1024") == 0,
          "constraint: why reads 'x*y <= max_wg: 2048 > 1024' (%s)", why);
    CHECK(!eval("x <= 64 && nx % x == 0", 48, 1, why, sizeof why) && strstr(why, "nx % x == 0: 32 != 0"),
          "constraint: why names the failing part of an && (%s)", why);
    CHECK(eval("x*y <= max_wg", 2, 2, why, sizeof why) && why[0] == '\0', "constraint: a pass leaves why empty");

    /* Several constraints: the first failing one is reported. */
    struct sweep_spec s;
    memset(&s, 0, sizeof s);
    s.nconstraints = 2;
    str_copy(s.constraints[0].expr, sizeof s.constraints[0].expr, "x <= max_x");
    str_copy(s.constraints[1].expr, sizeof s.constraints[1].expr, "y <= max_y");
    struct device_info d = fake_device(1024, 1024, 64);
    const unsigned wg[2] = {8, 128};
    const size_t grid[2] = {128, 128};
    CHECK(!sweep_constraints_ok(&s, wg, &d, grid, why, sizeof why) && strstr(why, "y <= max_y: 128 > 64"),
          "constraint: the second of two fails and is named (%s)", why);
}

/* Writes text, parses it, and checks that it fails at `line` with `needle`. */
static void expect_error(const char *what, const char *text, int line, const char *needle) {
    char path[PATH_MAX], err[2048] = "";
    struct sweep_spec s;
    write_tmp("bad.sweep", text, path, sizeof path);
    int rc = sweep_parse(path, &s, err, sizeof err);
    CHECK(rc != 0 && at_line(err, path, line) && (!needle || strstr(err, needle)), "error: %s at line %d (%s)", what,
          line, err);
    CHECK(rc != 0 && s.shapes == NULL && s.nshapes == 0, "error: %s leaves no shapes to free", what);
    if (rc == 0) sweep_free(&s);
}

#define HEAD "app lbm\ninput 128x128\nvariant final\n"

static void test_errors(void) {
    expect_error("unknown keyword", HEAD "# fine\nshapes 32x1\n", 5, "unknown keyword 'shapes'");
    expect_error("missing value", HEAD "reps\n", 4, "reps: missing value");
    expect_error("missing value (comment only)", HEAD "input   # none\n", 4, "input: missing value");
    expect_error("bad number (reps 0)", HEAD "reps 0\n", 4, "'0'");
    expect_error("bad number (reps abc)", HEAD "reps abc\n", 4, "'abc'");
    expect_error("bad number (reps 3 4)", HEAD "reps 3 4\n", 4, "one value");
    expect_error("bad number (warmup -1)", HEAD "warmup -1\n", 4, "'-1'");
    expect_error("bad number (iters 0)", HEAD "iters 0\n", 4, "'0'");
    expect_error("bad number (iters 12x)", HEAD "iters 12x\n", 4, "'12x'");
    expect_error("bad number (timeout 0)", HEAD "timeout 0\n", 4, "'0'");
    expect_error("bad number (timeout soon)", HEAD "timeout soon\n", 4, "'soon'");
    expect_error("bad generator (pow2 of non powers of two)", HEAD "wg 32x1\nwg pow2(3..64) x 1\n", 5, "powers of two");
    expect_error("bad generator (pow2 a > b)", HEAD "wg pow2(64..1) x 1\n", 4, "empty");
    expect_error("bad generator (range a > b)", HEAD "wg range(8..4) x 1\n", 4, "empty");
    expect_error("bad generator (empty set)", HEAD "wg 1 x {}\n", 4, "empty set");
    expect_error("bad generator (step 0)", HEAD "wg range(1..8 step 0) x 1\n", 4, "step");
    expect_error("bad generator (no ')')", HEAD "wg pow2(1..8 x 1\n", 4, "')'");
    expect_error("bad generator (no 'x')", HEAD "wg 32y1\n", 4, "'x'");
    expect_error("bad generator (size 0)", HEAD "wg 0x1\n", 4, "outside");
    expect_error("bad generator (too many shapes)", HEAD "wg range(1..100) x range(1..100)\n", 4, "limit");
    expect_error("bad generator (no second size)", HEAD "wg 32x\n", 4, "the end of the line");
    expect_error("bad constraint (dangling <=)", HEAD "constraint x*y <=\n", 4, "end of expression");
    expect_error("bad constraint (= for ==)", HEAD "constraint x = 3\n", 4, "'=='");
    expect_error("bad constraint (no ')')", HEAD "constraint (x + 1\n", 4, "')'");
    expect_error("bad constraint (&)", HEAD "constraint x & y\n", 4, "'&'");
    expect_error("bad constraint (two values)", HEAD "constraint x y\n", 4, "'y'");
    expect_error("unknown variable", HEAD "constraint x <= 64\nconstraint z < 3\n", 5, "unknown variable 'z'");
    expect_error("app twice", "app lbm\ninput 128x128\napp lbm\nvariant final\n", 3, "twice");
    expect_error("app missing", "input 128x128\nvariant final\n# end\n", 3, "'app'");
    expect_error("no input", "app lbm\nvariant final\n", 2, "'input'");
    expect_error("no variant or knobs", "app lbm\ninput 128x128\nreps 3\n\n", 4, "'variant' or 'knobs'");
    expect_error("empty file", "", 0, "'app'");
    /* Input names are checked by the app when the sweep loads (see
     * tests/integration/sweep_robustness.sh), not by the core parser. */
    expect_error("knobs without settings", HEAD "knobs final:\n", 4, "no knob=value");
    expect_error("knobs with an empty value", HEAD "knobs reduction=binary|\n", 4, "empty value");
    expect_error("knobs with a knob twice", HEAD "knobs reduction=binary reduction=deferred\n", 4, "twice");
    expect_error("knobs without '='", HEAD "knobs final: reduction\n", 4, "knob=value");
    expect_error("knobs giving more than 4096",
                 HEAD "knobs a=1|2 b=1|2 c=1|2 d=1|2 e=1|2 f=1|2 g=1|2 h=1|2 i=1|2 j=1|2 k=1|2 l=1|2 m=1|2\n", 4,
                 "4096");
    expect_error("bad variant name", HEAD "variant fi/nal\n", 4, "fi/nal");

    char path[PATH_MAX], err[2048] = "";
    struct sweep_spec s;
    snprintf(path, sizeof path, "%s/absent.sweep", tmpdir);
    CHECK(sweep_parse(path, &s, err, sizeof err) != 0 && strstr(err, path), "error: a missing file is named (%s)", err);
}

/* Parses text and expands its variants against the lbm app (tuned_ok: as
 * harness sweep does, with `variant tuned`). */
static int expand_as(const char *text, int tuned_ok, const struct variant_list *named, struct variant_list *out,
                     char *path, char *err, size_t errn) {
    struct sweep_spec s;
    write_tmp("variants.sweep", text, path, PATH_MAX);
    if (sweep_parse(path, &s, err, errn) != 0) return -2;
    int rc = (tuned_ok ? sweep_variants_tuned : sweep_variants)(&s, app_find("lbm")->knobs, named, out, err, errn);
    sweep_free(&s);
    return rc;
}

static int expand(const char *text, const struct variant_list *named, struct variant_list *out, char *path, char *err,
                  size_t errn) {
    return expand_as(text, 0, named, out, path, err, errn);
}

static void test_variants(void) {
    const struct app *lbm = app_find("lbm");
    struct variant_list named = {0}, out = {0};
    char path[PATH_MAX], err[4096] = "";
    if (!lbm || variants_load_app("lbm", lbm->knobs, &named, err, sizeof err) != 0) {
        CHECK(0, "variants: the lbm app and variants/lbm.variants load (%s)", err);
        return;
    }
    const struct variant *fin = variant_find(&named, "final");

    int rc = expand("app lbm\ninput 128x128\nvariant all\n", &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == named.n && strcmp(out.v[0].name, named.v[0].name) == 0,
          "variants: all gives every named variant (%d of %d)", out.n, named.n);
    variants_free(&out);

    rc = expand("app lbm\ninput 128x128\nvariant final all\nvariant final\n", &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == named.n && strcmp(out.v[0].name, "final") == 0,
          "variants: final then all: no repeats, final first (%d)", out.n);
    variants_free(&out);

    rc = expand_as("app lbm\ninput 128x128\nvariant final tuned\n", 1, &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == 2 && !out.v[0].tuned && out.v[1].tuned && !strcmp(out.v[1].name, TUNED_VARIANT),
          "variants: `variant tuned` is a placeholder the sweep resolves per device and input (%s)", rc ? err : "");
    variants_free(&out);
    err[0] = 0;
    rc = expand("app lbm\ninput 128x128\nvariant final tuned\n", &named, &out, path, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 3) && strstr(err, "tuned"),
          "variants: where stored configurations are not run (tune FILE), `variant tuned` fails at path:3: (%s)", err);

    rc = expand_as("app lbm\ninput 128x128\nvariant all\n", 1, &named, &out, path, err, sizeof err);
    int tuned = 0;
    for (int i = 0; i < out.n; i++) tuned += out.v[i].tuned;
    CHECK(rc == 0 && !tuned, "variants: all is every named variant, not tuned");
    variants_free(&out);

    rc = expand("app lbm\ninput 128x128\nknobs final: reduction=binary|deferred obstacles=branch|mask\n", &named, &out,
                path, err, sizeof err);
    CHECK(rc == 0 && out.n == 4, "variants: 2 x 2 pattern gives 4 (%s)", rc ? err : "");
    if (rc == 0 && out.n == 4) {
        static const char *const names[] = {
            "final{reduction=binary,obstacles=branch}", "final{reduction=binary,obstacles=mask}",
            "final{reduction=deferred,obstacles=branch}", "final{reduction=deferred,obstacles=mask}"};
        int good = 1;
        for (int i = 0; i < 4; i++) good &= strcmp(out.v[i].name, names[i]) == 0;
        CHECK(good, "variants: expansions named base{k=v,...}, the last knob fastest (%s ...)", out.v[0].name);
        CHECK(knob_is(&out.v[2].knobs, "reduction", "deferred") && knob_is(&out.v[2].knobs, "obstacles", "branch"),
              "variants: expansion 3 sets reduction=deferred obstacles=branch");
        CHECK(fin && knob_is(&out.v[0].knobs, "layout", knob_get(&fin->knobs, "layout")) &&
                  knob_is(&out.v[0].knobs, "neighbours", knob_get(&fin->knobs, "neighbours")),
              "variants: the other knobs come from the base");
    }
    variants_free(&out);

    rc = expand("app lbm\ninput 128x128\nknobs t05-soa: kernels=fused|split\nknobs layout=aos|soa work=empty\n", &named,
                &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == 4, "variants: two patterns add up (%d) (%s)", out.n, rc ? err : "");
    if (rc == 0 && out.n == 4) {
        CHECK(strcmp(out.v[1].name, "t05-soa{kernels=split}") == 0 && knob_is(&out.v[1].knobs, "layout", "soa") &&
                  knob_is(&out.v[1].knobs, "sync", "in-order"),
              "variants: t05-soa{kernels=split} keeps t05-soa's layout=soa (%s)", out.v[1].name);
        CHECK(strcmp(out.v[2].name, "custom{layout=aos,work=empty}") == 0 &&
                  knob_is(&out.v[2].knobs, "reduction", "deferred") && knob_is(&out.v[2].knobs, "work", "empty"),
              "variants: no base is custom{...} over the app's defaults (%s)", out.v[2].name);
    }
    variants_free(&out);

    rc = expand("app lbm\ninput 128x128\nvariant t09-deferred\n"
                "knobs final: reduction=local|binary|deferred, obstacles=branch|mask neighbours=wrap|bitmask\n",
                &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == 1 + 12 && strcmp(out.v[0].name, "t09-deferred") == 0,
          "variants: named first, then 3 x 2 x 2 = 12 expansions (%d)", out.n);
    variants_free(&out);

    /* Long generated names: cut to 63 characters with a hash, still distinct. */
    rc = expand("app lbm\ninput 128x128\n"
                "knobs t10-chunked-1792: layout=soa-3d sync=in-order|finish-each obstacles=mask neighbours=bitmask\n",
                &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == 2 && strlen(out.v[0].name) == 63 && strlen(out.v[1].name) == 63 &&
              strcmp(out.v[0].name, out.v[1].name) != 0 && strchr(out.v[0].name, '~') && out.v[0].name[62] == '}',
          "variants: long names are cut to 63 characters and stay distinct (%s)", rc ? err : out.v[0].name);
    CHECK(rc == 0 && out.n == 2 &&
              strcmp(out.v[1].description,
                     "t10-chunked-1792{layout=soa-3d,sync=finish-each,obstacles=mask,neighbours=bitmask}") == 0,
          "variants: the description keeps the whole name (%s)", out.n == 2 ? out.v[1].description : "");
    variants_free(&out);

    /* Errors, each at the line that named the thing. */
    rc = expand("app lbm\ninput 128x128\nvariant final\n\nvariant t05-soa t99\n", &named, &out, path, err, sizeof err);
    CHECK(rc == -1 && at_line(err, path, 5) && strstr(err, "unknown variant 't99'"),
          "variants: unknown variant at path:5: (%s)", err);
    CHECK(out.n == 0 && out.v == NULL, "variants: a failure leaves an empty list");
    rc = expand("app lbm\ninput 128x128\nvariant final\nknobs nosuch: layout=soa\n", &named, &out, path, err,
                sizeof err);
    CHECK(rc == -1 && at_line(err, path, 4) && strstr(err, "'nosuch'"),
          "variants: unknown base variant at path:4: (%s)", err);
    rc = expand("app lbm\ninput 128x128\n# c\nknobs final: colour=red|blue\n", &named, &out, path, err, sizeof err);
    CHECK(rc == -1 && at_line(err, path, 4) && strstr(err, "colour"), "variants: unknown knob at path:4: (%s)", err);
    rc = expand("app lbm\ninput 128x128\nknobs reduction=deferred|tree\n", &named, &out, path, err, sizeof err);
    CHECK(rc == -1 && at_line(err, path, 3) && strstr(err, "tree"), "variants: bad value at path:3: (%s)", err);
    /* 4 x 2 x 2 x 2 x 5 x 3 x 2 x 2 = 1920 twice (two bases), then
     * 3 x 4 x 5 x 3 x 2 = 360 more: 4200, over 4096 at the third pattern. */
#define WIDE                                                                                                           \
    "kernels=partial|split|fused|fused-accel sync=finish-each|in-order obstacles=branch|mask "                         \
    "neighbours=wrap|bitmask reduction=host-each-step|local|binary|chunked|deferred "                                  \
    "args=buffers|packed|struct constants=hoisted|inline work=full|empty\n"
    rc = expand("app lbm\ninput 128x128\nknobs " WIDE "knobs final: " WIDE
                "knobs layout=aos|soa|soa-3d kernels=partial|split|fused|fused-accel "
                "reduction=host-each-step|local|binary|chunked|deferred args=buffers|packed|struct "
                "sync=finish-each|in-order\n",
                &named, &out, path, err, sizeof err);
    CHECK(rc == -1 && at_line(err, path, 5) && strstr(err, "4096"),
          "variants: more than 4096 expansions in all fails at the pattern that passes it (%s)", err);
    rc = expand("app lbm\ninput 128x128\nknobs " WIDE "knobs final: " WIDE, &named, &out, path, err, sizeof err);
    CHECK(rc == 0 && out.n == 3840, "variants: 3840 expansions are within the limit (%d)", out.n);
    variants_free(&out);
#undef WIDE
    variants_free(&named);
}

int main(void) {
    set_root();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_shipped();
    test_generators();
    test_constraints();
    test_errors();
    test_variants();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
