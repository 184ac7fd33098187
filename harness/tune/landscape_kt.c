/* Kernel Tuner's cache files (landscape_build.h): the JSON that
 * tune_kernel(cache=...) writes while it tunes, and replays in its own
 * simulation mode:
 *   {"device_name": ..., "kernel_name": ..., "problem_size": ...,
 *    "tune_params_keys": [names in order], "tune_params": {name: [values]},
 *    "objective": "time",
 *    "cache": {"v1,v2,...": {name: value, ..., "time": ms, "times": [ms...]}, ...}}
 * An entry's key is its values joined by commas as Python's str() writes
 * them (128, 0.5, True, row). A failed configuration keeps its entry with
 * "time" a string (InvalidConfig, CompilationFailedConfig,
 * RuntimeFailedConfig) or, in older files, 1e20: a failure here too, which
 * a search pays an evaluation for. Times are milliseconds. Everything the
 * space does not need (problem_size, compile_time, observers' figures) is
 * left alone. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/landscape_build.h"

/* Python's str() of a value, as Kernel Tuner writes it into a key. */
static void key_part(struct strbuf *b, const struct landscape_value *v) {
    if (v->type == LANDSCAPE_BOOL) sb_printf(b, "%s", v->number ? "True" : "False");
    else sb_printf(b, "%s", v->text);
}

/* Whether the key names these levels: strings compared as written,
 * numbers as numbers (Python writes 0.5 where a file may say 5e-1),
 * booleans as Python's True/False. */
static int key_matches(const char *key, const struct landscape *l, const int *coord) {
    const char *p = key;
    for (int k = 0; k < l->nparams; k++) {
        if (k && *p++ != ',') return 0;
        const struct landscape_value *v = &l->param[k].level[coord[k]];
        if (v->type == LANDSCAPE_STRING) {
            const size_t n = strlen(v->text);
            if (strncmp(p, v->text, n)) return 0;
            p += n;
            continue;
        }
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        char part[64];
        if (end - p >= (long)sizeof part) return 0;
        memcpy(part, p, (size_t)(end - p));
        part[end - p] = '\0';
        p = end;
        double x;
        if (v->type == LANDSCAPE_BOOL) {
            if (strcmp(part, v->number ? "True" : "False") && strcmp(part, v->text)) return 0;
        } else if (parse_real(part, -DBL_MAX, DBL_MAX, &x) || x != v->number) {
            return 0;
        }
    }
    return *p == '\0';
}

/* The parameters in tune_params_keys' order (tune_params' own order in a
 * file without it), each with tune_params' values as its levels. */
static int load_params(const char *path, const struct json *params, const struct json *keys, struct landscape *l,
                       char *err, size_t errn) {
    if (params->type != JSON_OBJECT)
        return err_set(err, errn, "%s:%d: tune_params is %s, not an object of parameters", path, params->line,
                       json_type_name(params->type));
    if (keys && keys->type != JSON_ARRAY)
        return err_set(err, errn, "%s:%d: tune_params_keys is %s, not a list of names", path, keys->line,
                       json_type_name(keys->type));
    for (const struct json *k = keys ? keys->child : params->child; k; k = k->next) {
        const char *name = keys ? k->text : k->key;
        if (keys && k->type != JSON_STRING)
            return err_set(err, errn, "%s:%d: tune_params_keys holds %s, not a name", path, k->line,
                           json_type_name(k->type));
        if (lb_param_find(l, name) >= 0)
            return err_set(err, errn, "%s:%d: parameter %s is named twice", path, k->line, name);
        const struct json *values = json_get(params, name);
        if (!values) return err_set(err, errn, "%s:%d: tune_params has no values for %s", path, k->line, name);
        if (values->type != JSON_ARRAY)
            return err_set(err, errn, "%s:%d: tune_params' %s is %s, not a list of values", path, values->line, name,
                           json_type_name(values->type));
        if (!values->count) return err_set(err, errn, "%s:%d: parameter %s has no values", path, values->line, name);
        const int added = lb_param(l, name); /* before taking its address: it may move l->param */
        struct landscape_param *p = &l->param[added];
        for (const struct json *v = values->child; v; v = v->next) {
            struct landscape_value lv;
            char show[96];
            if (lb_value_of_json(&lv, v))
                return err_set(err, errn,
                               "%s:%d: parameter %s has a value that is %s (a value is a number, a string "
                               "or a boolean)",
                               path, v->line, name, json_type_name(v->type));
            lb_value_show(show, sizeof show, &lv);
            if (lb_level(p, &lv, 0) >= 0)
                return err_set(err, errn, "%s:%d: parameter %s lists %s twice", path, v->line, name, show);
            lb_level(p, &lv, 1);
        }
    }
    for (const struct json *m = params->child; m; m = m->next)
        if (lb_param_find(l, m->key) < 0)
            return err_set(err, errn, "%s:%d: tune_params has %s, which tune_params_keys does not name", path, m->line,
                           m->key);
    return 0;
}

