#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int err_set(char *err, size_t n, const char *fmt, ...) {
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

char *file_read_all(const char *path, size_t *len, char *err, size_t errn) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, errn, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct strbuf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + got + 1 > b.cap) {
            b.cap = (b.len + got + 1) * 2;
            b.s = realloc(b.s, b.cap);
            if (!b.s) abort();
        }
        memcpy(b.s + b.len, chunk, got);
        b.len += got;
    }
    fclose(f);
    if (!b.s) b.s = xcalloc(1, 1);
    b.s[b.len] = '\0';
    if (len) *len = b.len;
    return b.s;
}

int file_write_all(const char *path, const void *data, size_t len) {
    /* Write to a temporary name and rename, so a concurrent reader of a cache
     * entry never sees half a file. */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    size_t put = fwrite(data, 1, len, f);
    if (fclose(f) != 0 || put != len) {
        unlink(tmp);
        return -1;
    }
    return rename(tmp, path);
}

int dir_make_p(const char *path) {
    char buf[PATH_MAX];
    str_copy(buf, sizeof buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    }
    if (mkdir(buf, 0775) != 0 && errno != EEXIST) return -1;
    return 0;
}

const char *repo_root(void) {
    static char root[PATH_MAX];
    if (root[0]) return root;
    const char *env = getenv("HARNESS_ROOT");
    if (env && *env) {
        str_copy(root, sizeof root, env);
        return root;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/'); /* .../bin/harness -> .../bin */
        if (slash) *slash = '\0';
        slash = strrchr(exe, '/'); /* .../bin -> ... */
        if (slash) *slash = '\0';
        str_copy(root, sizeof root, exe);
    } else {
        str_copy(root, sizeof root, ".");
    }
    return root;
}

const char *repo_path(char *buf, size_t n, const char *rel) {
    str_fmt(buf, n, "%s/%s", repo_root(), rel);
    return buf;
}

/* The PID in a temporary name "NAME.PID.tmp" or "NAME.PID.tmp.log", or 0. */
static long tmp_owner(const char *name) {
    const char *end = strstr(name, ".tmp");
    if (!end || (strcmp(end, ".tmp") && strcmp(end, ".tmp.log"))) return 0;
    const char *dot = end;
    while (dot > name && isdigit((unsigned char)dot[-1])) dot--;
    if (dot == end || dot == name || dot[-1] != '.') return 0;
    return strtol(dot, NULL, 10);
}

/* A killed command leaves its half-written products ("KEY.so.PID.tmp" and
 * their logs): the first process to use the cache removes those whose
 * writer no longer exists (issue 34: they stayed for good). */
static void reclaim_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        const long pid = tmp_owner(e->d_name);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[PATH_MAX];
        str_fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

const char *cache_dir(void) {
    static char dir[PATH_MAX];
    if (dir[0]) return dir;
    const char *env = getenv("HARNESS_CACHE");
    if (env && *env) str_copy(dir, sizeof dir, env);
    else repo_path(dir, sizeof dir, "build/cache");
    dir_make_p(dir);
    /* Loaded code comes from here: a folder another user owns or everyone
     * may write (the seal beside each product could be planted too) is not
     * used; a private one of this user's under TMPDIR takes its place, said
     * once. (Group-writable is allowed: a shared group's umask 002.) */
    struct stat st;
    if (stat(dir, &st) == 0 && (st.st_uid != geteuid() || (st.st_mode & S_IWOTH))) {
        const char *tmp = getenv("TMPDIR");
        char safe[PATH_MAX];
        str_fmt(safe, sizeof safe, "%s/harness-cache-%ld", tmp && *tmp ? tmp : "/tmp", (long)geteuid());
        struct stat ss;
        if ((mkdir(safe, 0700) == 0 || errno == EEXIST) && lstat(safe, &ss) == 0 && S_ISDIR(ss.st_mode) &&
            ss.st_uid == geteuid() && !(ss.st_mode & (S_IWGRP | S_IWOTH))) {
            fprintf(stderr, "note: the kernel cache %s can be written by others: using %s instead\n", dir, safe);
            str_copy(dir, sizeof dir, safe);
            setenv("HARNESS_CACHE", safe, 1); /* the workers and probes use it without saying so again */
        } else {
            fprintf(stderr, "note: the kernel cache %s can be written by others and %s is not private: "
                            "compiled kernels are not cached\n", dir, safe);
            str_copy(dir, sizeof dir, safe); /* the build then fails to write there and says so */
        }
    }
    reclaim_tmp(dir);
    return dir;
}

