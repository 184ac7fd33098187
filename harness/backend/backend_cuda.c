/* The CUDA backend: the driver API for devices, memory and launches, NVRTC
 * for compiling .cu kernels at run time.
 *
 * Both libraries are loaded with dlopen, so the harness builds against the
 * headers alone and a machine without an NVIDIA driver simply lists no CUDA
 * devices. cuda.h #defines many entry points to versioned names
 * (cuMemAlloc -> cuMemAlloc_v2); the function-pointer fields below are
 * declared through those macros and looked up by their expanded names, so a
 * call written drv.cuMemAlloc(...) reaches the symbol the header means. */
#include "backend/backend.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/build_cache.h"
#include "backend/launch_cost.h"
#include "base/util.h"

/* Graphs, cooperative launches, warp shuffles and __ldg on every CUDA
 * device; clusters and programmatic dependent launch from sm_90 (Hopper). */
static void cuda_caps(struct device_info *info) {
    int sm = 0;
    const int known = sscanf(info->arch, "sm_%d", &sm) == 1;
    info->caps.work_groups = 1;
    info->caps.recorded_launches = 1;
    info->caps.coresident_grid = 1;
    info->caps.warp_shuffle = 1;
    info->caps.readonly_loads = 1;
    info->caps.clusters = known && sm >= 90;
    info->caps.dependent_launch = !known || sm >= 90;
}

#ifdef HAVE_CUDA_HEADERS
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
/* dlinfo (to spot the toolkit's stub driver) is a GNU extension. */
#if defined(_GNU_SOURCE) && defined(__linux__)
#define HAVE_DLINFO 1
#include <link.h>
#endif

/* Stringify after expansion: STR(cuMemAlloc) is "cuMemAlloc_v2". */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Every driver entry point the backend uses. */
/* Packed, several names a line (clang-format would put one a line). */
// clang-format off
#define DRV_FUNCS(X)                                                                            \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet)        \
    X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)  \
    X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuStreamCreate) X(cuStreamDestroy)        \
    X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                  \
    X(cuEventElapsedTime) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)          \
    X(cuFuncSetAttribute) X(cuFuncGetAttribute) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)  \
    X(cuMemcpyDtoDAsync) X(cuLaunchKernel) X(cuLaunchCooperativeKernel)                         \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuStreamBeginCapture) X(cuStreamEndCapture) \
    X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphDestroy) X(cuGraphExecDestroy)            \
    X(cuLaunchKernelEx) X(cuDeviceGetPCIBusId)
// clang-format on

/* Packed, several names a line (clang-format would put one a line). */
// clang-format off
#define NVRTC_FUNCS(X)                                                                          \
    X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcGetNumSupportedArchs)                         \
    X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram) X(nvrtcDestroyProgram)                      \
    X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) \
    X(nvrtcGetCUBIN) X(nvrtcGetPTXSize) X(nvrtcGetPTX)
// clang-format on

#define API_FIELD(f) __typeof__(&f) f;

/* The only process-wide state: the lazily loaded libraries, their entry
 * points, and why loading failed. Written once under pthread_once. */
static struct {
    void *lib;
    DRV_FUNCS(API_FIELD)
} drv;
static char drv_why[200];
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static struct {
    void *lib;
    int major, minor;
    NVRTC_FUNCS(API_FIELD)
} rtc;
static char rtc_why[200];
static pthread_once_t rtc_once = PTHREAD_ONCE_INIT;

/* ---- loading ----------------------------------------------------------- */

static void *lib_sym(void *h, const char *name) {
    void *p = dlsym(h, name);
    /* cuEventElapsedTime_v2 arrived in driver 12.8 with the same signature;
     * older drivers export only the original name. */
    if (!p && strcmp(name, "cuEventElapsedTime_v2") == 0) p = dlsym(h, "cuEventElapsedTime");
    return p;
}

/* The toolkit ships a link-time stub libcuda.so whose every call fails; it
 * must never stand in for the driver, even if a library path finds it. */
static int lib_is_stub(void *h) {
#ifdef HAVE_DLINFO
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) return strstr(lm->l_name, "/stubs/") != NULL;
#else
    (void)h;
#endif
    return 0;
}

static void *lib_open_first(const char *const *names, int n) {
    for (int i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        if (!lib_is_stub(h)) return h;
        dlclose(h);
    }
    return NULL;
}

static void drv_load_once(void) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    void *h = lib_open_first(names, 2);
    if (!h) {
        str_copy(drv_why, sizeof drv_why, "CUDA driver not found (libcuda.so.1)");
        return;
    }
    const char *missing = NULL;
#define DRV_LOAD(f)                                                                                                    \
    if (!missing && !(drv.f = (__typeof__(drv.f))lib_sym(h, STR(f)))) missing = STR(f);
    DRV_FUNCS(DRV_LOAD)
#undef DRV_LOAD
    if (missing) {
        snprintf(drv_why, sizeof drv_why, "CUDA driver lacks %s (driver too old?)", missing);
        return;
    }
    drv.lib = h;
}

static int drv_load(char *err, size_t errn) {
    pthread_once(&drv_once, drv_load_once);
    return drv.lib ? 0 : err_set(err, errn, "%s", drv_why);
}

