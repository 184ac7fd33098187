/* The launch-cost knobs' validity rules (bind, launch, batch, persistent):
 * what each backend may run, and every refusal gives its reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "lbm.h"

/* "cuda" is an H100 (sm_90, 227 KiB of shared memory per block); "cuda80"
 * an A100-like sm_80. */
static struct device_info device(const char *backend) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, strncmp(backend, "cuda", 4) ? backend : "cuda");
    if (!strcmp(backend, "cuda")) str_copy(d.arch, sizeof d.arch, "sm_90");
    if (!strcmp(backend, "cuda80")) str_copy(d.arch, sizeof d.arch, "sm_80");
    d.max_wg = 1024;
    d.max_item[0] = d.max_item[1] = 1024;
    d.local_mem = strncmp(backend, "cuda", 4) ? 48 * 1024 : 232448;
    d.global_mem = d.max_alloc = (uint64_t)16 << 30;
    device_caps(&d); /* the rules ask for capabilities, which the backend fills from the above */
    return d;
}

/* The validity rules' answer for a 32x1 work-group (why) or another (why_at). */
static const char *why_at(const char *knobs, const char *backend, const struct app_input *in, unsigned wx,
                          unsigned wy) {
    const struct app *lbm = app_find("lbm");
    struct knob_set k;
    char err[256];
    knobs_init(&k, lbm->knobs);
    if (knobs_apply(&k, knobs, err, sizeof err)) return "knobs did not apply";
    const struct device_info d = device(backend);
    const unsigned wg[2] = {wx, wy};
    static char buf[ERR_MAX]; /* the caller reads the reason after the return */
    return lbm->invalid(&k, in, &d, wg, buf, sizeof buf);
}

static const char *why(const char *knobs, const char *backend, const struct app_input *in) {
    return why_at(knobs, backend, in, 32, 1);
}

/* The knobs are valid, or refused with a reason naming `reason`, for a
 * wx x wy work-group (valid_at, refused_at) or a 32x1 one (valid, refused). */
static void valid_at(const char *knobs, const char *backend, const struct app_input *in, unsigned wx, unsigned wy) {
    const char *w = why_at(knobs, backend, in, wx, wy);
    CHECK(w == NULL, "%s on %s at %ux%u is valid%s%s", knobs, backend, wx, wy, w ? ": " : "", w ? w : "");
}

static void refused_at(const char *knobs, const char *backend, const char *reason, const struct app_input *in,
                       unsigned wx, unsigned wy) {
    const char *w = why_at(knobs, backend, in, wx, wy);
    CHECK(w && strstr(w, reason), "%s on %s at %ux%u is refused, saying '%s' (%s)", knobs, backend, wx, wy, reason,
          w ? w : "valid");
}

static void valid(const char *knobs, const char *backend, const struct app_input *in) {
    valid_at(knobs, backend, in, 32, 1);
}

static void refused(const char *knobs, const char *backend, const char *reason, const struct app_input *in) {
    refused_at(knobs, backend, reason, in, 32, 1);
}

/* persistent=cluster: where it runs and which grids fit one cluster. */
static void cluster_rules(const struct app_input *small) {
    char err[256];
    struct app_opts o = {.input = "gen:1024x1024"};
    struct app_input *big = lbm_input_load(&o, err, sizeof err);
    o.input = "128x128";
    struct app_input *c128 = lbm_input_load(&o, err, sizeof err);
    if (!big || !c128) {
        CHECK(0, "inputs for the cluster rules");
        return;
    }
    const struct device_info h100 = device("cuda");
    const unsigned wg[2] = {32, 1};
    CHECK(lbm_cluster_size(c128, &h100, wg, 0) == 8, "128x128 on an H100: a cluster of 8 blocks (%d)",
          lbm_cluster_size(c128, &h100, wg, 0));
    CHECK(lbm_cluster_size(small, &h100, wg, 0) == 2, "64x64 on an H100: a cluster of 2 blocks (%d)",
          lbm_cluster_size(small, &h100, wg, 0));
    CHECK(lbm_cluster_size(big, &h100, wg, 0) == 0, "1024x1024 fits no cluster");
    CHECK(lbm_cluster_size(c128, &h100, wg, 1) == 16, "128x128, cluster=most: 16 blocks (%d)",
          lbm_cluster_size(c128, &h100, wg, 1));
    const unsigned tall[2] = {32, 16};
    CHECK(lbm_cluster_size(c128, &h100, tall, 1) == 8, "128x128, cluster=most, 16-row groups: 8 blocks (%d)",
          lbm_cluster_size(c128, &h100, tall, 1));
    const char *w = why("persistent=cluster", "cuda", c128);
    CHECK(w == NULL, "persistent=cluster on 128x128, sm_90 is valid%s%s", w ? ": " : "", w ? w : "");
    w = why("persistent=cluster", "cuda", big);
    CHECK(w && strstr(w, "one cluster's shared memory"), "persistent=cluster on 1024x1024 is refused: %s",
          w ? w : "valid");
    const char *no[] = {"cuda80", "openmp", "opencl"};
    for (int i = 0; i < 3; i++) {
        w = why("persistent=cluster", no[i], small);
        CHECK(w && strstr(w, "thread-block clusters"), "persistent=cluster on %s is refused: %s", no[i],
              w ? w : "valid");
    }
    w = why("persistent=cluster,kernels=fused", "cuda", small);
    CHECK(w && strstr(w, "kernels=fused-accel"), "persistent=cluster needs kernels=fused-accel");
    lbm_input_free(big);
    lbm_input_free(c128);
}

