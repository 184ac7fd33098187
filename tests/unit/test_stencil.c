/* The stencil app's host side: the update computed by hand on tiny grids
 * (which neighbour gets which weight), the slides' range semantics, the
 * initial grid, the convergence count and the cap, input parsing, the
 * validity rules and the verification logic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/stencil/stencil.h"
#include "base/util.h"
#include "check.h"

static const struct app *stencil_app(void) { return app_find("stencil"); }

static struct app_input *load(const char *name, long iters, char *err, size_t errn) {
    struct app_opts o = {.input = name, .iters = iters};
    return stencil_app()->input_load(&o, err, errn);
}

static int near(float got, float want) { return fabsf(got - want) <= 1e-5f * fmaxf(1.0f, fabsf(want)); }

static void test_update_by_hand(void) {
    /* A row of three interior points (w=5, h=3): N and S are the border.
     * out = 0.2 W + 0.1 E + 0.4 C; with 10 20 30: 6, 13, 16. */
    float in[15] = {0}, out[15] = {0};
    in[6] = 10, in[7] = 20, in[8] = 30;
    stencil_update(in, out, 5, 3);
    CHECK(near(out[6], 6) && near(out[7], 13) && near(out[8], 16),
          "row 10 20 30 -> %g %g %g (want 6 13 16: W weighs 0.2, E 0.1, C 0.4)", out[6], out[7], out[8]);
    int border = 1;
    for (int i = 0; i < 15; i++)
        if ((i < 5 || i >= 10 || i % 5 == 0 || i % 5 == 4) && out[i] != 0) border = 0;
    CHECK(border, "the border stays 0");
    /* A column (w=3, h=5): out = 0.1 N + 0.2 S + 0.4 C; with 10 20 30 going
     * down (y grows): 8, 15, 14. */
    float col[15] = {0}, cout[15] = {0};
    col[4] = 10, col[7] = 20, col[10] = 30;
    stencil_update(col, cout, 3, 5);
    CHECK(near(cout[4], 8) && near(cout[7], 15) && near(cout[10], 14),
          "column 10 20 30 -> %g %g %g (want 8 15 14: N = y-1 weighs 0.1, S = y+1 0.2)", cout[4], cout[7], cout[10]);
    /* The exact float sequence: products rounded, summed left to right. */
    float g[9] = {0}, o9[9] = {0};
    g[4] = 1.0f / 3.0f;
    stencil_update(g, o9, 3, 3);
    CHECK(o9[4] == 0.4f * (1.0f / 3.0f), "3x3: the one interior point is 0.4f * C exactly (%.9g)", o9[4]);
}

static void test_range(void) {
    float pos[2] = {5, 7}, neg[2] = {-3, -1}, mixed[3] = {-2, 4, 0};
    CHECK(stencil_find_range(pos, 2) == 7, "range of {5, 7} is 7: min starts at 0 (the slides')");
    CHECK(stencil_find_range(neg, 2) == 3, "range of {-3, -1} is 3: max starts at 0");
    CHECK(stencil_find_range(mixed, 3) == 6, "range of {-2, 4, 0} is 6");
    CHECK(stencil_find_range(pos, 0) == 0, "range of nothing is 0");
}

static void test_initial(void) {
    const int w = 64, h = 48;
    float *a = xcalloc((size_t)w * h, sizeof(float)), *b = xcalloc((size_t)w * h, sizeof(float));
    stencil_initial(w, h, STENCIL_SEED, a);
    stencil_initial(w, h, STENCIL_SEED, b);
    CHECK(memcmp(a, b, (size_t)w * h * sizeof(float)) == 0, "the initial grid is the same every time");
    int border = 1, inrange = 1;
    double sum = 0, lo = 1e9, hi = -1e9;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float v = a[y * w + x];
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
                border &= v == 0;
                continue;
            }
            inrange &= v >= -200 && v < 200;
            sum += v;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    const double mean = sum / ((w - 2) * (h - 2));
    CHECK(border, "the initial border is 0");
    CHECK(inrange && lo < -190 && hi > 190 && fabs(mean) < 15,
          "the interior is uniform in [-200, 200) (min %.1f, max %.1f, mean %.2f)", lo, hi, mean);
    stencil_initial(w, h, STENCIL_SEED + 1, b);
    CHECK(memcmp(a, b, (size_t)w * h * sizeof(float)) != 0, "another seed gives another grid");
    free(a);
    free(b);
}

