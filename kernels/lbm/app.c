/* The LBM D2Q9 app (seed 000): knobs, validity rules and cost model; the
 * rest lives in input.c, reference.c, schedule.c and verify.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/compiler_knobs.h"
#include "lbm.h"

/* Defaults are the `final` variant, so `--knobs reduction=binary` reads as
 * "final, but with a binary reduction". */
static const struct knob_def lbm_knobs[] = {
    {.name = "layout",
     .values = "aos|soa|soa-3d",
     .def = "soa-3d",
     .help = "array of structures, nine buffers, or one 3D buffer"},
    {.name = "kernels",
     .values = "partial|split|fused|fused-accel",
     .def = "fused-accel",
     .help = "given program (host does rebound, collision, av_velocity); five kernels; "
             "propagate+rebound+collision+av_velocity fused; accelerate_flow folded in too"},
    {.name = "sync",
     .values = "finish-each|in-order",
     .def = "in-order",
     .help = "wait after every launch, or let the queue order"},
    {.name = "obstacles", .values = "branch|mask", .def = "mask", .help = "obstacle cells by a branch or by selection"},
    {.name = "neighbours",
     .values = "wrap|bitmask",
     .def = "bitmask",
     .help = "periodic neighbours by ternary/modulo or bit masks"},
    {.name = "reduction",
     .values = "host-each-step|local|binary|chunked|deferred",
     .def = "deferred",
     .help = "where the per-step average velocity is summed and when it comes home"},
    {.name = "chunk", .values = "int", .def = "1792", .help = "steps per device reduction when reduction=chunked"},
    {.name = "args",
     .values = "buffers|packed|struct",
     .def = "packed",
     .help = "one argument per buffer; the one 3D buffer; a struct of the nine buffers' pointers"},
    {.name = "constants",
     .values = "hoisted|inline",
     .def = "hoisted",
     .help = "constant factors computed once, or in the kernel"},
    {.name = "work",
     .values = "full|empty",
     .def = "full",
     .help = "empty keeps the launches but removes the computation"},
    {.name = "bind",
     .values = "each|once",
     .def = "each",
     .help = "arguments set on every launch, or bound once to two instances of the step (a ping-pong "
             "pair), the step index kept on the device"},
    {.name = "launch",
     .values = "stream|graph",
     .def = "stream",
     .help = "steps launched one by one, or `batch` steps recorded once (a CUDA graph) and replayed"},
    {.name = "batch", .values = "int", .def = "32", .help = "steps per recorded sequence when launch=graph"},
    {.name = "persistent",
     .values = "off|grid|cluster",
     .def = "off",
     .help = "one launch per step; one resident grid running a chunk of steps with a grid-wide "
             "barrier between them; or one thread-block cluster holding the whole grid in its "
             "shared memory (CUDA sm_90+, small grids)"},
    {.name = "cluster",
     .values = "fewest|most",
     .def = "fewest",
     .help = "persistent=cluster: the fewest blocks whose shared memory holds the grid, or the most "
             "(up to 16, a non-portable cluster size) so each SM updates fewer cells per step"},
    {.name = "tree",
     .values = "local|warp",
     .def = "local",
     .help = "the work-group reduction's tree: in local memory with a barrier per level, or a "
             "warp-shuffle tree per warp with one shared slot per warp and one barrier (CUDA; NVIDIA's "
             "OpenCL by inline PTX)"},
    {.name = "loads",
     .values = "plain|ldg",
     .def = "plain",
     .help = "the fused step's lattice and obstacle loads as plain loads, or through CUDA's read-only "
             "data cache (__ldg)"},
    {.name = "divide",
     .values = "ieee|reciprocal",
     .def = "ieee",
     .help = "the velocity as momentum / rho (two divisions), or momentum * (1 / rho) (one reciprocal)"},
    {.name = "speed",
     .values = "post|moments",
     .def = "post",
     .help = "the fused step's |u| recomputed from the collided speeds (as av_velocity), or taken from "
             "the density and momentum the collision computed (which it conserves: equal up to rounding)"},
    {.name = "overlap",
     .values = "off|pdl|pdl-early",
     .def = "off",
     .help = "each step's launch starts after the previous one ends, or while it finishes (CUDA's "
             "programmatic dependent launch: the step waits for its input itself; pdl lets the next "
             "launch be scheduled when each block ends, pdl-early as soon as its wait returns)"},
    {.name = "temporal",
     .values = "1|2|3|4|5|6|7|8",
     .def = "1",
     .help = "time steps per launch of the fused step: one, or several with the work-group's tile and a "
             "halo as wide as the steps in local memory (temporal blocking; the halo is recomputed by "
             "each group that needs it)"},
    {.name = "tile",
     .values = "group|inner",
     .def = "group",
     .help = "temporal=T: the tile is the work-group's shape (its items loop over the halo), or the "
             "work-group covers the tile and all but the outermost ring of its halo (tile = work-group "
             "- 2(T-1)), one cell an item per sub-step"},
    {.name = "ilp",
     .values = "1|2",
     .def = "1",
     .help = "temporal=T: cells a work-item updates at once in each pass over a sub-step's region: one, or "
             "two (their loads and arithmetic interleaved: half the passes where a region is larger than "
             "the work-group)"},
    {.name = "collide",
     .values = "plain|paired",
     .def = "plain",
     .help = "the BGK collision as the report's loop over the nine speeds, or by pairs of opposite "
             "speeds (shared equilibrium terms, omega folded into the weights: fewer operations)"},
    {.name = "sums",
     .values = "each|deferred|end",
     .def = "each",
     .help = "temporal=T, tree=warp: each sub-step's warp sums taken before its barrier, or after it, "
             "overlapping the next sub-step's work (the last after the loop, with one more barrier), or "
             "every sub-step's sum kept in registers and all shuffled at the launch's end, the steps' "
             "chains interleaved"},
    {.name = "fma",
     .values = "default|on",
     .def = "default",
     .help = "a * b + c as the backend's compiler has it by default (CUDA contracts it into one fused "
             "multiply-add; OpenCL and ISO C do not), or contracted everywhere (-cl-mad-enable, "
             "-ffp-contract=fast)"},
    {.name = "math",
     .values = "ieee|fast",
     .def = "ieee",
     .help = "the compiler's IEEE single-precision arithmetic (correctly rounded reciprocal and square "
             "root), or its relaxed math (NVRTC --use_fast_math, -cl-fast-relaxed-math, -ffast-math: "
             "approximate reciprocal and square root, denormals flushed)"},
    {.name = "moments",
     .values = "serial|tree",
     .def = "serial",
     .help = "density and momentum summed left to right as the report writes them (eight dependent adds "
             "for rho), or by opposite pairs in a balanced tree (four levels: a shorter dependency chain; "
             "the rounding differs)"},
    {.name = "cells",
     .values = "packed|fixed",
     .def = "packed",
     .help = "temporal=T, tile=inner: each sub-step's region packed into the first work-items (the fewest "
             "warps busy), or each work-item keeps one cell of the tile for every sub-step (its addresses, "
             "obstacle flag and row computed once; items outside a sub-step's region wait)"},
    {.name = "entry",
     .values = "load|pull",
     .def = "load",
     .help = "temporal=T, cells=fixed: the tile and its halo loaded into local memory before the first "
             "sub-step, or the first sub-step pulling each item's cell straight from the global lattice "
             "(no load pass, no barrier before it)"},
    {.name = "lattices",
     .values = "two|one",
     .def = "two",
     .help = "temporal=T, tile=inner: two local lattices (a sub-step reads one, writes the other: one "
             "barrier), or one updated in place (pulls, a barrier, writes, a barrier: half the local memory)"},
    {.name = "halo",
     .values = "compute|cluster",
     .def = "compute",
     .help = "temporal=T: each work-group computes its tile's halo across x too, or the work-groups of a row "
             "of tiles form one thread-block cluster spanning the grid's width and read each other's edge "
             "columns every sub-step (CUDA sm_90: distributed shared memory, a cluster barrier a sub-step)"},
    {.name = "geometry",
     .values = "runtime|compiled",
     .def = "runtime",
     .help = "temporal=T: the work-group's shape read from the launch, or compiled into the kernel (the "
             "tile, halo and region sizes constants, the pulls loads at fixed offsets)"},
    {.name = "unroll",
     .values = "plain|counted",
     .def = "plain",
     .help = "temporal=T, geometry=compiled: the sub-step loop under a bare `#pragma unroll` with an early "
             "exit at a launch's last step, or with its count spelled out and no early exit (NVIDIA's "
             "OpenCL compiler unrolls only the second)"},
    {.name = "data",
     .values = "region|per-step",
     .def = "region",
     .help = "directive backends (OpenACC, OpenMP target): the lattices stay on the device for the whole run (one "
             "data region around the time loop), or are copied out and back every step (a data region inside it)"},
    {.name = "avvels",
     .values = "each-step|device",
     .def = "device",
     .help = "directive backends: each step's average velocity a host scalar (a reduction clause: the host waits "
             "for every step, as the report's OpenACC program), or row sums kept on the device and reduced there"},
    {.name = "collapse",
     .values = "1|2",
     .def = "1",
     .help = "directive backends: rows over gangs / teams and a row's cells over the vector lanes / threads, or "
             "both loops collapsed into one over all cells"},
    {.name = "async",
     .values = "off|on",
     .def = "off",
     .help = "directive backends: every loop waits for the one before, or the steps are queued (OpenACC "
             "async(1), OpenMP nowait with a dependence chain) and waited for once"},
    {.name = "strips",
     .values = "int",
     .def = "1",
     .help = "directive backends, fused steps with their sums on the device: each row in this many strips, a gang / "
             "team each, so that a grid of few rows still has gangs for every SM (1024 rows at vector_length 32 are "
             "8 warps an H100 SM)",
     .quiet_default = 1},
    {.name = "params",
     .values = "clauses|globals",
     .def = "clauses",
     .help = "OpenACC: the loops name the lattices and constants in clauses (GCC allocates, copies and, through a "
             "stream callback, frees an argument block at every asynchronous launch), or read them from `declare "
             "create` globals set once, so that a launch maps nothing and is only a kernel launch"},
    {.name = "host",
     .values = "c|python",
     .def = "c",
     .help = "the host program: this C harness, or a Python one driving final's schedule through pyopencl "
             "(the report's Table 16; OpenCL devices; kernels/lbm/host.py)"},
    {.name = "threads", .values = "all|int", .def = "all", .help = "OpenMP only: threads per parallel loop"},
    {.name = "schedule",
     .values = "static|dynamic|guided",
     .def = "static",
     .help = "OpenMP only: the loop schedule over tiles"},
    COMPILER_KNOBS,
    {0},
};

