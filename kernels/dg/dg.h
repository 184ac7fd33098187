/* The DG Navier-Stokes app's private types, shared by its host files (seed
 * 003: Yee's vortex on a periodic square, 2nd-order discontinuous Galerkin,
 * 3rd-order TVD Runge-Kutta; README.md states the scheme). */
#ifndef DG_H
#define DG_H
#include <math.h>
#include <stddef.h>

#include "core/app.h"
#include "dg_phys.h"

#define DG_SIDE 10.0       /* the periodic square [0, 10]^2 */
#define DG_BETA 5.0        /* the vortex's strength */
#define DG_STEPS 100       /* the seed's case: 100 time steps */
#define DG_DEFAULT_INPUT "yee:2001" /* the seed's case: 2001 x 2001 cells */
#define DG_CFL 0.2         /* dt = cfl / max over cells of dg_rate */
#ifndef DG_CFL_MAX
#define DG_CFL_MAX 0.5 /* measured on yee:32 to t=5: 0.6 stable, 0.7 diverges (README) */
#endif
#define DG_MIN_SIDE 4      /* a cell's neighbours on both sides distinct from it and each other */
#define DG_MAX_SIDE 32768

/* An input: the mesh, the physics and the initial state (the exact vortex
 * projected on P1), generated on the host, so every device and the
 * reference start from the same bits. */
struct app_input {
    char name[96]; /* "yee:64", "yee:64x32:re=100:t=2" */
    int nx, ny;
    double dx, dy;
    double re, mu;   /* Reynolds number (0: Euler) and mu = 1 / re */
    double cfl;      /* the step's CFL number */
    double end_time; /* > 0: run to it in `iters` equal steps (dt = end_time / iters); 0: iters CFL steps */
    long iters;      /* time steps a repetition */
    long steps_full; /* the input's own count (without --iters) */
    double *q0;      /* ncells x DG_NC, cell-major: q0[(c * DG_NV + v) * DG_NB + k] */
    double totals0[DG_NV]; /* the initial integrals of rho, rho u, rho v, E over the square */
};

struct app_ref {
    long ncells;
    double *q;            /* after the run, as q0 */
    double scale[DG_NC];  /* per variable and coefficient: the largest |q| (the tolerance's scale) */
    double time;          /* the end time reached */
};

struct app_result {
    long ncells;
    double *q; /* as app_ref's q */
    double time;
};

/* input.c */
int dg_parse_input(const char *text, struct app_input *in, char *err, size_t errn);
struct app_input *dg_input_load(const struct app_opts *o, char *err, size_t errn);
void dg_input_free(struct app_input *in);
int dg_input_at_time(const char *input, double t, char *out, size_t n, char *err, size_t errn);
/* The exact vortex at time t and point (x, y) as conserved variables. */
void dg_exact(double t, double x, double y, double q[DG_NV]);
/* The integrals of each conserved variable over the square (a cell's mean
 * times its area, summed in cell order with Kahan's compensation). */
void dg_totals(const struct app_input *in, const double *q, double tot[DG_NV]);
/* The L2 error of density against the exact vortex at time t, the root of
 * its mean square over the square (3x3 Gauss points a cell). */
double dg_density_l2(const struct app_input *in, const double *q, double t);

/* reference.c */
struct app_ref *dg_reference(const struct app_input *in, char *err, size_t errn);
void dg_ref_free(struct app_ref *r);
/* The serial solver itself, uncached: q (as q0) advanced over in's steps;
 * returns the time reached. */
double dg_reference_run(const struct app_input *in, double *q);

/* verify.c */
void dg_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
               struct measurement *m);
int dg_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                    size_t errn);
void dg_result_free(struct app_result *r);

/* schedule.c */
struct app_result *dg_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                              const unsigned wg[2], int warmup, int reps, struct measurement *m);
size_t dg_pitch(const struct knob_set *k, int nx);
int dg_kernels_per_stage(const struct knob_set *k, int viscous);
/* The work-group memory kernels=tiled takes for a W x H group, in bytes. */
size_t dg_tile_bytes(const unsigned wg[2]);
#endif
