/* The OpenCL backend: every platform and device the ICD loader lists.
 * libOpenCL is opened with dlopen, so a machine without it has "no devices"
 * rather than a binary that will not start. */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/build_cache.h"
#include "backend/launch_cost.h"
#include "base/util.h"

/* Work-groups, the ICD loader's numbering (another host program can open
 * the same device), and nothing this backend does not ask the driver for: no
 * recorded launches (cl_khr_command_buffer unused), no co-residency promise,
 * no read-only cache load; warp shuffles only as inline PTX on NVIDIA's
 * OpenCL (sub-group reductions elsewhere are not queried). */
static void ocl_caps(struct device_info *info) {
    info->caps.work_groups = 1;
    info->caps.icd_device = 1;
    info->caps.warp_shuffle = strstr(info->vendor, "NVIDIA") != NULL;
}

#ifndef HAVE_OPENCL_HEADERS

static int ocl_list(struct device_info **out, char *note, size_t n) {
    *out = NULL;
    err_set(note, n, "built without OpenCL headers (install opencl-headers)");
    return 0;
}
const struct backend_ops backend_opencl = {.name = "opencl",
                                           .list = ocl_list,
                                           .source_suffix = ".cl",
                                           .caps = ocl_caps,
                                           .launch_cost_src = launch_cost_src_opencl};

#else
#include <CL/cl.h>
#include <dlfcn.h>
#include <limits.h>

/* The entry points we use, resolved once from the ICD loader. */
/* Packed, several names a line (clang-format would put one a line). */
// clang-format off
#define OCL_FUNCS(X)                                                                          \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)             \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)  \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)              \
    X(clGetProgramBuildInfo) X(clGetProgramInfo) X(clReleaseProgram) X(clCreateKernel)       \
    X(clReleaseKernel) X(clSetKernelArg) X(clCreateBuffer) X(clReleaseMemObject)             \
    X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer) X(clEnqueueCopyBuffer)                    \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clEnqueueMarkerWithWaitList)                     \
    X(clGetEventProfilingInfo) X(clReleaseEvent)
// clang-format on

#define OCL_DECLARE(f) static __typeof__(&f) p_##f;
OCL_FUNCS(OCL_DECLARE)