/* The knobs that change how steps reach the device: bind, launch, batch,
 * persistent. */
static const char *lbm_invalid_launch(const struct knob_set *k, const struct device_info *dev) {
    const int fused = knob_is(k, "kernels", "fused") || knob_is(k, "kernels", "fused-accel");
    const int on_device_partials = knob_is(k, "reduction", "chunked") || knob_is(k, "reduction", "deferred");
    const int once = knob_is(k, "bind", "once"), graph = knob_is(k, "launch", "graph");
    const int persistent = !knob_is(k, "persistent", "off");
    if ((once || persistent) && (!fused || knob_is(k, "args", "struct")))
        return "bind=once and persistent=grid|cluster drive the fused step with the lattices as plain "
               "arguments (kernels=fused|fused-accel, args other than struct)";
    if (graph && !once) return "launch=graph replays bound launches: it needs bind=once";
    if ((graph || persistent) && !on_device_partials)
        return "launch=graph and persistent=grid run many steps without the host: every step's "
               "partials must stay on the device (reduction=chunked|deferred)";
    if ((graph || persistent) && knob_is(k, "sync", "finish-each"))
        return "launch=graph and persistent=grid run many steps per launch: sync=finish-each cannot apply";
    if (!graph && strcmp(knob_get(k, "batch"), "32") != 0) return "batch only means something with launch=graph";
    if (persistent && (once || graph))
        return "persistent=grid|cluster is one launch per chunk of steps: bind=once and launch=graph do not apply";
    if (persistent && !knob_is(k, "kernels", "fused-accel"))
        return "persistent=grid|cluster folds each next step's acceleration into the step (kernels=fused-accel): "
               "a separate accelerate_flow launch would end the persistent one";
    if (graph && !dev->caps.recorded_launches)
        return "launch=graph needs recorded launch sequences (CUDA graphs); this device's backend "
               "records none (OpenCL: cl_khr_command_buffer is not used)";
    if (knob_is(k, "persistent", "grid") && !dev->caps.coresident_grid)
        return "persistent=grid needs all work-groups resident at once for its grid-wide barrier; "
               "this device promises no co-residency (OpenCL does not), so the barrier could deadlock";
    return NULL;
}

