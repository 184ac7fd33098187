/* kernels/dg/dg.cu compiles with NVRTC, as the CUDA backend builds it at
 * run time (nvrtc_tools.h), on a machine without a GPU, for settings that
 * between them take every value of every knob dg.cu reads (kernels, regs,
 * divide, unroll; align changes only the host's pitch), and each CUBIN
 * holds the kernels its form's schedule looks up (dg_cell.h's DG_FORM_*:
 * a build compiles its own form only); the tiled kernel's registers
 * against the fused and merged ones'. Skipped where NVRTC cannot be
 * loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/compiler_knobs.h"
#include "core/knobs.h"
#include "nvrtc_tools.h"

/* Each form's kernels (schedule.c looks up these and only these), then
 * the gradients' and the time step's, which every form has. */
static const char *const SPLIT[] = {"dg_conv_x", "dg_conv_y", "dg_conv_int", "dg_visc_x", "dg_visc_y",
                                    "dg_visc_int", "dg_rk", NULL};
static const char *const MERGED[] = {"dg_flux_x", "dg_flux_y", "dg_int_rk", NULL};
static const char *const FUSED[] = {"dg_fused", NULL};
static const char *const TILED[] = {"dg_tiled", NULL};
static const char *const EVERY[] = {"dg_grad", "dg_rates", "dg_fold", "dg_step", NULL};

static int holds(const char *bin, size_t n, const char *const *names) {
    for (; *names; names++)
        if (!mem_has(bin, n, *names)) return 0;
    return 1;
}

/* knobs (a knob list) applied to DG's knobs and written after `first` as
 * the program's defines into opts; 0, or -1 with err set. */