static void rtc_load_once(void) {
    const char *home = getenv("CUDA_HOME");
    char home_lib[PATH_MAX];
    snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", home && *home ? home : "/usr/local/cuda");
    const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", home_lib,
                                 "/usr/local/cuda/lib64/libnvrtc.so.13"};
    void *h = lib_open_first(names, (int)(sizeof names / sizeof names[0]));
    if (!h) {
        str_copy(rtc_why, sizeof rtc_why, "NVRTC not found (libnvrtc.so.13, libnvrtc.so.12)");
        return;
    }
    const char *missing = NULL;
#define RTC_LOAD(f)                                                                                                    \
    if (!missing && !(rtc.f = (__typeof__(rtc.f))lib_sym(h, STR(f)))) missing = STR(f);
    NVRTC_FUNCS(RTC_LOAD)
#undef RTC_LOAD
    if (missing) {
        snprintf(rtc_why, sizeof rtc_why, "NVRTC lacks %s (too old?)", missing);
        return;
    }
    if (rtc.nvrtcVersion(&rtc.major, &rtc.minor) != NVRTC_SUCCESS) {
        str_copy(rtc_why, sizeof rtc_why, "nvrtcVersion failed");
        return;
    }
    rtc.lib = h;
}

static int rtc_load(char *err, size_t errn) {
    pthread_once(&rtc_once, rtc_load_once);
    return rtc.lib ? 0 : err_set(err, errn, "%s", rtc_why);
}

/* ---- errors ------------------------------------------------------------ */

