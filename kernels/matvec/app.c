/* The coloured matrix-vector app (seed 004, apps.md section 4): LFRic's
 * matrix_vector_code applied to every cell of a generated mesh (mesh.c),
 * colour by colour, and the blog's optimisation ladder as knobs. Knobs,
 * validity rules and the cost model live here; input.c, mesh.c,
 * reference.c, schedule.c and verify.c do the rest.
 *
 * What a run means: one repetition is one product lhs += A x over every
 * cell and layer (--iters N: N products), from the same initial lhs. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "core/compiler_knobs.h"
#include "matvec.h"

/* Defaults are the `final` variant (the blog's last step). */
static const struct knob_def matvec_knobs[] = {
    {.name = "form",
     .values = "temp|scalar|collapsed|paired",
     .def = "collapsed",
     .help =
         "per-cell work: temp, a lane per layer summing into a temporary lhs_e(df, k) in memory (the blog's original); "
         "scalar, loops merged with a register accumulator; collapsed, the layer and df loops collapsed into the lanes "
         "(df fastest: coalesced matrix reads); paired, collapsed with two rows (df, df+1) a lane, read as one 16-byte "
         "load per df2 (a warp's load: 512 contiguous-in-64-byte bytes)"},
    {.name = "update",
     .values = "plain|atomic",
     .def = "atomic",
     .help = "how lhs is updated: a plain load and store, or an atomic add (the blog's collapsed version); plain is "
             "race-free only one colour at a time"},
    {.name = "colours",
     .values = "launches|masked|none",
     .def = "masked",
     .help =
         "launches: one kernel per colour (6); masked: one kernel over every colour, slots past a colour's count "
         "masked "
         "(the blog's last step); none: one kernel over every cell in mesh order, no colouring (neighbours run close "
         "together, so the x and lhs they share are still in cache); masked and none need update=atomic"},
    {.name = "matrix",
     .values = "df-fastest|k-fastest",
     .def = "df-fastest",
     .help = "the matrix on the device: Fortran's matrix(df, df2, ik), df fastest (the blog's); or layer fastest, "
             "transposed "
             "at upload (the blog tried it with the collapsed loops' order swapped, k innermost, and saw no gain): "
             "lanes over "
             "k then read consecutive doubles"},
    {.name = "load",
     .values = "plain|stream",
     .def = "plain",
     .help = "how the paired and collapsed forms read the matrix on a GPU: plain (cached), or stream, evict-first "
             "(CUDA's ld.global.cs; NVIDIA OpenCL through inline PTX; elsewhere a plain load), so the 269 MB matrix "
             "passing "
             "through L2 does not evict the x and lhs that neighbouring cells reuse"},
    /* OpenACC's launch (matvec_directive.h). Quiet at their defaults: added
     * after the ladder's results were stored, whose identities stay as they
     * were. */
    {.name = "params",
     .values = "clauses|globals",
     .def = "clauses",
     .help =
         "OpenACC: each region names the buffers and integers in clauses (GCC's runtime allocates, copies and frees an "
         "argument block for every region: about 80 us a waited region on an H100), or reads them from a `declare "
         "create` "
         "global, set only when they change, so that a region maps nothing (colours=none or masked)",
     .quiet_default = 1},
    {.name = "async",
     .values = "off|on",
     .def = "off",
     .help = "OpenACC: every region waits for its kernel, or the regions are queued on async(1) and the schedule's "
             "finish waits for them, so a repetition's products run back to back",
     .quiet_default = 1},
    {.name = "atomics",
     .values = "pragma|ptx",
     .def = "pragma",
     .help = "OpenACC, update=atomic: `acc atomic update` (GCC 12 has no nvptx add for a double and makes it a "
             "compare-and-swap loop: a load and a CAS a lane, again on a lost race), or PTX's red.global.add.f64, what "
             "CUDA's atomicAdd compiles to, "
             "in one line of inline assembly on the device (the host fallback keeps the pragma)",
     .quiet_default = 1},
    COMPILER_KNOBS,
    {0},
};

/* The most work-groups a launch may have along y: CUDA's grid limit, the
 * smallest of the backends' (OpenCL's is the size_t range). Cells run along
 * y, so a mesh with more cells per colour than 65535 x the group height is
 * refused with a group height that fits, rather than failing to launch. */
#define MV_MAX_GROUPS_Y 65535

/* A directive device (OpenACC, OpenMP target: matvec_directive.h) runs every
 * form, update, colouring and layout; what it cannot honour is a width.
 * GCC's OpenACC for nvptx runs vector_length(W) only for a multiple of the
 * warp (32) up to 1024, and otherwise builds, warns (in a log nobody reads)
 * and runs 32 lanes (1024 above it): a row labelled W that measured 32. Refused on openacc:host too (the same
 * program, nvptx code included, is built there), so a host sweep shows the
 * rows a GPU's would. OpenMP's thread_limit takes any width. */
