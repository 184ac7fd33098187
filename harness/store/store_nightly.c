/* Nightly tracking's own tables (store_nightly.h). Statements are prepared
 * per call: commands run each a handful of times. */
#include "store/store_nightly.h"
#include "store/store.h"
#include <stdio.h>
#include <unistd.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store_sql.h"

static const char nightly_sql[] =
    /* One `harness nightly`: when, which suite, and the machine's state
     * (telemetry text: CPU governor, load, GPU clocks, temperature and
     * throttle reasons at the start and the end). host is the hostname, so a
     * merged database keeps nightlies of different machines apart. */
    "CREATE TABLE IF NOT EXISTS nightly ("
    " id INTEGER PRIMARY KEY,"
    " host TEXT NOT NULL DEFAULT '',"
    " suite TEXT NOT NULL,"
    " started_at TEXT NOT NULL,"
    " ended_at TEXT,"
    " status INTEGER," /* 0 when every child command succeeded */
    " telemetry TEXT NOT NULL DEFAULT '',"
    " UNIQUE (host, started_at, suite));"
    "CREATE TABLE IF NOT EXISTS nightly_run ("
    " nightly_id INTEGER NOT NULL REFERENCES nightly (id),"
    " run_id INTEGER NOT NULL REFERENCES run (id),"
    " PRIMARY KEY (nightly_id, run_id));"
    "CREATE INDEX IF NOT EXISTS nightly_run_run ON nightly_run (run_id);"
    /* The canary: the copy-bandwidth rows `harness peak` stored that night. */
    "CREATE TABLE IF NOT EXISTS nightly_peak ("
    " nightly_id INTEGER NOT NULL REFERENCES nightly (id),"
    " peak_id INTEGER NOT NULL REFERENCES peak (id),"
    " PRIMARY KEY (nightly_id, peak_id));"
    /* A run a person decided not to trust (a noisy night, a broken machine). */
    "CREATE TABLE IF NOT EXISTS run_exclusion ("
    " run_id INTEGER PRIMARY KEY REFERENCES run (id),"
    " reason TEXT NOT NULL,"
    " excluded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));"
    /* A flagged change measured again: the kept builds A and B interleaved on
     * the device (confirm.h), and what that said. source: nightly, compare,
     * regressions; verdict: confirmed, rejected (noise), failed. */
    "CREATE TABLE IF NOT EXISTS confirmation ("
    " id INTEGER PRIMARY KEY,"
    " series TEXT NOT NULL,"
    " nightly_id INTEGER,"      /* the night whose flag it judged */
    " change_point_id INTEGER," /* or the change point */
    " source TEXT NOT NULL,"
    " build_a TEXT NOT NULL, build_b TEXT NOT NULL,"
    " flagged_ratio REAL," /* what the flag said (B/A) */
    " rounds INTEGER, ratio REAL, p REAL, sd REAL,"
    " verdict TEXT NOT NULL,"
    " reason TEXT,"
    " run_a INTEGER, run_b INTEGER,"
    " created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));"
    "CREATE INDEX IF NOT EXISTS confirmation_series ON confirmation (series);"
    "CREATE TABLE IF NOT EXISTS confirmation_sample ("
    " confirmation_id INTEGER NOT NULL REFERENCES confirmation (id),"
    " side TEXT NOT NULL," /* A or B */
    " round INTEGER NOT NULL,"
    " seconds REAL);"
    /* The gate's last word on each series of a night (track/nightly_gate.h):
     * same, REGRESSION, improvement, inconclusive, cannot tell; what it
     * could see and the target it had to (issue 41), by which measure. */
    "CREATE TABLE IF NOT EXISTS nightly_verdict ("
    " nightly_id INTEGER NOT NULL REFERENCES nightly (id),"
    " series TEXT NOT NULL,"
    " verdict TEXT NOT NULL,"
    " ratio REAL, detectable REAL, target REAL, measure TEXT,"
    " confirmation TEXT,"
    " PRIMARY KEY (nightly_id, series));"
    /* Each series' noise model (round_stats.h) as `harness noise` last
     * learned it: its own estimate and the one used after shrinking towards
     * the device's. */
    "CREATE TABLE IF NOT EXISTS noise_model ("
    " series TEXT PRIMARY KEY,"
    " fingerprint TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',"
    " nights INTEGER, builds INTEGER,"
    " own_sigma_night REAL, own_df_night REAL,"
    " sigma_night REAL, df_night REAL, sigma_round REAL, df_round REAL,"
    " updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));";

