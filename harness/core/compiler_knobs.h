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

/* NULL when the device's backend can build with k's cc and opt; else why
 * not, one line written into why (n bytes: the compiler absent, no device
 * runtime for the GPU, a backend whose compiler is not a C compiler). */
const char *compiler_knobs_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n);
#endif
