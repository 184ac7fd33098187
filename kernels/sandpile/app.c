/* The sandpile app (seed 002, apps.md section 3): the abelian sandpile's
 * synchronous rule run until the grid is stable, with how and how often
 * stability is checked as knobs. Knobs, validity rules and the cost model
 * live here; input.c, reference.c, predict.c, schedule.c and verify.c do
 * the rest.
 *
 * What a run means: one repetition is the whole run from the start to the
 * first stable grid (the serial count: 69190 iterations at 512x512 from 4
 * grains everywhere); --iters N caps a run at N iterations (compared with
 * the serial grid after N). The count reported is exact whatever the
 * strategy, never the iteration a check happened to land on. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "core/devset.h"
#include "core/rowsplit.h"
#include "sandpile.h"

/* Defaults: the device flag read every iteration, one step per launch. */
static const struct knob_def sandpile_knobs[] = {
    {.name = "detect",
     .values = "none|grid|flag|predict",
     .def = "flag",
     .help = "how stability is found: none runs the serial count and never checks (the seed's plain kernel); grid "
             "reads the whole grid back and scans it on the host (the seed's baseline); flag reads the device's "
             "per-iteration flags; predict runs to a predicted iteration unchecked, then checks as flag does"},
    {.name = "every",
     .values = "int",
     .def = "1",
     .help = "iterations between checks (grid, flag; predict after its prediction): the run may go up to every-1 "
             "iterations past stability, and still reports the exact count from the flags"},
    {.name = "predict",
     .values = "seed|int",
     .def = "seed",
     .help = "detect=predict: the first iteration checked; seed is the seed's fitted polynomial (default start, "
             "square grids only)"},
    {.name = "steps",
     .values = "int",
     .def = "1",
     .help = "iterations per launch: 1 is one kernel per step; T > 1 runs T steps in local memory per launch "
             "(temporal blocking): each group loads its block of cells (the work-group shape) and a T-cell halo"},
    {.name = "vote",
     .values = "group|item|cell",
     .def = "group",
     .help = "how a kernel records an unstable step: group has each work-group vote (a barrier or two) and one "
             "item store the step's flag; item has every unstable item store it, with no barrier; cell has each "
             "cell store the last step it was unstable in a grid-sized array, which a check reads whole"},
    {.name = "tile",
     .values = "single|double",
     .def = "single",
     .help = "steps=T > 1: single keeps one copy of the tile in local memory (a barrier before and after each step's "
             "writes); double keeps two and alternates, one barrier a step, for twice the local memory"},
    {.name = "cells",
     .values = "int",
     .def = "1",
     .help =
         "steps=T > 1 on a work-group device: cells per work-item. R > 1 has each item keep a column strip of R cells "
         "of the tile in registers (north and south from its own, east, west and the strip's ends through local "
         "memory): the block with its halo is (wx + 2T) x (wy + 2T) cells, a group of (wx + 2T) x (wy + 2T)/R items"},
    {.name = "launch",
     .values = "each|resident",
     .def = "each",
     .help = "each: one launch per T steps (or per step); resident: one co-resident launch per check interval, its "
             "groups taking blocks of cells in turn, T steps in local memory between grid-wide barriers, and the "
             "launch ending by itself at stability (a device whose model promises co-resident groups: CUDA)"},
    {.name = "rule",
     .values = "sync|async",
     .def = "sync",
     .help = "sync: the seed's synchronous rule; async: in place, tile by tile, on the CPU only (the same stable "
             "grid by the abelian property; its sweeps are not iterations, so only the grid is verified)"},
    {.name = "host_tile",
     .values = "auto|shape",
     .def = "auto",
     .help = "a CPU's (OpenMP's) tile shape WxH, used in place of the config's shape, which stays a GPU's: the cells "
             "each tile writes (steps=T adds a T-cell halo); a device set's CPU member runs these tiles while its GPU "
             "runs the work-group shape (long rows suit a CPU's caches and vectors, a GPU's 16x16 block does not); "
             "a width past the grid's is the grid's width; auto is the config's shape"},
    ROWSPLIT_KNOBS,
    {0},
};

