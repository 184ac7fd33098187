/* The CUDA kernels compile for every setting of the launch-cost knobs
 * (bind, launch, persistent, temporal) with the -D flags the schedule passes, so CUDA
 * code that does not compile fails here, on a machine without a GPU. nvcc
 * builds a sm_90 CUBIN of kernels/lbm/lbm.cu (as NVRTC does at run time);
 * without nvcc the checks are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "check.h"
#include "knobs.h"
#include "lbm.h"
#include "nvcc_tools.h"
#include "util.h"
#include "variants.h"

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

int main(void) {
    char nvcc[512];
    const struct app *lbm = app_find("lbm");
    if (lbm) test_build_options(lbm);
    if (!find_nvcc(nvcc, sizeof nvcc)) {
        printf("ok - # skip: no nvcc under $CUDA_HOME or /usr/local/cuda\n");
        CHECK_DONE();
    }
    char dir[] = "/tmp/test_lbm_cuda.XXXXXX";
    if (!lbm || !mkdtemp(dir)) {
        printf("not ok - lbm app and a temporary folder\n");
        return 1;
    }
    /* Two compilers at a time: the suite runs on two cores. */
    for (int first = 0; first < NSET; first += 2) {
        FILE *p[2] = {NULL, NULL};
        char out[2][600];
        for (int j = 0; j < 2 && first + j < NSET; j++) {
            struct knob_set k;
            char err[256];
            knobs_init(&k, lbm->knobs);
            if (knobs_apply(&k, settings[first + j], err, sizeof err)) {
                CHECK(0, "knobs '%s': %s", settings[first + j], err);
                continue;
            }
            struct strbuf cmd = {0};
            snprintf(out[j], sizeof out[j], "%s/k%d.cubin", dir, first + j);
            sb_printf(&cmd, "'%s' -cubin -arch=sm_90 -std=c++17 -Ikernels/lbm", nvcc);
            knobs_defines(&k, &cmd);
            /* As schedule.c's build does for geometry=compiled. */
            if (knob_is(&k, "geometry", "compiled")) sb_printf(&cmd, " -DK_WG_X=32 -DK_WG_Y=16");
            sb_printf(&cmd, " -o '%s' kernels/lbm/lbm.cu 2>&1", out[j]);
            p[j] = popen(cmd.s, "r");
            sb_free(&cmd);
        }
        for (int j = 0; j < 2; j++) {
            if (!p[j]) continue;
            char log[4096];
            size_t got = fread(log, 1, sizeof log - 1, p[j]);
            log[got] = '\0';
            int rc = pclose(p[j]);
            const char *s = settings[first + j];
            CHECK(rc == 0, "nvcc -arch=sm_90 lbm.cu with '%s'%s%.300s", *s ? s : "(final)", rc ? ":\n# " : "",
                  rc ? log : "");
            if (rc == 0 && strstr(s, "persistent=grid"))
                CHECK(file_has(out[j], "fused_persistent"), "'%s': the CUBIN has fused_persistent", s);
            if (rc == 0 && strstr(s, "persistent=cluster"))
                CHECK(file_has(out[j], "fused_cluster"), "'%s': the CUBIN has fused_cluster", s);
            if (rc == 0 && strstr(s, "temporal="))
                CHECK(file_has(out[j], "fused_temporal"), "'%s': the CUBIN has fused_temporal", s);
            unlink(out[j]);
        }
    }
    /* The published winners by name, as variants/lbm.variants spells them
     * today, with the options the build passes (the backend's fast-math
     * option where math=fast asks for it). */
    struct variant_list vars = {0};
    char verr[256];
    CHECK(variants_load("variants/lbm.variants", lbm->knobs, &vars, verr, sizeof verr) == 0,
          "variants/lbm.variants loads%s%s", vars.n ? "" : ": ", vars.n ? "" : verr);
    const char *const winners[] = {"g15-fast", "g16-pull", "g17-counted-ocl"};
    for (size_t w = 0; w < sizeof winners / sizeof winners[0]; w++) {
        const struct variant *v = variant_find(&vars, winners[w]);
        CHECK(v != NULL, "variant %s is defined", winners[w]);
        if (!v) continue;
        struct strbuf cmd = {0};
        char out[600];
        snprintf(out, sizeof out, "%s/%s.cubin", dir, winners[w]);
        sb_printf(&cmd, "'%s' -cubin -arch=sm_90 -std=c++17 -Ikernels/lbm", nvcc);
        const size_t wg[2] = {32, 16};
        lbm_build_options(&v->knobs, &backend_cuda, wg, &cmd);
        sb_printf(&cmd, " -o '%s' kernels/lbm/lbm.cu 2>&1", out);
        FILE *p = popen(cmd.s, "r");
        char log[4096] = "";
        size_t got = p ? fread(log, 1, sizeof log - 1, p) : 0;
        log[got] = '\0';
        int rc = p ? pclose(p) : -1;
        CHECK(rc == 0, "nvcc -arch=sm_90 lbm.cu for the published %s%s%.300s", winners[w], rc ? ":\n# " : "",
              rc ? log : "");
        sb_free(&cmd);
        unlink(out);
    }
    variants_free(&vars);
    rmdir(dir);
    CHECK_DONE();
}
