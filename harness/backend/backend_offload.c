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

#include "backend/build_cache.h"
#include "backend/compilers.h"
#include "backend/offload.h"
#include "backend/omp_kernel.h"
#include "base/util.h"

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
    enum cc_family family;  /* the compiler that built it */
};

struct buf {
    void *mem; /* a device address */
    size_t bytes;
    struct offload_runtime *rt; /* the runtime that allocated it, which alone may use it */
};
struct kernel {
    offload_kernel_fn *fn;
    struct offload_runtime *rt; /* its program's */
    struct kernel *next;
    char name[128];
};
struct program {
    void *so;
    struct kernel *kernels;
    struct offload_runtime *rt; /* the runtime of the compiler that built it */
};
struct offload_dev {
    struct offload_runtime *rt;    /* the current one: the last program's */
    int checked[CC_FAMILIES];      /* runtimes whose device selection and offload were checked */
    double marks[2];
};

/* ---- the compiler ---- */

/* The family's compiler for this model, or NULL with why (OpenACC has GCC alone). */
static const struct compiler *model_compiler(const struct offload_model *m, enum cc_family f, char *why, size_t n) {
    if (f == CC_CLANG && !m->clang)
        return err_set(why, n, "cc=clang: clang has no %s (cc=gcc only)", m->title), NULL;
    const struct compiler *c = compiler_get(f, ROLE_OFFLOAD);
    if (c->why[0]) return err_set(why, n, "%s", c->why), NULL;
    return c;
}

/* The CUDA driver's count of GPUs and the first one's architecture
 * ("sm_90"): what clang compiles device code for. 0 without a driver. */
static int cuda_gpus(char *arch, size_t n);

/* The words that make `c` offload for this model: GCC's nvptx target
 * (OFFLOAD_FLAGS replaces it; the GPU host kit exports it), clang's for the
 * GPU at hand (compilers.c), or for no GPU plain -fopenmp, where target
 * regions are host code (the host fallback). 0, or -1 with why. */
static int target_flags(const struct offload_model *m, const struct compiler *c, char *out, size_t n, char *why,
                        size_t whyn) {
    if (c->family == CC_GCC) {
        /* sm_80: the toolchain's default ISA is too old for current ptxas.
         * Always with the target's own libm and libatomic: sqrtf, and the
         * 16-byte compare-and-swap of OpenMP's combined reductions. */
        const char *env = getenv("OFFLOAD_FLAGS");
        str_fmt(out, n, "%s %s -foffload-options=-lm -foffload-options=-latomic", m->model_flag,
                env && *env ? env : "-foffload=nvptx-none -foffload-options=nvptx-none=-misa=sm_80");
        return 0;
    }
    char arch[32];
    if (!cuda_gpus(arch, sizeof arch)) {
        /* Target regions compiled as host code; the device memory calls
         * (omp_target_alloc, ...) are libomptarget's, not libomp's, and it
         * must be initialised by hand (offload_rt.c, ORT_TGT_INIT). */
        str_fmt(out, n, "%s -L%s -lomptarget -DORT_TGT_INIT", m->model_flag, c->libdir);
        return 0;
    }
    return clang_offload_flags(c, arch, out, n, why, whyn);
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

/* Keeps ptxas's report (registers and spills per kernel) from a build log
 * beside the product, as <so>.ptxas: the LLVM kit's ptxas runs with -v
 * (scripts/llvm-kit/ptxas). Nothing when the log has none. */
static void keep_ptxas_report(const char *log, const char *so) {
    char *text = file_read_all(log, NULL, NULL, 0);
    if (!text || !strstr(text, "Compiling entry function")) return free(text);
    char path[PATH_MAX + 8];
    str_fmt(path, sizeof path, "%s.ptxas", so);
    FILE *f = fopen(path, "w");
    for (char *line = text; f && line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol) *eol = 0;
        if (strstr(line, "Compiling entry function") || strstr(line, "spill stores") || strstr(line, " registers"))
            fprintf(f, "%s\n", line);
        line = eol ? eol + 1 : NULL;
    }
    if (f) fclose(f);
    free(text);
}

