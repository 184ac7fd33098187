/* The compiler knobs' one rule (compiler_knobs.h). */
#include "core/compiler_knobs.h"

#include <stdio.h>

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