static int dg_defines(const struct app *dg, const char *knobs, const char *first, struct knob_set *k,
                      struct strbuf *opts, char *err, size_t n) {
    knobs_init(k, dg->knobs);
    if (knobs_apply(k, knobs, err, n)) return -1;
    sb_printf(opts, "%s", first);
    knobs_defines(k, opts);
    return 0;
}

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
                              "kernels=fused,regs=on,divide=inverse,unroll=keep",
                              "kernels=tiled,regs=on,divide=inverse,unroll=keep"};
    static const char *const *const OWN[] = {SPLIT, MERGED, FUSED, TILED};
    char err[256];
    int regs[2] = {-1, -1}; /* the fused kernel's registers: uncapped (below), with regcap=96 */
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        struct knob_set k;
        struct strbuf opts = {0};
        if (dg_defines(dg, settings[s], "", &k, &opts, err, sizeof err)) {
            CHECK(0, "knobs %s: %s", settings[s], err);
            continue;
        }
        char *bin = NULL, msg[2048];
        size_t n = 0;
        const int rc = nvrtc_cubin(&rtc, "kernels/dg/dg.cu", opts.s, &bin, &n, msg, sizeof msg);
        CHECK(rc == 0, "nvrtc dg.cu -arch=sm_90 with %s%s%.600s", settings[s], rc ? ":\n# " : "", msg);
        if (!rc) {
            const char *const *own = OWN[s];
            if (own == FUSED) regs[0] = cubin_max_registers(bin, n);
            const char *foreign = NULL;
            for (size_t o = 0; o < sizeof OWN / sizeof OWN[0]; o++)
                if (o != s && mem_has(bin, n, OWN[o][0])) foreign = OWN[o][0];
            CHECK(holds(bin, n, own) && holds(bin, n, EVERY) && !foreign,
                  "%s: the CUBIN holds its form's kernels and the shared ones, not another form's (%s)", settings[s],
                  foreign ? foreign : "none");
        }
        free(bin);
        sb_free(&opts);
    }
    /* regcap (the register cap knob) reaches NVRTC: the fused kernel, the
     * hungriest (over 200 registers at sm_90), built with the option the
     * build appends (core/compiler_knobs.h: regcap_option) stays at or
     * under the cap; uncapped (the fused setting above) it is over it. */
    for (int capped = 0; capped < 2; capped++) {
        struct knob_set k;
        struct strbuf opts = {0};
        if (dg_defines(dg, capped ? "kernels=fused,regcap=96" : "kernels=fused", "", &k, &opts, err, sizeof err)) {
            CHECK(0, "regcap: %s", err);
            break;
        }
        regcap_option(&k, &backend_cuda, &opts);
        CHECK(capped == !!strstr(opts.s, "--maxrregcount=96"), "regcap=%s: the build's options %s the cap (%s)",
              capped ? "96" : "none", capped ? "carry" : "do not carry", opts.s);
        char *bin = NULL, msg[2048];
        size_t n = 0;
        if (capped) { /* uncapped, it was compiled above */
            if (nvrtc_cubin(&rtc, "kernels/dg/dg.cu", opts.s, &bin, &n, msg, sizeof msg) == 0)
                regs[1] = cubin_max_registers(bin, n);
            else CHECK(0, "nvrtc dg.cu kernels=fused,regcap=96:\n# %.600s", msg);
        }
        free(bin);
        sb_free(&opts);
    }
    CHECK(regs[0] > 96 && regs[1] > 0 && regs[1] <= 96,
          "kernels=fused: %d registers a thread at most uncapped, %d with regcap=96 (wanted over 96, then at most 96)",
          regs[0], regs[1]);

    /* kernels=tiled (o7-tiled's settings, as the fused ones above): its
     * kernel needs far fewer registers than the fused one, and no local
     * memory. Measured here (NVRTC 13, sm_90): dg_tiled 126 registers, no
     * spill, no stack; dg_fused 255 with 292 bytes spilled (296 of stack);
     * merged's dg_flux_x / dg_flux_y / dg_int_rk 196 / 212 / 165. Each
     * kernel's count is its EIATTR_REGCOUNT; the spills are ptxas's
     * report (-v), printed. */
    static const struct {
        const char *knobs, *kernels[3];
    } forms[] = {{"kernels=tiled", {"dg_tiled", NULL}},
                 {"kernels=fused", {"dg_fused", NULL}},
                 {"kernels=merged", {"dg_flux_x", "dg_flux_y", "dg_int_rk"}}};
    int tiled = -1, fused = -1;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        struct knob_set k;
        struct strbuf opts = {0};
        if (dg_defines(dg, forms[f].knobs, "--ptxas-options=-v", &k, &opts, err, sizeof err)) {
            CHECK(0, "%s: %s", forms[f].knobs, err);
            continue;
        }
        char *bin = NULL, msg[8192];
        size_t n = 0;
        if (nvrtc_cubin(&rtc, "kernels/dg/dg.cu", opts.s, &bin, &n, msg, sizeof msg) != 0) {
            CHECK(0, "nvrtc dg.cu %s:\n# %.600s", forms[f].knobs, msg);
        } else {
            for (int w = 0; w < 3 && forms[f].kernels[w]; w++) {
                const char *name = forms[f].kernels[w];
                const int r = cubin_kernel_registers(bin, n, name);
                /* ptxas -v: "Function properties for NAME" then "N bytes stack frame, N bytes spill
                 * stores, N bytes spill loads" */
                const char *at = strstr(msg, name), *frame = at ? strstr(at, " bytes stack frame") : NULL;
                const char *from = frame, *end = frame ? strchr(frame, '\n') : NULL;
                while (from && from > msg && from[-1] >= '0' && from[-1] <= '9') from--;
                const int len = from && end ? (int)(end - from) : 0;
                printf("# %s: %s %d registers%s%.*s\n", forms[f].knobs, name, r, len ? ", " : "", len, len ? from : "");
                if (!strcmp(name, "dg_fused")) fused = r;
                if (!strcmp(name, "dg_tiled")) {
                    tiled = r;
                    CHECK(!len || !strncmp(from, "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads", 62),
                          "kernels=tiled: dg_tiled neither spills nor keeps a stack (%.*s)", len ? len : 9,
                          len ? from : "no report");
                }
            }
        }
        free(bin);
        sb_free(&opts);
    }
    CHECK(tiled > 0 && tiled <= 200 && tiled < fused,
          "kernels=tiled: dg_tiled %d registers a thread (wanted at most 200, and fewer than dg_fused's %d)", tiled,
          fused);
    CHECK_DONE();
}
