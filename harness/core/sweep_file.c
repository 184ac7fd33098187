/* Sweep files (sweep_file.h): a line parser with one function per keyword,
 * work-group shape generators, a small integer constraint language, and the
 * expansion of knob patterns into variants. */
#include "core/sweep_file.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/worker.h"

static int is_pow2(unsigned long x) { return x && (x & (x - 1)) == 0; }

/* The same rule as variant names in variants.c, so a name that parses here
 * can name a variant there. */
static int name_ok(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.')) return 0;
    return 1;
}

/* ---- Constraint expressions ------------------------------------------------
 * Parsed again on every evaluation: expressions are short, and keeping only
 * their text leaves sweep_spec a plain value with no tree to own or free. */

static const char *const expr_vars[] = {"x", "y", "max_wg", "max_x", "max_y", "nx", "ny", "local_mem", "compute_units"};
#define EXPR_NVARS ((int)(sizeof expr_vars / sizeof expr_vars[0]))

/* C's binary operators from the loosest to the tightest. */
#define EXPR_NLEVELS 6
static const char *const expr_levels[EXPR_NLEVELS][4] = {
    {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"},
};

struct expr {
    const char *text, *p;  /* the whole expression and the cursor */
    const long long *vals; /* values of expr_vars; NULL checks syntax and names only */
    int skip;              /* inside the side of && or || that C leaves unevaluated */
    int failed;
    char *err;
    size_t errn;
    /* The last comparison that came out false: what explains a rejection. */
    const char *cmp_from, *cmp_to, *cmp_op;
    long long cmp_l, cmp_r;
};

static void expr_fail(struct expr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expr_fail(struct expr *e, const char *fmt, ...) {
    if (e->failed++) return; /* the first failure is the one worth reading */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errn, fmt, ap);
    va_end(ap);
}

static int expr_live(const struct expr *e) { return e->vals && !e->skip && !e->failed; }
static int expr_column(const struct expr *e) { return (int)(e->p - e->text) + 1; }

static void expr_space(struct expr *e) {
    while (isspace((unsigned char)*e->p)) e->p++;
}

/* Consumes tok when it comes next; "<", ">" and "!" never take the start of
 * "<=", ">=" or "!=". */
static int expr_take(struct expr *e, const char *tok) {
    expr_space(e);
    size_t n = strlen(tok);
    if (strncmp(e->p, tok, n) != 0) return 0;
    if (n == 1 && strchr("<>!", tok[0]) && e->p[1] == '=') return 0;
    e->p += n;
    return 1;
}

static long long expr_level(struct expr *e, int level);

/* The length of from..to without the spaces the cursor skipped looking for
 * an operator, for quoting a part of the expression. */
static int span(const char *from, const char *to) {
    while (to > from && isspace((unsigned char)to[-1])) to--;
    return (int)(to - from);
}

static long long expr_number(struct expr *e) {
    char *end;
    errno = 0;
    long long v = strtoll(e->p, &end, 10);
    if (errno == ERANGE) expr_fail(e, "number too large at column %d", expr_column(e));
    else if (isalpha((unsigned char)*end) || *end == '_') expr_fail(e, "bad number at column %d", expr_column(e));
    e->p = end;
    return v;
}

static long long expr_variable(struct expr *e) {
    const char *start = e->p;
    while (isalnum((unsigned char)*e->p) || *e->p == '_') e->p++;
    size_t len = (size_t)(e->p - start);
    for (int i = 0; i < EXPR_NVARS; i++)
        if (strlen(expr_vars[i]) == len && strncmp(start, expr_vars[i], len) == 0) return expr_live(e) ? e->vals[i] : 0;
    char names[256] = "";
    for (int i = 0; i < EXPR_NVARS; i++)
        str_fmt(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", expr_vars[i]);
    expr_fail(e, "unknown variable '%.*s' (variables: %s)", (int)len, start, names);
    return 0;
}

static long long expr_primary(struct expr *e) {
    expr_space(e);
    if (isdigit((unsigned char)*e->p)) return expr_number(e);
    if (isalpha((unsigned char)*e->p) || *e->p == '_') return expr_variable(e);
    if (expr_take(e, "(")) {
        long long v = expr_level(e, 0);
        if (!e->failed && !expr_take(e, ")")) expr_fail(e, "expected ')' at column %d", expr_column(e));
        return v;
    }
    if (!*e->p) expr_fail(e, "unexpected end of expression");
    else expr_fail(e, "unexpected '%c' at column %d", *e->p, expr_column(e));
    return 0;
}

static long long expr_unary(struct expr *e) {
    if (expr_take(e, "!")) return !expr_unary(e);
    if (expr_take(e, "+")) return expr_unary(e);
    if (expr_take(e, "-")) {
        long long v = expr_unary(e);
        if (v != LLONG_MIN) return -v;
        if (expr_live(e)) expr_fail(e, "integer overflow");
        return 0;
    }
    return expr_primary(e);
}

/* Arithmetic on long long with overflow and division by zero as failures,
 * never as undefined behaviour. */
static long long expr_arith(struct expr *e, char op, long long l, long long r, const char *from) {
    long long v = 0;
    int over = 0;
    if (op == '+') over = __builtin_add_overflow(l, r, &v);
    else if (op == '-') over = __builtin_sub_overflow(l, r, &v);
    else if (op == '*') over = __builtin_mul_overflow(l, r, &v);
    else if (r == 0) expr_fail(e, "division by zero in '%.*s'", span(from, e->p), from);
    else if (l == LLONG_MIN && r == -1) over = 1;
    else v = op == '/' ? l / r : l % r;
    if (over) expr_fail(e, "integer overflow in '%.*s'", span(from, e->p), from);
    return v;
}

static long long expr_compare(struct expr *e, const char *op, long long l, long long r, const char *from) {
    int v = op[0] == '='   ? l == r
            : op[0] == '!' ? l != r
            : op[0] == '<' ? (op[1] ? l <= r : l < r)
                           : (op[1] ? l >= r : l > r);
    if (!v) {
        e->cmp_from = from;
        e->cmp_to = e->p;
        e->cmp_op = op;
        e->cmp_l = l;
        e->cmp_r = r;
    }
    return v;
}

static const char *expr_op(struct expr *e, int level) {
    for (int i = 0; i < 4 && expr_levels[level][i]; i++)
        if (expr_take(e, expr_levels[level][i])) return expr_levels[level][i];
    return NULL;
}

/* One precedence level, left-associative. && and || leave their right side
 * unevaluated once the left decides, as in C, so "x != 0 && nx % x == 0"
 * never divides by zero. */
static long long expr_level(struct expr *e, int level) {
    if (level == EXPR_NLEVELS) return expr_unary(e);
    expr_space(e);
    const char *from = e->p, *op;
    long long l = expr_level(e, level + 1);
    while (!e->failed && (op = expr_op(e, level))) {
        const int logical = level <= 1;
        const int decided = logical && (level == 0 ? l != 0 : l == 0);
        const int outer = e->skip;
        e->skip |= decided;
        long long r = expr_level(e, level + 1);
        e->skip = outer;
        if (logical) l = decided ? level == 0 : r != 0;
        else if (expr_live(e)) l = level <= 3 ? expr_compare(e, op, l, r, from) : expr_arith(e, op[0], l, r, from);
    }
    return l;
}

/* Parses text whole and, given vals, evaluates it; -1 with err on failure. */
static int expr_run(struct expr *e, const char *text, const long long *vals, long long *value, char *err, size_t errn) {
    memset(e, 0, sizeof *e);
    e->text = e->p = text;
    e->vals = vals;
    e->err = err;
    e->errn = errn;
    long long v = expr_level(e, 0);
    expr_space(e);
    if (!e->failed && *e->p == '=') expr_fail(e, "unexpected '=' at column %d (equality is '==')", expr_column(e));
    else if (!e->failed && *e->p) expr_fail(e, "unexpected '%c' at column %d", *e->p, expr_column(e));
    *value = v;
    return e->failed ? -1 : 0;
}

static const char *negated(const char *op) {
    static const char *const pairs[][2] = {{"<=", ">"}, {"<", ">="},  {">=", "<"},
                                           {">", "<="}, {"==", "!="}, {"!=", "=="}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(op, pairs[i][0]) == 0) return pairs[i][1];
    return "?";
}

/* "x*y <= max_wg: 2048 > 1024", or with the failing part named when the
 * expression has several: "x <= 64 && nx % x == 0: nx % x == 0: 8 != 0". */
static void expr_explain(const struct expr *e, char *why, size_t whyn) {
    if (!e->cmp_from) {
        str_fmt(why, whyn, "%s: false", e->text);
    } else if (e->cmp_from == e->text && !*e->cmp_to) {
        str_fmt(why, whyn, "%s: %lld %s %lld", e->text, e->cmp_l, negated(e->cmp_op), e->cmp_r);
    } else {
        str_fmt(why, whyn, "%s: %.*s: %lld %s %lld", e->text, span(e->cmp_from, e->cmp_to), e->cmp_from, e->cmp_l,
                negated(e->cmp_op), e->cmp_r);
    }
}

static long long clamp_ll(uint64_t v) { return v > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)v; }

int sweep_constraints_ok(const struct sweep_spec *s, const unsigned wg[2], const struct device_info *d,
                         const size_t grid[2], char *why, size_t whyn) {
    const long long vals[] = {wg[0],
                              wg[1],
                              clamp_ll(d->max_wg),
                              clamp_ll(d->max_item[0]),
                              clamp_ll(d->max_item[1]),
                              clamp_ll(grid[0]),
                              clamp_ll(grid[1]),
                              clamp_ll(d->local_mem),
                              d->compute_units};
    _Static_assert(sizeof vals / sizeof vals[0] == EXPR_NVARS, "one value per constraint variable");
    if (why && whyn) why[0] = '\0';
    for (int i = 0; i < s->nconstraints; i++) {
        struct expr e;
        char msg[256];
        long long v;
        if (expr_run(&e, s->constraints[i].expr, vals, &v, msg, sizeof msg) != 0) {
            str_fmt(why, whyn, "%s:%d: constraint '%s' at shape %ux%u: %s", s->path, s->constraints[i].line,
                    s->constraints[i].expr, wg[0], wg[1], msg);
            return -1;
        }
        if (!v) {
            expr_explain(&e, why, whyn);
            return 0;
        }
    }
    return 1;
}

/* ---- Work-group shapes -------------------------------------------------------
 * A shape is DIM x DIM; a DIM is a size, pow2(a..b), range(a..b [step s]) or
 * {a,b,...}. One shape term gives the product of its two lists. */

struct dim {
    int n;
    unsigned v[SWEEP_MAX_SHAPES]; /* a term of more sizes than this could not fit anyway */
};

struct scan {
    const char *p;
    char *msg;
    size_t msgn;
};

static void scan_space(struct scan *sc) {
    while (isspace((unsigned char)*sc->p)) sc->p++;
}

static int scan_take(struct scan *sc, const char *tok) {
    scan_space(sc);
    size_t n = strlen(tok);
    if (strncmp(sc->p, tok, n) != 0) return 0;
    sc->p += n;
    return 1;
}

/* Where the scanner stands, for messages. */
static const char *scan_here(const struct scan *sc, char *buf, size_t n) {
    if (!*sc->p) return "the end of the line";
    str_fmt(buf, n, "'%.24s'", sc->p);
    return buf;
}

/* `where` completes "expected 'tok' ...": "in pow2(a..b)", "after a shape's first size". */
static int scan_expect(struct scan *sc, const char *tok, const char *where) {
    if (scan_take(sc, tok)) return 0;
    char here[40];
    return err_set(sc->msg, sc->msgn, "expected '%s' %s at %s", tok, where, scan_here(sc, here, sizeof here));
}

/* A size or a step: 1 to SWEEP_MAX_EXTENT. */
static int scan_size(struct scan *sc, unsigned *out, const char *what) {
    scan_space(sc);
    char here[40];
    if (!isdigit((unsigned char)*sc->p))
        return err_set(sc->msg, sc->msgn, "expected a %s at %s", what, scan_here(sc, here, sizeof here));
    char *end;
    errno = 0;
    unsigned long v = strtoul(sc->p, &end, 10);
    if (errno || v < 1 || v > SWEEP_MAX_EXTENT)
        return err_set(sc->msg, sc->msgn, "%s %.*s is outside 1..%d", what, (int)(end - sc->p), sc->p,
                       SWEEP_MAX_EXTENT);
    sc->p = end;
    *out = (unsigned)v;
    return 0;
}

static int dim_push(struct scan *sc, struct dim *d, unsigned long v) {
    if (d->n == SWEEP_MAX_SHAPES)
        return err_set(sc->msg, sc->msgn, "a generator gives more than %d sizes", SWEEP_MAX_SHAPES);
    d->v[d->n++] = (unsigned)v;
    return 0;
}

/* "a..b" of pow2(...) or range(...), not yet the closing parenthesis. */
static int scan_bounds(struct scan *sc, const char *gen, const char *where, unsigned *a, unsigned *b) {
    if (scan_size(sc, a, "size") || scan_expect(sc, "..", where) || scan_size(sc, b, "size")) return -1;
    if (*a > *b) return err_set(sc->msg, sc->msgn, "%s(%u..%u) is empty: %u > %u", gen, *a, *b, *a, *b);
    return 0;
}

static int gen_pow2(struct scan *sc, struct dim *d) {
    unsigned a, b;
    if (scan_bounds(sc, "pow2", "in pow2(a..b)", &a, &b)) return -1;
    if (!is_pow2(a) || !is_pow2(b))
        return err_set(sc->msg, sc->msgn, "pow2(%u..%u): both ends must be powers of two", a, b);
    if (scan_expect(sc, ")", "to close pow2(a..b)")) return -1;
    for (unsigned long v = a; v <= b; v *= 2)
        if (dim_push(sc, d, v)) return -1;
    return 0;
}

static int gen_range(struct scan *sc, struct dim *d) {
    unsigned a, b, step = 1;
    if (scan_bounds(sc, "range", "in range(a..b)", &a, &b)) return -1;
    if (scan_take(sc, "step") && scan_size(sc, &step, "step")) return -1;
    if (scan_expect(sc, ")", "to close range(a..b [step s])")) return -1;
    for (unsigned long v = a; v <= b; v += step)
        if (dim_push(sc, d, v)) return -1;
    return 0;
}

static int gen_set(struct scan *sc, struct dim *d) {
    if (scan_take(sc, "}")) return err_set(sc->msg, sc->msgn, "{} is an empty set");
    do {
        unsigned v;
        if (scan_size(sc, &v, "size") || dim_push(sc, d, v)) return -1;
    } while (scan_take(sc, ","));
    return scan_expect(sc, "}", "to close {a,b,...}");
}

static int scan_dim(struct scan *sc, struct dim *d) {
    d->n = 0;
    if (scan_take(sc, "pow2(")) return gen_pow2(sc, d);
    if (scan_take(sc, "range(")) return gen_range(sc, d);
    if (scan_take(sc, "{")) return gen_set(sc, d);
    scan_space(sc);
    if (isdigit((unsigned char)*sc->p)) {
        unsigned v;
        return scan_size(sc, &v, "size") || dim_push(sc, d, v) ? -1 : 0;
    }
    char here[40];
    return err_set(sc->msg, sc->msgn, "expected a size, pow2(a..b), range(a..b [step s]) or {a,b,...} at %s",
                   scan_here(sc, here, sizeof here));
}

/* Adds a shape unless already there: lines union, first mention keeps its place. */
static int shape_add(struct sweep_spec *s, unsigned x, unsigned y, char *msg, size_t msgn) {
    for (int i = 0; i < s->nshapes; i++)
        if (s->shapes[i][0] == x && s->shapes[i][1] == y) return 0;
    if (s->nshapes == SWEEP_MAX_SHAPES) return err_set(msg, msgn, "more than %d distinct shapes", SWEEP_MAX_SHAPES);
    s->shapes = realloc(s->shapes, sizeof *s->shapes * (size_t)(s->nshapes + 1));
    if (!s->shapes) abort();
    s->shapes[s->nshapes][0] = x;
    s->shapes[s->nshapes][1] = y;
    s->nshapes++;
    return 0;
}

/* One DIM x DIM term into the spec. */
static int shape_term(struct sweep_spec *s, struct scan *sc, struct dim *dx, struct dim *dy) {
    if (scan_dim(sc, dx) || scan_expect(sc, "x", "after a shape's first size") || scan_dim(sc, dy)) return -1;
    if ((long)dx->n * dy->n > SWEEP_MAX_SHAPES)
        return err_set(sc->msg, sc->msgn, "one shape gives %d x %d = %ld shapes; the limit is %d", dx->n, dy->n,
                       (long)dx->n * dy->n, SWEEP_MAX_SHAPES);
    for (int i = 0; i < dx->n; i++)
        for (int j = 0; j < dy->n; j++)
            if (shape_add(s, dx->v[i], dy->v[j], sc->msg, sc->msgn)) return -1;
    return 0;
}

/* ---- Keywords ------------------------------------------------------------------
 * Each gets the trimmed, non-empty text after the keyword and writes a
 * message without file, line or keyword: the caller adds those. */

static int one_word(const char *args, char *msg, size_t msgn) {
    if (args[strcspn(args, " \t")]) return err_set(msg, msgn, "takes one value, not '%s'", args);
    return 0;
}

static int parse_long(const char *w, long lo, long hi, long *out, char *msg, size_t msgn) {
    if (parse_whole(w, lo, hi, out) == 0) return 0;
    if (hi == LONG_MAX) return err_set(msg, msgn, "'%s' is not an integer >= %ld", w, lo);
    return err_set(msg, msgn, "'%s' is not an integer from %ld to %ld", w, lo, hi);
}

/* Appends a word to a list, dropping repeats (the first mention keeps its
 * place and line). */
static int list_add(char list[][64], int *n, int *lines, const char *word, int line, char *msg, size_t msgn) {
    if (strlen(word) >= 64) return err_set(msg, msgn, "'%.40s...' is longer than 63 characters", word);
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i], word) == 0) return 0;
    if (*n == SWEEP_MAX_LIST) return err_set(msg, msgn, "more than %d values", SWEEP_MAX_LIST);
    str_copy(list[*n], 64, word);
    if (lines) lines[*n] = line;
    (*n)++;
    return 0;
}

