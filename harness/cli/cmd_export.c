#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* `harness export`: measurements as CSV (one row per measurement, every
 * column a reader needs to tell runs apart) or as a T4 results document, the
 * JSON that Kernel Tuner, KTT and BAT exchange
 * (https://github.com/odgaard/TuningSchema, results-schema.json 1.0.0).
 *
 * T4 mapping (our status -> invalidity, correctness):
 *   ok                      -> "correct",     1
 *   wrong                   -> "correctness", 0  (ran, failed verification)
 *   unverified              -> "correctness", 0  (never checked: emptied kernels
 *                              are fast and meaningless, so a T4 reader picking
 *                              the best valid config must not pick them)
 *   invalid                 -> "constraints", 0  (refused before running: limits, shape)
 *   compile-error           -> "compile",     0
 *   runtime-error, crashed  -> "runtime",     0
 *   timeout                 -> "timeout",     0
 * Times are in seconds everywhere (Kernel Tuner writes ms; T4 fixes no unit,
 * so every measurement carries its own). times.runtimes holds the host-clock
 * seconds of every repetition; there is no compilation time to report. */
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "util.h"

struct filter {
    const char *app, *device, *input, *variant;
};

static void export_usage(FILE *out) {
    fprintf(out,
            "usage: harness export --format csv|t4 [--db PATH] [--app A] [--device D]\n"
            "                      [--input I] [--variant V] [--out FILE]\n"
            "\n"
            "Writes every stored measurement that matches, oldest first.\n"
            "\n"
            "  --format F  csv: one row per measurement; t4: the T4 autotuning results JSON\n"
            "  --db PATH   results database (default %s; HARNESS_DB overrides); never created\n"
            "  --app, --input, --variant   only these, as stored (gen:32x32 is stored as gen-32x32)\n"
            "  --device D  only this device: a spec (opencl:0.0) or a fingerprint\n"
            "  --out FILE  write there instead of standard output\n",
            store_default_path());
}

/* Every measurement with its context, one place for CSV, T4 and their
 * filters. The aliases are the CSV header. %s is the variant expression:
 * databases from before schema v2 have no measurement.variant. */
static const char export_cte[] =
    "WITH x AS (SELECT m.id AS id, m.created_at AS created_at, h.hostname AS host,"
    " h.os AS host_os, h.cpu AS host_cpu,"
    " d.spec AS device, d.name AS device_name, d.vendor AS device_vendor,"
    " d.fingerprint AS fingerprint, d.driver AS driver, d.backend AS backend,"
    " b.git_commit AS build_commit, b.dirty AS dirty, c.app AS app, c.input AS input,"
    " %s AS variant, c.knobs AS knobs, c.wg_x AS wg_x, c.wg_y AS wg_y, m.status AS status,"
    " m.reason AS reason, m.iters AS iters, m.iters_full AS iters_full, m.scaled AS scaled,"
    " m.reps AS reps, m.median_s AS median_s, m.q1_s AS q1_s, m.q3_s AS q3_s,"
    " m.device_median_s AS device_median_s, m.mlups AS mlups, m.gbs AS gbs,"
    " m.max_rel_err AS max_rel_err, m.result AS result"
    " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
    " JOIN host h ON h.id = r.host_id JOIN device d ON d.id = r.device_id"
    " JOIN build b ON b.id = r.build_id)"
    " SELECT %s FROM x WHERE (?1 IS NULL OR app = ?1)"
    " AND (?2 IS NULL OR device = ?2 OR fingerprint = ?2)"
    " AND (?3 IS NULL OR input = ?3) AND (?4 IS NULL OR variant = ?4) %s";

static const char csv_columns[] =
    "id, created_at, host, device, device_name, fingerprint, driver, backend, build_commit,"
    " dirty, app, input, variant, knobs, wg_x, wg_y, status, reason, iters, iters_full, scaled,"
    " reps, median_s, q1_s, q3_s, device_median_s, mlups, gbs, max_rel_err, result";
/* Indices into csv_columns, for the T4 writer. */
enum { X_ID, X_WHEN, X_HOST, X_DEVICE, X_NAME, X_FP, X_DRIVER, X_BACKEND, X_COMMIT, X_DIRTY,
       X_APP, X_INPUT, X_VARIANT, X_KNOBS, X_WGX, X_WGY, X_STATUS, X_REASON, X_ITERS,
       X_ITERS_FULL, X_SCALED, X_REPS, X_MEDIAN, X_Q1, X_Q3, X_DEVMED, X_MLUPS, X_GBS,
       X_RELERR, X_RESULT };

static int has_variant_column(sqlite3 *db) {
    sqlite3_stmt *st = NULL;
    int yes = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('measurement')"
                                     " WHERE name = 'variant'", -1, &st, NULL) == SQLITE_OK &&
              sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* SELECT cols FROM the filtered measurements, then tail (ORDER BY ...). */
static sqlite3_stmt *prepare_filtered(sqlite3 *db, const struct filter *f, const char *cols,
                                      const char *tail) {
    struct strbuf sql = {0};
    sb_printf(&sql, export_cte, has_variant_column(db) ? "COALESCE(m.variant, c.variant)"
                                                       : "c.variant", cols, tail);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql.s, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "harness export: not a harness results database? %s\n", sqlite3_errmsg(db));
        st = NULL;
    } else {
        const char *v[4] = {f->app, f->device, f->input, f->variant};
        for (int i = 0; i < 4; i++)
            if (v[i]) sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_TRANSIENT);
    }
    sb_free(&sql);
    return st;
}

