/* The state of one LBM execution on a device, shared by the host schedule
 * (schedule.c: setup, the per-step launches, the reductions) and the
 * launch-cost paths (launch_steps.c: bind=once, launch=graph,
 * persistent=grid). Private to kernels/lbm. */
#ifndef LBM_EXEC_H
#define LBM_EXEC_H
#include "backend/backend.h"
#include "lbm.h"

enum reduction { RED_HOST_EACH_STEP, RED_LOCAL, RED_BINARY, RED_CHUNKED, RED_DEFERRED };

struct lbm_exec {
    struct dev *d;
    const struct app_input *in;
    const struct knob_set *k;
    struct program *prog;
    struct kernel *accel, *propagate, *rebound, *collision, *av_velocity, *fused, *reduce;
    struct kernel *bind, *swap;     /* args=struct in device memory */
    struct kernel *persist;         /* persistent=grid */
    int nbuf;                       /* buffers per lattice: 9 for soa, else 1 */
    struct buf *lat[2][9];          /* the two lattices (cells/tmp, or src/dst) */
    struct buf *alloc_lat[2][9];    /* the same buffers in allocation order */
    int phys;                       /* which allocated lattice lat[0] is now */
    struct buf *obstacles, *partials, *av;
    struct buf *lat_struct;         /* args=struct in device memory */
    struct { uint64_t src[9], dst[9]; } lat_value; /* args=struct by value */
    size_t global[2], local[2], ngroups, scratch_bytes;
    size_t row_local;               /* accelerate_flow's group along a row: divides nx */
    long chunk;                     /* steps whose partials the device holds */
    enum reduction red;
    int split, fused_accel, finish_each, empty, partial, args_struct, by_value;
    /* bind=once: the step from allocated lattice p to 1-p (and its
     * accelerate_flow on p for kernels=fused); the device's step clock. */
    int bind_once;
    int overlap;                    /* overlap=pdl|pdl-early: the fused step's launches overlap */
    struct bound *step_bound[2], *accel_bound[2];
    struct buf *clock;              /* bind=once: step, ticket; persistent: the barrier */
    /* launch=graph: `batch` steps recorded from allocated lattice p. */
    int graph;
    long batch;
    struct recording *rec[2];
    int persistent;                 /* persistent=grid or cluster */
    int temporal;                   /* steps per launch of the bound step (fused_temporal) */
    unsigned cluster;               /* persistent=cluster: blocks in the cluster */
    unsigned halo_cluster;          /* halo=cluster: blocks a cluster along x (1: none) */
    float *host_partials;
    float *host_cells, *host_tmp;   /* kernels=partial: the grid lives on the host */
    double *av_vels;                /* this repetition's per-step averages */
};

struct args { struct karg a[KARG_MAX]; int n; };

/* schedule.c */
void lbm_push(struct args *a, struct karg k);
void lbm_push_lattice(struct args *a, const struct lbm_exec *e, int which);
void lbm_push_common(struct args *a, const struct lbm_exec *e);
int lbm_launch(struct lbm_exec *e, struct kernel *k, const size_t g[2], const size_t l[2], const struct args *a);
int lbm_reduce_on_device(struct lbm_exec *e, long first, long nsteps);
/* After step t: bring this step's average home, or not yet, per the knob. */
int lbm_after_step(struct lbm_exec *e, long t);

/* launch_steps.c */
/* Setup after the buffers exist: bound instances, recordings, the clock. */
int lbm_launch_setup(struct lbm_exec *e);
void lbm_launch_release(struct lbm_exec *e);
/* Before each repetition: the device clock back to step 0. */
int lbm_launch_reset(struct lbm_exec *e);
/* Every step of a repetition with bind=once, launch=graph or
 * persistent=grid, reductions included (the final read is the caller's). */
int lbm_launch_run(struct lbm_exec *e);
/* lat[0] is the current state: after n steps swap the pair when n is odd. */
void lbm_lattices_advance(struct lbm_exec *e, long n);
#endif