static int ocl_load(char *note, size_t n) {
    static int state; /* 0 untried, 1 loaded, -1 failed */
    if (state) return state > 0 ? 0 : err_set(note, n, "OpenCL ICD loader not found (libOpenCL.so.1)");
    void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    state = -1;
    if (!h) return err_set(note, n, "OpenCL ICD loader not found (libOpenCL.so.1)");
#define OCL_RESOLVE(f)                                                                                                 \
    if (!(p_##f = (__typeof__(&f))dlsym(h, #f)))                                                                       \
        return err_set(note, n, "OpenCL loader lacks %s (needs OpenCL 1.2)", #f);
    OCL_FUNCS(OCL_RESOLVE)
    state = 1;
    return 0;
}

struct ocl_dev {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    cl_event marks[2];
};
struct buf {
    cl_mem mem;
};
struct program {
    cl_program prog;
    struct kernel *kernels;
};
struct kernel {
    cl_kernel k;
    cl_program prog;
    char name[64];
    struct kernel *next;
};
/* A kernel object of its own, its arguments set once. */
struct bound {
    cl_kernel k;
    char name[64];
};

static int ocl_fail(struct dev *d, const char *what, cl_int rc) {
    return dev_fail(d, "%s failed: OpenCL error %d", what, (int)rc);
}

static void info_str(cl_device_id dev, cl_device_info what, char *dst, size_t n) {
    if (p_clGetDeviceInfo(dev, what, n, dst, NULL) != CL_SUCCESS) dst[0] = '\0';
    dst[n - 1] = '\0';
    str_trim(dst);
}

/* The board's PCI address, for the energy meter (energy.h): through the
 * standard cl_khr_pci_bus_info where the driver lists it, else NVIDIA's
 * cl_nv_device_attribute_query. Its slot id is the device number, not
 * PCI's devfn: on an H100 (driver 580) at 0000:00:06.0 it reads 6, where
 * cl_khr_pci_bus_info says device 6, function 0; a GPU is function 0. Its
 * domain query came later (a driver without it is in domain 0). The codes
 * and the KHR struct are spelled here: older cl_ext.h headers lack them. */
#define HARNESS_CL_PCI_BUS_INFO_KHR 0x410F
#define HARNESS_CL_PCI_BUS_ID_NV 0x4008
#define HARNESS_CL_PCI_SLOT_ID_NV 0x4009
#define HARNESS_CL_PCI_DOMAIN_ID_NV 0x400A
struct pci_bus_info_khr { /* cl_device_pci_bus_info_khr */
    cl_uint domain, bus, device, function;
};

static void pci_bus_of(cl_device_id dev, char *out, size_t n) {
    char ext[8192] = "";
    struct pci_bus_info_khr k = {0};
    cl_uint bus = 0, slot = 0, domain = 0;
    out[0] = '\0';
    if (p_clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL) != CL_SUCCESS) return;
    ext[sizeof ext - 1] = '\0';
    if (strstr(ext, "cl_khr_pci_bus_info") &&
        p_clGetDeviceInfo(dev, HARNESS_CL_PCI_BUS_INFO_KHR, sizeof k, &k, NULL) == CL_SUCCESS) {
        snprintf(out, n, "%04x:%02x:%02x.%x", k.domain, k.bus, k.device, k.function);
        return;
    }
    if (!strstr(ext, "cl_nv_device_attribute_query") ||
        p_clGetDeviceInfo(dev, HARNESS_CL_PCI_BUS_ID_NV, sizeof bus, &bus, NULL) != CL_SUCCESS ||
        p_clGetDeviceInfo(dev, HARNESS_CL_PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) != CL_SUCCESS)
        return;
    if (p_clGetDeviceInfo(dev, HARNESS_CL_PCI_DOMAIN_ID_NV, sizeof domain, &domain, NULL) != CL_SUCCESS) domain = 0;
    snprintf(out, n, "%04x:%02x:%02x.0", domain, bus, slot);
}

static void fill_info(struct device_info *di, cl_platform_id plat, cl_device_id dev, int p, int i) {
    memset(di, 0, sizeof *di);
    str_copy(di->backend, sizeof di->backend, "opencl");
    snprintf(di->spec, sizeof di->spec, "opencl:%d.%d", p, i);
    di->index[0] = p;
    di->index[1] = i;
    info_str(dev, CL_DEVICE_VENDOR, di->vendor, sizeof di->vendor);
    info_str(dev, CL_DEVICE_NAME, di->name, sizeof di->name);
    char drv[128] = "", ver[256] = "", plat_name[128] = "";
    info_str(dev, CL_DRIVER_VERSION, drv, sizeof drv);
    info_str(dev, CL_DEVICE_VERSION, ver, sizeof ver);
    p_clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof plat_name, plat_name, NULL);
    plat_name[sizeof plat_name - 1] = '\0';
    str_fmt(di->driver, sizeof di->driver, "%s; %s; %s", plat_name, ver, drv);
    cl_device_type type = 0;
    p_clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    str_copy(di->kind, sizeof di->kind,
             type & CL_DEVICE_TYPE_GPU   ? "gpu"
             : type & CL_DEVICE_TYPE_CPU ? "cpu"
                                         : "accelerator");
    cl_uint cu = 0;
    p_clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    di->compute_units = cu;
    p_clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof di->max_wg, &di->max_wg, NULL);
    p_clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof di->max_item, di->max_item, NULL);
    cl_ulong g = 0, l = 0, a = 0;
    p_clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof g, &g, NULL);
    p_clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof l, &l, NULL);
    p_clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof a, &a, NULL);
    di->global_mem = g;
    di->local_mem = l;
    di->max_alloc = a;
    pci_bus_of(dev, di->pci_bus, sizeof di->pci_bus);
}

static int ocl_list(struct device_info **out, char *note, size_t n) {
    *out = NULL;
    if (ocl_load(note, n) != 0) return 0;
    cl_uint np = 0;
    if (p_clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
        err_set(note, n, "no OpenCL platform registered with the ICD loader");
        return 0;
    }
    cl_platform_id plats[16];
    if (np > 16) np = 16;
    p_clGetPlatformIDs(np, plats, NULL);
    int total = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (p_clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS) continue;
        cl_device_id devs[32];
        if (nd > 32) nd = 32;
        p_clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        *out = realloc(*out, sizeof **out * (size_t)(total + (int)nd));
        if (!*out) abort();
        for (cl_uint i = 0; i < nd; i++) fill_info(&(*out)[total++], plats[p], devs[i], (int)p, (int)i);
    }
    if (!total) err_set(note, n, "OpenCL platforms present but no devices");
    return total;
}

