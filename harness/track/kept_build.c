/* kept_build.h. */
#include "track/kept_build.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "backend/backend.h"
#include "base/util.h"

/* What a harness binary reads at run time, relative to its root: the apps'
 * kernels and variants, and what the backends read (backend_runtime_files). */
static const char *const tree[] = {"kernels", "variants"};
#define NTREE ((int)(sizeof tree / sizeof tree[0]))

static char builds_dir[PATH_MAX];

void kept_builds_for_db(const char *db_path) {
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, db_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else str_copy(dir, sizeof dir, ".");
    str_fmt(builds_dir, sizeof builds_dir, "%s/builds", dir);
}

const char *kept_builds_dir(void) {
    const char *env = getenv("HARNESS_BUILDS");
    if (env && *env) return env;
    if (!builds_dir[0]) repo_path(builds_dir, sizeof builds_dir, "results/builds");
    return builds_dir;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file under root/rel (rel itself when it is a file), as
 * paths relative to root, appended to *list. Build products are skipped. */
static void walk(const char *root, const char *rel, char ***list, int *n, int *cap) {
    char path[PATH_MAX];
    str_fmt(path, sizeof path, "%s/%s", root, rel);
    struct stat sb;
    if (stat(path, &sb) != 0) return;
    if (S_ISREG(sb.st_mode)) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *list = xrealloc(*list, (size_t)*cap * sizeof **list);
        }
        (*list)[(*n)++] = xstrdup(rel);
        return;
    }
    if (!S_ISDIR(sb.st_mode)) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(e->d_name);
        if (len > 2 && (!strcmp(e->d_name + len - 2, ".o") || !strcmp(e->d_name + len - 3, ".so"))) continue;
        /* An app's host code (app.c, reference.c, ...) is compiled into the
         * binary, which the hash covers; only the OpenMP kernels (*_omp.c)
         * are C files read at run time. */
        if (len > 2 && !strcmp(e->d_name + len - 2, ".c") && (len < 6 || strcmp(e->d_name + len - 6, "_omp.c")))
            continue;
        char sub[PATH_MAX];
        str_fmt(sub, sizeof sub, "%s/%s", rel, e->d_name);
        walk(root, sub, list, n, cap);
    }
    closedir(d);
}

static int tree_files(const char *root, char ***list) {
    int n = 0, cap = 0;
    *list = NULL;
    for (int i = 0; i < NTREE; i++) walk(root, tree[i], list, &n, &cap);
    for (int i = 0; backend_runtime_files[i]; i++) walk(root, backend_runtime_files[i], list, &n, &cap);
    if (n) qsort(*list, (size_t)n, sizeof **list, cmp_str);
    return n;
}

static void files_free(char **list, int n) {
    for (int i = 0; i < n; i++) free(list[i]);
    free(list);
}

int kept_build_hash(const char *root, const char *exe, char hash[KEPT_HASH_LEN + 1], char *err, size_t errn) {
    size_t len = 0;
    char *bin = file_read_all(exe, &len, err, errn);
    if (!bin) return -1;
    uint64_t h = hash_fnv1a(bin, len, 0);
    free(bin);
    char **files;
    int n = tree_files(root, &files);
    if (!n) return err_set(err, errn, "%s: no kernels/ or variants/ to keep", root);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        str_fmt(path, sizeof path, "%s/%s", root, files[i]);
        char *text = file_read_all(path, &len, NULL, 0);
        h = hash_str(files[i], h);
        if (text) h = hash_fnv1a(text, len, h ^ (uint64_t)len);
        free(text);
    }
    files_free(files, n);
    snprintf(hash, KEPT_HASH_LEN + 1, "%016llx", (unsigned long long)h);
    return 0;
}

static int copy_file(const char *from, const char *to, mode_t mode) {
    size_t len = 0;
    char *data = file_read_all(from, &len, NULL, 0);
    if (!data) return -1;
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, to);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        dir_make_p(dir);
    }
    int rc = file_write_all(to, data, len);
    free(data);
    if (rc == 0) chmod(to, mode);
    return rc;
}

