/* The OpenMP backend: the host CPU as one device. Kernels are C files built
 * at run time by the system compiler (cc -fopenmp, or $HARNESS_OMP_CC) into
 * shared objects with the same -D knob list the GPU backends get, cached on
 * disk, and loaded with dlopen. Buffers are host memory. */
#include "backend/backend.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/build_cache.h"
#include "backend/compilers.h"
#include "backend/launch_cost.h"
#include "backend/omp_kernel.h"
#include "base/util.h"

typedef void omp_kernel_fn(const struct omp_launch *L, void *const *args);

struct buf {
    void *mem;
    size_t bytes;
};
/* Kernels hang off their program, which frees them (the interface has no
 * kernel_free); asking twice for one name gives the same kernel. */
struct kernel {
    omp_kernel_fn *fn;
    struct kernel *next;
    char name[128];
};
struct program {
    void *so;
    struct kernel *kernels;
};
/* A kernel with its arguments bound: the vector the kernel receives, the
 * scalars and by-value structs it points into kept here. */
struct bound {
    omp_kernel_fn *fn;
    void *argv[KARG_MAX];
    union {
        int i;
        float f;
    } vals[KARG_MAX];
    void *bytes[KARG_MAX];
};
/* A recording is the list of bound launches; a replay runs it again. */
struct rec_launch {
    struct bound *b;
    size_t global[2], local[2];
};
struct recording {
    struct rec_launch *l;
    int n, cap;
};
struct omp_dev {
    double marks[2];
    struct recording *rec; /* non-NULL while recording */
};

static const char *omp_cc(void) {
    const char *cc = getenv("HARNESS_OMP_CC");
    return cc && *cc ? cc : "cc";
}

/* The first line of `cc --version`: part of the device's driver string and
 * of every cache key. */
static const char *omp_cc_version(void) {
    static char version[128];
    if (version[0]) return version;
    struct argv_list a = {0};
    argv_words(&a, omp_cc()); /* HARNESS_OMP_CC may be words ("ccache gcc"), never shell text */
    argv_add(&a, "--version");
    argv_first_line(&a, version, sizeof version);
    argv_free(&a);
    return version;
}

static void cpu_model(char *vendor, size_t vn, char *name, size_t nn) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    str_copy(vendor, vn, "unknown");
    str_copy(name, nn, "unknown CPU");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        str_trim(colon + 1);
        if (strncmp(line, "vendor_id", 9) == 0) str_copy(vendor, vn, colon + 1);
        if (strncmp(line, "model name", 10) == 0) {
            str_copy(name, nn, colon + 1);
            break;
        }
    }
    fclose(f);
}

static int omp_list(struct device_info **out, char *note, size_t n) {
    *out = NULL;
    if (!omp_cc_version()[0]) {
        err_set(note, n, "no C compiler '%s' to build OpenMP kernels", omp_cc());
        return 0;
    }
    struct device_info *di = xcalloc(1, sizeof *di);
    str_copy(di->backend, sizeof di->backend, "openmp");
    str_copy(di->spec, sizeof di->spec, "openmp");
    cpu_model(di->vendor, sizeof di->vendor, di->name, sizeof di->name);
    str_fmt(di->driver, sizeof di->driver, "%s -fopenmp", omp_cc_version());
    str_copy(di->kind, sizeof di->kind, "cpu");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    di->compute_units = cpus > 0 ? (unsigned)cpus : 1;
    /* A tile may be any shape; these limits only keep sweeps finite. */
    di->max_wg = 1u << 16;
    di->max_item[0] = di->max_item[1] = 1u << 16;
    di->max_item[2] = 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    di->global_mem = di->max_alloc = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    di->local_mem = l2 > 0 ? (uint64_t)l2 : 0; /* a tile's working set should fit here */
    *out = di;
    return 1;
}

static struct dev *omp_open(const struct device_info *info, char *err, size_t n) {
    (void)err;
    (void)n;
    struct dev *d = xcalloc(1, sizeof *d);
    d->ops = &backend_openmp;
    d->info = *info;
    d->ctx = xcalloc(1, sizeof(struct omp_dev));
    return d;
}

static void omp_close(struct dev *d) {
    if (!d) return;
    free(d->ctx);
    free(d);
}

