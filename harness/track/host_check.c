/* host_check.h. */
#include "track/host_check.h"

#include <math.h>
#include <string.h>

#include "base/util.h"
#include "core/hostload.h"
#include "core/probe_isolated.h"

void host_check(struct store *s, const struct device_info *devs, int ndev, struct host_check *out) {
    memset(out, 0, sizeof *out);
    out->foreign_cores = hostload_sample(1.0);
    struct strbuf why = {0};
    if (out->foreign_cores >= HOSTLOAD_DISTURBED_CORES)
        sb_printf(&why, "other processes kept %.1f cores busy", out->foreign_cores);
    for (int i = 0; i < ndev && out->ndev < HOST_CHECK_MAX_DEVICES; i++) {
        const struct device_info *info = &devs[i];
        char err[ERR_MAX];
        struct probe_peak p; /* in a process of its own (probe_isolated.h) */
        if (probe_peak(info, 0, &p, err, sizeof err) != 0) continue;
        const double gbs = p.gbs;
        int k = out->ndev++;
        str_copy(out->dev[k].spec, sizeof out->dev[k].spec, info->spec);
        out->dev[k].gbs = gbs;
        if (!s || store_peak_usual(s, info->fingerprint, &out->dev[k].usual) != 0) out->dev[k].usual = 0;
        if (out->dev[k].usual > 0 && gbs < (1 - HOST_CHECK_CANARY_DROP) * out->dev[k].usual)
            sb_printf(&why, "%s%s copy %.1f GB/s, %.0f %% of its usual %.1f", why.len ? "; " : "", info->spec, gbs,
                      100 * gbs / out->dev[k].usual, out->dev[k].usual);
    }
    out->disturbed = why.len > 0;
    str_copy(out->why, sizeof out->why, why.s ? why.s : "");
    sb_free(&why);
}

void host_check_words(const struct host_check *h, char *buf, size_t n) {
    struct strbuf b = {0};
    if (h->disturbed) {
        sb_printf(&b, "DISTURBED: %s", h->why);
    } else {
        sb_printf(&b, "quiet (other processes %.2f cores", isnan(h->foreign_cores) ? 0.0 : h->foreign_cores);
        for (int i = 0; i < h->ndev; i++) {
            sb_printf(&b, "; %s copy %.1f GB/s", h->dev[i].spec, h->dev[i].gbs);
            if (h->dev[i].usual > 0) sb_printf(&b, " (%.0f %% of usual)", 100 * h->dev[i].gbs / h->dev[i].usual);
        }
        sb_printf(&b, ")");
    }
    str_copy(buf, n, b.s);
    sb_free(&b);
}

void host_check_print(FILE *out, const char *when, const struct host_check *h) {
    char words[1024];
    host_check_words(h, words, sizeof words);
    fprintf(out, "host %s: %s\n", when, words);
}