/* persistent=cluster: each block of a cluster of c holds a band of ny/c
 * rows of both lattices, two steps' per-warp sums (32 warps at most) and
 * the band's obstacle bytes in shared memory (lbm_cluster.h). */
uint64_t lbm_cluster_smem(const struct app_input *in, int c) {
    const uint64_t band = (uint64_t)(in->ny / c) * (uint64_t)in->nx;
    return (18 * band + 64) * 4 + band;
}

/* The cluster's blocks (1, 2, 4, 8 or 16): the fewest that fit, or with
 * `most` the most. 0 when no cluster can hold the grid. */
int lbm_cluster_size(const struct app_input *in, const struct device_info *dev, const unsigned wg[2], int most) {
    for (int i = 0; i <= 4; i++) {
        const int c = most ? 16 >> i : 1 << i;
        if (in->ny % c || (in->ny / c) % (int)wg[1]) continue;
        if (lbm_cluster_smem(in, c) <= dev->local_mem) return c;
    }
    return 0;
}

/* temporal=T: the tile and its T-wide halo (none across x with
 * halo=cluster) once or twice (lattices; nine floats a cell), T x 32 warp
 * sums and the obstacle bytes in local memory (lbm_temporal.h); the local
 * tree sums the steps in the lattices' space at the end (T x the group's
 * size floats, which is less). */