static struct program *omp_build(struct dev *d, const char *source, const char *options) {
    char *full = source_with_includes(source, d->err, sizeof d->err);
    if (!full) return NULL;
    /* The compiler knobs (compilers.h): cc=gcc is HARNESS_OMP_CC or cc, as
     * before they existed; cc=clang links a run path to LLVM's libomp. */
    struct compiler_choice choice;
    compiler_choice(options, &choice);
    const struct compiler *c = choice.family == CC_GCC ? NULL : compiler_get(choice.family, ROLE_HOST);
    if (c && c->why[0]) {
        free(full);
        return dev_fail(d, "%s", c->why), NULL;
    }
    const char *cc = c ? c->path : omp_cc(), *cc_version = c ? c->version : omp_cc_version();
    char rpath[PATH_MAX + 16] = "";
    if (c) compiler_rpath(c, rpath, sizeof rpath);
    /* -march=native ties the product to this CPU model, so the device name is in the key. */
    char flags[PATH_MAX + 80];
    str_fmt(flags, sizeof flags, "%s -march=native -fopenmp -fPIC -shared -std=c11%s", choice.opt, rpath);
    /* The calling convention header is reached through -I, not the kernel's
     * folder, so it joins the key by hand. */
    char abi_path[PATH_MAX];
    char *abi = file_read_all(repo_path(abi_path, sizeof abi_path, "harness/backend/omp_kernel.h"), NULL, NULL, 0);
    char key[17], compiler[2 * PATH_MAX];
    str_fmt(compiler, sizeof compiler, "%s|%s|%s|%016llx", cc, cc_version, flags,
            (unsigned long long)hash_str(abi ? abi : "", 0));
    free(abi);
    cache_key(key, full, options, compiler, d->info.name);
    free(full);
    char so[PATH_MAX];
    cache_path(so, sizeof so, key, ".so");
    struct stat st;
    int lock = -1;
    if (stat(so, &st) != 0 || cache_check(so) != 0) lock = cache_lock(key); /* one builder; the rest wait */
    if (stat(so, &st) != 0 || cache_check(so) != 0) { /* absent, or not the product we built (build_cache.h) */
        char tmp[PATH_MAX + 32], log[PATH_MAX + 32];
        str_fmt(tmp, sizeof tmp, "%s.%ld.tmp", so, (long)getpid());
        str_fmt(log, sizeof log, "%s.log", tmp);
        /* An argument vector, not a shell line: HARNESS_OMP_CC and the
         * options are words, and no value of theirs is run as a command. */
        struct argv_list cmd = {0};
        argv_words(&cmd, cc);
        argv_words(&cmd, flags);
        int rc = cache_compile(&cmd, options, tmp, source, log);
        if (rc != 0) {
            char *text = file_read_all(log, NULL, NULL, 0);
            dev_fail(d, "%s failed:\n%s", cc, text ? text : "(no log)");
            free(text);
            unlink(log);
            unlink(tmp);
            cache_unlock(lock);
            return NULL;
        }
        unlink(log);
        rename(tmp, so); /* atomic: concurrent builders agree on one file */
        cache_seal(so);
    }
    cache_unlock(lock);
    /* NODELETE: the OpenMP runtime this pulls in keeps worker threads alive;
     * unloading it under them would crash the process. */
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return dev_fail(d, "dlopen %s: %s", so, dlerror()), NULL;
    struct program *p = xcalloc(1, sizeof *p);
    p->so = h;
    return p;
}

