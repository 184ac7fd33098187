/* Sandpile inputs: a start and a grid size, generated on the host so every
 * backend and the reference start from the same integers.
 *
 *   WxH, gen:WxH, gen:N    4 grains on every interior cell (the seed's
 *                          default start; 512x512 is the seed's size)
 *   pile:WxH[:GRAINS]      GRAINS on the centre cell (w/2, h/2), nothing
 *                          elsewhere (default: one grain per cell, w*h)
 *   random:WxH[:SEED]      every interior cell 0..7 grains, splitmix64 from
 *                          SEED (default 1), one draw per cell in row order
 *
 * Stored names use dashes ("pile-65x65-4225", "random-64x48-s1"), as other
 * generated inputs are stored. The border is always 0: it is the sink. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "sandpile.h"

#define MAX_SIDE 32768
#define MAX_CELLS (1L << 28)    /* 1 GiB per grid */
#define MAX_GRAINS 4000000000UL /* a cell is 32 bits; a pile larger than this could wrap */

static int parse_wh(const char *s, const char *text, int square_ok, int *w, int *h, char *err, size_t errn) {
    long a = 0, b = 0;
    char extra;
    const size_t len = strlen(s), digits = strspn(s, "0123456789");
    int ok = 0;
    if (len && strspn(s, "0123456789x") == len && digits > 0) ok = sscanf(s, "%ldx%ld%c", &a, &b, &extra) == 2;
    if (!ok && square_ok && len && digits == len && len < 10) {
        a = b = strtol(s, NULL, 10);
        ok = 1;
    }
    if (!ok)
        return err_set(err, errn,
                       "sandpile input '%s': expected WxH, gen:WxH, gen:N, pile:WxH[:GRAINS] or "
                       "random:WxH[:SEED] (e.g. 512x512)",
                       text);
    if (a < 3 || b < 3)
        return err_set(err, errn, "sandpile input '%s': the grid needs at least 3x3 cells (one interior cell)", text);
    if (a > MAX_SIDE || b > MAX_SIDE || a * b > MAX_CELLS)
        return err_set(err, errn, "sandpile input '%s': at most %d cells a side and %ld cells in all", text, MAX_SIDE,
                       MAX_CELLS);
    *w = (int)a;
    *h = (int)b;
    return 0;
}

static void generate(struct app_input *in) {
    const size_t W = (size_t)in->w;
    in->initial = xcalloc(W * (size_t)in->h, sizeof(unsigned));
    uint64_t state = in->seed;
    for (int y = 1; y < in->h - 1; y++)
        for (int x = 1; x < in->w - 1; x++) {
            unsigned *c = &in->initial[(size_t)y * W + (size_t)x];
            if (in->start == SP_FOUR) *c = 4;
            if (in->start == SP_RANDOM) *c = (unsigned)(splitmix64(&state) >> 61); /* top 3 bits: 0..7 */
        }
    if (in->start == SP_PILE) in->initial[(size_t)(in->h / 2) * W + (size_t)(in->w / 2)] = (unsigned)in->grains;
}

/* The part after "pile:WxH:" or "random:WxH:", a positive whole number. */
static int parse_extra(const char *s, const char *text, unsigned long max, unsigned long *out, char *err, size_t errn) {
    long v;
    if (parse_whole(s, 0, (long)max, &v))
        return err_set(err, errn, "sandpile input '%s': '%s' is not a whole number 0..%lu", text, s, max);
    *out = (unsigned long)v;
    return 0;
}

struct app_input *sandpile_input_load(const struct app_opts *o, char *err, size_t errn) {
    if (o->params || o->obstacles)
        return err_set(err, errn, "sandpile takes no input files (--params, --obstacles): give --input WxH"), NULL;
    const char *text = o->input ? o->input : "512x512";
    struct app_input tmp = {.start = SP_FOUR, .seed = 1};
    char body[64];
    const char *s = text;
    if (!strncmp(text, "pile:", 5)) tmp.start = SP_PILE, s += 5;
    else if (!strncmp(text, "random:", 7)) tmp.start = SP_RANDOM, s += 7;
    else if (!strncmp(text, "gen:", 4)) s += 4;
    if (strlen(s) >= sizeof body) return err_set(err, errn, "sandpile input '%s': too long", text), NULL;
    str_copy(body, sizeof body, s);
    char *colon = strchr(body, ':');
    unsigned long extra = 0;
    int has_extra = 0;
    if (colon) {
        if (s == text)
            return err_set(err, errn,
                           "sandpile input '%s': unknown start '%.*s' (gen, pile or random; e.g. pile:65x65:4096)",
                           text, (int)(colon - body), body),
                   NULL;
        if (tmp.start == SP_FOUR)
            return err_set(err, errn, "sandpile input '%s': only pile: and random: take a third part", text), NULL;
        *colon = 0;
        if (parse_extra(colon + 1, text, tmp.start == SP_PILE ? MAX_GRAINS : 0xffffffffUL, &extra, err, errn))
            return NULL;
        has_extra = 1;
    }
    if (parse_wh(body, text, tmp.start == SP_FOUR && s != text, &tmp.w, &tmp.h, err, errn)) return NULL;
    struct app_input *in = xcalloc(1, sizeof *in);
    *in = tmp;
    if (in->start == SP_PILE) {
        in->grains = has_extra ? extra : (unsigned long)in->w * (unsigned long)in->h;
        snprintf(in->name, sizeof in->name, "pile-%dx%d-%lu", in->w, in->h, in->grains);
    } else if (in->start == SP_RANDOM) {
        in->seed = has_extra ? (unsigned)extra : 1u;
        snprintf(in->name, sizeof in->name, "random-%dx%d-s%u", in->w, in->h, in->seed);
    } else {
        snprintf(in->name, sizeof in->name, "%dx%d", in->w, in->h);
    }
    in->cap = o->iters > 0 ? o->iters : 0;
    generate(in);
    in->initial_stable = sandpile_is_stable(in->initial, in->w, in->h);
    in->serial = xcalloc(1, sizeof *in->serial);
    in->serial->iters_full = -1;
    return in;
}

void sandpile_input_free(struct app_input *in) {
    if (!in) return;
    if (in->serial) free(in->serial->grid);
    free(in->serial);
    free(in->initial);
    free(in);
}

double sandpile_interior(const struct app_input *in) { return (double)(in->w - 2) * (double)(in->h - 2); }
