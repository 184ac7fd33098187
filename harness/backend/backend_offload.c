/* The directive backends' shared implementation (OpenACC, OpenMP target).
 * Sources are C files with directives, built at run time into shared
 * objects by an offloading compiler (OFFLOAD_CC, else gcc-12, else gcc, with
 * -foffload=nvptx-none; OFFLOAD_FLAGS replaces the offload options), cached
 * by build_cache and loaded with dlopen, as the OpenMP backend does. The
 * harness is built without offloading, so the runtime calls (device count,
 * device memory, the copy loop) live in offload/offload_rt.c, built the same
 * way and loaded once per process.
 *
 * Which libgomp: a process loads one libgomp.so.1, and only the offloading
 * compiler's own (with its nvptx plugin) sees the GPU; another silently runs
 * every region on the host. So a device is listed only when the loaded
 * runtime counts an accelerator, open() checks that a region really ran off
 * the host, and the note for none names the library that was loaded. The
 * host fallback is a device only when asked for (HARNESS_OFFLOAD_HOST=1), by
 * the name "<backend>:host" and kind cpu, so it is never taken for a GPU. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_cache.h"
#include "offload.h"
#include "omp_kernel.h"
#include "util.h"

typedef void offload_kernel_fn(const struct omp_launch *L, void *const *args);

struct offload_runtime {
    void *so;
    int (*devices)(void);
    int (*select)(int accel, int num);
    int (*offloaded)(void);
    void (*name)(char *out, size_t n);
    size_t (*memory)(void);
    void *(*alloc)(size_t bytes);
    void (*free)(void *p);
    int (*to)(void *dev, const void *host, size_t bytes);
    int (*from)(void *host, const void *dev, size_t bytes);
    void (*copy)(float *dst, const float *src, size_t n);
    void (*wait)(void);
    char libgomp[PATH_MAX]; /* the runtime library the process loaded */
};

struct buf {
    void *mem; /* a device address */
    size_t bytes;
};
struct kernel {
    offload_kernel_fn *fn;
    struct kernel *next;
    char name[128];
};
struct program {
    void *so;
    struct kernel *kernels;
};
struct offload_dev {
    struct offload_runtime *rt;
    double marks[2];
};

/* ---- the compiler ---- */