double clock_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t hash_fnv1a(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = seed ? seed : 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t hash_str(const char *s, uint64_t seed) {
    return hash_fnv1a(s, strlen(s) + 1, seed); /* the NUL separates fields */
}

void sb_printf(struct strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) return;
    if (b->len + (size_t)need + 1 > b->cap) {
        b->cap = (b->len + (size_t)need + 1) * 2 + 64;
        b->s = realloc(b->s, b->cap);
        if (!b->s) abort();
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

void sb_free(struct strbuf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

char *xstrdup(const char *s) {
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

int host_memory_check(double bytes, const char *what, char *err, size_t errn) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    if (have <= 0 || bytes <= have) return 0;
    return err_set(err, errn, "%s needs %.1f GB of host memory; this machine has %.1f GB", what, bytes / 1e9,
                   have / 1e9);
}

void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) abort();
    return p;
}

void *xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) abort();
    return q;
}

void str_copy(char *dst, size_t n, const char *src) {
    if (!n) return;
    size_t l = strlen(src);
    if (l >= n) l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

void str_trim(char *s) {
    size_t l = strlen(s);
    while (l && isspace((unsigned char)s[l - 1])) s[--l] = '\0';
    size_t i = 0;
    while (s[i] && isspace((unsigned char)s[i])) i++;
    if (i) memmove(s, s + i, l - i + 1);
}

int parse_whole(const char *text, long lo, long hi, long *out) {
    if (!*text || isspace((unsigned char)*text)) return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int parse_real(const char *text, double lo, double hi, double *out) {
    if (!*text || isspace((unsigned char)*text)) return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

void str_fmt(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

void csv_field(FILE *out, const char *v) {
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, out);
        return;
    }
    fputc('"', out);
    for (; *v; v++) {
        if (*v == '"') fputc('"', out);
        fputc(*v, out);
    }
    fputc('"', out);
}

uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- programs run without a shell ---- */

extern char **environ;

void argv_add(struct argv_list *a, const char *word) {
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->v = xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n++] = xstrdup(word);
    a->v[a->n] = NULL;
}

void argv_words(struct argv_list *a, const char *text) {
    for (const char *p = text ? text : ""; *p;) {
        p += strspn(p, " \t\n");
        const size_t len = strcspn(p, " \t\n");
        if (!len) break;
        char *w = xcalloc(1, len + 1);
        memcpy(w, p, len);
        argv_add(a, w);
        free(w);
        p += len;
    }
}

void argv_free(struct argv_list *a) {
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* Spawns a->v with stdout on out_fd (-1: /dev/null) and stderr on err_fd (-1: /dev/null). */
static pid_t argv_spawn(const struct argv_list *a, int out_fd, int err_fd) {
    if (!a->n) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (err_fd >= 0) posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    else posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    const int rc = posix_spawnp(&pid, a->v[0], &fa, NULL, a->v, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

static int argv_wait(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

int argv_run(const struct argv_list *a, const char *log_path) {
    int fd = -1;
    if (log_path && (fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) return -1;
    const pid_t pid = argv_spawn(a, fd, fd);
    if (fd >= 0) close(fd);
    if (pid < 0) {
        if (log_path) {
            FILE *f = fopen(log_path, "w");
            if (f) {
                fprintf(f, "%s: cannot be run (%s)\n", a->n ? a->v[0] : "(nothing)", strerror(errno));
                fclose(f);
            }
        }
        return -1;
    }
    return argv_wait(pid);
}

int argv_first_line(const struct argv_list *a, char *out, size_t n) {
    out[0] = '\0';
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    const pid_t pid = argv_spawn(a, p[1], -1);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    FILE *f = fdopen(p[0], "r");
    if (f) {
        if (!fgets(out, (int)n, f)) out[0] = '\0';
        char sink[4096]; /* the rest, so the program never blocks on a full pipe */
        while (fgets(sink, sizeof sink, f)) {}
        fclose(f);
    } else close(p[0]);
    argv_wait(pid);
    str_trim(out);
    return out[0] ? 0 : -1;
}
