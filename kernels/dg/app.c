/* The DG Navier-Stokes app (seed 003, apps.md): Yee's vortex on a periodic
 * square, P1 discontinuous Galerkin with Rusanov and BR1 fluxes, SSP-RK3,
 * and the guideline's optimisation ladder as knobs. Knobs, validity rules
 * and the cost model live here; input.c, reference.c, schedule.c and
 * verify.c do the rest (README.md states the scheme).
 *
 * What a run means: one repetition is `iters` time steps (the seed's case:
 * yee:2001, 100 steps) from the initial vortex. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "core/compiler_knobs.h"
#include "dg.h"

/* Defaults are the `final` variant. */
static const struct knob_def dg_knobs[] = {
    {.name = "kernels",
     .values = "split|merged|fused|tiled",
     .def = "merged",
     .help = "kernels a Runge-Kutta stage: split, the seed's 8 (convective fluxes x and y, convective integral, "
             "gradients, viscous fluxes x and y, viscous integral, update; 4 without viscosity); merged, its 4 "
             "(gradients, fluxes x, fluxes y, integral with the update); fused (ours), each cell computing its own "
             "four faces (twice over the mesh) and updating into a second state array: 2 (1 without viscosity); tiled "
             "(ours, work-group devices: OpenCL, CUDA), fused's kernel with the work-group's cells and a one-cell halo "
             "in local memory, each face computed once there, then the volume and the update: 2 (1 without "
             "viscosity)"},
    {.name = "regs",
     .values = "off|on",
     .def = "on",
     .help = "the guideline's step 1: off, each point's value read from memory where it is used, no restrict (the "
             "compiler cannot keep what it read across the stores between); on, a cell's 12 coefficients loaded "
             "once into registers and every pointer restrict"},
    {.name = "divide",
     .values = "plain|inverse",
     .def = "inverse",
     .help = "the guideline's step 3: divisions by dx, dy and rho, or multiplications by 1/dx, 1/dy (computed once "
             "on the host) and 1/rho (once a point)"},
    {.name = "unroll",
     .values = "keep|none",
     .def = "keep",
     .help = "the guideline's step 3: the small fixed loops (variables, Gauss points) marked for unrolling, or "
             "kept rolled (`unroll 1`), which saves registers where they spill"},
    {.name = "align",
     .values = "none|warp",
     .def = "warp",
     .help = "the guideline's step 4: rows of each field padded to a multiple of 32 doubles (a warp's loads start "
             "on a 256-byte boundary), or packed"},
    COMPILER_KNOBS,
    REGCAP_KNOB,
    {0},
};

/* OpenACC for nvptx (GCC) runs vector_length(V) only for V a multiple of
 * 32 up to 1024 (it builds others with a warning and runs 32 lanes); the
 * DG regions' vector length is the group's W x H. */
static const char *dg_invalid_directive(const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    if (!dev->caps.directives || !dev->caps.vector_in_warps) return NULL;
    const unsigned v = wg[0] * wg[1];
    if (v % 32 || v > 1024) {
        snprintf(why, n,
                 "vector_length(%u) (the group's %ux%u cells): GCC's OpenACC takes a multiple of 32 lanes up to "
                 "1024; it builds %u with only a warning and runs 32 (or 1024) lanes",
                 v, wg[0], wg[1], v);
        return why;
    }
    return NULL;
}

/* The largest field (the gradients with viscosity, 18 planes; else the
 * state's 12) and everything together. */
static const char *dg_invalid_memory(const struct knob_set *k, const struct app_input *in,
                                     const struct device_info *dev, char *why, size_t n) {
    const double plane = (double)dg_pitch(k, in->nx) * in->ny * sizeof(double);
    const int visc = in->mu > 0;
    const int split = knob_is(k, "kernels", "split");
    const int fused = knob_is(k, "kernels", "fused") || knob_is(k, "kernels", "tiled"); /* qn, no flux arrays */
    const double planes = 2 * DG_NC + (split ? DG_NC : 0) + (fused ? DG_NC : 16) + (visc ? DG_NS : 0) +
                          (split && visc ? 16 : 0);
    const double largest = (visc ? DG_NS : DG_NC) * plane;
    if (dev->max_alloc && largest > (double)dev->max_alloc) {
        snprintf(why, n, "%s: a field of %.2f GiB, over the device's largest allocation of %.2f GiB", in->name,
                 largest / 1073741824.0, (double)dev->max_alloc / 1073741824.0);
        return why;
    }
    if (dev->global_mem && 1.05 * planes * plane > (double)dev->global_mem) {
        snprintf(why, n, "%s needs %.2f GiB (kernels=%s); the device has %.2f GiB", in->name,
                 planes * plane / 1073741824.0, knob_get(k, "kernels"), (double)dev->global_mem / 1073741824.0);
        return why;
    }
    return NULL;
}

/* kernels=tiled shares a block's cells and faces in work-group memory
 * (dg_gpu.h's dg_tiled): a device that runs loops over tiles (OpenMP, and
 * the directive compilers' regions) has none to share, and a group's tile
 * must fit the device's local memory. Viscosity is supported (the
 * gradients are read from global memory, not tiled). */
static const char *dg_invalid_tiled(const struct knob_set *k, const struct device_info *dev, const unsigned wg[2],
                                    char *why, size_t n) {
    if (!knob_is(k, "kernels", "tiled")) return NULL;
    if (!dev->caps.work_groups)
        return "kernels=tiled keeps a work-group's cells and faces in its local memory, between barriers; this "
               "device runs loops over tiles, with no work-groups (kernels=fused is its one-kernel form)";
    const size_t bytes = dg_tile_bytes(wg);
    if (dev->local_mem && bytes > dev->local_mem) {
        snprintf(why, n,
                 "kernels=tiled: a %ux%u group's tile (its cells, a one-cell halo and its faces) takes %zu bytes of "
                 "local memory; the device has %llu",
                 wg[0], wg[1], bytes, (unsigned long long)dev->local_mem);
        return why;
    }
    return NULL;
}

