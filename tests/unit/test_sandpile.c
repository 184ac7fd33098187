/* The sandpile app's host side: the rule on cells worked by hand (a topple,
 * the sink border), the reference's step against a second, independently
 * written oracle (topple counts first, then grains moved), the abelian
 * property (in-place toppling in any order ends in the serial stable grid),
 * the seed's 69190 iterations at 512x512 and its prediction, caps, input
 * names and bad inputs, the validity rules, and the verification. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/sandpile/sandpile.h"
#include "base/util.h"
#include "check.h"

static const struct app *sp(void) { return app_find("sandpile"); }

static struct app_input *load(const char *name, long iters, char *err, size_t errn) {
    struct app_opts o = {.input = name, .iters = iters};
    return sp()->input_load(&o, err, errn);
}

static void test_by_hand(void) {
    /* 5x5: the interior is 3x3. 4 grains at the centre topple one to each
     * neighbour; 7 at a corner of the interior keep 3 and send 1 to its two
     * interior neighbours and 1 to each of its two border neighbours (lost). */
    unsigned in[25] = {0}, out[25] = {0};
    in[12] = 4;
    int unstable = sandpile_step(in, out, 5, 5);
    CHECK(out[12] == 0 && out[7] == 1 && out[17] == 1 && out[11] == 1 && out[13] == 1 && !unstable,
          "4 at the centre -> 0 there and 1 on each of N S W E; the result is stable");
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    in[6] = 7; /* (1, 1) */
    unstable = sandpile_step(in, out, 5, 5);
    unsigned total = 0, border = 0;
    for (int i = 0; i < 25; i++) {
        total += out[i];
        if (i < 5 || i >= 20 || i % 5 == 0 || i % 5 == 4) border += out[i];
    }
    CHECK(out[6] == 3 && out[7] == 1 && out[11] == 1 && total == 5 && border == 0 && !unstable,
          "7 at (1,1) -> 3 kept, 1 to E and S, 2 lost to the sink border (total %u, border %u)", total, border);
    memset(in, 0, sizeof in);
    in[12] = 16;
    unstable = sandpile_step(in, out, 5, 5);
    CHECK(out[12] == 0 && out[7] == 4 && unstable, "16 sends 4 to each neighbour at once, which is unstable");
}

/* The oracle: how many times each cell topples (value / 4), then every
 * cell's remainder plus what its interior neighbours sent. */
static void oracle_step(const unsigned *in, unsigned *out, int w, int h) {
    unsigned *t = xcalloc((size_t)w * h, sizeof *t);
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) t[y * w + x] = in[y * w + x] / 4;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const int i = y * w + x;
            out[i] = in[i] - 4 * t[i] + t[i - 1] + t[i + 1] + t[i - w] + t[i + w];
        }
    free(t);
}

static void test_against_oracle(void) {
    const int w = 23, h = 17;
    unsigned *a = xcalloc((size_t)w * h, sizeof *a), *b = xcalloc((size_t)w * h, sizeof *b);
    unsigned *c = xcalloc((size_t)w * h, sizeof *c);
    unsigned s = 12345;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) a[y * w + x] = (s = s * 1103515245u + 12345u) >> 27; /* 0..31 */
    int same = 1, steps = 0;
    for (; steps < 200 && same; steps++) {
        sandpile_step(a, b, w, h);
        oracle_step(a, c, w, h);
        same = !memcmp(b, c, (size_t)w * h * sizeof *b);
        memcpy(a, b, (size_t)w * h * sizeof *a);
    }
    CHECK(same, "200 steps of a random 23x17 grid (0..31 grains) equal the oracle's, cell for cell (%d)", steps);
    free(a);
    free(b);
    free(c);
}

/* The abelian property: toppling in place in any order until stable ends in
 * the synchronous rule's stable grid. */