static void test_convergence(void) {
    char err[256];
    struct app_input *in = load("64x64", 0, err, sizeof err);
    CHECK(in != NULL, "64x64 loads");
    if (!in) return;
    const size_t n = 64 * 64;
    float *grid = xcalloc(n, sizeof(float)), range = 0;
    long it = 0;
    const long count = stencil_serial_run(in->initial, 64, 64, 0, -1, grid, &range, &it);
    CHECK(count == 12 && it == 12, "64x64 converges after 12 iterations (%ld)", count);
    CHECK(range <= 100 && range == stencil_find_range(grid, n), "its final range %.9g is <= 100 and the grid's", range);
    float before = 0;
    stencil_serial_run(in->initial, 64, 64, count - 1, -1, NULL, &before, NULL);
    CHECK(before > 100, "one iteration earlier the range was %.9g > 100", before);
    float again = 0;
    CHECK(stencil_serial_run(in->initial, 64, 64, 0, -1, NULL, &again, NULL) == count && again == range,
          "the count and range are the same on a second run");
    const struct app *app = stencil_app();
    CHECK(app->input_iters(in) == 12 && app->input_iters_full(in) == 12,
          "the input's own step count is the convergence count");
    CHECK(app->cell_updates(in) == 64.0 * 64 * 12, "cell updates: 64*64 points * 12 iterations");
    CHECK(stencil_run_limit(in) == 2 * 12 + 16, "an uncapped device run stops by 40 at the latest");
    struct app_ref *ref = app->reference(in, err, sizeof err);
    CHECK(ref && ref->iters == 12 && ref->range == range && memcmp(ref->grid, grid, n * sizeof(float)) == 0,
          "the reference is the serial run");

    /* --iters 5: a shortened run, compared after 5 iterations. */
    struct app_input *cap = load("64x64", 5, err, sizeof err);
    float five = 0;
    stencil_serial_run(cap->initial, 64, 64, 5, -1, NULL, &five, NULL);
    struct app_ref *cref = app->reference(cap, err, sizeof err);
    CHECK(app->input_iters(cap) == 5 && app->input_iters_full(cap) == 12 && stencil_run_limit(cap) == 5,
          "--iters 5: 5 of 12 iterations, and a device run stops at 5");
    CHECK(cref->iters == 5 && cref->range == five && five > 100, "--iters 5: the reference is the state after 5");
    /* A cap above the count changes nothing. */
    struct app_input *big = load("64x64", 1000, err, sizeof err);
    CHECK(app->input_iters(big) == 12 && stencil_run_limit(big) == 40, "--iters 1000: still 12, stops by 40");

    /* Verification: exact count and range. */
    struct app_result res = {.iters = ref->iters, .range = ref->range, .grid = grid, .w = 64, .h = 64};
    struct measurement m = {0};
    app->verify(in, ref, &res, &m);
    CHECK(m.status == ST_OK && m.max_abs_err == 0 && m.result == 12 && m.tolerance == 0,
          "verify: the serial result itself is ok, error 0, result = 12 iterations");
    res.range = nextafterf(ref->range, 1000.0f);
    memset(&m, 0, sizeof m);
    app->verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && m.max_abs_err > 0 && strstr(m.reason, "range"),
          "verify: a range one ulp off is wrong (%s)", m.reason);
    res.range = ref->range;
    res.iters = 13;
    memset(&m, 0, sizeof m);
    app->verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && m.max_rel_err > 0, "verify: 13 iterations instead of 12 is wrong (%s)", m.reason);
    /* One interior point off by an ulp, the count and the range right: the
     * grid must equal the serial program's everywhere. */
    res.iters = ref->iters;
    int mid = 32 * 64 + 32;
    float kept = grid[mid];
    grid[mid] = nextafterf(grid[mid], 1000.0f);
    memset(&m, 0, sizeof m);
    app->verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && m.max_abs_err > 0 && strstr(m.reason, "1 grid points differ") &&
              strstr(m.reason, "(32, 32)"),
          "verify: one interior point off, count and range right, is wrong (%s)", m.reason);
    grid[mid] = kept;
    app->ref_free(ref);
    app->ref_free(cref);
    app->input_free(in);
    app->input_free(cap);
    app->input_free(big);
    free(grid);
}

static void test_sizes(void) {
    /* The convergence counts of the sizes the tests and the default verify use. */
    const struct {
        const char *name;
        long count;
    } want[] = {{"16x16", 7}, {"128x128", 18}, {"512x512", 23}};
    char err[256];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct app_input *in = load(want[i].name, 0, err, sizeof err);
        CHECK(in && stencil_app()->input_iters(in) == want[i].count, "%s converges after %ld iterations", want[i].name,
              want[i].count);
        stencil_app()->input_free(in);
    }
}

