/* What the two directive backends (backend_openacc.c, backend_omp_target.c)
 * share: backend_offload.c does the work, each backend file names its
 * programming model. Private to harness/backend. */
#ifndef HARNESS_OFFLOAD_H
#define HARNESS_OFFLOAD_H
#include "backend/backend.h"
#include "backend/compilers.h"
#include "backend/launch_cost.h"

struct offload_runtime; /* the loaded offload/offload_rt.c of one model */

struct offload_model {
    const char *backend;      /* "openacc", "omp-target" */
    const char *model_flag;   /* -fopenacc, -fopenmp */
    const char *rt_define;    /* -DORT_ACC, -DORT_OMP */
    const char *count_symbol; /* the runtime call whose library we report: acc_get_num_devices */
    const char *title;        /* "OpenACC", "OpenMP target" */
    int clang;                /* 1 when clang builds this model (OpenMP target; clang has no OpenACC) */
    const struct backend_ops *ops;
    struct offload_runtime *rt[CC_FAMILIES]; /* per compiler family (compilers.h), loaded once per process */
    char failure[CC_FAMILIES][512];         /* why each could not be loaded, once known */
};

int offload_list(struct offload_model *m, struct device_info **out, char *note, size_t note_n);
struct dev *offload_open(struct offload_model *m, const struct device_info *info, char *err, size_t n);
struct program *offload_build(struct offload_model *m, struct dev *d, const char *source, const char *options);
/* backend_ops.compiler_refusal for model m. */
const char *offload_compiler_refusal(const struct offload_model *m, const struct device_info *info, const char *cc,
                                     const char *opt, char *why, size_t n);

/* The ops that do not depend on the model (buffers, launches, timing). */
void offload_close(struct dev *d);
void offload_program_free(struct dev *d, struct program *p);
struct kernel *offload_kernel(struct dev *d, struct program *p, const char *name);
struct buf *offload_alloc(struct dev *d, size_t bytes);
void offload_buf_free(struct dev *d, struct buf *b);
int offload_write(struct dev *d, struct buf *b, size_t off, size_t bytes, const void *src);
int offload_read(struct dev *d, struct buf *b, size_t off, size_t bytes, void *dst);
int offload_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes);
int offload_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                   const struct karg *args);
int offload_address(struct dev *d, struct buf *b, uint64_t *addr);
int offload_finish(struct dev *d);
int offload_mark(struct dev *d, int slot);
int offload_elapsed(struct dev *d, double *seconds);
void offload_caps(struct device_info *info);

/* The members both directive backends fill alike (everything but how a
 * device is listed, opened and a program built, and the source suffix). */
#define OFFLOAD_COMMON_OPS                                                                                             \
    .close = offload_close, .program_free = offload_program_free, .kernel = offload_kernel, .alloc = offload_alloc,    \
    .buf_free = offload_buf_free, .write = offload_write, .read = offload_read, .copy = offload_copy,                  \
    .launch = offload_launch, .address = offload_address, .finish = offload_finish, .mark = offload_mark,              \
    .elapsed = offload_elapsed, .fma_option = "-ffp-contract=fast", .fast_math_option = "-ffast-math",                 \
    .no_contract_option = "-ffp-contract=off"
#endif