static const char *cu_errname(CUresult r) {
    const char *s = NULL;
    if (drv.cuGetErrorName && drv.cuGetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
    return "CUDA_ERROR_(unrecognised)";
}

/* "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE", the form every failure takes. */
static int cu_fail(struct dev *d, const char *what, CUresult r) { return dev_fail(d, "%s: %s", what, cu_errname(r)); }

/* ---- NVRTC compilation (no device needed) ------------------------------ */

/* What NVRTC emits for a device: a CUBIN for its exact architecture when
 * NVRTC knows it, else PTX for the newest older one, which the driver JIT
 * compiles forward (a GPU newer than the toolkit). */
struct cuda_target {
    int ptx;       /* 1: PTX for compute_N; 0: CUBIN for sm_N */
    int sm;        /* N, e.g. 90 */
    char arch[32]; /* the NVRTC option */
};

static int nvrtc_target(int sm, struct cuda_target *t, char *err, size_t errn) {
    if (rtc_load(err, errn) != 0) return -1;
    int n = 0;
    if (rtc.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
        return err_set(err, errn, "nvrtcGetNumSupportedArchs failed");
    int *archs = xcalloc((size_t)n, sizeof *archs);
    int best = 0, oldest = INT_MAX;
    if (rtc.nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS) {
        for (int i = 0; i < n; i++) {
            if (archs[i] <= sm && archs[i] > best) best = archs[i];
            if (archs[i] < oldest) oldest = archs[i];
        }
    }
    free(archs);
    if (!best)
        return err_set(err, errn, "NVRTC %d.%d cannot target sm_%d (oldest supported: sm_%d)", rtc.major, rtc.minor, sm,
                       oldest == INT_MAX ? 0 : oldest);
    t->ptx = best != sm;
    t->sm = best;
    snprintf(t->arch, sizeof t->arch, "-arch=%s_%d", t->ptx ? "compute" : "sm", best);
    return 0;
}

/* Appends the NVRTC log (which holds the compiler's messages) to err,
 * truncated to fit. */
static void nvrtc_log_into(nvrtcProgram prog, const char *head, char *err, size_t errn) {
    size_t len = 0;
    char *log = NULL;
    if (rtc.nvrtcGetProgramLogSize(prog, &len) == NVRTC_SUCCESS && len > 1) {
        log = xcalloc(len + 1, 1);
        if (rtc.nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
    }
    err_set(err, errn, "%s\n%s", head, log ? log : "(no log)");
    free(log);
}

/* Splits `options` at whitespace into argv (pointing into *store, which the
 * caller frees) after the fixed options. Returns argc. */
static int nvrtc_argv(const char **argv, int max, char **store, const char *options, const char *arch,
                      const char *incopt) {
    int argc = 0;
    argv[argc++] = arch;
    argv[argc++] = "--std=c++17";
    argv[argc++] = incopt;
    *store = xstrdup(options ? options : "");
    char *save = NULL;
    for (char *tok = strtok_r(*store, " \t\r\n", &save); tok && argc < max; tok = strtok_r(NULL, " \t\r\n", &save))
        argv[argc++] = tok;
    return argc;
}

/* Compiles one .cu source text for target t. `path` names the program (its
 * basename) and its folder becomes an -I path, so the kernel's quoted
 * #include of a sibling header resolves. Returns the malloc'd CUBIN or PTX
 * (NUL-terminated), or NULL with the compiler log in err. */
static void *nvrtc_compile(const char *text, const char *path, const char *options, const struct cuda_target *t,
                           size_t *len, char *err, size_t errn) {
    if (rtc_load(err, errn) != 0) return NULL;
    char dir[PATH_MAX], incopt[PATH_MAX + 3];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? path + (slash - dir) + 1 : path;
    if (slash) *slash = '\0';
    else str_copy(dir, sizeof dir, ".");
    snprintf(incopt, sizeof incopt, "-I%s", dir);

    nvrtcProgram prog;
    nvrtcResult r = rtc.nvrtcCreateProgram(&prog, text, base, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        err_set(err, errn, "nvrtcCreateProgram(%s): %s", base, rtc.nvrtcGetErrorString(r));
        return NULL;
    }
    const char *argv[256];
    char *store = NULL;
    int argc = nvrtc_argv(argv, 256, &store, options, t->arch, incopt);
    r = rtc.nvrtcCompileProgram(prog, argc, argv);
    free(store);
    void *out = NULL;
    if (r != NVRTC_SUCCESS) {
        char head[PATH_MAX + 128];
        snprintf(head, sizeof head, "nvrtc %s (%s): %s", base, t->arch, rtc.nvrtcGetErrorString(r));
        nvrtc_log_into(prog, head, err, errn);
    } else if (t->ptx) {
        if (rtc.nvrtcGetPTXSize(prog, len) == NVRTC_SUCCESS) out = xcalloc(*len + 1, 1);
        if (!out || rtc.nvrtcGetPTX(prog, out) != NVRTC_SUCCESS) goto product_fail;
    } else {
        if (rtc.nvrtcGetCUBINSize(prog, len) == NVRTC_SUCCESS) out = xcalloc(*len + 1, 1);
        if (!out || rtc.nvrtcGetCUBIN(prog, out) != NVRTC_SUCCESS) goto product_fail;
    }
    rtc.nvrtcDestroyProgram(&prog);
    return out;
product_fail:
    free(out);
    err_set(err, errn, "nvrtc %s: could not fetch the compiled %s", base, t->ptx ? "PTX" : "CUBIN");
    rtc.nvrtcDestroyProgram(&prog);
    return NULL;
}

/* ---- objects ----------------------------------------------------------- */

struct cuda_state {
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUevent ev[2];
    struct cuda_target target;
    int have_target;   /* 0 when NVRTC is absent: build() reports why */
    char compiler[96]; /* NVRTC and driver versions, for cache keys */
};

/* Kernels hang off their program, which frees them: the interface has no
 * kernel_free. */
struct kernel {
    CUfunction fn;
    int dyn_shared_max; /* MAX_DYNAMIC_SHARED_SIZE_BYTES as last set */
    int overlap;        /* launched with programmatic stream serialization */
    unsigned cluster;   /* launched in clusters of this many blocks along x (0, 1: none) */
    struct kernel *next;
    char name[128];
};

struct program {
    CUmodule mod;
    struct kernel *kernels;
};

struct buf {
    CUdeviceptr ptr;
    size_t bytes;
};

static struct cuda_state *cuda_st(struct dev *d) { return d->ctx; }

/* Makes d's context current on this thread, so several open devices (or a
 * different calling thread) never send work to the wrong GPU. */
static int cuda_use(struct dev *d) {
    CUresult r = drv.cuCtxSetCurrent(cuda_st(d)->ctx);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, "cuCtxSetCurrent", r);
}

/* ---- listing ----------------------------------------------------------- */

static int cuda_attr(CUdevice dev, CUdevice_attribute a) {
    int v = 0;
    if (drv.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) v = 0;
    return v;
}

static void cuda_driver_text(char *out, size_t n) {
    int v = 0;
    drv.cuDriverGetVersion(&v);
    char extra[48] = "";
    if (rtc_load(NULL, 0) == 0) snprintf(extra, sizeof extra, ", NVRTC %d.%d", rtc.major, rtc.minor);
    snprintf(out, n, "CUDA driver %d.%d%s", v / 1000, (v % 1000) / 10, extra);
}

static int cuda_describe(int ordinal, struct device_info *info, char *note, size_t note_n) {
    CUdevice dev;
    CUresult r = drv.cuDeviceGet(&dev, ordinal);
    if (r != CUDA_SUCCESS) return err_set(note, note_n, "cuDeviceGet(%d): %s", ordinal, cu_errname(r));
    memset(info, 0, sizeof *info);
    str_copy(info->backend, sizeof info->backend, "cuda");
    snprintf(info->spec, sizeof info->spec, "cuda:%d", ordinal);
    str_copy(info->vendor, sizeof info->vendor, "NVIDIA");
    if (drv.cuDeviceGetName(info->name, (int)sizeof info->name, dev) != CUDA_SUCCESS)
        str_copy(info->name, sizeof info->name, "unknown NVIDIA GPU");
    cuda_driver_text(info->driver, sizeof info->driver);
    str_copy(info->kind, sizeof info->kind, "gpu");
    info->compute_units = (unsigned)cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info->max_wg = (size_t)cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info->max_item[0] = (size_t)cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    info->max_item[1] = (size_t)cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    info->max_item[2] = (size_t)cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    size_t total = 0;
    if (drv.cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS) total = 0;
    info->global_mem = info->max_alloc = total;
    /* launch() opts kernels in to more than the default 48 KiB, so the
     * opt-in limit is what a block can really have. */
    int shared = cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (shared <= 0) shared = cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info->local_mem = (uint64_t)shared;
    snprintf(info->arch, sizeof info->arch, "sm_%d%d", cuda_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
             cuda_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    info->index[0] = ordinal;
    /* The board's address, by which NVML finds it for the energy meter
     * (CUDA's ordinals are not NVML's indices). */
    if (drv.cuDeviceGetPCIBusId(info->pci_bus, (int)sizeof info->pci_bus, dev) != CUDA_SUCCESS) info->pci_bus[0] = '\0';
    return 0;
}

static int cuda_list(struct device_info **out, char *note, size_t note_n) {
    *out = NULL;
    if (drv_load(note, note_n) != 0) return 0;
    CUresult r = drv.cuInit(0);
    if (r != CUDA_SUCCESS) {
        err_set(note, note_n, "cuInit failed: %s", cu_errname(r));
        return 0;
    }
    int n = 0;
    r = drv.cuDeviceGetCount(&n);
    if (r != CUDA_SUCCESS || n <= 0) {
        err_set(note, note_n, "no CUDA devices (cuDeviceGetCount: %s)", cu_errname(r));
        return 0;
    }
    struct device_info *list = xcalloc((size_t)n, sizeof *list);
    int got = 0;
    for (int i = 0; i < n; i++)
        if (cuda_describe(i, &list[got], note, note_n) == 0) got++;
    if (!got) {
        free(list);
        return 0;
    }
    *out = list;
    return got;
}

/* ---- open and close ---------------------------------------------------- */

static void cuda_close(struct dev *d) {
    if (!d) return;
    struct cuda_state *s = cuda_st(d);
    if (s) {
        if (s->ctx) {
            drv.cuCtxSetCurrent(s->ctx);
            if (s->stream) drv.cuStreamSynchronize(s->stream);
            for (int i = 0; i < 2; i++)
                if (s->ev[i]) drv.cuEventDestroy(s->ev[i]);
            if (s->stream) drv.cuStreamDestroy(s->stream);
            /* No context stays current on the thread: a released primary
             * context left current is a dangling one, and libgomp's nvptx
             * plugin adopts whatever is current ("context is destroyed" at
             * its first allocation). With none current it makes its own. */
            drv.cuCtxSetCurrent(NULL);
            drv.cuDevicePrimaryCtxRelease(s->dev);
        }
        free(s);
    }
    free(d);
}

/* The NVRTC target and the compiler identity for cache keys. Without NVRTC
 * the device still opens (memory and copies work); build() says why not. */
static int cuda_pick_target(struct cuda_state *s, const struct device_info *info, char *err, size_t errn) {
    int v = 0, sm = 0;
    drv.cuDriverGetVersion(&v);
    if (sscanf(info->arch, "sm_%d", &sm) != 1) return err_set(err, errn, "cuda: unknown architecture '%s'", info->arch);
    if (nvrtc_target(sm, &s->target, err, errn) != 0) return -1;
    s->have_target = 1;
    snprintf(s->compiler, sizeof s->compiler, "nvrtc %d.%d driver %d %s", rtc.major, rtc.minor, v, s->target.arch);
    return 0;
}

static struct dev *cuda_open(const struct device_info *info, char *err, size_t err_n) {
    if (drv_load(err, err_n) != 0) return NULL;
    CUresult r = drv.cuInit(0);
    if (r != CUDA_SUCCESS) {
        err_set(err, err_n, "cuInit: %s", cu_errname(r));
        return NULL;
    }
    struct dev *d = xcalloc(1, sizeof *d);
    struct cuda_state *s = xcalloc(1, sizeof *s);
    d->ops = &backend_cuda;
    d->info = *info;
    d->ctx = s;
    const char *what = "cuDeviceGet";
    if ((r = drv.cuDeviceGet(&s->dev, info->index[0])) != CUDA_SUCCESS) goto fail;
    what = "cuDevicePrimaryCtxRetain";
    if ((r = drv.cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS) goto fail;
    what = "cuCtxSetCurrent";
    if ((r = drv.cuCtxSetCurrent(s->ctx)) != CUDA_SUCCESS) goto fail;
    what = "cuStreamCreate";
    if ((r = drv.cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) goto fail;
    what = "cuEventCreate";
    for (int i = 0; i < 2; i++)
        if ((r = drv.cuEventCreate(&s->ev[i], CU_EVENT_DEFAULT)) != CUDA_SUCCESS) goto fail;
    cuda_pick_target(s, info, NULL, 0);
    return d;
fail:
    err_set(err, err_n, "%s (%s): %s", what, info->spec, cu_errname(r));
    cuda_close(d);
    return NULL;
}

/* ---- programs and kernels ---------------------------------------------- */

/* Loads a CUBIN or PTX image into a program. */
static struct program *cuda_module(struct dev *d, const void *image) {
    CUmodule mod;
    CUresult r = drv.cuModuleLoadData(&mod, image);
    if (r != CUDA_SUCCESS) {
        /* A toolkit newer than the driver makes images the driver refuses. */
        dev_fail(d, "cuModuleLoadData: %s (%s; %s)", cu_errname(r), cuda_st(d)->compiler, d->info.driver);
        return NULL;
    }
    struct program *p = xcalloc(1, sizeof *p);
    p->mod = mod;
    return p;
}

static struct program *cuda_build(struct dev *d, const char *source, const char *options) {
    struct cuda_state *s = cuda_st(d);
    if (cuda_use(d) != 0) return NULL;
    if (!s->have_target && cuda_pick_target(s, &d->info, d->err, sizeof d->err) != 0) return NULL;
    char *keytext = source_with_includes(source, d->err, sizeof d->err);
    if (!keytext) return NULL;
    char key[17], device[320];
    snprintf(device, sizeof device, "%s %s", d->info.arch, d->info.name);
    cache_key(key, keytext, options, s->compiler, device);
    free(keytext);
    const char *ext = s->target.ptx ? ".ptx" : ".cubin";

    size_t len = 0;
    void *image = cache_load(key, ext, &len);
    int lock = -1;
    if (!image || !len) { /* another process may be compiling it: wait, then look again */
        free(image);
        lock = cache_lock(key);
        image = cache_load(key, ext, &len);
    }
    if (image && len) {
        struct program *p = cuda_module(d, image);
        free(image);
        if (p) {
            cache_unlock(lock);
            return p;
        } /* else a damaged entry: compile afresh below */
    } else {
        free(image);
    }
    char *text = file_read_all(source, NULL, d->err, sizeof d->err);
    image = text ? nvrtc_compile(text, source, options, &s->target, &len, d->err, sizeof d->err) : NULL;
    free(text);
    if (image) cache_store(key, ext, image, len); /* a failed store costs only a recompile */
    cache_unlock(lock);
    if (!image) return NULL;
    struct program *p = cuda_module(d, image);
    free(image);
    return p;
}

static void cuda_program_free(struct dev *d, struct program *p) {
    if (!p) return;
    if (drv.cuCtxSetCurrent(cuda_st(d)->ctx) == CUDA_SUCCESS) drv.cuModuleUnload(p->mod);
    while (p->kernels) {
        struct kernel *k = p->kernels;
        p->kernels = k->next;
        free(k);
    }
    free(p);
}

/* A kernel's registers and local memory (spills and stack), as ptxas chose
 * them: kept with the device (d->resources, stored with the config's
 * measurement: the report's registers table), and a note when it uses
 * local memory, where registers ran out (the guideline's step 5: a level or
 * an unroll that spills), or for every kernel with
 * HARNESS_KERNEL_RESOURCES=1. Attributes 4 and 3: CU_FUNC_ATTRIBUTE_NUM_REGS
 * and CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES. */
static void report_resources(struct dev *d, CUfunction fn, const char *name) {
    int regs = -1, local = -1;
    if (drv.cuFuncGetAttribute(&regs, (CUfunction_attribute)4, fn) != CUDA_SUCCESS ||
        drv.cuFuncGetAttribute(&local, (CUfunction_attribute)3, fn) != CUDA_SUCCESS)
        return;
    dev_resources_add(d, name, regs, local);
    const char *all = getenv("HARNESS_KERNEL_RESOURCES");
    if (local > 0 || (all && strcmp(all, "1") == 0))
        fprintf(stderr, "note: cuda: kernel %s: %d registers, %d bytes of local memory a thread (spills, stack)\n",
                name, regs, local);
}

static struct kernel *cuda_kernel(struct dev *d, struct program *p, const char *name) {
    for (struct kernel *k = p->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) return k;
    if (cuda_use(d) != 0) return NULL;
    CUfunction fn;
    CUresult r = drv.cuModuleGetFunction(&fn, p->mod, name);
    if (r != CUDA_SUCCESS) {
        dev_fail(d, "cuModuleGetFunction(%s): %s", name, cu_errname(r));
        return NULL;
    }
    report_resources(d, fn, name);
    struct kernel *k = xcalloc(1, sizeof *k);
    k->fn = fn;
    str_copy(k->name, sizeof k->name, name);
    k->next = p->kernels;
    p->kernels = k;
    return k;
}

/* ---- memory ------------------------------------------------------------ */

static struct buf *cuda_alloc(struct dev *d, size_t bytes) {
    if (cuda_use(d) != 0) return NULL;
    CUdeviceptr ptr;
    /* The driver refuses zero bytes; a one-byte buffer keeps callers simple. */
    CUresult r = drv.cuMemAlloc(&ptr, bytes ? bytes : 1);
    if (r != CUDA_SUCCESS) {
        dev_fail(d, "cuMemAlloc(%zu): %s", bytes, cu_errname(r));
        return NULL;
    }
    struct buf *b = xcalloc(1, sizeof *b);
    b->ptr = ptr;
    b->bytes = bytes;
    return b;
}

static void cuda_buf_free(struct dev *d, struct buf *b) {
    if (!b) return;
    if (drv.cuCtxSetCurrent(cuda_st(d)->ctx) == CUDA_SUCCESS) drv.cuMemFree(b->ptr);
    free(b);
}

static int cuda_range(struct dev *d, struct buf *b, size_t offset, size_t bytes) {
    if (!b) return dev_fail(d, "cuda: NULL buffer");
    if (offset > b->bytes || bytes > b->bytes - offset)
        return dev_fail(d, "cuda: %zu bytes at %zu overrun a %zu-byte buffer", bytes, offset, b->bytes);
    return cuda_use(d);
}

static int cuda_sync(struct dev *d, const char *what) {
    CUresult r = drv.cuStreamSynchronize(cuda_st(d)->stream);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, what, r);
}

/* Writes and reads go through the stream, so they are ordered after every
 * launch queued before them, and wait, so they return with the host side
 * free (write) or filled (read). */
static int cuda_write(struct dev *d, struct buf *b, size_t offset, size_t bytes, const void *src) {
    if (cuda_range(d, b, offset, bytes) != 0) return -1;
    if (!bytes) return 0;
    CUresult r = drv.cuMemcpyHtoDAsync(b->ptr + offset, src, bytes, cuda_st(d)->stream);
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuMemcpyHtoDAsync", r);
    return cuda_sync(d, "cuStreamSynchronize (write)");
}

static int cuda_read(struct dev *d, struct buf *b, size_t offset, size_t bytes, void *dst) {
    if (cuda_range(d, b, offset, bytes) != 0) return -1;
    if (!bytes) return 0;
    CUresult r = drv.cuMemcpyDtoHAsync(dst, b->ptr + offset, bytes, cuda_st(d)->stream);
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuMemcpyDtoHAsync", r);
    return cuda_sync(d, "cuStreamSynchronize (read)");
}

static int cuda_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    if (cuda_range(d, dst, 0, bytes) != 0 || cuda_range(d, src, 0, bytes) != 0) return -1;
    if (!bytes) return 0;
    CUresult r = drv.cuMemcpyDtoDAsync(dst->ptr, src->ptr, bytes, cuda_st(d)->stream);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, "cuMemcpyDtoDAsync", r);
}

/* ---- launches and timing ----------------------------------------------- */

/* Above the default 48 KiB of dynamic shared memory a kernel must opt in. */
static int cuda_shared_optin(struct dev *d, struct kernel *k, size_t shared) {
    if (shared <= 48 * 1024 || (size_t)k->dyn_shared_max >= shared) return 0;
    if (shared > (size_t)INT_MAX) return dev_fail(d, "cuda: %zu bytes of shared memory", shared);
    CUresult r = drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
    if (r != CUDA_SUCCESS)
        return dev_fail(d, "cuFuncSetAttribute(%s, %zu bytes shared): %s", k->name, shared, cu_errname(r));
    k->dyn_shared_max = (int)shared;
    return 0;
}

/* Whole blocks only: grid and block extents from global and local. */
static int cuda_dims(struct dev *d, const size_t global[2], const size_t local[2], unsigned grid[2],
                     unsigned block[2]) {
    for (int i = 0; i < 2; i++) {
        if (!local[i] || global[i] % local[i] || global[i] / local[i] > UINT_MAX || local[i] > UINT_MAX)
            return dev_fail(d, "cuda: global %zux%zu is not a whole number of %zux%zu blocks", global[0], global[1],
                            local[0], local[1]);
        grid[i] = (unsigned)(global[i] / local[i]);
        block[i] = (unsigned)local[i];
    }
    return 0;
}

/* A kernelParams array: params[i] points at vals[i] (or at a KARG_BYTES
 * struct where it lies), NULL-terminated. KARG_LOCAL is no parameter: it
 * sizes the kernel's extern __shared__ array, summed into *shared. */
union cuda_val {
    CUdeviceptr p;
    int i;
    float f;
};
static int cuda_params(struct dev *d, int nargs, const struct karg *args, union cuda_val *vals, void **params,
                       size_t *shared) {
    if (nargs < 0 || nargs > KARG_MAX) return dev_fail(d, "cuda: %d kernel arguments", nargs);
    int np = 0;
    *shared = 0;
    for (int i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case KARG_BUF:
            if (!args[i].buf) return dev_fail(d, "cuda: argument %d is a NULL buffer", i);
            vals[np].p = args[i].buf->ptr;
            break;
        case KARG_INT: vals[np].i = args[i].i; break;
        case KARG_FLOAT: vals[np].f = args[i].f; break;
        case KARG_LOCAL: *shared += args[i].bytes; continue;
        case KARG_BYTES: /* the driver copies the struct from where it lies */
            params[np++] = (void *)args[i].val.ptr;
            continue;
        default: return dev_fail(d, "cuda: argument %d has unknown kind %d", i, (int)args[i].kind);
        }
        params[np] = &vals[np];
        np++;
    }
    params[np] = NULL;
    return 0;
}

static int cuda_enqueue(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], void **params,
                        size_t shared) {
    unsigned grid[2], block[2];
    if (cuda_dims(d, global, local, grid, block) != 0) return -1;
    if (cuda_use(d) != 0 || cuda_shared_optin(d, k, shared) != 0) return -1;
    CUresult r;
    if (k->overlap || k->cluster > 1) {
        /* overlap: the launch may begin as soon as the kernel ahead of it
         * triggers (griddepcontrol.launch_dependents) or finishes; the
         * kernel's griddepcontrol.wait holds its reads until that one is
         * complete. cluster: blocks scheduled in clusters along x. */
        CUlaunchAttribute attr[2];
        unsigned nattr = 0;
        memset(attr, 0, sizeof attr);
        if (k->overlap) {
            attr[nattr].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr[nattr++].value.programmaticStreamSerializationAllowed = 1;
        }
        if (k->cluster > 1) {
            attr[nattr].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr[nattr].value.clusterDim.x = k->cluster;
            attr[nattr].value.clusterDim.y = 1;
            attr[nattr++].value.clusterDim.z = 1;
        }
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = grid[0];
        cfg.gridDimY = grid[1];
        cfg.gridDimZ = 1;
        cfg.blockDimX = block[0];
        cfg.blockDimY = block[1];
        cfg.blockDimZ = 1;
        cfg.sharedMemBytes = (unsigned)shared;
        cfg.hStream = cuda_st(d)->stream;
        cfg.attrs = attr;
        cfg.numAttrs = nattr;
        r = drv.cuLaunchKernelEx(&cfg, k->fn, params, NULL);
    } else {
        r = drv.cuLaunchKernel(k->fn, grid[0], grid[1], 1, block[0], block[1], 1, (unsigned)shared, cuda_st(d)->stream,
                               params, NULL);
    }
    if (r != CUDA_SUCCESS)
        return dev_fail(d, "cuLaunchKernel: %s (%s, grid %ux%u, block %ux%u, %zu bytes shared)", cu_errname(r), k->name,
                        grid[0], grid[1], block[0], block[1], shared);
    return 0;
}