/* halo=cluster: CUDA sm_90 only, temporal>1, lattices=two, a cluster of at
 * most 16 across the grid's width; the tile loses no columns to the halo. */
static void halo_rules(const struct app_input *in) {
    const char *t = "halo=cluster,temporal=5,tile=inner,bind=once,tree=warp";
    valid_at(t, "cuda", in, 16, 16); /* a cluster of 4 */
    refused_at("halo=cluster,bind=once", "cuda", "needs temporal>1", in, 16, 16);
    refused_at("halo=cluster,temporal=5,tile=inner,bind=once", "opencl", "thread-block clusters", in, 16, 16);
    refused_at(t, "cuda80", "sm_90", in, 16, 16);
    refused_at("halo=cluster,temporal=5,tile=inner,lattices=one,bind=once", "cuda", "lattices=two", in, 16, 16);
    /* 64 columns in 2-wide groups: a cluster of 32 blocks. */
    refused_at("halo=cluster,temporal=3,bind=once", "cuda", "16 at most", in, 2, 16);

    const struct app *lbm = app_find("lbm");
    struct knob_set k, kc;
    char err[256];
    knobs_init(&k, lbm->knobs);
    knobs_init(&kc, lbm->knobs);
    if (knobs_apply(&k, "temporal=5,tile=inner,bind=once", err, sizeof err) || knobs_apply(&kc, t, err, sizeof err)) {
        CHECK(0, "halo knobs apply: %s", err);
        return;
    }
    const unsigned wg[2] = {16, 16};
    unsigned tile[2], tile_c[2];
    lbm_temporal_tile(&k, wg, tile);
    lbm_temporal_tile(&kc, wg, tile_c);
    CHECK(tile[0] == 8 && tile[1] == 8, "tile=inner T=5 at 16x16: an 8x8 tile (%ux%u)", tile[0], tile[1]);
    CHECK(tile_c[0] == 16 && tile_c[1] == 8, "halo=cluster: a 16x8 tile, no columns lost (%ux%u)", tile_c[0],
          tile_c[1]);
    CHECK(lbm_halo_cluster(&kc, in, wg) == 4 && lbm_halo_cluster(&k, in, wg) == 1,
          "clusters of 64/16 = 4 groups with halo=cluster, none without (%u, %u)", lbm_halo_cluster(&kc, in, wg),
          lbm_halo_cluster(&k, in, wg));
    /* (16 x 18) cells twice, 9 floats each, + 5 x 32 sums, as floats; + the obstacle bytes. */
    const uint64_t want = (9 * 2 * 16 * 18 + 5 * 32) * 4 + 16 * 18;
    CHECK(lbm_temporal_local_bytes(&kc, tile_c, wg) == want, "halo=cluster local memory: %llu bytes (%llu)",
          (unsigned long long)want, (unsigned long long)lbm_temporal_local_bytes(&kc, tile_c, wg));
    const uint64_t want_c = (9 * 2 * 18 * 18 + 5 * 32) * 4 + 18 * 18;
    CHECK(lbm_temporal_local_bytes(&k, tile, wg) == want_c, "halo=compute local memory: %llu bytes (%llu)",
          (unsigned long long)want_c, (unsigned long long)lbm_temporal_local_bytes(&k, tile, wg));
}

/* The directive backends (openacc, omp-target): what a directive program
 * reads is valid there, every launch-level knob away from its default is
 * refused with a reason, and their own knobs are refused elsewhere. */
