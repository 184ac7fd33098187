/* Generated GPU tuning landscapes (tune_synth.h).
 *
 * Why a generator: the strategies' constants were chosen on the LBM's
 * landscapes (tests/data), so passing on them says little about a kernel
 * they never saw (issue 35: on convolution, point-in-polygon and
 * dedispersion spaces of Kernel Tuner's, the model-based search did worse
 * than random). A generator gives as many landscapes as a test needs, with
 * a development set of seeds to design on and a held-out set to judge on.
 *
 * The model is deliberately mechanistic rather than a smooth bowl, since
 * what misleads a search are a real GPU's discontinuities:
 * - waves: the groups run in waves of (multiprocessors x groups per
 *   multiprocessor), so the time steps up wherever one more wave is needed,
 *   and a small problem wants small groups (an idle multiprocessor costs a
 *   whole wave: the small-group optimum of issue 35's A100 convolution);
 * - occupancy cliffs: groups per multiprocessor are capped by threads,
 *   registers (which grow with the tile and the unrolling) and local memory
 *   (which grows with the group and the halo), each a floor();
 * - latency hiding: below the occupancy a kernel needs, it slows, and the
 *   independent outputs of a larger tile lower that need (multiplicative
 *   interactions of tile x group x unroll);
 * - coalescing (a group narrower than a warp in x wastes transactions),
 *   halos (small tiles reload more), bank conflicts (a padded row removes
 *   them where the row is a multiple of the banks), a read-only cache path
 *   that pays only with large tiles, and categorical methods each with its
 *   own best tile (several basins);
 * - a per-level roughness of a few percent, one random pairwise interaction,
 *   failures where registers or local memory run out at launch (4 to 22 %
 *   of the points, failing costs an evaluation), and measurement noise of 1
 *   to 3 % (the stored median is one noisy draw, as a real sweep's is). */
#include "tune/tune_synth.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

enum role { R_BX, R_BY, R_BZ, R_TX, R_TY, R_TZ, R_UNROLL, R_PAD, R_RO, R_METHOD, R_BPS, R_STRIDE };

#define SYNTH_MAX_VALUES 40

struct pdef {
    const char *name;
    enum role role;
    int ordinal;
    int n;
    double v[SYNTH_MAX_VALUES];
};

struct family {
    const char *name;
    int np;
    struct pdef p[10];
    int sides; /* the first `sides` parameters are the work-group's x, y, z */
};