uint64_t lbm_temporal_local_bytes(const struct knob_set *k, const unsigned tile[2], const unsigned wg[2]) {
    const unsigned steps = (unsigned)knob_int(k, "temporal");
    const unsigned halo_x = knob_is(k, "halo", "cluster") ? 0u : steps;
    const uint64_t area = (uint64_t)(tile[0] + 2u * halo_x) * (tile[1] + 2u * steps);
    const uint64_t lattices = knob_is(k, "lattices", "one") ? 1 : 2;
    const uint64_t cells = 9 * lattices * area, sums = (uint64_t)steps * wg[0] * wg[1];
    return ((cells > sums ? cells : sums) + 32 * (uint64_t)steps) * 4 + area;
}

/* tile=inner shrinks the group by the halo's inner rings on each side
 * that has a halo: across x not with halo=cluster. */
void lbm_temporal_tile(const struct knob_set *k, const unsigned wg[2], unsigned tile[2]) {
    const unsigned inner = knob_is(k, "tile", "inner") ? 2u * ((unsigned)knob_int(k, "temporal") - 1u) : 0u;
    for (int d = 0; d < 2; d++) {
        const unsigned shrink = d == 0 && knob_is(k, "halo", "cluster") ? 0u : inner;
        tile[d] = wg[d] > shrink ? wg[d] - shrink : 0;
    }
}

/* halo=cluster: one cluster spans a row of tiles (lbm_temporal.h). */
unsigned lbm_halo_cluster(const struct knob_set *k, const struct app_input *in, const unsigned wg[2]) {
    return knob_is(k, "halo", "cluster") && wg[0] ? (unsigned)in->nx / wg[0] : 1u;
}

/* Thread-block clusters with distributed shared memory: CUDA, sm_90 and later. */
static int has_clusters(const struct device_info *dev) { return dev->caps.clusters; }

/* halo=cluster: CUDA's thread-block clusters, one across the grid's width. */
static const char *lbm_invalid_halo(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                                    const unsigned wg[2], char *why, size_t n) {
    if (!has_clusters(dev))
        return "halo=cluster reads the neighbouring work-groups' local memory: thread-block clusters "
               "with distributed shared memory (CUDA, sm_90 and later)";
    if (knob_is(k, "lattices", "one"))
        return "halo=cluster: the neighbours pull from a sub-step's lattice while it is current, so the "
               "new speeds go to the other one: lattices=two";
    const unsigned c = lbm_halo_cluster(k, in, wg);
    if (c > 16) { /* (the tile rule already asked that wg[0] divide nx) */
        snprintf(why, n,
                 "halo=cluster: one cluster spans the grid's width, %d / %u = %u work-groups; "
                 "a cluster has 16 at most",
                 in->nx, wg[0], c);
        return why;
    }
    return NULL;
}

static const char *lbm_invalid_temporal(const struct knob_set *k, const struct device_info *dev, const unsigned wg[2],
                                        const unsigned tile[2], char *why, size_t n) {
    const long steps = knob_int(k, "temporal");
    /* The settings only the temporal kernel reads, and why they need it. */
    static const struct {
        const char *knob, *value, *why;
    } temporal_only[] = {
        {"tile", "inner", "tile=inner only means something with temporal>1"},
        {"lattices", "one", "lattices=one is temporal blocking's local lattice: it needs temporal>1"},
        {"ilp", "2", "ilp=2 is the temporal kernel's pass over a sub-step: it needs temporal>1"},
        {"sums", "deferred", "sums=deferred orders the temporal kernel's sums: it needs temporal>1"},
        {"sums", "end", "sums=end orders the temporal kernel's sums: it needs temporal>1"},
        {"geometry", "compiled",
         "geometry=compiled compiles the work-group's shape into the temporal "
         "kernel: it needs temporal>1"},
        {"halo", "cluster", "halo=cluster shares the temporal kernel's tiles' halos: it needs temporal>1"},
        {"cells", "fixed", "cells=fixed maps the temporal kernel's work-items to cells: it needs temporal>1"},
        {"entry", "pull", "entry=pull starts the temporal kernel's first sub-step: it needs temporal>1"},
        {"unroll", "counted", "unroll=counted unrolls the temporal kernel's sub-steps: it needs temporal>1"},
    };
    if (steps <= 1) {
        for (size_t i = 0; i < sizeof temporal_only / sizeof temporal_only[0]; i++)
            if (knob_is(k, temporal_only[i].knob, temporal_only[i].value)) return temporal_only[i].why;
        return NULL;
    }
    if (!dev->caps.work_groups)
        return "temporal>1 keeps a tile's intermediate steps in a work-group's local memory; this "
               "device has no work-groups (OpenMP's tiles already stay in the CPU's caches)";
    if (!knob_is(k, "bind", "once"))
        return "temporal>1 reads each launch's first step from the device clock: it needs bind=once";
    if (!knob_is(k, "kernels", "fused-accel"))
        return "temporal>1 folds each next step's acceleration into the step (kernels=fused-accel)";
    if (!knob_is(k, "reduction", "chunked") && !knob_is(k, "reduction", "deferred"))
        return "temporal>1 writes several steps' partials per launch: reduction=chunked|deferred";
    if (!knob_is(k, "persistent", "off"))
        return "temporal>1 is a launch of a few steps; persistent=grid|cluster is a launch of a chunk";
    if (!knob_is(k, "sums", "each") && !knob_is(k, "tree", "warp"))
        return "sums=deferred|end move the warp shuffles of tree=warp; the local tree already sums every "
               "step once, after the last";
    if (knob_is(k, "cells", "fixed") && (!knob_is(k, "tile", "inner") || knob_is(k, "ilp", "2")))
        return "cells=fixed gives each work-item one cell for every sub-step: one pass a sub-step, so "
               "tile=inner and ilp=1";
    if (knob_is(k, "unroll", "counted") && !knob_is(k, "geometry", "compiled"))
        return "unroll=counted unrolls the sub-steps of geometry=compiled (with run-time shapes the loop "
               "stays rolled)";
    if (knob_is(k, "entry", "pull") && !knob_is(k, "cells", "fixed"))
        return "entry=pull: each work-item pulls its own cell's speeds for the first sub-step: cells=fixed";
    if (knob_is(k, "lattices", "one") && knob_is(k, "ilp", "2"))
        return "lattices=one holds one cell's new speeds an item across its barrier: ilp=1";
    if (knob_is(k, "lattices", "one") && !knob_is(k, "tile", "inner"))
        return "lattices=one holds each item's new speeds in registers across a barrier: one cell an item "
               "a sub-step, so tile=inner";
    const uint64_t bytes = lbm_temporal_local_bytes(k, tile, wg);
    if (dev->local_mem && bytes > dev->local_mem) {
        snprintf(why, n,
                 "temporal=%ld with a %ux%u work-group needs %llu bytes of local memory "
                 "(the tile and its halo); the device has %llu",
                 steps, wg[0], wg[1], (unsigned long long)bytes, (unsigned long long)dev->local_mem);
        return why;
    }
    return NULL;
}

