/* CSV landscapes (landscape_build.h): a header, then one row per
 * configuration (RFC 4180: a field with commas or quotes is quoted, its
 * quotes doubled). Rows whose first field starts with '#' and blank rows
 * are skipped. Columns:
 *   - the time: the first, by name, of median_U, time_U, runtime_U,
 *     mean_U, time, and seconds/milliseconds/microseconds/nanoseconds,
 *     where U is the unit: s, ms, us or ns. A bare "time" is Kernel
 *     Tuner's milliseconds. A time column whose unit is not one of these is
 *     an error, never a guess. An empty time, or one that is not a number
 *     (InvalidConfig, timeout), is a failed configuration.
 *   - q1_U and q3_U: the quartiles, for the point's spread (optional).
 *   - status: a failure unless empty, ok, correct or success (optional).
 *   - app, device, input, variant, iters: which landscape a row belongs to
 *     (landscape_pick.c); a variant written name{k=v,...} also gives the
 *     knobs k as parameters (the harness's tests/data/landscape-*.csv).
 *   - other figures (a name ending in _s, _ms, _us or _ns), reason and
 *     timestamp: not parameters, not read.
 *   - every other column is a parameter, its values typed by their text:
 *     numbers, true/false, anything else a string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "tune/landscape_build.h"

/* ---- records ---- */

struct csv {
    const char *path, *p, *end;
    int line;  /* the next record's first line */
    char *buf; /* the record's fields, each NUL-terminated */
    size_t len, cap;
    size_t *off; /* where each field starts in buf */
    int n, room;
    char **field; /* filled when a record is complete */
};

static void put(struct csv *c, char ch) {
    if (c->len == c->cap) c->cap = c->cap ? 2 * c->cap : 256, c->buf = xrealloc(c->buf, c->cap);
    c->buf[c->len++] = ch;
}

static void field_start(struct csv *c) {
    if (c->n == c->room) {
        c->room = c->room ? 2 * c->room : 16;
        c->off = xrealloc(c->off, sizeof *c->off * (size_t)c->room);
        c->field = xrealloc(c->field, sizeof *c->field * (size_t)c->room);
    }
    c->off[c->n++] = c->len;
}

/* The next record into c->field[0..n): 1, 0 at the end of the text, -1
 * with err on an unclosed quote. *line gets the record's first line. */
static int record(struct csv *c, int *line, char *err, size_t errn) {
    if (c->p >= c->end) return 0;
    c->len = 0, c->n = 0;
    *line = c->line;
    while (1) {
        field_start(c);
        int quoted = 0;
        if (c->p < c->end && *c->p == '"') {
            quoted = 1;
            const int opened = c->line;
            for (c->p++;; c->p++) {
                if (c->p >= c->end)
                    return err_set(err, errn, "%s:%d: a quoted field is never closed (the file ends)", c->path, opened);
                if (*c->p == '"' && c->p + 1 < c->end && c->p[1] == '"') put(c, '"'), c->p++;
                else if (*c->p == '"') break;
                else put(c, *c->p), c->line += *c->p == '\n';
            }
            c->p++;
        }
        while (c->p < c->end && *c->p != ',' && *c->p != '\n') {
            if (quoted && *c->p != '\r' && *c->p != ' ')
                return err_set(err, errn, "%s:%d: text after a field's closing quote", c->path, c->line);
            if (!quoted) put(c, *c->p);
            c->p++;
        }
        put(c, '\0');
        if (!quoted) str_trim(c->buf + c->off[c->n - 1]);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end) c->p++, c->line++; /* the line break */
        break;
    }
    for (int i = 0; i < c->n; i++) c->field[i] = c->buf + c->off[i];
    return 1;
}

/* Blank rows and comments (a first field starting with '#') are not data. */
static int skipped(const struct csv *c) { return (c->n == 1 && !c->field[0][0]) || c->field[0][0] == '#'; }

static int next_row(struct csv *c, int *line, char *err, size_t errn) {
    int rc;
    while ((rc = record(c, line, err, errn)) == 1 && skipped(c)) {
    }
    return rc;
}

/* ---- columns ---- */

enum role { PARAM, TIME, Q1, Q3, STATUS, ATTR, IGNORED };

struct column {
    enum role role;
    int attr;   /* ATTR: which (LB_APP ...) */
    double per; /* TIME, Q1, Q3: seconds per unit */
};

/* The unit after "prefix_" in name: seconds per unit, 0 when name has
 * another shape, -1 when the unit is unknown. */