/* Programmatic dependent launch and thread-block clusters came with sm_90. */
static int cuda_before_sm90(const struct dev *d) {
    return strncmp(d->info.arch, "sm_", 3) == 0 && atoi(d->info.arch + 3) < 90;
}

static int cuda_overlap(struct dev *d, struct kernel *k, int on) {
    if (on && cuda_before_sm90(d))
        return dev_fail(d, "cuda: programmatic dependent launch needs sm_90 or later, not %s", d->info.arch);
    k->overlap = on;
    return 0;
}

/* Clusters of `groups` blocks along x for k's later launches. Past 8
 * blocks (the portable size) the kernel must opt in. */
static int cuda_cluster_optin(struct dev *d, struct kernel *k, unsigned groups) {
    if (groups <= 8) return 0;
    if (cuda_use(d) != 0) return -1;
    CUresult r = drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, "cuFuncSetAttribute (non-portable cluster size)", r);
}

static int cuda_cluster(struct dev *d, struct kernel *k, unsigned groups) {
    if (groups > 1 && cuda_before_sm90(d))
        return dev_fail(d, "cuda: thread-block clusters need sm_90 or later, not %s", d->info.arch);
    if (groups > 16) return dev_fail(d, "cuda: a cluster of %u blocks (16 at most)", groups);
    if (cuda_cluster_optin(d, k, groups) != 0) return -1;
    k->cluster = groups;
    return 0;
}

