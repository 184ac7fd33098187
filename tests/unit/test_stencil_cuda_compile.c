/* The stencil's CUDA kernels compile for every named variant, with the
 * knob -D flags schedule.c's build passes (and the GPU script's knob
 * settings: steps 2 and 8, rows 16), so CUDA code that does not compile
 * fails here, on a machine without a GPU. NVRTC builds an sm_90 CUBIN of
 * kernels/stencil/stencil.cu as the CUDA backend does at run time
 * (nvrtc_tools.h) with --fmad=false as the backend's no-contract option;
 * each distinct set of defines once; the kernel the variant launches must be
 * in it, with no spills (ptxas's warnings, asked for: a column of rows in
 * registers must stay in registers). Without NVRTC the checks are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "core/variants.h"
#include "nvrtc_tools.h"

int main(void) {
    const struct app *sp = app_find("stencil");
    struct variant_list vars = {0};
    char err[256];
    struct nvrtc rtc;
    CHECK(sp && variants_load("variants/stencil.variants", sp->knobs, &vars, err, sizeof err) == 0,
          "variants/stencil.variants loads%s%s", vars.n ? "" : ": ", vars.n ? "" : err);
    if (!nvrtc_open(&rtc)) {
        printf("ok - # skip: no NVRTC under $CUDA_HOME/lib64 or /usr/local/cuda/lib64\n");
        variants_free(&vars);
        CHECK_DONE();
    }
    char dir[] = "/tmp/test_stencil_cuda.XXXXXX";
    if (!sp || !mkdtemp(dir)) {
        printf("not ok - stencil app and a temporary folder\n");
        return 1;
    }
    /* The GPU script's settings beyond the named variants. */
    char extra_path[600];
    snprintf(extra_path, sizeof extra_path, "%s/extra.variants", dir);
    FILE *ef = fopen(extra_path, "w");
    if (ef) {
        fputs("rows16: range=atomic reduce=warp rows=16 check=8\n"
              "steps2: range=atomic reduce=warp rows=8 steps=2 check=8\n"
              "steps8: range=atomic reduce=warp rows=2 steps=8 check=8\n"
              "tree-steps3: range=atomic rows=1 steps=3\n",
              ef);
        fclose(ef);
    }
    struct variant_list extra = {0};
    CHECK(variants_load(extra_path, sp->knobs, &extra, err, sizeof err) == 0, "the extra knob settings load%s%s",
          extra.n ? "" : ": ", extra.n ? "" : err);
    unlink(extra_path);
    char done[48][512];
    int ndone = 0;
    for (int i = 0; i < vars.n + extra.n; i++) {
        const struct variant *v = i < vars.n ? &vars.v[i] : &extra.v[i - vars.n];
        struct strbuf defs = {0};
        knobs_defines(&v->knobs, &defs);
        int seen = 0;
        for (int j = 0; j < ndone; j++) seen |= !strcmp(done[j], defs.s ? defs.s : "");
        if (!seen && ndone < 48) str_copy(done[ndone++], sizeof done[0], defs.s ? defs.s : "");
        if (seen) {
            sb_free(&defs);
            continue;
        }
        char flags[1024], log[4096], *bin = NULL;
        size_t len = 0;
        snprintf(flags, sizeof flags, "--fmad=false -Xptxas=-warn-spills -Xptxas=-warn-lmem-usage -Ikernels/stencil %s",
                 defs.s ? defs.s : "");
        const int rc = nvrtc_cubin(&rtc, "kernels/stencil/stencil.cu", flags, &bin, &len, log, sizeof log);
        CHECK(rc == 0, "nvrtc -arch=sm_90 stencil.cu for %s (%s)%s%.300s", v->name, defs.s ? defs.s : "",
              rc ? ":\n# " : "", rc ? log : "");
        CHECK(rc != 0 || !strstr(log, "warning"), "%s: no spills or local memory: %.300s", v->name, log);
        /* The kernel the range mode launches, the one each program holds (stencil_gpu.h). */
        const char *kernel = knob_is(&v->knobs, "range", "fused")    ? "update_range"
                             : !knob_is(&v->knobs, "range", "atomic") ? "update"
                             : knob_int(&v->knobs, "steps") > 1       ? "update_blocked"
                                                                      : "update_atomic";
        if (rc == 0) CHECK(mem_has(bin, len, kernel), "%s: the CUBIN has %s", v->name, kernel);
        free(bin);
        sb_free(&defs);
    }
    rmdir(dir);
    variants_free(&vars);
    variants_free(&extra);
    CHECK_DONE();
}