/* The shortest %g that reads back as the same double, so values round-trip
 * exactly without 0.10000000000000001 noise. */
static const char *fmt_double(char buf[40], double v) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

static void put_double(FILE *out, double v) {
    char buf[40];
    fputs(fmt_double(buf, v), out);
}

/* ---- CSV (RFC 4180 quoting; NULL is an empty field) ---- */

static void csv_column(FILE *out, sqlite3_stmt *st, int i) {
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: return;
    case SQLITE_INTEGER: fprintf(out, "%lld", (long long)sqlite3_column_int64(st, i)); return;
    case SQLITE_FLOAT: put_double(out, sqlite3_column_double(st, i)); return;
    default: break;
    }
    const char *v = (const char *)sqlite3_column_text(st, i);
    if (v) csv_field(out, v);
}

static int export_csv(sqlite3 *db, const struct filter *f, FILE *out) {
    sqlite3_stmt *st = prepare_filtered(db, f, csv_columns, "ORDER BY id");
    if (!st) return -1;
    int n = sqlite3_column_count(st), rc;
    for (int i = 0; i < n; i++) fprintf(out, "%s%s", i ? "," : "", sqlite3_column_name(st, i));
    fputc('\n', out);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            if (i) fputc(',', out);
            csv_column(out, st, i);
        }
        fputc('\n', out);
    }
    if (rc != SQLITE_DONE) fprintf(stderr, "harness export: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- JSON by hand ---- */

/* A JSON string: quotes, backslashes and control characters escaped; bytes
 * that are not valid UTF-8 (a compiler log can hold anything) become U+FFFD
 * so the document always parses. */
static void json_str(FILE *out, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', out);
    while (*p) {
        unsigned c = *p;
        if (c < 0x80) {
            if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
            else if (c == '\n') fputs("\\n", out);
            else if (c == '\t') fputs("\\t", out);
            else if (c < 0x20) fprintf(out, "\\u%04x", c);
            else fputc((int)c, out);
            p++;
            continue;
        }
        /* Lead byte -> sequence length (overlongs and surrogates rejected). */
        int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        int okay = len > 0;
        for (int k = 1; okay && k < len; k++) okay = (p[k] & 0xc0) == 0x80;
        if (okay && len == 3) okay = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
        if (okay && len == 4) okay = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
        if (!okay) {
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        fwrite(p, 1, (size_t)len, out);
        p += len;
    }
    fputc('"', out);
}

static void json_col(FILE *out, sqlite3_stmt *st, int i) {
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: fputs("null", out); break;
    case SQLITE_INTEGER: fprintf(out, "%lld", (long long)sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(st, i);
        if (isfinite(v)) put_double(out, v);
        else fputs("null", out);
        break;
    }
    default: json_str(out, (const char *)sqlite3_column_text(st, i)); break;
    }
}

/* A knob value that is a whole number is a number in the configuration,
 * as tuners write their parameters; anything else is a string. */
static void json_knob_value(FILE *out, const char *v) {
    const char *p = v + (*v == '-');
    int digits = *p != '\0' && strspn(p, "0123456789") == strlen(p) && strlen(p) < 16;
    if (digits) fputs(v, out);
    else json_str(out, v);
}

/* "layout=soa,kernels=fused" -> ,"layout":"soa","kernels":"fused" */
static void json_knobs(FILE *out, const char *knobs) {
    char *copy = xstrdup(knobs);
    for (char *save = NULL, *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = '\0';
        fputs(", ", out);
        json_str(out, kv);
        fputs(": ", out);
        json_knob_value(out, eq + 1);
    }
    free(copy);
}

static void t4_status(const char *status, const char **invalidity, int *correct) {
    static const char *const map[][2] = {
        {"ok", "correct"},         {"wrong", "correctness"},   {"unverified", "correctness"},
        {"invalid", "constraints"}, {"compile-error", "compile"}, {"runtime-error", "runtime"},
        {"crashed", "runtime"},     {"timeout", "timeout"},
    };
    *invalidity = "runtime"; /* a status this file does not know went wrong somewhere */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(status, map[i][0])) *invalidity = map[i][1];
    *correct = !strcmp(status, "ok");
}

