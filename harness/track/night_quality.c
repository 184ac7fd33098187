/* night_quality.h. */
#include "track/night_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "store/store_quality.h"

/* Why the night is disturbed, and which devices that touches: a canary
 * speaks for its own device (a CPU canary that swings on a busy host says
 * nothing of the GPU's series); throttling and a busy host for all ("*"). */
struct verdict {
    struct strbuf why, devices;
};

static void touches(struct verdict *v, const char *spec) {
    if (!strcmp(v->devices.s ? v->devices.s : "", "*")) return;
    if (!strcmp(spec, "*")) {
        v->devices.len = 0;
        sb_printf(&v->devices, "*");
        return;
    }
    for (const char *p = v->devices.s; p && *p;) { /* once each: a canary and the spread may both name it */
        const size_t len = strcspn(p, ",");
        if (len == strlen(spec) && !strncmp(p, spec, len)) return;
        p += len + (p[len] == ',');
    }
    sb_printf(&v->devices, "%s%s", v->devices.len ? "," : "", spec);
}

/* Each device's canary tonight against the median of its last seven nights. */
static void canary_judge(const struct store_past *r, void *ctx) {
    struct verdict *v = ctx;
    struct strbuf *why = &v->why;
    if (r->npast < 2) return; /* no history to be off from */
    /* As regressions' veto: 10 %, or four times the canary's own
     * night-to-night noise where it is noisier than that. */
    double usual = stats_median(r->past, (size_t)r->npast), now = r->now;
    double limit = fmax(NIGHT_CANARY_OFF, 4 * cp_noise(r->past, r->npast));
    if (fabs(now / usual - 1) > limit) {
        sb_printf(why, "%s%s canary %.1f GB/s against its usual %.1f", why->len ? "; " : "", r->spec, now, usual);
        touches(v, r->spec);
    }
}

/* The series' own spread, per device: each series' IQR/median tonight over
 * its usual (the median of its last nights, never below the floor). A
 * device is noisy when the median of those ratios over its series reaches
 * NIGHT_SPREAD_RATIO: one erratic series is its own business, all of them
 * at once is the host (a CPU shared with a job the load sampler missed, a
 * GPU clocked down between samples of the telemetry). */
#define SPREAD_DEVICES 16
#define SPREAD_SERIES 256
struct spreads {
    int ndev;
    struct {
        char spec[64];
        int n;
        double ratio[SPREAD_SERIES];
    } dev[SPREAD_DEVICES];
};

static void spread_collect(const struct store_past *r, void *ctx) {
    struct spreads *sp = ctx;
    if (r->npast < 2) return; /* no usual to be off from */
    int d = 0;
    while (d < sp->ndev && strcmp(sp->dev[d].spec, r->spec)) d++;
    if (d == sp->ndev) {
        if (sp->ndev == SPREAD_DEVICES) return;
        str_copy(sp->dev[sp->ndev++].spec, sizeof sp->dev[d].spec, r->spec);
    }
    if (sp->dev[d].n == SPREAD_SERIES) return;
    const double usual = fmax(NIGHT_SPREAD_FLOOR, stats_median(r->past, (size_t)r->npast));
    sp->dev[d].ratio[sp->dev[d].n++] = r->now / usual;
}

static void spread_judge(struct store *s, int64_t id, struct verdict *v) {
    struct spreads *sp = xcalloc(1, sizeof *sp);
    if (store_nightly_spreads(s, id, spread_collect, sp) == 0)
        for (int d = 0; d < sp->ndev; d++) {
            if (sp->dev[d].n < NIGHT_SPREAD_SERIES) continue;
            const double ratio = stats_median(sp->dev[d].ratio, (size_t)sp->dev[d].n);
            if (ratio < NIGHT_SPREAD_RATIO) continue;
            sb_printf(&v->why, "%s%s series spread %.1fx their usual (median of %d series)", v->why.len ? "; " : "",
                      sp->dev[d].spec, ratio, sp->dev[d].n);
            touches(v, sp->dev[d].spec);
        }
    free(sp);
}

/* Throttling the GPU reported at the night's start or end (idle clocks and
 * application clocks are not throttling). */
static void throttling(struct store *s, int64_t id, struct verdict *v) {
    static const char *const bad[] = {"hw-slowdown", "sw-thermal", "hw-thermal", "hw-power-brake"};
    char *t = store_nightly_telemetry(s, id);
    for (size_t i = 0; t && i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(t, bad[i])) {
            sb_printf(&v->why, "%sGPU throttled (%s)", v->why.len ? "; " : "", bad[i]);
            touches(v, "*"); /* the telemetry does not say which device's series */
        }
    free(t);
}

static void loaded(struct store *s, int64_t id, struct verdict *v) {
    struct strbuf *why = &v->why;
    struct store_round_load l;
    if (store_nightly_round_load(s, id, &l) != 0) return;
    if (l.rounds > 0 && l.disturbed >= NIGHT_LOADED_SHARE * l.rounds) {
        touches(v, "*");
        sb_printf(why,
                  "%sthe host busy in %d of %d rounds (other processes up to %.1f cores, the hypervisor"
                  " took up to %.1f)",
                  why->len ? "; " : "", l.disturbed, l.rounds, l.foreign_cores, l.steal_cores);
    }
}

int night_quality(struct store *s, int64_t id, char *quality, size_t n, char *devices, size_t dn) {
    struct verdict v = {{0}, {0}};
    store_nightly_canaries(s, id, canary_judge, &v);
    spread_judge(s, id, &v);
    throttling(s, id, &v);
    loaded(s, id, &v);
    if (v.why.len) str_fmt(quality, n, "disturbed: %s", v.why.s);
    else str_copy(quality, n, "ok");
    str_copy(devices, dn, v.devices.s ? v.devices.s : "");
    sb_free(&v.why);
    sb_free(&v.devices);
    if (store_nightly_quality(s, id, quality, devices) != 0) return -1;
    return strcmp(quality, "ok") != 0;
}
