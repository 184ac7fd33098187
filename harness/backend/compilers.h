/* The C compilers the OpenMP backends (openmp, omp-target) build kernels
 * with, and the knobs that pick one (issue 37). Private to harness/backend.
 *
 * A kernel's compiler is part of its config: an app that declares the
 * compiler knobs (core/compiler_knobs.h) passes them to the build like any
 * other knob, as -DK_CC_CLANG=1 and -DK_OPT_O2=1 (knobs_defines; absent at
 * their defaults, cc=gcc and opt=O3), and the backend reads them back off
 * the options:
 *
 *     struct compiler_choice c;
 *     compiler_choice(options, &c);              // family CC_CLANG, "-O2"
 *     const struct compiler *cc = compiler_get(c.family, ROLE_OFFLOAD);
 *     if (cc->why[0]) fail(cc->why);             // "no clang found (...)"
 *
 * Each kernel is linked with a run path to its compiler's OpenMP runtime
 * (libgomp's folder, LLVM's lib/), so the worker loads the right one with no
 * LD_LIBRARY_PATH. Found once per process. */
#ifndef HARNESS_COMPILERS_H
#define HARNESS_COMPILERS_H
#include <limits.h>
#include <stddef.h>

enum cc_family { CC_GCC, CC_CLANG, CC_FAMILIES };
enum cc_role {
    ROLE_HOST,    /* OpenMP on the CPU: $HARNESS_OMP_CC or cc; $HARNESS_CLANG or clang-N */
    ROLE_OFFLOAD, /* OpenMP target / OpenACC: $OFFLOAD_CC, gcc-12 or gcc; the same clang */
    CC_ROLES
};

struct compiler_choice {
    enum cc_family family;
    char opt[4]; /* "-O3" */
};
/* The family and optimisation level named in a build's options. */
void compiler_choice(const char *options, struct compiler_choice *c);
/* The knob value of a family ("gcc", "clang"), and back (-1 if unknown). */
const char *cc_family_name(enum cc_family f);
int cc_family_of(const char *name);

struct compiler {
    enum cc_family family;
    char path[PATH_MAX];   /* what is run (words, for HARNESS_OMP_CC="ccache gcc") */
    char version[128];     /* the first line of --version */
    int major;             /* clang's major version, 0 for gcc */
    char libdir[PATH_MAX]; /* the folder of its OpenMP runtime ("" when not found) */
    char why[320];         /* "" when usable, else why not, in one line */
};
const struct compiler *compiler_get(enum cc_family f, enum cc_role role);

/* The words clang needs to offload to an NVIDIA GPU of `arch` ("sm_90"):
 * $LLVM_OMP_FLAGS where the shared kit set them, else --offload-arch, the
 * device runtime's bitcode, -foffload-lto and a CUDA folder whose ptxas this
 * LLVM can use. 0, or -1 with why (no device runtime for that arch; a ptxas
 * whose cubins LLVM <= 19 misreads). */
int clang_offload_flags(const struct compiler *c, const char *arch, char *out, size_t n, char *why, size_t whyn);

/* The build option that makes a probe's program (peak, launch-cost: they
 * have no knobs) use the compiler HARNESS_OFFLOAD_CC names, the one whose
 * runtime then lists the device: " -DK_CC_CLANG=1", or "". */
const char *compiler_probe_option(void);

/* " -Wl,-rpath,<libdir>" for c, or "" when its runtime was not found. */
void compiler_rpath(const struct compiler *c, char *out, size_t n);
#endif