static const char *lbm_invalid_cluster(const struct knob_set *k, const struct app_input *in,
                                       const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    if (!knob_is(k, "persistent", "cluster"))
        return knob_is(k, "cluster", "most") ? "cluster only means something with persistent=cluster" : NULL;
    if (!has_clusters(dev))
        return "persistent=cluster needs thread-block clusters with distributed shared memory "
               "(CUDA, sm_90 and later); on a CPU persistent=grid is the one-region form";
    if ((wg[0] * wg[1]) % 32)
        return "persistent=cluster sums each warp with shuffles: the work-group must be whole warps "
               "(a multiple of 32 items)";
    if (lbm_cluster_size(in, dev, wg, knob_is(k, "cluster", "most")) == 0) {
        snprintf(why, n,
                 "persistent=cluster keeps both lattices (%.0f KiB for %dx%d) in one "
                 "cluster's shared memory: no cluster of at most 16 blocks of %llu bytes, each a band of "
                 "rows divisible by the work-group's %u, holds it",
                 72.0 * in->nx * in->ny / 1024.0, in->nx, in->ny, (unsigned long long)dev->local_mem, wg[1]);
        return why;
    }
    return NULL;
}

/* tree=warp and loads=ldg: CUDA spellings of the fused step's reduction
 * and loads. OpenMP has no work-group tree (its tiles sum pairwise) and
 * loads nothing through a GPU cache, so there they are the same program. */
static const char *lbm_invalid_cuda_only(const struct knob_set *k, const unsigned wg[2],
                                         const struct device_info *dev) {
    const int warp = knob_is(k, "tree", "warp"), ldg = knob_is(k, "loads", "ldg");
    if (warp && (knob_is(k, "reduction", "host-each-step") || knob_is(k, "reduction", "local")))
        return "tree shapes the tree of reduction=binary|chunked|deferred; host-each-step and local "
               "have one work-item sum the group";
    if (ldg && (knob_is(k, "kernels", "partial") || knob_is(k, "kernels", "split")))
        return "loads=ldg applies to the fused step's loads (kernels=fused|fused-accel)";
    if (ldg && knob_is(k, "persistent", "grid"))
        return "loads=ldg reads through a cache that is not coherent within a launch; persistent=grid "
               "reads in later steps what other blocks wrote in the same launch";
    /* NVIDIA's OpenCL takes inline PTX, so its shuffles spell tree=warp there (lbm.cl). */
    if (dev->caps.work_groups && warp && !dev->caps.warp_shuffle)
        return "tree=warp needs warp shuffles: CUDA's, or inline PTX on NVIDIA's OpenCL; elsewhere "
               "sub-group reductions, and the OpenCL backend does not query cl_khr_subgroups";
    if (dev->caps.work_groups && ldg && !dev->caps.readonly_loads)
        return "loads=ldg is CUDA's read-only data cache (__ldg); this device has no such load";
    if (knob_is(k, "speed", "moments") && (knob_is(k, "kernels", "partial") || knob_is(k, "kernels", "split")))
        return "speed=moments takes |u| from the fused step's collision (kernels=fused|fused-accel); "
               "the split av_velocity kernel has no collision";
    if (!knob_is(k, "overlap", "off")) {
        if (!dev->caps.dependent_launch)
            return "overlap=pdl is CUDA's programmatic dependent launch (sm_90 and later); this device "
                   "has none";
        if (!knob_is(k, "kernels", "fused") && !knob_is(k, "kernels", "fused-accel"))
            return "overlap=pdl overlaps the fused step's launches (kernels=fused|fused-accel)";
        if (!knob_is(k, "persistent", "off"))
            return "overlap=pdl overlaps one launch per step; persistent=grid|cluster has no such launches";
    }
    if (warp && dev->caps.work_groups && (wg[0] * wg[1]) % 32)
        return "tree=warp shuffles within whole warps: the work-group must be a multiple of 32 items";
    return NULL;
}

