/* The list of runs (harness results --runs): the ids other commands take. */
#ifndef HARNESS_STORE_RUNS_H
#define HARNESS_STORE_RUNS_H
#include <stdio.h>

#include "store/store.h"

/* The latest `limit` runs (0: all), oldest first, as a table or CSV: id,
 * start, device, build commit, the night it belongs to, measurements (ok
 * and all) and the command. 0, or -1 (the message on stderr). */
int store_print_runs(struct store *s, int limit, int csv, FILE *out);
#endif
