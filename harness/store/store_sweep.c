/* The sweep's already-measured lookup (store_sweep.h). */
#include "store/store_sweep.h"

#include <sqlite3.h>

int store_latest_measurement(struct store *s, const struct device_info *dev, const struct measurement *m,
                             struct earlier_measurement *e) {
    static const char *sql = "SELECT m.id, m.run_id, m.rounds, m.rounds_done, m.status IN ('ok', 'unverified')"
                             " FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id"
                             " JOIN device d ON d.id = r.device_id JOIN build b ON b.id = r.build_id"
                             " WHERE c.app = ?1 AND c.input = ?2 AND c.knobs = ?3 AND c.wg_x = ?4 AND c.wg_y = ?5"
                             " AND d.fingerprint = ?6 AND b.id = ?7 AND m.iters = ?8 ORDER BY m.id DESC LIMIT 1";
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, m->app, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->input, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->knobs, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, (int)m->wg[0]);
    sqlite3_bind_int(st, 5, (int)m->wg[1]);
    sqlite3_bind_text(st, 6, dev->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, store_build_this(s));
    sqlite3_bind_int64(st, 8, m->iters);
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = 1;
        e->mid = sqlite3_column_int64(st, 0);
        e->run_id = sqlite3_column_int64(st, 1);
        e->rounds = sqlite3_column_int(st, 2);
        e->rounds_done = sqlite3_column_int(st, 3);
        e->ok = sqlite3_column_int(st, 4);
    }
    sqlite3_finalize(st);
    return found;
}