/* fma=on: only where the compiler does not contract by default; math=fast
 * where the backend has a relaxed-math option. */
static const char *lbm_invalid_fma(const struct knob_set *k, const struct device_info *dev) {
    const struct backend_ops *ops = backend_by_name(dev->backend);
    if (knob_is(k, "fma", "on") && ops && !ops->fma_option)
        return "fma=on: this backend's compiler contracts a * b + c into fused multiply-adds by default "
               "(NVRTC's --fmad=true), so it is the same program as fma=default";
    if (knob_is(k, "math", "fast") && ops && !ops->fast_math_option)
        return "math=fast: this backend's compiler has no relaxed-math option";
    if (knob_is(k, "math", "fast") && knob_is(k, "fma", "on"))
        return "math=fast contracts a * b + c itself: fma=on adds nothing to it";
    return NULL;
}

static int is_pow2(long x) { return x > 0 && (x & (x - 1)) == 0; }

/* The knobs a directive program (lbm_directive.h) reads; every other knob
 * describes launches, work-groups or host threads, which such a program
 * leaves to its compiler, so only its default is accepted there. */
static const char *const directive_knobs[] = {"layout", "args",    "kernels",  "obstacles", "neighbours", "constants",
                                              "divide", "moments", "collide",  "speed",     "fma",        "math",
                                              "data",   "avvels",  "collapse", "async",     "params",     "strips", "cc", "opt"};
static const char *const directive_only[] = {"data", "avvels", "collapse", "async", "params", "strips"};

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i])) return 1;
    return 0;
}

static const char *lbm_invalid_directive(const struct knob_set *k, const struct app_input *in,
                                         const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    const size_t nd = sizeof directive_knobs / sizeof directive_knobs[0];
    const size_t no = sizeof directive_only / sizeof directive_only[0];
    for (int i = 0; i < k->n; i++) {
        const char *name = k->defs[i].name;
        const int changed = strcmp(k->value[i], k->defs[i].def) != 0;
        if (!changed) continue;
        if (!dev->caps.directives && in_list(name, directive_only, no)) {
            snprintf(why, n, "%s=%s shapes a directive program (OpenACC, OpenMP target); this device runs kernels",
                     name, k->value[i]);
            return why;
        }
        if (dev->caps.directives && !in_list(name, directive_knobs, nd)) {
            snprintf(why, n,
                     "%s=%s means nothing to a directive program: its loops, reductions and launches are "
                     "the compiler's (OpenACC, OpenMP target)",
                     name, k->value[i]);
            return why;
        }
    }
    if (!dev->caps.directives) return NULL;
    if (knob_is(k, "layout", "soa"))
        return "layout=soa passes nine buffers; the directive program takes one lattice: layout=aos or soa-3d";
    if (knob_is(k, "kernels", "partial"))
        return "kernels=partial runs half the step on the host; the directive program runs every loop on the "
               "device (kernels=split is the report's OpenACC program)";
    if (knob_is(k, "avvels", "device") && knob_is(k, "collapse", "2"))
        return "avvels=device keeps a sum per row on the device: rows over gangs, collapse=1 (a collapsed loop's "
               "sum is one scalar, which comes back to the host every step)";
    if (knob_is(k, "async", "on") && knob_is(k, "avvels", "each-step"))
        return "async=on queues the steps; avvels=each-step waits for each step's sum: avvels=device";
    if (knob_is(k, "params", "globals")) {
        if (!dev->caps.declare_globals)
            return "params=globals is OpenACC's `declare create`; an OpenMP-target region costs about 1 ms to "
                   "launch whatever it maps (results/published/nvidia-h100-80gb/directives.md)";
        if (!knob_is(k, "avvels", "device") || !knob_is(k, "data", "region") || !knob_is(k, "kernels", "fused-accel"))
            return "params=globals is written for the fused step with its sums on the device: avvels=device, "
                   "data=region, kernels=fused-accel";
    }
    if (knob_int(k, "strips") > 1) {
        if (!knob_is(k, "avvels", "device") || !knob_is(k, "collapse", "1") || knob_is(k, "kernels", "split"))
            return "strips splits the rows of the fused step whose sums stay on the device: kernels=fused or "
                   "fused-accel, avvels=device, collapse=1";
        if (knob_int(k, "strips") > in->nx) {
            snprintf(why, n, "strips=%ld: more strips than the grid's %d columns", knob_int(k, "strips"), in->nx);
            return why;
        }
    }
    if (knob_is(k, "collapse", "1") && in->ny % (int)wg[1]) {
        snprintf(why, n, "collapse=1: %u rows a gang do not divide the grid's %d rows", wg[1], in->ny);
        return why;
    }
    return NULL;
}