static void test_parse(void) {
    char err[256];
    int w = 0, h = 0;
    CHECK(stencil_parse_size("4096x4096", &w, &h, err, sizeof err) == 0 && w == 4096 && h == 4096, "4096x4096");
    CHECK(stencil_parse_size("gen:100x60", &w, &h, err, sizeof err) == 0 && w == 100 && h == 60, "gen:100x60");
    CHECK(stencil_parse_size("gen:64", &w, &h, err, sizeof err) == 0 && w == 64 && h == 64, "gen:64 is 64x64");
    const char *bad[] = {"",       "abc",  "64",     "64x",  "x64",  "64x64x",  "64 x 64",     "-5x5",
                         "64x+64", "gen:", "gen:6a", "2x64", "64x2", "70000x4", "40000x40000", "64x64 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(stencil_parse_size(bad[i], &w, &h, err, sizeof err) == -1 && strstr(err, "stencil input"),
              "'%s' is refused: %s", bad[i], err);
    }
    struct app_input *in = load("gen:100x60", 0, err, sizeof err);
    CHECK(in && !strcmp(stencil_app()->input_name(in), "100x60"), "gen:100x60 is stored as 100x60");
    size_t g[2];
    stencil_app()->grid(in, g);
    CHECK(g[0] == 100 && g[1] == 60, "its grid is 100 x 60");
    stencil_app()->input_free(in);
    struct app_opts o = {.input = "64x64", .params = "p.txt"};
    CHECK(stencil_app()->input_load(&o, err, sizeof err) == NULL && strstr(err, "no input files"),
          "--params is refused: %s", err);
    struct app_opts dflt = {0};
    in = stencil_app()->input_load(&dflt, err, sizeof err);
    CHECK(in && !strcmp(stencil_app()->input_name(in), "4096x4096"), "the default input is 4096x4096 (the slides')");
    stencil_app()->input_free(in);
}

static void test_invalid(void) {
    const struct app *app = stencil_app();
    char err[256];
    struct app_input *in = load("128x128", 0, err, sizeof err);
    struct device_info gpu = {.backend = "opencl",
                              .max_wg = 1024,
                              .max_item = {1024, 1024, 64},
                              .local_mem = 49152,
                              .global_mem = 1ull << 32,
                              .max_alloc = 1ull << 30};
    device_caps(&gpu);
    struct knob_set k;
    knobs_init(&k, app->knobs);
    const unsigned ok[2] = {32, 4}, odd[2] = {24, 1}, big[2] = {64, 32}, wide[2] = {128, 1};
    char buf[ERR_MAX];
    CHECK(app->invalid(&k, in, &gpu, ok, buf, sizeof buf) == NULL, "fused, 32x4 on 128x128: valid");
    const char *why = app->invalid(&k, in, &gpu, odd, buf, sizeof buf);
    CHECK(why && strstr(why, "does not divide"), "24x1 does not divide 128: %s", why ? why : "(valid)");
    why = app->invalid(&k, in, &gpu, big, buf, sizeof buf);
    CHECK(why && strstr(why, "maximum"), "64x32 = 2048 items exceeds 1024: %s", why ? why : "(valid)");
    knobs_apply(&k, "setup=rebuild", err, sizeof err);
    why = app->invalid(&k, in, &gpu, ok, buf, sizeof buf);
    CHECK(why && strstr(why, "range=host"), "rebuild with range=fused: %s", why ? why : "(valid)");
    knobs_init(&k, app->knobs);
    knobs_apply(&k, "partials=1024", err, sizeof err);
    why = app->invalid(&k, in, &gpu, ok, buf, sizeof buf);
    CHECK(why && strstr(why, "partials"), "partials with range=fused: %s", why ? why : "(valid)");
    knobs_apply(&k, "range=coalesced,partials=1000", err, sizeof err);
    why = app->invalid(&k, in, &gpu, wide, buf, sizeof buf);
    CHECK(why && strstr(why, "does not divide 1000"), "partials=1000 in groups of 128: %s", why ? why : "(valid)");
    knobs_apply(&k, "partials=32768", err, sizeof err);
    why = app->invalid(&k, in, &gpu, wide, buf, sizeof buf);
    CHECK(why && strstr(why, "exceeds the grid"), "partials=32768 on 16384 points: %s", why ? why : "(valid)");
    knobs_apply(&k, "partials=4096", err, sizeof err);
    CHECK(app->invalid(&k, in, &gpu, wide, buf, sizeof buf) == NULL,
          "coalesced, 4096 partials in groups of 128: valid");
    knobs_init(&k, app->knobs);
    knobs_apply(&k, "rows=32", err, sizeof err);
    CHECK(app->invalid(&k, in, &gpu, ok, buf, sizeof buf) == NULL,
          "rows=32 with 32x4 groups: 32x128 points tile 128x128");
    knobs_apply(&k, "rows=64", err, sizeof err);
    why = app->invalid(&k, in, &gpu, ok, buf, sizeof buf);
    CHECK(why && strstr(why, "rows=64"), "rows=64 with 32x4 groups: %s", why ? why : "(valid)");
    app->input_free(in);
}

int main(void) {
    test_update_by_hand();
    test_range();
    test_initial();
    test_convergence();
    test_sizes();
    test_parse();
    test_invalid();
    CHECK_DONE();
}