/* 1 when name is an executable file in a folder of PATH. */
static int program_on_path(const char *name) {
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const size_t len = strcspn(p, ":");
        char full[PATH_MAX];
        str_fmt(full, sizeof full, "%.*s/%s", (int)len, p, name);
        if (len && access(full, X_OK) == 0) return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

static const char *offload_cc(void) {
    static char cc[PATH_MAX];
    if (cc[0]) return cc;
    const char *env = getenv("OFFLOAD_CC");
    if (env && *env) str_copy(cc, sizeof cc, env);
    else if (program_on_path("gcc-12")) str_copy(cc, sizeof cc, "gcc-12");
    else str_copy(cc, sizeof cc, "gcc");
    return cc;
}

/* The target: OFFLOAD_FLAGS (the GPU host kit exports it), else nvptx-none
 * with sm_80 (the toolchain's default ISA is too old for current ptxas).
 * Always with the target's own libm and libatomic: sqrtf, and the 16-byte
 * compare-and-swap of OpenMP's combined reductions. */
static const char *offload_flags(void) {
    static char flags[1024];
    if (flags[0]) return flags;
    const char *env = getenv("OFFLOAD_FLAGS");
    str_fmt(flags, sizeof flags, "%s -foffload-options=-lm -foffload-options=-latomic",
            env && *env ? env : "-foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80");
    return flags;
}

static const char *offload_cc_version(void) {
    static char version[128];
    if (version[0]) return version;
    struct argv_list a = {0};
    argv_add(&a, offload_cc());
    argv_add(&a, "--version");
    argv_first_line(&a, version, sizeof version);
    argv_free(&a);
    return version;
}

/* The first line of a build log that says what is wrong, for one-line notes. */
static void first_error(const char *log, char *out, size_t n) {
    const char *line = log, *pick = NULL;
    while (line && *line) {
        if (strstr(line, "error") || strstr(line, "not found") || strstr(line, "No such")) {
            pick = line;
            break;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    if (!pick) pick = log;
    size_t len = strcspn(pick, "\n");
    if (len >= n) len = n - 1;
    memcpy(out, pick, len);
    out[len] = 0;
}

/* Builds `source` into the cached shared object `so`: 0, or -1 with the
 * compiler's log in err. */
static int build_so(const struct offload_model *m, const char *source, const char *options, char *so, size_t son,
                    char *err, size_t errn) {
    char *full = source_with_includes(source, err, errn);
    if (!full) return -1;
    /* -fno-math-errno: a kernel's sqrtf is then PTX's sqrt.rn, as CUDA's is.
     * With errno GCC kept a call to the target libm's sqrtf (for a negative
     * argument, to set an errno no one reads) on each path, and a call in a
     * kernel ties up registers: LBM a09's step used 183 registers (ptxas
     * -v, sm_90), 113 without it. No result changes. */
    const char *flags = "-O3 -fPIC -shared -std=c11 -fno-math-errno";
    char abi_path[PATH_MAX];
    char *abi = file_read_all(repo_path(abi_path, sizeof abi_path, "harness/backend/omp_kernel.h"), NULL, NULL, 0);
    char key[17], compiler[1024];
    str_fmt(compiler, sizeof compiler, "%s|%s|%s %s %s|%016llx", offload_cc(), offload_cc_version(), flags,
            m->model_flag, offload_flags(), (unsigned long long)hash_str(abi ? abi : "", 0));
    free(abi);
    cache_key(key, full, options, compiler, m->backend);
    free(full);
    cache_path(so, son, key, ".so");
    struct stat st;
    if (stat(so, &st) == 0 && cache_check(so) == 0) return 0; /* else absent or not ours: built afresh */
    char tmp[PATH_MAX + 32], log[PATH_MAX + 48], inc[PATH_MAX];
    str_fmt(tmp, sizeof tmp, "%s.%ld.tmp", so, (long)getpid());
    str_fmt(log, sizeof log, "%s.log", tmp);
    repo_path(inc, sizeof inc, "harness/backend");
    /* An argument vector, not a shell line: OFFLOAD_CC is one word and
     * OFFLOAD_FLAGS and the options are words, none of them run as a command. */
    struct argv_list cmd = {0};
    argv_add(&cmd, offload_cc());
    argv_words(&cmd, flags);
    argv_words(&cmd, m->model_flag);
    argv_words(&cmd, offload_flags());
    int rc = cache_compile(&cmd, options, tmp, source, log);
    if (rc != 0) {
        char *text = file_read_all(log, NULL, NULL, 0);
        err_set(err, errn, "%s failed:\n%s", offload_cc(), text && *text ? text : "(no log)");
        free(text);
        unlink(log);
        unlink(tmp);
        return -1;
    }
    unlink(log);
    rename(tmp, so); /* atomic: concurrent builders agree on one file */
    cache_seal(so);
    return 0;
}

/* ---- the runtime ---- */

/* Loads offload/offload_rt.c once per process; NULL with a one-line reason. */
static struct offload_runtime *runtime(struct offload_model *m, char *why, size_t whyn) {
    char *fail = m->failure; /* sticky: a compiler that failed once is not run again */
    if (m->rt) return m->rt;
    if (fail[0]) return err_set(why, whyn, "%s", fail), NULL;
    char src[PATH_MAX], so[PATH_MAX], err[4096];
    repo_path(src, sizeof src, "harness/backend/offload/offload_rt.c");
    if (build_so(m, src, m->rt_define, so, sizeof so, err, sizeof err)) {
        char line[300];
        first_error(err + strcspn(err, "\n") + (err[strcspn(err, "\n")] ? 1 : 0), line, sizeof line);
        /* One short note per absent backend (issue 34): GCC without its
         * offloading package says so with a 300-character search path. */
        if (strstr(line, "mkoffload"))
            str_copy(line, sizeof line, "no nvptx offloading installed (gcc-N-offload-nvptx: README, Directive backends)");
        else if (strlen(line) > 120)
            strcpy(line + 117, "...");
        err_set(fail, sizeof m->failure, "%s cannot build %s offload code: %s", offload_cc(), m->title, line);
        return err_set(why, whyn, "%s", fail), NULL;
    }
    /* With the default policy, libgomp runs a target region on the host when
     * the device fails it: a silent fallback inside a timed run. MANDATORY
     * makes that an error (regions sent to the initial device, the named host
     * fallback, still run). libgomp reads it once, when it is first loaded. */
    setenv("OMP_TARGET_OFFLOAD", "MANDATORY", 0);
    /* NODELETE: libgomp keeps threads and device state for the process. */
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        err_set(fail, sizeof m->failure, "dlopen of the %s runtime: %s", m->title, dlerror());
        return err_set(why, whyn, "%s", fail), NULL;
    }
    struct offload_runtime *rt = xcalloc(1, sizeof *rt);
    rt->so = h;
    struct {
        void *slot;
        const char *name;
    } syms[] = {{&rt->devices, "ort_devices"}, {&rt->select, "ort_select"}, {&rt->offloaded, "ort_offloaded"},
                {&rt->name, "ort_name"},       {&rt->memory, "ort_memory"}, {&rt->alloc, "ort_alloc"},
                {&rt->free, "ort_free"},       {&rt->to, "ort_to"},         {&rt->from, "ort_from"},
                {&rt->copy, "ort_copy"},       {&rt->wait, "ort_wait"}};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *sym = dlsym(h, syms[i].name);
        if (!sym) {
            err_set(fail, sizeof m->failure, "the %s runtime lacks %s", m->title, syms[i].name);
            free(rt);
            return err_set(why, whyn, "%s", fail), NULL;
        }
        memcpy(syms[i].slot, &sym, sizeof sym); /* POSIX: dlsym results convert to function pointers */
    }
    Dl_info info;
    void *count = dlsym(h, m->count_symbol);
    str_copy(rt->libgomp, sizeof rt->libgomp, count && dladdr(count, &info) && info.dli_fname ? info.dli_fname : "?");
    m->rt = rt;
    return rt;
}

/* Where the compiler's own libgomp is, for the note when another was loaded. */
static void compiler_libdir(char *out, size_t n) {
    const char *env = getenv("OFFLOAD_LIBDIR");
    if (env && *env) {
        str_copy(out, n, env);
        return;
    }
    out[0] = 0;
    struct argv_list a = {0};
    argv_add(&a, offload_cc());
    argv_add(&a, "-print-file-name=libgomp.so.1");
    char path[PATH_MAX] = "";
    argv_first_line(&a, path, sizeof path);
    argv_free(&a);
    char real[PATH_MAX];
    if (path[0] == '/' && realpath(path, real)) {
        char *slash = strrchr(real, '/');
        if (slash) *slash = 0;
        str_copy(out, n, real);
    }
}

/* The CUDA driver's view of accelerator i (GCC's nvptx plugin numbers the
 * devices in the driver's order): its multiprocessors, compute capability
 * and PCI address, for `devices`, peak's FP32 grid and the energy meter,
 * which the directive runtimes do not tell. Left as they are where the
 * driver cannot say. */
static void cuda_details(int i, struct device_info *di) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return;
    int (*init)(unsigned), (*get)(int *, int), (*attr)(int *, int, int), (*pci)(char *, int, int);
    void *sym[4] = {dlsym(h, "cuInit"), dlsym(h, "cuDeviceGet"), dlsym(h, "cuDeviceGetAttribute"),
                    dlsym(h, "cuDeviceGetPCIBusId")};
    if (!sym[0] || !sym[1] || !sym[2] || !sym[3]) return;
    memcpy(&init, &sym[0], sizeof sym[0]);
    memcpy(&get, &sym[1], sizeof sym[1]);
    memcpy(&attr, &sym[2], sizeof sym[2]);
    memcpy(&pci, &sym[3], sizeof sym[3]);
    int dev = 0, sms = 0, major = 0, minor = 0;
    if (init(0) != 0 || get(&dev, i) != 0) return;
    enum { MULTIPROCESSORS = 16, CC_MAJOR = 75, CC_MINOR = 76 }; /* CUdevice_attribute values */
    if (attr(&sms, MULTIPROCESSORS, dev) == 0 && sms > 0) di->compute_units = (unsigned)sms;
    if (attr(&major, CC_MAJOR, dev) == 0 && attr(&minor, CC_MINOR, dev) == 0 && major > 0)
        str_fmt(di->arch, sizeof di->arch, "sm_%d%d", major, minor);
    if (pci(di->pci_bus, (int)sizeof di->pci_bus, dev) != 0) di->pci_bus[0] = 0;
}

