/* The tuned table and replay data (store_tuned.h). Statements are prepared
 * per call: each runs a handful of times per command, so caching them would
 * buy nothing and would tie this file to store.c's statement table. */
#include "store/store_tuned.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store_sql.h"

static int tuned_fail(sqlite3 *db, char *err, size_t errn, const char *what) {
    return err_set(err, errn, "%s: %s", what, sqlite3_errmsg(db));
}

/* Binds ?1..?4 = fingerprint, app, input, and the fourth key part. */
static void bind_key(sqlite3_stmt *st, const char *fp, const char *app, const char *input, const char *last) {
    sqlite3_bind_text(st, 1, fp, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, app, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, input, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, last, -1, SQLITE_TRANSIENT);
}

int store_tuned_put(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    const struct tune_result *r, const struct tuned_put *p, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    const char *sql =
        "INSERT OR REPLACE INTO tuned(device_fingerprint, app, input, variant, wg_x, wg_y,"
        " median_s, margin, noise, samples, tie, decided_at, knobs, config, objective, energy_j,"
        " strategy, evaluations, search_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
        " ?7, ?8, ?9, ?10, ?11, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return tuned_fail(db, err, errn, "tuned");
    bind_key(st, fingerprint, app, input, variant);
    sqlite3_bind_int64(st, 5, p->wg[0]);
    sqlite3_bind_int64(st, 6, p->wg[1]);
    store_bind_real(st, 7, r->best_s);
    store_bind_real(st, 8, r->margin);
    store_bind_real(st, 9, r->noise);
    if (p->samples > 0) sqlite3_bind_int(st, 10, p->samples);
    else sqlite3_bind_null(st, 10);
    sqlite3_bind_int(st, 11, r->tie ? 1 : 0);
    if (p->knobs) sqlite3_bind_text(st, 12, p->knobs, -1, SQLITE_TRANSIENT);
    if (p->config) sqlite3_bind_text(st, 13, p->config, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 14, p->objective ? p->objective : "time", -1, SQLITE_TRANSIENT);
    store_bind_real(st, 15, p->energy_j);
    if (p->strategy) sqlite3_bind_text(st, 16, p->strategy, -1, SQLITE_TRANSIENT);
    if (p->evaluations > 0) sqlite3_bind_int(st, 17, p->evaluations);
    store_bind_real(st, 18, p->search_s);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : tuned_fail(db, err, errn, "tuned");
    sqlite3_finalize(st);
    return rc;
}

