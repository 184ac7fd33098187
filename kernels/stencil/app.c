/* The stencil app (seed 001, apps.md section 2): a 5-point stencil on a
 * float grid, repeated until the range max - min falls to 100, and the
 * slides' optimisation ladder as knobs. Knobs, validity rules and the cost
 * model live here; input.c, reference.c, schedule.c and verify.c do the rest.
 *
 * What a run means: one repetition is the whole convergence loop, from the
 * initial grid to range <= 100. The input's own step count is the serial
 * program's iteration count (34 at 4096x4096); --iters N caps a run at N
 * iterations (a shortened run, verified against the serial program after N). */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "stencil.h"

/* Defaults are the `fused` variant. */
static const struct knob_def stencil_knobs[] = {
    {.name = "setup",
     .values = "rebuild|hoisted",
     .def = "hoisted",
     .help = "rebuild: program, kernel and buffers created and the grid copied in and out every iteration "
             "(the slides' first version); hoisted: all of that once"},
    {.name = "range",
     .values = "host|chunked|coalesced|fused|atomic",
     .def = "fused",
     .help = "where max - min is found: on the host after reading the grid back; a range kernel whose "
             "work-items each reduce a contiguous chunk, partials reduced on the host; the same with the "
             "work-items of a group striding together; in the update kernel (work-group reduction), "
             "finished on the device, one 8-byte read; or atomic: in the update kernel, each group's pair "
             "folded into the iteration's two words by one atomic min and max, read every `check` iterations"},
    {.name = "partials",
     .values = "int",
     .def = "4096",
     .help = "range=chunked|coalesced: the range kernel's work-items (the slides' 4096 chunks)"},
    {.name = "rows",
     .values = "int",
     .def = "1",
     .help = "grid points each work-item updates, down its column (1: the slides' one point per item); "
             "the launch is W x H/rows, and fused pays its group reduction once per rows points"},
    {.name = "reduce",
     .values = "tree|atomic|warp",
     .def = "tree",
     .help = "range=fused|atomic: how a work-group combines its items' pairs: a local-memory tree (log2 items "
             "barriers), local atomics on two words (two barriers), or warp shuffles (one barrier; CUDA and "
             "NVIDIA's OpenCL). OpenMP's tiles are reduced by their own loop, whatever this says"},
    {.name = "check",
     .values = "int",
     .def = "1",
     .help = "range=atomic: the host reads the ranges once at least this many iterations are unread; the launches "
             "between queue without waiting, and those past convergence do nothing, so the count stays exact"},
    {.name = "steps",
     .values = "int",
     .def = "1",
     .help = "range=atomic: iterations per launch; T > 1 keeps the group's tile (its shape, rows high) with a "
             "T-point halo in local memory for T steps (temporal blocking), each step's range folded apart"},
    {0},
};

/* The knobs together: each one only with the range method that reads it,
 * and reduce=warp only where warps shuffle, in whole warps. */
static const char *stencil_invalid_knobs(const struct knob_set *k, const struct device_info *dev, const unsigned wg[2],
                                         char *why, size_t n) {
    const int kernel_range = knob_is(k, "range", "chunked") || knob_is(k, "range", "coalesced");
    if (knob_is(k, "setup", "rebuild") && !knob_is(k, "range", "host"))
        return "setup=rebuild keeps the grid on the host between iterations, so it reads the grid back "
               "and finds the range there: it goes with range=host";
    if (!kernel_range && strcmp(knob_get(k, "partials"), "4096") != 0)
        return "partials only means something with range=chunked or range=coalesced";
    const int reduce_set = !knob_is(k, "reduce", "tree"), atomic = knob_is(k, "range", "atomic");
    if (reduce_set && !knob_is(k, "range", "fused") && !atomic)
        return "reduce is how the update kernel's work-groups combine their ranges: range=fused or range=atomic";
    if (!atomic && knob_int(k, "check") != 1) return "check is how often range=atomic reads its ranges back";
    if (!atomic && knob_int(k, "steps") != 1) return "steps (iterations per launch) needs range=atomic";
    if (knob_int(k, "check") < 1 || knob_int(k, "steps") < 1) return "check and steps are at least 1";
    if (knob_int(k, "steps") > STENCIL_STEPS_MAX) {
        snprintf(why, n, "steps=%ld: at most %d (the halo alone would outgrow the tile)", knob_int(k, "steps"),
                 STENCIL_STEPS_MAX);
        return why;
    }
    if (knob_is(k, "reduce", "warp") && dev->caps.work_groups) {
        /* NVIDIA's OpenCL takes inline PTX, so its shuffles spell reduce=warp there (stencil.cl). */
        if (!dev->caps.warp_shuffle)
            return "reduce=warp needs 32-wide warp shuffles: CUDA's, or inline PTX on NVIDIA's OpenCL; "
                   "elsewhere sub-group reductions, and the OpenCL backend does not query cl_khr_subgroups";
        if (((size_t)wg[0] * wg[1]) % 32 || (size_t)wg[0] * wg[1] > 1024) {
            snprintf(why, n, "reduce=warp: work-group %ux%u is not a whole number of 32-item warps, at most 32 of them",
                     wg[0], wg[1]);
            return why;
        }
    }
    return NULL;
}