static int cuda_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                       const struct karg *args) {
    /* The driver copies the values during the call, so locals suffice. */
    union cuda_val vals[KARG_MAX];
    void *params[KARG_MAX + 1];
    size_t shared = 0;
    if (cuda_params(d, nargs, args, vals, params, &shared) != 0) return -1;
    return cuda_enqueue(d, k, global, local, params, shared);
}

/* A prepared kernelParams array that outlives the call: a step's launch
 * then builds nothing. */
struct bound {
    struct kernel *k;
    union cuda_val vals[KARG_MAX];
    void *params[KARG_MAX + 1];
    void *bytes[KARG_MAX];
    size_t shared;
};

static struct bound *cuda_bind(struct dev *d, struct kernel *k, int nargs, const struct karg *args) {
    struct bound *b = xcalloc(1, sizeof *b);
    b->k = k;
    struct karg copy[KARG_MAX];
    for (int i = 0; i < nargs && i < KARG_MAX; i++) {
        copy[i] = args[i];
        if (args[i].kind == KARG_BYTES) { /* keep the struct's bytes with the params */
            b->bytes[i] = xcalloc(1, args[i].val.size ? args[i].val.size : 1);
            memcpy(b->bytes[i], args[i].val.ptr, args[i].val.size);
            copy[i].val.ptr = b->bytes[i];
        }
    }
    if (cuda_params(d, nargs, copy, b->vals, b->params, &b->shared) != 0) {
        for (int i = 0; i < KARG_MAX; i++) free(b->bytes[i]);
        free(b);
        return NULL;
    }
    return b;
}