static void omp_program_free(struct dev *d, struct program *p) {
    (void)d;
    if (!p) return;
    for (struct kernel *k = p->kernels, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    dlclose(p->so); /* a no-op for the code itself: it was opened NODELETE */
    free(p);
}

static struct kernel *omp_kernel(struct dev *d, struct program *p, const char *name) {
    for (struct kernel *k = p->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) return k;
    void *sym = dlsym(p->so, name);
    if (!sym) return dev_fail(d, "no kernel '%s' in the OpenMP program", name), NULL;
    struct kernel *k = xcalloc(1, sizeof *k);
    /* POSIX guarantees dlsym results convert to function pointers. */
    memcpy(&k->fn, &sym, sizeof sym);
    str_copy(k->name, sizeof k->name, name);
    k->next = p->kernels;
    p->kernels = k;
    return k;
}

static struct buf *omp_alloc(struct dev *d, size_t bytes) {
    void *mem = NULL;
    if (posix_memalign(&mem, 64, bytes ? bytes : 64) != 0)
        return dev_fail(d, "out of memory allocating %zu bytes", bytes), NULL;
    struct buf *b = xcalloc(1, sizeof *b);
    b->mem = mem;
    b->bytes = bytes;
    return b;
}

static void omp_buf_free(struct dev *d, struct buf *b) {
    (void)d;
    if (!b) return;
    free(b->mem);
    free(b);
}

static int omp_write(struct dev *d, struct buf *b, size_t off, size_t bytes, const void *src) {
    if (off + bytes > b->bytes) return dev_fail(d, "write past the end of a buffer");
    memcpy((char *)b->mem + off, src, bytes);
    return 0;
}

static int omp_read(struct dev *d, struct buf *b, size_t off, size_t bytes, void *dst) {
    if (off + bytes > b->bytes) return dev_fail(d, "read past the end of a buffer");
    memcpy(dst, (char *)b->mem + off, bytes);
    return 0;
}

struct copy_part {
    char *to;
    const char *from;
    size_t len;
};

static void *copy_part_run(void *arg) {
    struct copy_part *c = arg;
    memcpy(c->to, c->from, c->len);
    return NULL;
}

static int omp_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    if (bytes > dst->bytes || bytes > src->bytes) return dev_fail(d, "copy past the end of a buffer");
    /* One thread per core: one thread alone cannot reach the socket's
     * bandwidth, and `peak` measures this copy. */
    enum { MAX_PARTS = 256 };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = cpus > 0 ? (size_t)cpus : 1;
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    size_t chunk = (bytes + parts - 1) / parts;
    pthread_t th[MAX_PARTS];
    struct copy_part part[MAX_PARTS];
    int threaded[MAX_PARTS] = {0};
    for (size_t i = 0; i < parts && i * chunk < bytes; i++) {
        size_t start = i * chunk;
        part[i] = (struct copy_part){(char *)dst->mem + start, (const char *)src->mem + start,
                                     bytes - start < chunk ? bytes - start : chunk};
        threaded[i] = pthread_create(&th[i], NULL, copy_part_run, &part[i]) == 0;
        if (!threaded[i]) copy_part_run(&part[i]);
    }
    for (size_t i = 0; i < parts; i++)
        if (threaded[i]) pthread_join(th[i], NULL);
    return 0;
}

static int omp_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                      const struct karg *args) {
    if (nargs > KARG_MAX) return dev_fail(d, "too many kernel arguments");
    if (!local[0] || !local[1] || global[0] % local[0] || global[1] % local[1])
        return dev_fail(d, "tile %zux%zu does not divide %zux%zu", local[0], local[1], global[0], global[1]);
    struct omp_launch L = {{global[0], global[1]}, {local[0], local[1]}, {global[0] / local[0], global[1] / local[1]}};
    void *argv[KARG_MAX];
    for (int i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case KARG_BUF: argv[i] = args[i].buf->mem; break;
        case KARG_INT: argv[i] = (void *)&args[i].i; break;
        case KARG_FLOAT: argv[i] = (void *)&args[i].f; break;
        case KARG_BYTES: argv[i] = (void *)args[i].val.ptr; break;
        default: argv[i] = NULL; break;
        }
    }
    k->fn(&L, argv);
    return 0;
}

static struct bound *omp_bind(struct dev *d, struct kernel *k, int nargs, const struct karg *args) {
    if (nargs > KARG_MAX) return dev_fail(d, "too many kernel arguments"), NULL;
    struct bound *b = xcalloc(1, sizeof *b);
    b->fn = k->fn;
    for (int i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case KARG_BUF: b->argv[i] = args[i].buf->mem; break;
        case KARG_INT:
            b->vals[i].i = args[i].i;
            b->argv[i] = &b->vals[i];
            break;
        case KARG_FLOAT:
            b->vals[i].f = args[i].f;
            b->argv[i] = &b->vals[i];
            break;
        case KARG_BYTES:
            b->bytes[i] = xcalloc(1, args[i].val.size ? args[i].val.size : 1);
            memcpy(b->bytes[i], args[i].val.ptr, args[i].val.size);
            b->argv[i] = b->bytes[i];
            break;
        default: b->argv[i] = NULL; break;
        }
    }
    return b;
}

static void omp_bound_free(struct dev *d, struct bound *b) {
    (void)d;
    if (!b) return;
    for (int i = 0; i < KARG_MAX; i++) free(b->bytes[i]);
    free(b);
}

static int omp_run_bound(struct dev *d, struct bound *b, const size_t global[2], const size_t local[2]) {
    if (!local[0] || !local[1] || global[0] % local[0] || global[1] % local[1])
        return dev_fail(d, "tile %zux%zu does not divide %zux%zu", local[0], local[1], global[0], global[1]);
    struct omp_launch L = {{global[0], global[1]}, {local[0], local[1]}, {global[0] / local[0], global[1] / local[1]}};
    b->fn(&L, b->argv);
    return 0;
}

static int omp_launch_bound(struct dev *d, struct bound *b, const size_t global[2], const size_t local[2]) {
    struct recording *r = ((struct omp_dev *)d->ctx)->rec;
    if (!r) return omp_run_bound(d, b, global, local);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->l = realloc(r->l, (size_t)r->cap * sizeof *r->l);
        if (!r->l) abort();
    }
    r->l[r->n++] = (struct rec_launch){b, {global[0], global[1]}, {local[0], local[1]}};
    return 0;
}

