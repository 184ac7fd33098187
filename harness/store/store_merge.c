/* store_merge.h: results from several hosts in one file, so one machine can
 * compare and plot everything (`harness merge`). Rows are matched on their
 * natural keys, never on ids (every file numbers from 1):
 *   host (hostname, os, cpu), device (fingerprint), build (commit, dirty,
 *   compiler, flags, kernel compilers), config (app, input, knobs, shape),
 *   run (host, device, build, started_at, command), peak (device,
 *   measured_at), tuned (fingerprint, app, input, variant: the newer
 *   decision wins), change_point (series, night: a triaged state wins over
 *   'detected'), nightly (host, started_at, suite); a new run's report notes
 *   and launch-cost rows (with their samples) come with it.
 * Runs are the unit of de-duplication: a run already in OUT is not copied
 * again, so merging the same file twice adds nothing. What such a run gained
 * since (a resumed sweep's rounds, the configs it went on to measure) is
 * added to it: a measurement with more rounds done than OUT's copy brings its
 * new rounds' samples and its updated figures.
 * One transaction per input: a failed input leaves OUT as it was before it.
 * Columns are copied by name, those both files have (so a column another
 * module added later travels too); both files must be at the same schema
 * version (any harness command brings an older file up to date). */
#include "store/store_merge.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store_nightly.h"

/* The columns of `table` that both main and src have, minus `skip` (a
 * space-separated list), as "a, b, c" or with a prefix "m.a, m.b, m.c"
 * (malloc'd); NULL when src lacks the table. Names come from the schema,
 * never from user input. */
static char *columns_prefixed(sqlite3 *db, const char *table, const char *skip, const char *prefix) {
    char sql[512];
    str_fmt(sql, sizeof sql,
            "SELECT m.name FROM pragma_table_info('%s', 'main') m JOIN pragma_table_info('%s', 'src') s"
            " ON s.name = m.name ORDER BY m.cid",
            table, table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return NULL;
    struct strbuf b = {0};
    int any = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        char padded[160];
        str_fmt(padded, sizeof padded, " %s ", name);
        char skips[256];
        str_fmt(skips, sizeof skips, " %s ", skip);
        any = 1;
        if (strstr(skips, padded)) continue;
        sb_printf(&b, "%s%s%s", b.len ? ", " : "", prefix, name);
    }
    sqlite3_finalize(st);
    if (!any) {
        sb_free(&b);
        return NULL;
    }
    if (!b.s) b.s = xstrdup("");
    return b.s;
}

static char *common_columns(sqlite3 *db, const char *table, const char *skip) {
    return columns_prefixed(db, table, skip, "");
}

