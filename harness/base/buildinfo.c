#include "base/buildinfo.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"

/* GIT_COMMIT, GIT_DIRTY and BUILD_FLAGS come from the Makefile. */
#ifndef GIT_COMMIT
#define GIT_COMMIT "unknown"
#endif
#ifndef GIT_DIRTY
#define GIT_DIRTY 1
#endif
#ifndef BUILD_FLAGS
#define BUILD_FLAGS ""
#endif

const struct build_info *build_info_get(void) {
    static struct build_info b;
    if (b.commit[0]) return &b;
    str_copy(b.commit, sizeof b.commit, GIT_COMMIT);
    b.dirty = GIT_DIRTY;
#ifdef __clang__
    snprintf(b.compiler, sizeof b.compiler, "clang %s", __clang_version__);
#else
    snprintf(b.compiler, sizeof b.compiler, "gcc %s", __VERSION__);
#endif
    str_copy(b.flags, sizeof b.flags, BUILD_FLAGS);
    /* The OpenMP backend builds kernels with the system cc at run time. */
    FILE *p = popen("cc --version 2>/dev/null | head -1", "r");
    if (p) {
        if (!fgets(b.kernel_compilers, sizeof b.kernel_compilers, p)) b.kernel_compilers[0] = '\0';
        pclose(p);
        str_trim(b.kernel_compilers);
    }
    return &b;
}