static const char *member_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                  const unsigned wg[2], int in_set, char *why, size_t n);

int sandpile_tile_shape(const struct device_info *dev, const struct knob_set *k, const unsigned wg[2],
                        unsigned shape[2]) {
    if (!dev->caps.work_groups && knob_shape(k, "host_tile", shape) == 0) return 1;
    shape[0] = wg[0];
    shape[1] = wg[1];
    return 0;
}

/* A device set (hybrid.c): the rows must split, and the config must be
 * valid on each member: the config's shape is a GPU's work-group, and a
 * CPU member's tiles too unless host_tile gives it its own. */
static const char *set_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *set,
                               const unsigned wg[2], char *why, size_t n) {
    if (knob_is(k, "rule", "async"))
        return "rule=async sweeps in place in an order of its own, with no rows to split: a device set runs rule=sync";
    if (knob_is(k, "launch", "resident"))
        return "launch=resident ends its launch when its own rows are stable; a device set exchanges rows between "
               "launches: launch=each";
    const char *bad = rowsplit_invalid(k, 1, in->h - 1);
    if (bad) return bad;
    struct device_info m[DEVSET_MAX];
    if (devset_members(set, m, why, n)) return why;
    if (!knob_is(k, "host_tile", "auto") && m[0].caps.work_groups && m[1].caps.work_groups)
        return "host_tile is a CPU member's tile shape, and neither device of this set is a CPU (OpenMP): leave it "
               "auto";
    char member_why[ERR_MAX];
    for (int i = 0; i < DEVSET_MAX; i++)
        if ((bad = member_invalid(k, in, &m[i], wg, 1, member_why, sizeof member_why))) {
            str_fmt(why, n, "%s: %s", m[i].spec, bad);
            return why;
        }
    return NULL;
}

static const char *sandpile_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                    const unsigned wg[2], char *why, size_t n) {
    if (devset_is(dev)) return set_invalid(k, in, dev, wg, why, n);
    if (!knob_is(k, "host_tile", "auto") && dev->caps.work_groups)
        return "host_tile is a CPU's (OpenMP's) tile shape; a GPU alone runs the config's work-group shape: leave it "
               "auto (on a device set it is the CPU member's)";
    return member_invalid(k, in, dev, wg, 0, why, n);
}

/* launch=resident and rule=async: the schedules only some devices and
 * detections can run. */
static const char *member_invalid_schedule(const struct knob_set *k, const struct app_input *in,
                                           const struct device_info *dev, const unsigned wg[2], long steps) {
    const int none = knob_is(k, "detect", "none"), predict = knob_is(k, "detect", "predict");
    if (knob_is(k, "launch", "resident")) {
        if (!dev->caps.work_groups || !dev->caps.coresident_grid)
            return "launch=resident waits at grid-wide barriers: it needs work-groups that are all resident at "
                   "once, which only CUDA's cooperative launch promises here";
        if (steps < 2) return "launch=resident runs the tiled kernel's rounds: give steps=T with T >= 2";
        if (!knob_is(k, "detect", "flag") && !knob_is(k, "detect", "predict"))
            return "launch=resident ends at the step the flags show stable: detect=flag or predict";
        if (!knob_is(k, "vote", "group") && !knob_is(k, "vote", "item"))
            return "launch=resident reads each round's step flag on the device: vote=group or item (not cell)";
    }
    if (knob_is(k, "rule", "async")) {
        if (dev->caps.work_groups)
            return "rule=async topples in place, and neighbouring work-groups would add to the same cells "
                   "without atomics: it runs on the CPU (OpenMP) only";
        if (none || predict)
            return "rule=async counts sweeps, not the synchronous iterations: neither a serial count nor a "
                   "prediction applies; use detect=flag or grid";
        if (steps != 1) return "steps is the synchronous rule's temporal blocking; rule=async sweeps in place";
        if (in->cap > 0)
            return "a capped asynchronous run stops in an order of its own, with nothing to compare: run it to "
                   "stability (no --iters)";
        if (wg[0] < 2 || wg[1] < 2)
            return "rule=async needs tiles of at least 2x2 cells, so that tiles of one colour never share a "
                   "neighbour";
    }
    return NULL;
}

