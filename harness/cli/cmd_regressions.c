/* harness regressions: change-point detection over every series' nights
 * (changepoint.h), stored in change_point with a triage state a person sets
 * (harness triage); harness exclude takes a run out of the history with a
 * reason.
 *
 * Per series: each night's value from its rounds (round_stats.h), in order
 * of the nightly's start; runs in run_exclusion left out, nights marked
 * disturbed (night_quality.h) left out, and nights the canary vetoes left
 * out too: a night whose copy bandwidth on that device is off by more than
 * max(10 %, 4 x the canary's own noise) from the median of the 3 nights
 * either side measured a disturbed machine, not the code. The smallest step
 * reported is the largest of --min-effect, the series' night-to-night noise
 * and one night's spread by its noise model (noise.h). A step it sees but
 * will not call yet (too few nights at the new level, p not yet small
 * enough) is listed as a candidate with the nights it still needs. A new
 * change point whose builds on either side are both kept is confirmed at
 * once, the two builds interleaved on the device (confirm.h), unless
 * --no-confirm; nights are named by number and build.
 * A stored change point still found (within a night of where it was) keeps
 * its id and triage; an untriaged one no longer found (a run was excluded,
 * more nights moved the evidence) is withdrawn. Exit 1 while any untriaged
 * regression remains. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "store/store.h"
#include "store/store_changepoint.h"
#include "store/store_nightly.h"
#include "store/store_quality.h"
#include "track/confirm.h"
#include "track/kept_build.h"
#include "track/noise.h"
#include "track/series.h"

#define MAX_CP 64
#define CANARY_WINDOW 3
#define CANARY_MIN 0.10

struct reg_opts {
    const char *db;
    struct cp_params cp;
    int csv, confirm;
};

static void usage(FILE *out) {
    fprintf(out, "usage: harness regressions [--db PATH] [--csv] [--alpha P] [--min-effect F] [--min-segment N]\n"
                 "                           [--no-confirm]\n"
                 "\n"
                 "Finds change points in each series' nights (each night's value from its rounds; E-divisive\n"
                 "means, then a t-test of the segments either side, corrected for the splits searched:\n"
                 "p <= alpha, a step of at least max(min effect, the series' noise, one night's spread by\n"
                 "its noise model), at least N nights on each side), stores them and lists every change\n"
                 "point with its triage state; a step it will not call yet is listed as a candidate with\n"
                 "its p-value and the nights it still needs. A new change point whose two builds are both\n"
                 "kept is confirmed at once: both measured again, interleaved, on the device.\n"
                 "\n"
                 "  --alpha P        default 0.001\n"
                 "  --min-effect F   default 0.03 (3 %%)\n"
                 "  --min-segment N  default 3 nights\n"
                 "  --csv            CSV instead of the table\n"
                 "  --no-confirm     do not measure anything again\n"
                 "\n"
                 "Exit status: 0 none untriaged, 1 while an untriaged regression (a slower level) exists\n"
                 "or no database, 2 bad usage.\n"
                 "Triage: harness triage ID acknowledged|fixed|false-positive [--note TEXT]\n"
                 "Exclude a run: harness exclude RUN --reason TEXT\n");
}

/* ---- the canary veto ---------------------------------------------------- */

struct veto {
    char fp[24];
    int64_t nightly_id;
};

/* The nights each device's canary vetoes; each is described on log (or not, NULL). */
static void night_name(struct store *store, int64_t nightly, const char *when, char *buf, size_t n);