/* One {"name","value","unit"} when the column is not NULL; *first tracks commas. */
static void t4_measure(FILE *out, int *first, const char *name, sqlite3_stmt *st, int i,
                       const char *unit) {
    if (sqlite3_column_type(st, i) == SQLITE_NULL) return;
    fprintf(out, "%s\n        {\"name\": ", *first ? "" : ",");
    *first = 0;
    json_str(out, name);
    fputs(", \"value\": ", out);
    json_col(out, st, i);
    fputs(", \"unit\": ", out);
    json_str(out, unit);
    fputc('}', out);
}

static int t4_result(FILE *out, sqlite3_stmt *m, sqlite3_stmt *samples) {
    const char *invalidity;
    int correct;
    t4_status((const char *)sqlite3_column_text(m, X_STATUS), &invalidity, &correct);
    fputs("    {\n      \"timestamp\": ", out);
    json_col(out, m, X_WHEN);
    fprintf(out, ",\n      \"configuration\": {\"wg_x\": %lld, \"wg_y\": %lld",
            (long long)sqlite3_column_int64(m, X_WGX), (long long)sqlite3_column_int64(m, X_WGY));
    json_knobs(out, (const char *)sqlite3_column_text(m, X_KNOBS));
    fputs("},\n      \"objectives\": [\"time\"],\n      \"times\": {\"runtimes\": [", out);
    /* The samples are read once into a buffer: they go both into
     * times.runtimes and into measurements. */
    struct strbuf meas = {0};
    sqlite3_reset(samples);
    sqlite3_bind_int64(samples, 1, sqlite3_column_int64(m, X_ID));
    int rc, n = 0;
    while ((rc = sqlite3_step(samples)) == SQLITE_ROW) {
        for (int c = 0; c < 2; c++) {
            if (sqlite3_column_type(samples, c + 1) == SQLITE_NULL) continue;
            char v[40];
            fmt_double(v, sqlite3_column_double(samples, c + 1));
            if (!c) fprintf(out, "%s%s", n++ ? ", " : "", v);
            sb_printf(&meas, ",\n        {\"name\": \"%s\", \"value\": %s, \"unit\": \"s\", \"rep\": %lld}",
                      c ? "device_time_sample" : "time_sample", v,
                      (long long)sqlite3_column_int64(samples, 0));
        }
    }
    fprintf(out, "]},\n      \"invalidity\": \"%s\",\n      \"correctness\": %d,\n"
                 "      \"measurements\": [", invalidity, correct);
    int first = 1;
    t4_measure(out, &first, "time", m, X_MEDIAN, "s");
    t4_measure(out, &first, "time_q1", m, X_Q1, "s");
    t4_measure(out, &first, "time_q3", m, X_Q3, "s");
    t4_measure(out, &first, "device_time", m, X_DEVMED, "s");
    t4_measure(out, &first, "mlups", m, X_MLUPS, "MLUPS");
    t4_measure(out, &first, "gbs", m, X_GBS, "GB/s");
    t4_measure(out, &first, "max_rel_err", m, X_RELERR, "");
    t4_measure(out, &first, "result", m, X_RESULT, "");
    if (meas.s) fputs(meas.s + (first ? 1 : 0), out); /* drop the leading comma if alone */
    sb_free(&meas);
    /* Beyond T4 (extra keys are allowed): which measurement, where, what. */
    static const struct { const char *key; int col; } extra[] = {
        {"measurement_id", X_ID}, {"device", X_DEVICE}, {"fingerprint", X_FP}, {"app", X_APP},
        {"input", X_INPUT},       {"variant", X_VARIANT}, {"status", X_STATUS}, {"reason", X_REASON},
        {"iters", X_ITERS},       {"reps", X_REPS},
    };
    fputs("\n      ]", out);
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        fprintf(out, ",\n      \"%s\": ", extra[i].key);
        json_col(out, m, extra[i].col);
    }
    fputs("\n    }", out);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* metadata.environment, as in the T4 metadata schema: every device and host
 * the exported measurements ran on. */
