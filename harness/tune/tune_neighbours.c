/* Neighbours of a point (tune_search.h), found by hash lookups when first
 * asked for and kept: the points one parameter away (an ordinal one to the
 * nearest level up or down, a categorical one to another level), then those
 * two ordinal parameters away (both up, both down, or one up and one down: a
 * shape of another aspect). Where the exact point is not in the space (a
 * constraint or a validity rule left it out) a one-parameter move is
 * repaired: the nearest point that differs from the target in one or two
 * other ordinal parameters (tile=inner is valid at 40x24 but not at 32x16,
 * and a walk at 32x16 must still be able to try it).
 *
 * Why on demand: the lists of every point were built before a search
 * started, a cost of seconds for a space of 10^5 points and minutes for
 * 10^6, most of it for points no strategy ever stands on; a search asks for
 * the neighbours of at most a few points per evaluation. Every list is
 * bounded (at most NB_CATEGORICAL_MAX other levels per categorical
 * parameter, NB_REACH levels per move, REPAIR_REACH per repair), so a list
 * costs a bounded number of lookups however large the space. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/tune_search.h"

#define NB_REACH 4            /* levels a move may jump over holes in the space */
#define NB_CATEGORICAL_MAX 16 /* other levels of one categorical parameter in a list (drawn when more) */
#define REPAIR_REACH 3        /* levels each of two repairing parameters may move */

static double level_gap(const struct tune_param *p, int a, int b) {
    return fabs((double)(a - b)) / (p->levels > 1 ? p->levels - 1 : 1);
}

/* The point that differs from c only in the listed ordinal parameters, each
 * moved in its direction (+1 or -1) to the nearest level that gives a point
 * of the space, nearest in the sum of the level steps (up to NB_REACH each):
 * a space pruned by constraints has holes (a tile=inner kernel takes 16, 24
 * or 40 wide but not 32), and a move across a hole must still be a move. */
static int nearest_move(const struct tune_space *sp, int *c, int p, int dp, int q, int dq) {
    const int cp = c[p], cq = q >= 0 ? c[q] : 0, reach = q >= 0 ? 2 * NB_REACH : NB_REACH;
    int found = -1;
    for (int total = q >= 0 ? 2 : 1; total <= reach && found < 0; total++)
        for (int a = 1; a <= NB_REACH && a <= total && found < 0; a++) {
            const int b = total - a;
            if ((q >= 0) != (b > 0) || b > NB_REACH) continue;
            c[p] = cp + dp * a;
            if (q >= 0) c[q] = cq + dq * b;
            found = tune_space_find(sp, c);
        }
    c[p] = cp;
    if (q >= 0) c[q] = cq;
    return found;
}

/* The point nearest to t (in level gaps over each range) that differs from
 * it in one ordinal parameter other than `fixed`, else in two (each within
 * REPAIR_REACH levels); -1 when none. t is left as it was. */
static int repair(const struct tune_space *sp, int *t, int fixed) {
    const int d = sp->nparams;
    int best = -1;
    double bd = INFINITY;
    for (int q = 0; q < d; q++) {
        if (q == fixed || !sp->params[q].ordinal) continue;
        const int own = t[q];
        for (int v = 0; v < sp->params[q].levels; v++) {
            if (v == own) continue;
            const double g = level_gap(&sp->params[q], v, own);
            if (g >= bd) continue;
            t[q] = v;
            const int j = tune_space_find(sp, t);
            if (j >= 0) best = j, bd = g;
        }
        t[q] = own;
    }
    if (best >= 0) return best;
    for (int q = 0; q < d; q++) {
        if (q == fixed || !sp->params[q].ordinal) continue;
        for (int r = q + 1; r < d; r++) {
            if (r == fixed || !sp->params[r].ordinal) continue;
            const int oq = t[q], orr = t[r];
            for (int a = -REPAIR_REACH; a <= REPAIR_REACH; a++)
                for (int b = -REPAIR_REACH; b <= REPAIR_REACH; b++) {
                    if (!a || !b) continue;
                    const double g = level_gap(&sp->params[q], oq + a, oq) + level_gap(&sp->params[r], orr + b, orr);
                    if (g >= bd) continue;
                    t[q] = oq + a, t[r] = orr + b;
                    const int j = tune_space_find(sp, t);
                    if (j >= 0) best = j, bd = g;
                }
            t[q] = oq, t[r] = orr;
        }
    }
    return best;
}

struct list {
    int *v, n, cap, self;
};

static void list_push(struct list *l, int j) {
    if (j < 0 || j == l->self) return;
    for (int k = 0; k < l->n; k++)
        if (l->v[k] == j) return;
    if (l->n == l->cap) l->v = xrealloc(l->v, sizeof *l->v * (size_t)(l->cap = l->cap ? 2 * l->cap : 32));
    l->v[l->n++] = j;
}