static int canary_vetoes(struct store *store, const struct history_list *hl, struct veto **out, FILE *log) {
    int n = 0, cap = 0;
    *out = NULL;
    for (int s = 0; s < hl->n; s++) {
        const struct history *h = &hl->h[s];
        if (!h->id.higher_better || h->n < 3) continue;
        double *v = xcalloc((size_t)h->n, sizeof *v), *win = xcalloc(2 * CANARY_WINDOW, sizeof *win);
        for (int i = 0; i < h->n; i++) v[i] = h->p[i].median;
        double limit = fmax(CANARY_MIN, 4 * cp_noise(v, h->n));
        for (int i = 0; i < h->n; i++) {
            int k = 0;
            for (int j = i - CANARY_WINDOW; j <= i + CANARY_WINDOW; j++)
                if (j >= 0 && j < h->n && j != i) win[k++] = v[j];
            double ref = stats_median(win, (size_t)k);
            if (fabs(v[i] / ref - 1) <= limit) continue;
            if (log) {
                char name[96];
                night_name(store, h->p[i].nightly_id, h->p[i].when, name, sizeof name);
                fprintf(log, "canary veto: %s %s: copy %.1f GB/s against %.1f around it (limit %.0f %%)\n", h->id.spec,
                        name, v[i], ref, 100 * limit);
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                *out = realloc(*out, (size_t)cap * sizeof **out);
                if (!*out) abort();
            }
            str_copy((*out)[n].fp, sizeof(*out)[n].fp, h->id.fp);
            (*out)[n++].nightly_id = h->p[i].nightly_id;
        }
        free(v);
        free(win);
    }
    return n;
}

static int vetoed(const struct veto *v, int n, const char *fp, int64_t nightly) {
    for (int i = 0; i < n; i++)
        if (v[i].nightly_id == nightly && !strcmp(v[i].fp, fp)) return 1;
    return 0;
}

/* ---- storing ------------------------------------------------------------ */

/* Inserts or refreshes one change point; returns its id (or -1). */
static int64_t cp_store(struct store *s, const struct history *h, const struct night_point *pts, int npts,
                        const struct change_point *c) {
    const struct night_point *at = &pts[c->index];
    int regression = h->id.higher_better ? c->ratio < 1 : c->ratio > 1;
    struct change_point_found f = {
        .series = h->id.key,
        .night = at->when,
        .near = {c->index > 0 ? pts[c->index - 1].when : at->when,
                 c->index + 1 < npts ? pts[c->index + 1].when : at->when},
        .fingerprint = h->id.fp,
        .direction = regression ? "regression" : "improvement",
        .run_id = at->run_id,
        .nightly_id = at->nightly_id,
        .magnitude = h->id.higher_better ? 1 / c->ratio - 1 : c->ratio - 1, /* > 0: worse */
        .p_value = c->p,
    };
    return store_change_point_put(s, &f);
}

/* ---- the listing -------------------------------------------------------- */

/* A series key's label from the loaded histories, else the key itself. */
static void label_of(const struct history_list *hl, const char *key, char *buf, size_t n) {
    for (int i = 0; i < hl->n; i++)
        if (!strcmp(hl->h[i].id.key, key)) {
            series_label(&hl->h[i].id, buf, n);
            return;
        }
    str_copy(buf, n, key);
}

/* "night 12 (build 3f2a9c01)": the nightly's number and its build. */
static void night_name(struct store *s, int64_t nightly, const char *when, char *buf, size_t n) {
    if (nightly <= 0) {
        str_fmt(buf, n, "%.16s", when);
        return;
    }
    char build[80];
    store_nightly_build_name(s, nightly, build, sizeof build);
    str_fmt(buf, n, "night %lld (%.8s)", (long long)nightly, build);
}

/* One stored change point as a CSV row or a table line; whether it is open. */
static int print_point(struct store *s, const struct history_list *hl, const struct change_point_row *r, int csv,
                       int first) {
    char label[256], name[96];
    label_of(hl, r->series, label, sizeof label);
    night_name(s, r->nightly_id, r->night, name, sizeof name);
    /* A change a confirmation measured again and called noise is not open. */
    int open = !strcmp(r->triage, "detected") && !strcmp(r->direction, "regression") &&
               strncmp(r->confirmation, "rejected", 8);
    if (csv) {
        printf("%lld,\"%s\",\"%s\",%s,%lld,%lld,%.6f,%.3g,%s,%s,\"%s\",\"%s\"\n", (long long)r->id, r->series, label,
               r->night, (long long)r->nightly_id, (long long)r->run_id, r->magnitude, r->p_value, r->direction,
               r->triage, r->confirmation, r->note);
        return open;
    }
    const char *conf = r->confirmation, *note = r->note;
    if (first)
        printf("%4s  %-21s  %-44s %8s %9s  %-11s  %s\n", "id", "night (build)", "series", "worse by", "p", "direction",
               "triage");
    printf("%4lld  %-21.21s  %-44.44s %+7.1f%% %9.2g  %-11s  %s%s%s%s%s%s%s\n", (long long)r->id, name, label,
           100 * r->magnitude, r->p_value, r->direction, r->triage, open ? "  <- untriaged" : "", conf[0] ? "  [" : "",
           conf, conf[0] ? "]" : "", note[0] ? "  # " : "", note);
    return open;
}

