/* The CUDA kernels compile for every setting of the launch-cost knobs
 * (bind, launch, persistent, temporal) with the -D flags the schedule passes, so CUDA
 * code that does not compile fails here, on a machine without a GPU. NVRTC
 * builds a sm_90 CUBIN of kernels/lbm/lbm.cu as the CUDA backend does at run
 * time (nvrtc_tools.h); without NVRTC the checks are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "core/variants.h"
#include "lbm.h"
#include "nvrtc_tools.h"

static const char *const settings[] = {
    "", /* final, as a baseline */
    "bind=once",
    "bind=once,kernels=fused,reduction=chunked,chunk=100",
    "bind=once,launch=graph,batch=16",
    "bind=once,layout=soa,args=buffers,reduction=binary",
    "persistent=grid",
    "persistent=grid,layout=soa,args=buffers,obstacles=branch,neighbours=wrap",
    "persistent=grid,layout=aos,args=buffers,reduction=chunked,chunk=64",
    "persistent=cluster",
    "persistent=cluster,layout=soa,args=buffers,obstacles=branch,neighbours=wrap",
    "persistent=cluster,cluster=most",
    "tree=warp",
    "tree=warp,bind=once,launch=graph,batch=256,reduction=chunked,chunk=100",
    "tree=warp,reduction=binary,loads=ldg,layout=soa,args=buffers",
    "loads=ldg,obstacles=branch,layout=aos,args=buffers",
    "overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg",
    "overlap=pdl,kernels=fused,layout=soa,args=buffers",
    "temporal=2,bind=once,speed=moments",
    "speed=moments,persistent=cluster,obstacles=branch",
    "temporal=4,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg,obstacles=branch",
    "temporal=3,bind=once,layout=aos,args=buffers,reduction=chunked,chunk=100",
    "temporal=8,tile=inner,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg,speed=moments",
    "temporal=4,geometry=compiled,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg,speed=moments",
    "temporal=5,tile=inner,geometry=compiled,bind=once,layout=soa,args=buffers,reduction=chunked,chunk=100",
    "temporal=3,tile=inner,lattices=one,geometry=compiled,tree=warp,bind=once,speed=moments",
    "temporal=4,tile=inner,lattices=one,bind=once,obstacles=branch",
    "temporal=5,ilp=2,geometry=compiled,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg,speed=moments,"
    "obstacles=branch",
    "temporal=3,ilp=2,bind=once,layout=aos,args=buffers",
    "temporal=5,tile=inner,geometry=compiled,overlap=pdl-early,tree=warp,bind=once,launch=graph,batch=256,loads=ldg",
    "overlap=pdl-early,tree=warp,bind=once,launch=graph,batch=256,loads=ldg,obstacles=branch",
    "temporal=5,tile=inner,geometry=compiled,sums=deferred,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,"
    "loads=ldg",
    "temporal=3,sums=deferred,tree=warp,bind=once,reduction=chunked,chunk=100",
    "collide=paired,temporal=5,tile=inner,geometry=compiled,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,"
    "loads=ldg",
    "collide=paired,constants=inline,kernels=split,layout=soa,args=buffers",
    "halo=cluster,temporal=5,tile=inner,geometry=compiled,collide=paired,sums=deferred,overlap=pdl,tree=warp,bind=once,"
    "launch=graph,batch=256,loads=ldg",
    "halo=cluster,temporal=3,ilp=2,bind=once,layout=soa,args=buffers,reduction=chunked,chunk=100",
    "cells=fixed,moments=tree,temporal=5,tile=inner,geometry=compiled,collide=paired,sums=deferred,overlap=pdl,tree="
    "warp,bind=once,launch=graph,batch=256,loads=ldg",
    "cells=fixed,halo=cluster,temporal=4,tile=inner,lattices=two,bind=once,speed=moments",
    "cells=fixed,temporal=3,tile=inner,lattices=one,geometry=compiled,bind=once",
    "moments=tree,kernels=split,layout=soa,args=buffers",
    "entry=pull,cells=fixed,moments=tree,obstacles=mask,temporal=5,tile=inner,geometry=compiled,collide=paired,sums="
    "deferred,overlap=pdl,tree=warp,bind=once,launch=graph,batch=256,loads=ldg",
    "entry=pull,cells=fixed,halo=cluster,temporal=3,tile=inner,bind=once,layout=soa,args=buffers",
    "sums=end,entry=pull,cells=fixed,temporal=5,tile=inner,geometry=compiled,overlap=pdl,tree=warp,bind=once,launch="
    "graph,batch=256,loads=ldg",
    "sums=end,temporal=4,tree=warp,bind=once,reduction=chunked,chunk=100",
    "unroll=counted,temporal=5,tile=inner,geometry=compiled,cells=fixed,entry=pull,sums=end,overlap=pdl,tree=warp,bind="
    "once,launch=graph,batch=256",
};
enum { NSET = sizeof settings / sizeof settings[0] };

/* lbm_build_options: the -D flags and options schedule.c's build passes,
 * which kernel_code.sh and the winners below compile with. */
