/* The sandpile's tiled kernels on the rows of a split. A device set runs
 * each member's launches on rows [row0, row1) only (hybrid.c), which no
 * single-device run exercises, and this machine's only set (PoCL with
 * OpenMP) refuses cells=R and tile=double (OpenMP has no work-items). So
 * here: one launch of n <= T steps over a band of rows on the first OpenCL
 * device, through the schedule's own calls as hybrid.c makes them
 * (sp_setup, sp_start, sp_geometry, sp_advance), compared with the serial
 * rule: the band's rows equal the serial grid after n steps, every other
 * row is untouched (the other member's), and the last step flagged is the
 * band's last unstable one. Two starts: a busy one (every interior cell
 * 0..7 grains, most unstable), and a quiet one (0..2 grains) with one
 * toppling pair (4 and 3 side by side) in a given row, inside the band
 * (stable after its second step: flagged 1, not n) or just outside it
 * (the grains that cross into the band never make it unstable: nothing
 * flagged, although the launch computes the pair in its halo).
 * topple_strip at several R, T and copies of the tile, topple_tiled as the
 * control. Skipped without an OpenCL device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/sandpile/schedule.h"
#include "check.h"
#include "core/measurement.h"
#include "root_from_exe.h"

static const struct app *sp(void) { return app_find("sandpile"); }

/* The band's last unstable step among 1..n of the serial run from g0, or 0. */
static int serial_band(const unsigned *g0, unsigned *after, int w, int h, int n, int r0, int r1) {
    const size_t cells = (size_t)w * (size_t)h;
    unsigned *a = xcalloc(cells, sizeof *a), *b = xcalloc(cells, sizeof *b);
    memcpy(a, g0, cells * sizeof *a);
    int last = 0;
    for (int s = 1; s <= n; s++) {
        sandpile_step(a, b, w, h);
        for (int y = r0; y < r1; y++)
            for (int x = 1; x < w - 1; x++)
                if (b[y * w + x] >= 4) last = s;
        unsigned *t = a;
        a = b;
        b = t;
    }
    memcpy(after, a, cells * sizeof *a);
    free(a);
    free(b);
    return last;
}

struct band_case {
    const char *knobs;
    unsigned wg[2];
    int n, r0, r1;
    int pair; /* 0: the busy start; else the quiet start with its toppling pair in this row */
};

/* The start of case c in g (w x h, border 0), from a fixed generator. */
static void start(unsigned *g, int w, int h, const struct band_case *c) {
    unsigned r = 12345u;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            r = r * 1103515245u + 12345u;
            g[y * w + x] = c->pair ? (r >> 16) % 3u : (r >> 16) & 7u;
        }
    if (c->pair) {
        g[c->pair * w + w / 2] = 4;
        g[c->pair * w + w / 2 + 1] = 3;
    }
}

