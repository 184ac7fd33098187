/* What the fuzz targets share: the input as a C string or as a read-only
 * stream (fmemopen: the parsers read it as they read a file), the
 * repository root for the shipped variants, and FUZZ_ASSERT, which turns a
 * broken promise of a parser into a crash libFuzzer reports and keeps.
 * One target per file, fuzz_<name>.c; README.md says how to run them. */
#ifndef FUZZ_H
#define FUZZ_H
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/root_from_exe.h"
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_ASSERT(cond, ...)                                                                                         \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond);                                           \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* The bytes and a terminating NUL, malloc'd (a parser of C strings sees
 * them up to the first NUL, as it would see a command-line argument). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The bytes as a stream of exactly these contents, NULs included; `copy`
 * is the buffer behind it, to free after fclose. */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size, char **copy) {
    *copy = fuzz_text(data, size);
    FILE *f = fmemopen(*copy, size, "r");
    if (!f) abort();
    return f;
}

/* A failure's message must name where: "name:LINE: ..." (every file
 * parser promises "file:line: message"). */
static inline int fuzz_names_line(const char *err, const char *name) {
    size_t n = strlen(name);
    if (strncmp(err, name, n) != 0 || err[n] != ':') return 0;
    const char *p = err + n + 1;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
    return p[0] == ':' && p[1] == ' ' && p[2];
}

/* HARNESS_ROOT for repo_root() (the variants files are read from there). */
static inline void fuzz_set_root(void) { root_from_exe(); }
#endif
