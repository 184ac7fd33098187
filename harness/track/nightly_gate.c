/* nightly_gate.h. */
#include "track/nightly_gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store_nightly.h"
#include "store/store_quality.h"
#include "track/compare.h"
#include "track/confirm.h"
#include "track/kept_build.h"
#include "track/noise.h"
#include "track/steadiest.h"

static int load_night(struct store *s, int64_t id, const char *table, struct series_list *l, char *err, size_t errn) {
    char spec[48];
    str_fmt(spec, sizeof spec, "nightly:%lld", (long long)id);
    if (store_runset(s, spec, table, err, errn) <= 0) return -1;
    return series_load_runs(s, table, l, err, errn);
}

static int is_flag(const struct compare_row *r) { return r->v == V_REGRESSION || r->v == V_IMPROVEMENT; }

/* Did tonight's disturbance touch this device ("*": every one)? */
static int touched(const char *devices, const char *spec) {
    if (!devices || !*devices) return 0;
    if (!strcmp(devices, "*")) return 1;
    size_t n = strlen(spec);
    for (const char *p = devices; (p = strstr(p, spec)) != NULL; p += n)
        if ((p == devices || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Confirms every flagged and suspect row with both nights' kept builds. A
 * suspect (compare.h) is how a change of a few percent shows through the
 * night-to-night noise of one night against one night; the confirmation's
 * paired rounds decide it. */
static void confirm_flags(struct store *store, int64_t id, const char *hash_a, const char *hash_b,
                          struct compare_row *rows, int n, const struct gate_opts *o, struct gate_result *res,
                          FILE *out) {
    char dir_a[4096], bin_a[4096], dir_b[4096], bin_b[4096], err[ERR_MAX];
    if (kept_build_find(hash_a, dir_a, sizeof dir_a, bin_a, sizeof bin_a, err, sizeof err) != 0 ||
        kept_build_find(hash_b, dir_b, sizeof dir_b, bin_b, sizeof bin_b, err, sizeof err) != 0) {
        for (int i = 0; i < n; i++)
            if (compare_wants_confirmation(&rows[i]))
                str_fmt(rows[i].confirmation, sizeof rows[i].confirmation, "unconfirmed: %s", err);
        return;
    }
    struct confirm_series *cs = xcalloc((size_t)n + 1, sizeof *cs);
    struct strbuf devs = {0};
    const int k = confirm_from_rows(rows, n, id, cs, &devs);
    if (o->burn_in_s > 0 && o->burn_in) o->burn_in(devs.s, 2, o->burn_in_s, out);
    fprintf(out,
            "nightly: confirming %d flag%s, suspect%s and inconclusive series: build %s (last night) and %s"
            " (tonight), %d pairs of rounds%s\n",
            k, k == 1 ? "" : "s", k == 1 ? "" : "s", hash_a, hash_b, o->confirm_rounds,
            o->target > 0 && o->max_time_s > 0 ? ", more where a series cannot yet show the target" : "");
    fflush(out);
    struct confirm_opts co = {.a = {bin_a, dir_a},
                              .b = {bin_b, dir_b},
                              .build_a = hash_a,
                              .build_b = hash_b,
                              .rounds = o->confirm_rounds,
                              .source = "nightly",
                              .seed = (unsigned)(clock_now() * 1e3) ^ (unsigned)id,
                              .target = o->target,
                              .max_time_s = o->max_time_s};
    confirm_run(store, cs, k, &co);
    res->added_rounds = co.added_rounds;
    res->added_s = co.added_s;
    for (int i = 0, j = 0; i < n; i++) {
        if (!compare_wants_confirmation(&rows[i])) continue;
        char line[200];
        const int was_inconclusive = rows[i].v == V_INCONCLUSIVE;
        confirm_describe(&cs[j], line, sizeof line);
        compare_row_confirmation(&rows[i], line, cs[j].r.ratio, cs[j].r.n ? cs[j].detectable : NAN);
        res->settled += was_inconclusive && rows[i].v != V_INCONCLUSIVE;
        j++;
    }
    sb_free(&devs);
    free(cs);
}

/* Each series' verdict into the night's record; counts the suspects the
 * confirmation called noise and the inconclusive series. */
static void store_verdicts(struct store *store, int64_t id, const struct compare_row *rows, int n,
                           struct gate_result *res, FILE *out) {
    /* A suspect the confirmation called noise is listed with the noise; one it
     * confirmed is a change from here on (its verdict was set). */
    for (int i = 0; i < n; i++) {
        res->suspects_rejected += rows[i].v == V_SAME && rows[i].suspect && rows[i].rejected;
        res->inconclusive += rows[i].v == V_INCONCLUSIVE;
        const struct store_night_verdict v = {.series = rows[i].b->id.key,
                                              .verdict = verdict_name(rows[i].v),
                                              .measure = measure_name(rows[i].measure),
                                              .confirmation = rows[i].confirmation,
                                              .ratio = rows[i].r.ratio,
                                              .detectable = rows[i].detectable,
                                              .target = rows[i].target};
        char verr[256];
        if (store_nightly_verdict_put(store, id, &v, verr, sizeof verr) != 0)
            fprintf(out, "note: the verdict of %s was not stored: %s\n", rows[i].b->id.key, verr);
    }
}

/* The flags by what the confirmation made of them. Returns how many of
 * the unconfirmed ones are on devices tonight was disturbed on. */
static int tally_flags(const struct compare_row *rows, int n, const struct gate_opts *o, struct gate_result *res) {
    int on_disturbed = 0;
    for (int i = 0; i < n; i++) {
        if (!is_flag(&rows[i])) continue;
        int confirmed = !strncmp(rows[i].confirmation, "confirmed", 9);
        if (confirmed) {
            res->confirmed_regressions += rows[i].v == V_REGRESSION;
            res->confirmed_improvements += rows[i].v == V_IMPROVEMENT;
        } else if (!strncmp(rows[i].confirmation, "rejected", 8)) {
            res->rejected++;
        } else {
            res->unconfirmed++;
            on_disturbed += touched(o->disturbed_devices, rows[i].b->id.spec);
        }
    }
    return on_disturbed;
}

/* The night's closing lines: noise rejected, flags unconfirmed, rounds
 * added, series inconclusive, and what was confirmed. */
static void print_outcome(FILE *out, const struct gate_opts *o, const struct gate_result *res, int on_disturbed) {
    if (res->rejected)
        fprintf(out, "noise: %d flag%s rejected by the confirmation (figures above)\n", res->rejected,
                res->rejected == 1 ? "" : "s");
    if (res->suspects_rejected)
        fprintf(out, "noise: %d suspect%s rejected by the confirmation (figures above)\n", res->suspects_rejected,
                res->suspects_rejected == 1 ? "" : "s");
    if (res->unconfirmed)
        fprintf(out, "%d flag%s unconfirmed%s\n", res->unconfirmed, res->unconfirmed == 1 ? "" : "s",
                on_disturbed == res->unconfirmed
                    ? "; tonight was disturbed on their devices, so they are the host's, not the code's"
                : on_disturbed ? "; some on devices tonight was disturbed on: those are the host's"
                               : "");
    if (res->added_rounds)
        fprintf(out, "added rounds: %d pairs in %.0f s (budget %.0f s); %d inconclusive series settled\n",
                res->added_rounds, res->added_s, o->max_time_s, res->settled);
    if (res->inconclusive)
        fprintf(out,
                "inconclusive: %d series could not show a change of %.0f %% (the \"sees\" column): neither a"
                " regression nor the same; more rounds (--rounds, --max-time) or a quieter host would tell\n",
                res->inconclusive, 100 * o->target);
    fprintf(out, "confirmed: %d regression%s, %d improvement%s\n", res->confirmed_regressions,
            res->confirmed_regressions == 1 ? "" : "s", res->confirmed_improvements,
            res->confirmed_improvements == 1 ? "" : "s");
}

int nightly_gate(struct store *store, int64_t prev, int64_t id, const struct gate_opts *o, struct gate_result *res,
                 FILE *out, char *err, size_t errn) {
    memset(res, 0, sizeof *res);
    char hash_a[40], hash_b[40], start_a[40], start_b[40];
    store_nightly_build(store, prev, hash_a, sizeof hash_a, start_a, sizeof start_a);
    store_nightly_build(store, id, hash_b, sizeof hash_b, start_b, sizeof start_b);
    struct series_list la = {0}, lb = {0};
    if (load_night(store, prev, "gate_a", &la, err, errn) != 0 ||
        load_night(store, id, "gate_b", &lb, err, errn) != 0) {
        series_list_free(&la);
        return -1;
    }
    struct noise_set ns;
    if (noise_set_load(store, start_b, &ns, err, errn) != 0) {
        series_list_free(&la);
        series_list_free(&lb);
        return -1;
    }
    struct compare_params p = COMPARE_DEFAULTS;
    p.noise = &ns;
    p.target = o->target;
    struct compare_row *rows = NULL;
    int oa, ob, n = compare_lists(&la, &lb, &p, &rows, &oa, &ob);
    if (compare_steadiest(store, "gate_a", "gate_b", start_b, &p, rows, n, err, errn) != 0) {
        free(rows);
        noise_set_free(&ns);
        series_list_free(&la);
        series_list_free(&lb);
        return -1;
    }
    res->series = n;
    int open = 0;
    for (int i = 0; i < n; i++) {
        res->flagged += is_flag(&rows[i]);
        res->suspects += rows[i].v == V_SAME && rows[i].suspect;
        open += rows[i].v == V_INCONCLUSIVE;
    }
    fprintf(out,
            "\nnightly %lld against nightly %lld (builds %s and %s): %d series, %d flagged, %d suspect%s, %d"
            " inconclusive (cannot show %.0f %%)\n",
            (long long)id, (long long)prev, hash_a[0] ? hash_a : "?", hash_b[0] ? hash_b : "?", n, res->flagged,
            res->suspects, res->suspects == 1 ? "" : "s", open, 100 * o->target);
    if (res->flagged + res->suspects + open && o->confirm && hash_a[0] && hash_b[0])
        confirm_flags(store, id, hash_a, hash_b, rows, n, o, res, out);
    else if (res->flagged + res->suspects + open)
        for (int i = 0; i < n; i++)
            if (compare_wants_confirmation(&rows[i]))
                str_fmt(rows[i].confirmation, sizeof rows[i].confirmation, "unconfirmed: %s",
                        !o->confirm ? "--no-confirm" : "a night without a kept build");
    compare_print(out, rows, n, 0);
    store_verdicts(store, id, rows, n, res, out);
    print_outcome(out, o, res, tally_flags(rows, n, o, res));
    free(rows);
    noise_set_free(&ns);
    series_list_free(&la);
    series_list_free(&lb);
    return 0;
}