static int kw_app(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    if (s->app[0]) return err_set(msg, msgn, "given twice (first on line %d)", s->app_line);
    if (one_word(args, msg, msgn)) return -1;
    if (!name_ok(args) || strlen(args) >= sizeof s->app) return err_set(msg, msgn, "bad app name '%s'", args);
    str_copy(s->app, sizeof s->app, args);
    s->app_line = line;
    return 0;
}

/* Input names are the app's to check (the core knows no app's formats);
 * their lines are kept so the caller can say where a bad one was. */
static int kw_input(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    for (char *save = NULL, *w = strtok_r(args, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        if (list_add(s->inputs, &s->ninputs, s->input_lines, w, line, msg, msgn)) return -1;
    return 0;
}

static int kw_variant(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    for (char *save = NULL, *w = strtok_r(args, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (!name_ok(w)) return err_set(msg, msgn, "bad name '%s'", w);
        if (list_add(s->variants, &s->nvariants, s->variant_lines, w, line, msg, msgn)) return -1;
    }
    return 0;
}

static int kw_device(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    for (char *save = NULL, *w = strtok_r(args, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        if (list_add(s->devices, &s->ndevices, NULL, w, line, msg, msgn)) return -1;
    return 0;
}

static int kw_wg(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    struct dim dx, dy;
    struct scan sc = {args, msg, msgn};
    for (scan_space(&sc); *sc.p; scan_space(&sc))
        if (shape_term(s, &sc, &dx, &dy)) return -1;
    return 0;
}

static int kw_constraint(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    if (s->nconstraints == SWEEP_MAX_CONSTRAINTS)
        return err_set(msg, msgn, "more than %d constraints", SWEEP_MAX_CONSTRAINTS);
    struct sweep_constraint *c = &s->constraints[s->nconstraints];
    if (strlen(args) >= sizeof c->expr) return err_set(msg, msgn, "longer than %zu characters", sizeof c->expr - 1);
    struct expr e;
    long long unused;
    if (expr_run(&e, args, NULL, &unused, msg, msgn)) return -1;
    str_copy(c->expr, sizeof c->expr, args);
    c->line = line;
    s->nconstraints++;
    return 0;
}

/* A knobs pattern split in place: settings "k=v1|v2" in the pattern's order. */
struct pattern_split {
    int n;
    const char *name[KNOB_MAX], *alts[KNOB_MAX];
    int nalts[KNOB_MAX];
    char buf[512];
};

static int alts_ok(const char *alts) {
    return *alts && *alts != '|' && alts[strlen(alts) - 1] != '|' && !strstr(alts, "||");
}

/* Commas separate settings too, as in knobs_apply, so a value never holds one. */
static int pattern_split(const char *text, struct pattern_split *x, char *msg, size_t msgn) {
    x->n = 0;
    str_copy(x->buf, sizeof x->buf, text);
    for (char *save = NULL, *tok = strtok_r(x->buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) return err_set(msg, msgn, "'%s' is not knob=value|value...", tok);
        *eq = '\0';
        for (int j = 0; j < x->n; j++)
            if (strcmp(x->name[j], tok) == 0) return err_set(msg, msgn, "knob '%s' set twice", tok);
        if (!alts_ok(eq + 1)) return err_set(msg, msgn, "knob '%s': an empty value in '%s'", tok, eq + 1);
        if (x->n == KNOB_MAX) return err_set(msg, msgn, "more than %d knobs in one pattern", KNOB_MAX);
        x->name[x->n] = tok;
        x->alts[x->n] = eq + 1;
        x->nalts[x->n] = 1;
        for (const char *p = eq + 1; (p = strchr(p, '|')); p++) x->nalts[x->n]++;
        x->n++;
    }
    if (!x->n) return err_set(msg, msgn, "no knob=value settings");
    return 0;
}

/* The number of combinations, or SWEEP_MAX_EXPANSIONS + 1 when over it. */
static long pattern_count(const struct pattern_split *x) {
    long total = 1;
    for (int j = 0; j < x->n && total <= SWEEP_MAX_EXPANSIONS; j++) total *= x->nalts[j];
    return total > SWEEP_MAX_EXPANSIONS ? SWEEP_MAX_EXPANSIONS + 1 : total;
}

static int kw_knobs(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    if (s->npatterns == SWEEP_MAX_LIST) return err_set(msg, msgn, "more than %d patterns", SWEEP_MAX_LIST);
    struct sweep_pattern *p = &s->patterns[s->npatterns];
    memset(p, 0, sizeof *p);
    char *eq = strchr(args, '='), *colon = strchr(args, ':'), *rest = args;
    if (colon && (!eq || colon < eq)) { /* "BASE: k=v..." */
        *colon = '\0';
        str_trim(args);
        if (!name_ok(args) || strlen(args) >= sizeof p->base)
            return err_set(msg, msgn, "bad base variant name '%s'", args);
        str_copy(p->base, sizeof p->base, args);
        rest = colon + 1;
        str_trim(rest);
    }
    if (strlen(rest) >= sizeof p->knobs)
        return err_set(msg, msgn, "the settings are longer than %zu characters", sizeof p->knobs - 1);
    struct pattern_split x;
    if (pattern_split(rest, &x, msg, msgn)) return -1;
    if (pattern_count(&x) > SWEEP_MAX_EXPANSIONS)
        return err_set(msg, msgn, "gives more than %d variants", SWEEP_MAX_EXPANSIONS);
    str_copy(p->knobs, sizeof p->knobs, rest);
    p->line = line;
    s->npatterns++;
    return 0;
}

static int kw_reps(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    long v = 0;
    if (one_word(args, msg, msgn) || parse_long(args, 1, 1000000, &v, msg, msgn)) return -1;
    s->reps = (int)v;
    return 0;
}

static int kw_rounds(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    long v = 0;
    if (one_word(args, msg, msgn) || parse_long(args, 1, 10000, &v, msg, msgn)) return -1;
    s->rounds = (int)v;
    return 0;
}

static int kw_warmup(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    long v = 0;
    if (one_word(args, msg, msgn) || parse_long(args, 0, 1000000, &v, msg, msgn)) return -1;
    s->warmup = (int)v;
    return 0;
}

static int kw_iters(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    return one_word(args, msg, msgn) || parse_long(args, 1, LONG_MAX, &s->iters, msg, msgn) ? -1 : 0;
}

static int kw_timeout(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn) {
    (void)line;
    if (one_word(args, msg, msgn)) return -1;
    double v;
    if (parse_real(args, 0, DBL_MAX, &v) || v <= 0)
        return err_set(msg, msgn, "'%s' is not a positive number of seconds", args);
    s->timeout_s = v;
    return 0;
}

typedef int (*keyword_fn)(struct sweep_spec *s, char *args, int line, char *msg, size_t msgn);
static const struct {
    const char *name;
    keyword_fn fn;
} keywords[] = {
    {"app", kw_app},       {"input", kw_input}, {"variant", kw_variant},       {"knobs", kw_knobs},
    {"device", kw_device}, {"wg", kw_wg},       {"constraint", kw_constraint}, {"reps", kw_reps},
    {"warmup", kw_warmup}, {"iters", kw_iters}, {"timeout", kw_timeout},       {"rounds", kw_rounds},
};
#define NKEYWORDS ((int)(sizeof keywords / sizeof keywords[0]))

static int unknown_keyword(const char *word, char *msg, size_t msgn) {
    struct strbuf names = {0};
    for (int i = 0; i < NKEYWORDS; i++) sb_printf(&names, "%s%s", i ? ", " : "", keywords[i].name);
    err_set(msg, msgn, "unknown keyword '%s' (keywords: %s)", word, names.s);
    sb_free(&names);
    return -1;
}

/* One line, comments and all; the message lacks only "file:line: ". */
static int parse_line(struct sweep_spec *s, char *line, int lineno, char *msg, size_t msgn) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    str_trim(line);
    if (!*line) return 0;
    char *args = line + strcspn(line, " \t");
    if (*args) *args++ = '\0';
    str_trim(args);
    for (int i = 0; i < NKEYWORDS; i++) {
        if (strcmp(line, keywords[i].name) != 0) continue;
        char why[768];
        if (!*args) return err_set(msg, msgn, "%s: missing value", line);
        if (keywords[i].fn(s, args, lineno, why, sizeof why)) return err_set(msg, msgn, "%s: %s", line, why);
        return 0;
    }
    return unknown_keyword(line, msg, msgn);
}

/* Whole-file rules and defaults, once every line is read; `last` is the
 * last line number, where "missing" errors point. */
static int sweep_finish(struct sweep_spec *s, int last, char *err, size_t errn) {
    if (!s->app[0]) return err_set(err, errn, "%s:%d: no 'app' line: a sweep names its app", s->path, last);
    if (!s->ninputs)
        return err_set(err, errn, "%s:%d: no 'input' line: a sweep names at least one input", s->path, last);
    if (!s->nvariants && !s->npatterns)
        return err_set(err, errn, "%s:%d: no 'variant' or 'knobs' line: nothing to run", s->path, last);
    if (!s->ndevices) list_add(s->devices, &s->ndevices, NULL, "all", 0, NULL, 0);
    if (!s->nshapes) shape_add(s, 32, 1, NULL, 0);
    return 0;
}

int sweep_parse_text(const char *path, const char *contents, struct sweep_spec *s, char *err, size_t errn) {
    memset(s, 0, sizeof *s);
    str_copy(s->path, sizeof s->path, path);
    s->reps = 5;
    s->rounds = SWEEP_DEFAULT_ROUNDS;
    s->warmup = 1;
    s->timeout_s = CONFIG_TIMEOUT_S;
    char *text = xstrdup(contents); /* split into lines in place */
    int lineno = 0, bad = 0;
    /* Every line is read, so one pass names every mistake: one
     * "file:line: what" per line of the message, in file order. */
    struct strbuf all = {0};
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        else if (!*line) break; /* nothing after the last newline */
        lineno++;
        char msg[1024];
        if (parse_line(s, line, lineno, msg, sizeof msg)) {
            sb_printf(&all, "%s%s:%d: %s", bad ? "\n" : "", path, lineno, msg);
            bad++;
        }
    }
    free(text);
    /* The whole-file rules only when every line read: a bad 'variant' line
     * would otherwise also be reported as a missing one. */
    char last[1024];
    if (!bad && sweep_finish(s, lineno, last, sizeof last)) {
        sb_printf(&all, "%s%s", bad ? "\n" : "", last);
        bad++;
    }
    if (bad) {
        err_set(err, errn, "%s", all.s);
        sweep_free(s);
    }
    sb_free(&all);
    return bad ? -1 : 0;
}

int sweep_parse(const char *path, struct sweep_spec *s, char *err, size_t errn) {
    char *text = file_read_all(path, NULL, err, errn);
    if (!text) {
        memset(s, 0, sizeof *s);
        str_copy(s->path, sizeof s->path, path);
        return -1;
    }
    int rc = sweep_parse_text(path, text, s, err, errn);
    free(text);
    return rc;
}

void sweep_free(struct sweep_spec *s) {
    free(s->shapes);
    s->shapes = NULL;
    s->nshapes = 0;
}

/* ---- Variants --------------------------------------------------------------------- */

/* Appends v unless a variant of that name is there already. Capacity
 * doubles at each power of two, so thousands of expansions copy little. */
static void variants_push(struct variant_list *out, const struct variant *v) {
    if (variant_find(out, v->name)) return;
    if ((out->n & (out->n - 1)) == 0) {
        out->v = realloc(out->v, sizeof *out->v * (size_t)(out->n ? 2 * out->n : 1));
        if (!out->v) abort();
    }
    out->v[out->n++] = *v;
}

static int unknown_variant(const struct sweep_spec *s, int line, const char *what, const char *name,
                           const struct variant_list *named, char *err, size_t errn) {
    struct strbuf names = {0};
    for (int i = 0; named && i < named->n; i++) sb_printf(&names, "%s%s", i ? ", " : "", named->v[i].name);
    err_set(err, errn, "%s:%d: unknown %s '%s' (variants: %s)", s->path, line, what, name, names.s ? names.s : "none");
    sb_free(&names);
    return -1;
}

static int add_named(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                     int tuned_ok, struct variant_list *out, char *err, size_t errn) {
    for (int i = 0; i < s->nvariants; i++) {
        if (strcmp(s->variants[i], "all") == 0) {
            for (int j = 0; named && j < named->n; j++) variants_push(out, &named->v[j]);
            continue;
        }
        if (strcmp(s->variants[i], TUNED_VARIANT) == 0) { /* resolved per device and input by the sweep */
            if (!tuned_ok)
                return err_set(err, errn,
                               "%s:%d: variant %s (each device's stored configuration) is run by harness sweep and"
                               " nightly, not here",
                               s->path, s->variant_lines[i], TUNED_VARIANT);
            struct variant t;
            variant_tuned_placeholder(&t, defs);
            variants_push(out, &t);
            continue;
        }
        const struct variant *v = named ? variant_find(named, s->variants[i]) : NULL;
        if (!v) return unknown_variant(s, s->variant_lines[i], "variant", s->variants[i], named, err, errn);
        variants_push(out, v);
    }
    return 0;
}

/* The i-th value of "a|b|c". */
static void alt_nth(const char *alts, int i, char *dst, size_t n) {
    for (; i > 0; i--) alts = strchr(alts, '|') + 1;
    size_t len = strcspn(alts, "|");
    str_copy(dst, len + 1 < n ? len + 1 : n, alts);
}

/* A generated name longer than a variant name holds keeps its start and a
 * hash of the whole, so two long names stay two names; the description
 * keeps the whole. */
static void variant_name(struct variant *v, const char *full) {
    str_copy(v->description, sizeof v->description, full);
    if (strlen(full) < sizeof v->name) {
        str_copy(v->name, sizeof v->name, full);
        return;
    }
    const unsigned h = (unsigned)(hash_str(full, 0) & 0xffffffffu);
    str_fmt(v->name, sizeof v->name, "%.*s~%08x}", (int)sizeof v->name - 11, full, h);
}

/* Combination c of the pattern (the last knob varies fastest) on top of base. */
static int combo_make(const struct pattern_split *x, long c, const char *label, const struct knob_set *base,
                      struct variant *v, char *msg, size_t msgn) {
    int pick[KNOB_MAX];
    for (int j = x->n - 1; j >= 0; j--) {
        pick[j] = (int)(c % x->nalts[j]);
        c /= x->nalts[j];
    }
    struct strbuf set = {0}, name = {0};
    sb_printf(&name, "%s{", label);
    for (int j = 0; j < x->n; j++) {
        char value[128];
        alt_nth(x->alts[j], pick[j], value, sizeof value);
        sb_printf(&set, "%s=%s ", x->name[j], value);
        sb_printf(&name, "%s%s=%s", j ? "," : "", x->name[j], value);
    }
    sb_printf(&name, "}");
    memset(v, 0, sizeof *v);
    v->knobs = *base;
    int rc = knobs_apply(&v->knobs, set.s, msg, msgn);
    variant_name(v, name.s);
    sb_free(&set);
    sb_free(&name);
    return rc;
}

static int pattern_expand(const struct sweep_spec *s, const struct sweep_pattern *p, const struct knob_def *defs,
                          const struct variant_list *named, struct variant_list *out, long *budget, char *err,
                          size_t errn) {
    struct pattern_split x;
    char msg[768];
    if (pattern_split(p->knobs, &x, msg, sizeof msg))
        return err_set(err, errn, "%s:%d: knobs: %s", s->path, p->line, msg);
    struct knob_set base;
    knobs_init(&base, defs);
    if (p->base[0]) {
        const struct variant *b = named ? variant_find(named, p->base) : NULL;
        if (!b) return unknown_variant(s, p->line, "base variant", p->base, named, err, errn);
        base = b->knobs;
    }
    const long combos = pattern_count(&x);
    if (combos > *budget)
        return err_set(err, errn, "%s:%d: knobs: the patterns give more than %d variants", s->path, p->line,
                       SWEEP_MAX_EXPANSIONS);
    *budget -= combos;
    for (long c = 0; c < combos; c++) {
        struct variant v;
        if (combo_make(&x, c, p->base[0] ? p->base : "custom", &base, &v, msg, sizeof msg))
            return err_set(err, errn, "%s:%d: knobs: %s", s->path, p->line, msg);
        variants_push(out, &v);
    }
    return 0;
}

static int variants_of(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                       int tuned_ok, struct variant_list *out, char *err, size_t errn) {
    out->v = NULL;
    out->n = 0;
    long budget = SWEEP_MAX_EXPANSIONS;
    int rc = add_named(s, defs, named, tuned_ok, out, err, errn);
    for (int i = 0; i < s->npatterns && !rc; i++)
        rc = pattern_expand(s, &s->patterns[i], defs, named, out, &budget, err, errn);
    if (!rc && !out->n)
        rc =
            err_set(err, errn, "%s:%d: the sweep selects no variants", s->path, s->nvariants ? s->variant_lines[0] : 0);
    if (rc) variants_free(out);
    return rc;
}

int sweep_variants(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                   struct variant_list *out, char *err, size_t errn) {
    return variants_of(s, defs, named, 0, out, err, errn);
}

int sweep_variants_tuned(const struct sweep_spec *s, const struct knob_def *defs, const struct variant_list *named,
                         struct variant_list *out, char *err, size_t errn) {
    return variants_of(s, defs, named, 1, out, err, errn);
}
