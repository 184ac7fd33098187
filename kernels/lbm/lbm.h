/* The LBM D2Q9 app's private types, shared by its files. */
#ifndef LBM_H
#define LBM_H
#include <stddef.h>
#include <stdio.h>

#include "core/app.h"

struct app_input {
    char name[64]; /* "128x128", or "gen-300x200" for a generated input */
    char params_path[1024], obstacles_path[1024];
    int nx, ny;
    long iters_full; /* maxIters from the params file */
    long iters;      /* as run (--iters overrides) */
    double reynolds_dim, density, accel, omega;
    unsigned char *obstacles; /* nx*ny, 1 = blocked, index x + y*nx */
    long fluid_cells;
};

/* The double-precision reference after `iters` steps. */
struct app_ref {
    long iters;
    double *av_vels;            /* iters values */
    double *ux, *uy, *pressure; /* per cell (obstacles: 0, 0, density*c_sq) */
};

/* Every repetition checked against the first (timed.h: timed_check) by the
 * sum of its per-step average velocities, within this relative tolerance:
 * each average is a float reduction over the grid, which OpenMP's and the
 * directive programs' reduction clauses may combine in another order from
 * one repetition to the next (a few ulps), while a repetition that computed
 * another flow moves the sum by far more. */
#define LBM_REP_RTOL 1e-5

/* What a device run produced: av_vels per step and the final grid in the
 * canonical AoS order (cell i, speed k at i*9+k). */
struct app_result {
    long iters;
    double *av_vels;
    float *cells;
    int nx, ny;
};

/* input.c */
struct app_input *lbm_input_load(const struct app_opts *o, char *err, size_t errn);
int lbm_params_parse(const char *path, struct app_input *in, char *err, size_t errn);
int lbm_obstacles_parse(const char *path, struct app_input *in, char *err, size_t errn);
/* The same from an open stream (a file, or fmemopen's memory: fuzz/), `name`
 * standing for the path in messages; the caller closes f. The obstacles
 * need in->nx and in->ny, as the params file sets them. */
int lbm_params_read(FILE *f, const char *name, struct app_input *in, char *err, size_t errn);
int lbm_obstacles_read(FILE *f, const char *name, struct app_input *in, char *err, size_t errn);
void lbm_input_free(struct app_input *in);
/* "NXxNY" (a generated box's size, after "gen:"): digits, 1..65536 a side
 * as a params file allows. 0, or -1 with nothing written. */
int lbm_parse_size(const char *s, int *nx, int *ny);
/* The initial distribution (AoS), as every variant and the reference start. */
void lbm_initial_cells(const struct app_input *in, float *cells);

/* reference.c: threads = 0 picks the machine's core count; results are
 * bit-identical for any thread count. */
struct app_ref *lbm_reference_compute(const struct app_input *in, long iters, int threads);
struct app_ref *lbm_reference(const struct app_input *in, char *err, size_t errn);
/* What the on-disk cache keys a reference by (with the obstacles' hash):
 * the input's parameters and the hash of the reference's own source. */
void lbm_reference_key_text(const struct app_input *in, char *buf, size_t n);
void lbm_ref_free(struct app_ref *r);

/* verify.c */
void lbm_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                struct measurement *m);
void lbm_cell_macro(const float *s, double *ux, double *uy, double *rho);
double lbm_reynolds(const struct app_input *in, double av_vel);
int lbm_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err, size_t errn);
void lbm_result_free(struct app_result *r);

/* host_steps.c: the host half of kernels=partial */
void lbm_host_rebound_collision(const struct app_input *in, const float *tmp, float *cells);
double lbm_host_av_velocity(const struct app_input *in, const float *cells);

/* python_rules.c: why host=python cannot run k on dev (NULL: it can; the
 * reason a constant or written into why, n bytes); and which Python has
 * pyopencl and numpy (NULL with why filled: none). */
const char *lbm_python_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n);
const char *lbm_python_find(char *why, size_t whyn);
/* python_host.c: lbm_execute for host=python, through kernels/lbm/host.py. */
struct app_result *lbm_python_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                      const unsigned wg[2], int warmup, int reps, struct measurement *m);

/* schedule.c */
struct app_result *lbm_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                               const unsigned wg[2], int warmup, int reps, struct measurement *m);
/* app.c: blocks in the thread-block cluster of persistent=cluster (0: the
 * grid does not fit one cluster's shared memory): the fewest that fit, or
 * with `most` the most (up to 16, non-portable), so each SM has less work. */
/* directive_steps.c: the whole-program schedule of a directive backend
 * (device caps.directives); lbm_execute hands such devices to it. */
struct app_result *lbm_execute_directive(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                         const unsigned wg[2], int warmup, int reps, struct measurement *m);
int lbm_cluster_size(const struct app_input *in, const struct device_info *dev, const unsigned wg[2], int most);
/* app.c: shared memory per block of a cluster of c blocks (lbm_cluster.h). */
uint64_t lbm_cluster_smem(const struct app_input *in, int c);
/* app.c: the tile a work-group of temporal=T updates: its own shape, or
 * with tile=inner its shape less the halo's inner rings (wg - 2(T-1);
 * across y only with halo=cluster). */
void lbm_temporal_tile(const struct knob_set *k, const unsigned wg[2], unsigned tile[2]);
/* app.c: local memory per work-group of temporal=T (lbm_temporal.h). */
uint64_t lbm_temporal_local_bytes(const struct knob_set *k, const unsigned tile[2], const unsigned wg[2]);
/* app.c: work-groups per thread-block cluster along x: nx / wg[0] with
 * halo=cluster, else 1. */
unsigned lbm_halo_cluster(const struct knob_set *k, const struct app_input *in, const unsigned wg[2]);
/* schedule.c: the kernel compiler's options for knobs k, on a backend with
 * `ops`, for work-group shape wg, appended to opts: the knobs' -D flags,
 * fma=on's and math=fast's options, geometry=compiled's K_WG_X and K_WG_Y.
 * What the build passes, less the -I of the kernels' folder. */
void lbm_build_options(const struct knob_set *k, const struct backend_ops *ops, const size_t wg[2],
                       struct strbuf *opts);
/* Steps whose group partial sums fit the device's memory (chunked/deferred). */
long lbm_partials_capacity(const struct app_input *in, const struct device_info *dev, const unsigned wg[2]);
#endif