/* Columns added to tables that already exist: change_point's beyond
 * schema.sql's (the run where the new level starts, the device, the step's
 * direction and when it was found; the confirmation's verdict), and
 * nightly's (the kept build, how many rounds, and whether the night was
 * disturbed). */
static const struct {
    const char *table, *name, *decl;
} added_columns[] = {
    {"change_point", "run_id", "INTEGER"},
    {"change_point", "device_fingerprint", "TEXT"},
    {"change_point", "direction", "TEXT"}, /* 'regression' (slower) or 'improvement' */
    {"change_point", "detected_at", "TEXT"},
    {"change_point", "confirmation", "TEXT"},  /* confirmed, rejected, unconfirmed (why) */
    {"change_point", "nightly_id", "INTEGER"}, /* the first night of the new level */
    {"nightly", "build_hash", "TEXT"},         /* results/builds/<hash> (kept_build.h) */
    {"nightly", "rounds", "INTEGER"},
    {"nightly", "quality", "TEXT"}, /* 'ok', or 'disturbed: why' */
    /* issue 41: the measure a confirmation compared (wall, cpu, cycles) and
     * the smallest change its rounds could see */
    {"confirmation", "measure", "TEXT"},
    {"confirmation", "detectable", "REAL"},
    /* how many series the gate could not judge at the target */
    {"nightly", "inconclusive", "INTEGER"},
    /* the devices the disturbance touched: specs, comma-separated; '*' every
     * device; NULL on a night judged before quality was per device (every) */
    {"nightly", "disturbed_devices", "TEXT"},
};

int db_exec(sqlite3 *db, const char *sql, char *err, size_t errn) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    err_set(err, errn, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

int db_int(sqlite3 *db, const char *sql, int64_t dflt, int64_t *out, char *err, size_t errn) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return err_set(err, errn, "%s", sqlite3_errmsg(db));
    int rc = sqlite3_step(st);
    *out = dflt;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) *out = sqlite3_column_int64(st, 0);
    int ret = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : err_set(err, errn, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return ret;
}