static int exec_fmt(sqlite3 *db, char *err, size_t errn, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int exec_fmt(sqlite3 *db, char *err, size_t errn, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    int rc = db_exec(db, sql, err, errn);
    sqlite3_free(sql);
    return rc;
}

/* host, device, build, config: INSERT OR IGNORE on their UNIQUE keys. */
static int merge_keyed(sqlite3 *db, const char *table, char *err, size_t errn) {
    char *cols = common_columns(db, table, "id");
    if (!cols) return err_set(err, errn, "the input has no table %s", table);
    int rc = exec_fmt(db, err, errn, "INSERT OR IGNORE INTO main.%s(%s) SELECT %s FROM src.%s ORDER BY id", table, cols,
                      cols, table);
    free(cols);
    return rc;
}

/* A device set's members (device_member), by the fingerprints of the set
 * and of each member, which merge_keyed has just brought over. */
static int merge_members(sqlite3 *db, char *err, size_t errn) {
    return exec_fmt(db, err, errn,
                    "INSERT OR IGNORE INTO main.device_member(set_id, position, member_id)"
                    " SELECT ms.id, dm.position, mm.id FROM src.device_member dm"
                    " JOIN src.device s ON s.id = dm.set_id JOIN main.device ms ON ms.fingerprint = s.fingerprint"
                    " JOIN src.device m ON m.id = dm.member_id JOIN main.device mm ON mm.fingerprint = m.fingerprint");
}

static int64_t one_id(sqlite3_stmt *st) {
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return id;
}

/* The statements merge_runs prepares once for all runs. */
struct run_stmts {
    sqlite3_stmt *runs, *find, *ins, *meas, *dmeas, *mins, *samp, *more, *more_samp, *map;
};

/* One src run's measurements into OUT's run `dst`. Within a run,
 * measurements pair up by position: OUT's copy holds the first of src's, in
 * src's order (it was copied from an earlier state of the same file). A pair
 * whose src side has more rounds done (a resumed sweep) gets src's figures
 * and the samples of the new rounds; a src measurement past OUT's last is
 * copied whole. 0, or -1 with SQLite's error. */
static int merge_measurements(sqlite3 *db, struct run_stmts *q, int64_t src, int64_t dst, int fresh,
                              struct merge_tally *t) {
    int nd = 0, rc = 0;
    struct had {
        int64_t id;
        int done;
    } *had = NULL;
    /* OUT's side is read whole before anything is inserted into this run. */
    sqlite3_bind_int64(q->dmeas, 1, dst);
    while (!fresh && sqlite3_step(q->dmeas) == SQLITE_ROW) {
        had = xrealloc(had, (size_t)(nd + 1) * sizeof *had);
        had[nd++] = (struct had){sqlite3_column_int64(q->dmeas, 0), sqlite3_column_int(q->dmeas, 1)};
    }
    sqlite3_reset(q->dmeas);
    sqlite3_bind_int64(q->meas, 1, src);
    for (int k = 0; rc == 0 && sqlite3_step(q->meas) == SQLITE_ROW; k++) {
        int64_t m = sqlite3_column_int64(q->meas, 0);
        int src_done = sqlite3_column_int(q->meas, 1);
        if (k < nd) {
            if (src_done <= had[k].done) continue;
            sqlite3_bind_int64(q->more, 1, had[k].id);
            sqlite3_bind_int64(q->more, 2, m);
            sqlite3_bind_int64(q->more_samp, 1, had[k].id);
            sqlite3_bind_int64(q->more_samp, 2, m);
            sqlite3_bind_int(q->more_samp, 3, had[k].done);
            if (sqlite3_step(q->more) != SQLITE_DONE || sqlite3_step(q->more_samp) != SQLITE_DONE) rc = -1;
            else t->samples += sqlite3_changes(db), t->resumed++;
            sqlite3_reset(q->more);
            sqlite3_reset(q->more_samp);
            continue;
        }
        sqlite3_bind_int64(q->mins, 1, dst);
        sqlite3_bind_int64(q->mins, 2, m);
        if (sqlite3_step(q->mins) != SQLITE_DONE || sqlite3_changes(db) != 1) rc = -1;
        sqlite3_reset(q->mins);
        if (rc) break;
        sqlite3_bind_int64(q->samp, 1, sqlite3_last_insert_rowid(db));
        sqlite3_bind_int64(q->samp, 2, m);
        if (sqlite3_step(q->samp) != SQLITE_DONE) rc = -1;
        else t->samples += sqlite3_changes(db), t->measurements++;
        sqlite3_reset(q->samp);
    }
    sqlite3_reset(q->meas);
    free(had);
    return rc;
}

/* The statements merge_runs steps through, over the columns both files
 * have: 0, or nonzero with the error in db. */
static int run_stmts_prepare(sqlite3 *db, struct run_stmts *q, const char *rcols, const char *mcols,
                             const char *mcols_m, const char *scols) {
    /* Each src run with the ids its host, device and build have in main. */
    const char *runs_sql =
        "SELECT r.id, mh.id, md.id, mb.id, r.started_at, r.command FROM src.run r"
        " JOIN src.host h ON h.id = r.host_id JOIN main.host mh ON mh.hostname = h.hostname AND mh.os = h.os AND "
        "mh.cpu = h.cpu"
        " JOIN src.device d ON d.id = r.device_id JOIN main.device md ON md.fingerprint = d.fingerprint"
        " JOIN src.build b ON b.id = r.build_id JOIN main.build mb ON mb.git_commit = b.git_commit AND mb.dirty = "
        "b.dirty"
        " AND mb.compiler = b.compiler AND mb.flags = b.flags AND mb.kernel_compilers = b.kernel_compilers ORDER BY "
        "r.id";
    char *ins_sql = sqlite3_mprintf("INSERT INTO main.run(host_id, device_id, build_id, %s) SELECT ?1, ?2, ?3, %s"
                                    " FROM src.run WHERE id = ?4",
                                    rcols, rcols);
    char *samp_sql = sqlite3_mprintf("INSERT INTO main.sample(measurement_id, %s) SELECT ?1, %s FROM src.sample"
                                     " WHERE measurement_id = ?2",
                                     scols, scols);
    char *mins_sql = sqlite3_mprintf(
        "INSERT INTO main.measurement(run_id, config_id, %s) SELECT ?1, mc.id, %s FROM src.measurement m"
        " JOIN src.config c ON c.id = m.config_id JOIN main.config mc ON mc.app = c.app AND mc.input = c.input"
        " AND mc.knobs = c.knobs AND mc.wg_x = c.wg_x AND mc.wg_y = c.wg_y WHERE m.id = ?2",
        mcols, mcols_m);
    char *more_sql = sqlite3_mprintf("UPDATE main.measurement SET (%s) = (SELECT %s FROM src.measurement WHERE id = ?2)"
                                     " WHERE id = ?1",
                                     mcols, mcols);
    char *more_samp_sql = sqlite3_mprintf("INSERT INTO main.sample(measurement_id, %s) SELECT ?1, %s FROM src.sample"
                                          " WHERE measurement_id = ?2 AND round >= ?3",
                                          scols, scols);
    int prep =
        sqlite3_prepare_v2(db, runs_sql, -1, &q->runs, NULL) ||
        sqlite3_prepare_v2(db,
                           "SELECT id FROM main.run WHERE host_id = ?1 AND device_id = ?2 AND build_id = ?3"
                           " AND started_at = ?4 AND command = ?5",
                           -1, &q->find, NULL) ||
        sqlite3_prepare_v2(db, ins_sql, -1, &q->ins, NULL) ||
        sqlite3_prepare_v2(db, "SELECT id, rounds_done FROM src.measurement WHERE run_id = ?1 ORDER BY id", -1,
                           &q->meas, NULL) ||
        sqlite3_prepare_v2(db, "SELECT id, rounds_done FROM main.measurement WHERE run_id = ?1 ORDER BY id", -1,
                           &q->dmeas, NULL) ||
        sqlite3_prepare_v2(db, mins_sql, -1, &q->mins, NULL) || sqlite3_prepare_v2(db, samp_sql, -1, &q->samp, NULL) ||
        sqlite3_prepare_v2(db, more_sql, -1, &q->more, NULL) ||
        sqlite3_prepare_v2(db, more_samp_sql, -1, &q->more_samp, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO temp.run_map(src, dst, fresh) VALUES (?1, ?2, ?3)", -1, &q->map, NULL);
    sqlite3_free(ins_sql);
    sqlite3_free(mins_sql);
    sqlite3_free(samp_sql);
    sqlite3_free(more_sql);
    sqlite3_free(more_samp_sql);
    return prep;
}

/* Each src run: found in OUT (the same host, device, build, start and
 * command) or copied, then its measurements, and its ids in temp.run_map.
 * The last sqlite3_step of the runs: SQLITE_DONE when every one went. */
static int copy_runs(sqlite3 *db, struct run_stmts *q, struct merge_tally *t) {
    int step;
    while ((step = sqlite3_step(q->runs)) == SQLITE_ROW) {
        int64_t src = sqlite3_column_int64(q->runs, 0);
        for (int i = 0; i < 5; i++) sqlite3_bind_value(q->find, i + 1, sqlite3_column_value(q->runs, i + 1));
        int64_t dst = one_id(q->find);
        const int fresh = !dst;
        if (fresh) {
            for (int i = 0; i < 3; i++) sqlite3_bind_value(q->ins, i + 1, sqlite3_column_value(q->runs, i + 1));
            sqlite3_bind_int64(q->ins, 4, src);
            if (sqlite3_step(q->ins) != SQLITE_DONE) break;
            sqlite3_reset(q->ins);
            dst = sqlite3_last_insert_rowid(db);
            t->runs++;
        } else {
            t->skipped++;
        }
        if (merge_measurements(db, q, src, dst, fresh, t) != 0) break;
        sqlite3_bind_int64(q->map, 1, src);
        sqlite3_bind_int64(q->map, 2, dst);
        sqlite3_bind_int(q->map, 3, fresh);
        if (sqlite3_step(q->map) != SQLITE_DONE) break;
        sqlite3_reset(q->map);
    }
    return step;
}

/* Runs, their measurements and samples. */
static int merge_runs(sqlite3 *db, struct merge_tally *t, char *err, size_t errn) {
    char *rcols = common_columns(db, "run", "id host_id device_id build_id");
    char *mcols = common_columns(db, "measurement", "id run_id config_id");
    char *mcols_m = columns_prefixed(db, "measurement", "id run_id config_id", "m.");
    /* Samples with whatever columns both have (a file from before rounds has
     * no sample.round: its samples are round 0 here, as a migration makes them). */
    char *scols = common_columns(db, "sample", "measurement_id");
    int rc = -1;
    struct run_stmts q = {0};
    if (!rcols || !mcols || !mcols_m || !scols) {
        err_set(err, errn, "the input lacks run or measurement");
        goto done;
    }
    if (run_stmts_prepare(db, &q, rcols, mcols, mcols_m, scols)) {
        err_set(err, errn, "%s", sqlite3_errmsg(db));
        goto done;
    }
    if (copy_runs(db, &q, t) != SQLITE_DONE) {
        err_set(err, errn, "run: %s", sqlite3_errmsg(db));
        goto done;
    }
    /* Each run's rounds: what the host did while it measured (a resumed
     * run's new rounds too; the key keeps the ones OUT has). */
    char *rs = common_columns(db, "round_state", "run_id");
    rc = 0;
    if (rs && rs[0])
        rc = exec_fmt(db, err, errn,
                      "INSERT OR IGNORE INTO main.round_state(run_id, %s) SELECT m.dst, %s FROM src.round_state r"
                      " JOIN temp.run_map m ON m.src = r.run_id",
                      rs, rs);
    free(rs);
done:;
    sqlite3_stmt *all[] = {q.runs, q.find, q.ins, q.meas, q.dmeas, q.mins, q.samp, q.more, q.more_samp, q.map};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) sqlite3_finalize(all[i]);
    free(rcols);
    free(mcols);
    free(mcols_m);
    free(scols);
    return rc;
}

/* Peaks: new ones by (device, measured_at); every one mapped for nightly_peak. */
static int merge_peaks(sqlite3 *db, struct merge_tally *t, char *err, size_t errn) {
    char *cols = common_columns(db, "peak", "id device_id");
    if (!cols) return 0;
    int64_t before = 0;
    db_int(db, "SELECT count(*) FROM main.peak", 0, &before, NULL, 0);
    int rc = exec_fmt(db, err, errn,
                      "INSERT INTO main.peak(device_id, %s) SELECT md.id, %s FROM src.peak p"
                      " JOIN src.device d ON d.id = p.device_id JOIN main.device md ON md.fingerprint = d.fingerprint"
                      " WHERE NOT EXISTS (SELECT 1 FROM main.peak x WHERE x.device_id = md.id"
                      " AND x.measured_at = p.measured_at) ORDER BY p.id;"
                      "INSERT OR IGNORE INTO temp.peak_map(src, dst) SELECT p.id,"
                      " (SELECT x.id FROM main.peak x WHERE x.device_id = md.id AND x.measured_at = p.measured_at"
                      "  ORDER BY x.id LIMIT 1)"
                      " FROM src.peak p JOIN src.device d ON d.id = p.device_id"
                      " JOIN main.device md ON md.fingerprint = d.fingerprint",
                      cols, cols);
    free(cols);
    int64_t after = 0;
    db_int(db, "SELECT count(*) FROM main.peak", 0, &after, NULL, 0);
    t->peaks += after - before;
    return rc;
}

/* Tuned decisions: the newer one of two for the same key wins; the
 * history of decisions is the union of both. */
static int merge_tuned(sqlite3 *db, char *err, size_t errn) {
    char *cols = common_columns(db, "tuned", "id");
    if (!cols) return 0;
    int rc = exec_fmt(db, err, errn,
                      "DELETE FROM main.tuned WHERE EXISTS (SELECT 1 FROM src.tuned s WHERE"
                      " s.device_fingerprint = tuned.device_fingerprint AND s.app = tuned.app AND s.input = tuned.input"
                      " AND s.variant = tuned.variant AND s.decided_at > tuned.decided_at);"
                      "INSERT OR IGNORE INTO main.tuned(%s) SELECT %s FROM src.tuned ORDER BY id",
                      cols, cols);
    free(cols);
    if (rc != 0) return rc;
    /* Their history: every decision the source has that this file has not
     * (a decision is its key and its time). */
    if (!(cols = common_columns(db, "tuned_history", "id"))) return 0;
    rc = exec_fmt(db, err, errn,
                  "INSERT INTO main.tuned_history(%s) SELECT %s FROM src.tuned_history s WHERE NOT EXISTS"
                  " (SELECT 1 FROM main.tuned_history h WHERE h.device_fingerprint = s.device_fingerprint"
                  " AND h.app = s.app AND h.input = s.input AND h.variant = s.variant AND h.decided_at = s.decided_at)"
                  " ORDER BY s.decided_at, s.id",
                  cols, cols);
    free(cols);
    return rc;
}

static int src_has(sqlite3 *db, const char *table) {
    char sql[160];
    int64_t n = 0;
    str_fmt(sql, sizeof sql, "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = '%s'", table);
    return db_int(db, sql, 0, &n, NULL, 0) == 0 && n > 0;
}

/* Change points, nightlies with their links, exclusions. */
static int merge_tracking(sqlite3 *db, struct merge_tally *t, char *err, size_t errn) {
    int64_t before = 0, after = 0;
    if (src_has(db, "change_point")) {
        char *cols = common_columns(db, "change_point", "id run_id");
        int has_run = 0;
        int64_t n = 0;
        db_int(db, "SELECT count(*) FROM pragma_table_info('change_point', 'src') WHERE name = 'run_id'", 0, &n, NULL,
               0);
        has_run = n > 0;
        db_int(db, "SELECT count(*) FROM main.change_point", 0, &before, NULL, 0);
        int rc = exec_fmt(
            db, err, errn,
            "UPDATE main.change_point SET triage = (SELECT s.triage FROM src.change_point s"
            " WHERE s.series = change_point.series AND s.night = change_point.night),"
            " note = COALESCE((SELECT s.note FROM src.change_point s WHERE s.series = change_point.series"
            " AND s.night = change_point.night), note)"
            " WHERE triage = 'detected' AND EXISTS (SELECT 1 FROM src.change_point s"
            " WHERE s.series = change_point.series AND s.night = change_point.night AND s.triage != 'detected');"
            "INSERT OR IGNORE INTO main.change_point(%s, run_id) SELECT %s, %s FROM src.change_point cp ORDER BY id",
            cols, cols, has_run ? "(SELECT dst FROM temp.run_map WHERE src = cp.run_id)" : "NULL");
        free(cols);
        if (rc) return -1;
        db_int(db, "SELECT count(*) FROM main.change_point", 0, &after, NULL, 0);
        t->change_points += after - before;
    }
    if (src_has(db, "nightly")) {
        char *cols = common_columns(db, "nightly", "id");
        db_int(db, "SELECT count(*) FROM main.nightly", 0, &before, NULL, 0);
        int rc =
            exec_fmt(db, err, errn,
                     "INSERT OR IGNORE INTO main.nightly(%s) SELECT %s FROM src.nightly ORDER BY id;"
                     "INSERT INTO temp.nightly_map(src, dst) SELECT s.id, m.id FROM src.nightly s JOIN main.nightly m"
                     " ON m.host = s.host AND m.started_at = s.started_at AND m.suite = s.suite;"
                     "INSERT OR IGNORE INTO main.nightly_run(nightly_id, run_id) SELECT nm.dst, rm.dst"
                     " FROM src.nightly_run x JOIN temp.nightly_map nm ON nm.src = x.nightly_id"
                     " JOIN temp.run_map rm ON rm.src = x.run_id;"
                     "INSERT OR IGNORE INTO main.nightly_peak(nightly_id, peak_id) SELECT nm.dst, pm.dst"
                     " FROM src.nightly_peak x JOIN temp.nightly_map nm ON nm.src = x.nightly_id"
                     " JOIN temp.peak_map pm ON pm.src = x.peak_id",
                     cols, cols);
        free(cols);
        if (rc) return -1;
        db_int(db, "SELECT count(*) FROM main.nightly", 0, &after, NULL, 0);
        t->nightlies += after - before;
    }
    if (src_has(db, "run_exclusion") && db_exec(db,
                                                "INSERT OR IGNORE INTO main.run_exclusion(run_id, reason, excluded_at)"
                                                " SELECT rm.dst, e.reason, e.excluded_at FROM src.run_exclusion e JOIN "
                                                "temp.run_map rm ON rm.src = e.run_id",
                                                err, errn))
        return -1;
    return 0;
}

/* What hangs off a run besides its measurements: `harness report`'s probe
 * notes and `harness launch-cost`'s rows with their samples, copied for the
 * runs this merge added (a skipped run already has them). Launch-cost rows
 * pair up by their order within the run, as they were stored. */
static int merge_run_extras(sqlite3 *db, char *err, size_t errn) {
    if (src_has(db, "report_note") &&
        db_exec(db,
                "INSERT OR IGNORE INTO main.report_note(run_id, key, text) SELECT rm.dst, n.key, n.text"
                " FROM src.report_note n JOIN temp.run_map rm ON rm.src = n.run_id WHERE rm.fresh ORDER BY n.rowid",
                err, errn))
        return -1;
    if (!src_has(db, "launch_cost")) return 0;
    char *cols = common_columns(db, "launch_cost", "id run_id device_id");
    char *cols_lc = columns_prefixed(db, "launch_cost", "id run_id device_id", "lc.");
    int rc = !cols || !cols_lc ||
             exec_fmt(db, err, errn,
                      "INSERT INTO main.launch_cost(run_id, device_id, %s) SELECT rm.dst, md.id, %s"
                      " FROM src.launch_cost lc JOIN temp.run_map rm ON rm.src = lc.run_id AND rm.fresh"
                      " JOIN src.device d ON d.id = lc.device_id JOIN main.device md ON md.fingerprint = d.fingerprint"
                      " ORDER BY lc.id;"
                      "INSERT INTO temp.launch_cost_map(src, dst) SELECT s.id, m.id FROM"
                      " (SELECT lc.id, rm.dst AS run, row_number() OVER (PARTITION BY lc.run_id ORDER BY lc.id) AS k"
                      "  FROM src.launch_cost lc JOIN temp.run_map rm ON rm.src = lc.run_id AND rm.fresh) s"
                      " JOIN (SELECT id, run_id, row_number() OVER (PARTITION BY run_id ORDER BY id) AS k"
                      "  FROM main.launch_cost) m ON m.run_id = s.run AND m.k = s.k;"
                      "INSERT INTO main.launch_cost_sample(launch_cost_id, rep, enqueue_s, total_s)"
                      " SELECT lm.dst, x.rep, x.enqueue_s, x.total_s FROM src.launch_cost_sample x"
                      " JOIN temp.launch_cost_map lm ON lm.src = x.launch_cost_id ORDER BY x.rowid",
                      cols, cols_lc);
    free(cols);
    free(cols_lc);
    return rc ? -1 : 0;
}

int store_merge_file(struct store *s, const char *path, struct merge_tally *t, char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    if (!ok) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int64_t vin = -1, vout = -2, tables = 0;
    int rc = -1;
    db_int(db, "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = 'run'", 0, &tables, NULL, 0);
    db_int(db, "PRAGMA src.user_version", -1, &vin, NULL, 0);
    db_int(db, "PRAGMA main.user_version", -1, &vout, NULL, 0);
    if (!tables) err_set(err, errn, "not a results database (no run table)");
    else if (vin != vout)
        err_set(err, errn,
                "schema version %lld, the output's is %lld (any harness command on it, e.g."
                " `harness results --db %s`, brings it up to date)",
                (long long)vin, (long long)vout, path);
    else if (db_exec(db, "BEGIN IMMEDIATE", err, errn) == 0) {
        if (db_exec(
                db,
                "DROP TABLE IF EXISTS temp.run_map; CREATE TEMP TABLE run_map (src INTEGER PRIMARY KEY, dst INTEGER, "
                "fresh INTEGER);"
                "DROP TABLE IF EXISTS temp.launch_cost_map; CREATE TEMP TABLE launch_cost_map (src INTEGER PRIMARY "
                "KEY, dst INTEGER);"
                "DROP TABLE IF EXISTS temp.peak_map; CREATE TEMP TABLE peak_map (src INTEGER PRIMARY KEY, dst INTEGER);"
                "DROP TABLE IF EXISTS temp.nightly_map; CREATE TEMP TABLE nightly_map (src INTEGER PRIMARY KEY, dst "
                "INTEGER)",
                err, errn) == 0 &&
            merge_keyed(db, "host", err, errn) == 0 && merge_keyed(db, "device", err, errn) == 0 &&
            merge_members(db, err, errn) == 0 && merge_keyed(db, "build", err, errn) == 0 &&
            merge_keyed(db, "config", err, errn) == 0 && merge_runs(db, t, err, errn) == 0 &&
            merge_peaks(db, t, err, errn) == 0 && merge_tuned(db, err, errn) == 0 &&
            merge_tracking(db, t, err, errn) == 0 && merge_run_extras(db, err, errn) == 0 &&
            db_exec(db, "COMMIT", err, errn) == 0)
            rc = 0;
        if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_exec(db, "DETACH DATABASE src", NULL, NULL, NULL);
    return rc;
}

int store_shard_coverage(struct store *s, char *const *keys, int nkeys, int shards, int64_t *want, int64_t *have,
                         char *err, size_t errn) {
    sqlite3 *db = store_db(s);
    int rc = db_exec(db,
                     "CREATE TEMP TABLE IF NOT EXISTS merge_expected(key TEXT PRIMARY KEY, shard INTEGER);"
                     "DELETE FROM temp.merge_expected",
                     err, errn);
    sqlite3_stmt *ins = NULL, *st = NULL;
    if (!rc && sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.merge_expected(key, shard) VALUES (?1, ?2)", -1, &ins,
                                  NULL) != SQLITE_OK)
        rc = err_set(err, errn, "%s", sqlite3_errmsg(db));
    for (int i = 0; i < nkeys && !rc; i++) {
        sqlite3_bind_text(ins, 1, keys[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins, 2, i % shards);
        if (sqlite3_step(ins) != SQLITE_DONE) rc = err_set(err, errn, "%s", sqlite3_errmsg(db));
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    if (rc) return -1;
    /* A key is present with all its rounds (a killed shard's half-measured
     * config is kept, but still missing: the resubmitted shard resumes its
     * rounds, as `sweep` does); a failed config is complete as it is. */
    const char *sql =
        "WITH have AS (SELECT DISTINCT d.fingerprint || '|' || c.app || '|' || c.input || '|' || c.knobs || '|'"
        " || printf('%05dx%05d', c.wg_x, c.wg_y) AS key FROM main.measurement m JOIN main.config c ON c.id = "
        "m.config_id"
        " JOIN main.run r ON r.id = m.run_id JOIN main.device d ON d.id = r.device_id"
        " WHERE m.status NOT IN ('ok', 'unverified') OR m.rounds_done >= m.rounds)"
        " SELECT e.shard, count(*), count(h.key) FROM temp.merge_expected e LEFT JOIN have h ON h.key = e.key"
        " GROUP BY e.shard ORDER BY e.shard";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    for (int i = 0; i < shards; i++) want[i] = have[i] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int shard = sqlite3_column_int(st, 0);
        if (shard < 0 || shard >= shards) continue;
        want[shard] = sqlite3_column_int64(st, 1);
        have[shard] = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return 0;
}