static int host_fallback_wanted(void) {
    const char *v = getenv("HARNESS_OFFLOAD_HOST");
    return v && *v && strcmp(v, "0") != 0;
}

static void fill_common(const struct offload_model *m, struct device_info *di) {
    str_copy(di->backend, sizeof di->backend, m->backend);
    str_fmt(di->driver, sizeof di->driver, "%s %s", offload_cc_version(), m->model_flag);
    di->max_item[2] = 1;
}

int offload_list(struct offload_model *m, struct device_info **out, char *note, size_t note_n) {
    *out = NULL;
    char why[512];
    struct offload_runtime *rt = runtime(m, why, sizeof why);
    if (!rt) {
        err_set(note, note_n, "%s", why);
        return 0;
    }
    const int n = rt->devices();
    if (n > 0) {
        struct device_info *di = xcalloc((size_t)n, sizeof *di);
        for (int i = 0; i < n; i++) {
            fill_common(m, &di[i]);
            str_fmt(di[i].spec, sizeof di[i].spec, "%s:%d", m->backend, i);
            str_copy(di[i].kind, sizeof di[i].kind, "gpu");
            str_copy(di[i].vendor, sizeof di[i].vendor, "NVIDIA");
            char name[200] = "";
            if (rt->select(1, i) == 0) {
                rt->name(name, sizeof name);
                di[i].global_mem = di[i].max_alloc = rt->memory();
            }
            str_fmt(di[i].name, sizeof di[i].name, "%s (nvptx-none offload)", name[0] ? name : "NVIDIA GPU");
            cuda_details(i, &di[i]);
            /* vector_length / thread_limit up to a CUDA block; y multiplies
             * the cells a lane covers (README.md: the knob vocabulary). */
            di[i].max_wg = 1u << 16;
            di[i].max_item[0] = 1024;
            di[i].max_item[1] = 1u << 16;
            di[i].index[0] = 1;
            di[i].index[1] = i;
        }
        *out = di;
        return n;
    }
    if (host_fallback_wanted()) {
        struct device_info *di = xcalloc(1, sizeof *di);
        fill_common(m, di);
        str_fmt(di->spec, sizeof di->spec, "%s:host", m->backend);
        str_copy(di->kind, sizeof di->kind, "cpu");
        str_copy(di->vendor, sizeof di->vendor, "host");
        str_fmt(di->name, sizeof di->name, "%s host fallback (no accelerator; HARNESS_OFFLOAD_HOST)", m->title);
        di->compute_units = 1;
        di->max_wg = 1u << 16;
        di->max_item[0] = di->max_item[1] = 1u << 16;
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        di->global_mem = di->max_alloc = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        di->index[0] = 0;
        *out = di;
        return 1;
    }
    char dir[PATH_MAX];
    compiler_libdir(dir, sizeof dir);
    char loaded[PATH_MAX];
    str_copy(loaded, sizeof loaded, rt->libgomp);
    char *slash = strrchr(loaded, '/');
    if (slash) *slash = 0;
    char real[PATH_MAX];
    const int other = dir[0] && realpath(loaded, real) && strcmp(real, dir) != 0;
    err_set(note, note_n, "no accelerator: %s reports 0 devices%s%s%s (HARNESS_OFFLOAD_HOST=1 lists %s:host)",
            rt->libgomp, other ? "; the compiler's runtime is in " : "", other ? dir : "",
            other ? ": set LD_LIBRARY_PATH to it" : "", m->backend);
    return 0;
}

