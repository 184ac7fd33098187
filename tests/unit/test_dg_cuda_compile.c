/* kernels/dg/dg.cu compiles with NVRTC, as the CUDA backend builds it at
 * run time (nvrtc_tools.h), on a machine without a GPU, for settings that
 * between them take every value of every knob dg.cu reads (kernels, regs,
 * divide, unroll; align changes only the host's pitch), and each CUBIN
 * holds all 15 kernels the schedule looks up. Skipped where NVRTC cannot be
 * loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "nvrtc_tools.h"

static const char *const KERNELS[] = {"dg_conv_x", "dg_conv_y", "dg_conv_int", "dg_grad",   "dg_visc_x",
                                      "dg_visc_y", "dg_visc_int", "dg_rk",     "dg_flux_x", "dg_flux_y",
                                      "dg_int_rk", "dg_fused",    "dg_rates",  "dg_fold",   "dg_step"};

int main(void) {
    const struct app *dg = app_find("dg");
    CHECK(dg != NULL, "the dg app is registered");
    struct nvrtc rtc;
    if (!dg || !nvrtc_open(&rtc)) {
        printf("ok - # skip: no NVRTC under $CUDA_HOME/lib64 or /usr/local/cuda/lib64\n");
        CHECK_DONE();
    }
    const char *settings[] = {"kernels=split,regs=off,divide=plain,unroll=keep",
                              "kernels=merged,regs=on,divide=inverse,unroll=none",
                              "kernels=fused,regs=on,divide=inverse,unroll=keep"};
    char err[256];
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        struct knob_set k;
        knobs_init(&k, dg->knobs);
        if (knobs_apply(&k, settings[s], err, sizeof err)) {
            CHECK(0, "knobs %s: %s", settings[s], err);
            continue;
        }
        struct strbuf opts = {0};
        sb_printf(&opts, "%s", "");
        knobs_defines(&k, &opts);
        char *bin = NULL, msg[2048];
        size_t n = 0;
        const int rc = nvrtc_cubin(&rtc, "kernels/dg/dg.cu", opts.s, &bin, &n, msg, sizeof msg);
        CHECK(rc == 0, "nvrtc dg.cu -arch=sm_90 with %s%s%.600s", settings[s], rc ? ":\n# " : "", msg);
        if (!rc) {
            int all = 1;
            for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++) all &= mem_has(bin, n, KERNELS[i]);
            CHECK(all, "%s: the CUBIN holds all 15 kernels", settings[s]);
        }
        free(bin);
        sb_free(&opts);
    }
    CHECK_DONE();
}
