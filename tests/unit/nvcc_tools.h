/* What the CUDA compile tests share: finding nvcc (CUDA_HOME, else
 * /usr/local/cuda) and asking whether a built CUBIN holds a kernel's
 * symbol. Without nvcc the tests count themselves skipped. */
#ifndef TESTS_NVCC_TOOLS_H
#define TESTS_NVCC_TOOLS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static inline int find_nvcc(char *out, size_t n) {
    const char *home = getenv("CUDA_HOME");
    snprintf(out, n, "%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
    return access(out, X_OK) == 0;
}

/* Does the file hold `name` (a kernel's symbol)? */
static inline int file_has(const char *path, const char *name) {
    size_t len = 0;
    char *data = file_read_all(path, &len, NULL, 0);
    int found = 0;
    for (size_t i = 0; data && !found && i + strlen(name) <= len; i++)
        found = memcmp(data + i, name, strlen(name)) == 0;
    free(data);
    return found;
}
/* Compiles `src` to the CUBIN `out` for sm_90 with `flags` (include paths,
 * the knobs' -D flags, warnings to ask for), nvcc's output in log (at most
 * logn bytes, terminated); returns nvcc's exit status, -1 if it could not
 * run. */
static inline int nvcc_cubin(const char *nvcc, const char *flags, const char *src, const char *out, char *log,
                             size_t logn) {
    struct strbuf cmd = {0};
    sb_printf(&cmd, "'%s' -cubin -arch=sm_90 -std=c++17 %s -o '%s' %s 2>&1", nvcc, flags, out, src);
    FILE *p = popen(cmd.s, "r");
    const size_t got = p ? fread(log, 1, logn - 1, p) : 0;
    log[got] = '\0';
    sb_free(&cmd);
    return p ? pclose(p) : -1;
}
#endif
