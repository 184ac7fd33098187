/* Loading a landscape (landscape.h): the file read (gunzipped when it is
 * gzip), its format told by content, the format's reader called, and what
 * every landscape answers afterwards (a point's time, a point by its
 * values). */
#include "tune/landscape.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "tune/json.h"
#include "tune/landscape_build.h"

static int ends_with(const char *s, const char *tail) {
    const size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* Kernel Tuner appends each entry to its cache as it is measured and
 * writes the closing "}\n}" only when tuning ends, so a run that was
 * stopped leaves a file ending in "...},". Kernel Tuner reads such a file
 * by dropping the trailing comma and closing it (util.py,
 * correct_open_cache); so do we, and say so. A closing with only its last
 * brace missing is closed too. NULL when no closing makes it JSON. */
static struct json_doc *parse_cut_off(const char *name, const char *text, size_t len) {
    size_t n = len;
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == '\t')) n--;
    if (n && text[n - 1] == ',') n--;
    static const char *const closings[] = {"}\n}", "}"};
    for (size_t c = 0; c < sizeof closings / sizeof closings[0]; c++) {
        const size_t k = strlen(closings[c]);
        char *fixed = xcalloc(n + k + 1, 1);
        memcpy(fixed, text, n);
        memcpy(fixed + n, closings[c], k);
        struct json_error e;
        struct json_doc *doc = json_parse(name, fixed, n + k, &e);
        free(fixed);
        if (doc) return doc;
    }
    return NULL;
}

static int parse_json(const char *name, const char *text, size_t len, const struct landscape_pick *pick,
                      struct landscape *l, char *err, size_t errn) {
    struct json_error e;
    struct json_doc *doc = json_parse(name, text, len, &e);
    if (!doc && e.at_end && memmem(text, len, "\"cache\"", 7)) {
        doc = parse_cut_off(name, text, len);
        if (!doc)
            return err_set(err, errn,
                           "%s (a Kernel Tuner cache cut off inside an entry: only a cut after a whole "
                           "entry can be read)",
                           e.msg);
        l->cut_off = 1;
    }
    if (!doc) return err_set(err, errn, "%s", e.msg);
    const struct json *root = json_root(doc);
    int rc;
    if (root->type != JSON_OBJECT)
        rc = err_set(err, errn, "%s:%d: JSON, but %s, not a landscape (a Kernel Tuner cache or T4 results object)",
                     name, root->line, json_type_name(root->type));
    else if (json_get(root, "results")) rc = landscape_t4(name, root, pick, l, err, errn);
    else if (json_get(root, "cache") || json_get(root, "tune_params") || json_get(root, "tune_params_keys"))
        rc = landscape_kt(name, root, pick, l, err, errn);
    else
        rc = err_set(err, errn,
                     "%s: JSON, but neither a Kernel Tuner cache (tune_params, cache) nor T4 results (results)", name);
    json_free(doc);
    return rc;
}

int landscape_parse(const char *name, const char *text, size_t len, const struct landscape_pick *pick,
                    struct landscape *l, char *err, size_t errn) {
    static const struct landscape_pick any = {0};
    memset(l, 0, sizeof *l);
    l->path = xstrdup(name);
    l->optimum = -1;
    if (!pick) pick = &any;
    const size_t bom = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0; /* a byte-order mark */
    size_t at = bom;
    while (at < len && (text[at] == ' ' || text[at] == '\n' || text[at] == '\r' || text[at] == '\t')) at++;
    int rc;
    if (at == len) rc = err_set(err, errn, "%s: empty: not a landscape", name);
    else if (text[at] == '{' || text[at] == '[' || ends_with(name, ".json") || ends_with(name, ".json.gz"))
        rc = parse_json(name, text, len, pick, l, err, errn);
    else if (memchr(text, '\0', len))
        rc = err_set(err, errn, "%s: binary data, not a landscape (a Kernel Tuner cache, T4 results or CSV)", name);
    else rc = landscape_csv(name, text + bom, len - bom, pick, l, err, errn); /* the mark is not the first column's */
    if (rc) landscape_free(l);
    return rc ? -1 : 0;
}

int landscape_load(const char *path, const struct landscape_pick *pick, struct landscape *l, char *err, size_t errn) {
    struct stat st;
    memset(l, 0, sizeof *l);
    if (stat(path, &st) != 0) return err_set(err, errn, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return err_set(err, errn, "%s: a directory, not a landscape file", path);
    size_t len;
    char *text = landscape_read(path, &len, err, errn);
    if (!text) return -1;
    const int rc = landscape_parse(path, text, len, pick, l, err, errn);
    free(text);
    return rc;
}

void landscape_free(struct landscape *l) {
    for (int k = 0; k < l->nparams; k++) {
        struct landscape_param *p = &l->param[k];
        for (int i = 0; i < p->nlevels; i++) free(p->level[i].text);
        free(p->level);
        free(p->slot);
        free(p->name);
    }
    free(l->param);
    free(l->coord);
    free(l->seconds);
    free(l->noise);
    free(l->line);
    free(l->slot);
    free(l->path);
    free(l->device);
    free(l->kernel);
    free(l->objective);
    free(l->group);
    memset(l, 0, sizeof *l);
    l->optimum = -1;
}

double landscape_eval(void *ctx, int point, double *noise) {
    const struct landscape *l = ctx;
    *noise = l->noise[point];
    return l->seconds[point];
}

const struct landscape_value *landscape_value_at(const struct landscape *l, int point, int k) {
    return &l->param[k].level[l->coord[(size_t)point * (size_t)l->nparams + (size_t)k]];
}

int landscape_find(const struct landscape *l, const char *const *values) {
    int *want = xcalloc((size_t)l->nparams + 1, sizeof *want);
    int found = -1, k;
    for (k = 0; k < l->nparams; k++) {
        struct landscape_value v;
        lb_value_of_text(&v, values[k]);
        const struct landscape_param *p = &l->param[k];
        for (want[k] = 0; want[k] < p->nlevels; want[k]++) {
            const struct landscape_value *x = &p->level[want[k]];
            if (x->type == v.type && (x->type == LANDSCAPE_STRING ? !strcmp(x->text, v.text) : x->number == v.number))
                break;
            if (!strcmp(x->text, v.text)) break; /* a string "8" asked for as text */
        }
        if (want[k] == p->nlevels) break;
    }
    for (int i = 0; k == l->nparams && i < l->n && found < 0; i++)
        if (!memcmp(l->coord + (size_t)i * (size_t)l->nparams, want, sizeof *want * (size_t)l->nparams)) found = i;
    free(want);
    return found;
}

const char *landscape_kind_name(enum landscape_kind kind) {
    return kind == LANDSCAPE_ORDERED ? "ordered" : kind == LANDSCAPE_SWITCH ? "switch" : "categorical";
}
