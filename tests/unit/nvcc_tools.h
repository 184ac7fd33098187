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
#endif