static void test_build_options(const struct app *lbm) {
    struct variant_list vars = {0};
    char err[256];
    if (variants_load("variants/lbm.variants", lbm->knobs, &vars, err, sizeof err) != 0) {
        CHECK(0, "variants/lbm.variants loads: %s", err);
        return;
    }
    const struct variant *fast = variant_find(&vars, "g15-fast"), *ocl = variant_find(&vars, "g17-counted-ocl");
    const size_t wg[2] = {24, 16};
    struct strbuf o = {0};
    if (fast) lbm_build_options(&fast->knobs, &backend_cuda, wg, &o);
    CHECK(o.s && strstr(o.s, " -DK_TEMPORAL=3 ") && strstr(o.s, " -DK_GEOMETRY_COMPILED=1 ") &&
              strstr(o.s, " --use_fast_math") && strstr(o.s, " -DK_WG_X=24 -DK_WG_Y=16") && !strstr(o.s, "-cl-"),
          "build options, g15-fast on CUDA: its knobs, fast math, the work-group's shape");
    sb_free(&o);
    o = (struct strbuf){0};
    if (ocl) lbm_build_options(&ocl->knobs, &backend_opencl, wg, &o);
    CHECK(o.s && strstr(o.s, " -DK_UNROLL_COUNTED=1 ") && strstr(o.s, " -cl-mad-enable") &&
              !strstr(o.s, "fast-relaxed") && strstr(o.s, " -DK_WG_X=24"),
          "build options, g17-counted-ocl on OpenCL: fma=on's option, no fast math");
    sb_free(&o);
    o = (struct strbuf){0};
    struct knob_set k;
    knobs_init(&k, lbm->knobs);
    lbm_build_options(&k, &backend_cuda, wg, &o);
    CHECK(o.s && strstr(o.s, " -DK_GEOMETRY_RUNTIME=1 ") && !strstr(o.s, "K_WG_") && !strstr(o.s, "--use_fast_math"),
          "build options, final: no work-group shape, no fast math");
    sb_free(&o);
    variants_free(&vars);
}

/* Builds lbm.cu with `options`; one check that it compiled (named `what`),
 * and one per symbol in `syms` (NULL-terminated) that the CUBIN holds it. */
static void build(const struct nvrtc *rtc, const char *options, const char *what, const char *const *syms) {
    char *bin = NULL, log[4096];
    size_t len = 0;
    const int rc = nvrtc_cubin(rtc, "kernels/lbm/lbm.cu", options, &bin, &len, log, sizeof log);
    CHECK(rc == 0, "nvrtc -arch=sm_90 lbm.cu %s%s%.300s", what, rc ? ":\n# " : "", rc ? log : "");
    for (int i = 0; rc == 0 && syms && syms[i]; i++)
        CHECK(mem_has(bin, len, syms[i]), "%s: the CUBIN has %s", what, syms[i]);
    free(bin);
}

int main(void) {
    struct nvrtc rtc;
    const struct app *lbm = app_find("lbm");
    if (lbm) test_build_options(lbm);
    if (!nvrtc_open(&rtc)) {
        printf("ok - # skip: no NVRTC under $CUDA_HOME/lib64 or /usr/local/cuda/lib64\n");
        CHECK_DONE();
    }
    if (!lbm) {
        printf("not ok - lbm app\n");
        return 1;
    }
    for (int i = 0; i < NSET; i++) {
        const char *s = settings[i];
        struct knob_set k;
        char err[256], what[600];
        knobs_init(&k, lbm->knobs);
        if (knobs_apply(&k, s, err, sizeof err)) {
            CHECK(0, "knobs '%s': %s", s, err);
            continue;
        }
        struct strbuf opts = {0};
        sb_printf(&opts, "-Ikernels/lbm");
        knobs_defines(&k, &opts);
        /* As schedule.c's build does for geometry=compiled. */
        if (knob_is(&k, "geometry", "compiled")) sb_printf(&opts, " -DK_WG_X=32 -DK_WG_Y=16");
        snprintf(what, sizeof what, "with '%s'", *s ? s : "(final)");
        const char *syms[4] = {NULL};
        int n = 0;
        if (strstr(s, "persistent=grid")) syms[n++] = "fused_persistent";
        if (strstr(s, "persistent=cluster")) syms[n++] = "fused_cluster";
        if (strstr(s, "temporal=")) syms[n++] = "fused_temporal";
        build(&rtc, opts.s, what, syms);
        sb_free(&opts);
    }
    /* The published winners by name, as variants/lbm.variants spells them
     * today, with the options the build passes (the backend's fast-math
     * option where math=fast asks for it). */
    struct variant_list vars = {0};
    char verr[256];
    CHECK(variants_load("variants/lbm.variants", lbm->knobs, &vars, verr, sizeof verr) == 0,
          "variants/lbm.variants loads%s%s", vars.n ? "" : ": ", vars.n ? "" : verr);
    const char *const winners[] = {"g15-fast", "g16-pull", "g17-counted-ocl", "g18-deep"};
    for (size_t w = 0; w < sizeof winners / sizeof winners[0]; w++) {
        const struct variant *v = variant_find(&vars, winners[w]);
        CHECK(v != NULL, "variant %s is defined", winners[w]);
        if (!v) continue;
        struct strbuf opts = {0};
        char what[128];
        sb_printf(&opts, "-Ikernels/lbm");
        const size_t wg[2] = {32, 16};
        lbm_build_options(&v->knobs, &backend_cuda, wg, &opts);
        snprintf(what, sizeof what, "for the published %s", winners[w]);
        build(&rtc, opts.s, what, NULL);
        sb_free(&opts);
    }
    variants_free(&vars);
    CHECK_DONE();
}
