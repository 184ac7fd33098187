/* Stencil inputs: a grid size. Every input is generated on the host from
 * one fixed seed, so every backend and the reference start from the same
 * bits. "4096x4096" is the slides' problem; any other WxH (or gen:WxH,
 * gen:N for a square) is the same recipe at another size. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stencil.h"

#define MAX_SIDE 65536
#define MAX_CELLS (1L << 28) /* 1 GiB per grid */

int stencil_parse_size(const char *text, int *w, int *h, char *err, size_t errn) {
    const char *s = strncmp(text, "gen:", 4) == 0 ? text + 4 : text;
    long a = 0, b = 0;
    char extra;
    const size_t len = strlen(s), digits = strspn(s, "0123456789");
    int ok = 0;
    if (len && strspn(s, "0123456789x") == len && digits > 0) ok = sscanf(s, "%ldx%ld%c", &a, &b, &extra) == 2;
    if (!ok && s != text && len && digits == len && len < 10) {
        a = b = strtol(s, NULL, 10); /* gen:N, a square */
        ok = 1;
    }
    if (!ok) return err_set(err, errn, "stencil input '%s': expected WxH, gen:WxH or gen:N (e.g. 4096x4096)", text);
    if (a < 3 || b < 3)
        return err_set(err, errn, "stencil input '%s': the grid needs at least 3x3 points (one interior point)", text);
    if (a > MAX_SIDE || b > MAX_SIDE || a * b > MAX_CELLS)
        return err_set(err, errn, "stencil input '%s': at most %d points a side and %ld points in all", text, MAX_SIDE,
                       MAX_CELLS);
    *w = (int)a;
    *h = (int)b;
    return 0;
}

void stencil_initial(int w, int h, unsigned seed, float *grid) {
    uint64_t state = seed;
    memset(grid, 0, (size_t)w * (size_t)h * sizeof *grid);
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const uint32_t k = (uint32_t)(splitmix64(&state) >> 40); /* 24 bits */
            grid[(size_t)y * (size_t)w + (size_t)x] = (float)((double)k * (400.0 / 16777216.0) - 200.0);
        }
}

struct app_input *stencil_input_load(const struct app_opts *o, char *err, size_t errn) {
    if (o->params || o->obstacles)
        return err_set(err, errn, "stencil takes no input files (--params, --obstacles): give --input WxH"), NULL;
    int w, h;
    if (stencil_parse_size(o->input ? o->input : "4096x4096", &w, &h, err, errn)) return NULL;
    struct app_input *in = xcalloc(1, sizeof *in);
    in->w = w;
    in->h = h;
    in->cap = o->iters > 0 ? o->iters : 0;
    snprintf(in->name, sizeof in->name, "%dx%d", w, h);
    in->initial = xcalloc((size_t)w * (size_t)h, sizeof(float));
    stencil_initial(w, h, STENCIL_SEED, in->initial);
    in->serial = xcalloc(1, sizeof *in->serial);
    in->serial->iters_full = -1; /* not yet run */
    return in;
}

void stencil_input_free(struct app_input *in) {
    if (!in) return;
    if (in->serial) free(in->serial->grid);
    free(in->serial);
    free(in->initial);
    free(in);
}