static int cuda_launch_bound(struct dev *d, struct bound *b, const size_t global[2], const size_t local[2]) {
    return cuda_enqueue(d, b->k, global, local, b->params, b->shared);
}

static void cuda_bound_free(struct dev *d, struct bound *b) {
    (void)d;
    if (!b) return;
    for (int i = 0; i < KARG_MAX; i++) free(b->bytes[i]);
    free(b);
}

/* Recording is stream capture: launches become graph nodes, not work. The
 * graph is instantiated once; a replay is one cuGraphLaunch per repeat. */
struct recording {
    CUgraphExec exec;
};

static int cuda_record_begin(struct dev *d) {
    if (cuda_use(d) != 0) return -1;
    CUresult r = drv.cuStreamBeginCapture(cuda_st(d)->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, "cuStreamBeginCapture", r);
}

static struct recording *cuda_record_end(struct dev *d) {
    if (cuda_use(d) != 0) return NULL;
    CUgraph graph = NULL;
    CUresult r = drv.cuStreamEndCapture(cuda_st(d)->stream, &graph);
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuStreamEndCapture", r), NULL;
    CUgraphExec exec = NULL;
    r = drv.cuGraphInstantiate(&exec, graph, 0);
    drv.cuGraphDestroy(graph); /* the executable graph keeps what it needs */
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuGraphInstantiate", r), NULL;
    struct recording *rec = xcalloc(1, sizeof *rec);
    rec->exec = exec;
    return rec;
}