/* The grid cut into tiles (tile: the work-group's shape, or with temporal
 * tile=inner that shape less the halo's inner rings), the work-group within
 * the device's limits, and the reduction's local and global memory. */
static const char *lbm_invalid_shape(const struct knob_set *k, const struct app_input *in,
                                     const struct device_info *dev, const unsigned wg[2], const unsigned tile[2],
                                     char *why, size_t n) {
    if (tile[0] == 0 || tile[1] == 0 || in->nx % (int)tile[0] || in->ny % (int)tile[1]) {
        if (knob_is(k, "tile", "inner"))
            snprintf(why, n,
                     "tile=inner: work-group %ux%u less temporal=%ld's inner halo leaves a %ux%u "
                     "tile, which does not divide the %dx%d grid",
                     wg[0], wg[1], knob_int(k, "temporal"), tile[0], tile[1], in->nx, in->ny);
        else snprintf(why, n, "work-group %ux%u does not divide the %dx%d grid", wg[0], wg[1], in->nx, in->ny);
        return why;
    }
    const char *why_wg = app_wg_fits(dev, wg, why, n);
    if (why_wg) return why_wg;
    const size_t scratch = (knob_is(k, "reduction", "host-each-step") ? 2 : 1) * (size_t)wg[0] * wg[1] * 4;
    if (dev->caps.work_groups && dev->local_mem && scratch > dev->local_mem) {
        snprintf(why, n, "the reduction needs %zu bytes of local memory; the device has %llu", scratch,
                 (unsigned long long)dev->local_mem);
        return why;
    }
    if (knob_is(k, "reduction", "chunked")) {
        const size_t ngroups = ((size_t)in->nx / tile[0]) * ((size_t)in->ny / tile[1]);
        const double need = (double)ngroups * 4.0 * (double)knob_int(k, "chunk");
        if (need > (double)dev->max_alloc) {
            snprintf(why, n,
                     "partials for %ld steps need %.2f GiB, over the device's largest "
                     "allocation of %.2f GiB",
                     knob_int(k, "chunk"), need / 1073741824.0, (double)dev->max_alloc / 1073741824.0);
            return why;
        }
    }
    if (knob_is(k, "reduction", "deferred") && lbm_partials_capacity(in, dev, tile) < 1)
        return "not even one step of group partials fits the device's memory";
    return NULL;
}

