/* The compiler knobs' one rule (compiler_knobs.h). */
#include "core/compiler_knobs.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

const char *compiler_knobs_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n) {
    const struct backend_ops *ops = backend_by_name(dev->backend);
    if (!ops || !ops->compiler_refusal) {
        if (knob_is(k, "cc", "gcc") && knob_is(k, "opt", "O3")) return NULL;
        snprintf(why, n,
                 "cc and opt choose the C compiler of the openmp, omp-target and openacc backends; %s compiles "
                 "with its own (cc=gcc opt=O3 only)",
                 dev->backend);
        return why;
    }
    return ops->compiler_refusal(dev, knob_get(k, "cc"), knob_get(k, "opt"), why, n);
}

static int regcap_set(const struct knob_set *k) {
    return knobs_declare(k->defs, "regcap") && !knob_is(k, "regcap", "none");
}

const char *regcap_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n) {
    if (!regcap_set(k)) return NULL;
    const struct backend_ops *ops = backend_by_name(dev->backend);
    if (ops && ops->reg_cap_option) return NULL;
    snprintf(why, n,
             "regcap=%s: %s's compiler takes no register cap from the harness (NVRTC's --maxrregcount is CUDA's); "
             "regcap=none",
             knob_get(k, "regcap"), dev->backend);
    return why;
}

void regcap_option(const struct knob_set *k, const struct backend_ops *ops, struct strbuf *out) {
    if (!regcap_set(k) || !ops->reg_cap_option) return;
    sb_printf(out, " ");
    sb_printf(out, ops->reg_cap_option, atoi(knob_get(k, "regcap")));
}