int nightly_schema(sqlite3 *db, char *err, size_t errn) {
    /* One write transaction, so two harnesses doing this at once do not
     * both add a column. */
    if (db_exec(db, "BEGIN IMMEDIATE", err, errn) != 0) return -1;
    if (db_exec(db, nightly_sql, err, errn) != 0) goto fail;
    for (size_t i = 0; i < sizeof added_columns / sizeof added_columns[0]; i++) {
        if (store_has_column(db, added_columns[i].table, added_columns[i].name)) continue;
        char sql[256];
        str_fmt(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", added_columns[i].table, added_columns[i].name,
                added_columns[i].decl);
        if (db_exec(db, sql, err, errn) != 0) goto fail;
    }
    if (db_exec(db, "CREATE UNIQUE INDEX IF NOT EXISTS change_point_key ON change_point (series, night)", err, errn) !=
        0)
        goto fail;
    if (db_exec(db, "COMMIT", err, errn) == 0) return 0;
fail:
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int parse_int(const char *s, long long *v) {
    char *end = NULL;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

/* Adds the runs of one spec to temp.<table>; returns how many it names
 * (already there or not), or -1. */
static int runset_add(sqlite3 *db, const char *spec, const char *table, char *err, size_t errn) {
    char sql[512];
    const char *fill = NULL;
    long long n = 0;
    int kind;
    if (!strncmp(spec, "build:", 6) && spec[6]) {
        kind = 1;
        fill =
            "SELECT r.id FROM run r JOIN build b ON b.id = r.build_id WHERE substr(b.git_commit, 1, length(?1)) = ?1";
    } else if (!strncmp(spec, "nightly:", 8) && parse_int(spec + 8, &n) == 0 && n != 0) {
        kind = 2;
        /* A negative number counts back from the latest finished night, by
         * start time: a killed night (ended_at never set) is skipped, or the
         * `compare nightly:-2 nightly:-1` nightly suggests failed after one
         * ("no such nightly"). A positive one is the night of that id. */
        fill = n > 0 ? "SELECT run_id FROM nightly_run WHERE nightly_id = ?2"
                     : "SELECT run_id FROM nightly_run WHERE nightly_id ="
                       " (SELECT id FROM nightly WHERE ended_at IS NOT NULL"
                       " ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET -?2 - 1)";
    } else if (parse_int(spec, &n) == 0 && n > 0) {
        kind = 0;
        fill = "SELECT id FROM run WHERE id = ?2";
    } else {
        return err_set(err, errn, "'%s' is not a run: want a run id, build:COMMIT-PREFIX or nightly:N", spec);
    }
    sqlite3_stmt *st = NULL;
    str_fmt(sql, sizeof sql, "INSERT OR IGNORE INTO temp.%s %s", table, fill);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s: %s", spec, sqlite3_errmsg(db));
    if (kind == 1) sqlite3_bind_text(st, 1, spec + 6, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_int64(st, 2, n);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return err_set(err, errn, "%s: %s", spec, sqlite3_errmsg(db));
    /* Counted by a query, not by changes: a run named twice is still named. */
    str_fmt(sql, sizeof sql, "SELECT count(*) FROM (%s)", fill);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, errn, "%s: %s", spec, sqlite3_errmsg(db));
    if (kind == 1) sqlite3_bind_text(st, 1, spec + 6, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_int64(st, 2, n);
    int count = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (count == 0)
        err_set(err, errn, "%s: no such run%s", spec,
                kind == 1   ? "s (no build with that commit)"
                : kind == 2 ? "s (no such nightly)"
                            : "");
    return count;
}

int runset_resolve(sqlite3 *db, const char *spec, const char *table, char *err, size_t errn) {
    char sql[256];
    str_fmt(sql, sizeof sql, "DROP TABLE IF EXISTS temp.%s; CREATE TEMP TABLE %s (run_id INTEGER PRIMARY KEY)", table,
            table);
    if (db_exec(db, sql, err, errn) != 0) return -1;
    /* A comma-separated list is the union of its parts. */
    char *copy = xstrdup(spec), *save = NULL;
    int parts = 0;
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        parts++;
        if (runset_add(db, part, table, err, errn) <= 0) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    if (!parts) return err_set(err, errn, "an empty run list");
    int64_t n = 0;
    str_fmt(sql, sizeof sql, "SELECT count(*) FROM temp.%s", table);
    if (db_int(db, sql, 0, &n, err, errn) != 0) return -1;
    return (int)n;
}

struct store *nightly_store_open(const char *cmd, const char *path, int must_exist, int *code) {
    if (!path) path = store_default_path();
    if (must_exist && access(path, F_OK) != 0) {
        fprintf(stderr, "harness %s: no database %s\n", cmd, path);
        *code = EXIT_FOUND; /* nothing to show or judge: 1, as every command that reads a database */
        return NULL;
    }
    char err[ERR_MAX];
    struct store *s = store_open(path, err, sizeof err);
    if (!s || nightly_schema(store_db(s), err, sizeof err) != 0) {
        fprintf(stderr, "harness %s: %s\n", cmd, err);
        store_close(s);
        *code = EXIT_FOUND;
        return NULL;
    }
    return s;
}

int64_t store_nightly_previous(struct store *s, int64_t id) {
    sqlite3 *db = store_db(s);
    char sql[512];
    str_fmt(sql, sizeof sql,
            "SELECT p.id FROM nightly p JOIN nightly n ON n.id = %lld WHERE p.id < n.id AND p.host = n.host"
            " AND p.suite = n.suite AND p.ended_at IS NOT NULL ORDER BY p.started_at DESC, p.id DESC LIMIT 1",
            (long long)id);
    int64_t prev = 0;
    db_int(db, sql, 0, &prev, NULL, 0);
    return prev;
}

void store_nightly_build(struct store *s, int64_t id, char *hash, size_t hn, char *start, size_t sn) {
    sqlite3 *db = store_db(s);
    sqlite3_stmt *st = NULL;
    hash[0] = start[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT COALESCE(build_hash, ''), started_at FROM nightly WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        str_copy(hash, hn, (const char *)sqlite3_column_text(st, 0));
        str_copy(start, sn, (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
}

int store_nightly_tables(struct store *s, char *err, size_t errn) { return nightly_schema(store_db(s), err, errn); }

int store_runset(struct store *s, const char *spec, const char *table, char *err, size_t errn) {
    return runset_resolve(store_db(s), spec, table, err, errn);
}
