/* Device sets: what a set is (its spec, members, identity) and which
 * configs may run on one. Opening and driving one: devset_run.c. */
#include "core/devset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The set's ops, known to backend_by_name before main runs: backend/ does not
 * include the engine's headers (issue 36). Here, where sets are made, so any
 * program that can name a set registers it. */
__attribute__((constructor)) static void devset_register(void) { backend_register_unlisted(&devset_backend); }

int devset_is(const struct device_info *d) { return d && !strcmp(d->backend, DEVSET_BACKEND); }

/* "a + b" for the set's descriptive fields, cut to fit. */
static void joined(char *dst, size_t n, const char *a, const char *b) { str_fmt(dst, n, "%s + %s", a, b); }

/* The set's device_info from its members. Limits are the tighter member's
 * (a config valid on the set must be valid on both; the app checks each
 * member too); the fingerprint hashes the members' fingerprints in order, so
 * a new driver on either is a new set, and A+B is not B+A (the first
 * member's share is the split knob). Caps stay empty: an app asks the
 * members. */
static void set_info(const struct device_info m[DEVSET_MAX], struct device_info *out) {
    memset(out, 0, sizeof *out);
    str_copy(out->backend, sizeof out->backend, DEVSET_BACKEND);
    str_fmt(out->spec, sizeof out->spec, "%s+%s", m[0].spec, m[1].spec);
    joined(out->vendor, sizeof out->vendor, m[0].vendor, m[1].vendor);
    joined(out->name, sizeof out->name, m[0].name, m[1].name);
    joined(out->driver, sizeof out->driver, m[0].driver, m[1].driver);
    str_copy(out->kind, sizeof out->kind, DEVSET_BACKEND);
    out->compute_units = m[0].compute_units + m[1].compute_units;
    out->max_wg = m[0].max_wg < m[1].max_wg ? m[0].max_wg : m[1].max_wg;
    for (int i = 0; i < 3; i++)
        out->max_item[i] = m[0].max_item[i] < m[1].max_item[i] ? m[0].max_item[i] : m[1].max_item[i];
#define MIN_OF(f) out->f = m[0].f < m[1].f ? m[0].f : m[1].f
    MIN_OF(global_mem);
    MIN_OF(local_mem);
    MIN_OF(max_alloc);
#undef MIN_OF
    out->index[0] = out->index[1] = -1;
    char text[64];
    str_fmt(text, sizeof text, "set|%s|%s", m[0].fingerprint, m[1].fingerprint);
    str_fmt(out->fingerprint, sizeof out->fingerprint, "%016llx", (unsigned long long)hash_str(text, 0));
}

/* The members' indices in all; -1 with `what is wrong` in err. */
static int set_members(const struct device_info *all, int n, const char *spec, int idx[DEVSET_MAX], char *err,
                       size_t errn) {
    char *copy = xstrdup(spec);
    int count = 0, rc = 0;
    for (char *p = copy, *plus; p && !rc; p = plus) {
        if ((plus = strchr(p, '+'))) *plus++ = '\0';
        if (count == DEVSET_MAX) {
            rc = err_set(err, errn, "device set '%s': a set is two devices, A+B", spec);
            break;
        }
        int hit[64];
        int found = *p && strcmp(p, "all") ? devices_match(all, n, p, hit, 64) : 0;
        if (found != 1) {
            if (!*p || !strcmp(p, "all"))
                rc = err_set(err, errn, "device set '%s': each side names one device, as opencl:0.0+openmp", spec);
            else if (!found) rc = err_set(err, errn, "device set '%s': no device matches '%s'", spec, p);
            else
                rc = err_set(err, errn, "device set '%s': '%s' names %d devices; a set names one device each side",
                             spec, p, found);
            break;
        }
        for (int j = 0; j < count && !rc; j++)
            if (idx[j] == hit[0]) rc = err_set(err, errn, "device set '%s': names %s twice", spec, all[hit[0]].spec);
        idx[count++] = hit[0];
    }
    free(copy);
    if (!rc && count != DEVSET_MAX) rc = err_set(err, errn, "device set '%s': a set is two devices, A+B", spec);
    return rc;
}

int device_find_one(const char *spec, struct device_info *out, char *err, size_t errn) {
    struct device_info *all = NULL;
    char notes[8][256];
    int nnotes = 0, idx = -1;
    int n = devices_all(&all, notes, 8, &nnotes);
    char why[512] = "";
    const int found = devices_resolve(&all, &n, spec, &idx, 1, why, sizeof why);
    if (found == 1) *out = all[idx];
    free(all);
    if (found != 1) return err_set(err, errn, "no device matches '%s' here%s%s", spec, why[0] ? ": " : "", why);
    return 0;
}

int devices_resolve(struct device_info **all, int *n, const char *spec, int *idx, int max, char *err, size_t errn) {
    if (!strchr(spec, '+')) return devices_match(*all, *n, spec, idx, max);
    int mi[DEVSET_MAX];
    if (max < 1 || set_members(*all, *n, spec, mi, err, errn)) return -1;
    const struct device_info m[DEVSET_MAX] = {(*all)[mi[0]], (*all)[mi[1]]};
    struct device_info set;
    set_info(m, &set);
    if (strlen(m[0].spec) + strlen(m[1].spec) + 1 >= sizeof set.spec)
        return err_set(err, errn, "device set '%s': the spec is longer than %zu characters", spec, sizeof set.spec - 1);
    for (int i = 0; i < *n; i++) /* already resolved once (a list naming it twice) */
        if (!strcmp((*all)[i].fingerprint, set.fingerprint)) return idx[0] = i, 1;
    *all = xrealloc(*all, sizeof **all * (size_t)(*n + 1));
    (*all)[*n] = set;
    idx[0] = (*n)++;
    return 1;
}

/* The devices present, listed once per process: a set is checked for every
 * config of a sweep (app_invalid), and listing opens every driver. */
static const struct device_info *present(int *n) {
    static struct device_info *all;
    static int count = -1;
    if (count < 0) {
        char notes[8][256];
        int nnotes = 0;
        count = devices_all(&all, notes, 8, &nnotes);
    }
    *n = count;
    return all;
}

int devset_members(const struct device_info *set, struct device_info m[DEVSET_MAX], char *err, size_t errn) {
    if (!devset_is(set)) return err_set(err, errn, "%s is one device, not a set", set->spec);
    int n = 0, idx[DEVSET_MAX];
    const struct device_info *all = present(&n);
    if (set_members(all, n, set->spec, idx, err, errn)) return -1;
    for (int i = 0; i < DEVSET_MAX; i++) m[i] = all[idx[i]];
    return 0;
}

const char *devset_invalid(const struct app *app, const struct knob_set *k, const struct device_info *dev, char *why,
                           size_t n) {
    const int splits = knobs_declare(app->knobs, "split");
    if (devset_is(dev) && !splits) {
        str_fmt(why, n, "%s does not run on device sets: its schedule has no row split (rowsplit.h says what it needs)",
                app->name);
        return why;
    }
    if (!devset_is(dev) && splits && (!knob_is(k, "split", "auto") || !knob_is(k, "exchange", "1"))) {
        str_fmt(why, n, "split and exchange divide a grid between the devices of a set (--device A+B); %s is one",
                dev->spec);
        return why;
    }
    return NULL;
}

const char *app_invalid(const struct app *app, const struct knob_set *k, const struct app_input *in,
                        const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    const char *set_why = devset_invalid(app, k, dev, why, n);
    return set_why ? set_why : app->invalid(k, in, dev, wg, why, n);
}