static double unit_after(const char *name, const char *prefix) {
    const size_t n = strlen(prefix);
    if (strncasecmp(name, prefix, n) || name[n] != '_') return 0;
    const double per = lb_unit_seconds(name + n + 1);
    return per ? per : -1;
}

static int is_figure(const char *name) {
    static const char *const tails[] = {"_s", "_ms", "_us", "_ns"};
    const size_t n = strlen(name);
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        const size_t k = strlen(tails[t]);
        if (n > k && !strcasecmp(name + n - k, tails[t])) return 1;
    }
    return 0;
}

/* How well name names a time column (lower is better, 0: not one) and its
 * unit; *unknown set when it is a time column in a unit not known. */
static int time_rank(const char *name, double *per, int *unknown) {
    static const char *const prefixes[] = {"median", "time", "runtime", "mean"};
    static const struct {
        const char *name;
        double per;
    } whole[] = {{"seconds", 1}, {"milliseconds", 1e-3}, {"microseconds", 1e-6}, {"nanoseconds", 1e-9}};
    for (int i = 0; i < 4; i++) {
        const double u = unit_after(name, prefixes[i]);
        if (u > 0) return *per = u, 1 + i;
        if (u < 0) *unknown = 1;
    }
    if (!strcasecmp(name, "time")) return *per = 1e-3, 5; /* Kernel Tuner's unit */
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(name, whole[i].name)) return *per = whole[i].per, 6;
    return 0;
}

static int classify(const char *path, int line, char **names, int n, struct column *col, char *err, size_t errn) {
    static const char *const attrs[LB_ATTRS] = {"app", "device", "input", "variant", "iters"};
    int best = 0, at = -1, unknown = -1;
    for (int i = 0; i < n; i++) {
        double per = 0;
        int odd = 0;
        const int r = time_rank(names[i], &per, &odd);
        col[i] = (struct column){.role = PARAM, .per = per};
        if (r && (!best || r < best)) best = r, at = i;
        if (odd && unknown < 0) unknown = i;
        if (!names[i][0]) return err_set(err, errn, "%s:%d: column %d has no name", path, line, i + 1);
    }
    if (at < 0 && unknown >= 0)
        return err_set(err, errn,
                       "%s:%d: the time column \"%s\" is in a unit not known; name it with _s, _ms, _us "
                       "or _ns (median_s, time_ms, ...)",
                       path, line, names[unknown]);
    if (at < 0)
        return err_set(err, errn,
                       "%s:%d: no time column: name one time (Kernel Tuner's ms), time_ms, median_s, "
                       "seconds, ... (_s, _ms, _us or _ns)",
                       path, line);
    for (int i = 0; i < n; i++) {
        struct column *c = &col[i];
        double u;
        if (i == at) c->role = TIME;
        else if ((u = unit_after(names[i], "q1")) > 0) c->role = Q1, c->per = u;
        else if ((u = unit_after(names[i], "q3")) > 0) c->role = Q3, c->per = u;
        else if (!strcasecmp(names[i], "status")) c->role = STATUS;
        else if (is_figure(names[i]) || time_rank(names[i], &u, &(int){0}) || !strcasecmp(names[i], "reason") ||
                 !strcasecmp(names[i], "timestamp"))
            c->role = IGNORED;
        for (int a = 0; a < LB_ATTRS && c->role == PARAM; a++)
            if (!strcasecmp(names[i], attrs[a])) c->role = ATTR, c->attr = a;
    }
    return 0;
}

/* ---- rows ---- */

/* A variant field: its name before '{' (into base) and its knobs as
 * name=value pairs (each NUL-terminated in place). The number of knobs,
 * or -1 with err. */
static int variant_knobs(const char *path, int line, char *v, char **base, char ***kv, int *cap, char *err,
                         size_t errn) {
    *base = v;
    char *open = strchr(v, '{');
    if (!open) return 0;
    const size_t n = strlen(v);
    if (v[n - 1] != '}')
        return err_set(err, errn, "%s:%d: the variant \"%s\" opens '{' without closing it at the end", path, line, v);
    *open = '\0', v[n - 1] = '\0';
    int k = 0;
    for (char *save = NULL, *pair = strtok_r(open + 1, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq || eq == pair || !eq[1])
            return err_set(err, errn, "%s:%d: in variant %s: \"%s\" is not knob=value", path, line, v, pair);
        if (k == *cap) *cap = *cap ? 2 * *cap : 8, *kv = xrealloc(*kv, sizeof **kv * (size_t)*cap);
        (*kv)[k++] = pair;
    }
    return k;
}

