/* Helpers for unit tests that read files: where the repository is, and
 * small input files written into the test's own temporary folder. */
#ifndef TEST_FILES_H
#define TEST_FILES_H
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The repository root: build/tests/<this program> is three levels down.
 * Set before anything calls repo_root(), which caches its answer. */
static void set_root(void) {
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