int store_tuned_get_config(struct store *s, const char *fingerprint, const char *app, const char *input,
                           const char *variant, struct tuned_config *out) {
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT wg_x, wg_y, tie, COALESCE(knobs, ''), COALESCE(config, variant), objective, median_s,"
                      " margin, noise FROM tuned WHERE device_fingerprint = ?1 AND app = ?2 AND input = ?3"
                      " AND variant = ?4";
    memset(out, 0, sizeof *out);
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    bind_key(st, fingerprint, app, input, variant);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int64(st, 1) > 0) {
        out->wg[0] = (unsigned)sqlite3_column_int64(st, 0);
        out->wg[1] = (unsigned)sqlite3_column_int64(st, 1);
        out->tie = sqlite3_column_int(st, 2);
        str_copy(out->knobs, sizeof out->knobs, store_text(st, 3));
        str_copy(out->config, sizeof out->config, store_text(st, 4));
        str_copy(out->objective, sizeof out->objective, store_text(st, 5));
        out->median_s = store_real(st, 6);
        out->margin = store_real(st, 7);
        out->noise = store_real(st, 8);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_tuned_variant(struct store *s, const struct app *app, const struct app_input *in,
                        const struct device_info *dev, struct variant *out, unsigned wg[2], struct tuned_config *cfg,
                        char *why, size_t whyn) {
    struct tuned_config c;
    const char *input = app->input_name(in);
    if (cfg) memset(cfg, 0, sizeof *cfg);
    variant_tuned_placeholder(out, app->knobs);
    if (!s || store_tuned_get_config(s, dev->fingerprint, app->name, input, TUNED_VARIANT, &c) != 0)
        return err_set(why, whyn,
                       "no tuned configuration for %s %s on %s (%s); `harness tune FILE` (a sweep file of knobs"
                       " and shapes) makes one",
                       app->name, input, dev->spec, dev->fingerprint),
               1;
    if (cfg) *cfg = c;
    char err[ERR_MAX];
    if (!c.knobs[0] || variant_tuned(out, app->knobs, c.knobs, c.config, err, sizeof err) != 0) {
        variant_tuned_placeholder(out, app->knobs);
        return err_set(why, whyn, "the tuned configuration %s for %s %s on %s no longer applies (%s); tune again",
                       c.config, app->name, input, dev->spec, c.knobs[0] ? err : "stored without knobs");
    }
    wg[0] = c.wg[0];
    wg[1] = c.wg[1];
    return 0;
}

int store_tuned_get(struct store *s, const char *fingerprint, const char *app, const char *input, const char *variant,
                    unsigned wg[2], int *tie) {
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT wg_x, wg_y, tie FROM tuned WHERE device_fingerprint = ?1 AND app = ?2"
                      " AND input = ?3 AND variant = ?4";
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    bind_key(st, fingerprint, app, input, variant);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int64(st, 1) > 0) {
        wg[0] = (unsigned)sqlite3_column_int64(st, 0);
        wg[1] = (unsigned)sqlite3_column_int64(st, 1);
        if (tie) *tie = sqlite3_column_int(st, 2);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- harness best ------------------------------------------------------ */

enum {
    B_DEVICE,
    B_NAME,
    B_FP,
    B_APP,
    B_INPUT,
    B_VARIANT,
    B_WG,
    B_MEDIAN,
    B_MARGIN,
    B_NOISE,
    B_SAMPLES,
    B_VERDICT,
    B_DECIDED,
    B_CONFIG, /* a configuration's (TUNED_VARIANT) name; "-" in the table for a shape-only row */
    B_KNOBS,  /* its canonical knobs: CSV and --long only (a few hundred characters) */
    B_OBJECTIVE,
    B_ENERGY,
    B_STRATEGY,
    B_EVALS,
    B_SEARCH,
    BCOL
};
static const char *const best_header[BCOL] = {"device",    "device_name", "fingerprint", "app",         "input",
                                              "variant",   "wg",          "median_s",    "margin_pct",  "noise_pct",
                                              "samples",   "verdict",     "decided_at",  "config",      "knobs",
                                              "objective", "energy_j",    "strategy",    "evaluations", "search_s"};
/* The table folds spec and name into one column and leaves the fingerprint,
 * knobs, energy and strategy to the CSV; numbers align right; the
 * configuration's name, of any length, comes last. */
static const int table_cols[] = {B_DEVICE,  B_APP,     B_INPUT,     B_VARIANT, B_WG,     B_MEDIAN,  B_MARGIN, B_NOISE,
                                 B_SAMPLES, B_VERDICT, B_OBJECTIVE, B_EVALS,   B_SEARCH, B_DECIDED, B_CONFIG};
#define NTABLE ((int)(sizeof table_cols / sizeof table_cols[0]))

static int right_aligned(int c) { return (c >= B_WG && c <= B_SAMPLES) || c == B_EVALS || c == B_SEARCH; }

static void csv_cell(FILE *out, const char *v, int last) {
    csv_field(out, v);
    fputc(last ? '\n' : ',', out);
}

static void fmt_seconds(char *buf, size_t n, double s) {
    if (isnan(s)) str_copy(buf, n, "-");
    else if (s >= 1) snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.3f ms", s * 1e3);
    else snprintf(buf, n, "%.1f us", s * 1e6);
}

/* v * scale in fmt, or "" when v is unknown (CSV leaves the cell empty). */
static void fmt_number(char *buf, size_t n, double v, const char *fmt, double scale) {
    if (isnan(v)) buf[0] = 0;
    else snprintf(buf, n, fmt, v * scale);
}

/* A column's text as it is, or the table's "-" for none. */
static char *text_or_dash(const char *v, int csv) { return xstrdup(csv || *v ? v : "-"); }

/* One row's cells (malloc'd) from the query below, as CSV or table text. */
static void best_row(sqlite3_stmt *st, int csv, char *cell[BCOL]) {
    char buf[512];
    const char *spec = store_text(st, 0), *name = store_text(st, 1), *fp = store_text(st, 2);
    if (csv) cell[B_DEVICE] = xstrdup(spec);
    else if (*spec) str_fmt(buf, sizeof buf, "%s %.28s", spec, name), cell[B_DEVICE] = xstrdup(buf);
    else cell[B_DEVICE] = xstrdup(fp); /* tuned elsewhere and merged in: no device row here */
    cell[B_NAME] = xstrdup(name);
    cell[B_FP] = xstrdup(fp);
    for (int i = 0; i < 3; i++) cell[B_APP + i] = xstrdup(store_text(st, 3 + i));
    snprintf(buf, sizeof buf, "%lldx%lld", sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 7));
    cell[B_WG] = xstrdup(buf);
    const double median = store_real(st, 8), margin = store_real(st, 9), noise = store_real(st, 10);
    if (csv) fmt_number(buf, sizeof buf, median, "%.9g", 1);
    else fmt_seconds(buf, sizeof buf, median);
    cell[B_MEDIAN] = xstrdup(buf);
    fmt_number(buf, sizeof buf, margin, csv ? "%.3f" : "%+.1f%%", 100);
    cell[B_MARGIN] = xstrdup(csv || !isnan(margin) ? buf : "-");
    fmt_number(buf, sizeof buf, noise, csv ? "%.3f" : "%.1f%%", 100);
    cell[B_NOISE] = xstrdup(csv || !isnan(noise) ? buf : "-");
    cell[B_SAMPLES] = xstrdup(store_text(st, 11));
    /* Without a runner-up there was nothing to beat: say so rather than "winner". */
    cell[B_VERDICT] = xstrdup(sqlite3_column_int(st, 12) ? "tie" : isnan(margin) ? "uncontested" : "winner");
    cell[B_DECIDED] = xstrdup(store_text(st, 13));
    cell[B_CONFIG] = text_or_dash(store_text(st, 14), csv);
    cell[B_KNOBS] = xstrdup(store_text(st, 15));
    cell[B_OBJECTIVE] = text_or_dash(store_text(st, 16), csv);
    fmt_number(buf, sizeof buf, store_real(st, 17), "%.6g", 1);
    cell[B_ENERGY] = xstrdup(buf);
    cell[B_STRATEGY] = text_or_dash(store_text(st, 18), csv);
    cell[B_EVALS] = text_or_dash(store_text(st, 19), csv);
    const double search = store_real(st, 20);
    if (csv) fmt_number(buf, sizeof buf, search, "%.3f", 1);
    else fmt_seconds(buf, sizeof buf, search);
    cell[B_SEARCH] = xstrdup(buf);
}

static const char *const table_header[BCOL] = {
    "device",  "",        "",        "app",    "input", "variant",   "wg", "median", "margin", "noise",
    "samples", "verdict", "decided", "config", "",      "objective", "",   "",       "evals",  "search",
};

static void table_line(FILE *out, char *const cell[BCOL], const int width[BCOL]) {
    for (int k = 0; k < NTABLE; k++) {
        const int c = table_cols[k], last = k == NTABLE - 1;
        fprintf(out, "%s%*s%s", k ? "  " : "",
                last               ? 0
                : right_aligned(c) ? width[c]
                                   : -width[c],
                cell[c], last ? "\n" : "");
    }
}

int store_tuned_print(struct store *s, const char *device, int csv, int lng, FILE *out) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT d.spec, d.name, t.device_fingerprint, t.app, t.input, t.variant, t.wg_x, t.wg_y,"
                      " t.median_s, t.margin, t.noise, t.samples, t.tie, t.decided_at, COALESCE(t.config, ''),"
                      " COALESCE(t.knobs, ''), t.objective, t.energy_j, COALESCE(t.strategy, ''),"
                      " COALESCE(t.evaluations, ''), t.search_s"
                      " FROM tuned t LEFT JOIN device d ON d.fingerprint = t.device_fingerprint"
                      " WHERE ?1 IS NULL OR t.device_fingerprint = ?1 OR d.spec = ?1"
                      " ORDER BY d.spec, t.device_fingerprint, t.app, t.input, t.variant";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "harness: tuned: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    if (device) sqlite3_bind_text(st, 1, device, -1, SQLITE_TRANSIENT);
    /* Rows are kept so the table can be sized before it is printed. */
    char *(*rows)[BCOL] = NULL;
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows = realloc(rows, sizeof *rows * (size_t)(n + 1));
        if (!rows) abort();
        best_row(st, csv, rows[n++]);
    }
    if (rc != SQLITE_DONE) fprintf(stderr, "harness: tuned: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    int width[BCOL];
    for (int c = 0; c < BCOL; c++) {
        width[c] = (int)strlen(csv ? best_header[c] : table_header[c]);
        for (int i = 0; i < n; i++)
            if ((int)strlen(rows[i][c]) > width[c]) width[c] = (int)strlen(rows[i][c]);
    }
    if (csv)
        for (int c = 0; c < BCOL; c++) csv_cell(out, best_header[c], c == BCOL - 1);
    else if (n) table_line(out, (char *const *)table_header, width);
    for (int i = 0; i < n; i++) {
        if (csv)
            for (int c = 0; c < BCOL; c++) csv_cell(out, rows[i][c], c == BCOL - 1);
        else table_line(out, rows[i], width);
        /* --long: a configuration's knobs and search under its row. */
        if (!csv && lng && rows[i][B_KNOBS][0])
            fprintf(out, "    knobs %s\n    found by %s%s%s\n", rows[i][B_KNOBS], rows[i][B_STRATEGY],
                    rows[i][B_ENERGY][0] ? ", energy per run (J) " : "", rows[i][B_ENERGY]);
        for (int c = 0; c < BCOL; c++) free(rows[i][c]);
    }
    free(rows);
    if (!csv && !n && rc == SQLITE_DONE)
        fprintf(stderr, "no tuned work-groups or configurations%s%s yet (harness tune decides them)\n",
                device ? " for " : "", device ? device : "");
    return rc == SQLITE_DONE && !ferror(out) ? 0 : -1;
}

