/* tune_plan.h: the space of one search. */
#include "tune/tune_plan.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/devset.h"

/* A knob's distinct values among the variants, as levels (as many as there
 * are: no cap): in numeric order when all are numbers (an ordinal
 * parameter: temporal=3 is between 2 and 4), else in order of first
 * appearance (categorical). A knob of two values 0 and 1 is a switch, not a
 * scale: categorical too, so the model gives each setting its own weight
 * and a move flips it (the same in effect for two levels, but the model's
 * trend columns and the design treat it as the boolean it is). */
struct levels {
    int n, cap, ordinal;
    char (*value)[40];
};

static int is_number(const char *s) {
    char *end;
    strtol(s, &end, 10);
    return *s && !*end;
}

static int level_find(const struct levels *l, const char *v) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->value[i], v)) return i;
    return -1;
}

static int cmp_numeric(const void *a, const void *b) {
    const long x = strtol(a, NULL, 10), y = strtol(b, NULL, 10);
    return (x > y) - (x < y);
}

/* The distinct knob settings of vars into p (two names for one setting are
 * one variant), with their canonical strings. */
static void plan_distinct(struct tune_plan *p, const struct variant_list *vars) {
    p->vars.v = xcalloc((size_t)vars->n + 1, sizeof *p->vars.v);
    p->knobs = xcalloc((size_t)vars->n + 1, sizeof *p->knobs);
    for (int v = 0; v < vars->n; v++) {
        char k[KNOBS_TEXT_MAX];
        knobs_canonical(&vars->v[v].knobs, k, sizeof k);
        int dup = 0;
        for (int u = 0; u < p->vars.n; u++) dup |= !strcmp(p->knobs[u], k);
        if (dup) continue;
        p->vars.v[p->vars.n] = vars->v[v];
        str_copy(p->knobs[p->vars.n++], sizeof p->knobs[0], k);
    }
}

/* Each of the nk knobs' levels among p's settings (lv[k]), and the knobs
 * that vary, the search's parameters (knob_of[0..*np)). 0, or -1 with err
 * when more vary than a space holds. */
static int plan_levels(const struct tune_plan *p, struct levels *lv, int nk, int *knob_of, int *np, char *err,
                       size_t errn) {
    *np = 0;
    for (int k = 0; k < nk; k++) {
        struct levels *l = &lv[k];
        l->ordinal = 1;
        for (int v = 0; v < p->vars.n; v++) {
            const char *val = p->vars.v[v].knobs.value[k];
            if (level_find(l, val) >= 0) continue;
            if (l->n == l->cap) l->value = xrealloc(l->value, sizeof *l->value * (size_t)(l->cap = l->cap ? 2 * l->cap : 8));
            str_copy(l->value[l->n++], sizeof l->value[0], val), l->ordinal &= is_number(val);
        }
        if (l->ordinal) qsort(l->value, (size_t)l->n, sizeof l->value[0], cmp_numeric);
        if (l->ordinal && l->n == 2 && !strcmp(l->value[0], "0") && !strcmp(l->value[1], "1")) l->ordinal = 0;
        if (l->n < 2) continue;
        if (*np == TUNE_MAX_PARAMS - 2)
            return err_set(err, errn, "more than %d knobs vary in one search", TUNE_MAX_PARAMS - 2);
        knob_of[(*np)++] = k;
    }
    return 0;
}

/* The space's parameters: the varying knobs, then the shape's sides (their
 * nx and ny lengths vx and vy). */
static void plan_params(struct tune_plan *p, const struct levels *lv, const int *knob_of, int np, unsigned *vx, int nx,
                        unsigned *vy, int ny) {
    tune_space_init(&p->space, np + 2);
    for (int q = 0; q < np; q++) {
        struct tune_param *t = &p->space.params[q];
        str_copy(t->name, sizeof t->name, p->vars.v[0].knobs.defs[knob_of[q]].name);
        t->levels = lv[knob_of[q]].n;
        t->ordinal = lv[knob_of[q]].ordinal;
    }
    str_copy(p->space.params[np].name, sizeof p->space.params[np].name, "wg_x");
    str_copy(p->space.params[np + 1].name, sizeof p->space.params[np + 1].name, "wg_y");
    p->space.params[np].levels = nx, p->space.params[np + 1].levels = ny;
    p->space.params[np].ordinal = p->space.params[np + 1].ordinal = 1;
    tune_space_set_sides(&p->space, np, vx, np + 1, vy);
}

