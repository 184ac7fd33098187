/* Recorded landscapes (harness/tune/landscape.c), as `harness tune --replay
 * FILE` reads them: the bytes named .csv (JSON when they start with '{' or
 * '[': a Kernel Tuner cache or T4 results; else CSV) and again named .json
 * (the strict JSON reader on any bytes, and Kernel Tuner's repair of a cut
 * cache). A failure names the file ("fuzz.csv: ..." or "fuzz.csv:LINE:
 * ..."); a landscape is usable: every level in range, ordered levels
 * increasing, a time positive or a failure, the failures counted, the
 * optimum the fastest success; its space is built whole or refused by the
 * tuner's limits, and an exhaustive search of it finds the optimum. */
#include <math.h>

#include "fuzz.h"
#include "tune/landscape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_set_root();
    return 0;
}

static void check(const struct landscape *l) {
    FUZZ_ASSERT(l->n >= 1 && l->nparams >= 1, "%d points, %d parameters", l->n, l->nparams);
    int failed = 0;
    for (int i = 0; i < l->n; i++) {
        FUZZ_ASSERT(l->seconds[i] < 0 || (isfinite(l->seconds[i]) && l->seconds[i] > 0), "time %g", l->seconds[i]);
        failed += l->seconds[i] < 0;
        for (int k = 0; k < l->nparams; k++) {
            const int v = l->coord[(size_t)i * (size_t)l->nparams + (size_t)k];
            FUZZ_ASSERT(v >= 0 && v < l->param[k].nlevels, "level %d of %d", v, l->param[k].nlevels);
        }
    }
    FUZZ_ASSERT(failed == l->failed && failed < l->n, "%d failed, counted %d of %d", failed, l->failed, l->n);
    FUZZ_ASSERT(l->optimum >= 0 && l->optimum < l->n && l->seconds[l->optimum] > 0, "optimum %d", l->optimum);
    for (int i = 0; i < l->n; i++)
        FUZZ_ASSERT(l->seconds[i] < 0 || l->seconds[i] >= l->seconds[l->optimum], "a point faster than the optimum");
    for (int k = 0; k < l->nparams; k++) {
        const struct landscape_param *p = &l->param[k];
        FUZZ_ASSERT(p->nlevels >= 1 && p->name, "parameter %d has no levels", k);
        for (int i = 1; p->kind == LANDSCAPE_ORDERED && i < p->nlevels; i++)
            FUZZ_ASSERT(p->level[i - 1].number < p->level[i].number, "%s: ordered levels not increasing", p->name);
    }
}

static void search(struct landscape *l) {
    struct tune_space sp;
    char err[1024];
    if (landscape_space(l, &sp, err, sizeof err)) {
        FUZZ_ASSERT(strstr(err, "refused, not cut"), "a space refused for another reason: %s", err);
        return;
    }
    FUZZ_ASSERT(sp.n == l->n && sp.nparams == l->nparams, "the space has %d of %d points", sp.n, l->n);
    struct tune_result r;
    if (l->n <= 4096) {
        FUZZ_ASSERT(tune_search("exhaustive", &sp, 0, 1, landscape_eval, l, &r) == 0, "nothing found");
        FUZZ_ASSERT(r.evaluations == l->n && r.best_s == l->seconds[l->optimum], "exhaustive missed the optimum");
    }
    tune_space_free(&sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    static const char *const names[] = {"fuzz.csv", "fuzz.json"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        struct landscape l;
        char err[8192];
        if (landscape_parse(names[k], text, size, NULL, &l, err, sizeof err)) {
            const size_t n = strlen(names[k]);
            FUZZ_ASSERT(!strncmp(err, names[k], n) && (err[n] == ':' || err[n] == ' '), "unnamed: %s", err);
            continue;
        }
        check(&l);
        search(&l);
        landscape_free(&l);
    }
    free(text);
    return 0;
}