static void directive_rules(const struct app_input *in) {
    const char *dir[] = {"openacc", "omp-target"};
    for (int b = 0; b < 2; b++) {
        valid("layout=soa-3d", dir[b], in); /* final's knobs: the directive program's defaults */
        valid("layout=aos,args=buffers,kernels=split,obstacles=branch,neighbours=wrap,constants=inline,"
              "avvels=each-step,collapse=2",
              dir[b], in);
        valid("async=on", dir[b], in);
        valid("data=per-step,avvels=each-step,kernels=fused", dir[b], in);
        refused("sync=finish-each", dir[b], "means nothing to a directive program", in);
        refused("reduction=binary", dir[b], "means nothing to a directive program", in);
        refused("bind=once", dir[b], "means nothing to a directive program", in);
        refused("threads=2", dir[b], "means nothing to a directive program", in);
        refused("layout=soa,args=buffers", dir[b], "layout=aos or soa-3d", in);
        refused("layout=aos,args=buffers,kernels=partial,reduction=host-each-step", dir[b], "means nothing", in);
        refused("collapse=2", dir[b], "avvels=device keeps a sum per row", in);
        refused("async=on,avvels=each-step,collapse=2", dir[b], "async=on queues the steps", in);
        refused_at("layout=soa-3d", dir[b], "rows a gang do not divide", in, 32, 3);
        valid_at("avvels=each-step,collapse=2", dir[b], in, 64, 1);
    }
    const char *other[] = {"openmp", "opencl", "cuda"};
    for (int b = 0; b < 3; b++) {
        refused("avvels=each-step", other[b], "shapes a directive program", in);
        refused("data=per-step", other[b], "shapes a directive program", in);
        refused("collapse=2", other[b], "shapes a directive program", in);
        refused("async=on", other[b], "shapes a directive program", in);
    }
}