static int cuda_replay(struct dev *d, struct recording *rec, long times) {
    if (cuda_use(d) != 0) return -1;
    for (long t = 0; t < times; t++) {
        CUresult r = drv.cuGraphLaunch(rec->exec, cuda_st(d)->stream);
        if (r != CUDA_SUCCESS) return cu_fail(d, "cuGraphLaunch", r);
    }
    return 0;
}

static void cuda_recording_free(struct dev *d, struct recording *rec) {
    if (!rec) return;
    if (drv.cuCtxSetCurrent(cuda_st(d)->ctx) == CUDA_SUCCESS) drv.cuGraphExecDestroy(rec->exec);
    free(rec);
}

/* The arguments of a launch the driver makes outside cuda_enqueue
 * (cooperative): marshalled, the context current, and the
 * kernel allowed the dynamic shared memory it asks for. */
static int cuda_prepare_special(struct dev *d, struct kernel *k, int nargs, const struct karg *args,
                                union cuda_val *vals, void **params, size_t *shared) {
    if (cuda_params(d, nargs, args, vals, params, shared) != 0) return -1;
    return cuda_use(d) != 0 || cuda_shared_optin(d, k, *shared) != 0 ? -1 : 0;
}

/* A cooperative launch: the driver refuses it unless every block can be
 * resident at once, which the occupancy API tells in advance. */