static const char *dg_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                              const unsigned wg[2], char *why, size_t n) {
    const char *bad = compiler_knobs_invalid(k, dev, why, n);
    if (bad) return bad;
    if ((bad = regcap_invalid(k, dev, why, n))) return bad;
    if (wg[0] == 0 || wg[1] == 0) return "an empty work-group";
    if ((bad = app_wg_fits(dev, wg, why, n))) return bad;
    if ((bad = dg_invalid_directive(dev, wg, why, n))) return bad;
    if ((bad = dg_invalid_tiled(k, dev, wg, why, n))) return bad;
    return dg_invalid_memory(k, in, dev, why, n);
}

/* Bytes per cell update (one cell, one time step), the compulsory traffic
 * of the knobs' form on the Euler equations (yee:N, the seed's case),
 * counted from schedule.c and dg_cell.h in doubles: each field read or
 * written once per kernel that touches it (a neighbour's values, read by
 * the next cell too, counted once), 8 bytes each:
 *   merged, a stage: flux_x reads q (12) writes fx (8); flux_y the same;
 *     int_rk reads q (12), fx and fy (16), q0 (12; stage 0 writes it
 *     instead) and writes q (12): 92
 *   split: + conv_int writes r (12), rk reads q, r and q0 and writes q:
 *     conv_x 20, conv_y 20, conv_int 12+16+12, rk 12+12+12+12: 128
 *   fused: reads q (12) and q0 (12), writes qn (12): 36
 *   tiled: the same 36 (a block's halo, read again by its neighbours, is
 *     counted once, as a neighbour's values are above)
 * times 3 stages, plus the step's reduction reading 4 means: merged 280,
 * split 388, fused and tiled 112 doubles. With viscosity (re=) each stage adds the
 * gradients (read q 12, write s 18) and s read by the fluxes (18), more
 * than this model counts: it is stated for Euler, "effective" otherwise. */
static double dg_bytes_per_cell(const struct knob_set *k) {
    if (knob_is(k, "kernels", "split")) return 388 * 8.0;
    if (knob_is(k, "kernels", "fused") || knob_is(k, "kernels", "tiled")) return 112 * 8.0;
    return 280 * 8.0;
}

/* Flops per cell update on the Euler equations, counted from dg_cell.h
 * and dg_phys.h (a multiply-add 2, a division, square root or comparison 1)
 * by tests/cost/dg_flops.cc (checked by tests/integration/dg_cost.sh), which runs one cell's kernels with a counting
 * number type: DG_FLOPS_MERGED a step for split and merged (the same
 * arithmetic), DG_FLOPS_FUSED for fused (each face twice), DG_FLOPS_TILED
 * for tiled (each face once, as merged, less the 48 multiplications by a
 * sign of 1 that merged's flux kernels write and the counter counts). Tiled
 * also computes a block's edge faces again in the next block (1/W + 1/H of
 * a face a cell more: 14 % of the faces at 32x4), which the model, counting
 * each face once, leaves out. */
#define DG_FLOPS_MERGED 3003.0
#define DG_FLOPS_FUSED 4203.0
#define DG_FLOPS_TILED 2955.0
static double dg_flops_per_cell(const struct knob_set *k) {
    if (knob_is(k, "kernels", "fused")) return DG_FLOPS_FUSED;
    return knob_is(k, "kernels", "tiled") ? DG_FLOPS_TILED : DG_FLOPS_MERGED;
}

static const char *dg_input_name(const struct app_input *in) { return in->name; }
static long dg_input_iters(const struct app_input *in) { return in->iters; }
static long dg_input_iters_full(const struct app_input *in) { return in->steps_full; }
static double dg_cell_updates(const struct app_input *in) { return (double)in->nx * in->ny * (double)in->iters; }
static void dg_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->nx;
    g[1] = (size_t)in->ny;
}

const struct app app_dg = {
    .name = "dg",
    .description = "DG Navier-Stokes: Yee's vortex, P1 discontinuous Galerkin, SSP-RK3 (seed 003)",
    .knobs = dg_knobs,
    /* 20x20 cells with viscosity, 10 steps: every kernel of every form on
     * both CPU devices in seconds. */
    .verify_input = "yee:20:re=50",
    .verify_iters = 10,
    .result_label = "L2(rho-vortex)",
    .input_load = dg_input_load,
    .input_free = dg_input_free,
    .input_name = dg_input_name,
    .input_at_time = dg_input_at_time,
    .input_iters = dg_input_iters,
    .input_iters_full = dg_input_iters_full,
    .cell_updates = dg_cell_updates,
    /* Launches round the mesh up to the block and guard the edge (dg_gpu.h),
     * so the seed's odd 2001 takes any block: 32x4 (128 cells; a multiple of
     * 32 lanes for OpenACC), not the 1x1 that divides 2001. */
    .default_wg = {32, 4},
    .grid = dg_grid,
    .invalid = dg_invalid,
    .bytes_per_cell = dg_bytes_per_cell,
    .flops_per_cell = dg_flops_per_cell,
    .prints_gflops = 1,
    .reference = dg_reference,
    .reference_on_disk = 1,
    .ref_free = dg_ref_free,
    .execute = dg_execute,
    .verify = dg_verify,
    .write_output = dg_write_output,
    .result_free = dg_result_free,
};
