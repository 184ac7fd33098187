/* The measured landscapes of tests/data, loaded as tuning spaces: shared by
 * the replay test (tests/unit/test_tune_replay.c) and the table of
 * results/published/nvidia-h200/tuning.md (scripts/tune_replay_table.c), so
 * the figures published are those the test checks. Static functions: each
 * program includes this once.
 *
 * tests/data/wg-h100-final.csv holds exhaustive work-group sweeps of the
 * final LBM variant on an H100 (shapes alone); tests/data/landscape-*.csv
 * hold knobs x shapes spaces measured on an H200 and an H100 (every valid point of a
 * sweep file). */
#ifndef REPLAY_LANDSCAPES_H
#define REPLAY_LANDSCAPES_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/tune.h"

/* No cap on points or levels (arrays grow); the landscapes and parameters a
 * file may hold are capped, and a file beyond them is refused by name. */
#define MAX_LANDSCAPES 24

/* A landscape: its points' parameters as text values (knob values, then
 * wg_x and wg_y) and their measured medians. */
struct landscape {
    char name[160];
    int n, nparams;
    char param[TUNE_MAX_PARAMS][32];
    char (*value)[TUNE_MAX_PARAMS][24]; /* per point */
    double *median, *noise;
    int cap; /* points the arrays hold */
    struct tune_space space;
    char source[96], input[16]; /* the device and variant measured; the input */
    /* A warm start's prior: the same source's landscape on another input,
     * as points of this space (prior_from names it; "" when none). */
    char prior_from[16];
    int prior_n, *prior_point;
    double *prior_s;
};

/* Refuses what the loader cannot hold, saying what and where. */
static void refuse(const char *what, const char *name, int limit) {
    fprintf(stderr, "replay_landscapes: %s has more than %d %s; raise the limit\n", name, limit, what);
    exit(2);
}

static struct landscape *find_or_add(struct landscape *ls, int *count, const char *name) {
    for (int k = 0; k < *count; k++)
        if (!strcmp(ls[k].name, name)) return &ls[k];
    if (*count == MAX_LANDSCAPES) refuse("landscapes", "tests/data", MAX_LANDSCAPES);
    struct landscape *l = &ls[(*count)++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    return l;
}

static int param_index(struct landscape *l, const char *name) {
    for (int k = 0; k < l->nparams; k++)
        if (!strcmp(l->param[k], name)) return k;
    if (l->nparams == TUNE_MAX_PARAMS) refuse("parameters", l->name, TUNE_MAX_PARAMS);
    snprintf(l->param[l->nparams], sizeof l->param[0], "%s", name);
    return l->nparams++;
}

/* One point: "k=v,k=v" knobs (may be empty), the shape, the figures. */
static void add_point(struct landscape *l, const char *knobs, unsigned x, unsigned y, double med, double q1,
                      double q3) {
    if (!(med > 0)) return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->value = xrealloc(l->value, sizeof *l->value * (size_t)l->cap);
        l->median = xrealloc(l->median, sizeof *l->median * (size_t)l->cap);
        l->noise = xrealloc(l->noise, sizeof *l->noise * (size_t)l->cap);
        memset(l->value + l->n, 0, sizeof *l->value * (size_t)(l->cap - l->n));
    }
    const int i = l->n++;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", knobs);
    for (char *save = NULL, *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        snprintf(l->value[i][param_index(l, kv)], sizeof l->value[0][0], "%s", eq + 1);
    }
    snprintf(l->value[i][param_index(l, "wg_x")], sizeof l->value[0][0], "%u", x);
    snprintf(l->value[i][param_index(l, "wg_y")], sizeof l->value[0][0], "%u", y);
    l->median[i] = med;
    l->noise[i] = (q3 - q1) / med;
}

/* wg-h100-final.csv: backend,fingerprint,input,wg_x,wg_y,status,median,q1,q3. */
static void load_shapes(const char *path, struct landscape *ls, int *count) {
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char backend[16], fp[32], input[16], status[16], name[160];
        unsigned x, y;
        double med, q1, q3;
        if (line[0] == '#' || sscanf(line, "%15[^,],%31[^,],%15[^,],%u,%u,%15[^,],%lf,%lf,%lf", backend, fp, input, &x,
                                     &y, status, &med, &q1, &q3) != 9)
            continue;
        snprintf(name, sizeof name, "H100 %s final %s (shapes)", backend, input);
        struct landscape *l = find_or_add(ls, count, name);
        if (l) add_point(l, "", x, y, med, q1, q3);
    }
    if (f) fclose(f);
}