/* ---- replay ------------------------------------------------------------ */

static int shape_in(unsigned (*wg)[2], int n, unsigned x, unsigned y) {
    for (int i = 0; i < n; i++)
        if (wg[i][0] == x && wg[i][1] == y) return 1;
    return 0;
}

int store_replay_load(struct store *s, const char *fingerprint, const char *app, const char *input, const char *knobs,
                      struct replay_table *out) {
    return store_replay_load_iters(s, fingerprint, app, input, knobs, 0, out);
}

int store_replay_load_iters(struct store *s, const char *fingerprint, const char *app, const char *input,
                            const char *knobs, long iters_wanted, struct replay_table *out) {
    memset(out, 0, sizeof *out);
    out->iters = iters_wanted;
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    /* Newest first: the first row of a shape at the chosen step count is the
     * latest. The sample count is of samples that have a time. */
    const char *sql = "SELECT c.wg_x, c.wg_y, m.median_s, m.q1_s, m.q3_s, m.iters,"
                      " (SELECT count(*) FROM sample p WHERE p.measurement_id = m.id AND p.seconds IS NOT NULL)"
                      " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
                      " JOIN device d ON d.id = r.device_id"
                      " WHERE d.fingerprint = ?1 AND c.app = ?2 AND c.input = ?3 AND c.knobs = ?4"
                      " AND m.status = 'ok' AND m.median_s > 0 ORDER BY m.id DESC";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    bind_key(st, fingerprint, app, input, knobs);
    int cap = 0, nother = 0, rc;
    unsigned(*other)[2] = NULL; /* shapes seen at another step count */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned x = (unsigned)sqlite3_column_int64(st, 0), y = (unsigned)sqlite3_column_int64(st, 1);
        const long iters = (long)sqlite3_column_int64(st, 5);
        if (!out->iters) out->iters = iters; /* the newest row's, unless asked for */
        if (iters != out->iters) {
            if (!shape_in(other, nother, x, y)) {
                other = realloc(other, sizeof *other * (size_t)(nother + 1));
                if (!other) abort();
                other[nother][0] = x, other[nother][1] = y, nother++;
            }
            continue;
        }
        if (shape_in(out->wg, out->n, x, y)) continue;
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            out->wg = realloc(out->wg, sizeof *out->wg * (size_t)cap);
            out->median = realloc(out->median, sizeof *out->median * (size_t)cap);
            out->noise = realloc(out->noise, sizeof *out->noise * (size_t)cap);
            out->samples = realloc(out->samples, sizeof *out->samples * (size_t)cap);
            if (!out->wg || !out->median || !out->noise || !out->samples) abort();
        }
        const double med = sqlite3_column_double(st, 2), q1 = store_real(st, 3), q3 = store_real(st, 4);
        out->wg[out->n][0] = x, out->wg[out->n][1] = y;
        out->median[out->n] = med;
        out->noise[out->n] = isnan(q1) || isnan(q3) ? NAN : (q3 - q1) / med;
        out->samples[out->n] = sqlite3_column_int(st, 6);
        out->n++;
    }
    sqlite3_finalize(st);
    for (int i = 0; i < nother; i++) out->skipped += !shape_in(out->wg, out->n, other[i][0], other[i][1]);
    free(other);
    if (rc != SQLITE_DONE) {
        replay_free(out);
        return -1;
    }
    return 0;
}