static int list_points(struct store *s, const struct history_list *hl, int csv, const char *candidate_rows,
                       int *untriaged) {
    struct change_point_row *rows;
    int n = store_change_points(s, &rows);
    if (n < 0) return -1;
    *untriaged = 0;
    if (csv) printf("id,series,label,night,nightly,run_id,magnitude,p_value,direction,triage,confirmation,note\n");
    for (int i = 0; i < n; i++) *untriaged += print_point(s, hl, &rows[i], csv, i == 0);
    if (csv && candidate_rows) fputs(candidate_rows, stdout);
    store_change_points_free(rows, n);
    if (!csv && !n) printf("no change points\n");
    return 0;
}

/* ---- the command -------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct reg_opts *o) {
    static const struct option longopts[] = {
        {"db", required_argument, 0, 'd'},          {"csv", no_argument, 0, 'c'},
        {"alpha", required_argument, 0, 'a'},       {"min-effect", required_argument, 0, 'e'},
        {"min-segment", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'},
        {"no-confirm", no_argument, 0, 'N'},        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->cp = CP_DEFAULTS;
    o->confirm = 1;
    optind = 1;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->db = optarg; break;
        case 'c': o->csv = 1; break;
        case 'a':
            if (cli_alpha("regressions", optarg, &o->cp.alpha)) return EXIT_USAGE;
            break;
        case 'e':
            if (cli_min_effect("regressions", optarg, &o->cp.min_effect)) return EXIT_USAGE;
            break;
        case 's':
            if (parse_whole(optarg, 2, 1000, &v))
                return fprintf(stderr, "harness regressions: --min-segment %s: want 2..1000\n", optarg), EXIT_USAGE;
            o->cp.min_segment = (int)v;
            break;
        case 'N': o->confirm = 0; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc) return fprintf(stderr, "harness regressions: unexpected '%s'\n", argv[optind]), EXIT_USAGE;
    if (!o->db) o->db = store_default_path();
    return 0;
}

/* The typical rounds of a series' nights (for one night's spread). */
static int typical_rounds(const struct night_point *pts, int n) {
    int best = 1;
    for (int i = 0; i < n; i++)
        if (pts[i].nv.rounds > best) best = pts[i].nv.rounds;
    return best;
}

/* A new change point with kept builds on both sides: both measured again. */
struct pending {
    int64_t cp_id;
    struct series_id id;
    double ratio;
    char build_a[72], build_b[72];
    int reps, warmup;
};

/* Detects over every series and stores what it finds (within the refresh
 * store_change_points_begin opened); collects new, unconfirmed change points
 * whose builds are kept. */