/* One note line per kernel of a GPU build from its <so>.ptxas: "kernel:
 * 40 registers, 0 bytes spilled", so a compiler's or level's cost in
 * registers is seen beside its time; and the same kept with the device
 * (d->resources, stored with the config's measurement), its local bytes
 * ptxas's stack frame, which holds the spills as CUDA's local size does. */
static void print_ptxas_report(struct dev *d, const char *so, const char *backend, enum cc_family f) {
    char path[PATH_MAX + 8];
    str_fmt(path, sizeof path, "%s.ptxas", so);
    char *text = file_read_all(path, NULL, NULL, 0);
    if (!text) return;
    char kernel[160] = "?";
    int stores = -1, loads = -1, stack = -1;
    for (char *line = text; line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol) *eol = 0;
        const char *entry = strstr(line, "Compiling entry function '");
        const char *used = strstr(line, "Used ");
        if (entry) {
            entry += 26;
            const char *name = entry;
            if (!strncmp(name, "__omp_offloading_", 17)) /* __omp_offloading_<dev>_<file>_<function>_l<line> */
                for (int skip = 0, i = 17; skip < 2 && name[i]; i++)
                    if (name[i] == '_' && ++skip == 2) name += i + 1;
            str_fmt(kernel, sizeof kernel, "%.*s", (int)strcspn(name, "'"), name);
            stores = loads = stack = -1;
        } else if (strstr(line, "spill stores")) {
            sscanf(strstr(line, "bytes stack frame, ") ? strstr(line, "bytes stack frame, ") + 19 : line,
                   "%d bytes spill stores, %d bytes spill loads", &stores, &loads);
            if (strstr(line, "bytes stack frame")) sscanf(line + strcspn(line, "0123456789"), "%d", &stack);
        } else if (used) {
            dev_resources_add(d, kernel, atoi(used + 5), stack >= 0 ? stack : stores);
            fprintf(stderr, "note: %s cc=%s: kernel %s: %d registers, %d/%d bytes spilled (stores/loads)\n", backend,
                    cc_family_name(f), kernel, atoi(used + 5), stores, loads);
        }
        line = eol ? eol + 1 : NULL;
    }
    free(text);
}

/* Builds `source` with the compiler `choice` names into the cached shared
 * object `so`: 0, or -1 with the compiler's log (or why it cannot) in err. */
static int build_so(const struct offload_model *m, const struct compiler_choice *choice, const char *source,
                    const char *options, char *so, size_t son, char *err, size_t errn) {
    const struct compiler *c = model_compiler(m, choice->family, err, errn);
    char target[1024], rpath[PATH_MAX + 16];
    if (!c || target_flags(m, c, target, sizeof target, err, errn)) return -1;
    compiler_rpath(c, rpath, sizeof rpath);
    char *full = source_with_includes(source, err, errn);
    if (!full) return -1;
    /* -fno-math-errno: a kernel's sqrtf is then PTX's sqrt.rn, as CUDA's is.
     * With errno GCC kept a call to the target libm's sqrtf (for a negative
     * argument, to set an errno no one reads) on each path, and a call in a
     * kernel ties up registers: LBM a09's step used 183 registers (ptxas
     * -v, sm_90), 113 without it. No result changes. */
    char flags[PATH_MAX + 64];
    str_fmt(flags, sizeof flags, "%s -fPIC -shared -std=c11 -fno-math-errno%s", choice->opt, rpath);
    char abi_path[PATH_MAX];
    char *abi = file_read_all(repo_path(abi_path, sizeof abi_path, "harness/backend/omp_kernel.h"), NULL, NULL, 0);
    char key[17], compiler[3 * PATH_MAX];
    str_fmt(compiler, sizeof compiler, "%s|%s|%s %s|%016llx", c->path, c->version, flags, target,
            (unsigned long long)hash_str(abi ? abi : "", 0));
    free(abi);
    cache_key(key, full, options, compiler, m->backend);
    free(full);
    cache_path(so, son, key, ".so");
    struct stat st;
    if (stat(so, &st) == 0 && cache_check(so) == 0) return 0; /* else absent or not ours: built afresh */
    char tmp[PATH_MAX + 32], log[PATH_MAX + 48];
    str_fmt(tmp, sizeof tmp, "%s.%ld.tmp", so, (long)getpid());
    str_fmt(log, sizeof log, "%s.log", tmp);
    /* An argument vector, not a shell line: OFFLOAD_CC is one word and
     * OFFLOAD_FLAGS and the options are words, none of them run as a command. */
    struct argv_list cmd = {0};
    argv_add(&cmd, c->path);
    argv_words(&cmd, flags);
    argv_words(&cmd, target);
    int rc = cache_compile(&cmd, options, tmp, source, log);
    if (rc != 0) {
        char *text = file_read_all(log, NULL, NULL, 0);
        err_set(err, errn, "%s failed:\n%s", c->path, text && *text ? text : "(no log)");
        free(text);
        unlink(log);
        unlink(tmp);
        return -1;
    }
    keep_ptxas_report(log, so);
    unlink(log);
    rename(tmp, so); /* atomic: concurrent builders agree on one file */
    cache_seal(so);
    return 0;
}