/* The work-group (with steps=T its T-cell halo on every side; with cells=R,
 * R rows of that per item) within the device's limits and local memory,
 * and the grid within its memory. A CPU's own tile shape (own_shape) is
 * explicit: only the grid is checked. */
static const char *member_invalid_group(const struct knob_set *k, const struct app_input *in,
                                        const struct device_info *dev, const unsigned wg[2], int own_shape, long steps,
                                        long cells, char *why, size_t n) {
    if (wg[0] == 0 || wg[1] == 0) return "the work-group shape must be at least 1x1";
    const size_t gx = wg[0] + (steps > 1 ? 2 * (size_t)steps : 0), rows = wg[1] + (steps > 1 ? 2 * (size_t)steps : 0);
    const size_t gy = rows / (size_t)cells, items = gx * gy;
    if (own_shape) return app_grid_fits(dev, in->w, in->h, sizeof(unsigned), why, n);
    if (items > dev->max_wg) {
        if (steps > 1)
            snprintf(why, n,
                     "steps=%ld, cells=%ld: the %ux%u block with its %ld-cell halo is a %zux%zu group, %zu items, "
                     "over the device's maximum of %zu",
                     steps, cells, wg[0], wg[1], steps, gx, gy, items, dev->max_wg);
        else
            snprintf(why, n, "work-group %ux%u = %zu items exceeds the device's maximum of %zu", wg[0], wg[1], items,
                     dev->max_wg);
        return why;
    }
    if (gx > dev->max_item[0] || gy > dev->max_item[1]) {
        snprintf(why, n, "work-group %zux%zu exceeds the device's per-dimension limits %zux%zu", gx, gy,
                 dev->max_item[0], dev->max_item[1]);
        return why;
    }
    const size_t local = sandpile_local_bytes((int)steps, knob_is(k, "tile", "double"), (int)cells, wg);
    if (dev->caps.work_groups && dev->local_mem && local > dev->local_mem) {
        snprintf(why, n, "the tile needs %zu bytes of local memory; the device has %llu", local,
                 (unsigned long long)dev->local_mem);
        return why;
    }
    return app_grid_fits(dev, in->w, in->h, sizeof(unsigned), why, n);
}

/* One device's rules, alone or as a set's member (in_set: knobs for the
 * other member are not this one's to refuse). */
static const char *member_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                  const unsigned wg_config[2], int in_set, char *why, size_t n) {
    /* A CPU's own tile shape (host_tile) is explicit, so the device's limits,
     * which only keep shape sweeps finite on OpenMP, do not apply to it. */
    unsigned wg[2];
    const int own_shape = sandpile_tile_shape(dev, k, wg_config, wg);
    const int none = knob_is(k, "detect", "none"), predict = knob_is(k, "detect", "predict");
    const long steps = knob_int(k, "steps");
    if (none && knob_int(k, "every") != 1) return "every means nothing with detect=none, which never checks";
    if (!predict && !knob_is(k, "predict", "seed")) return "predict is the first iteration detect=predict checks";
    if (predict && knob_is(k, "predict", "seed") && sandpile_seed_prediction(in) < 0)
        return "the seed's prediction is a fit for its default start on square grids: give predict=N";
    if (!knob_is(k, "vote", "group")) {
        if (none) return "vote means nothing with detect=none, which stores no flags";
        if (!dev->caps.work_groups)
            return "vote: OpenMP's tiles store one flag each, with no barrier to save; vote is for work-groups";
    }
    /* A set's CPU member runs its own tiles (host_tile), whatever the GPU's
     * tile and cells knobs say. */
    const int cpu_member = in_set && !dev->caps.work_groups;
    if (knob_is(k, "tile", "double") && (steps < 2 || (!dev->caps.work_groups && !cpu_member)))
        return "tile=double is the tiled kernel's local-memory ping-pong: steps=T >= 2 on a device with work-groups";
    const long cells = cpu_member ? 1 : knob_int(k, "cells");
    if (cells > 1) {
        if (steps < 2 || !dev->caps.work_groups)
            return "cells=R is the tiled kernel's strip of R cells per work-item: steps=T >= 2 on a device with "
                   "work-groups";
        if (knob_is(k, "launch", "resident"))
            return "cells=R has its own kernel; launch=resident runs topple_tiled's one cell per item: launch=each";
        if ((wg[1] + 2 * (unsigned long)steps) % (unsigned long)cells) {
            snprintf(why, n,
                     "cells=%ld: the %ux%u block with its %ld-cell halo is %lu rows tall, not a multiple of %ld "
                     "(each item holds %ld rows)",
                     cells, wg[0], wg[1], steps, wg[1] + 2 * (unsigned long)steps, cells, cells);
            return why;
        }
    }
    const char *why_schedule = member_invalid_schedule(k, in, dev, wg, steps);
    if (why_schedule) return why_schedule;
    return member_invalid_group(k, in, dev, wg, own_shape, steps, cells, why, n);
}