static struct dev *ocl_open(const struct device_info *info, char *err, size_t n) {
    if (ocl_load(err, n) != 0) return NULL;
    cl_platform_id plats[16];
    cl_uint np = 0;
    p_clGetPlatformIDs(16, plats, &np);
    if ((cl_uint)info->index[0] >= np) return err_set(err, n, "%s: no such platform", info->spec), NULL;
    cl_device_id devs[32];
    cl_uint nd = 0;
    p_clGetDeviceIDs(plats[info->index[0]], CL_DEVICE_TYPE_ALL, 32, devs, &nd);
    if ((cl_uint)info->index[1] >= nd) return err_set(err, n, "%s: no such device", info->spec), NULL;
    struct ocl_dev *o = xcalloc(1, sizeof *o);
    o->device = devs[info->index[1]];
    cl_int rc;
    o->context = p_clCreateContext(NULL, 1, &o->device, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        free(o);
        return err_set(err, n, "clCreateContext: OpenCL error %d", (int)rc), NULL;
    }
    /* An in-order queue with profiling: markers give device time. */
    o->queue = p_clCreateCommandQueue(o->context, o->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc != CL_SUCCESS) {
        p_clReleaseContext(o->context);
        free(o);
        return err_set(err, n, "clCreateCommandQueue: OpenCL error %d", (int)rc), NULL;
    }
    struct dev *d = xcalloc(1, sizeof *d);
    d->ops = &backend_opencl;
    d->info = *info;
    d->ctx = o;
    return d;
}

static void ocl_close(struct dev *d) {
    if (!d) return;
    struct ocl_dev *o = d->ctx;
    for (int i = 0; i < 2; i++)
        if (o->marks[i]) p_clReleaseEvent(o->marks[i]);
    p_clReleaseCommandQueue(o->queue);
    p_clReleaseContext(o->context);
    free(o);
    free(d);
}

static void build_log(struct dev *d, cl_program prog, const char *what) {
    struct ocl_dev *o = d->ctx;
    char *log = xcalloc(1, 65536);
    p_clGetProgramBuildInfo(prog, o->device, CL_PROGRAM_BUILD_LOG, 65535, log, NULL);
    dev_fail(d, "%s:\n%s", what, log);
    free(log);
}

