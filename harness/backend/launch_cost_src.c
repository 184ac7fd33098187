/* The launch-cost probe kernels, generated per backend, kind and argument
 * count (there are 2 x 41 of them per backend; writing them by hand would
 * be 246 files that differ in one number).
 *
 * What the bodies do, and why:
 *  - buffer kernels: work-item 0 stores nargs into a0[0]. The launch then
 *    has an effect the measurement checks (a launch that silently did
 *    nothing would look cheap), and no compiler may drop the kernel.
 *  - int kernels: store nothing. Somewhere to store would be a buffer
 *    argument, and the point is a kernel whose arguments are all ints. The
 *    arguments are still set and passed on every launch; that is the cost.
 *  - OpenMP: apps' kernels open a parallel region per launch (`omp parallel
 *    for` over the items), so the probe does too: the fork and join are
 *    part of what a launch costs there. Int kernels read their ints inside
 *    an empty asm statement, so the region cannot be optimised away either.
 *    The argument count only changes what the backend marshals into args[].
 *  - OpenACC and OpenMP target: the same ABI, a compute region per launch
 *    (parallel loop / target teams distribute parallel for) over device
 *    addresses (deviceptr / is_device_ptr); the ints go in firstprivate, so
 *    every launch carries them to the device. */
#include "backend/launch_cost.h"

#include <string.h>

#include "base/util.h"

/* "(__global float *a0, __global float *a1)" and the like; "(void)" when
 * empty, which both OpenCL C and CUDA C++ accept. */
static void params(struct strbuf *b, const char *type, int nargs) {
    if (nargs == 0) {
        sb_printf(b, "(void)");
        return;
    }
    sb_printf(b, "(");
    for (int i = 0; i < nargs; i++) sb_printf(b, "%s%sa%d", i ? ", " : "", type, i);
    sb_printf(b, ")");
}

void launch_cost_src_opencl(struct strbuf *b, int buffers, int nargs) {
    sb_printf(b, "__kernel void " LAUNCH_COST_KERNEL);
    params(b, buffers ? "__global float *" : "int ", nargs);
    if (buffers && nargs > 0)
        sb_printf(b, "\n{\n    if (get_global_id(0) == 0 && get_global_id(1) == 0) a0[0] = %d.0f;\n}\n", nargs);
    else sb_printf(b, "\n{\n}\n");
}

void launch_cost_src_cuda(struct strbuf *b, int buffers, int nargs) {
    sb_printf(b, "extern \"C\" __global__ void " LAUNCH_COST_KERNEL);
    params(b, buffers ? "float *" : "int ", nargs);
    if (buffers && nargs > 0)
        sb_printf(b,
                  "\n{\n    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)"
                  " a0[0] = %d.0f;\n}\n",
                  nargs);
    else sb_printf(b, "\n{\n}\n");
}

/* The ABI of harness/backend/omp_kernel.h: args[i] is the buffer's memory or a
 * pointer to the int. */
void launch_cost_src_openmp(struct strbuf *b, int buffers, int nargs) {
    sb_printf(b, "#include \"omp_kernel.h\"\n\n"
                 "void " LAUNCH_COST_KERNEL "(const struct omp_launch *L, void *const *args)\n{\n");
    const int store = buffers && nargs > 0;
    if (store) sb_printf(b, "    float *a0 = args[0];\n");
    if (!buffers) {
        sb_printf(b, "    int sum = 0;\n");
        for (int i = 0; i < nargs; i++) sb_printf(b, "    sum += *(const int *)args[%d];\n", i);
    } else {
        sb_printf(b, "    (void)args;\n");
    }
    sb_printf(b, "    const long items = (long)(L->global[0] * L->global[1]);\n"
                 "#pragma omp parallel for\n"
                 "    for (long i = 0; i < items; i++) {\n");
    if (store) sb_printf(b, "        if (i == 0) a0[0] = %d.0f;\n", nargs);
    else if (!buffers) sb_printf(b, "        __asm__ __volatile__(\"\" : : \"r\"(sum) : \"memory\");\n");
    else sb_printf(b, "        __asm__ __volatile__(\"\" : : : \"memory\");\n");
    sb_printf(b, "    }\n}\n");
}

/* model: 0 OpenACC, 1 OpenMP target. */
static void directive_src(struct strbuf *b, int buffers, int nargs, int model) {
    sb_printf(b, "#include \"omp_kernel.h\"\n\n"
                 "void " LAUNCH_COST_KERNEL "(const struct omp_launch *L, void *const *args)\n{\n");
    const int store = buffers && nargs > 0;
    if (store) sb_printf(b, "    float *a0 = args[0];\n");
    else sb_printf(b, "    (void)args;\n");
    if (!buffers) {
        sb_printf(b, "    int sum = 0;\n");
        for (int i = 0; i < nargs; i++) sb_printf(b, "    sum += *(const int *)args[%d];\n", i);
    }
    const char *clause = store ? (model ? "is_device_ptr(a0)" : "deviceptr(a0)") : !buffers ? "firstprivate(sum)" : "";
    sb_printf(b,
              "    const long items = (long)(L->global[0] * L->global[1]);\n"
              "#pragma %s %s\n"
              "    for (long i = 0; i < items; i++) {\n",
              model ? "omp target teams distribute parallel for" : "acc parallel loop gang vector", clause);
    if (store) sb_printf(b, "        if (i == 0) a0[0] = %d.0f;\n", nargs);
    else if (!buffers) sb_printf(b, "        __asm__ __volatile__(\"\" : : \"r\"(sum) : \"memory\");\n");
    else sb_printf(b, "        __asm__ __volatile__(\"\" : : : \"memory\");\n");
    sb_printf(b, "    }\n}\n");
}
void launch_cost_src_openacc(struct strbuf *b, int buffers, int nargs) { directive_src(b, buffers, nargs, 0); }
void launch_cost_src_omp_target(struct strbuf *b, int buffers, int nargs) { directive_src(b, buffers, nargs, 1); }

char *launch_cost_source(const char *backend, enum launch_cost_kind kind, int nargs) {
    if (!backend || nargs < 0 || nargs > KARG_MAX) return NULL;
    if (kind != LAUNCH_COST_BUFFER && kind != LAUNCH_COST_INT) return NULL;
    const struct backend_ops *ops = backend_by_name(backend);
    if (!ops || !ops->launch_cost_src) return NULL;
    struct strbuf b = {0};
    sb_printf(&b, "/* launch-cost probe: %d %s argument%s (generated by harness/backend/launch_cost_src.c) */\n", nargs,
              launch_cost_kind_name(kind), nargs == 1 ? "" : "s");
    ops->launch_cost_src(&b, kind == LAUNCH_COST_BUFFER, nargs);
    return b.s;
}