/* landscape-*.csv: input,"variant{k=v,...}",wg_x,wg_y,iters,median,q1,q3. */
static void load_knobs(const char *path, const char *device, struct landscape *ls, int *count) {
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char input[16], base[64], knobs[1024], name[160];
        unsigned x, y;
        long iters;
        double med, q1, q3;
        if (line[0] == '#' || line[0] == '"' ||
            sscanf(line, "%15[^,],\"%63[^{]{%511[^}]}\",%u,%u,%ld,%lf,%lf,%lf", input, base, knobs, &x, &y, &iters,
                   &med, &q1, &q3) != 9)
            continue;
        str_fmt(name, sizeof name, "%s %s %s (knobs x shapes)", device, base, input);
        struct landscape *l = find_or_add(ls, count, name);
        if (l) str_fmt(l->source, sizeof l->source, "%s %s", device, base), str_copy(l->input, sizeof l->input, input);
        if (l) add_point(l, knobs, x, y, med, q1, q3);
    }
    if (f) fclose(f);
}

static int cmp_value(const void *a, const void *b) {
    const char *x = a, *y = b;
    char *ex, *ey;
    const double u = strtod(x, &ex), v = strtod(y, &ey);
    if (!*ex && !*ey) return (u > v) - (u < v); /* numbers in order */
    return strcmp(x, y);
}

/* The space: each parameter's distinct values as levels (ordinal when every
 * value is a number, in numeric order), the points in file order. */
static void build_space(struct landscape *l) {
    struct tune_space *sp = &l->space;
    tune_space_init(sp, l->nparams);
    /* Each parameter's distinct values, as many as the points have. */
    char(*vals[TUNE_MAX_PARAMS])[24];
    int nv[TUNE_MAX_PARAMS] = {0};
    for (int k = 0; k < l->nparams; k++) {
        vals[k] = xcalloc((size_t)l->n + 1, sizeof *vals[k]);
        int numeric = 1;
        for (int i = 0; i < l->n; i++) {
            int seen = 0;
            for (int v = 0; v < nv[k] && !seen; v++) seen = !strcmp(vals[k][v], l->value[i][k]);
            if (!seen) snprintf(vals[k][nv[k]++], 24, "%s", l->value[i][k]);
            char *end;
            strtod(l->value[i][k], &end);
            numeric &= *l->value[i][k] && !*end;
        }
        qsort(vals[k], (size_t)nv[k], sizeof vals[k][0], cmp_value);
        str_copy(sp->params[k].name, sizeof sp->params[k].name, l->param[k]);
        sp->params[k].levels = nv[k];
        sp->params[k].ordinal = numeric;
    }
    for (int i = 0; i < l->n; i++) {
        int c[TUNE_MAX_PARAMS];
        for (int k = 0; k < l->nparams; k++) {
            /* bsearch by the same order the values were sorted in */
            const char(*hit)[24] = bsearch(l->value[i][k], vals[k], (size_t)nv[k], sizeof vals[k][0], cmp_value);
            c[k] = hit ? (int)(hit - vals[k]) : 0;
            if (strcmp(vals[k][c[k]], l->value[i][k])) /* mixed kinds have no total order: a scan */
                for (c[k] = 0; c[k] + 1 < nv[k] && strcmp(vals[k][c[k]], l->value[i][k]); c[k]++) {
                }
        }
        tune_space_add(sp, c);
    }
    /* The work-group sides, for the model's group size and aspect. */
    const int px = param_index(l, "wg_x"), py = param_index(l, "wg_y");
    unsigned *len[2] = {xcalloc((size_t)nv[px] + 1, sizeof *len[0]), xcalloc((size_t)nv[py] + 1, sizeof *len[1])};
    for (int v = 0; v < nv[px]; v++) len[0][v] = (unsigned)atoi(vals[px][v]);
    for (int v = 0; v < nv[py]; v++) len[1][v] = (unsigned)atoi(vals[py][v]);
    tune_space_set_sides(sp, px, len[0], py, len[1]);
    free(len[0]), free(len[1]);
    for (int k = 0; k < l->nparams; k++) free(vals[k]);
}

