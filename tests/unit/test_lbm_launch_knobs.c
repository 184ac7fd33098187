/* The launch-cost knobs' validity rules (bind, launch, batch, persistent):
 * what each backend may run, and every refusal gives its reason. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lbm.h"
#include "util.h"

static struct device_info device(const char *backend) {
    struct device_info d;
    memset(&d, 0, sizeof d);
    str_copy(d.backend, sizeof d.backend, backend);
    d.max_wg = 1024;
    d.max_item[0] = d.max_item[1] = 1024;
    d.local_mem = 48 * 1024;
    d.global_mem = d.max_alloc = (uint64_t)16 << 30;
    return d;
}

/* NULL when valid, else the reason. */
static const char *why(const char *knobs, const char *backend, const struct app_input *in) {
    const struct app *lbm = app_find("lbm");
    struct knob_set k;
    char err[256];
    knobs_init(&k, lbm->knobs);
    if (knobs_apply(&k, knobs, err, sizeof err)) return "knobs did not apply";
    const struct device_info d = device(backend);
    const unsigned wg[2] = {32, 1};
    return lbm->invalid(&k, in, &d, wg);
}

static void valid(const char *knobs, const char *backend, const struct app_input *in) {
    const char *w = why(knobs, backend, in);
    CHECK(w == NULL, "%s on %s is valid%s%s", knobs, backend, w ? ": " : "", w ? w : "");
}

static void refused(const char *knobs, const char *backend, const char *reason, const struct app_input *in) {
    const char *w = why(knobs, backend, in);
    CHECK(w && strstr(w, reason), "%s on %s is refused, saying '%s' (%s)", knobs, backend, reason,
          w ? w : "valid");
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
        refused("bind=once,layout=soa,args=struct", all[b], "args other than struct", in);
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
    lbm_input_free(in);
    CHECK_DONE();
}