static void topple_in_place(unsigned *g, int w, int h, int backwards) {
    for (int more = 1; more;) {
        more = 0;
        for (int k = 0; k < (w - 2) * (h - 2); k++) {
            const int j = backwards ? (w - 2) * (h - 2) - 1 - k : k;
            const int x = 1 + j % (w - 2), y = 1 + j / (w - 2), i = y * w + x;
            const unsigned q = g[i] / 4;
            if (!q) continue;
            more = 1;
            g[i] %= 4;
            if (y > 1) g[i - w] += q;
            if (y < h - 2) g[i + w] += q;
            if (x > 1) g[i - 1] += q;
            if (x < w - 2) g[i + 1] += q;
        }
    }
}

static void test_abelian(void) {
    const char *names[] = {"pile:33x29:3000", "random:40x40:9", "gen:24x24"};
    char err[512];
    for (int n = 0; n < 3; n++) {
        struct app_input *in = load(names[n], 0, err, sizeof err);
        if (!in) {
            CHECK(0, "%s loads: %s", names[n], err);
            continue;
        }
        const struct sp_serial *s = sandpile_serial(in);
        const size_t cells = (size_t)in->w * in->h;
        unsigned *f = xcalloc(cells, sizeof *f), *r = xcalloc(cells, sizeof *r);
        memcpy(f, in->initial, cells * sizeof *f);
        memcpy(r, in->initial, cells * sizeof *r);
        topple_in_place(f, in->w, in->h, 0);
        topple_in_place(r, in->w, in->h, 1);
        CHECK(s->stable && !memcmp(f, s->grid, cells * sizeof *f) && !memcmp(r, s->grid, cells * sizeof *r) &&
                  sandpile_is_stable(s->grid, in->w, in->h),
              "%s: in-place toppling forwards and backwards ends in the serial stable grid (%ld iterations)", in->name,
              s->iters);
        free(f);
        free(r);
        sp()->input_free(in);
    }
}

static void test_counts(void) {
    char err[512];
    struct app_input *in = load("512x512", 0, err, sizeof err);
    const struct sp_serial *s = in ? sandpile_serial(in) : NULL;
    CHECK(s && s->iters == 69190 && s->iters_full == 69190 && s->stable,
          "512x512 from 4 grains everywhere is stable after 69190 iterations, the seed's count (%ld)",
          s ? s->iters : -1);
    CHECK(in && sandpile_seed_prediction(in) == 69200, "the seed's fitted prediction at 512 is 69200 (%ld)",
          in ? sandpile_seed_prediction(in) : -1);
    CHECK(in && sp()->cell_updates(in) == 510.0 * 510.0 * 69190.0, "cell updates: 510 x 510 interior x 69190");
    if (in) sp()->input_free(in);
    /* A capped run: the grid after 100 steps, and the full count known. */
    in = load("64x64", 100, err, sizeof err);
    struct app_input *full = load("64x64", 0, err, sizeof err);
    s = in ? sandpile_serial(in) : NULL;
    const struct sp_serial *fs = full ? sandpile_serial(full) : NULL;
    CHECK(s && fs && s->iters == 100 && !s->stable && s->iters_full == fs->iters && fs->iters == 1024,
          "64x64 capped at 100: 100 iterations, unstable, of 1024 in all (%ld of %ld)", s ? s->iters : -1,
          s ? s->iters_full : -1);
    CHECK(in && sandpile_run_limit(in) == 100 && full && sandpile_run_limit(full) == 2 * 1024 + 64,
          "the run limit: the cap, else twice the count plus 64");
    if (in) sp()->input_free(in);
    if (full) sp()->input_free(full);
    /* An already stable start takes 0 iterations. */
    in = load("pile:9x9:3", 0, err, sizeof err);
    s = in ? sandpile_serial(in) : NULL;
    CHECK(s && s->iters == 0 && s->stable && in->initial_stable, "3 grains on one cell: stable from the start");
    if (in) sp()->input_free(in);
}