/* Tries the cached binary; NULL when absent or refused (then we build from source). */
static cl_program from_cache(struct dev *d, const char *key, const char *options) {
    struct ocl_dev *o = d->ctx;
    size_t len = 0;
    unsigned char *bin = cache_load(key, ".clbin", &len);
    if (!bin) return NULL;
    cl_int rc, status;
    const unsigned char *bins[1] = {bin};
    cl_program prog = p_clCreateProgramWithBinary(o->context, 1, &o->device, &len, bins, &status, &rc);
    free(bin);
    if (rc != CL_SUCCESS) return NULL;
    if (p_clBuildProgram(prog, 1, &o->device, options, NULL, NULL) != CL_SUCCESS) {
        p_clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

static void to_cache(struct dev *d, cl_program prog, const char *key) {
    (void)d;
    size_t len = 0;
    if (p_clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || !len) return;
    unsigned char *bin = malloc(len);
    if (!bin) return;
    unsigned char *bins[1] = {bin};
    if (p_clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        cache_store(key, ".clbin", bin, len);
    free(bin);
}

/* The options without their -I folders, which go to dirs instead: the
 * source is compiled with its headers written in (source_inlined), so that
 * neither the text nor the options name this checkout's folder. */
#define OCL_MAX_DIRS 8
static char *strip_include_dirs(const char *options, char dirs[OCL_MAX_DIRS][PATH_MAX], int *ndirs) {
    struct strbuf out = {0};
    sb_printf(&out, "%s", "");
    *ndirs = 0;
    const char *p = options ? options : "";
    while (*p) {
        while (*p == ' ') p++;
        const size_t len = strcspn(p, " ");
        if (len > 2 && !strncmp(p, "-I", 2) && *ndirs < OCL_MAX_DIRS)
            str_fmt(dirs[(*ndirs)++], PATH_MAX, "%.*s", (int)(len - 2), p + 2);
        else if (len) sb_printf(&out, "%s%.*s", out.s[0] ? " " : "", (int)len, p);
        p += len;
    }
    return out.s;
}

static struct program *ocl_build(struct dev *d, const char *source, const char *given_options) {
    struct ocl_dev *o = d->ctx;
    char dirs[OCL_MAX_DIRS][PATH_MAX];
    int ndirs = 0;
    char *options = strip_include_dirs(given_options, dirs, &ndirs);
    const char *dir_list[OCL_MAX_DIRS];
    for (int i = 0; i < ndirs; i++) dir_list[i] = dirs[i];
    char *text = source_inlined(source, dir_list, ndirs, d->err, sizeof d->err);
    if (!text) {
        free(options);
        return NULL;
    }
    char key[17], device_id[512];
    snprintf(device_id, sizeof device_id, "%s|%s", d->info.name, d->info.fingerprint);
    cache_key(key, text, options, d->info.driver, device_id);
    cl_program prog = from_cache(d, key, options);
    int lock = -1;
    if (!prog) { /* another process may be building it: wait, then look again */
        lock = cache_lock(key);
        prog = from_cache(d, key, options);
    }
    if (!prog) {
        cl_int rc;
        const char *srcs[1] = {text};
        prog = p_clCreateProgramWithSource(o->context, 1, srcs, NULL, &rc);
        if (rc != CL_SUCCESS) {
            ocl_fail(d, "clCreateProgramWithSource", rc);
            prog = NULL;
        } else if (p_clBuildProgram(prog, 1, &o->device, options, NULL, NULL) != CL_SUCCESS) {
            build_log(d, prog, "clBuildProgram");
            p_clReleaseProgram(prog);
            prog = NULL;
        } else {
            to_cache(d, prog, key);
        }
    }
    cache_unlock(lock);
    free(text);
    free(options);
    if (!prog) return NULL;
    struct program *p = xcalloc(1, sizeof *p);
    p->prog = prog;
    return p;
}

static void ocl_program_free(struct dev *d, struct program *p) {
    (void)d;
    if (!p) return;
    for (struct kernel *k = p->kernels, *next; k; k = next) {
        next = k->next;
        p_clReleaseKernel(k->k);
        free(k);
    }
    p_clReleaseProgram(p->prog);
    free(p);
}

static struct kernel *ocl_kernel(struct dev *d, struct program *p, const char *name) {
    for (struct kernel *k = p->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) return k;
    cl_int rc;
    cl_kernel ck = p_clCreateKernel(p->prog, name, &rc);
    if (rc != CL_SUCCESS) return dev_fail(d, "clCreateKernel(%s): OpenCL error %d", name, (int)rc), NULL;
    struct kernel *k = xcalloc(1, sizeof *k);
    k->k = ck;
    k->prog = p->prog;
    str_copy(k->name, sizeof k->name, name);
    k->next = p->kernels;
    p->kernels = k;
    return k;
}

static struct buf *ocl_alloc(struct dev *d, size_t bytes) {
    struct ocl_dev *o = d->ctx;
    cl_int rc;
    cl_mem m = p_clCreateBuffer(o->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &rc);
    if (rc != CL_SUCCESS) return ocl_fail(d, "clCreateBuffer", rc), NULL;
    struct buf *b = xcalloc(1, sizeof *b);
    b->mem = m;
    return b;
}

static void ocl_buf_free(struct dev *d, struct buf *b) {
    (void)d;
    if (!b) return;
    p_clReleaseMemObject(b->mem);
    free(b);
}

static int ocl_write(struct dev *d, struct buf *b, size_t off, size_t bytes, const void *src) {
    struct ocl_dev *o = d->ctx;
    cl_int rc = p_clEnqueueWriteBuffer(o->queue, b->mem, CL_TRUE, off, bytes, src, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, "clEnqueueWriteBuffer", rc);
}

static int ocl_read(struct dev *d, struct buf *b, size_t off, size_t bytes, void *dst) {
    struct ocl_dev *o = d->ctx;
    cl_int rc = p_clEnqueueReadBuffer(o->queue, b->mem, CL_TRUE, off, bytes, dst, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, "clEnqueueReadBuffer", rc);
}

static int ocl_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    struct ocl_dev *o = d->ctx;
    cl_int rc = p_clEnqueueCopyBuffer(o->queue, src->mem, dst->mem, 0, 0, bytes, 0, NULL, NULL);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, "clEnqueueCopyBuffer", rc);
}

static int set_args(struct dev *d, cl_kernel k, const char *name, int nargs, const struct karg *args) {
    for (int i = 0; i < nargs; i++) {
        cl_int rc;
        switch (args[i].kind) {
        case KARG_BUF: rc = p_clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &args[i].buf->mem); break;
        case KARG_INT: rc = p_clSetKernelArg(k, (cl_uint)i, sizeof(cl_int), &args[i].i); break;
        case KARG_FLOAT: rc = p_clSetKernelArg(k, (cl_uint)i, sizeof(cl_float), &args[i].f); break;
        case KARG_BYTES: rc = p_clSetKernelArg(k, (cl_uint)i, args[i].val.size, args[i].val.ptr); break;
        default: rc = p_clSetKernelArg(k, (cl_uint)i, args[i].bytes, NULL); break;
        }
        if (rc != CL_SUCCESS) return dev_fail(d, "clSetKernelArg(%s, %d): OpenCL error %d", name, i, (int)rc);
    }
    return 0;
}

