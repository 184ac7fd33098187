/* T4 results (landscape_build.h): the JSON that Kernel Tuner, KTT and BAT
 * exchange (https://github.com/odgaard/TuningSchema), written by Kernel
 * Tuner's store_output_file and by `harness export --format t4`:
 *   {"schema_version": "1.0.0", "results": [
 *     {"configuration": {name: value, ...},
 *      "invalidity": "correct" | "compile" | "runtime" | "constraints" | ...,
 *      "correctness": 1,
 *      "measurements": [{"name": "time", "value": 1.5, "unit": "ms"}, ...],
 *      "times": {"runtimes": [...]}}, ...]}
 * A result that is not "correct", or not correct (correctness 0), is a
 * failure; its time, when it has one, is not used. The time's unit is the
 * measurement's own (Kernel Tuner writes ms, the harness s).
 *
 * A harness export holds every measurement of every device and input: its
 * results carry app, device, input and iters, and each distinct set of
 * them is a landscape of its own (landscape_pick.c). A configuration
 * measured again (a tuning verdict's rounds) keeps its last record: the
 * export lists measurements oldest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/landscape_build.h"

/* A result's app, device, input and iters, as text (NULL: not said). */
static void attrs_of(const struct json *r, const char *attr[LB_ATTRS]) {
    static const char *const keys[LB_ATTRS] = {"app", "device", "input", NULL, "iters"};
    for (int a = 0; a < LB_ATTRS; a++) {
        const struct json *v = keys[a] ? json_get(r, keys[a]) : NULL;
        attr[a] = v && (v->type == JSON_STRING || v->type == JSON_NUMBER) ? v->text : NULL;
    }
}

/* The landscape a result belongs to (its group, counted once more). */
static int group_of(struct lb_groups *gs, const struct json *r) {
    const char *attr[LB_ATTRS];
    attrs_of(r, attr);
    return lb_group_of(gs, attr);
}

static const struct json *measurement(const struct json *r, const char *name) {
    const struct json *ms = json_get(r, "measurements");
    if (!ms || ms->type != JSON_ARRAY) return NULL;
    for (const struct json *m = ms->child; m; m = m->next) {
        const struct json *n = json_get(m, "name");
        if (n && n->type == JSON_STRING && !strcmp(n->text, name)) return m;
    }
    return NULL;
}

/* A measurement's value in seconds: 0 when it is one, 1 when it is a
 * failure's mark (a string such as Kernel Tuner's "InvalidConfig", null,
 * or 1e20 and above), -1 with err when it is not a duration or its unit is
 * not known. */
static int seconds_of(const char *path, const struct json *m, double *s, char *err, size_t errn) {
    const struct json *v = json_get(m, "value"), *u = json_get(m, "unit");
    if (!v || v->type == JSON_STRING || v->type == JSON_NULL) return 1;
    if (v->type != JSON_NUMBER)
        return err_set(err, errn, "%s:%d: a time that is %s", path, v->line, json_type_name(v->type));
    const double per = lb_unit_seconds(u && u->type == JSON_STRING ? u->text : NULL);
    if (!per)
        return err_set(err, errn, "%s:%d: the unit of this time is %s%s%s; it must be s, ms, us or ns", path, m->line,
                       u && u->type == JSON_STRING ? "\"" : "", u && u->type == JSON_STRING ? u->text : "missing",
                       u && u->type == JSON_STRING ? "\"" : "");
    if (v->number >= LB_FAILED_TIME) return 1;
    if (!(v->number > 0)) return err_set(err, errn, "%s:%d: time %s is not a duration", path, v->line, v->text);
    *s = v->number * per;
    return 0;
}

static int failed(const struct json *r) {
    const struct json *inv = json_get(r, "invalidity"), *ok = json_get(r, "correctness");
    if (inv && inv->type == JSON_STRING && strcmp(inv->text, "correct")) return 1;
    return ok && ((ok->type == JSON_NUMBER && ok->number == 0) || (ok->type == JSON_BOOL && !ok->boolean));
}

/* The spread of a result: its quartiles where it has them (the harness
 * writes time_q1 and time_q3), else its runtimes'. */
static double spread(const char *path, const struct json *r, double seconds) {
    const struct json *q1 = measurement(r, "time_q1"), *q3 = measurement(r, "time_q3");
    double a, b;
    char ignored[8];
    if (q1 && q3 && !seconds_of(path, q1, &a, ignored, sizeof ignored) &&
        !seconds_of(path, q3, &b, ignored, sizeof ignored))
        return (b - a) / seconds;
    const struct json *times = json_get(r, "times"), *rt = json_get(times, "runtimes");
    if (!rt || rt->type != JSON_ARRAY || rt->count < 2) return 0;
    double *x = xcalloc((size_t)rt->count, sizeof *x), s = 0;
    int n = 0;
    for (const struct json *v = rt->child; v; v = v->next)
        if (v->type == JSON_NUMBER) x[n++] = v->number;
    if (n == rt->count) s = lb_spread(x, n);
    free(x);
    return s;
}