static void detect_all(struct store *store, const struct history_list *hl, const struct reg_opts *o, int csv,
                       struct pending **todo, int *ntodo, struct strbuf *candidate_rows) {
    struct veto *v = NULL;
    int nv = canary_vetoes(store, hl, &v, csv ? NULL : stdout), series = 0, found = 0, candidates = 0;
    struct noise_set ns;
    noise_set_learn(hl, NULL, &ns);
    *todo = NULL;
    *ntodo = 0;
    for (int s = 0; s < hl->n; s++) {
        const struct history *h = &hl->h[s];
        struct night_point *pts = xcalloc((size_t)h->n + 1, sizeof *pts);
        double *x = xcalloc((size_t)h->n + 1, sizeof *x);
        int n = 0;
        for (int i = 0; i < h->n; i++)
            if (h->p[i].median > 0 && !h->p[i].bad &&
                (h->id.higher_better || !vetoed(v, nv, h->id.fp, h->p[i].nightly_id))) {
                pts[n] = h->p[i];
                x[n++] = h->p[i].median;
            }
        struct cp_params p = o->cp;
        struct noise_model model;
        noise_set_find(&ns, h->id.key, &model);
        p.min_effect = cp_min_effect(x, n, h->id.higher_better ? NULL : &model, typical_rounds(pts, n), p.min_effect);
        struct change_point cps[MAX_CP];
        int k = cp_detect(x, n, &p, cps, MAX_CP);
        series++;
        for (int i = 0; i < k; i++) {
            int64_t id = cp_store(store, h, pts, n, &cps[i]);
            found++;
            const struct night_point *before = &pts[cps[i].index - 1], *after = &pts[cps[i].index];
            if (id > 0 && !h->id.higher_better && strcmp(before->build, after->build) && *ntodo < 64) {
                *todo = xrealloc(*todo, (size_t)(*ntodo + 1) * sizeof **todo);
                struct pending *t = &(*todo)[(*ntodo)++];
                *t = (struct pending){.cp_id = id, .id = h->id, .ratio = cps[i].ratio, .warmup = h->id.warmup};
                t->reps = after->nv.rounds > 0 ? (int)lround((double)after->n / after->nv.rounds) : 1;
                str_copy(t->build_a, sizeof t->build_a, before->build);
                str_copy(t->build_b, sizeof t->build_b, after->build);
            }
        }
        struct cp_candidate c;
        if (csv && cp_candidate(x, n, cps, k, &p, &c)) {
            /* The table's candidates in the CSV (and so --json) too: no id
             * (nothing is stored), direction "candidate", the nights still
             * needed in the confirmation column (issue 34). */
            char label[256], more[96];
            series_label(&h->id, label, sizeof label);
            if (c.more >= 0) str_fmt(more, sizeof more, "%d more nights at this level would call it", c.more);
            else str_fmt(more, sizeof more, "more than 60 more nights at this level would be needed");
            sb_printf(candidate_rows, ",\"%s\",\"%s\",%s,%lld,%lld,%.6f,%.3g,candidate,not called,\"%s\",\"\"\n",
                      h->id.key, label, pts[c.index].when, (long long)pts[c.index].nightly_id,
                      (long long)pts[c.index].run_id, c.ratio - 1, c.p, more);
        } else if (!csv && cp_candidate(x, n, cps, k, &p, &c)) {
            char label[256], name[96];
            series_label(&h->id, label, sizeof label);
            night_name(store, pts[c.index].nightly_id, pts[c.index].when, name, sizeof name);
            printf("candidate, not called: %s from %s: %+.1f %% over %d night%s, p %.2g; ", label, name,
                   100 * (c.ratio - 1), c.after, c.after == 1 ? "" : "s", c.p);
            if (c.more >= 0) printf("%d more night%s at this level would call it\n", c.more, c.more == 1 ? "" : "s");
            else printf("more than 60 more nights at this level and noise would be needed\n");
            candidates++;
        }
        free(pts);
        free(x);
    }
    free(v);
    noise_set_free(&ns);
    if (!csv)
        printf("%d series, %d change point%s found, %d candidate%s not called yet\n", series, found,
               found == 1 ? "" : "s", candidates, candidates == 1 ? "" : "s");
}

/* Confirms the new change points whose two builds are kept and whose device
 * is here; stores the verdict on the change point. */