int main(void) {
    char err[256];
    struct app_opts o = {.input = "gen:64x64"};
    struct app_input *in = lbm_input_load(&o, err, sizeof err);
    CHECK(in != NULL, "gen:64x64 loads");
    if (!in) CHECK_DONE();
    const char *all[] = {"openmp", "opencl", "cuda"};
    for (int b = 0; b < 3; b++) {
        valid("bind=once", all[b], in);
        valid("bind=once,kernels=fused,reduction=binary", all[b], in);
        refused("bind=once,kernels=split", all[b], "kernels=fused|fused-accel", in);
        /* kernels=fused: the one form args=struct runs with (issue 34), so
         * only bind=once's own rule refuses it here. */
        refused("bind=once,layout=soa,args=struct,kernels=fused", all[b], "args other than struct", in);
        refused("layout=soa,args=struct", all[b], "for kernels=fused", in); /* default kernels=fused-accel */
        refused("launch=graph", all[b], "needs bind=once", in);
        refused("batch=8", all[b], "batch only means something with launch=graph", in);
        refused("bind=once,launch=graph,reduction=binary", all[b], "reduction=chunked|deferred", in);
        refused("persistent=grid,reduction=local", all[b], "reduction=chunked|deferred", in);
        refused("persistent=grid,kernels=fused", all[b], "kernels=fused-accel", in);
        refused("persistent=grid,bind=once", all[b], "do not apply", in);
        refused("persistent=grid,sync=finish-each", all[b], "sync=finish-each", in);
    }
    valid("bind=once,launch=graph", "cuda", in);
    valid("bind=once,launch=graph,batch=7,reduction=chunked,chunk=100", "cuda", in);
    valid("bind=once,launch=graph", "openmp", in);
    refused("bind=once,launch=graph", "opencl", "CUDA graphs", in);
    valid("persistent=grid", "cuda", in);
    valid("persistent=grid,layout=aos,args=buffers", "openmp", in);
    refused("persistent=grid", "opencl", "co-residency", in);
    /* tree and loads: CUDA spellings, the same program on OpenMP. */
    valid("tree=warp", "cuda", in);
    valid("tree=warp,bind=once,launch=graph,batch=64", "cuda", in);
    valid("tree=warp", "openmp", in);
    refused("tree=warp", "opencl", "inline PTX on NVIDIA", in);
    {
        /* NVIDIA's OpenCL: shuffles by inline PTX, whole warps only. */
        const struct app *lbm = app_find("lbm");
        struct knob_set k;
        char err[256];
        knobs_init(&k, lbm->knobs);
        knobs_apply(&k, "tree=warp", err, sizeof err);
        struct device_info nv = device("opencl");
        str_copy(nv.vendor, sizeof nv.vendor, "NVIDIA Corporation");
        device_caps(&nv); /* the vendor decides OpenCL's warp shuffles */
        const unsigned w32[2] = {32, 1}, w24[2] = {24, 1};
        char buf[ERR_MAX];
        const char *w = lbm->invalid(&k, in, &nv, w32, buf, sizeof buf);
        CHECK(w == NULL, "tree=warp on NVIDIA's OpenCL is valid%s%s", w ? ": " : "", w ? w : "");
        w = lbm->invalid(&k, in, &nv, w24, buf, sizeof buf);
        CHECK(w && strstr(w, "multiple of 32"), "tree=warp on NVIDIA's OpenCL with 24 items is refused (%s)",
              w ? w : "valid");
    }
    refused("tree=warp,reduction=local", "cuda", "reduction=binary|chunked|deferred", in);
    valid("loads=ldg", "cuda", in);
    valid("loads=ldg", "openmp", in);
    refused("loads=ldg", "opencl", "__ldg", in);
    refused("loads=ldg,persistent=grid", "cuda", "not coherent", in);
    refused("loads=ldg,kernels=split,reduction=binary", "cuda", "fused step", in);
    refused("cluster=most", "cuda", "persistent=cluster", in);
    /* fma=on: NVRTC contracts by default; the others take an option. */
    refused("fma=on", "cuda", "--fmad=true", in);
    valid("fma=on", "opencl", in);
    valid("fma=on", "openmp", in);
    /* geometry and lattices: only temporal blocking reads them. */
    refused("geometry=compiled", "cuda", "needs temporal>1", in);
    valid("geometry=compiled,temporal=4,bind=once,tree=warp", "cuda", in);
    refused("lattices=one,temporal=4,bind=once", "cuda", "so tile=inner", in);
    /* tile=inner at 12x8 with T=3: 8x4 tiles, which divide 64x64. */
    valid_at("lattices=one,tile=inner,temporal=3,bind=once", "opencl", in, 12, 8);
    refused_at("ilp=2,lattices=one,tile=inner,temporal=3,bind=once", "opencl", "ilp=1", in, 12, 8);
    refused("overlap=pdl-early,bind=once", "opencl", "programmatic dependent launch", in);
    refused("overlap=pdl-early,persistent=grid", "cuda", "no such launches", in);
    valid("overlap=pdl-early,bind=once,launch=graph,tree=warp", "cuda", in);
    refused("collide=paired,kernels=partial,layout=aos,args=buffers,reduction=host-each-step", "openmp",
            "the host collides", in);
    valid("collide=paired", "openmp", in);
    refused("sums=deferred", "cuda", "needs temporal>1", in);
    refused("sums=deferred,temporal=3,bind=once", "opencl", "local tree", in);
    valid("sums=deferred,temporal=3,bind=once,tree=warp", "cuda", in);
    refused("ilp=2", "cuda", "needs temporal>1", in);
    valid("ilp=2,temporal=3,bind=once", "opencl", in);
    /* cells, entry, unroll, sums=end, math: the temporal kernel's forms and the relaxed math. */
    refused("cells=fixed", "cuda", "needs temporal>1", in);
    refused("cells=fixed,temporal=3,bind=once", "opencl", "tile=inner and ilp=1", in);
    refused_at("cells=fixed,tile=inner,ilp=2,temporal=3,bind=once", "opencl", "tile=inner and ilp=1", in, 12, 8);
    valid_at("cells=fixed,entry=pull,tile=inner,temporal=3,bind=once", "opencl", in, 12, 8);
    refused("entry=pull,temporal=3,bind=once", "opencl", "cells=fixed", in);
    refused("entry=pull", "cuda", "needs temporal>1", in);
    refused("unroll=counted,temporal=3,bind=once", "opencl", "geometry=compiled", in);
    valid("unroll=counted,geometry=compiled,temporal=3,bind=once", "opencl", in);
    refused("sums=end,temporal=3,bind=once", "opencl", "local tree", in);
    valid("sums=end,temporal=3,bind=once,tree=warp", "cuda", in);
    refused("sums=end", "cuda", "needs temporal>1", in);
    valid("math=fast", "cuda", in);
    valid("math=fast,moments=tree", "openmp", in);
    refused("math=fast,fma=on", "opencl", "adds nothing", in);
    /* host=python: final's schedule, an OpenCL device, a Python with pyopencl
     * (none here: HARNESS_PYTHON names no program, before the first probe). */
    setenv("HARNESS_PYTHON", "/nonexistent/python3", 1);
    refused("host=python", "openmp", "OpenCL ICD loader", in);
    refused("host=python", "cuda", "OpenCL ICD loader", in);
    refused("host=python,bind=once", "opencl", "bind=once is the C host's", in);
    refused("host=python,reduction=binary", "opencl", "final's schedule only", in);
    refused("host=python,temporal=2,bind=once", "opencl", "is the C host's", in);
    refused("host=python", "opencl", "needs a Python with pyopencl and numpy (/nonexistent/python3: cannot be run", in);
    valid("host=c", "opencl", in);
    cluster_rules(in);
    halo_rules(in);
    directive_rules(in);
    lbm_input_free(in);
    CHECK_DONE();
}
