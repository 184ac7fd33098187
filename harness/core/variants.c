#include "core/variants.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct variant *variant_find(const struct variant_list *l, const char *name) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0) return &l->v[i];
    return NULL;
}

void variant_tuned_placeholder(struct variant *v, const struct knob_def *defs) {
    memset(v, 0, sizeof *v);
    str_copy(v->name, sizeof v->name, TUNED_VARIANT);
    str_copy(v->description, sizeof v->description, "the configuration harness tune stored for each device and input");
    knobs_init(&v->knobs, defs);
    v->tuned = 1;
}

int variant_tuned(struct variant *v, const struct knob_def *defs, const char *knobs, const char *config, char *err,
                  size_t errn) {
    memset(v, 0, sizeof *v);
    str_copy(v->name, sizeof v->name, TUNED_VARIANT);
    str_copy(v->description, sizeof v->description, config && *config ? config : TUNED_VARIANT);
    knobs_init(&v->knobs, defs);
    return knobs_apply(&v->knobs, knobs ? knobs : "", err, errn);
}

void variants_free(struct variant_list *l) {
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int valid_name(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!(*s == '-' || *s == '_' || *s == '.' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

/* Parses one non-empty line into v; returns -1 with a message (no file:line). */
static int parse_line(char *line, const struct knob_def *defs, const struct variant_list *sofar, struct variant *v,
                      char *msg, size_t msgn) {
    memset(v, 0, sizeof *v);
    char *hash = strchr(line, '#');
    if (hash) {
        *hash = '\0';
        str_copy(v->description, sizeof v->description, hash + 1);
        str_trim(v->description);
    }
    char *colon = strchr(line, ':');
    if (!colon) return err_set(msg, msgn, "expected 'name: knob=value ...'");
    *colon = '\0';
    str_trim(line);
    if (!valid_name(line)) return err_set(msg, msgn, "bad variant name '%s'", line);
    if (!strcmp(line, TUNED_VARIANT))
        return err_set(msg, msgn, "'%s' is reserved: it names each device's stored configuration (harness tune)",
                       TUNED_VARIANT);
    if (strlen(line) >= sizeof v->name) /* was cut to 63 characters without a word */
        return err_set(msg, msgn, "variant name '%.40s...' is %zu characters: at most %zu", line, strlen(line),
                       sizeof v->name - 1);
    if (variant_find(sofar, line)) return err_set(msg, msgn, "variant '%s' defined twice", line);
    str_copy(v->name, sizeof v->name, line);
    knobs_init(&v->knobs, defs);
    char *rest = colon + 1;
    str_trim(rest);
    /* An optional first word without '=' names the base variant. */
    size_t word = strcspn(rest, " \t");
    if (word && !memchr(rest, '=', word)) {
        char base[64];
        str_copy(base, sizeof base < word + 1 ? sizeof base : word + 1, rest);
        const struct variant *b = variant_find(sofar, base);
        if (!b) return err_set(msg, msgn, "unknown base variant '%s'", base);
        v->knobs = b->knobs;
        rest += word;
    }
    return knobs_apply(&v->knobs, rest, msg, msgn);
}

int variants_read(FILE *f, const char *path, const struct knob_def *defs, struct variant_list *out, char *err,
                  size_t errn) {
    out->v = NULL;
    out->n = 0;
    char line[2048];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        str_trim(line);
        if (!line[0] || line[0] == '#') continue;
        struct variant v;
        char msg[512];
        if (parse_line(line, defs, out, &v, msg, sizeof msg) != 0) {
            rc = err_set(err, errn, "%s:%d: %s", path, lineno, msg);
            break;
        }
        out->v = realloc(out->v, sizeof *out->v * (size_t)(out->n + 1));
        if (!out->v) abort();
        out->v[out->n++] = v;
    }
    if (rc) variants_free(out);
    return rc;
}

int variants_load(const char *path, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn) {
    out->v = NULL;
    out->n = 0;
    FILE *f = fopen(path, "r");
    if (!f) return err_set(err, errn, "%s: cannot open", path);
    int rc = variants_read(f, path, defs, out, err, errn);
    fclose(f);
    return rc;
}

int variants_load_app(const char *app, const struct knob_def *defs, struct variant_list *out, char *err, size_t errn) {
    char rel[256], path[PATH_MAX];
    snprintf(rel, sizeof rel, "variants/%s.variants", app);
    return variants_load(repo_path(path, sizeof path, rel), defs, out, err, errn);
}
