/* Search spaces (tune.h): points as levels per parameter, found again by a
 * hash of their levels (a sweep file's knobs x shapes run to tens of
 * thousands of points, and every neighbour move is a lookup). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/tune.h"

static uint64_t coord_hash(const int *c, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(unsigned)c[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9ull;
    }
    return h ^ (h >> 31);
}

static const int *point(const struct tune_space *sp, int i) { return sp->coord + (size_t)i * sp->nparams; }

static void slot_put(struct tune_space *sp, int i) {
    uint64_t s = coord_hash(point(sp, i), sp->nparams) & (uint64_t)(sp->slots - 1);
    while (sp->slot[s]) s = (s + 1) & (uint64_t)(sp->slots - 1);
    sp->slot[s] = i + 1;
}

static void shape_clear(struct tune_space *sp) {
    for (int k = 0; k < TUNE_MAX_SIDES; k++) {
        free(sp->side_len[k]);
        sp->side_len[k] = NULL;
        sp->side_param[k] = -1;
    }
    sp->sides = 0;
}

void tune_space_init(struct tune_space *sp, int nparams) {
    memset(sp, 0, sizeof *sp);
    sp->nparams = nparams;
    for (int k = 0; k < TUNE_MAX_SIDES; k++) sp->side_param[k] = -1;
}

int tune_space_set_shape(struct tune_space *sp, int nd, const int *param, const unsigned *const *len) {
    shape_clear(sp);
    if (nd < 0 || nd > TUNE_MAX_SIDES) return -1;
    for (int k = 0; k < nd; k++) {
        if (param[k] < 0 || param[k] >= sp->nparams || !len[k]) return -1;
        for (int j = 0; j < k; j++)
            if (param[j] == param[k]) return -1; /* one parameter cannot be two sides */
    }
    for (int k = 0; k < nd; k++) {
        const size_t levels = (size_t)(sp->params[param[k]].levels > 0 ? sp->params[param[k]].levels : 1);
        sp->side_param[k] = param[k];
        sp->side_len[k] = xcalloc(levels, sizeof *sp->side_len[k]);
        memcpy(sp->side_len[k], len[k], sizeof *len[k] * (size_t)sp->params[param[k]].levels);
    }
    sp->sides = nd;
    return 0;
}

void tune_space_set_sides(struct tune_space *sp, int px, const unsigned *vx, int py, const unsigned *vy) {
    const int p[2] = {px, py};
    const unsigned *const v[2] = {vx, vy};
    tune_space_set_shape(sp, 2, p, v);
}

int tune_space_add(struct tune_space *sp, const int *coord) {
    if (sp->n == sp->cap) {
        sp->cap = sp->cap ? 2 * sp->cap : 64;
        sp->coord = realloc(sp->coord, sizeof *sp->coord * (size_t)sp->cap * (size_t)(sp->nparams ? sp->nparams : 1));
        if (!sp->coord) abort();
    }
    memcpy(sp->coord + (size_t)sp->n * sp->nparams, coord, sizeof *coord * (size_t)sp->nparams);
    const int i = sp->n++;
    /* The table stays at most half full: rebuilt twice as large when not. */
    if (2 * sp->n > sp->slots) {
        free(sp->slot);
        sp->slots = sp->slots ? 2 * sp->slots : 128;
        sp->slot = xcalloc((size_t)sp->slots, sizeof *sp->slot);
        for (int k = 0; k < sp->n; k++) slot_put(sp, k);
    } else {
        slot_put(sp, i);
    }
    return i;
}

void tune_space_free(struct tune_space *sp) {
    free(sp->coord);
    free(sp->slot);
    shape_clear(sp);
    memset(sp, 0, sizeof *sp);
    for (int k = 0; k < TUNE_MAX_SIDES; k++) sp->side_param[k] = -1;
}

int tune_space_find(const struct tune_space *sp, const int *coord) {
    const int d = sp->nparams;
    if (!sp->n) return -1;
    for (int k = 0; k < d; k++)
        if (coord[k] < 0 || coord[k] >= sp->params[k].levels) return -1;
    for (uint64_t s = coord_hash(coord, d) & (uint64_t)(sp->slots - 1);; s = (s + 1) & (uint64_t)(sp->slots - 1)) {
        const int v = sp->slot[s];
        if (!v) return -1;
        if (!memcmp(point(sp, v - 1), coord, sizeof *coord * (size_t)d)) return v - 1;
    }
}

static int cmp_unsigned(const void *a, const void *b) {
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int tune_sides(const unsigned (*shapes)[2], int n, int dim, unsigned *out) {
    for (int i = 0; i < n; i++) out[i] = shapes[i][dim];
    qsort(out, (size_t)n, sizeof *out, cmp_unsigned);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!u || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

int tune_level_of(const unsigned *v, int n, unsigned x) {
    for (int i = 0; i < n; i++)
        if (v[i] == x) return i;
    return -1;
}

void tune_space_of_shapes(struct tune_space *sp, int n, const unsigned (*shapes)[2]) {
    tune_space_init(sp, 2);
    unsigned *vx = xcalloc((size_t)n + 1, sizeof *vx), *vy = xcalloc((size_t)n + 1, sizeof *vy);
    const int nx = tune_sides(shapes, n, 0, vx), ny = tune_sides(shapes, n, 1, vy);
    str_copy(sp->params[0].name, sizeof sp->params[0].name, "wg_x");
    str_copy(sp->params[1].name, sizeof sp->params[1].name, "wg_y");
    sp->params[0].levels = nx, sp->params[1].levels = ny;
    sp->params[0].ordinal = sp->params[1].ordinal = 1;
    for (int i = 0; i < n; i++) {
        const int c[2] = {tune_level_of(vx, nx, shapes[i][0]), tune_level_of(vy, ny, shapes[i][1])};
        tune_space_add(sp, c);
    }
    tune_space_set_sides(sp, 0, vx, 1, vy);
    free(vx);
    free(vy);
}
