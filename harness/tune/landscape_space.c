/* A landscape as a tune_space (landscape.h): a parameter per parameter, a
 * level per value, a point per recorded configuration in file order
 * (failures included: a live search would have paid for them too). The
 * tuner's limits come from tune.h and are enforced here by refusing, so
 * a landscape is searched whole or not at all. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/landscape.h"

static int param_named(const struct landscape *l, const char *name) {
    for (int k = 0; k < l->nparams; k++)
        if (!strcmp(l->param[k].name, name)) return k;
    return -1;
}

/* The lengths of a side's levels, when every level is a whole number of
 * work-items (1 .. UINT_MAX); NULL when one is not. */
static unsigned *side_lengths(const struct landscape_param *p) {
    if (p->kind != LANDSCAPE_ORDERED) return NULL;
    unsigned *len = xcalloc((size_t)p->nlevels, sizeof *len);
    for (int i = 0; i < p->nlevels; i++) {
        const double v = p->level[i].number;
        if (!(v >= 1 && v <= UINT_MAX && v == floor(v))) {
            free(len);
            return NULL;
        }
        len[i] = (unsigned)v;
    }
    return len;
}

/* The work-group's sides, so the model-based search learns from the
 * group's size and aspect: Kernel Tuner's block_size_x/y, or the wg_x/y
 * of the harness's own CSVs. Both or neither. */
static void set_sides(const struct landscape *l, struct tune_space *sp) {
    static const char *const names[][2] = {{"block_size_x", "block_size_y"}, {"wg_x", "wg_y"}};
    /* z: a third side once tune.h has one */
    for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
        const int px = param_named(l, names[s][0]), py = param_named(l, names[s][1]);
        if (px < 0 || py < 0) continue;
        unsigned *vx = side_lengths(&l->param[px]), *vy = side_lengths(&l->param[py]);
        const int both = vx && vy;
        if (both) tune_space_set_sides(sp, px, vx, py, vy);
        free(vx);
        free(vy);
        if (both) return;
    }
}

int landscape_space(const struct landscape *l, struct tune_space *sp, char *err, size_t errn) {
    memset(sp, 0, sizeof *sp);
    sp->side_param[0] = sp->side_param[1] = -1;
    if (l->nparams > TUNE_MAX_PARAMS)
        return err_set(err, errn,
                       "%s: %d parameters; the tuner takes at most %d (TUNE_MAX_PARAMS, harness/tune/tune.h): refused, "
                       "not cut",
                       l->path, l->nparams, TUNE_MAX_PARAMS);
    for (int k = 0; k < l->nparams; k++)
        if (l->param[k].nlevels > TUNE_MAX_LEVELS)
            return err_set(err, errn,
                           "%s: parameter %s has %d values; the tuner takes at most %d a parameter (TUNE_MAX_LEVELS, "
                           "harness/tune/tune.h): refused, not cut",
                           l->path, l->param[k].name, l->param[k].nlevels, TUNE_MAX_LEVELS);
    tune_space_init(sp, l->nparams);
    for (int k = 0; k < l->nparams; k++) {
        struct tune_param *p = &sp->params[k];
        str_copy(p->name, sizeof p->name, l->param[k].name); /* a display name: the landscape keeps the whole one */
        p->levels = l->param[k].nlevels;
        p->ordinal = l->param[k].kind == LANDSCAPE_ORDERED;
    }
    for (int i = 0; i < l->n; i++) tune_space_add(sp, l->coord + (size_t)i * (size_t)l->nparams);
    set_sides(l, sp);
    return 0;
}