static int t4_environment(FILE *out, sqlite3 *db, const struct filter *f) {
    static const char *const q[2][2] = {
        {"devices", "DISTINCT device, device_name, device_vendor, driver, backend, fingerprint"},
        {"hosts", "DISTINCT host, host_os, host_cpu"},
    };
    static const char *const keys[2][6] = {
        {"spec", "name", "vendor", "driver", "backend", "fingerprint"},
        {"hostname", "os", "cpu"},
    };
    fputs("    \"environment\": {", out);
    for (int t = 0; t < 2; t++) {
        sqlite3_stmt *st = prepare_filtered(db, f, q[t][1], "ORDER BY 1");
        if (!st) return -1;
        fprintf(out, "%s\n      \"%s\": [", t ? "," : "", q[t][0]);
        int rc, n = 0;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            fprintf(out, "%s\n        {", n++ ? "," : "");
            for (int i = 0; i < sqlite3_column_count(st); i++) {
                fprintf(out, "%s\"%s\": ", i ? ", " : "", keys[t][i]);
                json_col(out, st, i);
            }
            fputc('}', out);
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) return -1;
        fputs("\n      ]", out);
    }
    fputs("\n    }", out);
    return 0;
}

static int export_t4(sqlite3 *db, const struct filter *f, FILE *out) {
    char now[32];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(out, "{\n  \"schema_version\": \"1.0.0\",\n  \"metadata\": {\n"
                 "    \"generator\": \"harness export --format t4\",\n"
                 "    \"exported_at\": \"%s\",\n    \"time_unit\": \"s\",\n    \"filters\": {",
            now);
    const char *fk[4] = {"app", "device", "input", "variant"};
    const char *fv[4] = {f->app, f->device, f->input, f->variant};
    for (int i = 0, n = 0; i < 4; i++) {
        if (!fv[i]) continue;
        fprintf(out, "%s\"%s\": ", n++ ? ", " : "", fk[i]);
        json_str(out, fv[i]);
    }
    fputs("},\n", out);
    if (t4_environment(out, db, f) != 0) return -1;
    fputs("\n  },\n  \"results\": [", out);
    sqlite3_stmt *m = prepare_filtered(db, f, csv_columns, "ORDER BY id"), *samples = NULL;
    if (!m) return -1;
    int rc = sqlite3_prepare_v2(db, "SELECT rep, seconds, device_seconds FROM sample"
                                    " WHERE measurement_id = ?1 ORDER BY rep", -1, &samples, NULL);
    int n = 0, bad = rc != SQLITE_OK;
    while (!bad && (rc = sqlite3_step(m)) == SQLITE_ROW) {
        fputs(n++ ? ",\n" : "\n", out);
        bad = t4_result(out, m, samples) != 0;
    }
    if (!bad && rc != SQLITE_DONE) bad = 1;
    if (bad) fprintf(stderr, "harness export: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(samples);
    sqlite3_finalize(m);
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
    return bad ? -1 : 0;
}

int cmd_export(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"db", required_argument, NULL, 'd'},
        {"app", required_argument, NULL, 'a'},    {"device", required_argument, NULL, 'D'},
        {"input", required_argument, NULL, 'i'},  {"variant", required_argument, NULL, 'v'},
        {"out", required_argument, NULL, 'o'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format = NULL, *db_path = NULL, *out_path = NULL;
    struct filter f = {0};
    int c;
    optind = 1; /* argv[0] is "export"; an earlier getopt may have moved optind */
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'd': db_path = optarg; break;
        case 'a': f.app = optarg; break;
        case 'D': f.device = optarg; break;
        case 'i': f.input = optarg; break;
        case 'v': f.variant = optarg; break;
        case 'o': out_path = optarg; break;
        case 'h': export_usage(stdout); return EXIT_OK;
        default: export_usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "harness export: unexpected argument '%s'\n", argv[optind]);
        export_usage(stderr);
        return EXIT_USAGE;
    }
    int t4 = format && !strcmp(format, "t4");
    if (!format || (!t4 && strcmp(format, "csv"))) {
        fprintf(stderr, "harness export: --format wants csv or t4%s%s%s\n", format ? ", not '" : "",
                format ? format : "", format ? "'" : "");
        export_usage(stderr);
        return EXIT_USAGE;
    }
    if (!db_path) db_path = store_default_path();
    /* Exporting must not create or migrate anything. */
    sqlite3 *db = store_open_readonly("export", db_path);
    if (!db) return EXIT_FOUND;
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    if (!out) {
        perror(out_path);
        sqlite3_close(db);
        return EXIT_FOUND;
    }
    int rc = t4 ? export_t4(db, &f, out) : export_csv(db, &f, out);
    if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
        perror(out_path ? out_path : "stdout");
        rc = -1;
    }
    if (rc != 0 && out_path) fprintf(stderr, "harness export: %s is incomplete\n", out_path);
    sqlite3_close(db);
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}
