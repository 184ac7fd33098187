/* The OpenACC backend: kernels are C files with OpenACC directives
 * (kernels/<app>/<app>_acc.c), built at run time by GCC with -fopenacc and
 * nvptx offloading; see backend_offload.c for how, and README.md for the
 * knob vocabulary (vector_length x num_gangs). */
#include "backend/offload.h"

static struct offload_model acc_model = {
    .backend = "openacc",
    .model_flag = "-fopenacc",
    .rt_define = "-DORT_ACC",
    .count_symbol = "acc_get_num_devices",
    .title = "OpenACC",
    .ops = &backend_openacc,
};

static int acc_list(struct device_info **out, char *note, size_t n) { return offload_list(&acc_model, out, note, n); }
static struct dev *acc_open(const struct device_info *info, char *err, size_t n) {
    return offload_open(&acc_model, info, err, n);
}
static struct program *acc_build(struct dev *d, const char *source, const char *options) {
    return offload_build(&acc_model, d, source, options);
}
static const char *acc_compiler_refusal(const struct device_info *info, const char *cc, const char *opt, char *why,
                                     size_t n) {
    return offload_compiler_refusal(&acc_model, info, cc, opt, why, n);
}
/* What the apps' OpenACC programs are written with (GCC's OpenACC for
 * nvptx): device globals (declare create), async queues, an atomic add in
 * PTX, and vector lengths in whole warps only. */
static void acc_caps(struct device_info *info) {
    offload_caps(info);
    info->caps.declare_globals = info->caps.async_queues = info->caps.ptx_atomics = info->caps.vector_in_warps = 1;
}

const struct backend_ops backend_openacc = {
    .name = "openacc",
    .list = acc_list,
    .open = acc_open,
    .build = acc_build,
    .source_suffix = "_acc.c",
    .compiler_refusal = acc_compiler_refusal,
    .caps = acc_caps,
    .launch_cost_src = launch_cost_src_openacc,
    OFFLOAD_COMMON_OPS,
};
