/* Parses a report definition (format: the header of kernels/lbm/report.def). */
#include "report/report_def.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "base/util.h"
#include "core/runner.h"

#define MAX_TOKENS 48

static const char *const kind_names[] = {"step", "classes", "devices", "openacc", "hostlang", "speedup", "resources"};

const char *report_kind_name(enum report_kind k) { return kind_names[k]; }

int report_input_index(const struct report_def *d, const char *input) {
    for (int i = 0; i < d->ninputs; i++)
        if (!strcmp(d->inputs[i], input)) return i;
    return -1;
}

struct parser {
    struct report_def *d;
    int line;
    char *err;
    size_t errn;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errn, "%s:%d: %s", p->d->path, p->line, msg);
    return -1;
}

/* Splits a line into words; "..." is one word. Comments start at a # outside quotes. */
static int tokenize(struct parser *p, char *s, char *tok[], int *n) {
    *n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (!*s || *s == '#') break;
        if (*n == MAX_TOKENS) return fail(p, "more than %d words on one line", MAX_TOKENS);
        if (*s == '"') {
            tok[(*n)++] = ++s;
            while (*s && *s != '"') s++;
            if (*s != '"') return fail(p, "unterminated \"");
            *s++ = 0;
        } else {
            tok[(*n)++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') s++;
            if (*s) *s++ = 0;
        }
    }
    return 0;
}

/* The report's numbers: one per input, `-` where it has none. */
static int numbers(struct parser *p, char *tok[], int n, double out[]) {
    /* Before `inputs`, no numbers matched its none, and the row kept zeros
     * the report printed as numbers (and divided by). */
    if (!p->d->ninputs) return fail(p, "numbers before `inputs`, which comes first");
    if (n != p->d->ninputs)
        return fail(p, "%d numbers given, one per input wanted (%d: `inputs` comes first)", n, p->d->ninputs);
    for (int i = 0; i < n; i++) {
        if (!strcmp(tok[i], "-")) {
            out[i] = NAN;
            continue;
        }
        if (parse_real(tok[i], 0, DBL_MAX, &out[i]) || !(out[i] > 0))
            return fail(p, "`%s` is not a positive number or -", tok[i]);
    }
    return 0;
}

static struct report_table *current(struct parser *p, const char *keyword) {
    if (!p->d->ntables) {
        fail(p, "`%s` outside a table: a `table N KIND \"TITLE\"` line comes first", keyword);
        return NULL;
    }
    return &p->d->tables[p->d->ntables - 1];
}

static struct report_row *new_row(struct parser *p, struct report_table *t) {
    if (t->nrows == REPORT_MAX_ROWS) {
        fail(p, "table %d has more than %d rows", t->number, REPORT_MAX_ROWS);
        return NULL;
    }
    struct report_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->line = p->line;
    return r;
}

static int copy_name(struct parser *p, char *dst, size_t n, const char *src, const char *what) {
    if (strlen(src) >= n) return fail(p, "%s `%s` is longer than %zu characters", what, src, n - 1);
    str_copy(dst, n, src);
    return 0;
}

static int table_line(struct parser *p, char *tok[], int n) {
    struct report_def *d = p->d;
    if (n != 4) return fail(p, "usage: table N KIND \"TITLE\"");
    if (d->ntables == REPORT_MAX_TABLES) return fail(p, "more than %d tables", REPORT_MAX_TABLES);
    long num;
    if (parse_whole(tok[1], 1, 999, &num)) return fail(p, "table number `%s` is not 1..999", tok[1]);
    for (int i = 0; i < d->ntables; i++)
        if (d->tables[i].number == num) return fail(p, "table %ld again (first on line %d)", num, d->tables[i].line);
    struct report_table *t = &d->tables[d->ntables];
    memset(t, 0, sizeof *t);
    t->number = (int)num;
    t->line = p->line;
    size_t k = 0;
    while (k < sizeof kind_names / sizeof kind_names[0] && strcmp(kind_names[k], tok[2])) k++;
    if (k == sizeof kind_names / sizeof kind_names[0])
        return fail(p, "unknown table kind `%s` (step, classes, devices, openacc, hostlang, speedup, resources)",
                    tok[2]);
    t->kind = (enum report_kind)k;
    if (copy_name(p, t->title, sizeof t->title, tok[3], "title")) return -1;
    d->ntables++;
    return 0;
}

