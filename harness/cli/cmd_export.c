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
 * seconds of every repetition; there is no compilation time to report.
 * A configuration is the knobs (as tuners write their parameters) and the
 * work-group shape as block_size_x/block_size_y, Kernel Tuner's names.
 * Energy and power are measurements where the device reported them.
 * The tuned table's decisions go into metadata.tuned (each with its
 * configuration, objective and search), and every result that is one of
 * them says "tuned": true (an extra key; T4 allows them). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "store/store.h"
#include "store/store_export.h"

static void export_usage(FILE *out) {
    fprintf(out,
            "usage: harness export --format csv|t4 [--db PATH] [--app A] [--device D]\n"
            "                      [--input I] [--variant V] [--out FILE]\n"
            "\n"
            "Writes every stored measurement that matches, oldest first.\n"
            "\n"
            "  --format F  csv: one row per measurement (tuned: 1 for the configuration or shape\n"
            "              the tuned table holds for its device and input); t4: the T4 autotuning\n"
            "              results JSON (configuration: the knobs and block_size_x/block_size_y;\n"
            "              the tuned decisions in metadata.tuned, their results \"tuned\": true)\n"
            "  --db PATH   results database (default %s; HARNESS_DB overrides); never created\n"
            "  --app, --input, --variant   only these, as stored (gen:32x32 is stored as gen-32x32)\n"
            "  --device D  only this device: a spec (opencl:0.0) or a fingerprint\n"
            "  --out FILE  write there instead of standard output\n",
            store_default_path());
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

static void csv_column(FILE *out, const struct export_value *v) {
    switch (v->kind) {
    case EXPORT_NULL: return;
    case EXPORT_INT: fprintf(out, "%lld", (long long)v->i); return;
    case EXPORT_REAL: put_double(out, v->d); return;
    default: break;
    }
    if (v->s) csv_field(out, v->s);
}

/* r, or NULL after a message when the read could not start. */
static struct export_rows *checked(struct store_reader *x, struct export_rows *r) {
    if (!r) fprintf(stderr, "harness export: not a harness results database? %s\n", store_reader_errmsg(x));
    return r;
}

static int export_csv(struct store_reader *x, const struct export_filter *f, FILE *out) {
    struct export_rows *r = checked(x, store_export_measurements(x, f));
    if (!r) return -1;
    struct export_value row[EXPORT_MAX_COLUMNS];
    int n = store_export_columns(r), rc;
    for (int i = 0; i < n; i++) fprintf(out, "%s%s", i ? "," : "", store_export_column_name(r, i));
    fputc('\n', out);
    int rows = 0;
    while ((rc = store_export_next(r, row)) > 0) {
        for (int i = 0; i < n; i++) {
            if (i) fputc(',', out);
            csv_column(out, &row[i]);
        }
        fputc('\n', out);
        rows++;
    }
    if (rc < 0) fprintf(stderr, "harness export: %s\n", store_reader_errmsg(x));
    store_export_rows_close(r);
    return rc < 0 ? -1 : rows;
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

static void json_col(FILE *out, const struct export_value *v) {
    switch (v->kind) {
    case EXPORT_NULL: fputs("null", out); break;
    case EXPORT_INT: fprintf(out, "%lld", (long long)v->i); break;
    case EXPORT_REAL:
        if (isfinite(v->d)) put_double(out, v->d);
        else fputs("null", out);
        break;
    default: json_str(out, v->s); break;
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

/* {"block_size_x": X, "block_size_y": Y, knob: value, ...}; knobs may be NULL. */
static void t4_configuration(FILE *out, const char *knobs, int64_t x, int64_t y) {
    fprintf(out, "{\"block_size_x\": %lld, \"block_size_y\": %lld", (long long)x, (long long)y);
    if (knobs) json_knobs(out, knobs);
    fputc('}', out);
}

static void t4_status(const char *status, const char **invalidity, int *correct) {
    static const char *const map[][2] = {
        {"ok", "correct"},          {"wrong", "correctness"},     {"unverified", "correctness"},
        {"invalid", "constraints"}, {"compile-error", "compile"}, {"runtime-error", "runtime"},
        {"crashed", "runtime"},     {"timeout", "timeout"},
    };
    *invalidity = "runtime"; /* a status this file does not know went wrong somewhere */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(status, map[i][0])) *invalidity = map[i][1];
    *correct = !strcmp(status, "ok");
}

/* One {"name","value","unit"} when the column is not NULL; *first tracks commas. */
static void t4_measure(FILE *out, int *first, const char *name, const struct export_value *v, const char *unit) {
    if (v->kind == EXPORT_NULL) return;
    fprintf(out, "%s\n        {\"name\": ", *first ? "" : ",");
    *first = 0;
    json_str(out, name);
    fputs(", \"value\": ", out);
    json_col(out, v);
    fputs(", \"unit\": ", out);
    json_str(out, unit);
    fputc('}', out);
}

/* times.runtimes from measurement id's samples; their measurements entries
 * (each with a leading comma) into meas. 0, or -1 on an error. */
static int t4_samples(FILE *out, struct store_reader *x, int64_t id, struct strbuf *meas) {
    struct export_rows *r = store_export_samples(x, id);
    if (!r) return -1;
    struct export_value row[3];
    int rc, n = 0;
    while ((rc = store_export_next(r, row)) > 0) {
        for (int c = 0; c < 2; c++) {
            if (row[c + 1].kind == EXPORT_NULL) continue;
            char v[40];
            fmt_double(v, row[c + 1].d);
            if (!c) fprintf(out, "%s%s", n++ ? ", " : "", v);
            sb_printf(meas, ",\n        {\"name\": \"%s\", \"value\": %s, \"unit\": \"s\", \"rep\": %lld}",
                      c ? "device_time_sample" : "time_sample", v, (long long)row[0].i);
        }
    }
    store_export_rows_close(r);
    return rc < 0 ? -1 : 0;
}

static int t4_result(FILE *out, struct store_reader *x, const struct export_value *m) {
    const char *invalidity;
    int correct;
    t4_status(m[X_STATUS].s, &invalidity, &correct);
    fputs("    {\n      \"timestamp\": ", out);
    json_col(out, &m[X_WHEN]);
    fputs(",\n      \"configuration\": ", out);
    t4_configuration(out, m[X_KNOBS].s, m[X_WGX].i, m[X_WGY].i);
    fputs(",\n      \"objectives\": [\"time\"],\n      \"times\": {\"runtimes\": [", out);
    /* The samples are read once into a buffer: they go both into
     * times.runtimes and into measurements. */
    struct strbuf meas = {0};
    int rc = t4_samples(out, x, m[X_ID].i, &meas);
    fprintf(out,
            "]},\n      \"invalidity\": \"%s\",\n      \"correctness\": %d,\n"
            "      \"measurements\": [",
            invalidity, correct);
    int first = 1;
    t4_measure(out, &first, "time", &m[X_MEDIAN], "s");
    t4_measure(out, &first, "time_q1", &m[X_Q1], "s");
    t4_measure(out, &first, "time_q3", &m[X_Q3], "s");
    t4_measure(out, &first, "device_time", &m[X_DEVMED], "s");
    t4_measure(out, &first, "mlups", &m[X_MLUPS], "MLUPS");
    t4_measure(out, &first, "gbs", &m[X_GBS], "GB/s");
    t4_measure(out, &first, "max_rel_err", &m[X_RELERR], "");
    t4_measure(out, &first, "result", &m[X_RESULT], "");
    t4_measure(out, &first, "energy", &m[X_ENERGY], "J");
    t4_measure(out, &first, "power", &m[X_POWER], "W");
    if (meas.s) fputs(meas.s + (first ? 1 : 0), out); /* drop the leading comma if alone */
    sb_free(&meas);
    /* Beyond T4 (extra keys are allowed): which measurement, where, what. */
    static const struct {
        const char *key;
        int col;
    } extra[] = {
        {"measurement_id", X_ID}, {"device", X_DEVICE}, {"fingerprint", X_FP}, {"app", X_APP},     {"input", X_INPUT},
        {"variant", X_VARIANT},   {"status", X_STATUS}, {"reason", X_REASON},  {"iters", X_ITERS}, {"reps", X_REPS},
    };
    fputs("\n      ]", out);
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        fprintf(out, ",\n      \"%s\": ", extra[i].key);
        json_col(out, &m[extra[i].col]);
    }
    fprintf(out, ",\n      \"tuned\": %s\n    }", m[X_TUNED].i ? "true" : "false");
    return rc;
}

/* metadata.environment, as in the T4 metadata schema: every device and host
 * the exported measurements ran on. */
static int t4_environment(FILE *out, struct store_reader *x, const struct export_filter *f) {
    static const char *const name[2] = {"devices", "hosts"};
    static const char *const keys[2][6] = {
        {"spec", "name", "vendor", "driver", "backend", "fingerprint"},
        {"hostname", "os", "cpu"},
    };
    fputs("    \"environment\": {", out);
    for (int t = 0; t < 2; t++) {
        struct export_rows *r = checked(x, t ? store_export_hosts(x, f) : store_export_devices(x, f));
        if (!r) return -1;
        fprintf(out, "%s\n      \"%s\": [", t ? "," : "", name[t]);
        struct export_value row[EXPORT_MAX_COLUMNS];
        int rc, n = 0;
        while ((rc = store_export_next(r, row)) > 0) {
            fprintf(out, "%s\n        {", n++ ? "," : "");
            for (int i = 0; i < store_export_columns(r); i++) {
                fprintf(out, "%s\"%s\": ", i ? ", " : "", keys[t][i]);
                json_col(out, &row[i]);
            }
            fputc('}', out);
        }
        store_export_rows_close(r);
        if (rc < 0) return -1;
        fputs("\n      ]", out);
    }
    fputs("\n    }", out);
    return 0;
}

/* metadata.tuned: the tuned table's decisions for the filter. A
 * configuration (variant tuned) has its knobs in its configuration; a
 * shape-only row's knobs are its variant's, which the database does not
 * hold, so its configuration is the shape and "variant" names the rest. */
static int t4_tuned(FILE *out, struct store_reader *x, const struct export_filter *f) {
    fputs("    \"tuned\": [", out);
    struct export_rows *r = store_export_tuned(x, f);
    int rc = 0, n = 0;
    if (r) {
        struct export_value t[EXPORT_MAX_COLUMNS];
        static const struct {
            const char *key;
            int col;
        } keys[] = {{"device", XT_SPEC},         {"fingerprint", XT_FP},    {"app", XT_APP},
                    {"input", XT_INPUT},         {"variant", XT_VARIANT},   {"config", XT_CONFIG},
                    {"objective", XT_OBJECTIVE}, {"strategy", XT_STRATEGY}, {"evaluations", XT_EVALS},
                    {"search_s", XT_SEARCH},     {"median_s", XT_MEDIAN},   {"margin", XT_MARGIN},
                    {"noise", XT_NOISE},         {"samples", XT_SAMPLES},   {"energy_j", XT_ENERGY},
                    {"decided_at", XT_DECIDED}};
        while ((rc = store_export_next(r, t)) > 0) {
            fprintf(out, "%s\n      {\"configuration\": ", n++ ? "," : "");
            t4_configuration(out, t[XT_KNOBS].kind == EXPORT_NULL ? NULL : t[XT_KNOBS].s, t[XT_WGX].i, t[XT_WGY].i);
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
                fprintf(out, ", \"%s\": ", keys[i].key);
                json_col(out, &t[keys[i].col]);
            }
            fprintf(out, ", \"tie\": %s}", t[XT_TIE].i ? "true" : "false");
        }
        store_export_rows_close(r);
    }
    fputs(n ? "\n    ]" : "]", out);
    return rc < 0 ? -1 : 0;
}

static int export_t4(struct store_reader *x, const struct export_filter *f, FILE *out) {
    char now[32];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(out,
            "{\n  \"schema_version\": \"1.0.0\",\n  \"metadata\": {\n"
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
    if (t4_environment(out, x, f) != 0) return -1;
    fputs(",\n", out);
    if (t4_tuned(out, x, f) != 0) return fprintf(stderr, "harness export: %s\n", store_reader_errmsg(x)), -1;
    fputs("\n  },\n  \"results\": [", out);
    struct export_rows *m = checked(x, store_export_measurements(x, f));
    if (!m) return -1;
    struct export_value row[EXPORT_MAX_COLUMNS];
    int rc, n = 0, bad = 0;
    while (!bad && (rc = store_export_next(m, row)) > 0) {
        fputs(n++ ? ",\n" : "\n", out);
        bad = t4_result(out, x, row) != 0;
    }
    if (!bad && rc < 0) bad = 1;
    if (bad) fprintf(stderr, "harness export: %s\n", store_reader_errmsg(x));
    store_export_rows_close(m);
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
    return bad ? -1 : n;
}

int cmd_export(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"db", required_argument, NULL, 'd'},
        {"app", required_argument, NULL, 'a'},
        {"device", required_argument, NULL, 'D'},
        {"input", required_argument, NULL, 'i'},
        {"variant", required_argument, NULL, 'v'},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format = NULL, *db_path = NULL, *out_path = NULL;
    struct export_filter f = {0};
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
    struct store_reader *x = store_reader_open_cmd("export", db_path);
    if (!x) return cli_reader_failed(db_path);
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    if (!out) {
        perror(out_path);
        store_reader_close(x);
        return EXIT_FOUND;
    }
    const int rows = t4 ? export_t4(x, &f, out) : export_csv(x, &f, out);
    int rc = rows < 0 ? -1 : 0;
    if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
        perror(out_path ? out_path : "stdout");
        rc = -1;
    }
    if (rc != 0 && out_path) fprintf(stderr, "harness export: %s is incomplete\n", out_path);
    store_reader_close(x);
    /* An empty result is valid output (a header, an empty list), but a
     * filter that matches nothing is said so and is not a success. */
    if (rc == 0 && rows == 0) {
        fprintf(stderr, "harness export: no measurements%s%s%s%s%s%s%s%s%s in %s\n", f.app ? " of " : "",
                f.app ? f.app : "", f.device ? " on " : "", f.device ? f.device : "", f.input ? ", input " : "",
                f.input ? f.input : "", f.variant ? ", variant " : "", f.variant ? f.variant : "",
                f.input && strchr(f.input, ':') ? " (inputs are stored with '-' for ':', gen-64x64)" : "", db_path);
        return EXIT_FOUND;
    }
    return rc == 0 ? EXIT_OK : EXIT_FOUND;
}
