/* night_quality.h. */
#include "night_quality.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "stats.h"
#include "util.h"

/* Each device's canary tonight against the median of its last seven nights. */
static void canaries(sqlite3 *db, int64_t id, struct strbuf *why) {
    const char *sql =
        "SELECT d.spec, p.copy_gbs,"
        " (SELECT group_concat(q.copy_gbs) FROM (SELECT p2.copy_gbs FROM nightly_peak np2"
        "   JOIN peak p2 ON p2.id = np2.peak_id JOIN nightly n2 ON n2.id = np2.nightly_id"
        "   WHERE p2.device_id = p.device_id AND n2.id < ?1 AND COALESCE(n2.quality, 'ok') = 'ok' AND p2.copy_gbs > 0"
        "   ORDER BY n2.id DESC LIMIT 7) q)"
        " FROM nightly_peak np JOIN peak p ON p.id = np.peak_id JOIN device d ON d.id = p.device_id"
        " WHERE np.nightly_id = ?1 AND p.copy_gbs > 0";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *list = (const char *)sqlite3_column_text(st, 2);
        double v[8];
        int k = 0;
        for (const char *p = list; p && *p && k < 7;) {
            v[k++] = strtod(p, (char **)&p);
            if (*p == ',') p++;
        }
        if (k < 2) continue; /* no history to be off from */
        /* As regressions' veto: 10 %, or four times the canary's own
         * night-to-night noise where it is noisier than that. */
        double usual = stats_median(v, (size_t)k), now = sqlite3_column_double(st, 1);
        double limit = fmax(NIGHT_CANARY_OFF, 4 * cp_noise(v, k));
        if (fabs(now / usual - 1) > limit)
            sb_printf(why, "%s%s canary %.1f GB/s against its usual %.1f", why->len ? "; " : "",
                      sqlite3_column_text(st, 0), now, usual);
    }
    sqlite3_finalize(st);
}

/* Throttling the GPU reported at the night's start or end (idle clocks and
 * application clocks are not throttling). */
static void throttling(sqlite3 *db, int64_t id, struct strbuf *why) {
    static const char *const bad[] = {"hw-slowdown", "sw-thermal", "hw-thermal", "hw-power-brake"};
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT telemetry FROM nightly WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        for (size_t i = 0; t && i < sizeof bad / sizeof bad[0]; i++)
            if (strstr(t, bad[i])) sb_printf(why, "%sGPU throttled (%s)", why->len ? "; " : "", bad[i]);
    }
    sqlite3_finalize(st);
}

static void loaded(sqlite3 *db, int64_t id, struct strbuf *why) {
    const char *sql = "SELECT count(*), COALESCE(sum(rs.disturbed), 0), COALESCE(max(rs.foreign_cores), 0),"
                      " COALESCE(max(rs.steal_cores), 0)"
                      " FROM round_state rs JOIN nightly_run nr ON nr.run_id = rs.run_id WHERE nr.nightly_id = ?1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_int(st, 0), d = sqlite3_column_int(st, 1);
        if (n > 0 && d >= NIGHT_LOADED_SHARE * n)
            sb_printf(why, "%sthe host busy in %d of %d rounds (other processes up to %.1f cores, the hypervisor"
                           " took up to %.1f)", why->len ? "; " : "", d, n, sqlite3_column_double(st, 2),
                      sqlite3_column_double(st, 3));
    }
    sqlite3_finalize(st);
}

int night_quality(sqlite3 *db, int64_t id, char *quality, size_t n) {
    struct strbuf why = {0};
    canaries(db, id, &why);
    throttling(db, id, &why);
    loaded(db, id, &why);
    if (why.len) str_fmt(quality, n, "disturbed: %s", why.s);
    else str_copy(quality, n, "ok");
    sb_free(&why);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "UPDATE nightly SET quality = ?1 WHERE id = ?2", -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, quality, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    if (rc) return -1;
    return strcmp(quality, "ok") != 0;
}
