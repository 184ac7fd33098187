/* The coloured mat-vec app's private types, shared by its host files (seed
 * 004: LFRic's matrix_vector_code, applied colour by colour). */
#ifndef MATVEC_H
#define MATVEC_H
#include <stddef.h>

#include "core/app.h"
#include "matvec_cell.h"

#define MV_COLOURS 6
#define MV_LAYERS_DEFAULT 40

/* A generated planar mesh of nx x ny columns of nl layers (mesh.c says
 * which dofs each cell touches and why six colours). Everything a device
 * needs is here, generated on the host from one fixed seed so that every
 * backend and the reference start from the same bits. */
struct app_input {
    char name[64]; /* "162x81x40" */
    int nx, ny, nl;
    long iters;          /* mat-vec products per repetition (--iters; 1 by default) */
    long ncells;         /* nx * ny */
    long ndofs;          /* lhs and x: 2 (nx+1)(ny+1) dof columns of nl each */
    int ncp[MV_COLOURS]; /* cells per colour (LFRic's ncp_colour) */
    int ncp_max;         /* the largest colour (the masked kernel's extent) */
    int *map;            /* ncells x MV_NDF: the first dof of each cell dof's column (LFRic map(df, cell)) */
    int *cmap;           /* MV_COLOURS x ncp_max: the cells of each colour, mesh order (LFRic cmap) */
    double *matrix;      /* ncells*nl x MV_NDF x MV_NDF, Fortran's matrix(df, df2, ik): df fastest */
    double *x, *lhs0;    /* ndofs each: the vector, and lhs before the product */
};

struct app_ref {
    long ndofs;
    double *lhs;   /* lhs0 + iters * (A x), colour by colour as the blog's loop */
    double *bound; /* per dof: |lhs0| + iters * sum of |matrix * x| over its terms */
    int terms;     /* the longest sum any dof is (1 + iters * terms from up to 4 cells x 8) */
};

struct app_result {
    long ndofs;
    double *lhs;
};

/* input.c */
#define MATVEC_SEED 4u
/* Parses "NXxNYxNL", "gen:NXxNY" (40 layers) or "gen:NXxNYxNL"; 0, or -1 with err filled. */
int matvec_parse_size(const char *text, int *nx, int *ny, int *nl, char *err, size_t errn);
struct app_input *matvec_input_load(const struct app_opts *o, char *err, size_t errn);
void matvec_input_free(struct app_input *in);

/* mesh.c */
/* Fills in->map, in->cmap, in->ncp, in->ncp_max for in->nx x in->ny; then
 * checks the colouring (no two cells of one colour share a dof): 0, or -1
 * with err filled (a bug, never an input's fault). */
int matvec_mesh(struct app_input *in, char *err, size_t errn);
int matvec_colour_of(int i, int j);

/* reference.c */
struct app_ref *matvec_reference(const struct app_input *in, char *err, size_t errn);
void matvec_ref_free(struct app_ref *r);
/* One serial product, colour by colour (the blog's original loop order): lhs += A x. */
void matvec_serial_once(const struct app_input *in, double *lhs);

/* verify.c */
void matvec_verify(const struct app_input *in, const struct app_ref *ref, const struct app_result *res,
                   struct measurement *m);
int matvec_write_output(const struct app_input *in, const struct app_result *res, const char *dir, char *err,
                        size_t errn);
void matvec_result_free(struct app_result *r);

/* schedule.c */
/* Work-items per cell before padding: nl, or nl * 8 for form=collapsed. */
size_t matvec_lanes(const struct knob_set *k, int nl);
struct app_result *matvec_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                  const unsigned wg[2], int warmup, int reps, struct measurement *m);
#endif