/* Computes point i's list into l; returns how many change one parameter. */
static int neighbours_of(struct search *s, int i, struct list *l) {
    const struct tune_space *sp = s->sp;
    const int d = sp->nparams;
    int c[TUNE_MAX_PARAMS];
    memcpy(c, search_coords(s, i), sizeof *c * (size_t)d);
    l->n = 0, l->self = i;
    for (int k = 0; k < d; k++) {
        const int own = c[k], L = sp->params[k].levels;
        if (sp->params[k].ordinal) {
            for (int dir = -1; dir <= 1; dir += 2) {
                int j = nearest_move(sp, c, k, dir, -1, 0);
                for (int a = 1; j < 0 && a <= NB_REACH; a++) {
                    if (own + dir * a < 0 || own + dir * a >= L) break;
                    c[k] = own + dir * a;
                    j = repair(sp, c, k);
                }
                c[k] = own;
                list_push(l, j);
            }
            continue;
        }
        /* Every other level when few; else NB_CATEGORICAL_MAX of them drawn
         * (the list is kept, so a point's moves do not change under a walk). */
        const int all = L - 1 <= NB_CATEGORICAL_MAX;
        for (int m = 0; m < (all ? L : NB_CATEGORICAL_MAX); m++) {
            const int v = all ? m : rng_below(&s->rng, L);
            if (v == own) continue;
            c[k] = v;
            int j = tune_space_find(sp, c);
            if (j < 0) j = repair(sp, c, k);
            list_push(l, j);
        }
        c[k] = own;
    }
    const int single = l->n;
    static const int step[4][2] = {{1, -1}, {-1, 1}, {1, 1}, {-1, -1}}; /* same size first, then another size */
    for (int p = 0; p < d; p++)
        for (int q = p + 1; q < d; q++) {
            if (!sp->params[p].ordinal || !sp->params[q].ordinal) continue;
            for (int m = 0; m < 4; m++) list_push(l, nearest_move(sp, c, p, step[m][0], q, step[m][1]));
        }
    return single;
}

static unsigned slot_of(int key, int slots) { return ((unsigned)key * 2654435761u) & (unsigned)(slots - 1); }

static void cache_grow(struct nb_cache *c) {
    const int old = c->slots;
    int *key = c->key, *at = c->at, *count = c->count, *single = c->single;
    c->slots = old ? 2 * old : 256;
    c->key = xcalloc((size_t)c->slots, sizeof *c->key);
    c->at = xcalloc((size_t)c->slots, sizeof *c->at);
    c->count = xcalloc((size_t)c->slots, sizeof *c->count);
    c->single = xcalloc((size_t)c->slots, sizeof *c->single);
    for (int k = 0; k < old; k++) {
        if (!key[k]) continue;
        unsigned s = slot_of(key[k], c->slots);
        while (c->key[s]) s = (s + 1) & (unsigned)(c->slots - 1);
        c->key[s] = key[k], c->at[s] = at[k], c->count[s] = count[k], c->single[s] = single[k];
    }
    free(key), free(at), free(count), free(single);
}

const int *search_neighbours(struct search *s, int i, int *count, int *single) {
    struct nb_cache *c = &s->nbc;
    if (2 * (c->used + 1) > c->slots) cache_grow(c);
    unsigned slot = slot_of(i + 1, c->slots);
    while (c->key[slot] && c->key[slot] != i + 1) slot = (slot + 1) & (unsigned)(c->slots - 1);
    if (!c->key[slot]) {
        struct list l = {0};
        const int one = neighbours_of(s, i, &l);
        if (c->pool_n + l.n > c->pool_cap) {
            while (c->pool_n + l.n > c->pool_cap) c->pool_cap = c->pool_cap ? 2 * c->pool_cap : 1024;
            c->pool = xrealloc(c->pool, sizeof *c->pool * (size_t)c->pool_cap);
        }
        memcpy(c->pool + c->pool_n, l.v, sizeof *l.v * (size_t)l.n);
        c->key[slot] = i + 1, c->at[slot] = c->pool_n, c->count[slot] = l.n, c->single[slot] = one;
        c->pool_n += l.n, c->used++;
        free(l.v);
    }
    *count = c->count[slot], *single = c->single[slot];
    return c->pool + c->at[slot];
}

int search_neighbour(struct search *s, int i, int one_param, int fresh) {
    int count, single;
    const int *nb = search_neighbours(s, i, &count, &single);
    const int hi = one_param ? single : count;
    int n = 0;
    for (int k = 0; k < hi; k++) n += !fresh || isnan(s->time[nb[k]]);
    if (!n) return -1;
    int pick = rng_below(&s->rng, n);
    for (int k = 0; k < hi; k++)
        if ((!fresh || isnan(s->time[nb[k]])) && pick-- == 0) return nb[k];
    return -1;
}
