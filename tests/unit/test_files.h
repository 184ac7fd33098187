/* Helpers for unit tests that read files: where the repository is, and
 * small input files written into the test's own temporary folder. */
#ifndef TEST_FILES_H
#define TEST_FILES_H
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root_from_exe.h"

/* The repository root for repo_root() (root_from_exe.h). */
static void set_root(void) { root_from_exe(); }

/* Writes text to dir/name and returns the path (in the caller's buffer). */
static const char *write_file_in(const char *dir, const char *name, const char *text, char *path, size_t n) {
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

/* Whether an error message names "path:line:". */
static int names_line(const char *msg, const char *path, int line) {
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want, "%s:%d:", path, line);
    return strstr(msg, want) != NULL;
}
#endif
