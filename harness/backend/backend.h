/* The backend interface: one struct of function pointers per programming
 * model (OpenCL, CUDA, OpenMP), in the manner of ggml's backend vtable.
 * App schedules are written once against this interface; nothing outside a
 * backend_*.c file knows which API runs underneath.
 *
 * Every operation that can fail returns 0 on success and -1 on failure, with
 * the reason left in dev->err. */
#ifndef HARNESS_BACKEND_H
#define HARNESS_BACKEND_H
#include <stddef.h>
#include <stdint.h>

/* What a device can do. Apps' validity rules and the report ask for these,
 * never for a backend's name, so a new backend needs no edit outside this
 * folder (README.md: adding a backend; hwloc's components and ggml's
 * supports_op do the same).
 * Filled by the backend's caps() from the rest of device_info. */
struct device_caps {
    unsigned work_groups : 1;       /* kernels run as work-groups with local memory and barriers;
                                       0: host threads over tiles (OpenMP: threads and schedule knobs) */
    unsigned recorded_launches : 1; /* a launch sequence recorded once and replayed (CUDA graphs) */
    unsigned coresident_grid : 1;   /* every group resident at once: a grid-wide barrier cannot deadlock */
    unsigned clusters : 1;          /* thread-block clusters with distributed shared memory */
    unsigned dependent_launch : 1;  /* a launch may start while the previous one finishes (PDL) */
    unsigned warp_shuffle : 1;      /* 32-wide warp shuffles the kernels can spell */
    unsigned readonly_loads : 1;    /* loads through a read-only data cache (__ldg) */
    unsigned directives : 1;        /* directive programs (OpenACC, OpenMP target): a source owns its
                                       loops, reductions and data movement and is launched whole;
                                       buffers are device addresses (deviceptr / is_device_ptr) */
    unsigned icd_device : 1;        /* an OpenCL ICD loader's platform index[0], device index[1]: a
                                       host program in another language (pyopencl) can open it */
    /* What a directive program may be written with (OpenACC by GCC for nvptx, GPU and host fallback
       alike, since the host fallback builds the same program): */
    unsigned declare_globals : 1; /* device globals its regions read without naming them (declare create) */
    unsigned async_queues : 1;    /* regions queued on a numbered queue, one wait at the end (async(1)) */
    unsigned ptx_atomics : 1;     /* an atomic add spelled as PTX (red.global.add.f64) where the compiler
                                     has no pattern of its own */
    unsigned vector_in_warps : 1; /* a vector length runs only as whole 32-lane warps up to 1024: another
                                     builds with a warning and runs 32 (or 1024) lanes */
};

struct device_info {
    char backend[16]; /* "opencl", "cuda", "openmp", "openacc", "omp-target" */
    char spec[32];    /* what --device accepts: "opencl:0.1", "cuda:0", "openmp", "openacc:0", "omp-target:host" */
    char vendor[128];
    char name[256];
    char driver[128];
    char kind[16]; /* "gpu", "cpu", "accelerator" */
    unsigned compute_units;
    size_t max_wg;      /* largest work-group (block, tile) in items */
    size_t max_item[3]; /* largest extent per dimension */
    uint64_t global_mem, local_mem, max_alloc;
    char arch[32]; /* CUDA: "sm_90"; others: "" */
    /* The board's PCI address, "0000:65:00.0" (domain:bus:device.function,
     * hex) where the backend can tell (CUDA; NVIDIA's OpenCL), "" elsewhere:
     * how the energy meter finds the board (energy.h). Not in the
     * fingerprint: the same model in another slot performs the same. */
    char pci_bus[32];
    int index[2];            /* backend-private: platform and device numbers */
    char fingerprint[17];    /* hex of a hash over the fields above */
    struct device_caps caps; /* from the fields above (backend_ops.caps); not in the fingerprint */
};

struct strbuf; /* base/util.h */

/* Opaque per-backend objects. */
struct buf;
struct program;
struct kernel;
struct bound;     /* a kernel instance with its arguments bound once */
struct recording; /* a recorded sequence of launches, replayable */