static int row_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind != RK_STEP && t->kind != RK_SPEEDUP)
        return fail(p, "`row` belongs to step and speedup tables; table %d is %s", t->number, kind_names[t->kind]);
    if (n < 3) return fail(p, "usage: row VARIANT FROM NUMBERS...");
    if (t->kind == RK_SPEEDUP && !strcmp(tok[2], "-")) return fail(p, "a speedup row needs the variant it is over");
    struct report_row *r = new_row(p, t);
    if (!r || copy_name(p, r->variant, sizeof r->variant, tok[1], "variant") ||
        copy_name(p, r->from, sizeof r->from, strcmp(tok[2], "-") ? tok[2] : "", "variant"))
        return -1;
    return numbers(p, tok + 3, n - 3, r->published);
}

static int run_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind == RK_STEP || t->kind == RK_SPEEDUP)
        return fail(p, "`run` belongs to classes, devices, openacc, hostlang and resources tables; table %d is %s",
                    t->number, kind_names[t->kind]);
    if (t->kind == RK_OPENACC || t->kind == RK_RESOURCES) { /* `run VARIANT...`: a list of programs */
        const int most = t->kind == RK_OPENACC ? 4 : REPORT_MAX_PROGRAMS;
        if (t->nprograms) return fail(p, "table %d already has its `run` line", t->number);
        if (n < 2 || n > most + 1)
            return fail(p, t->kind == RK_OPENACC ? "usage: run VARIANT... (one to four directive variants)"
                                                 : "usage: run VARIANT... (one to eight variants)");
        for (int i = 1; i < n; i++)
            if (copy_name(p, t->programs[t->nprograms++], sizeof t->programs[0], tok[i], "variant")) return -1;
        return 0;
    }
    if (t->variant[0]) return fail(p, "table %d already runs %s", t->number, t->variant);
    if (n < 2 || (t->kind == RK_CLASSES ? n < 4 || strcmp(tok[2], "on") : n != 2))
        return fail(p, t->kind == RK_CLASSES ? "usage: run VARIANT on CLASS..." : "usage: run VARIANT");
    if (copy_name(p, t->variant, sizeof t->variant, tok[1], "variant")) return -1;
    for (int i = 3; i < n; i++) {
        if (t->nclasses == 4) return fail(p, "more than 4 classes");
        /* The length first: the backend's part is cut out of a copy that
         * holds the whole class (a '/' past its end was written past it). */
        char backend[sizeof t->classes[0]];
        if (copy_name(p, backend, sizeof backend, tok[i], "class")) return -1;
        const char *slash = strchr(tok[i], '/');
        if (slash) backend[slash - tok[i]] = 0;
        if (!backend_by_name(backend)) return fail(p, "class `%s`: no backend named `%s`", tok[i], backend);
        if (slash && strcmp(slash + 1, "gpu") && strcmp(slash + 1, "cpu") && strcmp(slash + 1, "accelerator"))
            return fail(p, "class `%s`: the device kind is gpu, cpu or accelerator", tok[i]);
        str_copy(t->classes[t->nclasses++], sizeof t->classes[0], tok[i]);
    }
    return 0;
}

static int published_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind == RK_STEP || t->kind == RK_SPEEDUP)
        return fail(p, "`published` columns belong to classes, devices, openacc and hostlang tables");
    if (n < 2) return fail(p, "usage: published \"LABEL\" NUMBERS...");
    struct report_row *r = new_row(p, t);
    if (!r || copy_name(p, r->label, sizeof r->label, tok[1], "label")) return -1;
    return numbers(p, tok + 2, n - 2, r->published);
}

/* `host "LABEL" VARIANT`: the published column LABEL of a host-language
 * table is measured too, by VARIANT (a variant whose host program is in
 * that language), beside the report's number. */
static int host_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind != RK_HOSTLANG)
        return fail(p, "`host` belongs to hostlang tables; table %d is %s", t->number, kind_names[t->kind]);
    if (n != 3) return fail(p, "usage: host \"LABEL\" VARIANT");
    for (int k = 0; k < t->nrows; k++) {
        struct report_row *r = &t->rows[k];
        if (strcmp(r->label, tok[1])) continue;
        if (r->variant[0]) return fail(p, "host `%s` again: it runs %s", tok[1], r->variant);
        return copy_name(p, r->variant, sizeof r->variant, tok[2], "variant");
    }
    return fail(p, "host `%s`: no `published \"%s\"` column before it", tok[1], tok[1]);
}

/* `pending "LABEL" "WHY" NUMBERS...`: a step of the report the harness
 * cannot run yet (it needs something the core lacks), printed with the
 * report's numbers and WHY in place of ours, so the table stays whole. */