struct load {
    const char *path;
    struct csv c;
    struct column *col;
    int ncol, variant_col; /* the variant column, or -1 */
    struct lb_groups gs;
    char **kv; /* the row's knobs */
    int kv_cap, knob_first, nknobs;
    int *coord;
};

/* The row's landscape: its attributes (a variant's name without knobs). */
static int row_group(struct load *ld, int line, int *nknobs, char *err, size_t errn) {
    const char *attr[LB_ATTRS] = {0};
    for (int i = 0; i < ld->ncol; i++)
        if (ld->col[i].role == ATTR && ld->col[i].attr != LB_VARIANT) attr[ld->col[i].attr] = ld->c.field[i];
    *nknobs = 0;
    if (ld->variant_col >= 0) {
        char *base;
        *nknobs = variant_knobs(ld->path, line, ld->c.field[ld->variant_col], &base, &ld->kv, &ld->kv_cap, err, errn);
        if (*nknobs < 0) return -1;
        attr[LB_VARIANT] = base;
    }
    return lb_group_of(&ld->gs, attr);
}

static int value_level(struct landscape *l, int k, const char *text, const char *path, int line, char *err,
                       size_t errn) {
    if (!*text) return err_set(err, errn, "%s:%d: no value for %s", path, line, l->param[k].name);
    struct landscape_value v;
    lb_value_of_text(&v, text);
    return lb_level(&l->param[k], &v, 1);
}

/* The parameters, in column order, a variant's knobs where its column is
 * (the first row of the landscape names them). */
static int declare(struct load *ld, struct landscape *l, char **names, int nknobs, int line, char *err, size_t errn) {
    for (int i = 0; i < ld->ncol; i++) {
        const char *name = ld->col[i].role == PARAM ? names[i] : NULL;
        if (i == ld->variant_col) {
            ld->knob_first = l->nparams, ld->nknobs = nknobs;
            for (int k = 0; k < nknobs; k++) {
                *strchr(ld->kv[k], '=') = '\0';
                if (lb_param_find(l, ld->kv[k]) >= 0)
                    return err_set(err, errn, "%s:%d: knob %s is named twice", ld->path, line, ld->kv[k]);
                lb_param(l, ld->kv[k]);
                ld->kv[k][strlen(ld->kv[k])] = '=';
            }
        }
        if (!name) continue;
        for (int k = 0; k < l->nparams; k++)
            if (!strcmp(l->param[k].name, name))
                return err_set(err, errn, "%s:%d: %s is both a column and a knob of the variant", ld->path, line, name);
        lb_param(l, name);
    }
    ld->coord = xcalloc((size_t)l->nparams + 1, sizeof *ld->coord);
    return 0;
}

static int row_point(struct load *ld, struct landscape *l, int line, int nknobs, char *err, size_t errn) {
    const char *path = ld->path;
    double seconds = -1, q1 = -1, q3 = -1, per_q1 = 1, per_q3 = 1;
    int k = 0, ok = 1;
    if (nknobs != ld->nknobs)
        return err_set(err, errn, "%s:%d: the variant has %d knobs; the landscape's first row has %d", path, line,
                       nknobs, ld->nknobs);
    for (int i = 0; i < ld->ncol; i++) {
        const char *f = ld->c.field[i];
        const struct column *c = &ld->col[i];
        if (i == ld->variant_col) {
            /* As many knobs as the first row, each one of its, none twice: so each is set. */
            for (int j = 0; j < nknobs; j++) ld->coord[ld->knob_first + j] = -1;
            for (int j = 0; j < nknobs; j++) {
                char *eq = strchr(ld->kv[j], '=');
                *eq = '\0';
                const int p = lb_param_find(l, ld->kv[j]);
                if (p < ld->knob_first || p >= ld->knob_first + ld->nknobs)
                    return err_set(err, errn, "%s:%d: knob %s is not one of the landscape's first row", path, line,
                                   ld->kv[j]);
                if (ld->coord[p] >= 0)
                    return err_set(err, errn, "%s:%d: knob %s is named twice", path, line, ld->kv[j]);
                if ((ld->coord[p] = value_level(l, p, eq + 1, path, line, err, errn)) < 0) return -1;
            }
        }
        if (c->role == PARAM) {
            while (k >= ld->knob_first && k < ld->knob_first + ld->nknobs) k++;
            if ((ld->coord[k] = value_level(l, k, f, path, line, err, errn)) < 0) return -1;
            k++;
        } else if (c->role == TIME) {
            double v;
            if (*f && !parse_real(f, -1e300, 1e300, &v) && v < LB_FAILED_TIME) {
                if (!(v > 0)) return err_set(err, errn, "%s:%d: time %s is not a duration", path, line, f);
                seconds = v * c->per;
            }
        } else if (c->role == Q1 || c->role == Q3) {
            double v;
            if (*f && !parse_real(f, 0, 1e300, &v)) *(c->role == Q1 ? &q1 : &q3) = v;
            *(c->role == Q1 ? &per_q1 : &per_q3) = c->per;
        } else if (c->role == STATUS) {
            ok = !*f || !strcasecmp(f, "ok") || !strcasecmp(f, "correct") || !strcasecmp(f, "success");
        }
    }
    if (!ok) seconds = -1;
    const double noise = seconds > 0 && q1 >= 0 && q3 >= 0 ? (q3 * per_q3 - q1 * per_q1) / seconds : 0;
    return lb_point(l, ld->coord, seconds, noise, line, LB_REPEAT_ERROR, err, errn);
}