void replay_free(struct replay_table *t) {
    free(t->wg);
    free(t->median);
    free(t->noise);
    free(t->samples);
    memset(t, 0, sizeof *t);
}

double replay_eval(void *table, const unsigned wg[2], double *noise) {
    const struct replay_table *t = table;
    for (int i = 0; i < t->n; i++)
        if (t->wg[i][0] == wg[0] && t->wg[i][1] == wg[1]) {
            if (noise) *noise = t->noise[i];
            return t->median[i];
        }
    return -1;
}

int store_tune_prior_rows(struct store *s, const char *app, const char *not_fingerprint, const char *not_input,
                          tune_prior_row_fn fn, void *ctx) {
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT d.fingerprint, c.input, m.iters, c.knobs, c.wg_x, c.wg_y, m.median_s"
                      " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
                      " JOIN device d ON d.id = r.device_id"
                      " WHERE c.app = ?1 AND m.status = 'ok' AND m.median_s > 0"
                      " AND NOT (d.fingerprint = ?2 AND c.input = ?3)";
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, app, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, not_fingerprint, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, not_input, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned wg[2] = {(unsigned)sqlite3_column_int64(st, 4), (unsigned)sqlite3_column_int64(st, 5)};
        fn(ctx, store_text(st, 0), store_text(st, 1), (long)sqlite3_column_int64(st, 2), store_text(st, 3), wg,
           sqlite3_column_double(st, 6));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