static void confirm_new(struct store *store, struct pending *t, int n) {
    for (int i = 0; i < n; i++) {
        if (store_change_point_confirmed(store, t[i].cp_id)) continue;
        char da[4096], ba[4096], dbd[4096], bb[4096], err[ERR_MAX], text[300];
        if (kept_build_find(t[i].build_a, da, sizeof da, ba, sizeof ba, err, sizeof err) != 0 ||
            kept_build_find(t[i].build_b, dbd, sizeof dbd, bb, sizeof bb, err, sizeof err) != 0)
            continue; /* not kept: nothing to measure again; it stays as found */
        struct confirm_series c = {.id = t[i].id,
                                   .flagged_ratio = t[i].ratio,
                                   .reps = t[i].reps,
                                   .warmup = t[i].warmup,
                                   .change_point_id = t[i].cp_id,
                                   .evidence = 1}; /* a step over many nights */
        struct confirm_opts co = {.a = {ba, da},
                                  .b = {bb, dbd},
                                  .build_a = t[i].build_a,
                                  .build_b = t[i].build_b,
                                  .source = "regressions",
                                  .seed = (unsigned)t[i].cp_id};
        char label[256];
        series_label(&c.id, label, sizeof label);
        printf("confirming change point %lld (%s): builds %.8s and %.8s interleaved\n", (long long)t[i].cp_id, label,
               t[i].build_a, t[i].build_b);
        fflush(stdout);
        if (confirm_run(store, &c, 1, &co) < 0) return;
        confirm_describe(&c, text, sizeof text);
        store_change_point_set_confirmation(store, t[i].cp_id, text);
        printf("  %s\n", text);
    }
}

/* One inconclusive series of the latest night, as a line. */
static void inconclusive_line(int64_t night, const struct store_night_verdict *v, void *ctx) {
    (void)night;
    int *n = ctx;
    printf("  %s: sees %.0f %% (target %.0f %%)\n", v->series, 100 * v->detectable, 100 * v->target);
    ++*n;
}

/* The gate could not judge every series of the latest night: a step there
 * may be hidden, and regressions says so beside what it found. */
static void list_inconclusive(struct store *store) {
    int n = 0;
    printf("the latest night's inconclusive series (neither a regression nor the same):\n");
    fflush(stdout);
    int64_t night = store_latest_inconclusive(store, inconclusive_line, &n);
    if (night > 0)
        printf("nightly %lld: %d series inconclusive; more rounds or a quieter host would tell (harness nightly"
               " --max-time)\n",
               (long long)night, n);
    else printf("  none\n");
}

int cmd_regressions(int argc, char **argv) {
    struct reg_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    struct store *store = nightly_store_open("regressions", o.db, 1, &rc);
    if (!store) return rc;
    kept_builds_for_db(o.db);
    char err[ERR_MAX] = "";
    struct history_list hl;
    /* history_load (track/series.h) still reads the connection itself. */
    if (history_load(store, &hl, err, sizeof err) != 0) {
        fprintf(stderr, "harness regressions: %s\n", err);
        store_close(store);
        return EXIT_FOUND;
    }
    /* One transaction: a reader never sees half the refreshed points. */
    int untriaged = 0, ntodo = 0;
    struct pending *todo = NULL;
    struct strbuf candidate_rows = {0};
    if (store_change_points_begin(store, err, sizeof err) != 0) {
        fprintf(stderr, "harness regressions: %s\n", err[0] ? err : store_errmsg(store));
        rc = EXIT_FOUND;
    } else {
        detect_all(store, &hl, &o, o.csv, &todo, &ntodo, &candidate_rows);
        int64_t gone = store_change_points_withdraw(store);
        if (gone && !o.csv)
            printf("%lld untriaged change point%s no longer found, withdrawn\n", (long long)gone, gone == 1 ? "" : "s");
        int committed = store_change_points_commit(store, err, sizeof err) == 0;
        /* Outside the transaction: a confirmation measures for minutes. */
        if (committed && o.confirm && ntodo) confirm_new(store, todo, ntodo);
        if (!committed || list_points(store, &hl, o.csv, candidate_rows.s, &untriaged) != 0) {
            fprintf(stderr, "harness regressions: %s\n", err[0] ? err : store_errmsg(store));
            rc = EXIT_FOUND;
        } else {
            rc = untriaged ? EXIT_FOUND : EXIT_OK;
            if (!o.csv) list_inconclusive(store);
            if (untriaged && !o.csv)
                printf("%d untriaged regression%s: harness triage ID acknowledged|fixed|false-positive\n", untriaged,
                       untriaged == 1 ? "" : "s");
        }
    }
    store_change_points_abandon(store);
    sb_free(&candidate_rows);
    free(todo);
    history_list_free(&hl);
    store_close(store);
    return rc;
}
