/* The generated mesh: a planar limited-area mesh of nx x ny quadrilateral
 * columns, each of nl layers, with a horizontally continuous, vertically
 * discontinuous function space of 8 dofs per cell and layer: two components
 * at each of the cell's 4 corner vertices (LFRic's spaces put dofs on
 * vertices, edges and faces shared between neighbouring cells; vertices are
 * the most shared: up to 4 cells). A dof column holds one dof per layer, so
 * a cell's dof df at layer k is map(df) + k, as in the blog's loop.
 *
 * Cells that share a vertex write the same lhs dofs, so they must not run
 * concurrently without atomics: they are coloured. Vertex neighbours of
 * cell (i, j) differ by at most 1 in i and in j, so colour = i mod 3 +
 * 3 (j mod 2) gives neighbours different colours: 6 colours, as in the
 * blog's run (a limited-area mesh, so no periodic wrap can break the
 * pattern). Colour sizes: ceil-divisions of nx by 3 and ny by 2, unequal
 * unless 3 | nx and 2 | ny; at 162x81, 2214 cells for colours 0-2 and 2160
 * for 3-5, so the masked kernel (the blog's ncp_color_max) has idle slots.
 *
 * Numbering: vertex v = vi + (nx+1) vj; dof column (2v + component); a
 * cell's df = 2 corner + component, corners south-west, south-east,
 * north-east, north-west; cells in mesh order i + nx j. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "matvec.h"

int matvec_colour_of(int i, int j) { return i % 3 + 3 * (j % 2); }

int matvec_mesh(struct app_input *in, char *err, size_t errn) {
    const int nx = in->nx, ny = in->ny, nl = in->nl;
    in->ncp_max = 0;
    for (int c = 0; c < MV_COLOURS; c++) {
        /* columns i with i % 3 == c % 3, rows j with j % 2 == c / 3 */
        const int ni = (nx - c % 3 + 2) / 3, nj = (ny - c / 3 + 1) / 2;
        in->ncp[c] = ni * nj;
        if (in->ncp[c] > in->ncp_max) in->ncp_max = in->ncp[c];
    }
    in->map = xcalloc((size_t)in->ncells * MV_NDF, sizeof(int));
    in->cmap = xcalloc((size_t)MV_COLOURS * (size_t)in->ncp_max, sizeof(int));
    int fill[MV_COLOURS] = {0};
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const long cell = i + (long)nx * j;
            const int corner_i[4] = {i, i + 1, i + 1, i}, corner_j[4] = {j, j, j + 1, j + 1};
            for (int corner = 0; corner < 4; corner++) {
                const long v = corner_i[corner] + (long)(nx + 1) * corner_j[corner];
                for (int comp = 0; comp < 2; comp++)
                    in->map[cell * MV_NDF + 2 * corner + comp] = (int)((2 * v + comp) * nl);
            }
            const int c = matvec_colour_of(i, j);
            in->cmap[(size_t)c * (size_t)in->ncp_max + (size_t)fill[c]++] = (int)cell;
        }
    for (int c = 0; c < MV_COLOURS; c++)
        if (fill[c] != in->ncp[c])
            return err_set(err, errn, "matvec mesh: colour %d has %d cells, counted %d", c, fill[c], in->ncp[c]);
    /* The property the per-colour kernels rely on: within a colour, each
     * dof column is written by one cell at most (and a cell's 8 are
     * distinct, which the collapsed loop without atomics relies on). */
    unsigned char *seen = xcalloc((size_t)(in->ndofs / nl), 1);
    int bad = 0;
    for (int c = 0; c < MV_COLOURS && !bad; c++) {
        memset(seen, 0, (size_t)(in->ndofs / nl));
        for (int n = 0; n < in->ncp[c] && !bad; n++) {
            const int cell = in->cmap[(size_t)c * (size_t)in->ncp_max + (size_t)n];
            for (int df = 0; df < MV_NDF; df++) {
                const long column = in->map[(long)cell * MV_NDF + df] / nl;
                if (seen[column]++) bad = 1;
            }
        }
        if (bad) err_set(err, errn, "matvec mesh: two cells of colour %d share a dof", c);
    }
    free(seen);
    return bad ? -1 : 0;
}