static const char *matvec_invalid_directive(const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    if (!dev->caps.directives || !dev->caps.vector_in_warps) return NULL;
    if (wg[0] % 32 || wg[0] > 1024) {
        snprintf(why, n,
                 "vector_length(%u): GCC's OpenACC takes a multiple of 32 lanes up to 1024; it builds %u with "
                 "only a warning and runs 32 (or 1024) lanes",
                 wg[0], wg[0]);
        return why;
    }
    return NULL;
}

/* atomics=ptx: OpenACC's update=atomic only (matvec_directive.h). */
static const char *matvec_invalid_atomics(const struct knob_set *k, const struct device_info *dev) {
    if (!knob_is(k, "atomics", "ptx")) return NULL;
    if (!dev->caps.directives || !dev->caps.ptx_atomics)
        return "atomics=ptx replaces OpenACC's `acc atomic update` (a compare-and-swap loop for a double in GCC 12); "
               "this device's program has its own atomics (CUDA's atomicAdd, OpenCL's and OpenMP's)";
    if (!knob_is(k, "update", "atomic"))
        return "atomics=ptx is how update=atomic adds: with update=plain there is none";
    return NULL;
}

/* params=globals and async=on shape the OpenACC program's regions
 * (matvec_directive.h): refused wherever they mean nothing, with the reason. */
static const char *matvec_invalid_launch(const struct knob_set *k, const struct device_info *dev, char *why, size_t n) {
    const int globals = knob_is(k, "params", "globals"), async = knob_is(k, "async", "on");
    if (!globals && !async) return NULL;
    const char *knob = globals ? "params=globals" : "async=on";
    if (!dev->caps.directives) {
        snprintf(why, n,
                 "%s shapes the OpenACC program's regions (matvec_directive.h); this device runs kernels, "
                 "launched by the schedule",
                 knob);
        return why;
    }
    if (globals && !dev->caps.declare_globals)
        return "params=globals is OpenACC's `declare create`; an OpenMP-target region costs about 1 ms to "
               "launch whatever it maps (results/published/nvidia-h100-80gb/directives.md)";
    if (async && !dev->caps.async_queues)
        return "async=on queues the OpenACC regions on async(1); the OpenMP-target program has no such form (a "
               "region there costs about 1 ms to launch whatever it maps: "
               "results/published/nvidia-h100-80gb/directives.md)";
    if (globals && knob_is(k, "colours", "launches"))
        return "params=globals keeps one launch's parameters on the device for every product: colours=none or "
               "masked (a launch per colour changes them each launch, an update and a wait each)";
    return NULL;
}

static const char *matvec_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                  const unsigned wg[2], char *why, size_t n) {
    const char *why_compiler = compiler_knobs_invalid(k, dev, why, n);
    if (why_compiler) return why_compiler;
    const int masked = knob_is(k, "colours", "masked"), uncoloured = knob_is(k, "colours", "none");
    if (masked && !knob_is(k, "update", "atomic"))
        return "colours=masked runs cells of different colours together, and those share lhs dofs: it needs "
               "update=atomic";
    if (uncoloured && !knob_is(k, "update", "atomic"))
        return "colours=none runs neighbouring cells together, and those share lhs dofs: it needs update=atomic";
    const char *why_launch = matvec_invalid_launch(k, dev, why, n);
    if (why_launch) return why_launch;
    const char *why_atomics = matvec_invalid_atomics(k, dev);
    if (why_atomics) return why_atomics;
    if (wg[0] == 0 || wg[1] == 0) return "an empty work-group";
    const char *why_wg = app_wg_fits(dev, wg, why, n);
    if (why_wg) return why_wg;
    const char *why_directive = matvec_invalid_directive(dev, wg, why, n);
    if (why_directive) return why_directive;
    /* Where lanes are work-items or vector lanes (not OpenMP, whose threads
     * take whole cells and ignore the width), a group much wider than a cell
     * idles. */
    const size_t lanes = matvec_lanes(k, in->nl);
    if ((dev->caps.work_groups || dev->caps.directives) && wg[0] > 2 * lanes + 32) {
        snprintf(why, n, "a work-group %u lanes wide leaves most idle: a cell has %zu lanes (form=%s)", wg[0], lanes,
                 knob_get(k, "form"));
        return why;
    }
    /* schedule.c: a colour's cells padded to the group height, six such
     * blocks in the masked launch. */
    const size_t per_colour = ((size_t)in->ncp_max + wg[1] - 1) / wg[1];
    const size_t groups_y = masked       ? MV_COLOURS * per_colour
                            : uncoloured ? ((size_t)in->ncells + wg[1] - 1) / wg[1]
                                         : per_colour;
    const size_t slots = MV_COLOURS * (size_t)in->ncp_max;     /* the temp form's scratch slots */
    if (!dev->caps.directives && groups_y > MV_MAX_GROUPS_Y) { /* gangs / teams have no such limit */
        snprintf(why, n, "%zu work-groups of height %u along y, over the limit of %d", groups_y, wg[1],
                 MV_MAX_GROUPS_Y);
        return why;
    }
    const double matrix = (double)in->ncells * in->nl * MV_NDF * MV_NDF * sizeof(double);
    if (dev->max_alloc && matrix > (double)dev->max_alloc) {
        snprintf(why, n, "the %s matrix is %.2f GiB, over the device's largest allocation of %.2f GiB", in->name,
                 matrix / 1073741824.0, (double)dev->max_alloc / 1073741824.0);
        return why;
    }
    const double temp = knob_is(k, "form", "temp") ? (double)slots * MV_NDF * in->nl * sizeof(double) : 0;
    const double total = matrix + temp + 2.0 * in->ndofs * sizeof(double);
    if (dev->global_mem && 1.05 * total > (double)dev->global_mem) {
        snprintf(why, n, "the %s problem needs %.2f GiB; the device has %.2f GiB", in->name, total / 1073741824.0,
                 (double)dev->global_mem / 1073741824.0);
        return why;
    }
    return NULL;
}