static const char *lbm_invalid(const struct knob_set *k, const struct app_input *in, const struct device_info *dev,
                               const unsigned wg[2], char *why, size_t n) {
    const char *why_compiler = compiler_knobs_invalid(k, dev, why, n);
    if (why_compiler) return why_compiler;
    const char *layout = knob_get(k, "layout"), *args = knob_get(k, "args");
    const char *why_directive = lbm_invalid_directive(k, in, dev, wg, why, n);
    if (why_directive) return why_directive;
    if (!strcmp(args, "packed") != !strcmp(layout, "soa-3d"))
        return "args=packed is the one 3D buffer of layout=soa-3d: the two go together";
    /* kernels=fused only: with fused-accel (the default) the struct reached
     * the folded acceleration as nine buffers and the kernel crashed on
     * OpenMP (segfault) and was refused by OpenCL (clSetKernelArg -51). */
    if (knob_is(k, "args", "struct") && (strcmp(layout, "soa") || !knob_is(k, "kernels", "fused")))
        return "args=struct gathers the nine buffers of layout=soa for kernels=fused (Table 7's program)";
    if (knob_is(k, "kernels", "partial") &&
        (strcmp(layout, "aos") || !knob_is(k, "reduction", "host-each-step") || !knob_is(k, "args", "buffers")))
        return "kernels=partial is the given program: layout=aos, args=buffers, reduction=host-each-step";
    if (dev->caps.work_groups && (!knob_is(k, "threads", "all") || !knob_is(k, "schedule", "static")))
        return "threads and schedule are OpenMP knobs; this device runs work-groups, not threads";
    if (knob_is(k, "neighbours", "bitmask") && (!is_pow2(in->nx) || !is_pow2(in->ny))) {
        snprintf(why, n, "neighbours=bitmask needs power-of-two nx and ny; this grid is %dx%d", in->nx, in->ny);
        return why;
    }
    if (!knob_is(k, "reduction", "chunked") && strcmp(knob_get(k, "chunk"), "1792") != 0)
        return "chunk only means something with reduction=chunked";
    const char *why_launch = lbm_invalid_launch(k, dev);
    if (why_launch) return why_launch;
    const char *why_cuda = lbm_invalid_cuda_only(k, wg, dev);
    if (why_cuda) return why_cuda;
    if (knob_is(k, "collide", "paired") && knob_is(k, "kernels", "partial"))
        return "collide=paired changes the device kernels' collision; with kernels=partial the host collides";
    const char *why_fma = lbm_invalid_fma(k, dev);
    if (why_fma) return why_fma;
    /* The grid is cut into tiles: the work-group's shape, or with
     * temporal tile=inner that shape less the halo's inner rings. */
    unsigned tile[2];
    lbm_temporal_tile(k, wg, tile);
    const char *why_shape = lbm_invalid_shape(k, in, dev, wg, tile, why, n);
    if (why_shape) return why_shape;
    const char *why_temporal = lbm_invalid_temporal(k, dev, wg, tile, why, n);
    if (why_temporal) return why_temporal;
    const char *why_halo = knob_is(k, "halo", "cluster") ? lbm_invalid_halo(k, in, dev, wg, why, n) : NULL;
    if (why_halo) return why_halo;
    const char *why_cluster = lbm_invalid_cluster(k, in, dev, wg, why, n);
    return why_cluster ? why_cluster : lbm_python_invalid(k, dev, why, n);
}

/* Effective bandwidth: the traffic of one step with nothing cached, nine
 * floats read, nine written, one obstacle byte, whatever the knobs (the
 * README's `eff. GB/s`). It is not what a variant moves: kernels=split
 * moves more (and shows as slower, as it is), temporal=T keeps T steps in
 * local memory and touches the lattice in DRAM once a launch, and a CPU's
 * caches may hold a small grid, so those can pass the measured copy
 * bandwidth. Every variant is scored against the same 73 bytes, so GB/s
 * ranks variants as their times do, and stored and published figures stay
 * comparable. k is the interface's (app.h) and deliberately not read. */
static double lbm_bytes_per_cell(const struct knob_set *k) {
    (void)k;
    return 9 * 4 + 9 * 4 + 1;
}

/* Floating-point operations of one fluid-cell update as written in
 * lbm_physics.h: density 8 adds; u_x and u_y 5 adds + 1 divide each;
 * |u|^2 3; nine equilibria of ~7 each plus the relaxation (3 each); the
 * |u| of av_velocity (density, velocity and sqrt again, ~25). */
static double lbm_flops_per_cell(const struct knob_set *k) {
    (void)k;
    return 8 + 12 + 3 + 9 * 7 + 9 * 3 + 25;
}

static const char *lbm_input_name(const struct app_input *in) { return in->name; }
static long lbm_input_iters(const struct app_input *in) { return in->iters; }
static long lbm_input_iters_full(const struct app_input *in) { return in->iters_full; }
static double lbm_cell_updates(const struct app_input *in) {
    return (double)in->nx * (double)in->ny * (double)in->iters;
}
/* work=empty removes the computation: such a run is never verified
 * (schedule.c: ST_UNVERIFIED). */
static int lbm_verified(const struct knob_set *k) { return !knob_is(k, "work", "empty"); }

static void lbm_grid(const struct app_input *in, size_t g[2]) {
    g[0] = (size_t)in->nx;
    g[1] = (size_t)in->ny;
}

const struct app app_lbm = {
    .name = "lbm",
    .description = "D2Q9 Lattice-Boltzmann (seed 000)",
    .knobs = lbm_knobs,
    /* 1000 steps: long enough for the driven flow to reach every wall and
     * wrap-around, so a wrong neighbour or obstacle shows (tests prove it). */
    .verify_input = "128x128",
    .verify_iters = 1000,
    .result_label = "Re",
    .input_load = lbm_input_load,
    .input_free = lbm_input_free,
    .input_name = lbm_input_name,
    .input_iters = lbm_input_iters,
    .input_iters_full = lbm_input_iters_full,
    .cell_updates = lbm_cell_updates,
    .grid = lbm_grid,
    .invalid = lbm_invalid,
    .bytes_per_cell = lbm_bytes_per_cell,
    .flops_per_cell = lbm_flops_per_cell,
    .reference = lbm_reference,
    .reference_on_disk = 1,
    .verified = lbm_verified,
    .ref_free = lbm_ref_free,
    .execute = lbm_execute,
    .verify = lbm_verify,
    .write_output = lbm_write_output,
    .result_free = lbm_result_free,
};
