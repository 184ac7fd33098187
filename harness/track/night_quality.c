/* night_quality.h. */
#include "night_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "stats.h"
#include "store_quality.h"
#include "util.h"

/* Each device's canary tonight against the median of its last seven nights. */
static void canary_judge(const struct store_canary_past *r, void *ctx) {
    struct strbuf *why = ctx;
    if (r->npast < 2) return; /* no history to be off from */
    /* As regressions' veto: 10 %, or four times the canary's own
     * night-to-night noise where it is noisier than that. */
    double usual = stats_median(r->past, (size_t)r->npast), now = r->copy_gbs;
    double limit = fmax(NIGHT_CANARY_OFF, 4 * cp_noise(r->past, r->npast));
    if (fabs(now / usual - 1) > limit)
        sb_printf(why, "%s%s canary %.1f GB/s against its usual %.1f", why->len ? "; " : "", r->spec, now, usual);
}

/* Throttling the GPU reported at the night's start or end (idle clocks and
 * application clocks are not throttling). */
static void throttling(struct store *s, int64_t id, struct strbuf *why) {
    static const char *const bad[] = {"hw-slowdown", "sw-thermal", "hw-thermal", "hw-power-brake"};
    char *t = store_nightly_telemetry(s, id);
    for (size_t i = 0; t && i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(t, bad[i])) sb_printf(why, "%sGPU throttled (%s)", why->len ? "; " : "", bad[i]);
    free(t);
}

static void loaded(struct store *s, int64_t id, struct strbuf *why) {
    struct store_round_load l;
    if (store_nightly_round_load(s, id, &l) != 0) return;
    if (l.rounds > 0 && l.disturbed >= NIGHT_LOADED_SHARE * l.rounds)
        sb_printf(why,
                  "%sthe host busy in %d of %d rounds (other processes up to %.1f cores, the hypervisor"
                  " took up to %.1f)",
                  why->len ? "; " : "", l.disturbed, l.rounds, l.foreign_cores, l.steal_cores);
}

int night_quality(struct store *s, int64_t id, char *quality, size_t n) {
    struct strbuf why = {0};
    store_nightly_canaries(s, id, canary_judge, &why);
    throttling(s, id, &why);
    loaded(s, id, &why);
    if (why.len) str_fmt(quality, n, "disturbed: %s", why.s);
    else str_copy(quality, n, "ok");
    sb_free(&why);
    if (store_nightly_quality(s, id, quality) != 0) return -1;
    return strcmp(quality, "ok") != 0;
}