struct dev *offload_open(struct offload_model *m, const struct device_info *info, char *err, size_t n) {
    char why[512];
    struct offload_runtime *rt = runtime(m, why, sizeof why);
    if (!rt) return err_set(err, n, "%s", why), NULL;
    const int accel = info->index[0];
    if (rt->select(accel, info->index[1]) != 0)
        return err_set(err, n, "%s: the runtime (%s) has no such device", info->spec, rt->libgomp), NULL;
    /* Never time a silent host fallback as the GPU. */
    if (accel && !rt->offloaded())
        return err_set(err, n, "%s: a region ran on the host, not the accelerator (runtime %s)", info->spec,
                       rt->libgomp),
               NULL;
    struct dev *d = xcalloc(1, sizeof *d);
    d->ops = m->ops;
    d->info = *info;
    struct offload_dev *o = xcalloc(1, sizeof *o);
    o->rt = rt;
    d->ctx = o;
    return d;
}

void offload_close(struct dev *d) {
    if (!d) return;
    free(d->ctx);
    free(d);
}

struct program *offload_build(struct offload_model *m, struct dev *d, const char *source, const char *options) {
    char so[PATH_MAX];
    if (build_so(m, source, options, so, sizeof so, d->err, sizeof d->err)) return NULL;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return dev_fail(d, "dlopen %s: %s", so, dlerror()), NULL;
    struct program *p = xcalloc(1, sizeof *p);
    p->so = h;
    return p;
}