int landscape_csv(const char *path, const char *text, size_t len, const struct landscape_pick *pick,
                  struct landscape *l, char *err, size_t errn) {
    l->format = "CSV";
    struct load ld = {.path = path, .c = {.path = path, .p = text, .end = text + len, .line = 1}, .variant_col = -1};
    int line = 0, rc = next_row(&ld.c, &line, err, errn), header_line = line, nknobs;
    char **names = NULL;
    if (rc == 0) rc = err_set(err, errn, "%s: no header: not a landscape", path);
    if (rc == 1) {
        ld.ncol = ld.c.n;
        names = xcalloc((size_t)ld.ncol, sizeof *names);
        for (int i = 0; i < ld.ncol; i++) names[i] = xstrdup(ld.c.field[i]);
        ld.col = xcalloc((size_t)ld.ncol, sizeof *ld.col);
        rc = classify(path, line, names, ld.ncol, ld.col, err, errn) ? -1 : 1;
        for (int i = 0; i < ld.ncol && rc == 1; i++)
            if (ld.col[i].role == ATTR && ld.col[i].attr == LB_VARIANT) ld.variant_col = i;
    }
    const char *rows_at = ld.c.p;
    const int rows_line = ld.c.line;
    /* Pass 1: which landscapes the file holds. */
    while (rc == 1 && (rc = next_row(&ld.c, &line, err, errn)) == 1) {
        if (ld.c.n != ld.ncol)
            rc = err_set(err, errn, "%s:%d: %d fields; the header (line %d) has %d", path, line, ld.c.n, header_line,
                         ld.ncol);
        else if (row_group(&ld, line, &nknobs, err, errn) < 0) rc = -1;
    }
    if (!rc && !ld.gs.n) rc = err_set(err, errn, "%s: a header and no rows: nothing recorded", path);
    const int k = rc ? -1 : lb_group_pick(&ld.gs, pick, path, err, errn);
    if (k >= 0) {
        l->group = lb_group_label(&ld.gs, k);
        l->device = ld.gs.g[k].attr[LB_DEVICE] ? xstrdup(ld.gs.g[k].attr[LB_DEVICE]) : NULL;
        l->kernel = ld.gs.g[k].attr[LB_APP] ? xstrdup(ld.gs.g[k].attr[LB_APP]) : NULL;
        /* Pass 2: its rows. */
        ld.c.p = rows_at, ld.c.line = rows_line;
        while ((rc = next_row(&ld.c, &line, err, errn)) == 1) {
            if (row_group(&ld, line, &nknobs, err, errn) != k) continue;
            if (!ld.coord && declare(&ld, l, names, nknobs, line, err, errn)) break;
            if (row_point(&ld, l, line, nknobs, err, errn)) break;
        }
        rc = rc == 0 ? 0 : -1;
    }
    for (int i = 0; names && i < ld.ncol; i++) free(names[i]);
    free(names);
    free(ld.col);
    free(ld.c.buf);
    free(ld.c.off);
    free(ld.c.field);
    free(ld.kv);
    free(ld.coord);
    lb_groups_free(&ld.gs);
    return rc || k < 0 ? -1 : lb_finish(l, err, errn);
}
