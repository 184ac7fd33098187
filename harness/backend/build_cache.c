#include "build_cache.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

/* Appends the quoted #includes of `text` (a file in `dir`), and theirs in
 * turn, so that an edit to a header two levels down (lbm.cl -> lbm_gpu.h ->
 * lbm_physics.h) changes the key. Headers not in the folder are skipped. */
static void append_includes(struct strbuf *all, const char *text, const char *dir, int depth) {
    if (depth > 8) return;
    for (const char *p = text; (p = strstr(p, "#include \"")) != NULL;) {
        p += 10;
        const char *end = strchr(p, '"');
        if (!end) break;
        char inc[PATH_MAX];
        str_fmt(inc, sizeof inc, "%s/%.*s", dir, (int)(end - p), p);
        char *body = file_read_all(inc, NULL, NULL, 0);
        if (body) {
            sb_printf(all, "\n/* %s */\n%s", inc, body);
            append_includes(all, body, dir, depth + 1);
            free(body);
        }
        p = end;
    }
}

char *source_with_includes(const char *path, char *err, size_t errn) {
    char *text = file_read_all(path, NULL, err, errn);
    if (!text) return NULL;
    struct strbuf all = {0};
    sb_printf(&all, "%s", text);
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else str_copy(dir, sizeof dir, ".");
    append_includes(&all, text, dir, 0);
    free(text);
    return all.s;
}
