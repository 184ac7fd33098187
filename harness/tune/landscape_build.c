/* Building a landscape (landscape_build.h): parameters, their levels found
 * again by a hash (a CSV of a million rows looks a level up per field),
 * points found again by a hash of their levels (a configuration recorded
 * twice), and the finishing touches every format shares. No limit on
 * points, parameters or levels here: the tuner's own limits are checked,
 * and refused, where the space is built (landscape_space.c). */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "stats/stats.h"
#include "tune/landscape_build.h"

static uint64_t mix(uint64_t h) {
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static uint64_t value_hash(const struct landscape_value *v) {
    if (v->type == LANDSCAPE_STRING) return hash_str(v->text, 3);
    double x = v->number == 0 ? 0 : v->number; /* -0 and 0 are one value */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return mix(bits + (uint64_t)v->type);
}

static int value_same(const struct landscape_value *a, const struct landscape_value *b) {
    if (a->type != b->type) return 0;
    return a->type == LANDSCAPE_STRING ? !strcmp(a->text, b->text) : a->number == b->number;
}

int lb_param(struct landscape *l, const char *name) {
    l->param = xrealloc(l->param, sizeof *l->param * (size_t)(l->nparams + 1));
    struct landscape_param *p = &l->param[l->nparams];
    memset(p, 0, sizeof *p);
    p->name = xstrdup(name);
    return l->nparams++;
}

int lb_param_find(const struct landscape *l, const char *name) {
    for (int k = 0; k < l->nparams; k++)
        if (!strcmp(l->param[k].name, name)) return k;
    return -1;
}

static void level_slot_put(struct landscape_param *p, int i) {
    uint64_t s = value_hash(&p->level[i]) & (uint64_t)(p->slots - 1);
    while (p->slot[s]) s = (s + 1) & (uint64_t)(p->slots - 1);
    p->slot[s] = i + 1;
}

int lb_level(struct landscape_param *p, const struct landscape_value *v, int add) {
    if (p->slots) {
        for (uint64_t s = value_hash(v) & (uint64_t)(p->slots - 1); p->slot[s]; s = (s + 1) & (uint64_t)(p->slots - 1))
            if (value_same(&p->level[p->slot[s] - 1], v)) return p->slot[s] - 1;
    }
    if (!add) return -1;
    if (p->nlevels == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->level = xrealloc(p->level, sizeof *p->level * (size_t)p->cap);
    }
    const int i = p->nlevels++;
    p->level[i] = *v;
    p->level[i].text = xstrdup(v->text);
    if (2 * p->nlevels > p->slots) { /* at most half full */
        free(p->slot);
        p->slots = p->slots ? 2 * p->slots : 16;
        p->slot = xcalloc((size_t)p->slots, sizeof *p->slot);
        for (int k = 0; k < p->nlevels; k++) level_slot_put(p, k);
    } else {
        level_slot_put(p, i);
    }
    return i;
}

void lb_value_of_text(struct landscape_value *v, const char *text) {
    v->text = (char *)text;
    v->number = 0;
    if (!parse_real(text, -DBL_MAX, DBL_MAX, &v->number)) v->type = LANDSCAPE_NUMBER;
    else if (!strcasecmp(text, "true") || !strcasecmp(text, "false"))
        v->type = LANDSCAPE_BOOL, v->number = !strcasecmp(text, "true");
    else v->type = LANDSCAPE_STRING;
}

int lb_value_of_json(struct landscape_value *v, const struct json *j) {
    v->number = 0;
    switch (j->type) {
    case JSON_NUMBER: v->type = LANDSCAPE_NUMBER, v->number = j->number, v->text = (char *)j->text; return 0;
    case JSON_STRING: v->type = LANDSCAPE_STRING, v->text = (char *)j->text; return 0;
    case JSON_BOOL: v->type = LANDSCAPE_BOOL, v->number = j->boolean, v->text = j->boolean ? "true" : "false"; return 0;
    default: return -1;
    }
}

void lb_value_show(char *buf, size_t n, const struct landscape_value *v) {
    if (v->type == LANDSCAPE_STRING) str_fmt(buf, n, "\"%s\"", v->text);
    else str_copy(buf, n, v->text);
}

/* ---- points ---- */

static uint64_t coord_hash(const int *c, int d) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < d; k++) h = mix(h ^ ((uint64_t)(unsigned)c[k] + 0x9e3779b97f4a7c15ull));
    return h;
}

static const int *coord_of(const struct landscape *l, int i) { return l->coord + (size_t)i * (size_t)l->nparams; }

static void point_slot_put(struct landscape *l, int i) {
    uint64_t s = coord_hash(coord_of(l, i), l->nparams) & (uint64_t)(l->slots - 1);
    while (l->slot[s]) s = (s + 1) & (uint64_t)(l->slots - 1);
    l->slot[s] = i + 1;
}

