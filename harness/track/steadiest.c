/* steadiest.h. */
#include "track/steadiest.h"

#include <stdlib.h>
#include <string.h>

#include "track/noise.h"
#include "track/series.h"

/* Which measure may judge which rows: the host's CPU time and cycles a CPU
 * device's series, the device events' time any other device's. */
static const struct candidate {
    enum measure measure;
    int cpu; /* 1: CPU rows; 0: the others (GPUs) */
} candidates[] = {{MEASURE_CPU, 1}, {MEASURE_CYCLES, 1}, {MEASURE_DEVICE, 0}};

static int row_on_cpu(const struct compare_row *r) { return !strcmp(r->a->id.kind, "cpu"); }

/* Compares the runs by one measure and lets each of the rows it may judge
 * take it where it sees more. */
static int by_measure(struct store *store, struct candidate cand, const char *table_a, const char *table_b,
                      const char *before, const struct compare_params *p, struct compare_row *rows, int n, char *err,
                      size_t errn) {
    const enum measure m = cand.measure;
    struct series_list la = {0}, lb = {0};
    struct noise_set ns = {0};
    if (series_load_runs_by(store, table_a, m, &la, err, errn) != 0) return -1;
    if (series_load_runs_by(store, table_b, m, &lb, err, errn) != 0 ||
        noise_set_load_by(store, m, before, &ns, err, errn) != 0) {
        series_list_free(&la);
        series_list_free(&lb);
        return -1;
    }
    struct compare_params q = *p;
    q.noise = &ns;
    struct compare_row *alt = NULL;
    int oa, ob, k = compare_lists(&la, &lb, &q, &alt, &oa, &ob);
    for (int j = 0; j < k; j++) alt[j].measure = m;
    for (int i = 0; i < n; i++) {
        if (row_on_cpu(&rows[i]) != cand.cpu || rows[i].a->id.higher_better) continue;
        for (int j = 0; j < k; j++)
            if (!strcmp(alt[j].a->id.key, rows[i].a->id.key)) {
                compare_row_steadiest(&rows[i], &alt[j]);
                break;
            }
    }
    free(alt);
    noise_set_free(&ns);
    series_list_free(&la);
    series_list_free(&lb);
    return 0;
}

int compare_steadiest(struct store *store, const char *table_a, const char *table_b, const char *before,
                      const struct compare_params *p, struct compare_row *rows, int n, char *err, size_t errn) {
    int cpu_rows = 0;
    for (int i = 0; i < n; i++) cpu_rows += row_on_cpu(&rows[i]);
    if (p->pooled) return 0;
    for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
        const int judged = candidates[c].cpu ? cpu_rows : n - cpu_rows;
        if (judged && by_measure(store, candidates[c], table_a, table_b, before, p, rows, n, err, errn) != 0) return -1;
    }
    return 0;
}