static void test_inputs(void) {
    char err[512];
    struct {
        const char *text, *name;
    } good[] = {{"512x512", "512x512"},
                {"gen:100x60", "100x60"},
                {"gen:64", "64x64"},
                {"pile:65x65", "pile-65x65-4225"},
                {"pile:65x65:100000", "pile-65x65-100000"},
                {"random:64x48", "random-64x48-s1"},
                {"random:64x48:7", "random-64x48-s7"}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct app_input *in = load(good[i].text, 0, err, sizeof err);
        CHECK(in && !strcmp(sp()->input_name(in), good[i].name), "input %s is stored as %s", good[i].text,
              good[i].name);
        if (in) sp()->input_free(in);
    }
    struct app_input *in = load("pile:65x65:100000", 0, err, sizeof err);
    unsigned long sum = 0;
    for (int i = 0; in && i < 65 * 65; i++) sum += in->initial[i];
    CHECK(in && in->initial[32 * 65 + 32] == 100000 && sum == 100000, "pile: every grain on the centre cell");
    if (in) sp()->input_free(in);
    in = load("random:64x48:7", 0, err, sizeof err);
    int border0 = 1, range = 1, seen_big = 0;
    for (int y = 0; in && y < 48; y++)
        for (int x = 0; x < 64; x++) {
            const unsigned v = in->initial[y * 64 + x];
            if ((y == 0 || y == 47 || x == 0 || x == 63) && v) border0 = 0;
            if (v > 7) range = 0;
            seen_big |= v >= 4;
        }
    CHECK(in && border0 && range && seen_big, "random: 0..7 grains inside, the border 0");
    if (in) sp()->input_free(in);
    const char *bad[][2] = {{"512", "expected WxH"},
                            {"2x64", "at least 3x3"},
                            {"pile:64x64:x", "not a whole number"},
                            {"gen:64x64:3", "only pile: and random: take a third part"},
                            {"random:64x64:-1", "not a whole number"},
                            {"heap:64x64", "unknown start 'heap'"},
                            {"pile:64", "expected WxH"},
                            {"40000x40000", "at most"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        in = load(bad[i][0], 0, err, sizeof err);
        CHECK(!in && strstr(err, bad[i][1]), "input '%s' refused: %s", bad[i][0], err);
        if (in) sp()->input_free(in);
    }
}

static void test_verify(void) {
    char err[512];
    struct app_input *in = load("gen:16x16", 0, err, sizeof err);
    struct app_ref *ref = sp()->reference(in, err, sizeof err);
    const size_t n = 16 * 16;
    struct app_result res = {.iters = ref->iters, .count_comparable = 1, .grid = xcalloc(n, sizeof(unsigned))};
    memcpy(res.grid, ref->grid, n * sizeof(unsigned));
    struct measurement m;
    memset(&m, 0, sizeof m);
    sp()->verify(in, ref, &res, &m);
    CHECK(m.status == ST_OK && m.max_abs_err == 0 && m.result == ref->iters,
          "the reference's own grid and count verify");
    res.iters++;
    memset(&m, 0, sizeof m);
    sp()->verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "iterations were counted"), "one iteration off is wrong: %s",
          m.reason);
    res.count_comparable = 0;
    memset(&m, 0, sizeof m);
    sp()->verify(in, ref, &res, &m);
    CHECK(m.status == ST_OK, "asynchronous: the count is not compared, the grid is");
    res.grid[5 * 16 + 5] ^= 1;
    memset(&m, 0, sizeof m);
    sp()->verify(in, ref, &res, &m);
    CHECK(m.status == ST_WRONG && m.max_abs_err == 1 && strstr(m.reason, "1 cells differ") &&
              strstr(m.reason, "(5, 5)"),
          "one grain off in one cell is wrong, and named: %s", m.reason);
    free(res.grid);
    sp()->ref_free(ref);
    sp()->input_free(in);
}

int main(void) {
    CHECK(sp() != NULL, "the sandpile app is registered");
    if (!sp()) CHECK_DONE();
    test_by_hand();
    test_against_oracle();
    test_abelian();
    test_counts();
    test_inputs();
    test_verify();
    CHECK_DONE();
}
