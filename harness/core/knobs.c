#include "core/knobs.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void knobs_init(struct knob_set *k, const struct knob_def *defs) {
    memset(k, 0, sizeof *k);
    k->defs = defs;
    for (; defs[k->n].name; k->n++) {
        /* An app with more knobs than a set holds is a build defect: the
         * ones past the limit would silently read as unknown. */
        if (k->n == KNOB_MAX) {
            fprintf(stderr, "harness: an app declares more than KNOB_MAX (%d) knobs; raise it in knobs.h\n", KNOB_MAX);
            abort();
        }
        str_copy(k->value[k->n], sizeof k->value[k->n], defs[k->n].def);
    }
}

static int knob_index(const struct knob_set *k, const char *name) {
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->defs[i].name, name) == 0) return i;
    return -1;
}

/* "layout, kernels, ..." (or "none"), for the messages that name an
 * unknown knob; the caller frees names. */
static const char *knob_names(const struct knob_set *k, struct strbuf *names) {
    for (int j = 0; j < k->n; j++) sb_printf(names, "%s%s", j ? ", " : "", k->defs[j].name);
    return names->s ? names->s : "none";
}

/* 1..INT_MAX in plain decimal: no sign, no leading zero. Plain because
 * the text itself becomes a compiler define (-DK_CHUNK=value), where "010"
 * would be octal 8 while knob_int reads 10. */
static int positive_int(const char *v) {
    long x;
    return *v >= '1' && *v <= '9' && v[strspn(v, "0123456789")] == '\0' && parse_whole(v, 1, INT_MAX, &x) == 0;
}

/* A fraction strictly between 0 and 1 in plain decimal ("0.6", "0.125"):
 * a share of rows, the text stored as given, so one digit more is another
 * config, never a rounding of this one. */
static int share(const char *v) {
    double x;
    return v[0] == '0' && v[1] == '.' && v[2] && v[2 + strspn(v + 2, "0123456789")] == '\0' &&
           parse_real(v, 0, 1, &x) == 0 && x > 0 && x < 1;
}

/* WxH, each 1..65536 in plain decimal ("4094x32"): a tile shape, as --wg
 * writes one; both numbers to shape when it is not NULL. */
static int shape_of(const char *v, unsigned shape[2]) {
    const char *x = strchr(v, 'x');
    if (!x || x == v || (size_t)(x - v) > 5) return 0;
    char a[6];
    memcpy(a, v, (size_t)(x - v));
    a[x - v] = '\0';
    long w, h;
    if (!positive_int(a) || !positive_int(x + 1) || parse_whole(a, 1, 65536, &w) || parse_whole(x + 1, 1, 65536, &h))
        return 0;
    if (shape) shape[0] = (unsigned)w, shape[1] = (unsigned)h;
    return 1;
}

/* values is "a|b|c"; the words "int", "share" and "shape" in it admit a
 * positive integer, a fraction in (0, 1) and a shape WxH (and are not
 * themselves values). */
static int value_allowed(const struct knob_def *d, const char *v) {
    size_t n = strlen(v);
    for (const char *p = d->values; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == 3 && strncmp(p, "int", 3) == 0) {
            if (positive_int(v)) return 1;
        } else if (len == 5 && strncmp(p, "share", 5) == 0) {
            if (share(v)) return 1;
        } else if (len == 5 && strncmp(p, "shape", 5) == 0) {
            if (shape_of(v, NULL)) return 1;
        } else if (len == n && strncmp(p, v, n) == 0) {
            return 1;
        }
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

int knobs_apply(struct knob_set *k, const char *text, char *err, size_t errn) {
    char *copy = xstrdup(text);
    int rc = 0;
    char seen[KNOB_MAX] = {0}; /* a knob named twice in one text is a mistake, not "the last wins" */
    for (char *save = NULL, *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            rc = err_set(err, errn, "'%s' is not knob=value", tok);
            break;
        }
        *eq = '\0';
        int i = knob_index(k, tok);
        if (i < 0) {
            struct strbuf names = {0};
            rc = err_set(err, errn, "unknown knob '%s' (knobs: %s)", tok, knob_names(k, &names));
            sb_free(&names);
            break;
        }
        if (!value_allowed(&k->defs[i], eq + 1)) {
            rc = err_set(
                err, errn, "knob %s: '%s' is not one of %s%s%s%s", tok, eq + 1, k->defs[i].values,
                strstr(k->defs[i].values, "int") ? " (int: a whole number 1..2147483647, no leading zero)" : "",
                strstr(k->defs[i].values, "share") ? " (share: a fraction strictly between 0 and 1, as 0.6)" : "",
                strstr(k->defs[i].values, "shape") ? " (shape: WxH, each 1..65536, as 4094x32)" : "");
            break;
        }
        if (seen[i]) {
            rc = err_set(err, errn, "knob %s set twice ('%s', then '%s'): say it once", tok, k->value[i], eq + 1);
            break;
        }
        seen[i] = 1;
        str_copy(k->value[i], sizeof k->value[i], eq + 1);
    }
    free(copy);
    return rc;
}

