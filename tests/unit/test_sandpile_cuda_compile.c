/* The sandpile's CUDA kernels compile for every variant a GPU runs, with the
 * knob -D flags schedule.c's build passes, so CUDA code that does not
 * compile fails here, on a machine without a GPU. NVRTC builds an sm_90
 * CUBIN of kernels/sandpile/sandpile.cu as the CUDA backend does at run time
 * (nvrtc_tools.h); each distinct set of defines once. Without NVRTC the
 * checks are skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "core/variants.h"
#include "nvrtc_tools.h"

int main(void) {
    const struct app *sp = app_find("sandpile");
    struct variant_list vars = {0};
    char err[256];
    struct nvrtc rtc;
    CHECK(sp && variants_load("variants/sandpile.variants", sp->knobs, &vars, err, sizeof err) == 0,
          "variants/sandpile.variants loads%s%s", vars.n ? "" : ": ", vars.n ? "" : err);
    if (!nvrtc_open(&rtc)) {
        printf("ok - # skip: no NVRTC under $CUDA_HOME/lib64 or /usr/local/cuda/lib64\n");
        variants_free(&vars);
        CHECK_DONE();
    }
    if (!sp) {
        printf("not ok - sandpile app\n");
        return 1;
    }
    char done[32][512];
    int ndone = 0;
    for (int i = 0; i < vars.n; i++) {
        const struct variant *v = &vars.v[i];
        if (knob_is(&v->knobs, "rule", "async")) continue; /* the CPU only (app.c refuses it on a GPU) */
        struct strbuf defs = {0};
        knobs_defines(&v->knobs, &defs);
        int seen = 0;
        for (int j = 0; j < ndone; j++) seen |= !strcmp(done[j], defs.s ? defs.s : "");
        if (!seen && ndone < 32) str_copy(done[ndone++], sizeof done[0], defs.s ? defs.s : "");
        if (seen) {
            sb_free(&defs);
            continue;
        }
        char flags[1024], log[4096], *bin = NULL;
        size_t len = 0;
        snprintf(flags, sizeof flags, "-Ikernels/sandpile %s", defs.s ? defs.s : "");
        const int rc = nvrtc_cubin(&rtc, "kernels/sandpile/sandpile.cu", flags, &bin, &len, log, sizeof log);
        CHECK(rc == 0, "nvrtc -arch=sm_90 sandpile.cu for %s (%s)%s%.300s", v->name, defs.s ? defs.s : "",
              rc ? ":\n# " : "", rc ? log : "");
        const char *kernel = knob_is(&v->knobs, "launch", "resident") ? "topple_resident"
                             : knob_int(&v->knobs, "cells") > 1       ? "topple_strip"
                             : knob_int(&v->knobs, "steps") > 1       ? "topple_tiled"
                                                                      : "topple";
        if (rc == 0) CHECK(mem_has(bin, len, kernel), "%s: the CUBIN has %s", v->name, kernel);
        free(bin);
        sb_free(&defs);
    }
    /* topple_strip's other paths, which no variant takes: one copy of the
     * tile, a vote per cell or per item, R = 8 and 16, no flags. */
    static const char *const strip[] = {"tile=single,vote=cell", "vote=item,cells=8", "cells=16,steps=6",
                                        "detect=none,every=1"};
    const struct variant *base = NULL;
    for (int i = 0; i < vars.n; i++)
        if (!strcmp(vars.v[i].name, "blocked-4-strip")) base = &vars.v[i];
    CHECK(base != NULL, "variants/sandpile.variants has blocked-4-strip");
    for (size_t i = 0; base && i < sizeof strip / sizeof strip[0]; i++) {
        struct knob_set k = base->knobs;
        struct strbuf defs = {0};
        char flags[1024], log[4096], *bin = NULL;
        size_t len = 0;
        const int bad = knobs_apply(&k, strip[i], err, sizeof err);
        CHECK(!bad, "blocked-4-strip with %s: the knobs apply%s%s", strip[i], bad ? ": " : "", bad ? err : "");
        knobs_defines(&k, &defs);
        snprintf(flags, sizeof flags, "-Ikernels/sandpile %s", defs.s ? defs.s : "");
        const int rc = nvrtc_cubin(&rtc, "kernels/sandpile/sandpile.cu", flags, &bin, &len, log, sizeof log);
        CHECK(rc == 0 && mem_has(bin, len, "topple_strip"),
              "nvrtc -arch=sm_90: blocked-4-strip with %s has topple_strip%s%.300s", strip[i], rc ? ":\n# " : "",
              rc ? log : "");
        free(bin);
        sb_free(&defs);
    }
    variants_free(&vars);
    CHECK_DONE();
}