/* One cache entry: its levels (checked against tune_params and its key),
 * its time or failure, and its spread from its "times". */
static int load_entry(const char *path, const struct json *e, struct landscape *l, int *coord, char *err, size_t errn) {
    if (e->type != JSON_OBJECT)
        return err_set(err, errn, "%s:%d: the entry \"%s\" is %s, not an object", path, e->line, e->key,
                       json_type_name(e->type));
    for (int k = 0; k < l->nparams; k++) {
        struct landscape_param *p = &l->param[k];
        const struct json *j = json_get(e, p->name);
        struct landscape_value v;
        char show[96];
        if (!j) return err_set(err, errn, "%s:%d: the entry \"%s\" has no %s", path, e->line, e->key, p->name);
        if (lb_value_of_json(&v, j))
            return err_set(err, errn, "%s:%d: the entry \"%s\": %s is %s", path, j->line, e->key, p->name,
                           json_type_name(j->type));
        lb_value_show(show, sizeof show, &v);
        if ((coord[k] = lb_level(p, &v, 0)) < 0)
            return err_set(err, errn, "%s:%d: the entry \"%s\": %s=%s is not among tune_params' values for %s", path,
                           j->line, e->key, p->name, show, p->name);
    }
    if (!key_matches(e->key, l, coord)) {
        struct strbuf b = {0};
        for (int k = 0; k < l->nparams; k++) {
            if (k) sb_printf(&b, ",");
            key_part(&b, &l->param[k].level[coord[k]]);
        }
        err_set(err, errn, "%s:%d: the key \"%s\" does not match the entry's values (%s)", path, e->line, e->key, b.s);
        sb_free(&b);
        return -1;
    }
    const struct json *t = json_get(e, "time");
    double seconds = -1, noise = 0;
    if (!t) return err_set(err, errn, "%s:%d: the entry \"%s\" has no time", path, e->line, e->key);
    if (t->type == JSON_NUMBER && t->number < LB_FAILED_TIME) {
        if (!(t->number > 0))
            return err_set(err, errn, "%s:%d: the entry \"%s\": time %s is not a duration", path, t->line, e->key,
                           t->text);
        seconds = t->number * 1e-3; /* Kernel Tuner's milliseconds */
    } else if (t->type != JSON_NUMBER && t->type != JSON_STRING && t->type != JSON_NULL) {
        return err_set(err, errn, "%s:%d: the entry \"%s\": time is %s", path, t->line, e->key,
                       json_type_name(t->type));
    }
    const struct json *times = json_get(e, "times");
    if (seconds > 0 && times && times->type == JSON_ARRAY && times->count >= 2) {
        double *x = xcalloc((size_t)times->count, sizeof *x);
        int n = 0;
        for (const struct json *s = times->child; s; s = s->next)
            if (s->type == JSON_NUMBER) x[n++] = s->number;
        noise = n == times->count ? lb_spread(x, n) : 0;
        free(x);
    }
    return lb_point(l, coord, seconds, noise, e->line, LB_REPEAT_ERROR, err, errn);
}

static char *string_member(const struct json *root, const char *key) {
    const struct json *v = json_get(root, key);
    return v && v->type == JSON_STRING ? xstrdup(v->text) : NULL;
}

int landscape_kt(const char *path, const struct json *root, const struct landscape_pick *pick, struct landscape *l,
                 char *err, size_t errn) {
    l->format = "Kernel Tuner cache";
    const struct json *params = json_get(root, "tune_params"), *cache = json_get(root, "cache");
    if (!params) return err_set(err, errn, "%s: a Kernel Tuner cache without tune_params: its space is unknown", path);
    if (!cache) return err_set(err, errn, "%s: a Kernel Tuner cache without its cache object: nothing recorded", path);
    if (cache->type != JSON_OBJECT)
        return err_set(err, errn, "%s:%d: cache is %s, not an object of entries", path, cache->line,
                       json_type_name(cache->type));
    l->device = string_member(root, "device_name");
    l->kernel = string_member(root, "kernel_name");
    l->objective = string_member(root, "objective");
    /* One landscape: a --device that is not the file's is a mistake to say. */
    struct lb_groups gs = {0};
    const char *attr[LB_ATTRS] = {NULL, l->device, NULL, NULL, NULL};
    lb_group_of(&gs, attr);
    const int picked = lb_group_pick(&gs, pick, path, err, errn);
    lb_groups_free(&gs);
    if (picked < 0) return -1;
    if (load_params(path, params, json_get(root, "tune_params_keys"), l, err, errn)) return -1;
    int *coord = xcalloc((size_t)l->nparams + 1, sizeof *coord), rc = 0;
    for (const struct json *e = cache->child; e && !rc; e = e->next) rc = load_entry(path, e, l, coord, err, errn);
    free(coord);
    return rc ? -1 : lb_finish(l, err, errn);
}