/* Reading a knob the app does not declare is a defect in the code that
 * reads it, never bad input (the names are the source's own): a misspelt
 * name, a rule copied from another app, or generic code asking for a knob
 * only some apps have (which asks knobs_declare first). It used to read
 * as "", so a rule testing it quietly never fired; now the process stops
 * here, naming the knob and the ones the app has. */
static int knob_declared(const struct knob_set *k, const char *name) {
    const int i = knob_index(k, name);
    if (i >= 0) return i;
    struct strbuf names = {0};
    fprintf(stderr, "harness: knob '%s' is read but the app does not declare it (its knobs: %s)\n", name,
            knob_names(k, &names));
    sb_free(&names);
    abort();
}

const char *knob_get(const struct knob_set *k, const char *name) { return k->value[knob_declared(k, name)]; }

int knob_is(const struct knob_set *k, const char *name, const char *value) {
    return strcmp(knob_get(k, name), value) == 0;
}

long knob_int(const struct knob_set *k, const char *name) { return strtol(knob_get(k, name), NULL, 10); }

int knob_is_host(const struct knob_def *d) {
    return !strcmp(d->name, "split") || !strcmp(d->name, "exchange") || !strncmp(d->name, "host_", 5);
}

int knob_shape(const struct knob_set *k, const char *name, unsigned shape[2]) {
    return shape_of(knob_get(k, name), shape) ? 0 : -1;
}

double knob_share(const struct knob_set *k, const char *name) {
    const char *v = knob_get(k, name);
    return share(v) ? strtod(v, NULL) : -1;
}

int knobs_declare(const struct knob_def *defs, const char *name) {
    for (; defs && defs->name; defs++)
        if (!strcmp(defs->name, name)) return 1;
    return 0;
}

void knobs_canonical(const struct knob_set *k, char *buf, size_t n) {
    struct strbuf b = {0};
    for (int i = 0, any = 0; i < k->n; i++) {
        if ((knob_is_host(&k->defs[i]) || k->defs[i].quiet_default) && !strcmp(k->value[i], k->defs[i].def)) continue;
        sb_printf(&b, "%s%s=%s", any++ ? "," : "", k->defs[i].name, k->value[i]);
    }
    str_copy(buf, n, b.s ? b.s : "");
    sb_free(&b);
}

/* Upper-cases and turns '-' into '_' so "soa-3d" becomes SOA_3D. */
static void macro_name(char *dst, size_t n, const char *src) {
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++) dst[i] = src[i] == '-' ? '_' : (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

void knobs_defines(const struct knob_set *k, struct strbuf *out) {
    for (int i = 0; i < k->n; i++) {
        if (knob_is_host(&k->defs[i])) continue;
        if (k->defs[i].quiet_default && !strcmp(k->value[i], k->defs[i].def)) continue;
        char name[48], value[48];
        macro_name(name, sizeof name, k->defs[i].name);
        if (positive_int(k->value[i])) {
            sb_printf(out, " -DK_%s=%s", name, k->value[i]);
        } else {
            macro_name(value, sizeof value, k->value[i]);
            sb_printf(out, " -DK_%s_%s=1", name, value);
        }
    }
}