enum karg_kind { KARG_BUF, KARG_INT, KARG_FLOAT, KARG_LOCAL, KARG_BYTES };

/* One kernel argument. KARG_LOCAL is work-group scratch memory of `bytes`
 * (OpenCL __local, CUDA dynamic __shared__, OpenMP a per-tile array).
 * KARG_BYTES passes a struct by value (`val.size` bytes at `val.ptr`). */
struct karg {
    enum karg_kind kind;
    union {
        struct buf *buf;
        int i;
        float f;
        size_t bytes;
        struct {
            const void *ptr;
            size_t size;
        } val;
    };
};
#define ARG_BUF(b) ((struct karg){.kind = KARG_BUF, .buf = (b)})
#define ARG_INT(v) ((struct karg){.kind = KARG_INT, .i = (v)})
#define ARG_FLOAT(v) ((struct karg){.kind = KARG_FLOAT, .f = (v)})
#define ARG_LOCAL(n) ((struct karg){.kind = KARG_LOCAL, .bytes = (n)})
#define ARG_BYTES(p, n) ((struct karg){.kind = KARG_BYTES, .val = {(p), (n)}})
#define KARG_MAX 40

/* The room for a device's per-kernel resources text (struct dev), and a
 * measurement's copy of it (core/measurement.h keeps the same size). */
#define DEV_RESOURCES_MAX 1024

struct dev {
    const struct backend_ops *ops;
    struct device_info info;
    void *ctx;      /* the backend's own state */
    char err[4096]; /* the last failure, including build logs */
    /* (optional) The board's energy meter, read around the timed
     * repetitions (core/timed.h); opened by dev_open_measuring, NULL where
     * the device has none or whoever opened it will not measure. */
    struct energy_meter *energy;
    /* (optional) What the compiler gave each kernel loaded since the runner
     * last cleared it (before each config): "kernel:registers:local_bytes"
     * entries, space-separated, each kernel once (dev_resources_add), so the
     * config's measurement can store them (the guideline's register story).
     * CUDA reads the loaded function's attributes, the directive backends
     * ptxas's report; CPU backends and OpenCL have no such query and leave it
     * empty. */
    char resources[DEV_RESOURCES_MAX];
};

