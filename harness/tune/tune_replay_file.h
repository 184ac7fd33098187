/* `harness tune --replay FILE`: a strategy searched over a recorded
 * landscape (landscape.h) of any kernel, with no device, no database and
 * no input: the file is the space and its times are the evaluations. The
 * command (cli/cmd_tune_file.c) parses the options and prints; this runs
 * the search and says what went wrong. */
#ifndef HARNESS_TUNE_REPLAY_FILE_H
#define HARNESS_TUNE_REPLAY_FILE_H
#include <stddef.h>

#include "tune/landscape.h"
#include "tune/tune.h"

/* A budget: a count of evaluations, or a share of the space's points. */
struct replay_budget {
    long count;     /* > 0: this many */
    double percent; /* > 0: this percentage of the points, rounded up (at least 1) */
};
/* "N" (1 .. 2^31-1) or "P%" (0 < P <= 100). 0, or -1. */
int tune_budget_parse(const char *text, struct replay_budget *b);

struct replay_file_opts {
    const char *path, *strategy;
    struct replay_budget budget; /* both 0: none given (exhaustive needs none) */
    unsigned seed;
    struct landscape_pick pick;
};

struct replay_file_run {
    struct landscape l;
    struct tune_space space;
    int budget; /* the evaluations allowed: every point for exhaustive */
    struct tune_result r;
};

/* Loads the landscape and searches it. EXIT_OK; EXIT_USAGE with err for
 * bad input (the file, the strategy, a budget the space cannot hold);
 * EXIT_FOUND with err when no evaluated point succeeded (run->r holds the
 * search). Free run with tune_replay_file_free whatever it returned. */
int tune_replay_file(const struct replay_file_opts *o, struct replay_file_run *run, char *err, size_t errn);
void tune_replay_file_free(struct replay_file_run *run);
#endif
