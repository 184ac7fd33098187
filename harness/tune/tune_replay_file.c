/* The search of `harness tune --replay FILE` (tune_replay_file.h): the
 * strategy and budget checked first (bad usage costs no file read), then
 * the landscape, its space, the budget resolved against the space's
 * points, and the search. Nothing here opens a database. */
#include "tune/tune_replay_file.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "base/util.h"

int tune_budget_parse(const char *text, struct replay_budget *b) {
    memset(b, 0, sizeof *b);
    const size_t n = strlen(text);
    if (n > 1 && text[n - 1] == '%') {
        char number[64];
        if (n - 1 >= sizeof number) return -1;
        memcpy(number, text, n - 1);
        number[n - 1] = '\0';
        return parse_real(number, DBL_MIN, 100, &b->percent);
    }
    return parse_whole(text, 1, INT_MAX, &b->count);
}

int tune_replay_file(const struct replay_file_opts *o, struct replay_file_run *run, char *err, size_t errn) {
    memset(run, 0, sizeof *run);
    run->l.optimum = -1;
    run->space.side_param[0] = run->space.side_param[1] = -1;
    run->r.best = run->r.runner_up = -1;
    const int exhaustive = o->strategy && !strcmp(o->strategy, "exhaustive");
    if (!tune_strategy_known(o->strategy))
        return err_set(err, errn, "%s%s; choose %s", o->strategy ? "unknown --strategy " : "--strategy is required",
                       o->strategy ? o->strategy : "", TUNE_STRATEGIES),
               EXIT_USAGE;
    if (!exhaustive && !o->budget.count && !o->budget.percent)
        return err_set(err, errn,
                       "--strategy %s needs --budget (a count of evaluations, or a percentage of the "
                       "points such as 10%%)",
                       o->strategy),
               EXIT_USAGE;
    if (landscape_load(o->path, &o->pick, &run->l, err, errn)) return EXIT_USAGE;
    if (landscape_space(&run->l, &run->space, err, errn)) return EXIT_USAGE;
    const int n = run->l.n;
    if (o->budget.count > n)
        return err_set(err, errn, "%s: --budget %ld is more than the space's %d points (at most %d, or 100%%)", o->path,
                       o->budget.count, n, n),
               EXIT_USAGE;
    if (exhaustive) run->budget = n;
    else if (o->budget.count) run->budget = (int)o->budget.count;
    else run->budget = (int)fmax(1, ceil(o->budget.percent / 100 * n - 1e-9));
    if (tune_search(o->strategy, &run->space, run->budget, o->seed, landscape_eval, &run->l, &run->r))
        return err_set(err, errn,
                       "%s: none of the %d configurations evaluated succeeded (%d of the %d points "
                       "failed)",
                       o->path, run->r.evaluations, run->l.failed, n),
               EXIT_FOUND;
    return EXIT_OK;
}

void tune_replay_file_free(struct replay_file_run *run) {
    landscape_free(&run->l);
    tune_space_free(&run->space);
}