struct backend_ops {
    const char *name;
    /* Lists this backend's devices into *out (malloc'd). Returns the count;
     * 0 with `note` saying why (driver absent, no device) is not an error. */
    int (*list)(struct device_info **out, char *note, size_t note_n);
    /* Opens a device from list(); NULL with err filled on failure. */
    struct dev *(*open)(const struct device_info *info, char *err, size_t err_n);
    void (*close)(struct dev *d);
    /* Builds `source` (a file path) with compiler options (-D knobs, -I dirs).
     * Products are cached on disk by a hash of source, options, compiler and
     * device, so the second build of the same thing compiles nothing. */
    struct program *(*build)(struct dev *d, const char *source, const char *options);
    void (*program_free)(struct dev *d, struct program *p);
    struct kernel *(*kernel)(struct dev *d, struct program *p, const char *name);
    struct buf *(*alloc)(struct dev *d, size_t bytes);
    void (*buf_free)(struct dev *d, struct buf *b);
    int (*write)(struct dev *d, struct buf *b, size_t offset, size_t bytes, const void *src);
    /* Blocking read: returns when the data is on the host. */
    int (*read)(struct dev *d, struct buf *b, size_t offset, size_t bytes, void *dst);
    /* Device-to-device copy (enqueued; finish() to wait). */
    int (*copy)(struct dev *d, struct buf *dst, struct buf *src, size_t bytes);
    /* Enqueues a 2D launch of global[0] x global[1] items in groups of
     * local[0] x local[1]. */
    int (*launch)(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                  const struct karg *args);
    /* Waits for everything enqueued. */
    int (*finish)(struct dev *d);
    /* Records a timestamp in the queue (slot 0 or 1); elapsed() returns the
     * device time between slot 0 and slot 1 after a finish. */
    int (*mark)(struct dev *d, int slot);
    int (*elapsed)(struct dev *d, double *seconds);
    /* (optional) The device address of a buffer, for structs of pointers
     * passed by value (CUDA, OpenMP). NULL where buffers have no stable
     * address the host may know (OpenCL 1.2). */
    int (*address)(struct dev *d, struct buf *b, uint64_t *addr);
    /* (optional) Binds arguments once to a fresh instance of kernel k, so
     * that launch_bound enqueues it without setting any: a step's launch
     * then costs the enqueue alone. Instances of one kernel with different
     * arguments coexist (a ping-pong pair: cells->tmp and tmp->cells). The
     * values (and KARG_BYTES contents) are copied. OpenCL: a kernel object
     * per instance, clSetKernelArg once; CUDA: a prepared kernelParams
     * array; OpenMP: a stored argument vector. */
    struct bound *(*bind)(struct dev *d, struct kernel *k, int nargs, const struct karg *args);
    int (*launch_bound)(struct dev *d, struct bound *b, const size_t global[2], const size_t local[2]);
    void (*bound_free)(struct dev *d, struct bound *b);
    /* (optional) Between record_begin and record_end, launch_bound records
     * its launch instead of running it (nothing else may be enqueued
     * meanwhile); replay enqueues the recorded launches, in order, `times`
     * times over. A replay repeats the arguments as recorded, so anything
     * that must differ between replays comes from device memory. CUDA: a
     * captured, instantiated graph; OpenMP: the list of launches, re-run. */
    int (*record_begin)(struct dev *d);
    struct recording *(*record_end)(struct dev *d);
    int (*replay)(struct dev *d, struct recording *r, long times);
    void (*recording_free)(struct dev *d, struct recording *r);
    /* (optional) Launches a one-dimensional grid of at most *groups
     * work-groups of local[0] x local[1] items that are all resident at
     * once, so they may wait for each other (a grid-wide barrier) without
     * deadlock; *groups becomes the count launched, which the kernel reads
     * as its number of groups. CUDA: a cooperative launch sized by the
     * occupancy API; OpenMP: one call whose parallel region is the grid.
     * Absent where the model promises no co-residency (OpenCL). */
    int (*launch_resident)(struct dev *d, struct kernel *k, size_t *groups, const size_t local[2], int nargs,
                           const struct karg *args);
    /* (optional) Launches one cluster of `groups` work-groups of local[0] x
     * local[1] items, scheduled together on neighbouring compute units so
     * that they may read each other's local memory and wait on a
     * cluster-wide barrier. CUDA: a thread-block cluster (sm_90 and later;
     * more than 8 blocks where the device allows non-portable sizes). */
    int (*launch_cluster)(struct dev *d, struct kernel *k, unsigned groups, const size_t local[2], int nargs,
                          const struct karg *args);
    /* (optional) Lets later launches of k start before the launch ahead of
     * them in the queue has finished, so one launch's start-up overlaps the
     * previous one's tail; k must then wait for its predecessor's results
     * itself before reading them. CUDA: programmatic dependent launch
     * (sm_90 and later; the kernel executes griddepcontrol.wait). */
    int (*overlap)(struct dev *d, struct kernel *k, int on);
    /* (optional) Later launches of k group their work-groups into clusters
     * of `groups` neighbours along x (1: no clusters), scheduled together
     * so that a work-group may read its cluster neighbours' local memory
     * and wait on a cluster-wide barrier. The grid's x extent must be a
     * multiple of the cluster. CUDA: thread-block clusters (sm_90 and
     * later; more than 8 blocks where the device allows non-portable sizes). */
    int (*cluster)(struct dev *d, struct kernel *k, unsigned groups);
    /* The kernel-source file extension this backend builds: ".cl", ".cu", "_omp.c", "_acc.c", "_omptgt.c". */
    const char *source_suffix;
    /* (optional) The build option that lets the compiler contract a * b + c
     * into one fused multiply-add where it does not by default: OpenCL
     * -cl-mad-enable, ISO C -ffp-contract=fast. NULL where it already does
     * (NVRTC compiles with --fmad=true unless told otherwise). */
    const char *fma_option;
    /* The build option that lets the compiler trade IEEE rounding for speed
     * (approximate reciprocals and square roots, denormals flushed, a * b + c
     * contracted): NVRTC --use_fast_math, OpenCL -cl-fast-relaxed-math, ISO C
     * -ffast-math. */
    const char *fast_math_option;
    /* The build option that stops the compiler contracting a * b + c, for
     * kernels whose answers must match a reference bit for bit: NVRTC
     * --fmad=false, ISO C -ffp-contract=off; NULL where it does not contract
     * unasked (OpenCL without -cl-mad-enable). */
    const char *no_contract_option;
    /* (optional) The build option that caps the registers a thread may use,
     * a printf format with one %d: NVRTC --maxrregcount=%d. Below the count
     * the compiler would take, more threads fit a multiprocessor and the
     * rest spills to local memory (the seed 003 guideline's step 5: which
     * wins is measured, not guessed). NULL where there is none to pass. */
    const char *reg_cap_option;
    /* Fills info->caps from the rest of info (vendor, arch, ...). */
    void (*caps)(struct device_info *info);
    /* (optional) Whether the compiler knobs (core/compiler_knobs.h) can
     * build this backend's kernels for info: cc "gcc" or "clang", opt "O0"
     * ... "O3". NULL, or why not in one line (written to why). Present where
     * kernels are C built by a host compiler (openmp, omp-target, openacc);
     * elsewhere only the defaults are accepted. */
    const char *(*compiler_refusal)(const struct device_info *info, const char *cc, const char *opt, char *why,
                                    size_t n);
    /* (optional) The launch-cost probe (launch_cost.h) in this backend's
     * language, appended to b: a near-empty kernel LAUNCH_COST_KERNEL with
     * nargs parameters, float buffers (buffers = 1) or ints. Absent: the
     * backend has no probe (launch-cost says so). */
    void (*launch_cost_src)(struct strbuf *b, int buffers, int nargs);
};

