#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "base/util.h"
#include "core/devset.h"
#include "core/progress.h"
#include "core/worker.h"
#include "store/store.h"
#include "track/burn_in.h"
#include "track/host_check.h"

static int devices_pick(const char *specs, struct device_pick *out, int kinds_optional) {
    memset(out, 0, sizeof *out);
    char notes[8][256];
    int nnotes = 0;
    out->n = devices_all(&out->all, notes, 8, &nnotes);
    /* Once per process: a command that lists devices again and again (a
     * confirmation per series) says a backend is missing once. */
    static int noted;
    for (int i = 0; i < nnotes && !noted && !harness_quiet; i++) fprintf(stderr, "note: %s (skipped)\n", notes[i]);
    noted = 1;
    char *list = xstrdup(specs ? specs : "all");
    int rc = 0;
    for (char *save = NULL, *spec = strtok_r(list, ",", &save); spec; spec = strtok_r(NULL, ",", &save)) {
        int idx[CLI_MAX_DEVICES];
        char why[512];
        int found = devices_resolve(&out->all, &out->n, spec, idx, CLI_MAX_DEVICES, why, sizeof why);
        if (found < 0) { /* a malformed device set: what is wrong with it */
            fprintf(stderr, "harness: %s\n", why);
            rc = EXIT_USAGE;
            break;
        }
        if (!found && kinds_optional && (!strcmp(spec, "gpu") || !strcmp(spec, "cpu"))) continue;
        if (!found) {
            fprintf(stderr, "harness: no device matches '%s'; present:", spec);
            for (int i = 0; i < out->n; i++) fprintf(stderr, " %s", out->all[i].spec);
            fprintf(stderr, "%s\n", out->n ? "" : " none");
            rc = EXIT_USAGE;
            break;
        }
        for (int f = 0; f < found; f++) {
            int dup = 0;
            for (int j = 0; j < out->count; j++) dup |= out->idx[j] == idx[f];
            if (!dup && out->count < CLI_MAX_DEVICES) out->idx[out->count++] = idx[f];
        }
    }
    free(list);
    if (!rc && !out->count && !kinds_optional) {
        fprintf(stderr, "harness: no devices present\n");
        rc = EXIT_USAGE;
    }
    /* A failed pick owns nothing: callers return at once on rc and never
     * free it (LSan found the list leaked on `peak --device nope`). */
    if (rc) cli_devices_free(out);
    return rc;
}

int cli_devices(const char *specs, struct device_pick *out) { return devices_pick(specs, out, 0); }
int cli_devices_kinds_optional(const char *specs, struct device_pick *out) { return devices_pick(specs, out, 1); }

void cli_devices_free(struct device_pick *p) {
    free(p->all);
    memset(p, 0, sizeof *p);
}

/* The chosen devices of a pick, in order, as one array (malloc'd). */
static struct device_info *chosen(const struct device_pick *p) {
    struct device_info *d = xcalloc((size_t)p->count + 1, sizeof *d);
    for (int i = 0; i < p->count; i++) d[i] = p->all[p->idx[i]];
    return d;
}

int cli_burn_in(const char *specs, double min_s, double max_s, FILE *log) {
    struct device_pick pick;
    if (cli_devices(specs, &pick) != 0) return 1;
    struct device_info *devs = chosen(&pick);
    const int unsettled = burn_in_devices(devs, pick.count, min_s, max_s, log);
    free(devs);
    cli_devices_free(&pick);
    return unsettled;
}

void cli_host_check(struct store *s, const char *specs, int canaries, struct host_check *out) {
    struct device_pick pick = {0};
    struct device_info *devs = canaries && cli_devices(specs, &pick) == 0 ? chosen(&pick) : NULL;
    host_check(s, devs, devs ? pick.count : 0, out);
    free(devs);
    cli_devices_free(&pick);
}

const struct app *cli_app(const char *name) {
    const struct app *app = app_find(name);
    if (!app) {
        fprintf(stderr, "harness: unknown app '%s'; apps:", name);
        for (int i = 0; apps[i]; i++) fprintf(stderr, " %s", apps[i]->name);
        fprintf(stderr, "\n");
    }
    return app;
}

int cli_input_at_time(const struct app *app, const char **input, double t, long iters, char *buf, size_t n) {
    if (!app->input_at_time) {
        fprintf(stderr, "harness: --time: the %s app runs a count of steps (--iters), not to a time\n", app->name);
        return EXIT_USAGE;
    }
    if (iters > 0) {
        fprintf(stderr, "harness: --time and --iters both fix how far a run goes: give one\n");
        return EXIT_USAGE;
    }
    char err[ERR_MAX];
    if (app->input_at_time(*input, t, buf, n, err, sizeof err) != 0) {
        fprintf(stderr, "harness: --time: %s\n", err);
        return EXIT_USAGE;
    }
    *input = buf;
    return 0;
}

static int add(struct variant_list *out, const struct variant *v) {
    out->v = realloc(out->v, sizeof *out->v * (size_t)(out->n + 1));
    if (!out->v) abort();
    out->v[out->n++] = *v;
    return 0;
}