/* Effective bandwidth counts the least traffic a synchronous step can
 * have: each interior cell read once (its four neighbours served from
 * cache) and written once, 4 + 4 = 8 bytes per cell update. Every variant
 * is scored against the same 8 bytes, as the stencil's and LBM's models
 * are: the read-backs of detect=grid (4 more bytes per cell per check, over
 * the bus) show as slower, and temporal blocking (steps=T moves 8/T bytes
 * per update through global memory) can pass the copy bandwidth, as LBM's
 * does. The flags (4 bytes per work-group per step) are left out: 0.1 % at
 * 32x8 groups. */
static double sandpile_bytes_per_cell(const struct knob_set *k) {
    (void)k;
    return 8;
}

/* Not floating point: the rule is 10 integer operations per cell (a mask,
 * four shifts, four additions, the stability test), counted here so the
 * roofline has an intensity; it is 1.25 operations per byte. */
static double sandpile_flops_per_cell(const struct knob_set *k) {
    (void)k;
    return 10;
}

static const char *sandpile_input_name(const struct app_input *in) { return in->name; }
static long sandpile_input_iters(const struct app_input *in) { return sandpile_serial(in)->iters; }
static long sandpile_input_iters_full(const struct app_input *in) { return sandpile_serial(in)->iters_full; }
/* A cell update is one interior cell of one iteration: (W-2)(H-2) per
 * iteration (the border is never updated). 512x512 to stability:
 * 260100 x 69190 = 1.80e10 cell updates. */
static double sandpile_cell_updates(const struct app_input *in) {
    return sandpile_interior(in) * (double)sandpile_input_iters(in);
}
static void sandpile_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->w;
    g[1] = (size_t)in->h;
}

const struct app app_sandpile = {
    .name = "sandpile",
    .description = "abelian sandpile run until stable, termination strategies as knobs (seed 002)",
    .knobs = sandpile_knobs,
    /* 128x128 becomes stable in a few thousand iterations: every variant on
     * both CPU devices in seconds. verify_iters 0: every run to stability. */
    .verify_input = "128x128",
    .verify_iters = 0,
    .result_label = "iterations",
    .input_load = sandpile_input_load,
    .input_free = sandpile_input_free,
    .input_name = sandpile_input_name,
    .input_iters = sandpile_input_iters,
    .input_iters_full = sandpile_input_iters_full,
    .cell_updates = sandpile_cell_updates,
    .grid = sandpile_grid,
    .invalid = sandpile_invalid,
    .bytes_per_cell = sandpile_bytes_per_cell,
    .flops_per_cell = sandpile_flops_per_cell,
    .reference = sandpile_reference,
    .reference_on_disk = 1,
    .ref_free = sandpile_ref_free,
    .execute = sandpile_execute,
    .verify = sandpile_verify,
    .write_output = sandpile_write_output,
    .result_free = sandpile_result_free,
};