/* Kernel Tuner's example spaces, roughly (convolution, 3-D diffusion, dedispersion, pnpoly). */
static const struct family families[] = {
    {"convolution",
     6,
     {{"block_size_x", R_BX, 1, 9, {16, 32, 48, 64, 80, 96, 112, 128, 144}},
      {"block_size_y", R_BY, 1, 6, {1, 2, 4, 8, 16, 32}},
      {"tile_size_x", R_TX, 1, 8, {1, 2, 3, 4, 5, 6, 7, 8}},
      {"tile_size_y", R_TY, 1, 8, {1, 2, 3, 4, 5, 6, 7, 8}},
      {"use_padding", R_PAD, 0, 2, {0, 1}},
      {"read_only", R_RO, 0, 2, {0, 1}}},
     2},
    {"diffusion3d",
     9,
     {{"block_size_x", R_BX, 1, 10, {4, 8, 16, 24, 32, 48, 64, 96, 128, 256}},
      {"block_size_y", R_BY, 1, 7, {1, 2, 4, 8, 16, 32, 64}},
      {"block_size_z", R_BZ, 1, 5, {1, 2, 4, 8, 16}},
      {"tile_size_x", R_TX, 1, 3, {1, 2, 4}},
      {"tile_size_z", R_TZ, 1, 8, {1, 2, 3, 4, 6, 8, 12, 16}},
      {"loop_unroll", R_UNROLL, 1, 5, {1, 2, 4, 8, 16}},
      {"use_shared", R_PAD, 0, 2, {0, 1}},
      {"read_only", R_RO, 0, 2, {0, 1}},
      {"method", R_METHOD, 0, 3, {0, 1, 2}}},
     3},
    {"dedispersion",
     8,
     {{"block_size_x", R_BX, 1, 10, {1, 2, 4, 8, 16, 32, 48, 64, 96, 128}},
      {"block_size_y", R_BY, 1, 4, {4, 8, 16, 32}},
      {"tile_size_x", R_TX, 1, 8, {1, 2, 3, 4, 5, 6, 7, 8}},
      {"tile_size_y", R_TY, 1, 8, {1, 2, 3, 4, 5, 6, 7, 8}},
      {"tile_stride_x", R_STRIDE, 0, 2, {0, 1}},
      {"tile_stride_y", R_PAD, 0, 2, {0, 1}},
      {"loop_unroll_factor_channel", R_UNROLL, 1, 6, {0, 1, 2, 4, 8, 16}},
      {"blocks_per_sm", R_BPS, 1, 5, {0, 1, 2, 3, 4}}},
     2},
    {"pnpoly",
     5,
     {{"block_size_x",
       R_BX,
       1,
       32,
       {32,  64,  96,  128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512,
        544, 576, 608, 640, 672, 704, 736, 768, 800, 832, 864, 896, 928, 960, 992, 1024}},
      {"tile_size", R_TX, 1, 8, {1, 2, 4, 6, 8, 12, 16, 20}},
      {"between_method", R_METHOD, 0, 4, {0, 1, 2, 3}},
      {"use_precomputed_slopes", R_RO, 0, 2, {0, 1}},
      {"use_method", R_STRIDE, 0, 3, {0, 1, 2}}},
     1},
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

/* The device and problem of one landscape, drawn from the seed. */
struct model {
    const struct family *f;
    int sms, warp;
    double regs_sm, smem_sm, halo;
    double width, height, depth; /* the problem, in outputs */
    double occ_need;             /* the occupancy latency hiding needs with one output per thread */
    double method_tile[4], method_cost[4];
    double ro_gain, unroll_gain;
    double *rough[10]; /* per parameter and level: a factor near 1 */
    int pair[2];       /* two parameters that interact */
    double pair_fx[8][8];
};

static double unit(uint64_t *r) { return (double)(splitmix64(r) >> 11) * 0x1.0p-53; }
static double gauss(uint64_t *r) {
    const double u = unit(r) + 1e-12, v = unit(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* What one point asks of the device, by role (1 where the family has no such parameter). */
struct cfg {
    double b[3], t[3], unroll, bps_cap;
    int pad, ro, method, stride;
};

static void cfg_of(const struct model *m, const double *val, struct cfg *c) {
    *c = (struct cfg){{1, 1, 1}, {1, 1, 1}, 1, 0, 0, 0, 0, 0};
    for (int k = 0; k < m->f->np; k++) {
        const double v = val[k];
        switch (m->f->p[k].role) {
        case R_BX: c->b[0] = v; break;
        case R_BY: c->b[1] = v; break;
        case R_BZ: c->b[2] = v; break;
        case R_TX: c->t[0] = v; break;
        case R_TY: c->t[1] = v; break;
        case R_TZ: c->t[2] = v; break;
        case R_UNROLL: c->unroll = v > 0 ? v : 1; break;
        case R_PAD: c->pad = (int)v; break;
        case R_RO: c->ro = (int)v; break;
        case R_METHOD: c->method = (int)v; break;
        case R_BPS: c->bps_cap = v; break;
        case R_STRIDE: c->stride = (int)v; break;
        }
    }
}

/* The constraint a sweep file would state: a legal group of at least half a
 * warp, a tile of bounded work. */
static int allowed(const struct model *m, const double *val) {
    struct cfg c;
    cfg_of(m, val, &c);
    const double threads = c.b[0] * c.b[1] * c.b[2], work = c.t[0] * c.t[1] * c.t[2];
    return threads <= 1024 && threads >= m->warp / 2 && work <= 64;
}

/* What a point needs at launch: registers per thread and local memory per group. */
static void resources(const struct model *m, const struct cfg *c, double *regs, double *smem) {
    const double work = c->t[0] * c->t[1] * c->t[2];
    *regs = 18 + 2.5 * work * (c->ro ? 1.15 : 1) + 2 * log2(c->unroll) * (1 + 0.1 * work) + 4 * c->method;
    const double h = m->halo;
    double tile = 4.0;
    for (int k = 0; k < 3; k++) tile *= c->b[k] * c->t[k] + (c->b[k] * c->t[k] > 1 ? 2 * h : 0);
    *smem = tile + (c->pad ? 4 * c->b[1] * c->t[1] * c->b[2] : 0);
}

/* The noiseless time of a point (seconds), or -1 when it cannot launch. */
static double model_time(const struct model *m, const double *val, const int *level, double fail_regs,
                         double fail_smem) {
    struct cfg c;
    cfg_of(m, val, &c);
    double regs, smem;
    resources(m, &c, &regs, &smem);
    if (regs > fail_regs || smem > fail_smem) return -1;
    const double threads = c.b[0] * c.b[1] * c.b[2], work = c.t[0] * c.t[1] * c.t[2];
    const double reg_alloc = 8 * ceil(regs / 8);
    double bps = floor(2048 / threads);
    bps = fmin(bps, floor(m->regs_sm / (reg_alloc * threads)));
    bps = fmin(bps, floor(m->smem_sm / smem));
    bps = fmin(bps, 32);
    if (c.bps_cap > 0) bps = fmin(bps, c.bps_cap); /* a launch bound caps groups, frees registers */
    if (bps < 1) return -1;
    const double occ = bps * threads / 2048;
    const double need = m->occ_need / sqrt(work * (1 + 0.15 * log2(c.unroll)));
    const double hide = pow(fmin(1, occ / need), 0.8);
    double groups = 1;
    const double dims[3] = {m->width, m->height, m->depth};
    for (int k = 0; k < 3; k++) groups *= ceil(dims[k] / (c.b[k] * c.t[k]));
    const double waves = ceil(groups / (m->sms * bps));
    /* The memory cost of an output: halo reloads, coalescing, conflicts. */
    double mem = 1;
    for (int k = 0; k < 3; k++)
        if (dims[k] > 1) mem *= (c.b[k] * c.t[k] + 2 * m->halo * 0.25) / (c.b[k] * c.t[k]);
    const double xrun = c.b[0] * (c.stride ? 1 : c.t[0]);
    if (xrun < m->warp) mem *= pow(m->warp / xrun, 0.5);
    else if (fmod(c.b[0], m->warp) != 0) mem *= 1.12;
    if (c.b[1] > 1 && fmod(c.b[0] * c.t[0], 32) == 0) mem *= c.pad ? 1.0 : 1.18;
    else if (c.pad) mem *= 1.04;
    if (c.ro) mem *= work >= 4 ? 1 - m->ro_gain : 1 + 0.5 * m->ro_gain;
    const double tile_lg = log2(work), best = m->method_tile[c.method];
    const double compute = m->method_cost[c.method] * (1 + 0.08 * (tile_lg - best) * (tile_lg - best)) *
                           (1 - m->unroll_gain * log2(c.unroll) / 4) * (c.unroll > 8 && regs > 96 ? 1.3 : 1);
    double t = waves * bps * threads * work * (0.6 * mem + 0.4 * compute) / (2048 * hide) * 1e-6;
    for (int k = 0; k < m->f->np; k++) t *= m->rough[k][level[k]];
    t *= m->pair_fx[level[m->pair[0]] % 8][level[m->pair[1]] % 8];
    return t;
}

/* Drops random levels (not the first or last) of the widest parameters
 * until the space's estimated size is within twice `points`. */
static void trim(struct family *f, const struct model *m, long points, uint64_t *r) {
    if (points <= 0) return;
    for (int round = 0; round < 400; round++) {
        double grid = 1;
        for (int k = 0; k < f->np; k++) grid *= f->p[k].n;
        int ok = 0;
        const int draws = 4000;
        double val[10] = {0};
        for (int q = 0; q < draws; q++) {
            for (int k = 0; k < f->np; k++) val[k] = f->p[k].v[splitmix64(r) % (uint64_t)f->p[k].n];
            ok += allowed(m, val);
        }
        if (grid * ok / draws <= 2.0 * points) return;
        int w = -1;
        for (int k = 0; k < f->np; k++)
            if (f->p[k].n > 2 && (w < 0 || f->p[k].n > f->p[w].n || (f->p[k].n == f->p[w].n && unit(r) < 0.5))) w = k;
        if (w < 0) return;
        const int drop = 1 + (int)(splitmix64(r) % (uint64_t)(f->p[w].n - 2));
        memmove(&f->p[w].v[drop], &f->p[w].v[drop + 1], sizeof f->p[w].v[0] * (size_t)(f->p[w].n - drop - 1));
        f->p[w].n--;
    }
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The device, the problem and the landscape's quirks, drawn from *r in
 * this order (a landscape is its seed's: the order is part of it), the
 * family trimmed to about `points`. Returns 1 for an AMD-like device. */
static int model_draw(struct model *m, struct family *f, long points, uint64_t *r) {
    const int amd = unit(r) < 0.4;
    m->sms = amd ? 104 + 8 * (int)(unit(r) * 3) : (int)(80 + unit(r) * 60);
    m->warp = amd ? 64 : 32;
    m->regs_sm = 65536, m->smem_sm = (amd ? 64 : 100 + 64 * unit(r)) * 1024;
    m->halo = 1 + floor(unit(r) * 8);
    /* Half the problems are small: a few waves, where small groups win. */
    const double side = unit(r) < 0.5 ? 512 + 512 * floor(unit(r) * 3) : 2048 * (1 + floor(unit(r) * 3));
    m->width = side, m->height = side * (0.5 + unit(r));
    m->depth = f->sides == 3 ? 64 + 64 * floor(unit(r) * 4) : 1;
    if (!strcmp(f->name, "pnpoly")) m->width = 2e7 * (0.2 + unit(r)), m->height = 1, m->halo = 0;
    m->occ_need = 0.2 + 0.5 * unit(r);
    for (int k = 0; k < 4; k++) m->method_tile[k] = unit(r) * 4, m->method_cost[k] = 1 + 0.4 * unit(r);
    m->ro_gain = 0.12 * unit(r), m->unroll_gain = 0.2 * unit(r);
    trim(f, m, points, r);
    const int d = f->np;
    for (int k = 0; k < d; k++) {
        m->rough[k] = xcalloc((size_t)f->p[k].n, sizeof *m->rough[k]);
        for (int l = 0; l < f->p[k].n; l++) m->rough[k][l] = exp(0.015 * gauss(r));
    }
    m->pair[0] = (int)(splitmix64(r) % (uint64_t)d);
    m->pair[1] = (m->pair[0] + 1 + (int)(splitmix64(r) % (uint64_t)(d - 1))) % d;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) m->pair_fx[a][b] = exp(0.05 * gauss(r));
    return amd;
}

/* The space: every allowed combination, in grid order (the file order of
 * an exhaustive sweep, which the "no search" control reads), its first
 * f->sides parameters the shape. */
static void space_build(struct tune_space *sp, const struct family *f, const struct model *m) {
    const int d = f->np;
    tune_space_init(sp, d);
    for (int k = 0; k < d; k++) {
        str_copy(sp->params[k].name, sizeof sp->params[k].name, f->p[k].name);
        sp->params[k].levels = f->p[k].n;
        sp->params[k].ordinal = f->p[k].ordinal;
    }
    int level[10] = {0};
    double val[10] = {0};
    for (;;) {
        for (int k = 0; k < d; k++) val[k] = f->p[k].v[level[k]];
        if (allowed(m, val)) tune_space_add(sp, level);
        int k = d - 1;
        while (k >= 0 && ++level[k] == f->p[k].n) level[k--] = 0;
        if (k < 0) break;
    }
    int param[TUNE_MAX_SIDES];
    unsigned *len[TUNE_MAX_SIDES];
    for (int k = 0; k < f->sides; k++) {
        param[k] = k;
        len[k] = xcalloc((size_t)f->p[k].n, sizeof *len[k]);
        for (int l = 0; l < f->p[k].n; l++) len[k][l] = (unsigned)f->p[k].v[l];
    }
    tune_space_set_shape(sp, f->sides, param, (const unsigned *const *)len);
    for (int k = 0; k < f->sides; k++) free(len[k]);
}

/* Failures: some points cannot launch whatever the limits (a group's
 * registers exceed the multiprocessor's); the rest of fail_share fails at
 * the register limit per thread, set at the quantile that does it. That
 * limit (INFINITY: none needed). */
static double fail_regs_limit(const struct model *m, const struct family *f, const struct tune_space *sp,
                              double fail_share) {
    const int n = sp->n, d = f->np;
    double val[10] = {0};
    double *need = xcalloc((size_t)n + 1, sizeof *need);
    int intrinsic = 0, rest = 0;
    for (int i = 0; i < n; i++) {
        const int *c = sp->coord + (size_t)i * d;
        for (int k = 0; k < d; k++) val[k] = f->p[k].v[c[k]];
        if (model_time(m, val, c, INFINITY, INFINITY) < 0) {
            intrinsic++;
            continue;
        }
        struct cfg cf;
        double smem;
        cfg_of(m, val, &cf);
        resources(m, &cf, &need[rest++], &smem);
    }
    qsort(need, (size_t)rest, sizeof *need, cmp_double);
    const double extra = fail_share - (double)intrinsic / n;
    const double fail_regs = extra > 0 && rest ? need[(size_t)((1 - extra * n / rest) * (rest - 1))] + 1e-9 : INFINITY;
    free(need);
    return fail_regs;
}

int tune_synth_make(struct tune_synth *ls, unsigned seed, long points) {
    memset(ls, 0, sizeof *ls);
    uint64_t r = 0x5eed0000ull + seed * 0x9e3779b97f4a7c15ull;
    static struct family f; /* trimmed copy; the landscape keeps what it needs */
    f = families[seed % NFAMILIES];
    struct model m = {.f = &f};
    const int amd = model_draw(&m, &f, points, &r);
    const int d = f.np;
    ls->sigma = 0.01 + 0.02 * unit(&r);
    const double fail_share = 0.04 + 0.18 * unit(&r);
    snprintf(ls->name, sizeof ls->name, "generated %s #%u (%s, %d SMs)", f.name, seed, amd ? "AMD-like" : "NVIDIA-like",
             m.sms);

    struct tune_space *sp = &ls->space;
    space_build(sp, &f, &m);
    const int n = sp->n;
    const double fail_regs = fail_regs_limit(&m, &f, sp, fail_share), fail_smem = INFINITY;
    double val[10] = {0};

    ls->seconds = xcalloc((size_t)n + 1, sizeof *ls->seconds);
    ls->noise = xcalloc((size_t)n + 1, sizeof *ls->noise);
    for (int i = 0; i < n; i++) {
        const int *c = sp->coord + (size_t)i * d;
        for (int k = 0; k < d; k++) val[k] = f.p[k].v[c[k]];
        const double t = model_time(&m, val, c, fail_regs, fail_smem);
        /* The stored figure is the median of several runs (about 7): its
         * error is half a run's, while the spread is a run's IQR. */
        ls->seconds[i] = t > 0 ? t * exp(0.5 * ls->sigma * gauss(&r)) : -1;
        ls->noise[i] = 1.35 * ls->sigma * (0.7 + 0.6 * unit(&r));
        ls->failed += t <= 0;
    }
    for (int k = 0; k < d; k++) free(m.rough[k]);
    return n > 0 ? 0 : -1;
}

void tune_synth_free(struct tune_synth *ls) {
    tune_space_free(&ls->space);
    free(ls->seconds);
    free(ls->noise);
    memset(ls, 0, sizeof *ls);
}

double tune_synth_eval(void *ctx, int point, double *noise) {
    const struct tune_synth *ls = ctx;
    *noise = ls->noise[point];
    return ls->seconds[point];
}