/* rm -r, for a failed copy's temporary folder and for pruning. */
static void remove_tree(const char *path) {
    struct stat sb;
    if (lstat(path, &sb) != 0) return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[PATH_MAX];
            str_fmt(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

int kept_build_keep(const char *root, const char *exe, char hash[KEPT_HASH_LEN + 1], char *dir, size_t dirn, char *err,
                    size_t errn) {
    if (kept_build_hash(root, exe, hash, err, errn) != 0) return -1;
    const char *base = kept_builds_dir();
    str_fmt(dir, dirn, "%s/%s", base, hash);
    char bin[PATH_MAX];
    str_fmt(bin, sizeof bin, "%s/bin/harness", dir);
    if (access(bin, X_OK) == 0) {
        kept_build_touch(hash);
        return 0;
    }
    if (dir_make_p(base) != 0) return err_set(err, errn, "cannot create %s: %s", base, strerror(errno));
    /* Copied into a temporary folder and renamed: a kept build is whole or absent. */
    char tmp[PATH_MAX];
    str_fmt(tmp, sizeof tmp, "%s/.tmp-%s-%d", base, hash, (int)getpid());
    remove_tree(tmp);
    char to[PATH_MAX + 64];
    str_fmt(to, sizeof to, "%s/bin/harness", tmp);
    int rc = copy_file(exe, to, 0755);
    char **files;
    int n = tree_files(root, &files);
    for (int i = 0; i < n && rc == 0; i++) {
        char from[PATH_MAX];
        str_fmt(from, sizeof from, "%s/%s", root, files[i]);
        str_fmt(to, sizeof to, "%s/%s", tmp, files[i]);
        rc = copy_file(from, to, 0644);
    }
    files_free(files, n);
    if (rc != 0 || rename(tmp, dir) != 0) {
        int e = errno;
        remove_tree(tmp);
        if (access(bin, X_OK) == 0) return 0; /* another nightly kept the same build meanwhile */
        return err_set(err, errn, "cannot keep the build in %s: %s", dir, strerror(e));
    }
    return 0;
}

int kept_build_find(const char *hash, char *dir, size_t dirn, char *bin, size_t binn, char *err, size_t errn) {
    if (!hash || strlen(hash) != KEPT_HASH_LEN || strspn(hash, "0123456789abcdef") != KEPT_HASH_LEN)
        return err_set(err, errn, "'%s' is not a kept build's hash (16 hex digits)", hash ? hash : "");
    str_fmt(dir, dirn, "%s/%s", kept_builds_dir(), hash);
    str_fmt(bin, binn, "%s/bin/harness", dir);
    if (access(bin, X_OK) != 0)
        return err_set(err, errn, "build %s is not kept: no %s (pruned, or kept on another machine)", hash, bin);
    return 0;
}

void kept_build_touch(const char *hash) {
    char dir[PATH_MAX];
    str_fmt(dir, sizeof dir, "%s/%s", kept_builds_dir(), hash);
    utime(dir, NULL);
}

int kept_build_prune(double max_age_days, const char *const *keep, int nkeep, FILE *log) {
    const char *base = kept_builds_dir();
    DIR *d = opendir(base);
    if (!d) return 0;
    int removed = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strlen(e->d_name) != KEPT_HASH_LEN || strspn(e->d_name, "0123456789abcdef") != KEPT_HASH_LEN) continue;
        int needed = 0;
        for (int i = 0; i < nkeep && !needed; i++) needed = keep[i] && !strcmp(keep[i], e->d_name);
        char dir[PATH_MAX];
        str_fmt(dir, sizeof dir, "%s/%s", base, e->d_name);
        struct stat sb;
        if (needed || stat(dir, &sb) != 0 || difftime(now, sb.st_mtime) < max_age_days * 86400.0) continue;
        remove_tree(dir);
        removed++;
        if (log)
            fprintf(log, "nightly: pruned kept build %s (unused for more than %g days)\n", e->d_name, max_age_days);
    }
    closedir(d);
    return removed;
}