/* ---- the runtime ---- */

/* GCC's offloading runtime, loaded from the compiler's own folder before
 * anything asks for libgomp.so.1 by name: a kernel's run path reaches its
 * own NEEDED only, and libgomp dlopens its nvptx plugin by bare name, which
 * the loader then finds only on LD_LIBRARY_PATH. Loaded first, each is
 * matched by its soname instead, so no LD_LIBRARY_PATH is asked of the user
 * (OFFLOAD_LIBDIR, where the GPU host's kit unpacked them, else the
 * compiler's libgomp.so). A process that already holds another libgomp
 * keeps it: offload_list's note says so. */
static void preload_libgomp(void) {
    const char *env = getenv("OFFLOAD_LIBDIR");
    const char *dir = env && *env ? env : compiler_get(CC_GCC, ROLE_OFFLOAD)->libdir;
    if (!dir[0]) return;
    const char *const libs[] = {"libgomp.so.1", "libgomp-plugin-nvptx.so.1"};
    for (size_t i = 0; i < 2; i++) {
        char path[PATH_MAX];
        str_fmt(path, sizeof path, "%.*s/%s", (int)strcspn(dir, ":"), dir, libs[i]);
        if (access(path, R_OK) == 0) dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE); /* else: the note on 0 devices */
    }
}

/* Loads offload/offload_rt.c, built by family f's compiler, once per
 * process; NULL with a one-line reason. Each compiler's kernels run on its
 * own runtime (libgomp, LLVM's libomp and libomptarget), so each family has
 * one: both may be loaded in one worker, each kernel linked to its own. */
