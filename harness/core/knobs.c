#include "knobs.h"

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

/* 1..INT_MAX in plain decimal: no sign, no leading zero. Plain because
 * the text itself becomes a compiler define (-DK_CHUNK=value), where "010"
 * would be octal 8 while knob_int reads 10. */
static int positive_int(const char *v) {
    long x;
    return *v >= '1' && *v <= '9' && v[strspn(v, "0123456789")] == '\0' && parse_whole(v, 1, INT_MAX, &x) == 0;
}

/* values is "a|b|c"; the word "int" in it admits a positive integer (and
 * is not itself a value). */
static int value_allowed(const struct knob_def *d, const char *v) {
    size_t n = strlen(v);
    for (const char *p = d->values; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == 3 && strncmp(p, "int", 3) == 0) {
            if (positive_int(v)) return 1;
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
            for (int j = 0; j < k->n; j++) sb_printf(&names, "%s%s", j ? ", " : "", k->defs[j].name);
            rc = err_set(err, errn, "unknown knob '%s' (knobs: %s)", tok, names.s ? names.s : "none");
            sb_free(&names);
            break;
        }
        if (!value_allowed(&k->defs[i], eq + 1)) {
            rc = err_set(err, errn, "knob %s: '%s' is not one of %s%s", tok, eq + 1, k->defs[i].values,
                         strstr(k->defs[i].values, "int") ? " (int: a whole number 1..2147483647, no leading zero)"
                                                          : "");
            break;
        }
        str_copy(k->value[i], sizeof k->value[i], eq + 1);
    }
    free(copy);
    return rc;
}

const char *knob_get(const struct knob_set *k, const char *name) {
    int i = knob_index(k, name);
    return i < 0 ? "" : k->value[i];
}

int knob_is(const struct knob_set *k, const char *name, const char *value) {
    return strcmp(knob_get(k, name), value) == 0;
}

long knob_int(const struct knob_set *k, const char *name) { return strtol(knob_get(k, name), NULL, 10); }

void knobs_canonical(const struct knob_set *k, char *buf, size_t n) {
    struct strbuf b = {0};
    for (int i = 0; i < k->n; i++) sb_printf(&b, "%s%s=%s", i ? "," : "", k->defs[i].name, k->value[i]);
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
