/* HARNESS_ROOT for repo_root(), from where the running program lies: the
 * unit tests (build/tests/) and the fuzz targets (build/fuzz/) are both
 * three levels below the repository. Call before anything calls
 * repo_root(), which caches its answer. */
#ifndef TESTS_ROOT_FROM_EXE_H
#define TESTS_ROOT_FROM_EXE_H
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void root_from_exe(void) {
    if (getenv("HARNESS_ROOT")) return;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    for (int i = 0; i < 3; i++) {
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
    }
    setenv("HARNESS_ROOT", exe, 1);
}
#endif
