/* The compiler as a dimension of the space (issue 37): two knobs an app
 * declares for its C kernels (OpenMP on the CPU, OpenMP target, OpenACC),
 *
 *     static const struct knob_def my_knobs[] = { ..., COMPILER_KNOBS };
 *
 * and one rule, called from the app's `invalid`:
 *
 *     const char *bad = compiler_knobs_invalid(k, dev, why, n);
 *     if (bad) return bad;       // "cc=clang: no clang found (...)"
 *
 * They reach the build as -DK_CC_CLANG=1 / -DK_OPT_O2=1 (knobs_defines),
 * which the backends read back (backend/compilers.h); at their defaults
 * (cc=gcc, opt=O3) they are in neither the identity nor the defines, so
 * configs stored before they existed keep theirs. */
#ifndef HARNESS_COMPILER_KNOBS_H
#define HARNESS_COMPILER_KNOBS_H
#include "backend/backend.h"
#include "core/knobs.h"

#define COMPILER_KNOBS                                                                                                 \
    {.name = "cc",                                                                                                     \
     .values = "gcc|clang",                                                                                            \
     .def = "gcc",                                                                                                     \
     .help = "the C compiler of OpenMP / OpenMP target kernels: gcc (HARNESS_OMP_CC, OFFLOAD_CC) or clang "            \
             "(HARNESS_CLANG, clang-N)",                                                                               \
     .quiet_default = 1},                                                                                              \
    {.name = "opt",                                                                                                    \
     .values = "O3|O2|O1|O0",                                                                                          \
     .def = "O3",                                                                                                      \
     .help = "that compiler's optimisation level",                                                                     \
     .quiet_default = 1}

/* The register cap a thread (issue 38): an app whose kernels are
 * register-hungry declares it beside its knobs,
 *
 *     static const struct knob_def my_knobs[] = { ..., REGCAP_KNOB };
 *
 * calls regcap_invalid from its `invalid`, and app_build_program passes the
 * backend's option (backend.h: reg_cap_option); an app that assembles its
 * own build options calls regcap_option itself. At its default (none) it is
 * in neither the identity nor the build. */
#define REGCAP_KNOB                                                                                                    \
    {.name = "regcap",                                                                                                 \
     .values = "none|64|96|128|168",                                                                                   \
     .def = "none",                                                                                                    \
     .help = "registers a thread at most (NVRTC --maxrregcount): none leaves the compiler's count; a cap fits more "  \
             "threads on a multiprocessor and spills the rest to local memory",                                      \
     .quiet_default = 1}

/* NULL when k declares no regcap, or it is none, or the device's backend
 * has a register cap option; else why not, in why. */
const char *regcap_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n);
/* Appends " <the backend's option>" for k's register cap to out; nothing
 * when k declares none, it is none, or the backend has no option. */
void regcap_option(const struct knob_set *k, const struct backend_ops *ops, struct strbuf *out);

/* NULL when the device's backend can build with k's cc and opt; else why
 * not, one line written into why (n bytes: the compiler absent, no device
 * runtime for the GPU, a backend whose compiler is not a C compiler). */
const char *compiler_knobs_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n);
#endif
