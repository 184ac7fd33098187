/* Exhaustive search: every point once, in the space's order (tune.h). */
#include "tune/tune_search.h"

void strategy_exhaustive(struct search *s) {
    for (int i = 0; i < s->sp->n; i++) search_visit(s, i);
}