/* The parameters, as the first result of the landscape names them. */
static int params_of(const char *path, const struct json *first, struct landscape *l, char *err, size_t errn) {
    const struct json *c = json_get(first, "configuration");
    if (!c || c->type != JSON_OBJECT)
        return err_set(err, errn, "%s:%d: a result without a configuration object", path, first->line);
    for (const struct json *m = c->child; m; m = m->next) {
        if (lb_param_find(l, m->key) >= 0)
            return err_set(err, errn, "%s:%d: the configuration names %s twice", path, m->line, m->key);
        lb_param(l, m->key);
    }
    return 0;
}

/* A result's levels: it must name the parameters the first one named. */
static int levels_of(const char *path, const struct json *r, const struct json *first, struct landscape *l, int *coord,
                     char *err, size_t errn) {
    const struct json *c = json_get(r, "configuration");
    if (!c || c->type != JSON_OBJECT)
        return err_set(err, errn, "%s:%d: a result without a configuration object", path, r->line);
    if (c->count != l->nparams)
        return err_set(err, errn, "%s:%d: this configuration has %d parameters; the first (line %d) has %d", path,
                       c->line, c->count, first->line, l->nparams);
    for (int k = 0; k < l->nparams; k++) {
        const struct json *v = json_get(c, l->param[k].name);
        struct landscape_value lv;
        if (!v)
            return err_set(err, errn, "%s:%d: this configuration has no %s, which the first (line %d) has", path,
                           c->line, l->param[k].name, first->line);
        if (lb_value_of_json(&lv, v))
            return err_set(err, errn, "%s:%d: %s is %s (a value is a number, a string or a boolean)", path, v->line,
                           l->param[k].name, json_type_name(v->type));
        coord[k] = lb_level(&l->param[k], &lv, 1);
    }
    return 0;
}

static int load_result(const char *path, const struct json *r, const struct json *first, struct landscape *l,
                       int *coord, char *err, size_t errn) {
    if (levels_of(path, r, first, l, coord, err, errn)) return -1;
    const struct json *t = measurement(r, "time");
    double seconds = -1;
    const int bad = failed(r);
    if (!t && !bad) return err_set(err, errn, "%s:%d: a correct result without a time measurement", path, r->line);
    const int rc = t ? seconds_of(path, t, &seconds, err, errn) : 1;
    if (rc < 0) return -1;
    if (bad || rc) seconds = -1;
    return lb_point(l, coord, seconds, seconds > 0 ? spread(path, r, seconds) : 0, r->line, LB_REPEAT_LAST, err, errn);
}

int landscape_t4(const char *path, const struct json *root, const struct landscape_pick *pick, struct landscape *l,
                 char *err, size_t errn) {
    l->format = "T4 results";
    const struct json *results = json_get(root, "results");
    if (results->type != JSON_ARRAY)
        return err_set(err, errn, "%s:%d: results is %s, not a list", path, results->line,
                       json_type_name(results->type));
    if (!results->count) return err_set(err, errn, "%s:%d: no results: nothing recorded", path, results->line);
    struct lb_groups gs = {0};
    for (const struct json *r = results->child; r; r = r->next) {
        if (r->type != JSON_OBJECT)
            return lb_groups_free(&gs), err_set(err, errn, "%s:%d: a result that is %s, not an object", path, r->line,
                                                json_type_name(r->type));
        group_of(&gs, r);
    }
    const int k = lb_group_pick(&gs, pick, path, err, errn);
    if (k >= 0) {
        l->group = lb_group_label(&gs, k);
        l->device = gs.g[k].attr[LB_DEVICE] ? xstrdup(gs.g[k].attr[LB_DEVICE]) : NULL;
        l->kernel = gs.g[k].attr[LB_APP] ? xstrdup(gs.g[k].attr[LB_APP]) : NULL;
    }
    const struct json *first = NULL;
    for (const struct json *r = results->child; r && k >= 0 && !first; r = r->next)
        if (group_of(&gs, r) == k) first = r;
    int rc = k < 0 || params_of(path, first, l, err, errn) ? -1 : 0;
    int *coord = xcalloc((size_t)l->nparams + 1, sizeof *coord);
    for (const struct json *r = first; r && !rc; r = r->next)
        if (group_of(&gs, r) == k) rc = load_result(path, r, first, l, coord, err, errn);
    free(coord);
    lb_groups_free(&gs);
    return rc ? -1 : lb_finish(l, err, errn);
}