static int enqueue(struct dev *d, cl_kernel k, const char *name, const size_t global[2], const size_t local[2]) {
    struct ocl_dev *o = d->ctx;
    cl_int rc = p_clEnqueueNDRangeKernel(o->queue, k, 2, NULL, global, local, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return dev_fail(d, "clEnqueueNDRangeKernel(%s, %zux%zu / %zux%zu): OpenCL error %d", name, global[0], global[1],
                        local[0], local[1], (int)rc);
    return 0;
}

static int ocl_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                      const struct karg *args) {
    if (set_args(d, k->k, k->name, nargs, args)) return -1;
    return enqueue(d, k->k, k->name, global, local);
}

/* OpenCL 1.2 has no clCloneKernel: a second object comes from the program. */
static struct bound *ocl_bind(struct dev *d, struct kernel *k, int nargs, const struct karg *args) {
    cl_int rc;
    cl_kernel ck = p_clCreateKernel(k->prog, k->name, &rc);
    if (rc != CL_SUCCESS) return dev_fail(d, "clCreateKernel(%s): OpenCL error %d", k->name, (int)rc), NULL;
    if (set_args(d, ck, k->name, nargs, args)) {
        p_clReleaseKernel(ck);
        return NULL;
    }
    struct bound *b = xcalloc(1, sizeof *b);
    b->k = ck;
    str_copy(b->name, sizeof b->name, k->name);
    return b;
}

static int ocl_launch_bound(struct dev *d, struct bound *b, const size_t global[2], const size_t local[2]) {
    return enqueue(d, b->k, b->name, global, local);
}

static void ocl_bound_free(struct dev *d, struct bound *b) {
    (void)d;
    if (!b) return;
    p_clReleaseKernel(b->k);
    free(b);
}

static int ocl_finish(struct dev *d) {
    struct ocl_dev *o = d->ctx;
    cl_int rc = p_clFinish(o->queue);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, "clFinish", rc);
}

static int ocl_mark(struct dev *d, int slot) {
    struct ocl_dev *o = d->ctx;
    if (o->marks[slot]) p_clReleaseEvent(o->marks[slot]);
    o->marks[slot] = NULL;
    cl_int rc = p_clEnqueueMarkerWithWaitList(o->queue, 0, NULL, &o->marks[slot]);
    return rc == CL_SUCCESS ? 0 : ocl_fail(d, "clEnqueueMarkerWithWaitList", rc);
}

static int ocl_elapsed(struct dev *d, double *seconds) {
    struct ocl_dev *o = d->ctx;
    cl_ulong t0 = 0, t1 = 0;
    if (!o->marks[0] || !o->marks[1]) return dev_fail(d, "elapsed() before two marks");
    /* Markers complete when everything before them has; END is that moment. */
    cl_int rc = p_clGetEventProfilingInfo(o->marks[0], CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
    if (rc == CL_SUCCESS) rc = p_clGetEventProfilingInfo(o->marks[1], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (rc != CL_SUCCESS) return ocl_fail(d, "clGetEventProfilingInfo", rc);
    *seconds = (double)(t1 - t0) * 1e-9;
    return 0;
}

const struct backend_ops backend_opencl = {
    .name = "opencl",
    .list = ocl_list,
    .open = ocl_open,
    .close = ocl_close,
    .build = ocl_build,
    .program_free = ocl_program_free,
    .kernel = ocl_kernel,
    .alloc = ocl_alloc,
    .buf_free = ocl_buf_free,
    .write = ocl_write,
    .read = ocl_read,
    .copy = ocl_copy,
    .launch = ocl_launch,
    .bind = ocl_bind,
    .launch_bound = ocl_launch_bound,
    .bound_free = ocl_bound_free,
    .finish = ocl_finish,
    .mark = ocl_mark,
    .elapsed = ocl_elapsed,
    .source_suffix = ".cl",
    .fma_option = "-cl-mad-enable",
    .fast_math_option = "-cl-fast-relaxed-math",
    .caps = ocl_caps,
    .launch_cost_src = launch_cost_src_opencl,
};
#endif