static void band(struct dev *d, const struct device_info *info, const struct app_input *in, const struct band_case *c) {
    const int w = in->w, h = in->h;
    const size_t cells = (size_t)w * (size_t)h;
    char err[256], what[200], why[ERR_MAX];
    snprintf(what, sizeof what, "%s %ux%u, %d steps on rows [%d, %d) from the %s start", c->knobs, c->wg[0], c->wg[1],
             c->n, c->r0, c->r1, c->pair ? "quiet" : "busy");
    unsigned *g0 = xcalloc(cells, sizeof *g0);
    start(g0, w, h, c);
    struct knob_set k;
    knobs_init(&k, sp()->knobs);
    const char *bad =
        knobs_apply(&k, c->knobs, err, sizeof err) ? err : sp()->invalid(&k, in, info, c->wg, why, sizeof why);
    CHECK(!bad, "%s is valid on %s%s%s", what, info->spec, bad ? ": " : "", bad ? bad : "");
    if (bad) {
        free(g0);
        return;
    }
    struct sp_exec e;
    struct measurement m = {0};
    if (sp_setup(&e, d, in, &k, c->wg, &m) || sp_start(&e) ||
        d->ops->write(d, e.grid[0], 0, cells * sizeof(unsigned), g0) ||
        d->ops->write(d, e.grid[1], 0, cells * sizeof(unsigned), g0)) {
        CHECK(0, "%s: set-up: %s %s", what, m.reason, d->err);
        sp_release(&e);
        free(g0);
        return;
    }
    e.row0 = c->r0;
    e.row1 = c->r1;
    sp_geometry(&e, c->wg);
    unsigned *got = xcalloc(cells, sizeof *got), *want = xcalloc(cells, sizeof *want);
    int *flags = xcalloc((size_t)c->n + 1, sizeof *flags);
    const int ran = sp_advance(&e, 0, c->n) == 0 && d->ops->finish(d) == 0 &&
                    d->ops->read(d, e.grid[0], 0, cells * sizeof(unsigned), got) == 0 &&
                    d->ops->read(d, e.flags, 0, ((size_t)c->n + 1) * sizeof(int), flags) == 0;
    CHECK(ran, "%s runs%s%s", what, ran ? "" : ": ", ran ? "" : d->err);
    if (ran) {
        const int last = serial_band(g0, want, w, h, c->n, c->r0, c->r1);
        long diff = 0, outside = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t i = (size_t)y * (size_t)w + (size_t)x;
                if (y >= c->r0 && y < c->r1) diff += got[i] != want[i];
                else outside += got[i] != g0[i];
            }
        int flagged = 0;
        for (int s = 1; s <= c->n; s++)
            if (flags[s] == s) flagged = s;
        CHECK(diff == 0 && outside == 0 && flagged == last,
              "%s: the band equals the serial grid (%ld cells differ), the rows outside it untouched (%ld "
              "changed), the last step flagged %d (the band's last unstable: %d)",
              what, diff, outside, flagged, last);
    }
    free(g0);
    free(got);
    free(want);
    free(flags);
    sp_release(&e);
}

int main(void) {
    root_from_exe();
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0, n = devices_all(&all, notes, 8, &nnotes), idx[4];
    if (devices_match(all, n, "opencl", idx, 4) < 1) {
        printf("ok - # skip: no OpenCL device\n");
        free(all);
        CHECK_DONE();
    }
    const struct device_info *info = &all[idx[0]];
    char err[256];
    struct dev *d = dev_open_measuring(info, err, sizeof err);
    CHECK(d != NULL, "open %s%s%s", info->spec, d ? "" : ": ", d ? "" : err);
    struct app_opts o = {.input = "61x77"};
    struct app_input *in = d ? sp()->input_load(&o, err, sizeof err) : NULL;
    CHECK(!d || in, "input 61x77%s%s", in ? "" : ": ", in ? "" : err);
    if (d && in) {
        static const struct band_case cases[] = {
            {"steps=4,tile=double,cells=4", {16, 16}, 4, 20, 51, 0},
            {"steps=4,tile=double,cells=4", {16, 16}, 3, 1, 33, 0},
            {"steps=4,tile=double,cells=4", {24, 8}, 4, 40, 76, 0},
            {"steps=4,tile=single,cells=2", {16, 8}, 4, 9, 10, 0},
            {"steps=3,tile=double,cells=8", {26, 10}, 3, 7, 60, 0},
            {"steps=2,tile=single,cells=4", {8, 12}, 2, 30, 76, 0},
            {"steps=4,tile=double,cells=4,vote=item", {16, 16}, 4, 13, 47, 0},
            {"steps=4,tile=double,cells=4", {16, 16}, 4, 20, 51, 35},
            {"steps=4,tile=double,cells=4", {16, 16}, 4, 20, 51, 19},
            {"steps=3,tile=single,cells=2", {24, 6}, 3, 20, 51, 51},
            {"steps=4,tile=double", {16, 16}, 4, 20, 51, 0}, /* topple_tiled: the control */
            {"steps=4,tile=double", {16, 16}, 4, 20, 51, 35},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) band(d, info, in, &cases[i]);
    }
    if (in) sp()->input_free(in);
    if (d) dev_close(d);
    free(all);
    CHECK_DONE();
}