void offload_program_free(struct dev *d, struct program *p) {
    (void)d;
    if (!p) return;
    for (struct kernel *k = p->kernels, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    dlclose(p->so); /* a no-op for the code itself: it was opened NODELETE */
    free(p);
}

struct kernel *offload_kernel(struct dev *d, struct program *p, const char *name) {
    for (struct kernel *k = p->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) return k;
    void *sym = dlsym(p->so, name);
    if (!sym) return dev_fail(d, "no kernel '%s' in the %s program", name, d->ops->name), NULL;
    struct kernel *k = xcalloc(1, sizeof *k);
    memcpy(&k->fn, &sym, sizeof sym);
    str_copy(k->name, sizeof k->name, name);
    k->next = p->kernels;
    p->kernels = k;
    return k;
}

static struct offload_runtime *rt_of(struct dev *d) { return ((struct offload_dev *)d->ctx)->rt; }

struct buf *offload_alloc(struct dev *d, size_t bytes) {
    void *mem = rt_of(d)->alloc(bytes);
    if (!mem) return dev_fail(d, "device out of memory allocating %zu bytes", bytes), NULL;
    struct buf *b = xcalloc(1, sizeof *b);
    b->mem = mem;
    b->bytes = bytes;
    return b;
}

void offload_buf_free(struct dev *d, struct buf *b) {
    if (!b) return;
    rt_of(d)->free(b->mem);
    free(b);
}

int offload_write(struct dev *d, struct buf *b, size_t off, size_t bytes, const void *src) {
    if (off + bytes > b->bytes) return dev_fail(d, "write past the end of a buffer");
    rt_of(d)->wait(); /* queued regions may still read it */
    return rt_of(d)->to((char *)b->mem + off, src, bytes) ? dev_fail(d, "copy to the device failed") : 0;
}

int offload_read(struct dev *d, struct buf *b, size_t off, size_t bytes, void *dst) {
    if (off + bytes > b->bytes) return dev_fail(d, "read past the end of a buffer");
    rt_of(d)->wait();
    return rt_of(d)->from(dst, (char *)b->mem + off, bytes) ? dev_fail(d, "copy from the device failed") : 0;
}

/* The backend's own loop (peak's copy): floats, as the kernels move them. */
int offload_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    if (bytes > dst->bytes || bytes > src->bytes) return dev_fail(d, "copy past the end of a buffer");
    if (bytes % sizeof(float)) return dev_fail(d, "copy of %zu bytes: not whole floats", bytes);
    rt_of(d)->copy(dst->mem, src->mem, bytes / sizeof(float));
    return 0;
}

int offload_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                   const struct karg *args) {
    if (nargs > KARG_MAX) return dev_fail(d, "too many kernel arguments");
    if (!local[0] || !local[1] || global[0] % local[0] || global[1] % local[1])
        return dev_fail(d, "shape %zux%zu does not divide %zux%zu", local[0], local[1], global[0], global[1]);
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

int offload_address(struct dev *d, struct buf *b, uint64_t *addr) {
    (void)d;
    *addr = (uint64_t)(uintptr_t)b->mem;
    return 0;
}

int offload_finish(struct dev *d) {
    rt_of(d)->wait();
    return 0;
}

/* Host clock after a wait: the directive models expose no device events. */
int offload_mark(struct dev *d, int slot) {
    rt_of(d)->wait();
    ((struct offload_dev *)d->ctx)->marks[slot] = clock_now();
    return 0;
}

int offload_elapsed(struct dev *d, double *seconds) {
    struct offload_dev *o = d->ctx;
    *seconds = o->marks[1] - o->marks[0];
    return 0;
}

/* Directive programs: the program owns its loops, reductions and data
 * movement, launched whole (apps' schedules ask for `directives`). */
void offload_caps(struct device_info *info) { info->caps.directives = 1; }