/* The cells of an input "NXxNY" (0 when it is not one). */
static double input_cells(const char *input) {
    unsigned nx = 0, ny = 0;
    return sscanf(input, "%ux%u", &nx, &ny) == 2 ? (double)nx * ny : 0;
}

/* o's points that are points of l (matched by their values), as l's prior:
 * their indices in l into point[], o's times into s[] (room for o->n each);
 * returns how many. */
static int prior_points(const struct landscape *l, struct landscape *o, int *point, double *s) {
    int m = 0;
    for (int q = 0; q < o->n; q++)
        for (int i = 0; i < l->n; i++) {
            int same = 1;
            for (int c = 0; c < l->nparams && same; c++)
                same = !strcmp(l->value[i][c], o->value[q][param_index(o, l->param[c])]);
            if (same) point[m] = i, s[m++] = o->median[q];
        }
    return m;
}

/* Gives each knobs x shapes landscape of [from, n) one prior: the same
 * source's landscape on the input nearest in cells (on a tie the larger),
 * its points matched by their values. One, not every other input: a source
 * measured at four inputs would otherwise warm-start from three of them
 * mixed, under the name of the last. */
static void pair_priors(struct landscape *ls, int from, int n) {
    for (int k = from; k < n; k++) {
        struct landscape *l = &ls[k], *o = NULL;
        double o_far = INFINITY;
        for (int j = from; j < n; j++) {
            struct landscape *c = &ls[j];
            if (j == k || strcmp(l->source, c->source) || !strcmp(l->input, c->input) || l->nparams != c->nparams)
                continue;
            const double far = fabs(log(input_cells(c->input) / input_cells(l->input)));
            if (far < o_far - 1e-9 || (far < o_far + 1e-9 && input_cells(c->input) > input_cells(o->input)))
                o = c, o_far = far;
        }
        if (!o) continue;
        str_copy(l->prior_from, sizeof l->prior_from, o->input);
        l->prior_point = xcalloc((size_t)o->n + 1, sizeof *l->prior_point);
        l->prior_s = xcalloc((size_t)o->n + 1, sizeof *l->prior_s);
        l->prior_n = prior_points(l, o, l->prior_point, l->prior_s);
    }
}

static double eval(void *ctx, int point, double *noise) {
    const struct landscape *l = ctx;
    *noise = l->noise[point];
    return l->median[point];
}

/* Every landscape of tests/data, spaces built and warm-start priors paired;
 * returns how many, *shape_only gets how many of them are shapes alone.
 * Held out, and how far: landscape-h200-cuda-heldout.csv (512x512 and
 * 1024x1024) was recorded after the forest's constants were chosen on
 * landscape-h200-cuda.csv, then used to develop the forest, so it no longer
 * is (the name is the file's); so was landscape-h100-cuda.csv (four inputs
 * on an H100), used to choose the shape belief (tune_linear.c);
 * landscape-h100-cuda-rect.csv (three rectangular grids on an H100) was
 * recorded after the belief was committed (ec824ba) and is held out. */
static int load_landscapes(struct landscape *ls, int *shape_only) {
    int n = 0;
    load_shapes("tests/data/wg-h100-final.csv", ls, &n);
    *shape_only = n;
    load_knobs("tests/data/landscape-h200-cuda.csv", "H200 cuda", ls, &n);
    load_knobs("tests/data/landscape-h200-cuda-wide.csv", "H200 cuda (wide)", ls, &n);
    load_knobs("tests/data/landscape-h200-cuda-heldout.csv", "H200 cuda (heldout.csv)", ls, &n);
    load_knobs("tests/data/landscape-h100-cuda.csv", "H100 cuda", ls, &n);
    load_knobs("tests/data/landscape-h100-cuda-rect.csv", "H100 cuda (rect)", ls, &n);
    for (int k = 0; k < n; k++) build_space(&ls[k]);
    pair_priors(ls, *shape_only, n);
    return n;
}

static void free_landscapes(struct landscape *ls, int n) {
    for (int k = 0; k < n; k++) {
        tune_space_free(&ls[k].space);
        free(ls[k].value), free(ls[k].median), free(ls[k].noise), free(ls[k].prior_point), free(ls[k].prior_s);
    }
}
#endif