static struct offload_runtime *runtime(struct offload_model *m, enum cc_family f, char *why, size_t whyn) {
    char *fail = m->failure[f]; /* sticky: a compiler that failed once is not run again */
    if (m->rt[f]) return m->rt[f];
    if (fail[0]) return err_set(why, whyn, "%s", fail), NULL;
    char src[PATH_MAX], so[PATH_MAX], err[4096];
    repo_path(src, sizeof src, "harness/backend/offload/offload_rt.c");
    const struct compiler_choice choice = {.family = f, .opt = "-O3"};
    if (build_so(m, &choice, src, m->rt_define, so, sizeof so, err, sizeof err)) {
        if (!strncmp(err, "cc=", 3)) { /* refused before any compiler ran: already one line */
            str_copy(fail, sizeof m->failure[f], err);
            return err_set(why, whyn, "%s", fail), NULL;
        }
        char line[300];
        first_error(err + strcspn(err, "\n") + (err[strcspn(err, "\n")] ? 1 : 0), line, sizeof line);
        /* One short note per absent backend (issue 34): GCC without its
         * offloading package says so with a 300-character search path. */
        if (strstr(line, "mkoffload"))
            str_copy(line, sizeof line, "no nvptx offloading installed (gcc-N-offload-nvptx: README, Directive backends)");
        else if (strlen(line) > 120)
            strcpy(line + 117, "...");
        err_set(fail, sizeof m->failure[f], "cc=%s: %s cannot build %s offload code: %s", cc_family_name(f),
                compiler_get(f, ROLE_OFFLOAD)->path, m->title, line);
        return err_set(why, whyn, "%s", fail), NULL;
    }
    /* With the default policy, libgomp runs a target region on the host when
     * the device fails it: a silent fallback inside a timed run. MANDATORY
     * makes that an error (regions sent to the initial device, the named host
     * fallback, still run). libgomp reads it once, when it is first loaded. */
    setenv("OMP_TARGET_OFFLOAD", "MANDATORY", 0);
    /* LLVM's libomp (19) runs host-fallback `target nowait` regions as
     * hidden helper tasks, and a later program's host teams in the same
     * worker then die on an assertion (kmp_barrier.cpp(2060):
     * tt_found_proxy_tasks || tt_hidden_helper_task_encountered; seen here
     * with LBM a06-async, then a01-given). With no GPU they buy nothing: off.
     * Read once, when libomp is first loaded. */
    char arch[32];
    if (f == CC_CLANG && !cuda_gpus(arch, sizeof arch)) setenv("LIBOMP_USE_HIDDEN_HELPER_TASK", "0", 0);
    if (f == CC_GCC) preload_libgomp();
    /* NODELETE: libgomp keeps threads and device state for the process. */
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        err_set(fail, sizeof m->failure[f], "cc=%s: dlopen of the %s runtime: %s", cc_family_name(f), m->title, dlerror());
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
            err_set(fail, sizeof m->failure[f], "cc=%s: the %s runtime lacks %s", cc_family_name(f), m->title, syms[i].name);
            free(rt);
            return err_set(why, whyn, "%s", fail), NULL;
        }
        memcpy(syms[i].slot, &sym, sizeof sym); /* POSIX: dlsym results convert to function pointers */
    }
    Dl_info info;
    void *count = dlsym(h, m->count_symbol);
    str_copy(rt->libgomp, sizeof rt->libgomp, count && dladdr(count, &info) && info.dli_fname ? info.dli_fname : "?");
    rt->family = f;
    m->rt[f] = rt;
    return rt;
}