/* The registry: every compiled-in backend, in listing order. */
extern const struct backend_ops backend_opencl, backend_cuda, backend_openmp, backend_openacc, backend_omp_target;
extern const struct backend_ops *const backends[];
extern const int backend_count;
/* What the backends read at run time, relative to the repository's root
 * (files or folders; NULL-terminated): kept with every nightly build
 * (track/kept_build.c), so an old build runs with its own. */
extern const char *const backend_runtime_files[];

/* Every device of every backend; notes (one line each) for backends with
 * none. Caller frees *out. */
int devices_all(struct device_info **out, char notes[][256], int max_notes, int *nnotes);
/* Finds devices matching a spec ("cuda:0", "opencl:0.1", "openmp", "all",
 * "opencl", a kind: "gpu" or "cpu", or a name substring). Returns the count
 * (0 = no match). */
int devices_match(const struct device_info *all, int n, const char *spec, int *idx, int max);
const struct backend_ops *backend_by_name(const char *name);
/* A backend opened by name but never listed: a device set (core/devset.h)
 * registers its ops here before main runs, since backend/ includes nothing
 * of the engine's. backend_by_name finds it; dev_open_measuring opens it
 * with its own open, which opens each member with its meter. */
void backend_register_unlisted(const struct backend_ops *ops);
/* Fills info->fingerprint from the identifying fields. */
void device_fingerprint(struct device_info *info);
/* Fills info->caps through its backend (devices_all does it for every device
 * it lists; a device_info made by hand, as in tests, calls it). */
void device_caps(struct device_info *info);
/* Opens a device to measure on: its backend's open(), then its energy meter
 * (energy.h; d->energy stays NULL where there is none). dev_close closes
 * both, and any device, however opened. */
struct dev *dev_open_measuring(const struct device_info *info, char *err, size_t errn);
void dev_close(struct dev *d);
/* Adds "kernel:registers:local_bytes" to d->resources unless that kernel is
 * there already (a program looks a kernel up once; two programs of one
 * config may share a name: the first stays). An entry that does not fit is
 * dropped whole, never cut. */
void dev_resources_add(struct dev *d, const char *kernel, int registers, int local_bytes);
/* Convenience: sets d->err and returns -1. */
int dev_fail(struct dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