static const char *stencil_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                   const unsigned wg[2], char *why, size_t n) {
    const char *why_knobs = stencil_invalid_knobs(k, dev, wg, why, n);
    if (why_knobs) return why_knobs;
    const int kernel_range = knob_is(k, "range", "chunked") || knob_is(k, "range", "coalesced");
    const int atomic = knob_is(k, "range", "atomic");
    const long rows = knob_int(k, "rows");
    if (wg[0] == 0 || wg[1] == 0 || in->w % (int)wg[0] || in->h % (int)wg[1]) {
        snprintf(why, n, "work-group %ux%u does not divide the %dx%d grid", wg[0], wg[1], in->w, in->h);
        return why;
    }
    if (rows > in->h || in->h % (wg[1] * rows)) {
        snprintf(why, n,
                 "rows=%ld: work-group %ux%u covers %ux%ld points, which do not divide the %dx%d "
                 "grid",
                 rows, wg[0], wg[1], wg[0], wg[1] * rows, in->w, in->h);
        return why;
    }
    const size_t items = (size_t)wg[0] * wg[1];
    const char *why_wg = app_wg_fits(dev, wg, why, n);
    if (why_wg) return why_wg;
    const long total = (long)in->w * in->h, parts = knob_int(k, "partials");
    if (kernel_range) {
        /* The range kernel is one-dimensional: `partials` work-items in
         * groups of the work-group's items laid in a row. */
        if (parts > total) {
            snprintf(why, n, "partials=%ld exceeds the grid's %ld points", parts, total);
            return why;
        }
        if (parts % (long)items) {
            snprintf(why, n,
                     "the range kernel runs partials=%ld work-items in groups of %zu (%ux%u): "
                     "%zu does not divide %ld",
                     parts, items, wg[0], wg[1], items, parts);
            return why;
        }
        if (items > dev->max_item[0]) {
            snprintf(why, n,
                     "the range kernel's groups of %zu items in a row exceed the device's "
                     "limit of %zu in x",
                     items, dev->max_item[0]);
            return why;
        }
    }
    const size_t wg_local[2] = {wg[0], wg[1]};
    const size_t need =
        atomic && knob_int(k, "steps") > 1 ? stencil_blocked_local(wg_local, k) : 2 * items * sizeof(float);
    if ((knob_is(k, "range", "fused") || atomic) && dev->caps.work_groups && dev->local_mem && need > dev->local_mem) {
        snprintf(why, n, "the work-group %s needs %zu bytes of local memory; the device has %llu",
                 need > 2 * items * sizeof(float) ? "tiles with their halo" : "reduction", need,
                 (unsigned long long)dev->local_mem);
        return why;
    }
    return app_grid_fits(dev, in->w, in->h, sizeof(float), why, n);
}

size_t stencil_blocked_local(const size_t local[2], const struct knob_set *k) {
    const size_t t = (size_t)knob_int(k, "steps"), rows = (size_t)knob_int(k, "rows");
    const size_t ex = local[0] + 2 * t, ey = local[1] * rows + 2 * t;
    return (2 * local[0] * local[1] + 2 * ex * ey) * sizeof(float);
}

/* Effective bandwidth counts the least traffic any iteration can have: each
 * grid point read once (the five-point neighbourhood served from cache) and
 * written once, 4 + 4 = 8 bytes per point per iteration, over the whole
 * W x H grid the launch covers (the border's 2(W+H)-4 points, 0.1 % at
 * 4096x4096, are counted too; they are read as neighbours but not written).
 * Every variant is scored against the same 8 bytes, as LBM's 73: a variant
 * that moves more (a separate range pass reads the grid again, +4 bytes; the
 * host range and the rebuild move the grid over the bus) shows as slower,
 * as it is. The fused variant's per-group pairs add 8 bytes per group.
 * With steps=T > 1 (temporal blocking) a launch really moves about
 * (1 + halo share) * 4 + 4 bytes per point for T iterations, so the GB/s
 * computed from these 8 bytes an iteration is an effective figure, which
 * may exceed the copy bandwidth. */
static double stencil_bytes_per_cell(const struct knob_set *k) {
    (void)k;
    return 8;
}

/* The update: five multiplications and four additions. The range's two
 * comparisons are not counted. */
static double stencil_flops_per_cell(const struct knob_set *k) {
    (void)k;
    return 9;
}

static const char *stencil_input_name(const struct app_input *in) { return in->name; }
static long stencil_input_iters(const struct app_input *in) { return stencil_serial(in)->iters; }
static long stencil_input_iters_full(const struct app_input *in) { return stencil_serial(in)->iters_full; }
/* A cell update is one grid point of one iteration: W*H per iteration. */
static double stencil_cell_updates(const struct app_input *in) {
    return (double)in->w * (double)in->h * (double)stencil_input_iters(in);
}
static void stencil_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->w;
    g[1] = (size_t)in->h;
}

const struct app app_stencil = {
    .name = "stencil",
    .description = "5-point stencil with a max-min range convergence test (seed 001)",
    .knobs = stencil_knobs,
    /* 512x512 converges in 23 iterations; every variant on both CPU devices
     * takes seconds. verify_iters 0: no cap, every run goes to convergence. */
    .verify_input = "512x512",
    .verify_iters = 0,
    .result_label = "iterations",
    .input_load = stencil_input_load,
    .input_free = stencil_input_free,
    .input_name = stencil_input_name,
    .input_iters = stencil_input_iters,
    .input_iters_full = stencil_input_iters_full,
    .cell_updates = stencil_cell_updates,
    .grid = stencil_grid,
    .invalid = stencil_invalid,
    .bytes_per_cell = stencil_bytes_per_cell,
    .flops_per_cell = stencil_flops_per_cell,
    .reference = stencil_reference,
    .ref_free = stencil_ref_free,
    .execute = stencil_execute,
    .verify = stencil_verify,
    .write_output = stencil_write_output,
    .result_free = stencil_result_free,
};
