/* store_tuned_history.h. */
#include "store/store_tuned_history.h"

#include <math.h>
#include <sqlite3.h>

#include "base/util.h"
#include "store/store_sql.h"

int store_tuned_history_add(struct store *s, const char *fingerprint, const char *app, const char *input,
                            const char *variant, const struct tune_result *r, const struct tuned_decision *d, char *err,
                            size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    const char *sql = "INSERT INTO tuned_history(device_fingerprint, app, input, variant, wg_x, wg_y, median_s,"
                      " strategy, budget, iters, evaluations, decision, why, knobs, config, objective, search_s)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "tuned_history: %s", sqlite3_errmsg(db));
    const char *text[] = {fingerprint, app, input, variant};
    for (int i = 0; i < 4; i++) sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, d->wg[0]);
    sqlite3_bind_int64(st, 6, d->wg[1]);
    store_bind_real(st, 7, r->best_s);
    sqlite3_bind_text(st, 8, d->strategy, -1, SQLITE_TRANSIENT);
    if (d->budget > 0) sqlite3_bind_int(st, 9, d->budget);
    else sqlite3_bind_null(st, 9);
    sqlite3_bind_int64(st, 10, d->iters);
    sqlite3_bind_int(st, 11, r->evaluations);
    sqlite3_bind_text(st, 12, d->decision, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 13, d->why, -1, SQLITE_TRANSIENT);
    if (d->knobs) sqlite3_bind_text(st, 14, d->knobs, -1, SQLITE_TRANSIENT);
    if (d->config) sqlite3_bind_text(st, 15, d->config, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 16, d->objective ? d->objective : "time", -1, SQLITE_TRANSIENT);
    store_bind_real(st, 17, d->search_s);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : err_set(err, errn, "tuned_history: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

/* One line of `best --history`: the header's and each row's; a
 * configuration's name, objective and search time follow the decision. */
#define HISTORY_LINE "%-24s %-12s %-4s %-12s %-14s %-9s %12s  %-10s %6s %8s %5s  %s%s%s%s\n"

int store_tuned_history_print(struct store *s, const char *device, FILE *out) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    const char *sql =
        "SELECT h.decided_at, COALESCE(d.spec, h.device_fingerprint), h.app, h.input, h.variant,"
        " h.wg_x || 'x' || h.wg_y, h.median_s, h.strategy, COALESCE(h.budget, '-'), h.iters, h.evaluations,"
        " h.decision, COALESCE(h.why, ''), COALESCE(h.config, h.knobs), h.objective, h.search_s"
        " FROM tuned_history h LEFT JOIN (SELECT fingerprint, min(spec) AS spec FROM device GROUP BY fingerprint) d"
        "   ON d.fingerprint = h.device_fingerprint"
        " WHERE ?1 IS NULL OR h.device_fingerprint = ?1 OR d.spec = ?1 ORDER BY h.id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "harness: tuned_history: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    if (device) sqlite3_bind_text(st, 1, device, -1, SQLITE_TRANSIENT);
    int rc, n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!n++)
            fprintf(out, HISTORY_LINE, "decided", "device", "app", "input", "variant", "best", "median", "strategy",
                    "budget", "steps", "evals", "decision", "", "", "");
        char med[32];
        double m = store_real(st, 6);
        if (isnan(m)) str_copy(med, sizeof med, "-");
        else snprintf(med, sizeof med, "%.4f ms", m * 1e3);
        char config[512] = "";
        if (*store_text(st, 13)) {
            char search[32] = "";
            const double sec = store_real(st, 15);
            if (!isnan(sec)) snprintf(search, sizeof search, ", search %.1f s", sec);
            str_fmt(config, sizeof config, "  [config %s, objective %s%s]", store_text(st, 13), store_text(st, 14),
                    search);
        }
        fprintf(out, HISTORY_LINE, store_text(st, 0), store_text(st, 1), store_text(st, 2), store_text(st, 3),
                store_text(st, 4), store_text(st, 5), med, store_text(st, 7), store_text(st, 8), store_text(st, 9),
                store_text(st, 10), store_text(st, 11), *store_text(st, 12) ? ": " : "", store_text(st, 12), config);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return fprintf(stderr, "harness: tuned_history: %s\n", sqlite3_errmsg(db)), -1;
    if (!n) fprintf(stderr, "no tune decisions%s%s yet\n", device ? " for " : "", device ? device : "");
    return ferror(out) ? -1 : 0;
}