static int omp_record_begin(struct dev *d) {
    struct omp_dev *o = d->ctx;
    if (o->rec) return dev_fail(d, "record_begin while recording");
    o->rec = xcalloc(1, sizeof *o->rec);
    return 0;
}

static struct recording *omp_record_end(struct dev *d) {
    struct omp_dev *o = d->ctx;
    struct recording *r = o->rec;
    if (!r) return dev_fail(d, "record_end without record_begin"), NULL;
    o->rec = NULL;
    return r;
}

/* Launches are synchronous here, so a replay is the list run again: it
 * checks the schedule's recording logic, not a launch-cost saving. */
static int omp_replay(struct dev *d, struct recording *r, long times) {
    for (long t = 0; t < times; t++)
        for (int i = 0; i < r->n; i++)
            if (omp_run_bound(d, r->l[i].b, r->l[i].global, r->l[i].local)) return -1;
    return 0;
}

static void omp_recording_free(struct dev *d, struct recording *r) {
    (void)d;
    if (!r) return;
    free(r->l);
    free(r);
}

/* The kernel's parallel region is the resident grid: one group per core,
 * held together by OpenMP barriers inside the kernel. */
static int omp_launch_resident(struct dev *d, struct kernel *k, size_t *groups, const size_t local[2], int nargs,
                               const struct karg *args) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && *groups > (size_t)cpus) *groups = (size_t)cpus;
    if (*groups == 0) *groups = 1;
    const size_t global[2] = {*groups * local[0], local[1]};
    return omp_launch(d, k, global, local, nargs, args);
}

static int omp_address(struct dev *d, struct buf *b, uint64_t *addr) {
    (void)d;
    *addr = (uint64_t)(uintptr_t)b->mem;
    return 0;
}

static int omp_finish(struct dev *d) {
    (void)d; /* launches are synchronous */
    return 0;
}

static int omp_mark(struct dev *d, int slot) {
    ((struct omp_dev *)d->ctx)->marks[slot] = clock_now();
    return 0;
}

static int omp_elapsed(struct dev *d, double *seconds) {
    struct omp_dev *o = d->ctx;
    *seconds = o->marks[1] - o->marks[0];
    return 0;
}

/* Host threads over tiles, no work-groups; a recording replays its launches
 * in order, and one parallel region holds every thread at once (a grid-wide
 * barrier is an OpenMP barrier). */
static void omp_caps(struct device_info *info) {
    info->caps.recorded_launches = 1;
    info->caps.coresident_grid = 1;
}

static const char *omp_compiler_refusal(const struct device_info *info, const char *cc, const char *opt, char *why,
                                        size_t n) {
    (void)info;
    (void)opt;
    const int f = cc_family_of(cc);
    if (f < 0) return snprintf(why, n, "cc=%s: not a compiler family the harness knows (gcc, clang)", cc), why;
    const struct compiler *c = compiler_get((enum cc_family)f, ROLE_HOST);
    if (f == CC_GCC && !omp_cc_version()[0]) return snprintf(why, n, "cc=gcc: no C compiler '%s'", omp_cc()), why;
    if (f == CC_CLANG && c->why[0]) return snprintf(why, n, "%s", c->why), why;
    return NULL;
}

const struct backend_ops backend_openmp = {
    .name = "openmp",
    .list = omp_list,
    .open = omp_open,
    .close = omp_close,
    .build = omp_build,
    .compiler_refusal = omp_compiler_refusal,
    .program_free = omp_program_free,
    .kernel = omp_kernel,
    .alloc = omp_alloc,
    .buf_free = omp_buf_free,
    .write = omp_write,
    .read = omp_read,
    .copy = omp_copy,
    .launch = omp_launch,
    .address = omp_address,
    .bind = omp_bind,
    .launch_bound = omp_launch_bound,
    .bound_free = omp_bound_free,
    .record_begin = omp_record_begin,
    .record_end = omp_record_end,
    .replay = omp_replay,
    .recording_free = omp_recording_free,
    .launch_resident = omp_launch_resident,
    .finish = omp_finish,
    .mark = omp_mark,
    .elapsed = omp_elapsed,
    .source_suffix = "_omp.c",
    .fma_option = "-ffp-contract=fast", /* -std=c11 turns contraction off */
    .fast_math_option = "-ffast-math",
    .no_contract_option = "-ffp-contract=off",
    .caps = omp_caps,
    .launch_cost_src = launch_cost_src_openmp,
};
