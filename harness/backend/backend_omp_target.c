/* The OpenMP target backend: kernels are C files with OpenMP target directives
 * (kernels/<app>/<app>_omptgt.c), built at run time by GCC with -fopenmp and
 * nvptx offloading; see backend_offload.c for how, and README.md for the
 * knob vocabulary (thread_limit x num_teams). */
#include "backend/offload.h"

static struct offload_model tgt_model = {
    .backend = "omp-target",
    .model_flag = "-fopenmp",
    .rt_define = "-DORT_OMP",
    .count_symbol = "omp_get_num_devices",
    .title = "OpenMP target",
    .clang = 1,
    .ops = &backend_omp_target,
};

static int tgt_list(struct device_info **out, char *note, size_t n) { return offload_list(&tgt_model, out, note, n); }
static struct dev *tgt_open(const struct device_info *info, char *err, size_t n) {
    return offload_open(&tgt_model, info, err, n);
}
static struct program *tgt_build(struct dev *d, const char *source, const char *options) {
    return offload_build(&tgt_model, d, source, options);
}
static const char *tgt_compiler_refusal(const struct device_info *info, const char *cc, const char *opt, char *why,
                                     size_t n) {
    return offload_compiler_refusal(&tgt_model, info, cc, opt, why, n);
}

const struct backend_ops backend_omp_target = {
    .name = "omp-target",
    .list = tgt_list,
    .open = tgt_open,
    .build = tgt_build,
    .source_suffix = "_omptgt.c",
    .compiler_refusal = tgt_compiler_refusal,
    .caps = offload_caps,
    .launch_cost_src = launch_cost_src_omp_target,
    OFFLOAD_COMMON_OPS,
};