/* Bytes per cell update (one cell at one layer), the least traffic any
 * variant can have: its 8x8 block of the matrix, 64 doubles = 512 bytes,
 * read once (it is used once); and its share of x read once and of lhs read
 * and written once. A cell touches 8 x dofs and 8 lhs dofs per layer, but
 * each vertex's two dof columns are shared by up to 4 cells: on an
 * nx x ny mesh there are 2 (nx+1)(ny+1) columns for nx ny cells, 2 per cell
 * plus the boundary's 2 (nx + ny + 1) / (nx ny) (1.9 % at 162x81, which we
 * leave out: the model slightly under-counts). So 512 + 2 x 8 (x) + 2 x 16
 * (lhs, read and written) = 560 bytes. Counted as if nothing else moved:
 * a variant that gathers x from memory once per use (as the blog notes the
 * lanes do, served from caches) or spills the temp form's lhs_e moves more
 * and shows as slower, as it is; a CPU whose caches hold a small input
 * between repetitions moves less, so effective GB/s can pass the copy
 * ceiling there. Gathers counted once per use instead (8 x and 8 lhs
 * doubles read, 8 written per cell update) would be 704 bytes. */
static double matvec_bytes_per_cell(const struct knob_set *k) {
    (void)k;
    return 560;
}

/* 64 multiply-adds per cell update, 2 flops each: 128, the count of the
 * blog's flop_count_dp (67184640 = 13122 cells x 40 layers x 128; the lhs
 * additions are atomics or memory updates, which that counter leaves out). */
static double matvec_flops_per_cell(const struct knob_set *k) {
    (void)k;
    return 128;
}

static const char *matvec_input_name(const struct app_input *in) { return in->name; }
static long matvec_input_iters(const struct app_input *in) { return in->iters; }
static long matvec_input_iters_full(const struct app_input *in) { return in->iters; }
static double matvec_cell_updates(const struct app_input *in) {
    return (double)in->ncells * in->nl * (double)in->iters;
}
/* What a work-group shape tiles: the collapsed form's lanes per cell (the
 * default; the others' are a divisor when nl is even) by the cells. */
static void matvec_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->nl * MV_NDF;
    g[1] = (size_t)in->ncells;
}

const struct app app_matvec = {
    .name = "matvec",
    .description = "LFRic's coloured matrix-vector product on a generated 6-colour mesh (seed 004)",
    .knobs = matvec_knobs,
    /* 30x20 columns of 40 layers (600 cells, 1.2 MB of matrix): every
     * variant on both CPU devices in seconds. */
    .verify_input = "gen:30x20x40",
    .verify_iters = 0,
    .result_label = "|lhs|",
    .input_load = matvec_input_load,
    .input_free = matvec_input_free,
    .input_name = matvec_input_name,
    .input_iters = matvec_input_iters,
    .input_iters_full = matvec_input_iters_full,
    .cell_updates = matvec_cell_updates,
    .grid = matvec_grid,
    .invalid = matvec_invalid,
    .bytes_per_cell = matvec_bytes_per_cell,
    .flops_per_cell = matvec_flops_per_cell,
    .reference = matvec_reference,
    .ref_free = matvec_ref_free,
    .execute = matvec_execute,
    .verify = matvec_verify,
    .write_output = matvec_write_output,
    .result_free = matvec_result_free,
};