int tune_plan_build(struct tune_plan *p, const struct app *app, const struct app_input *in,
                    const struct device_info *dev, const struct variant_list *vars, const unsigned (*shapes)[2],
                    int nshapes, const struct sweep_spec *spec, tune_keep_fn keep, void *keep_ctx, char *err,
                    size_t errn) {
    memset(p, 0, sizeof *p);
    plan_distinct(p, vars);
    /* Parameters: the knobs that differ, then the shape's sides. */
    const int nk = p->vars.n ? p->vars.v[0].knobs.n : 0;
    struct levels *lv = xcalloc((size_t)nk + 1, sizeof *lv);
    int knob_of[TUNE_MAX_PARAMS], np = 0;
    const int rc = plan_levels(p, lv, nk, knob_of, &np, err, errn);
    unsigned *vx = xcalloc((size_t)nshapes + 1, sizeof *vx), *vy = xcalloc((size_t)nshapes + 1, sizeof *vy);
    const int nx = tune_sides(shapes, nshapes, 0, vx), ny = tune_sides(shapes, nshapes, 1, vy);
    if (rc) goto done;
    plan_params(p, lv, knob_of, np, vx, nx, vy, ny);
    size_t grid[2] = {0, 0};
    if (in) app->grid(in, grid);
    int cap = 0;
    p->first = xcalloc((size_t)p->vars.n + 1, sizeof *p->first);
    for (int v = 0; v < p->vars.n; v++) {
        p->first[v] = p->n;
        int c[TUNE_MAX_PARAMS];
        for (int q = 0; q < np; q++) c[q] = level_find(&lv[knob_of[q]], p->vars.v[v].knobs.value[knob_of[q]]);
        for (int s = 0; s < nshapes; s++) {
            p->considered++;
            char why[ERR_MAX];
            if (spec && dev && sweep_constraints_ok(spec, shapes[s], dev, grid, why, sizeof why) <= 0) {
                p->constrained++;
                continue;
            }
            const char *bad = dev ? app_invalid(app, &p->vars.v[v].knobs, in, dev, shapes[s], why, sizeof why) : NULL;
            if (bad) {
                p->invalid++;
                str_copy(p->why, sizeof p->why, bad);
                continue;
            }
            if (keep && !keep(keep_ctx, v, p->knobs[v], shapes[s])) continue;
            c[np] = tune_level_of(vx, nx, shapes[s][0]), c[np + 1] = tune_level_of(vy, ny, shapes[s][1]);
            if (p->n == cap) p->pt = xrealloc(p->pt, sizeof *p->pt * (size_t)(cap = cap ? 2 * cap : 256));
            p->pt[p->n].variant = v;
            p->pt[p->n].wg[0] = shapes[s][0], p->pt[p->n].wg[1] = shapes[s][1];
            p->n++;
            tune_space_add(&p->space, c);
        }
    }
    p->first[p->vars.n] = p->n;
done:
    for (int k = 0; k < nk; k++) free(lv[k].value);
    free(lv);
    free(vx);
    free(vy);
    return rc;
}

int tune_plan_find(const struct tune_plan *p, const char *knobs, const unsigned wg[2]) {
    for (int v = 0; p->first && v < p->vars.n; v++) {
        if (strcmp(p->knobs[v], knobs)) continue;
        for (int i = p->first[v]; i < p->first[v + 1]; i++)
            if (p->pt[i].wg[0] == wg[0] && p->pt[i].wg[1] == wg[1]) return i;
        return -1;
    }
    return -1;
}

void tune_plan_free(struct tune_plan *p) {
    free(p->vars.v); /* the variants are copies: nothing of theirs is owned */
    free(p->knobs);
    free(p->pt);
    free(p->first);
    tune_space_free(&p->space);
    memset(p, 0, sizeof *p);
}