static int pending_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind != RK_STEP)
        return fail(p, "`pending` rows belong to step tables; table %d is %s", t->number, kind_names[t->kind]);
    if (n < 3) return fail(p, "usage: pending \"LABEL\" \"WHY\" NUMBERS...");
    struct report_row *r = new_row(p, t);
    if (!r || copy_name(p, r->label, sizeof r->label, tok[1], "label") ||
        copy_name(p, r->why, sizeof r->why, tok[2], "reason"))
        return -1;
    return numbers(p, tok + 3, n - 3, r->published);
}

/* `against VARIANT` (openacc tables): each directive cell's time over the
 * fastest GPU device's time of VARIANT at the same input, under the table. */
static int against_line(struct parser *p, char *tok[], int n) {
    struct report_table *t = current(p, tok[0]);
    if (!t) return -1;
    if (t->kind != RK_OPENACC)
        return fail(p, "`against` belongs to openacc tables; table %d is %s", t->number, kind_names[t->kind]);
    if (n != 2) return fail(p, "usage: against VARIANT");
    if (t->against[0]) return fail(p, "table %d is already against %s", t->number, t->against);
    return copy_name(p, t->against, sizeof t->against, tok[1], "variant");
}

/* `rate LABEL "UNIT" FACTOR`: the rate column (P = MLUPS x 1e6). */
static int rate_line(struct parser *p, char *tok[], int n) {
    struct report_def *d = p->d;
    if (n != 4) return fail(p, "usage: rate LABEL \"UNIT\" FACTOR (FACTOR times the MLUPS column)");
    if (d->rate_factor > 0) return fail(p, "`rate` again");
    double factor;
    if (parse_real(tok[3], 0, DBL_MAX, &factor) || !(factor > 0))
        return fail(p, "rate factor `%s` is not a positive number", tok[3]);
    if (copy_name(p, d->rate_label, sizeof d->rate_label, tok[1], "rate label") ||
        copy_name(p, d->rate_unit, sizeof d->rate_unit, tok[2], "rate unit"))
        return -1;
    d->rate_factor = factor;
    return 0;
}

static int ladder_figure_line(struct parser *p, char *tok[], int n) {
    struct report_def *d = p->d;
    if (d->ladder_figure) return fail(p, "`ladder-figure` again");
    if (n - 1 > REPORT_MAX_LADDER) return fail(p, "more than %d ladder steps", REPORT_MAX_LADDER);
    d->ladder_figure = 1;
    for (int i = 1; i < n; i++)
        if (copy_name(p, d->ladder[d->nladder++], sizeof d->ladder[0], tok[i], "variant")) return -1;
    return 0;
}

int report_ladder_steps(const struct report_def *d, const char *out[]) {
    int n = 0;
    for (int i = 0; i < d->nladder; i++) out[n++] = d->ladder[i];
    for (int t = 0; t < d->ntables && !d->nladder; t++) {
        if (d->tables[t].kind != RK_STEP) continue;
        for (int k = 0; k < d->tables[t].nrows && n < REPORT_MAX_LADDER; k++) {
            const char *v = d->tables[t].rows[k].variant;
            int seen = !v[0]; /* a pending row has nothing measured */
            for (int j = 0; j < n && !seen; j++) seen = !strcmp(out[j], v);
            if (!seen) out[n++] = v;
        }
    }
    return n;
}

static int inputs_line(struct parser *p, char *tok[], int n, int quick) {
    struct report_def *d = p->d;
    if (n < 2 || n - 1 > REPORT_MAX_INPUTS) return fail(p, "`%s` names 1 to %d inputs", tok[0], REPORT_MAX_INPUTS);
    if (quick ? d->nquick : d->ninputs) return fail(p, "`%s` again", tok[0]);
    if (quick && !d->ninputs) return fail(p, "`quick` names inputs of `inputs`, which comes first");
    for (int i = 1; i < n; i++) {
        if (quick && report_input_index(d, tok[i]) < 0) return fail(p, "quick input `%s` is not in `inputs`", tok[i]);
        char *dst = quick ? d->quick[d->nquick++] : d->inputs[d->ninputs++];
        if (copy_name(p, dst, sizeof d->inputs[0], tok[i], "input")) return -1;
    }
    return 0;
}

static int shape(struct parser *p, const char *text, unsigned wg[2]) {
    if (wg_parse(text, wg) != 0) return fail(p, "`%s` is not a work-group shape WxH", text);
    return 0;
}

