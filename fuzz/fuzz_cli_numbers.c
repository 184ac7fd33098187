/* The numbers options and files give (harness/base/util.c parse_whole and
 * parse_real, runner.c wg_parse, cli.c cli_shard, launch-cost's --args
 * list), each checked against a plain reading of what it documents: a
 * decimal integer is [+-]digits and nothing else, its value exact and within
 * the bounds; a real is finite and reads back as itself; a shape is digits
 * 'x' digits, 1..WG_MAX_EXTENT each; a shard is K/N with 0 <= K < N; an
 * argument list is distinct counts 0..KARG_MAX between commas. Every input
 * goes to all of them. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>

#include "backend/launch_cost.h"
#include "cli/cli.h"
#include "core/runner.h"
#include "fuzz.h"

/* [+-]digits, exactly, as a clamped 128-bit value; 0 when not that form. */
static int plain_integer(const char *s, __int128 *out) {
    int neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    if (!*s) return 0;
    __int128 v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        if (v < ((__int128)1 << 100)) v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

static void check_whole(const char *text) {
    static const long bounds[][2] = {{LONG_MIN, LONG_MAX}, {0, INT_MAX}, {1, 10000}, {-5, 5}, {2, 1000}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        long v = 12345;
        __int128 want;
        const int ok = parse_whole(text, bounds[i][0], bounds[i][1], &v) == 0;
        const int plain = plain_integer(text, &want);
        const int in_range = plain && want >= bounds[i][0] && want <= bounds[i][1];
        FUZZ_ASSERT(ok == in_range, "parse_whole('%s', %ld, %ld) %s", text, bounds[i][0], bounds[i][1],
                    ok ? "accepted it" : "refused it");
        FUZZ_ASSERT(ok ? v == want : v == 12345, "parse_whole('%s') gave %ld", text, v);
    }
}

static void check_real(const char *text) {
    static const double bounds[][2] = {{-DBL_MAX, DBL_MAX}, {0, 1}, {0, 1e6}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        double v = 0.5;
        if (parse_real(text, bounds[i][0], bounds[i][1], &v)) {
            FUZZ_ASSERT(v == 0.5, "a refused '%s' left %g", text, v);
            continue;
        }
        FUZZ_ASSERT(isfinite(v) && v >= bounds[i][0] && v <= bounds[i][1], "parse_real('%s') gave %g", text, v);
        FUZZ_ASSERT(*text && !isspace((unsigned char)*text), "parse_real accepted '%s'", text);
        char again[64];
        double w = 0;
        snprintf(again, sizeof again, "%.17g", v);
        FUZZ_ASSERT(!parse_real(again, -DBL_MAX, DBL_MAX, &w) && w == v, "%g reads back as %g", v, w);
    }
}

/* digits, 1..WG_MAX_EXTENT (leading zeros allowed); the rest after it. */
static const char *plain_side(const char *s, unsigned long *v) {
    const char *start = s;
    *v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (*v <= WG_MAX_EXTENT) *v = *v * 10 + (unsigned long)(*s - '0');
    return s > start && *v >= 1 && *v <= WG_MAX_EXTENT ? s : NULL;
}

static void check_wg(const char *text) {
    unsigned wg[2] = {7, 7};
    const int ok = wg_parse(text, wg) == 0;
    unsigned long w, h;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    int want = (p = plain_side(p, &w)) && *p++ == 'x' && (p = plain_side(p, &h));
    if (want) {
        while (isspace((unsigned char)*p)) p++;
        want = !*p;
    }
    FUZZ_ASSERT(ok == want, "wg_parse('%s') %s", text, ok ? "accepted it" : "refused it");
    if (ok) FUZZ_ASSERT(wg[0] == w && wg[1] == h, "wg_parse('%s') gave %ux%u", text, wg[0], wg[1]);
    else FUZZ_ASSERT(wg[0] == 7 && wg[1] == 7, "a refused '%s' wrote %ux%u", text, wg[0], wg[1]);
}

static void check_shard(const char *text) {
    int k = -7, n = -7;
    const int ok = cli_shard(text, &k, &n) == 0;
    char *first = strdup(text), *slash = strchr(first, '/');
    __int128 wk, wn;
    int want = 0;
    if (slash) {
        *slash = '\0';
        want = plain_integer(first, &wk) && plain_integer(slash + 1, &wn) && wn >= 1 && wn <= INT_MAX && wk >= 0 &&
               wk < wn;
    }
    free(first);
    FUZZ_ASSERT(ok == want, "cli_shard('%s') %s", text, ok ? "accepted it" : "refused it");
    if (ok) FUZZ_ASSERT(k == wk && n == wn, "cli_shard('%s') gave %d/%d", text, k, n);
}

static void check_counts(const char *text) {
    struct launch_cost_opts o;
    memset(&o, 0, sizeof o);
    char err[512] = "";
    if (launch_cost_parse_counts(text, &o, err, sizeof err)) {
        FUZZ_ASSERT(err[0] && !o.ncounts, "a refused '%s' says why and keeps nothing", text);
        return;
    }
    FUZZ_ASSERT(o.ncounts >= 1 && o.ncounts <= LAUNCH_COST_MAX_COUNTS, "'%s' gave %d counts", text, o.ncounts);
    /* The items between commas, each a plain integer that is its count. */
    char *copy = strdup(text), *save = NULL;
    int i = 0;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save), i++) {
        __int128 want;
        FUZZ_ASSERT(i < o.ncounts && plain_integer(item, &want) && want == o.counts[i], "'%s': item %d '%s'", text, i,
                    item);
        FUZZ_ASSERT(o.counts[i] >= 0 && o.counts[i] <= KARG_MAX, "'%s': count %d", text, o.counts[i]);
        for (int j = 0; j < i; j++) FUZZ_ASSERT(o.counts[j] != o.counts[i], "'%s': %d twice", text, o.counts[i]);
    }
    FUZZ_ASSERT(i == o.ncounts, "'%s': %d items, %d counts", text, i, o.ncounts);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    check_whole(text);
    check_real(text);
    check_wg(text);
    check_shard(text);
    check_counts(text);
    free(text);
    return 0;
}
