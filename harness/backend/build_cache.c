#include "backend/build_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/util.h"

void cache_key(char key[17], const char *source_text, const char *options, const char *compiler, const char *device) {
    uint64_t h = hash_str(source_text ? source_text : "", 0);
    h = hash_str(options ? options : "", h);
    h = hash_str(compiler ? compiler : "", h);
    h = hash_str(device ? device : "", h);
    snprintf(key, 17, "%016llx", (unsigned long long)h);
}

void cache_path(char *path, size_t n, const char *key, const char *ext) {
    snprintf(path, n, "%s/%s%s", cache_dir(), key, ext);
}

int cache_lock(const char *key) {
    char path[PATH_MAX];
    cache_path(path, sizeof path, key, ".lock");
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

void cache_unlock(int fd) {
    if (fd >= 0) close(fd); /* closing releases the flock */
}

void *cache_load(const char *key, const char *ext, size_t *len) {
    char path[PATH_MAX];
    cache_path(path, sizeof path, key, ext);
    return file_read_all(path, len, NULL, 0);
}

int cache_store(const char *key, const char *ext, const void *data, size_t len) {
    char path[PATH_MAX];
    cache_path(path, sizeof path, key, ext);
    return file_write_all(path, data, len);
}

/* The FNV-1a hash of a file's bytes, as text; -1 when unreadable. */
static int file_sum(const char *path, char out[17]) {
    size_t len = 0;
    char *data = file_read_all(path, &len, NULL, 0);
    if (!data) return -1;
    snprintf(out, 17, "%016llx", (unsigned long long)hash_fnv1a(data, len, 0));
    free(data);
    return 0;
}

int cache_seal(const char *path) {
    char sum[17], sum_path[PATH_MAX + 8];
    if (file_sum(path, sum) != 0) return -1;
    str_fmt(sum_path, sizeof sum_path, "%s.sum", path);
    return file_write_all(sum_path, sum, 16);
}

int cache_compile(struct argv_list *cmd, const char *options, const char *out, const char *source, const char *log) {
    char inc[PATH_MAX], flag[PATH_MAX + 3];
    repo_path(inc, sizeof inc, "harness/backend"); /* omp_kernel.h, the calling convention */
    str_fmt(flag, sizeof flag, "-I%s", inc);
    argv_add(cmd, flag);
    argv_words(cmd, options);
    argv_add(cmd, "-o");
    argv_add(cmd, out);
    argv_add(cmd, source);
    argv_add(cmd, "-lm");
    const int rc = argv_run(cmd, log);
    argv_free(cmd);
    return rc;
}

int cache_check(const char *path) {
    char sum[17], sum_path[PATH_MAX + 8];
    str_fmt(sum_path, sizeof sum_path, "%s.sum", path);
    size_t len = 0;
    char *want = file_read_all(sum_path, &len, NULL, 0);
    const int ok = want && len == 16 && file_sum(path, sum) == 0 && !memcmp(want, sum, 16);
    free(want);
    return ok ? 0 : -1;
}

/* A file's base name, for #line markers that read the same in every checkout. */
static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The name in a line `#include "name"` (leading blanks allowed), or NULL. */
static const char *quoted_include(const char *line, const char *eol, int *len) {
    while (line < eol && (*line == ' ' || *line == '\t')) line++;
    if (eol - line < 10 || strncmp(line, "#include \"", 10) != 0) return NULL;
    const char *name = line + 10, *end = memchr(name, '"', (size_t)(eol - name));
    if (!end) return NULL;
    *len = (int)(end - name);
    return name;
}

struct inline_state {
    const char *const *dirs;
    int ndirs;
    char seen[32][PATH_MAX]; /* files written in already: each once, as their include guards would have it */
    int nseen;
};

static int inline_file(struct strbuf *out, const char *path, struct inline_state *st, int depth, char *err,
                       size_t errn) {
    char *text = file_read_all(path, NULL, err, errn);
    if (!text) return -1;
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else str_copy(dir, sizeof dir, ".");
    int lineno = 1;
    for (const char *p = text; *p; lineno++) {
        const char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        int len = 0;
        const char *name = depth < 8 ? quoted_include(p, eol, &len) : NULL;
        char found[PATH_MAX] = "";
        for (int i = -1; name && !found[0] && i < st->ndirs; i++) {
            char cand[PATH_MAX];
            str_fmt(cand, sizeof cand, "%s/%.*s", i < 0 ? dir : st->dirs[i], len, name);
            FILE *f = fopen(cand, "r");
            if (f) fclose(f), str_copy(found, sizeof found, cand);
        }
        int seen = 0;
        for (int i = 0; found[0] && i < st->nseen; i++) seen |= !strcmp(st->seen[i], found);
        if (found[0] && !seen && st->nseen < 32) {
            str_copy(st->seen[st->nseen++], PATH_MAX, found);
            sb_printf(out, "#line 1 \"%s\"\n", base_name(found));
            if (inline_file(out, found, st, depth + 1, err, errn)) {
                free(text);
                return -1;
            }
            sb_printf(out, "\n#line %d \"%s\"\n", lineno + 1, base_name(path));
        } else if (found[0]) {
            sb_printf(out, "\n"); /* included already */
        } else {
            sb_printf(out, "%.*s\n", (int)(eol - p), p); /* not ours: the compiler says so if it matters */
        }
        p = *eol ? eol + 1 : eol;
    }
    free(text);
    return 0;
}

char *source_inlined(const char *path, const char *const *dirs, int ndirs, char *err, size_t errn) {
    struct inline_state *st = xcalloc(1, sizeof *st);
    st->dirs = dirs;
    st->ndirs = ndirs;
    struct strbuf out = {0};
    sb_printf(&out, "%s", "");
    if (inline_file(&out, path, st, 0, err, errn)) {
        free(st);
        sb_free(&out);
        return NULL;
    }
    free(st);
    return out.s;
}

/* The key's text: the source with its headers written in (one walk of the
 * includes for the key and for OpenCL's build), so that an edit to a header
 * two levels down (lbm.cl -> lbm_gpu.h -> lbm_physics.h) changes the key. */
char *source_with_includes(const char *path, char *err, size_t errn) {
    return source_inlined(path, NULL, 0, err, errn);
}
