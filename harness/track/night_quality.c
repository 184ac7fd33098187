/* night_quality.h. */
#include "night_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "stats.h"
#include "store_quality.h"
#include "util.h"

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
    sb_printf(&v->devices, "%s%s", v->devices.len ? "," : "", spec);
}

/* Each device's canary tonight against the median of its last seven nights. */
static void canary_judge(const struct store_canary_past *r, void *ctx) {
    struct verdict *v = ctx;
    struct strbuf *why = &v->why;
    if (r->npast < 2) return; /* no history to be off from */
    /* As regressions' veto: 10 %, or four times the canary's own
     * night-to-night noise where it is noisier than that. */
    double usual = stats_median(r->past, (size_t)r->npast), now = r->copy_gbs;
    double limit = fmax(NIGHT_CANARY_OFF, 4 * cp_noise(r->past, r->npast));
    if (fabs(now / usual - 1) > limit) {
        sb_printf(why, "%s%s canary %.1f GB/s against its usual %.1f", why->len ? "; " : "", r->spec, now, usual);
        touches(v, r->spec);
    }
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