int lb_point(struct landscape *l, const int *coord, double seconds, double noise, int line, enum lb_repeat repeat,
             char *err, size_t errn) {
    const size_t d = (size_t)l->nparams;
    if (l->slots) {
        for (uint64_t s = coord_hash(coord, l->nparams) & (uint64_t)(l->slots - 1); l->slot[s];
             s = (s + 1) & (uint64_t)(l->slots - 1)) {
            const int i = l->slot[s] - 1;
            if (memcmp(coord_of(l, i), coord, sizeof *coord * d)) continue;
            if (repeat == LB_REPEAT_ERROR)
                return err_set(err, errn, "%s:%d: this configuration is recorded already, at line %d", l->path, line,
                               l->line[i]);
            l->seconds[i] = seconds, l->noise[i] = noise, l->line[i] = line;
            l->repeated++;
            return 0;
        }
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->coord = xrealloc(l->coord, sizeof *l->coord * (size_t)l->cap * (d ? d : 1));
        l->seconds = xrealloc(l->seconds, sizeof *l->seconds * (size_t)l->cap);
        l->noise = xrealloc(l->noise, sizeof *l->noise * (size_t)l->cap);
        l->line = xrealloc(l->line, sizeof *l->line * (size_t)l->cap);
    }
    const int i = l->n++;
    memcpy(l->coord + (size_t)i * d, coord, sizeof *coord * d);
    l->seconds[i] = seconds, l->noise[i] = noise, l->line[i] = line;
    if (2 * l->n > l->slots) {
        free(l->slot);
        l->slots = l->slots ? 2 * l->slots : 512;
        l->slot = xcalloc((size_t)l->slots, sizeof *l->slot);
        for (int k = 0; k < l->n; k++) point_slot_put(l, k);
    } else {
        point_slot_put(l, i);
    }
    return 0;
}

/* ---- finishing ---- */

static const struct landscape_value *sort_levels; /* qsort's context: one thread loads */
static int by_number(const void *a, const void *b) {
    const double x = sort_levels[*(const int *)a].number, y = sort_levels[*(const int *)b].number;
    return (x > y) - (x < y);
}

/* An ordered parameter's levels in increasing order, its points' levels
 * renumbered to match. */
static void order_levels(struct landscape *l, int k) {
    struct landscape_param *p = &l->param[k];
    int *order = xcalloc((size_t)p->nlevels, sizeof *order), *rank = xcalloc((size_t)p->nlevels, sizeof *rank);
    for (int i = 0; i < p->nlevels; i++) order[i] = i;
    sort_levels = p->level;
    qsort(order, (size_t)p->nlevels, sizeof *order, by_number);
    struct landscape_value *sorted = xcalloc((size_t)p->nlevels, sizeof *sorted);
    for (int r = 0; r < p->nlevels; r++) sorted[r] = p->level[order[r]], rank[order[r]] = r;
    memcpy(p->level, sorted, sizeof *sorted * (size_t)p->nlevels);
    for (int i = 0; i < l->n; i++) l->coord[(size_t)i * (size_t)l->nparams + (size_t)k] = rank[coord_of(l, i)[k]];
    free(sorted);
    free(order);
    free(rank);
}

static enum landscape_kind kind_of(const struct landscape_param *p) {
    int numbers = 0, bools = 0, binary = p->nlevels == 2;
    for (int i = 0; i < p->nlevels; i++) {
        numbers += p->level[i].type == LANDSCAPE_NUMBER;
        bools += p->level[i].type == LANDSCAPE_BOOL;
        binary &= p->level[i].number == 0 || p->level[i].number == 1;
    }
    if (bools == p->nlevels || (numbers == p->nlevels && binary)) return LANDSCAPE_SWITCH;
    return numbers == p->nlevels ? LANDSCAPE_ORDERED : LANDSCAPE_CATEGORICAL;
}

int lb_finish(struct landscape *l, char *err, size_t errn) {
    for (int k = 0; k < l->nparams; k++) {
        struct landscape_param *p = &l->param[k];
        free(p->slot), p->slot = NULL, p->slots = 0;
        p->kind = kind_of(p);
        if (p->kind == LANDSCAPE_ORDERED) order_levels(l, k);
    }
    free(l->slot), l->slot = NULL, l->slots = 0;
    if (!l->nparams) return err_set(err, errn, "%s: no parameters: nothing to search", l->path);
    if (!l->n) return err_set(err, errn, "%s: no configuration is recorded: nothing to search", l->path);
    l->failed = 0, l->optimum = -1;
    for (int i = 0; i < l->n; i++) {
        if (l->seconds[i] < 0) l->failed++;
        else if (l->optimum < 0 || l->seconds[i] < l->seconds[l->optimum]) l->optimum = i;
    }
    if (l->optimum < 0)
        return err_set(err, errn, "%s: none of its %d configurations succeeded (all failed): nothing to search",
                       l->path, l->n);
    return 0;
}

double lb_unit_seconds(const char *unit) {
    static const struct {
        const char *name;
        double s;
    } units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(unit, units[i].name)) return units[i].s;
    return 0;
}

double lb_spread(const double *x, int n) {
    if (n < 2) return 0;
    const double med = stats_median(x, (size_t)n);
    if (!(med > 0)) return 0;
    return (stats_quantile(x, (size_t)n, 0.75) - stats_quantile(x, (size_t)n, 0.25)) / med;
}
