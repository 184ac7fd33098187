/* kernels/matvec/matvec.cu compiles with NVRTC, as the CUDA backend builds it
 * at run time (nvrtc_tools.h: -arch=sm_90 --std=c++17 -I<kernels/matvec>,
 * then the knobs' -D flags), for every setting of the knobs (48, and
 * load=stream with the paired form: 60), on a machine without a GPU: NVRTC
 * needs no device. The three kernels must be in each CUBIN. Skipped where
 * NVRTC cannot be loaded (tests/sanitize.sh runs the unit tests so: the
 * compiles are the plain run's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "nvrtc_tools.h"

int main(void) {
    const struct app *mv = app_find("matvec");
    CHECK(mv != NULL, "the matvec app is registered");
    struct nvrtc rtc;
    if (!mv || !nvrtc_open(&rtc)) {
        printf("ok - # skip: no NVRTC under $CUDA_HOME/lib64 or /usr/local/cuda/lib64\n");
        CHECK_DONE();
    }
    /* Relative to the repository root, where the suite runs. */
    const char *src_path = "kernels/matvec/matvec.cu";
    const char *forms[] = {"temp", "scalar", "collapsed", "paired"}, *updates[] = {"plain", "atomic"},
               *colours[] = {"launches", "masked", "none"};
    const char *matrices[] = {"df-fastest", "k-fastest"}, *loads[] = {"plain", "stream"};
    char err[256];
    for (int f = 0; f < 4; f++)
        for (int u = 0; u < 2; u++)
            for (int c = 0; c < 3; c++)
                for (int mx = 0; mx < 2; mx++)
                    for (int ld = 0; ld < 2; ld++) {
                        /* load=stream changes only the paired form's matrix load */
                        if (ld == 1 && strcmp(forms[f], "paired") != 0) continue;
                        char setting[160];
                        snprintf(setting, sizeof setting, "form=%s,update=%s,colours=%s,matrix=%s,load=%s", forms[f],
                                 updates[u], colours[c], matrices[mx], loads[ld]);
                        struct knob_set k;
                        knobs_init(&k, mv->knobs);
                        if (knobs_apply(&k, setting, err, sizeof err)) {
                            CHECK(0, "knobs %s: %s", setting, err);
                            continue;
                        }
                        struct strbuf opts = {0};
                        sb_printf(&opts, "%s", "");
                        knobs_defines(&k, &opts);
                        char *bin = NULL, msg[2048];
                        size_t n = 0;
                        const int rc = nvrtc_cubin(&rtc, src_path, opts.s, &bin, &n, msg, sizeof msg);
                        CHECK(rc == 0, "nvrtc matvec.cu -arch=sm_90 with %s%s%.600s", setting, rc ? ":\n# " : "", msg);
                        if (!rc)
                            CHECK(mem_has(bin, n, "matvec_colour") && mem_has(bin, n, "matvec_masked") &&
                                      mem_has(bin, n, "matvec_all"),
                                  "%s: the CUBIN holds matvec_colour, matvec_masked and matvec_all", setting);
                        free(bin);
                        sb_free(&opts);
                    }
    CHECK_DONE();
}