static int variants_pick(const struct app *app, const char *names, const char *knobs, int tuned_ok,
                         struct variant_list *out) {
    char err[ERR_MAX];
    out->v = NULL;
    out->n = 0;
    struct variant_list file;
    if (variants_load_app(app->name, app->knobs, &file, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return EXIT_USAGE;
    }
    int rc = 0;
    if (!names) {
        struct variant v = {.name = "custom"};
        knobs_init(&v.knobs, app->knobs);
        if (!knobs) str_copy(v.name, sizeof v.name, "final");
        const struct variant *fin = variant_find(&file, "final");
        if (!knobs && fin) v = *fin;
        add(out, &v);
    } else {
        char *list = xstrdup(names);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name && !rc; name = strtok_r(NULL, ",", &save)) {
            if (!strcmp(name, "all")) {
                for (int i = 0; i < file.n; i++) add(out, &file.v[i]);
                continue;
            }
            if (!strcmp(name, TUNED_VARIANT)) {
                if (!tuned_ok) {
                    fprintf(stderr,
                            "harness: variant '%s' (each device's stored configuration) is taken by run,"
                            " sweep, nightly and report, not here\n",
                            name);
                    rc = EXIT_USAGE;
                    break;
                }
                if (knobs) {
                    fprintf(stderr,
                            "harness: --knobs cannot change variant '%s': the stored configuration is what"
                            " it runs (harness best lists them)\n",
                            name);
                    rc = EXIT_USAGE;
                    break;
                }
                struct variant t;
                variant_tuned_placeholder(&t, app->knobs);
                add(out, &t);
                continue;
            }
            const struct variant *v = variant_find(&file, name);
            if (!v) {
                fprintf(stderr, "harness: unknown variant '%s' for %s; known:", name, app->name);
                for (int i = 0; i < file.n; i++) fprintf(stderr, " %s", file.v[i].name);
                fprintf(stderr, "%s\n", tuned_ok ? " " TUNED_VARIANT : "");
                rc = EXIT_USAGE;
                break;
            }
            add(out, v);
        }
        free(list);
    }
    for (int i = 0; i < out->n && knobs && !rc; i++) {
        if (knobs_apply(&out->v[i].knobs, knobs, err, sizeof err) != 0) {
            fprintf(stderr, "harness: --knobs: %s\n", err);
            rc = EXIT_USAGE;
        } else if (names) {
            /* A named variant changed by --knobs is no longer that variant. */
            char renamed[64];
            str_fmt(renamed, sizeof renamed, "%s+", out->v[i].name);
            str_copy(out->v[i].name, sizeof out->v[i].name, renamed);
        }
    }
    variants_free(&file);
    if (rc) variants_free(out);
    return rc;
}

int cli_variants(const struct app *app, const char *names, const char *knobs, struct variant_list *out) {
    return variants_pick(app, names, knobs, 0, out);
}

int cli_variants_tuned(const struct app *app, const char *names, const char *knobs, struct variant_list *out) {
    return variants_pick(app, names, knobs, 1, out);
}

void cli_command_line(int argc, char **argv, char *buf, size_t n) {
    struct strbuf b = {0};
    sb_printf(&b, "harness");
    for (int i = 0; i < argc; i++) sb_printf(&b, " %s", argv[i]);
    str_copy(buf, n, b.s);
    sb_free(&b);
}

int cli_alpha(const char *cmd, const char *arg, double *out) {
    double v;
    if (parse_real(arg, 0, 1, &v) || v == 0 || v == 1)
        return fprintf(stderr, "harness %s: --alpha %s: want 0 < P < 1\n", cmd, arg), EXIT_USAGE;
    *out = v;
    return 0;
}

int cli_target(const char *cmd, const char *arg, double *out) {
    double v;
    if (parse_real(arg, 0, 100, &v) || (v > 0 && v < 1))
        return fprintf(stderr, "harness %s: --target %s: want a percentage in 1..100 (or 0: never inconclusive)\n",
                       cmd, arg),
               EXIT_USAGE;
    *out = v / 100;
    return 0;
}

int cli_max_time(const char *cmd, const char *arg, double *out) {
    if (parse_real(arg, 0, 1e6, out))
        return fprintf(stderr, "harness %s: --max-time %s: want seconds >= 0\n", cmd, arg), EXIT_USAGE;
    return 0;
}

int cli_min_effect(const char *cmd, const char *arg, double *out) {
    double v;
    if (parse_real(arg, 0, 10, &v) || v == 10)
        return fprintf(stderr, "harness %s: --min-effect %s: want a fraction such as 0.03\n", cmd, arg), EXIT_USAGE;
    *out = v;
    return 0;
}

int cli_shard(const char *text, int *shard, int *shards) {
    char *k_text = xstrdup(text), *slash = strchr(k_text, '/');
    long k, n;
    int rc = -1;
    if (slash) {
        *slash = '\0';
        if (!parse_whole(slash + 1, 1, INT_MAX, &n) && !parse_whole(k_text, 0, n - 1, &k)) {
            *shard = (int)k;
            *shards = (int)n;
            rc = 0;
        }
    }
    free(k_text);
    return rc;
}

int cli_store_to_look(const char *cmd, const char *db, struct store **out) {
    *out = NULL;
    if (!db) db = store_default_path();
    if (access(db, F_OK) != 0) {
        fprintf(stderr, "no results yet: %s\n", db);
        return EXIT_FOUND; /* nothing to show: exit 1, as every command that reads a database */
    }
    char err[ERR_MAX];
    /* The file is there but is not ours (or not a database): bad input, 2. */
    if (!(*out = store_open(db, err, sizeof err))) return fprintf(stderr, "harness %s: %s\n", cmd, err), EXIT_USAGE;
    return EXIT_OK;
}

int cli_reader_failed(const char *db) { return db && access(db, F_OK) == 0 ? EXIT_USAGE : EXIT_FOUND; }

void cli_unstored(struct cli_unstored *u, const char *spec, const char *variant, const char *err) {
    if (!u->count++) str_copy(u->first, sizeof u->first, err);
    fprintf(stderr, "harness: NOT STORED: %s %s: %s; stopping\n", spec, variant, err);
    harness_interrupted = 1;
}