static int keyword_line(struct parser *p, char *tok[], int n) {
    struct report_def *d = p->d;
    const char *k = tok[0];
    if (!strcmp(k, "app")) {
        if (n != 2) return fail(p, "usage: app NAME");
        if (d->app[0]) return fail(p, "`app` again");
        return copy_name(p, d->app, sizeof d->app, tok[1], "app");
    }
    if (!strcmp(k, "reference")) {
        if (n != 2) return fail(p, "usage: reference \"TEXT\"");
        return copy_name(p, d->reference, sizeof d->reference, tok[1], "reference");
    }
    if (!strcmp(k, "figures-note")) {
        if (n != 2) return fail(p, "usage: figures-note \"TEXT\"");
        return copy_name(p, d->figures_note, sizeof d->figures_note, tok[1], "figures-note");
    }
    if (!strcmp(k, "inputs") || !strcmp(k, "quick")) return inputs_line(p, tok, n, k[0] == 'q');
    if (!strcmp(k, "wg")) return n != 2 ? fail(p, "usage: wg WxH") : shape(p, tok[1], d->wg);
    if (!strcmp(k, "wg-figure")) {
        if (n < 3) return fail(p, "usage: wg-figure VARIANT SHAPE...");
        if (copy_name(p, d->wg_variant, sizeof d->wg_variant, tok[1], "variant")) return -1;
        for (int i = 2; i < n; i++) {
            if (d->nshapes == REPORT_MAX_SHAPES) return fail(p, "more than %d shapes", REPORT_MAX_SHAPES);
            if (shape(p, tok[i], d->shapes[d->nshapes++])) return -1;
        }
        return 0;
    }
    if (!strcmp(k, "roofline")) {
        if (n != 2) return fail(p, "usage: roofline VARIANT");
        return copy_name(p, d->roofline_variant, sizeof d->roofline_variant, tok[1], "variant");
    }
    if (!strcmp(k, "host-probe")) {
        if (n != 3) return fail(p, "usage: host-probe EMPTY FULL");
        return copy_name(p, d->host_empty, sizeof d->host_empty, tok[1], "variant") ||
               copy_name(p, d->host_full, sizeof d->host_full, tok[2], "variant");
    }
    if (!strcmp(k, "rate")) return rate_line(p, tok, n);
    if (!strcmp(k, "ladder-figure")) return ladder_figure_line(p, tok, n);
    if (!strcmp(k, "against")) return against_line(p, tok, n);
    if (!strcmp(k, "table")) return table_line(p, tok, n);
    if (!strcmp(k, "row")) return row_line(p, tok, n);
    if (!strcmp(k, "run")) return run_line(p, tok, n);
    if (!strcmp(k, "published")) return published_line(p, tok, n);
    if (!strcmp(k, "host")) return host_line(p, tok, n);
    if (!strcmp(k, "pending")) return pending_line(p, tok, n);
    return fail(p, "unknown keyword `%s`", k);
}

/* What a table must have once its lines are read. */
static int table_complete(struct parser *p, const struct report_table *t) {
    p->line = t->line;
    if ((t->kind == RK_STEP || t->kind == RK_SPEEDUP) && !t->nrows) return fail(p, "table %d has no rows", t->number);
    if ((t->kind == RK_CLASSES || t->kind == RK_DEVICES || t->kind == RK_HOSTLANG) && !t->variant[0])
        return fail(p, "table %d (%s) has no `run` line", t->number, kind_names[t->kind]);
    if (t->kind == RK_RESOURCES && !t->nprograms)
        return fail(p, "table %d (resources) has no `run` line naming its variants", t->number);
    return 0;
}

int report_def_read(FILE *f, const char *path, struct report_def *d, char *err, size_t errn) {
    memset(d, 0, sizeof *d);
    str_copy(d->path, sizeof d->path, path);
    d->wg[0] = 32;
    d->wg[1] = 1;
    struct parser p = {d, 0, err, errn};
    char line[2048];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        p.line++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(&p, "line longer than %zu characters", sizeof line - 2);
            break;
        }
        char *tok[MAX_TOKENS];
        int n;
        rc = tokenize(&p, line, tok, &n);
        if (!rc && n) rc = keyword_line(&p, tok, n);
    }
    if (rc) return -1;
    p.line = 1;
    if (!d->app[0]) return fail(&p, "no `app` line");
    if (!d->ninputs) return fail(&p, "no `inputs` line");
    if (!d->nquick) {
        memcpy(d->quick, d->inputs, sizeof d->quick);
        d->nquick = d->ninputs;
    }
    for (int i = 0; i < d->ntables; i++)
        if (table_complete(&p, &d->tables[i])) return -1;
    return 0;
}

int report_def_parse(const char *path, struct report_def *d, char *err, size_t errn) {
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(d, 0, sizeof *d);
        snprintf(err, errn, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = report_def_read(f, path, d, err, errn);
    fclose(f);
    return rc;
}