/* Where the compiler's own libgomp is, for the note when another was loaded. */
static void compiler_libdir(char *out, size_t n) {
    const char *env = getenv("OFFLOAD_LIBDIR");
    str_copy(out, n, env && *env ? env : compiler_get(CC_GCC, ROLE_OFFLOAD)->libdir);
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
    /* these are the driver API's cuInit, cuDeviceGet, ... */
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

/* Asked once per process: it decides every build's target flags, and
 * cuInit and a device query are not free. */
static int cuda_gpus(char *arch, size_t n) {
    static int asked, gpus;
    static char first_arch[32];
    if (!asked) {
        asked = 1;
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        int (*init)(unsigned), (*count)(int *);
        void *sym[2] = {h ? dlsym(h, "cuInit") : NULL, h ? dlsym(h, "cuDeviceGetCount") : NULL};
        if (sym[0] && sym[1]) {
            memcpy(&init, &sym[0], sizeof sym[0]);
            memcpy(&count, &sym[1], sizeof sym[1]);
            if (init(0) != 0 || count(&gpus) != 0 || gpus < 1) gpus = 0;
        }
        struct device_info first = {0};
        if (gpus) cuda_details(0, &first);
        str_copy(first_arch, sizeof first_arch, first.arch[0] ? first.arch : "sm_90");
    }
    str_copy(arch, n, gpus ? first_arch : "");
    return gpus;
}

static int host_fallback_wanted(void) {
    const char *v = getenv("HARNESS_OFFLOAD_HOST");
    return v && *v && strcmp(v, "0") != 0;
}

/* The driver string (part of the device's fingerprint) names the compiler
 * whose runtime listed it: GCC's where it works, as before clang joined. */
static void fill_common(const struct offload_model *m, const struct offload_runtime *rt, struct device_info *di) {
    str_copy(di->backend, sizeof di->backend, m->backend);
    str_fmt(di->driver, sizeof di->driver, "%s %s", compiler_get(rt->family, ROLE_OFFLOAD)->version, m->model_flag);
    di->max_item[2] = 1;
}

/* The runtime that lists and opens the devices (and so runs `peak`'s copy
 * and the launch-cost probes): the first family whose runtime loads and
 * sees an accelerator, else the first that loads; HARNESS_OFFLOAD_CC=clang
 * (or gcc) tries that family first, to measure through it. */
static struct offload_runtime *listing_runtime(struct offload_model *m, char *why, size_t whyn) {
    struct offload_runtime *first = NULL;
    char each[CC_FAMILIES][512];
    const char *want = getenv("HARNESS_OFFLOAD_CC");
    const int lead = want && cc_family_of(want) > 0 ? cc_family_of(want) : 0;
    for (int i = 0; i < CC_FAMILIES; i++) {
        const int f = (lead + i) % CC_FAMILIES;
        struct offload_runtime *rt = runtime(m, (enum cc_family)f, each[f], sizeof each[f]);
        if (rt && rt->devices() > 0) return rt;
        if (rt && !first) first = rt;
    }
    if (!first && m->clang) err_set(why, whyn, "%.250s; %.200s", each[CC_GCC], each[CC_CLANG]);
    else if (!first) err_set(why, whyn, "%s", each[CC_GCC]);
    return first;
}

int offload_list(struct offload_model *m, struct device_info **out, char *note, size_t note_n) {
    *out = NULL;
    char why[512];
    struct offload_runtime *rt = listing_runtime(m, why, sizeof why);
    if (!rt) {
        err_set(note, note_n, "%s", why);
        return 0;
    }
    const int n = rt->devices();
    if (n > 0) {
        struct device_info *di = xcalloc((size_t)n, sizeof *di);
        for (int i = 0; i < n; i++) {
            fill_common(m, rt, &di[i]);
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
        fill_common(m, rt, di);
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
    /* GCC's runtime from another folder than its compiler's: a process
     * that had loaded another libgomp before (offload_rt's preload came
     * too late). */
    const int other = rt->family == CC_GCC && dir[0] && realpath(loaded, real) && strcmp(real, dir) != 0;
    /* The other compiler's reason, where it could not even load: with clang
     * listing, "no compiler '/x' runs" would otherwise go unsaid. */
    const char *refused = m->failure[rt->family == CC_GCC ? CC_CLANG : CC_GCC];
    err_set(note, note_n, "no accelerator: %s reports 0 devices%s%s%s%s%.120s (HARNESS_OFFLOAD_HOST=1 lists %s:host)",
            rt->libgomp, other ? "; the compiler's runtime is in " : "", other ? dir : "",
            other ? ": set LD_LIBRARY_PATH to it" : "", refused[0] && m->clang ? "; " : "",
            m->clang ? refused : "", m->backend);
    return 0;
}

/* Makes rt the device's current runtime: the device selected in it, and a
 * region checked to run off the host (once per runtime). 0, or -1 with err. */
static int use_runtime(struct dev *d, struct offload_runtime *rt, char *err, size_t n) {
    struct offload_dev *o = d->ctx;
    const struct device_info *info = &d->info;
    const int accel = info->index[0];
    if (!o->checked[rt->family]) {
        if (rt->select(accel, info->index[1]) != 0)
            return err_set(err, n, "%s: the runtime (%s) has no such device", info->spec, rt->libgomp);
        /* Never time a silent host fallback as the GPU. */
        if (accel && !rt->offloaded())
            return err_set(err, n, "%s: a region ran on the host, not the accelerator (runtime %s)", info->spec,
                           rt->libgomp);
        o->checked[rt->family] = 1;
    }
    o->rt = rt;
    return 0;
}

struct dev *offload_open(struct offload_model *m, const struct device_info *info, char *err, size_t n) {
    char why[512];
    struct offload_runtime *rt = listing_runtime(m, why, sizeof why);
    if (!rt) return err_set(err, n, "%s", why), NULL;
    struct dev *d = xcalloc(1, sizeof *d);
    d->ops = m->ops;
    d->info = *info;
    d->ctx = xcalloc(1, sizeof(struct offload_dev));
    if (use_runtime(d, rt, err, n)) {
        free(d->ctx);
        free(d);
        return NULL;
    }
    return d;
}

void offload_close(struct dev *d) {
    if (!d) return;
    free(d->ctx);
    free(d);
}

/* The compiler knobs in the options pick the compiler, and so the runtime
 * the device uses from here on: buffers allocated after the build (the
 * schedules build first) belong to it, as the kernels do. */
struct program *offload_build(struct offload_model *m, struct dev *d, const char *source, const char *options) {
    struct compiler_choice choice;
    compiler_choice(options, &choice);
    struct offload_runtime *rt = runtime(m, choice.family, d->err, sizeof d->err);
    if (!rt || use_runtime(d, rt, d->err, sizeof d->err)) return NULL;
    char so[PATH_MAX];
    if (build_so(m, &choice, source, options, so, sizeof so, d->err, sizeof d->err)) return NULL;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return dev_fail(d, "dlopen %s: %s", so, dlerror()), NULL;
    if (d->info.index[0]) print_ptxas_report(d, so, m->backend, choice.family);
    struct program *p = xcalloc(1, sizeof *p);
    p->so = h;
    p->rt = rt;
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
    k->rt = p->rt;
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
    b->rt = rt_of(d);
    b->mem = mem;
    b->bytes = bytes;
    return b;
}

void offload_buf_free(struct dev *d, struct buf *b) {
    (void)d;
    if (!b) return;
    b->rt->free(b->mem);
    free(b);
}

int offload_write(struct dev *d, struct buf *b, size_t off, size_t bytes, const void *src) {
    if (off + bytes > b->bytes) return dev_fail(d, "write past the end of a buffer");
    b->rt->wait(); /* queued regions may still read it */
    return b->rt->to((char *)b->mem + off, src, bytes) ? dev_fail(d, "copy to the device failed") : 0;
}

int offload_read(struct dev *d, struct buf *b, size_t off, size_t bytes, void *dst) {
    if (off + bytes > b->bytes) return dev_fail(d, "read past the end of a buffer");
    b->rt->wait();
    return b->rt->from(dst, (char *)b->mem + off, bytes) ? dev_fail(d, "copy from the device failed") : 0;
}

/* The backend's own loop (peak's copy): floats, as the kernels move them. */
int offload_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    if (bytes > dst->bytes || bytes > src->bytes) return dev_fail(d, "copy past the end of a buffer");
    if (bytes % sizeof(float)) return dev_fail(d, "copy of %zu bytes: not whole floats", bytes);
    if (dst->rt != src->rt) return dev_fail(d, "copy between two compilers' runtimes");
    src->rt->copy(dst->mem, src->mem, bytes / sizeof(float));
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
        case KARG_BUF:
            /* Device memory of one runtime is not another's to use (GCC's
             * and LLVM's may hold different contexts). */
            if (args[i].buf->rt != k->rt)
                return dev_fail(d, "kernel %s: argument %d was allocated by another compiler's runtime", k->name, i);
            argv[i] = args[i].buf->mem;
            break;
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

const char *offload_compiler_refusal(const struct offload_model *m, const struct device_info *info, const char *cc,
                                     const char *opt, char *why, size_t n) {
    (void)opt; /* every level builds */
    const int f = cc_family_of(cc);
    if (f < 0) return err_set(why, n, "cc=%s: not a compiler family the harness knows (gcc, clang)", cc), why;
    if (m->failure[f][0]) return err_set(why, n, "%s", m->failure[f]), why; /* this process already failed it */
    const struct compiler *c = model_compiler(m, (enum cc_family)f, why, n);
    if (!c) return why;
    char flags[1024];
    if (f == CC_CLANG && info->index[0] && /* an accelerator: the flags for its architecture */
        clang_offload_flags(c, info->arch[0] ? info->arch : "sm_90", flags, sizeof flags, why, n))
        return why;
    return NULL;
}