static int cuda_launch_resident(struct dev *d, struct kernel *k, size_t *groups, const size_t local[2], int nargs,
                                const struct karg *args) {
    union cuda_val vals[KARG_MAX];
    void *params[KARG_MAX + 1];
    size_t shared = 0;
    if (cuda_prepare_special(d, k, nargs, args, vals, params, &shared) != 0) return -1;
    const size_t threads = local[0] * local[1];
    if (!threads || threads > d->info.max_wg) return dev_fail(d, "cuda: block %zux%zu", local[0], local[1]);
    int per_sm = 0;
    CUresult r = drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->fn, (int)threads, shared);
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuOccupancyMaxActiveBlocksPerMultiprocessor", r);
    const size_t most = (size_t)per_sm * d->info.compute_units;
    if (most == 0) return dev_fail(d, "cuda: %s cannot have a block of %zu threads resident", k->name, threads);
    if (*groups > most) *groups = most;
    if (*groups == 0) *groups = 1;
    r = drv.cuLaunchCooperativeKernel(k->fn, (unsigned)*groups, 1, 1, (unsigned)local[0], (unsigned)local[1], 1,
                                      (unsigned)shared, cuda_st(d)->stream, params);
    if (r != CUDA_SUCCESS)
        return dev_fail(d, "cuLaunchCooperativeKernel: %s (%s, %zu blocks of %zux%zu, %zu bytes shared)", cu_errname(r),
                        k->name, *groups, local[0], local[1], shared);
    return 0;
}

/* One cluster of `groups` blocks: k's launches are clustered from now on
 * (cuda_cluster), and this one is a grid of exactly one cluster. */
static int cuda_launch_cluster(struct dev *d, struct kernel *k, unsigned groups, const size_t local[2], int nargs,
                               const struct karg *args) {
    if (cuda_cluster(d, k, groups) != 0) return -1;
    const size_t global[2] = {groups * local[0], local[1]};
    return cuda_launch(d, k, global, local, nargs, args);
}

static int cuda_address(struct dev *d, struct buf *b, uint64_t *addr) {
    (void)d;
    *addr = (uint64_t)b->ptr;
    return 0;
}

static int cuda_finish(struct dev *d) {
    if (cuda_use(d) != 0) return -1;
    return cuda_sync(d, "cuStreamSynchronize");
}

static int cuda_mark(struct dev *d, int slot) {
    if (slot < 0 || slot > 1) return dev_fail(d, "cuda: mark slot %d (0 or 1)", slot);
    if (cuda_use(d) != 0) return -1;
    struct cuda_state *s = cuda_st(d);
    CUresult r = drv.cuEventRecord(s->ev[slot], s->stream);
    return r == CUDA_SUCCESS ? 0 : cu_fail(d, "cuEventRecord", r);
}

static int cuda_elapsed(struct dev *d, double *seconds) {
    if (cuda_use(d) != 0) return -1;
    struct cuda_state *s = cuda_st(d);
    float ms = 0;
    CUresult r = drv.cuEventElapsedTime(&ms, s->ev[0], s->ev[1]);
    if (r != CUDA_SUCCESS) return cu_fail(d, "cuEventElapsedTime", r);
    *seconds = 1e-3 * (double)ms;
    return 0;
}

const struct backend_ops backend_cuda = {
    .name = "cuda",
    .list = cuda_list,
    .open = cuda_open,
    .close = cuda_close,
    .build = cuda_build,
    .program_free = cuda_program_free,
    .kernel = cuda_kernel,
    .alloc = cuda_alloc,
    .buf_free = cuda_buf_free,
    .write = cuda_write,
    .read = cuda_read,
    .copy = cuda_copy,
    .launch = cuda_launch,
    .bind = cuda_bind,
    .launch_bound = cuda_launch_bound,
    .bound_free = cuda_bound_free,
    .record_begin = cuda_record_begin,
    .record_end = cuda_record_end,
    .replay = cuda_replay,
    .recording_free = cuda_recording_free,
    .launch_resident = cuda_launch_resident,
    .launch_cluster = cuda_launch_cluster,
    .overlap = cuda_overlap,
    .cluster = cuda_cluster,
    .fast_math_option = "--use_fast_math",
    .no_contract_option = "--fmad=false",
    .reg_cap_option = "--maxrregcount=%d",
    .caps = cuda_caps,
    .address = cuda_address,
    .finish = cuda_finish,
    .mark = cuda_mark,
    .elapsed = cuda_elapsed,
    .source_suffix = ".cu",
    .launch_cost_src = launch_cost_src_cuda,
};

#else /* !HAVE_CUDA_HEADERS */

/* Built without the CUDA headers: the backend exists but lists nothing, and
 * since open() never succeeds no other operation can be reached. */
static int cuda_list(struct device_info **out, char *note, size_t note_n) {
    *out = NULL;
    err_set(note, note_n, "built without CUDA headers");
    return 0;
}

static struct dev *cuda_open(const struct device_info *info, char *err, size_t err_n) {
    (void)info;
    err_set(err, err_n, "built without CUDA headers");
    return NULL;
}

const struct backend_ops backend_cuda = {
    .name = "cuda",
    .list = cuda_list,
    .open = cuda_open,
    .source_suffix = ".cu",
    .fast_math_option = "--use_fast_math", /* for builds outside the harness (lbm_build_options) */
    .no_contract_option = "--fmad=false",
    .reg_cap_option = "--maxrregcount=%d",
    .caps = cuda_caps,
    .launch_cost_src = launch_cost_src_cuda,
};

#endif /* HAVE_CUDA_HEADERS */
