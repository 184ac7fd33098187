/* Files that hold several landscapes (landscape_build.h): a CSV of several
 * inputs and variants (tests/data/landscape-*.csv), a T4 export of
 * several devices. Each distinct (app, device, input, variant, iters) is
 * a landscape of its own; searching their union would mix times that
 * cannot be compared, so the user names one, and a choice that leaves
 * several (or none) is refused with the list of what there is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tune/landscape_build.h"

static const char *const attr_option[LB_ATTRS] = {"--app", "--device", "--input", "--variant", "--iters"};
static const char *const attr_name[LB_ATTRS] = {"app", "device", "input", "variant", "iters"};
#define SHOWN_CHOICES 24 /* a longer list is cut in the message, never in the file */

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

int lb_group_of(struct lb_groups *gs, const char *const attr[LB_ATTRS]) {
    for (int k = 0; k < gs->n; k++) {
        int match = 1;
        for (int a = 0; a < LB_ATTRS && match; a++) match = same(gs->g[k].attr[a], attr[a]);
        if (match) return gs->g[k].points++, k;
    }
    if (gs->n == gs->cap) {
        gs->cap = gs->cap ? 2 * gs->cap : 8;
        gs->g = xrealloc(gs->g, sizeof *gs->g * (size_t)gs->cap);
    }
    struct lb_group *g = &gs->g[gs->n];
    for (int a = 0; a < LB_ATTRS; a++) g->attr[a] = attr[a] ? xstrdup(attr[a]) : NULL;
    g->points = 1;
    return gs->n++;
}

/* 1 when the groups differ in attribute a (only those are worth showing). */
static int varies(const struct lb_groups *gs, int a) {
    for (int k = 1; k < gs->n; k++)
        if (!same(gs->g[k].attr[a], gs->g[0].attr[a])) return 1;
    return 0;
}

static void choice(struct strbuf *b, const struct lb_groups *gs, int k) {
    sb_printf(b, "\n ");
    for (int a = 0; a < LB_ATTRS; a++)
        if (varies(gs, a)) sb_printf(b, " %s %s", attr_option[a], gs->g[k].attr[a] ? gs->g[k].attr[a] : "(none)");
    sb_printf(b, "  (%d records)", gs->g[k].points);
}

int lb_group_pick(const struct lb_groups *gs, const struct landscape_pick *pick, const char *path, char *err,
                  size_t errn) {
    const char *want[LB_ATTRS] = {pick->app, pick->device, pick->input, pick->variant, pick->iters};
    for (int a = 0; a < LB_ATTRS; a++) {
        if (!want[a]) continue;
        int named = 0;
        for (int k = 0; k < gs->n && !named; k++) named = gs->g[k].attr[a] != NULL;
        if (!named) return err_set(err, errn, "%s names no %s: %s does not apply", path, attr_name[a], attr_option[a]);
    }
    int found = -1, matches = 0;
    for (int k = 0; k < gs->n; k++) {
        int match = 1;
        for (int a = 0; a < LB_ATTRS && match; a++) match = !want[a] || same(want[a], gs->g[k].attr[a]);
        if (match) found = k, matches++;
    }
    if (matches == 1) return found;
    struct strbuf b = {0};
    if (!matches) {
        sb_printf(&b, "%s: no landscape matches", path);
        for (int a = 0; a < LB_ATTRS; a++)
            if (want[a]) sb_printf(&b, " %s %s", attr_option[a], want[a]);
        sb_printf(&b, "; it holds %d:", gs->n);
    } else {
        sb_printf(&b, "%s holds %d landscapes%s; choose one with", path, matches, matches < gs->n ? " that match" : "");
        for (int a = 0, first = 1; a < LB_ATTRS; a++)
            if (varies(gs, a)) sb_printf(&b, "%s%s", first ? " " : "/", attr_option[a]), first = 0;
        sb_printf(&b, ":");
    }
    int shown = 0;
    for (int k = 0; k < gs->n; k++) {
        int match = 1;
        for (int a = 0; a < LB_ATTRS && match && matches; a++) match = !want[a] || same(want[a], gs->g[k].attr[a]);
        if (!match) continue;
        if (shown++ < SHOWN_CHOICES) choice(&b, gs, k);
    }
    if (shown > SHOWN_CHOICES) sb_printf(&b, "\n  ... and %d more", shown - SHOWN_CHOICES);
    err_set(err, errn, "%s", b.s);
    sb_free(&b);
    return -1;
}

char *lb_group_label(const struct lb_groups *gs, int k) {
    if (gs->n < 2) return NULL;
    struct strbuf b = {0};
    for (int a = 0; a < LB_ATTRS; a++)
        if (varies(gs, a))
            sb_printf(&b, "%s%s %s", b.len ? ", " : "", attr_name[a], gs->g[k].attr[a] ? gs->g[k].attr[a] : "(none)");
    return b.s;
}

void lb_groups_free(struct lb_groups *gs) {
    for (int k = 0; k < gs->n; k++)
        for (int a = 0; a < LB_ATTRS; a++) free(gs->g[k].attr[a]);
    free(gs->g);
    memset(gs, 0, sizeof *gs);
}
