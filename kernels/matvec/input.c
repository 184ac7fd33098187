/* Mat-vec inputs: a mesh size. Every input is generated on the host from one
 * fixed seed (mesh.c for the mesh and dof map). "162x81x40" is the default:
 * 13122 cells of 40 layers, whose 128 flops per cell and layer are exactly
 * the blog's flop_count_dp (67184640), with a 269 MB matrix. Any NXxNYxNL
 * (or gen:NXxNY with 40 layers, gen:NXxNYxNL) is the same recipe at
 * another size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "matvec.h"

#define MAX_SIDE 65536
#define MAX_LAYERS 4096
/* 2^25 cell-layers: a 16 GiB matrix, and every dof index (about twice the
 * cell-layers) within an int, as the kernels index x and lhs. */
#define MAX_CELL_LAYERS (1L << 25)

static const char *USAGE = "expected NXxNYxLAYERS, gen:NXxNY (40 layers) or gen:NXxNYxLAYERS (e.g. 162x81x40)";

int matvec_parse_size(const char *text, int *nx, int *ny, int *nl, char *err, size_t errn) {
    const int gen = strncmp(text, "gen:", 4) == 0;
    const char *s = gen ? text + 4 : text;
    char part[3][16];
    int nparts = 0;
    const char *p = s;
    for (;;) {
        const size_t len = strspn(p, "0123456789");
        if (len == 0 || len >= sizeof part[0] || nparts == 3)
            return err_set(err, errn, "matvec input '%s': %s", text, USAGE);
        memcpy(part[nparts], p, len);
        part[nparts++][len] = '\0';
        p += len;
        if (*p == '\0') break;
        if (*p++ != 'x') return err_set(err, errn, "matvec input '%s': %s", text, USAGE);
    }
    if (nparts < 2 || (nparts == 2 && !gen)) return err_set(err, errn, "matvec input '%s': %s", text, USAGE);
    long v[3] = {0, 0, MV_LAYERS_DEFAULT};
    for (int i = 0; i < nparts; i++)
        if (parse_whole(part[i], 1, MAX_SIDE, &v[i]))
            return err_set(err, errn, "matvec input '%s': '%s' is not a whole number from 1 to %d", text, part[i],
                           MAX_SIDE);
    if (v[0] < 3 || v[1] < 2)
        return err_set(err, errn, "matvec input '%s': at least 3x2 cells, so that each of the 6 colours has one", text);
    if (v[2] > MAX_LAYERS) return err_set(err, errn, "matvec input '%s': at most %d layers", text, MAX_LAYERS);
    if (v[0] * v[1] * v[2] > MAX_CELL_LAYERS)
        return err_set(err, errn, "matvec input '%s': at most %ld cells x layers (a %.0f GiB matrix)", text,
                       MAX_CELL_LAYERS, MAX_CELL_LAYERS * 512.0 / 1073741824.0);
    *nx = (int)v[0];
    *ny = (int)v[1];
    *nl = (int)v[2];
    return 0;
}

/* Uniform in [-1, 1) with 53 random bits: values of both signs, so sums
 * cancel as a real operator's do and the tolerance's |terms| bound matters. */
static void fill_uniform(double *a, size_t n, uint64_t *state) {
    for (size_t i = 0; i < n; i++) a[i] = (double)(splitmix64(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

struct app_input *matvec_input_load(const struct app_opts *o, char *err, size_t errn) {
    if (o->params || o->obstacles)
        return err_set(err, errn, "matvec takes no input files (--params, --obstacles): give --input NXxNYxLAYERS"),
               NULL;
    int nx, ny, nl;
    if (matvec_parse_size(o->input ? o->input : "162x81x40", &nx, &ny, &nl, err, errn)) return NULL;
    struct app_input *in = xcalloc(1, sizeof *in);
    in->nx = nx;
    in->ny = ny;
    in->nl = nl;
    in->iters = o->iters > 0 ? o->iters : 1;
    in->ncells = (long)nx * ny;
    in->ndofs = 2L * (nx + 1) * (ny + 1) * nl;
    snprintf(in->name, sizeof in->name, "%dx%dx%d", nx, ny, nl);
    if (matvec_mesh(in, err, errn)) {
        matvec_input_free(in);
        return NULL;
    }
    uint64_t state = MATVEC_SEED;
    const size_t entries = (size_t)in->ncells * (size_t)nl * MV_NDF * MV_NDF;
    in->matrix = xcalloc(entries, sizeof(double));
    in->x = xcalloc((size_t)in->ndofs, sizeof(double));
    in->lhs0 = xcalloc((size_t)in->ndofs, sizeof(double));
    fill_uniform(in->matrix, entries, &state);
    fill_uniform(in->x, (size_t)in->ndofs, &state);
    fill_uniform(in->lhs0, (size_t)in->ndofs, &state);
    return in;
}

void matvec_input_free(struct app_input *in) {
    if (!in) return;
    free(in->map);
    free(in->cmap);
    free(in->matrix);
    free(in->x);
    free(in->lhs0);
    free(in);
}
