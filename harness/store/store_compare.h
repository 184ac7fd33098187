/* What `harness compare` asks of a set of runs (temp.<table>, filled by
 * runset_resolve in store_nightly.h) beyond its series: the builds that
 * measured it, its first night, and the confirmations already made. */
#ifndef HARNESS_STORE_COMPARE_H
#define HARNESS_STORE_COMPARE_H
#include <stddef.h>

#include "store/store.h"

/* The distinct builds of the runs in temp.<table>: a kept build's hash when
 * the run's night kept one, else the commit (+dirty). Returns how many, the
 * first two in first and second (left as they were when absent); -1 on a
 * database error. */
int store_runset_builds(struct store *s, const char *table, char *first, size_t fn, char *second, size_t sn);
/* The start of the earliest nightly among the runs in temp.<table>; "" when
 * they hold none. */
void store_runset_first_night(struct store *s, const char *table, char *buf, size_t n);

/* The latest confirmation of a series between two builds. */
struct confirmation_seen {
    char verdict[64];
    int has_ratio;   /* 0: it measured nothing (failed); reason says why */
    double ratio, p; /* B/A and the paired test's p */
    int rounds;      /* pairs of rounds */
    double detectable; /* the smallest change its rounds saw (NAN: not recorded) */
    char reason[256];
};
/* 1 and *c when one was made, else 0 (also on a database error). */
int store_confirmation_latest(struct store *s, const char *series, const char *build_a, const char *build_b,
                              struct confirmation_seen *c);
#endif
