#include "store/store.h"
#include "core/devset.h"
#include "core/rounds.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "base/util.h"
#include "stats/stats.h"
#include "store/store_sql.h"

extern const char schema_sql[]; /* harness/store/schema.sql, generated into build/gen */

/* Schema migrations. schema.sql always describes the newest shape and is
 * applied (idempotently) after the migrations, so a migration only has to
 * change objects that already exist: ALTER TABLE ADD COLUMN, data fixes. A
 * brand-new file gets schema.sql alone and is stamped with the newest version.
 * Append entries; never edit or reorder old ones. */
struct migration {
    int version;
    const char *sql;     /* NULL: nothing to change beyond schema.sql */
    const char *columns; /* "table column decl;..." added where missing */
};
static const struct migration migrations[] = {
    {1, NULL, NULL}, /* the initial schema */
    {2, "ALTER TABLE measurement ADD COLUMN variant TEXT", NULL},
    {3, NULL, NULL}, /* launch_cost tables: new, so schema.sql alone creates them */
    {4, NULL, NULL}, /* report_note: new */
    /* Rounds: a sample's round (an old run is one round, round 0), the rounds
     * a measurement planned and finished; round_state is new. */
    {5, NULL,
     "sample round INTEGER NOT NULL DEFAULT 0;measurement rounds INTEGER NOT NULL DEFAULT 1;"
     "measurement rounds_done INTEGER NOT NULL DEFAULT 1"},
    {6, NULL, NULL}, /* tuned_history: new */
    /* Issue 18: energy with every measurement where the device reports it
     * (NVML), and a tuned row that is a configuration (knobs + shape) found
     * by a search over a sweep file's space, with what the search cost. */
    {7, NULL,
     "measurement energy_j REAL;measurement power_w REAL;"
     "tuned knobs TEXT;tuned config TEXT;tuned objective TEXT NOT NULL DEFAULT 'time';tuned energy_j REAL;"
     "tuned strategy TEXT;tuned evaluations INTEGER;tuned search_s REAL;"
     "tuned_history knobs TEXT;tuned_history config TEXT;tuned_history objective TEXT NOT NULL DEFAULT 'time';"
     "tuned_history search_s REAL"},
    /* Issue 20: device sets (--device A+B) are device rows of their own
     * (backend "set"), their members in device_member: new, so schema.sql
     * alone creates it. */
    {8, NULL, NULL},
    /* Issue 34: a killed command's run row is closed as interrupted by the
     * next harness that opens the file (its pid and the boot it ran in). */
    {9, NULL, "run pid INTEGER;run boot TEXT;run outcome TEXT"},
    /* Issue 41: what each repetition cost the host process beside its wall
     * time (CPU seconds, cycles, instructions), for the nightly gate's
     * steadier measures on CPUs. */
    {10, NULL, "sample cpu_seconds REAL;sample cycles REAL;sample instructions REAL"},
    /* Issue 38: registers and local memory per kernel, as the backend read
     * them when the config loaded its kernels (the report's registers table). */
    {11, NULL, "measurement resources TEXT"},
};
#define MIGRATION_COUNT ((int)(sizeof migrations / sizeof migrations[0]))
#define SCHEMA_VERSION (migrations[MIGRATION_COUNT - 1].version)

/* Every statement the store runs, prepared once in store_open. */
enum stmt {
    Q_BEGIN,
    Q_BEGIN_READ,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_TABLES, /* from here on, statements need the schema */
    Q_HOST_INS = Q_TABLES,
    Q_HOST_SEL,
    Q_DEVICE_INS,
    Q_DEVICE_SEL,
    Q_MEMBER_INS,
    Q_BUILD_INS,
    Q_BUILD_SEL,
    Q_RUN_INS,
    Q_RUN_END,
    Q_CONFIG_INS,
    Q_CONFIG_SEL,
    Q_MEAS_INS,
    Q_MEAS_UPD,
    Q_SAMPLE_INS,
    Q_SAMPLE_SEL,
    Q_ROUND_INS,
    Q_PEAK_INS,
    Q_PEAK_SEL,
    Q_RECENT,
    Q_COUNT
};

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

static const char *const stmt_sql[Q_COUNT] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_BEGIN_READ] = "BEGIN",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_HOST_INS] = "INSERT OR IGNORE INTO host(hostname, os, cpu) VALUES (?1, ?2, ?3)",
    [Q_HOST_SEL] = "SELECT id FROM host WHERE hostname = ?1 AND os = ?2 AND cpu = ?3",
    [Q_DEVICE_INS] = "INSERT OR IGNORE INTO device(fingerprint, backend, spec, vendor, name, driver,"
                     " kind, compute_units, max_wg, max_item0, max_item1, max_item2, global_mem,"
                     " local_mem, max_alloc, arch)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [Q_DEVICE_SEL] = "SELECT id FROM device WHERE fingerprint = ?1",
    [Q_MEMBER_INS] = "INSERT OR IGNORE INTO device_member(set_id, position, member_id) VALUES (?1, ?2, ?3)",
    [Q_BUILD_INS] = "INSERT OR IGNORE INTO build(git_commit, dirty, compiler, flags,"
                    " kernel_compilers) VALUES (?1, ?2, ?3, ?4, ?5)",
    [Q_BUILD_SEL] = "SELECT id FROM build WHERE git_commit = ?1 AND dirty = ?2 AND compiler = ?3"
                    " AND flags = ?4 AND kernel_compilers = ?5",
    [Q_RUN_INS] = "INSERT INTO run(host_id, device_id, build_id, command, started_at, pid, boot)"
                  " VALUES (?1, ?2, ?3, ?4, " NOW ", ?5, ?6)",
    [Q_RUN_END] = "UPDATE run SET ended_at = " NOW " WHERE id = ?1",
    [Q_CONFIG_INS] = "INSERT OR IGNORE INTO config(app, input, knobs, wg_x, wg_y, variant)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_CONFIG_SEL] = "SELECT id FROM config WHERE app = ?1 AND input = ?2 AND knobs = ?3"
                     " AND wg_x = ?4 AND wg_y = ?5",
    [Q_MEAS_INS] = "INSERT INTO measurement(run_id, config_id, status, reason, iters, iters_full,"
                   " scaled, warmup, reps, max_abs_err, max_rel_err, tolerance, median_s, q1_s,"
                   " q3_s, device_median_s, cell_updates, mlups, gbs, result, variant, rounds, rounds_done,"
                   " energy_j, power_w, resources, created_at)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
                   " ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, " NOW ")",
    /* A later round of a stored measurement: the insert's columns but the
     * run and the config (?1 is the row's id; ?2 is bound and unused). */
    [Q_MEAS_UPD] = "UPDATE measurement SET status = ?3, reason = ?4, iters = ?5, iters_full = ?6, scaled = ?7,"
                   " warmup = ?8, reps = ?9, max_abs_err = ?10, max_rel_err = ?11, tolerance = ?12,"
                   " median_s = ?13, q1_s = ?14, q3_s = ?15, device_median_s = ?16, cell_updates = ?17,"
                   " mlups = ?18, gbs = ?19, result = ?20, variant = ?21, rounds = ?22, rounds_done = ?23,"
                   " energy_j = ?24, power_w = ?25, resources = ?26"
                   " WHERE id = ?1 AND ?2 IS NOT NULL",
    [Q_SAMPLE_INS] = "INSERT INTO sample(measurement_id, rep, seconds, device_seconds, round, cpu_seconds, cycles,"
                     " instructions)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [Q_SAMPLE_SEL] = "SELECT seconds, device_seconds, round, cpu_seconds, cycles, instructions FROM sample"
                     " WHERE measurement_id = ?1 ORDER BY rep",
    [Q_ROUND_INS] = "INSERT OR REPLACE INTO round_state(run_id, round, started_at, wall_s, foreign_cores, disturbed,"
                    " steal_cores) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [Q_PEAK_INS] = "INSERT INTO peak(device_id, copy_gbs, fp32_gflops, measured_at)"
                   " VALUES (?1, ?2, ?3, " NOW ")",
    [Q_PEAK_SEL] = "SELECT p.copy_gbs, p.fp32_gflops FROM peak p JOIN device d ON d.id = p.device_id"
                   " WHERE d.fingerprint = ?1 ORDER BY p.measured_at DESC, p.id DESC LIMIT 1",
    /* The newest ?1 measurements, printed oldest first so the latest ends up
     * at the bottom of a terminal, as with tail. A negative limit is "all". */
    [Q_RECENT] = "SELECT m.id, m.created_at, d.spec, d.name, c.app, c.input, COALESCE(m.variant, c.variant), c.wg_x,"
                 " c.wg_y, m.status, m.median_s, m.q3_s - m.q1_s, m.mlups, m.gbs, m.max_rel_err,"
                 " m.reason, m.energy_j, m.power_w, c.knobs,"
                 " (SELECT COUNT(*) FROM sample WHERE measurement_id = m.id),"
                 " (SELECT AVG(seconds) FROM sample WHERE measurement_id = m.id),"
                 " (SELECT AVG(seconds * seconds) FROM sample WHERE measurement_id = m.id),"
                 " m.iters, m.iters_full"
                 " FROM (SELECT * FROM measurement ORDER BY id DESC LIMIT ?1) m"
                 " JOIN config c ON c.id = m.config_id"
                 " JOIN run r ON r.id = m.run_id"
                 " JOIN device d ON d.id = r.device_id"
                 " ORDER BY m.id",
};

struct store {
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    char path[PATH_MAX];
};

/* ---- small helpers --------------------------------------------------- */

/* Every failure message names the database file, since two sweeps may be
 * writing different files. */
static int store_fail(const struct store *s, char *err, size_t errn) {
    return err_set(err, errn, "%s: %s", s->path, sqlite3_errmsg(s->db));
}

static int bind_text(sqlite3_stmt *st, int i, const char *v) {
    return sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* Empty text becomes NULL where "none" is meaningful (a reason). */
static int bind_text_or_null(sqlite3_stmt *st, int i, const char *v) {
    return v && *v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int bind_int(sqlite3_stmt *st, int i, int64_t v) { return sqlite3_bind_int64(st, i, v); }

/* Leaves a statement ready for its next use, whatever happened. */
static void stmt_done(sqlite3_stmt *st) {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* A bind failed (out of memory, a bad index): report and clear. */
static int bind_fail(struct store *s, sqlite3_stmt *st, char *err, size_t errn) {
    store_fail(s, err, errn);
    stmt_done(st);
    return -1;
}

/* Steps a statement that returns no rows. The message is taken before the
 * reset, which would otherwise replace it. */
static int step_exec(struct store *s, sqlite3_stmt *st, char *err, size_t errn) {
    int rc = sqlite3_step(st);
    int ret = rc == SQLITE_DONE ? 0 : store_fail(s, err, errn);
    stmt_done(st);
    return ret;
}

/* Steps a statement that must return one row and reads column 0 as an id. */
static int step_id(struct store *s, sqlite3_stmt *st, int64_t *id, char *err, size_t errn) {
    int rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE) ret = err_set(err, errn, "%s: expected row not found", s->path);
    else ret = store_fail(s, err, errn);
    stmt_done(st);
    return ret;
}

static int tx_begin(struct store *s, char *err, size_t errn) { return step_exec(s, s->q[Q_BEGIN], err, errn); }

static int tx_commit(struct store *s, char *err, size_t errn) { return step_exec(s, s->q[Q_COMMIT], err, errn); }

/* Undoes a failed transaction; the first error is already in err, so this
 * one's own failure is not reported over it. */
static void tx_rollback(struct store *s) {
    if (sqlite3_get_autocommit(s->db)) return; /* nothing open (BEGIN failed) */
    sqlite3_step(s->q[Q_ROLLBACK]);
    stmt_done(s->q[Q_ROLLBACK]);
}

/* Runs a multi-statement script (schema, migrations, pragmas). */
static int store_exec(struct store *s, const char *sql, char *err, size_t errn) {
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    err_set(err, errn, "%s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
    sqlite3_free(msg);
    return -1;
}

/* Reads a one-integer query (PRAGMA user_version, a count). */
static int query_int(struct store *s, const char *sql, int64_t *v, char *err, size_t errn) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return store_fail(s, err, errn);
    int rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) *v = sqlite3_column_int64(st, 0);
    else ret = rc == SQLITE_DONE ? err_set(err, errn, "%s: no result: %s", s->path, sql) : store_fail(s, err, errn);
    sqlite3_finalize(st);
    return ret;
}

/* ---- opening ---------------------------------------------------------- */

/* The parent folder must exist before SQLite can create the file. */
static int make_parent(const char *path, char *err, size_t errn) {
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    if (dir_make_p(dir) != 0) return err_set(err, errn, "%s: cannot create folder %s", path, dir);
    return 0;
}

/* WAL lets readers run beside one writer and makes each commit cheap;
 * NORMAL sync is durable across a process crash, which is the failure a
 * sweep sees. Foreign keys are off by default in SQLite. */
static int store_pragmas(struct store *s, char *err, size_t errn) {
    /* Two harnesses creating one new file race to switch it to WAL, and
     * SQLite answers that race with SQLITE_BUSY without calling the busy
     * handler: so the switch is retried here, for up to the busy timeout. */
    for (int tries = 0;; tries++) {
        int rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL);
        if (rc == SQLITE_OK) break;
        if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || tries >= 300) return store_fail(s, err, errn);
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return store_exec(s, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err, errn);
}

/* "table column decl;...": each column added unless the table has it (a
 * file another tool already extended, a test's hand-made old file). */
static int add_columns(struct store *s, const char *list, char *err, size_t errn) {
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(copy, ";", &save); item && !rc; item = strtok_r(NULL, ";", &save)) {
        char table[64], column[64];
        int used = 0;
        if (sscanf(item, "%63s %63s %n", table, column, &used) != 2) continue;
        char sql[512];
        int64_t have = 0, exists = 0;
        /* A table an old file lacks is created whole by schema.sql afterwards. */
        str_fmt(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
        if ((rc = query_int(s, sql, &exists, err, errn)) != 0 || !exists) continue;
        str_fmt(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'", table, column);
        if ((rc = query_int(s, sql, &have, err, errn)) != 0 || have) continue;
        str_fmt(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", table, column, item + used);
        rc = store_exec(s, sql, err, errn);
    }
    free(copy);
    return rc;
}

/* Brings the file to SCHEMA_VERSION inside one write transaction, so two
 * harnesses opening an old file at once do not both migrate it. */
static int store_migrate(struct store *s, char *err, size_t errn) {
    if (tx_begin(s, err, errn) != 0) return -1;
    int64_t version = 0, existing = 0;
    if (query_int(s, "PRAGMA user_version", &version, err, errn) != 0 ||
        query_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'measurement'", &existing, err,
                  errn) != 0)
        goto fail;
    if (version > SCHEMA_VERSION) {
        err_set(err, errn, "%s: schema version %lld is newer than this harness knows (%d)", s->path, (long long)version,
                SCHEMA_VERSION);
        goto fail;
    }
    /* A file from before versioning (tables but version 0) is version 1. */
    for (int i = 0; existing && i < MIGRATION_COUNT; i++)
        if (migrations[i].version > version &&
            ((migrations[i].sql && store_exec(s, migrations[i].sql, err, errn) != 0) ||
             (migrations[i].columns && add_columns(s, migrations[i].columns, err, errn) != 0)))
            goto fail;
    if (store_exec(s, schema_sql, err, errn) != 0) goto fail;
    if (version != SCHEMA_VERSION) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", SCHEMA_VERSION);
        if (store_exec(s, sql, err, errn) != 0) goto fail;
    }
    if (tx_commit(s, err, errn) == 0) return 0;
fail:
    tx_rollback(s);
    return -1;
}

/* Statements [from, to). The transaction ones come first because migrating
 * needs them, and the rest cannot be prepared before their tables exist. */
static int store_prepare(struct store *s, int from, int to, char *err, size_t errn) {
    for (int i = from; i < to; i++)
        if (sqlite3_prepare_v2(s->db, stmt_sql[i], -1, &s->q[i], NULL) != SQLITE_OK) return store_fail(s, err, errn);
    return 0;
}

static void reap_runs(struct store *s);

/* The harness's files say so in their header (PRAGMA application_id), so a
 * foreign SQLite file given as --db is refused unchanged: before, even the
 * read-only `results` added the harness's tables to it. */
#define HARNESS_APPLICATION_ID 0x48524e53 /* "HRNS" */

/* 0 when the file is the harness's: its id, or no id and either no tables
 * (new) or the harness's own (a file from before the id: *adopt set, the
 * writer stamps it). -1 with err for anything else, nothing written. */
static int check_identity(sqlite3 *db, const char *path, int *adopt, char *err, size_t errn) {
    *adopt = 0;
    sqlite3_stmt *st = NULL;
    long long id = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (id < 0) return err_set(err, errn, "%s: %s", path, sqlite3_errmsg(db)); /* not SQLite at all, say */
    if (id == HARNESS_APPLICATION_ID) return 0;
    struct strbuf names = {0};
    int tables = 0, ours = 0;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, NULL) ==
        SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            tables++;
            ours += name && (!strcmp(name, "run") || !strcmp(name, "measurement") || !strcmp(name, "device"));
            if (tables <= 4) sb_printf(&names, "%s%s", tables > 1 ? ", " : "", name ? name : "?");
        }
    }
    sqlite3_finalize(st);
    if (id == 0 && (tables == 0 || ours == 3)) {
        *adopt = 1;
        sb_free(&names);
        return 0;
    }
    err_set(err, errn, "%s: not a harness database (application_id %lld, tables: %s%s): refused, nothing changed", path,
            id, tables ? names.s : "none", tables > 4 ? ", ..." : "");
    sb_free(&names);
    return -1;
}

struct store *store_open(const char *path, char *err, size_t errn) {
    if (make_parent(path, err, errn) != 0) return NULL;
    struct store *s = xcalloc(1, sizeof *s);
    str_copy(s->path, sizeof s->path, path);
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        if (s->db) store_fail(s, err, errn);
        else err_set(err, errn, "%s: %s", path, sqlite3_errstr(rc));
        store_close(s);
        return NULL;
    }
    /* The busy timeout goes first: switching to WAL already needs a lock,
     * and another sweep may hold it. */
    int adopt = 0;
    if ((sqlite3_busy_timeout(s->db, 30000) != SQLITE_OK && store_fail(s, err, errn)) ||
        check_identity(s->db, path, &adopt, err, errn) != 0 || store_pragmas(s, err, errn) != 0 ||
        store_prepare(s, 0, Q_TABLES, err, errn) != 0 || store_migrate(s, err, errn) != 0 ||
        store_prepare(s, Q_TABLES, Q_COUNT, err, errn) != 0 ||
        (adopt && store_exec(s, "PRAGMA application_id = 1213353555", err, errn) != 0)) {
        store_close(s);
        return NULL;
    }
    reap_runs(s);
    return s;
}

void store_close(struct store *s) {
    if (!s) return;
    for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(s->q[i]); /* NULL is a no-op */
    sqlite3_close(s->db);
    free(s);
}

const char *store_default_path(void) {
    static char path[PATH_MAX];
    const char *env = getenv("HARNESS_DB");
    if (env && *env) return env;
    if (!path[0]) repo_path(path, sizeof path, "results/results.db");
    return path;
}

/* ---- runs ------------------------------------------------------------- */

/* The host as uname and /proc/cpuinfo describe it; '' where unknown, since
 * these are a UNIQUE key. */
struct host_id {
    char hostname[256], os[256], cpu[256];
};

static void host_describe(struct host_id *h) {
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0) str_copy(h->hostname, sizeof h->hostname, "unknown");
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(h->os, sizeof h->os, "%s %s", u.sysname, u.release);
        str_copy(h->cpu, sizeof h->cpu, u.machine); /* fallback: ARM has no "model name" */
    }
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            str_copy(h->cpu, sizeof h->cpu, colon + 1);
            str_trim(h->cpu);
            break;
        }
    }
    fclose(f);
}

static int bind_host(sqlite3_stmt *st, const struct host_id *h) {
    return bind_text(st, 1, h->hostname) || bind_text(st, 2, h->os) || bind_text(st, 3, h->cpu);
}

/* INSERT OR IGNORE then SELECT: the id whether the row is new or not, on any
 * SQLite (RETURNING needs 3.35, older than some clusters run). */
static int host_upsert(struct store *s, int64_t *id, char *err, size_t errn) {
    struct host_id h;
    host_describe(&h);
    sqlite3_stmt *ins = s->q[Q_HOST_INS], *sel = s->q[Q_HOST_SEL];
    if (bind_host(ins, &h)) return bind_fail(s, ins, err, errn);
    if (step_exec(s, ins, err, errn) != 0) return -1;
    if (bind_host(sel, &h)) return bind_fail(s, sel, err, errn);
    return step_id(s, sel, id, err, errn);
}

/* The fingerprint covers the driver, so an existing row never needs an
 * update: a changed device is a new fingerprint. */
static int device_row(struct store *s, const struct device_info *d, int64_t *id, char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_DEVICE_INS];
    if (bind_text(st, 1, d->fingerprint) || bind_text(st, 2, d->backend) || bind_text(st, 3, d->spec) ||
        bind_text(st, 4, d->vendor) || bind_text(st, 5, d->name) || bind_text(st, 6, d->driver) ||
        bind_text(st, 7, d->kind) || bind_int(st, 8, d->compute_units) || bind_int(st, 9, (int64_t)d->max_wg) ||
        bind_int(st, 10, (int64_t)d->max_item[0]) || bind_int(st, 11, (int64_t)d->max_item[1]) ||
        bind_int(st, 12, (int64_t)d->max_item[2]) || bind_int(st, 13, (int64_t)d->global_mem) ||
        bind_int(st, 14, (int64_t)d->local_mem) || bind_int(st, 15, (int64_t)d->max_alloc) ||
        bind_text(st, 16, d->arch))
        return bind_fail(s, st, err, errn);
    if (step_exec(s, st, err, errn) != 0) return -1;
    st = s->q[Q_DEVICE_SEL];
    if (bind_text(st, 1, d->fingerprint)) return bind_fail(s, st, err, errn);
    return step_id(s, st, id, err, errn);
}

/* A device, and for a set (devset.h) each member's row and its place in
 * the set: what ran is both devices' fingerprints, not just the set's. */
static int device_upsert(struct store *s, const struct device_info *d, int64_t *id, char *err, size_t errn) {
    if (device_row(s, d, id, err, errn) != 0) return -1;
    if (!devset_is(d)) return 0;
    struct device_info m[DEVSET_MAX];
    if (devset_members(d, m, err, errn) != 0) return -1;
    for (int i = 0; i < DEVSET_MAX; i++) {
        int64_t mid = 0;
        sqlite3_stmt *st = s->q[Q_MEMBER_INS];
        if (device_row(s, &m[i], &mid, err, errn) != 0) return -1;
        if (bind_int(st, 1, *id) || bind_int(st, 2, i) || bind_int(st, 3, mid)) return bind_fail(s, st, err, errn);
        if (step_exec(s, st, err, errn) != 0) return -1;
    }
    return 0;
}

static int bind_build(sqlite3_stmt *st, const struct build_info *b) {
    return bind_text(st, 1, b->commit) || bind_int(st, 2, b->dirty) || bind_text(st, 3, b->compiler) ||
           bind_text(st, 4, b->flags) || bind_text(st, 5, b->kernel_compilers);
}

static int build_upsert(struct store *s, int64_t *id, char *err, size_t errn) {
    const struct build_info *b = build_info_get();
    sqlite3_stmt *ins = s->q[Q_BUILD_INS], *sel = s->q[Q_BUILD_SEL];
    if (bind_build(ins, b)) return bind_fail(s, ins, err, errn);
    if (step_exec(s, ins, err, errn) != 0) return -1;
    if (bind_build(sel, b)) return bind_fail(s, sel, err, errn);
    return step_id(s, sel, id, err, errn);
}

/* This boot of the machine (the kernel's random boot_id): a pid means the
 * same process only within one boot. "" where unknown. */
static const char *boot_id(void) {
    static char id[64];
    if (!id[0]) {
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
        if (f) {
            if (!fgets(id, sizeof id, f)) id[0] = '\0';
            fclose(f);
        }
        id[strcspn(id, "\n")] = '\0';
        if (!id[0]) str_copy(id, sizeof id, "?");
    }
    return id;
}

/* Closes the run rows of killed commands: still open, written in this boot
 * by a process that no longer exists (12 killed sweeps used to leave 11
 * rows that never ended). A row of another boot or machine is left as it
 * is: its process cannot be asked. Best effort: a database that cannot be
 * written now is left for the next open. */
static void reap_runs(struct store *s) {
    sqlite3_stmt *sel = NULL, *upd = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT id, pid FROM run WHERE ended_at IS NULL AND pid IS NOT NULL AND boot = ?1",
                           -1, &sel, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, "UPDATE run SET ended_at = " NOW ", outcome = 'interrupted' WHERE id = ?1", -1, &upd,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(sel);
        sqlite3_finalize(upd);
        return;
    }
    sqlite3_bind_text(sel, 1, boot_id(), -1, SQLITE_STATIC);
    int64_t dead[256];
    int n = 0;
    while (n < 256 && sqlite3_step(sel) == SQLITE_ROW) {
        const pid_t pid = (pid_t)sqlite3_column_int64(sel, 1);
        if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) dead[n++] = sqlite3_column_int64(sel, 0);
    }
    sqlite3_finalize(sel);
    for (int i = 0; i < n; i++) {
        sqlite3_bind_int64(upd, 1, dead[i]);
        sqlite3_step(upd);
        sqlite3_reset(upd);
    }
    sqlite3_finalize(upd);
}

static int run_insert(struct store *s, int64_t host, int64_t device, int64_t build, const char *command, int64_t *id,
                      char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_RUN_INS];
    if (bind_int(st, 1, host) || bind_int(st, 2, device) || bind_int(st, 3, build) || bind_text(st, 4, command) ||
        bind_int(st, 5, (int64_t)getpid()) || bind_text(st, 6, boot_id()))
        return bind_fail(s, st, err, errn);
    if (step_exec(s, st, err, errn) != 0) return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

int64_t store_run_begin(struct store *s, const struct device_info *dev, const char *command, char *err, size_t errn) {
    int64_t host = 0, device = 0, build = 0, run = 0;
    if (tx_begin(s, err, errn) != 0) return -1;
    if (host_upsert(s, &host, err, errn) != 0 || device_upsert(s, dev, &device, err, errn) != 0 ||
        build_upsert(s, &build, err, errn) != 0 || run_insert(s, host, device, build, command, &run, err, errn) != 0 ||
        tx_commit(s, err, errn) != 0) {
        tx_rollback(s);
        return -1;
    }
    return run;
}

int store_run_end(struct store *s, int64_t run_id) {
    sqlite3_stmt *st = s->q[Q_RUN_END];
    if (bind_int(st, 1, run_id)) {
        stmt_done(st);
        return -1;
    }
    if (step_exec(s, st, NULL, 0) != 0) return -1;
    return sqlite3_changes(s->db) == 1 ? 0 : -1;
}

/* ---- measurements ----------------------------------------------------- */

/* The same knobs under another variant name are the same config; the first
 * name stays (INSERT OR IGNORE), and the id is looked up either way. */
static int bind_config_key(sqlite3_stmt *st, const struct measurement *m) {
    return bind_text(st, 1, m->app) || bind_text(st, 2, m->input) || bind_text(st, 3, m->knobs) ||
           bind_int(st, 4, m->wg[0]) || bind_int(st, 5, m->wg[1]);
}

static int config_upsert(struct store *s, const struct measurement *m, int64_t *id, char *err, size_t errn) {
    sqlite3_stmt *ins = s->q[Q_CONFIG_INS], *sel = s->q[Q_CONFIG_SEL];
    if (bind_config_key(ins, m) || bind_text(ins, 6, m->variant)) return bind_fail(s, ins, err, errn);
    if (step_exec(s, ins, err, errn) != 0) return -1;
    if (bind_config_key(sel, m)) return bind_fail(s, sel, err, errn);
    return step_id(s, sel, id, err, errn);
}

/* The columns of a measurement row, bound for the insert (?1 the run, ?2
 * the config) or for a later round's update (?1 the row's id). */
static int bind_measurement(sqlite3_stmt *st, int64_t first, int64_t second, const struct measurement *m) {
    return bind_int(st, 1, first) || bind_int(st, 2, second) || bind_text(st, 3, status_name(m->status)) ||
           bind_text_or_null(st, 4, m->reason) || bind_int(st, 5, m->iters) || bind_int(st, 6, m->iters_full) ||
           bind_int(st, 7, m->iters < m->iters_full) || bind_int(st, 8, m->warmup) || bind_int(st, 9, m->nsamples) ||
           store_bind_real(st, 10, m->max_abs_err) || store_bind_real(st, 11, m->max_rel_err) ||
           store_bind_real(st, 12, m->tolerance) || store_bind_real(st, 13, m->median) ||
           store_bind_real(st, 14, m->q1) || store_bind_real(st, 15, m->q3) ||
           store_bind_real(st, 16, m->device_median) || store_bind_real(st, 17, m->cell_updates) ||
           store_bind_real(st, 18, m->mlups) || store_bind_real(st, 19, m->gbs) || store_bind_real(st, 20, m->result) ||
           bind_text(st, 21, m->variant) || bind_int(st, 22, m->rounds > 0 ? m->rounds : 1) ||
           bind_int(st, 23, m->rounds_done > 0 ? m->rounds_done : 1) || store_bind_real(st, 24, m->energy_j) ||
           store_bind_real(st, 25, m->power_w) || bind_text_or_null(st, 26, m->resources);
}

static int measurement_insert(struct store *s, int64_t run_id, int64_t config_id, const struct measurement *m,
                              int64_t *id, char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_MEAS_INS];
    if (bind_measurement(st, run_id, config_id, m)) return bind_fail(s, st, err, errn);
    if (step_exec(s, st, err, errn) != 0) return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* Samples [from, m->nsamples). Either array may be absent (a config that
 * never ran, a backend without device timers); absent or NaN values are
 * stored as NULL. */
static int samples_insert(struct store *s, int64_t mid, const struct measurement *m, int from, char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_SAMPLE_INS];
    for (int i = from; i < m->nsamples; i++) {
        if (bind_int(st, 1, mid) || bind_int(st, 2, i) || store_bind_real(st, 3, m->samples ? m->samples[i] : NAN) ||
            store_bind_real(st, 4, m->device_samples ? m->device_samples[i] : NAN) ||
            bind_int(st, 5, m->sample_round ? m->sample_round[i] : 0))
            return bind_fail(s, st, err, errn);
        for (int c = 0; c < MEASURE_COUNTERS; c++)
            if (store_bind_real(st, 6 + c, m->counters[c] ? m->counters[c][i] : NAN)) return bind_fail(s, st, err, errn);
        if (step_exec(s, st, err, errn) != 0) return -1;
    }
    return 0;
}

/* One transaction per measurement: a killed sweep loses at most the config
 * in flight, and a measurement never appears without its samples. */
int store_measurement_id(struct store *s, int64_t run_id, const struct measurement *m, int64_t *id, char *err,
                         size_t errn) {
    int64_t config = 0, mid = 0;
    if (tx_begin(s, err, errn) != 0) return -1;
    if (config_upsert(s, m, &config, err, errn) != 0 ||
        measurement_insert(s, run_id, config, m, &mid, err, errn) != 0 ||
        samples_insert(s, mid, m, 0, err, errn) != 0 || tx_commit(s, err, errn) != 0) {
        tx_rollback(s);
        return -1;
    }
    if (id) *id = mid;
    return 0;
}

int store_measurement(struct store *s, int64_t run_id, const struct measurement *m, char *err, size_t errn) {
    return store_measurement_id(s, run_id, m, NULL, err, errn);
}

int store_measurement_more(struct store *s, int64_t mid, const struct measurement *m, int from, char *err,
                           size_t errn) {
    sqlite3_stmt *st = s->q[Q_MEAS_UPD];
    if (tx_begin(s, err, errn) != 0) return -1;
    if (bind_measurement(st, mid, 0, m)) {
        bind_fail(s, st, err, errn);
        goto fail;
    }
    if (step_exec(s, st, err, errn) != 0) goto fail;
    if (sqlite3_changes(s->db) != 1) {
        err_set(err, errn, "%s: measurement %lld is gone", s->path, (long long)mid);
        goto fail;
    }
    if (samples_insert(s, mid, m, from, err, errn) != 0 || tx_commit(s, err, errn) != 0) goto fail;
    return 0;
fail:
    tx_rollback(s);
    return -1;
}

int store_measurement_samples(struct store *s, int64_t mid, struct measurement *m, char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_SAMPLE_SEL];
    measurement_free(m);
    if (bind_int(st, 1, mid)) return bind_fail(s, st, err, errn);
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (m->nsamples == cap) {
            cap = cap ? 2 * cap : 16;
            m->samples = xrealloc(m->samples, (size_t)cap * sizeof *m->samples);
            m->device_samples = xrealloc(m->device_samples, (size_t)cap * sizeof *m->device_samples);
            m->sample_round = xrealloc(m->sample_round, (size_t)cap * sizeof *m->sample_round);
            for (int c = 0; c < MEASURE_COUNTERS; c++)
                m->counters[c] = xrealloc(m->counters[c], (size_t)cap * sizeof *m->counters[c]);
        }
        int i = m->nsamples++;
        m->samples[i] = store_real(st, 0);
        m->device_samples[i] = store_real(st, 1);
        m->sample_round[i] = sqlite3_column_int(st, 2);
        for (int c = 0; c < MEASURE_COUNTERS; c++) m->counters[c][i] = store_real(st, 3 + c);
    }
    int ret = rc == SQLITE_DONE ? 0 : store_fail(s, err, errn);
    stmt_done(st);
    return ret;
}

int store_round_state(struct store *s, int64_t run_id, const struct round_state *r, char *err, size_t errn) {
    sqlite3_stmt *st = s->q[Q_ROUND_INS];
    if (bind_int(st, 1, run_id) || bind_int(st, 2, r->round) || bind_text(st, 3, r->started_at) ||
        store_bind_real(st, 4, r->wall_s) || store_bind_real(st, 5, r->foreign_cores) ||
        bind_int(st, 6, r->disturbed) || store_bind_real(st, 7, r->steal_cores))
        return bind_fail(s, st, err, errn);
    return step_exec(s, st, err, errn);
}

/* ---- peaks ------------------------------------------------------------ */

int store_peak_put(struct store *s, const struct device_info *dev, double copy_gbs, double fp32_gflops, char *err,
                   size_t errn) {
    int64_t device = 0;
    if (tx_begin(s, err, errn) != 0) return -1;
    if (device_upsert(s, dev, &device, err, errn) != 0) goto fail;
    sqlite3_stmt *st = s->q[Q_PEAK_INS];
    if (bind_int(st, 1, device) || store_bind_real(st, 2, copy_gbs) || store_bind_real(st, 3, fp32_gflops)) {
        bind_fail(s, st, err, errn);
        goto fail;
    }
    if (step_exec(s, st, err, errn) != 0 || tx_commit(s, err, errn) != 0) goto fail;
    return 0;
fail:
    tx_rollback(s);
    return -1;
}

int store_peak_get(struct store *s, const char *fingerprint, double *copy_gbs, double *fp32_gflops) {
    sqlite3_stmt *st = s->q[Q_PEAK_SEL];
    if (bind_text(st, 1, fingerprint)) {
        stmt_done(st);
        return -1;
    }
    int ret = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (copy_gbs) *copy_gbs = store_real(st, 0);
        if (fp32_gflops) *fp32_gflops = store_real(st, 1);
        ret = 0;
    }
    stmt_done(st);
    return ret;
}

double store_peak_gbs(struct store *s, const struct device_info *dev) {
    double gbs = 0, gflops = 0;
    return s && store_peak_get(s, dev->fingerprint, &gbs, &gflops) == 0 ? gbs : 0;
}

int store_peak_usual(struct store *s, const char *fingerprint, double *copy_gbs) {
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT p.copy_gbs FROM peak p JOIN device d ON d.id = p.device_id"
                      " WHERE d.fingerprint = ?1 AND p.copy_gbs > 0 ORDER BY p.id DESC LIMIT 9";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, fingerprint, -1, SQLITE_TRANSIENT);
    double v[9];
    int n = 0;
    while (n < 9 && sqlite3_step(st) == SQLITE_ROW) v[n++] = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    if (!n) return -1;
    *copy_gbs = stats_median(v, (size_t)n);
    return 0;
}

/* ---- printing --------------------------------------------------------- */

enum {
    C_ID,
    C_WHEN,
    C_DEVICE,
    C_APP,
    C_INPUT,
    C_STEPS, /* steps a repetition ran: rows of 20, 50 and 200 steps are not comparable */
    C_VARIANT,
    C_WG,
    C_STATUS,
    C_MEDIAN,
    C_IQR,
    C_CV,
    C_MLUPS,
    C_GBS,
    C_RELERR,
    C_ENERGY,
    C_POWER,
    C_REASON,
    C_KNOBS, /* what ran: a named variant's, or `tuned`'s stored configuration; CSV only */
    NCOL
};

struct column {
    const char *header;
    int right;     /* numbers align right */
    int table_max; /* widest a table cell may be (0: no limit); CSV is never cut */
    int optional;  /* a table leaves it out when no row has a value (CSV never does) */
    int csv_only;  /* too long for the table */
};
static const struct column columns[NCOL] = {
    [C_ID] = {.header = "id", .right = 1},
    [C_WHEN] = {.header = "when"},
    [C_DEVICE] = {.header = "device", .table_max = 32},
    [C_APP] = {.header = "app"},
    [C_INPUT] = {.header = "input"},
    [C_STEPS] = {.header = "steps", .right = 1},
    [C_VARIANT] = {.header = "variant", .table_max = 24},
    [C_WG] = {.header = "wg", .right = 1},
    [C_STATUS] = {.header = "status"},
    [C_MEDIAN] = {.header = "median_s", .right = 1},
    [C_IQR] = {.header = "iqr_s", .right = 1, .csv_only = 1},
    /* The spread as people compare it across configs: relative. */
    [C_CV] = {.header = "cv_pct", .right = 1},
    [C_MLUPS] = {.header = "mlups", .right = 1},
    [C_GBS] = {.header = "gbs", .right = 1},
    [C_RELERR] = {.header = "max_rel_err", .right = 1},
    /* Measured only on GPUs with an energy counter (timed.h): elsewhere two
     * columns of dashes would say nothing. */
    [C_ENERGY] = {.header = "energy_j", .right = 1, .optional = 1},
    [C_POWER] = {.header = "power_w", .right = 1, .optional = 1},
    [C_REASON] = {.header = "reason", .table_max = 40},
    [C_KNOBS] = {.header = "knobs", .csv_only = 1},
};

/* One result row as text; cells are malloc'd. */
struct row {
    char *cell[NCOL];
};

/* A number, or the NULL marker: "-" reads better in a table, while CSV
 * readers expect an empty field. Tables round; CSV keeps the precision. */
static char *fmt_num(sqlite3_stmt *st, int i, int csv, const char *table_fmt) {
    struct strbuf b = {0};
    if (sqlite3_column_type(st, i) == SQLITE_NULL) sb_printf(&b, "%s", csv ? "" : "-");
    else sb_printf(&b, csv ? "%.10g" : table_fmt, sqlite3_column_double(st, i));
    return b.s;
}

static char *fmt_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_str(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t n = need > 0 ? (size_t)need + 1 : 1;
    char *out = xcalloc(1, n);
    va_start(ap, fmt);
    vsnprintf(out, n, fmt, ap);
    va_end(ap);
    return out;
}

/* Table cells must stay on one line (reasons hold compiler logs) and within
 * their column's width; a cut never splits a UTF-8 character. */
static void table_cell_fit(char *c, int max) {
    for (char *p = c; *p; p++)
        if ((unsigned char)*p < ' ') *p = ' ';
    size_t n = strlen(c);
    if (!max || n <= (size_t)max) return;
    size_t cut = (size_t)max - 3;
    while (cut && ((unsigned char)c[cut] & 0xC0) == 0x80) cut--;
    memcpy(c + cut, "...", 4);
}

static void row_fill(sqlite3_stmt *st, int csv, struct row *r) {
    r->cell[C_ID] = fmt_str("%lld", (long long)sqlite3_column_int64(st, 0));
    r->cell[C_WHEN] = xstrdup(store_text(st, 1));
    if (!csv && strlen(r->cell[C_WHEN]) >= 19) { /* "2024-05-01 12:34:56" */
        r->cell[C_WHEN][10] = ' ';
        r->cell[C_WHEN][19] = '\0';
    }
    r->cell[C_DEVICE] = fmt_str("%s %s", store_text(st, 2), store_text(st, 3));
    r->cell[C_APP] = xstrdup(store_text(st, 4));
    r->cell[C_INPUT] = xstrdup(store_text(st, 5));
    /* The steps run; in the table "run/input's own" when a run was shortened. */
    if (sqlite3_column_type(st, 22) == SQLITE_NULL) r->cell[C_STEPS] = xstrdup(csv ? "" : "-");
    else if (!csv && sqlite3_column_type(st, 23) != SQLITE_NULL &&
             sqlite3_column_int64(st, 23) != sqlite3_column_int64(st, 22))
        r->cell[C_STEPS] =
            fmt_str("%lld/%lld", (long long)sqlite3_column_int64(st, 22), (long long)sqlite3_column_int64(st, 23));
    else r->cell[C_STEPS] = fmt_str("%lld", (long long)sqlite3_column_int64(st, 22));
    r->cell[C_VARIANT] = xstrdup(store_text(st, 6));
    r->cell[C_WG] =
        fmt_str("%lldx%lld", (long long)sqlite3_column_int64(st, 7), (long long)sqlite3_column_int64(st, 8));
    r->cell[C_STATUS] = xstrdup(store_text(st, 9));
    r->cell[C_MEDIAN] = fmt_num(st, 10, csv, "%.4g");
    r->cell[C_IQR] = fmt_num(st, 11, csv, "%.2g");
    r->cell[C_MLUPS] = fmt_num(st, 12, csv, "%.1f");
    r->cell[C_GBS] = fmt_num(st, 13, csv, "%.1f");
    r->cell[C_RELERR] = fmt_num(st, 14, csv, "%.2g");
    r->cell[C_REASON] = xstrdup(store_text(st, 15));
    r->cell[C_ENERGY] = fmt_num(st, 16, csv, "%.4g");
    r->cell[C_POWER] = fmt_num(st, 17, csv, "%.0f");
    r->cell[C_KNOBS] = xstrdup(store_text(st, 18));
    /* CV from the samples' two means (n/(n-1) corrected); n/a under two. */
    const long n = (long)sqlite3_column_int64(st, 19);
    const double mean = sqlite3_column_double(st, 20), sq = sqlite3_column_double(st, 21);
    const double var = n > 1 ? fmax(0, (sq - mean * mean) * (double)n / (double)(n - 1)) : 0;
    if (n > 1 && mean > 0) r->cell[C_CV] = fmt_str(csv ? "%.6g" : "%.1f", 100 * sqrt(var) / mean);
    else r->cell[C_CV] = xstrdup(csv ? "" : "n/a");
    if (!csv)
        for (int c = 0; c < NCOL; c++) table_cell_fit(r->cell[c], columns[c].table_max);
}

static void row_free(struct row *r) {
    for (int c = 0; c < NCOL; c++) free(r->cell[c]);
}

static void csv_line(FILE *out, const char *const cell[NCOL]) {
    for (int c = 0; c < NCOL; c++) {
        if (c) fputc(',', out);
        csv_field(out, cell[c]);
    }
    fputc('\n', out);
}

/* Built in a buffer so trailing blanks (an empty last column) can be cut.
 * A column of width 0 is left out (an optional one with no value). */
static void table_line(FILE *out, const char *const cell[NCOL], const int width[NCOL]) {
    struct strbuf b = {0};
    for (int c = 0; c < NCOL; c++)
        if (width[c] && !columns[c].csv_only)
            sb_printf(&b, columns[c].right ? "%s%*s" : "%s%-*s", c ? "  " : "", width[c], cell[c]);
    while (b.len && b.s[b.len - 1] == ' ') b.s[--b.len] = '\0';
    fprintf(out, "%s\n", b.s);
    sb_free(&b);
}

/* Steps Q_RECENT once over every row: pass 0 measures column widths (an
 * optional column stays 0 wide until a row has a value in it), pass 1
 * prints. */
static int recent_pass(struct store *s, int limit, int csv, int pass, int width[NCOL], FILE *out, char *err,
                       size_t errn) {
    sqlite3_stmt *st = s->q[Q_RECENT];
    if (bind_int(st, 1, limit > 0 ? limit : -1)) return bind_fail(s, st, err, errn);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct row r;
        row_fill(st, csv, &r);
        if (csv) csv_line(out, (const char *const *)r.cell);
        else if (pass == 1) table_line(out, (const char *const *)r.cell, width);
        else
            for (int c = 0; c < NCOL; c++) {
                int w = (int)strlen(r.cell[c]);
                if (columns[c].optional) {
                    if (!strcmp(r.cell[c], "-")) continue; /* no value: the column may stay out */
                    if (w < (int)strlen(columns[c].header)) w = (int)strlen(columns[c].header);
                }
                if (w > width[c]) width[c] = w;
            }
        row_free(&r);
    }
    int ret = rc == SQLITE_DONE ? 0 : store_fail(s, err, errn);
    stmt_done(st);
    return ret;
}

int store_print_recent(struct store *s, int limit, int csv, FILE *out) {
    const char *header[NCOL];
    int width[NCOL];
    for (int c = 0; c < NCOL; c++) {
        header[c] = columns[c].header;
        width[c] = columns[c].optional ? 0 : (int)strlen(header[c]);
    }
    /* A read transaction keeps both table passes on one snapshot while a
     * sweep may be writing. */
    char err[ERR_MAX] = "";
    int ret = step_exec(s, s->q[Q_BEGIN_READ], err, sizeof err);
    if (ret == 0) {
        if (csv) {
            csv_line(out, header);
            ret = recent_pass(s, limit, 1, 1, width, out, err, sizeof err);
        } else {
            ret = recent_pass(s, limit, 0, 0, width, out, err, sizeof err);
            if (ret == 0) {
                table_line(out, header, width);
                ret = recent_pass(s, limit, 0, 1, width, out, err, sizeof err);
            }
        }
        /* Ending a read transaction only fails if something else already did;
         * the first message is the one worth keeping. */
        if (ret == 0) ret = tx_commit(s, err, sizeof err);
        tx_rollback(s);
    }
    if (ret != 0) {
        /* The API has no error buffer: a reading command reports here. */
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return ferror(out) ? -1 : 0;
}

struct sqlite3 *store_db(struct store *s) {
    return s->db;
}

const char *store_errmsg(struct store *s) { return sqlite3_errmsg(s->db); }

static int64_t run_column(struct store *s, int64_t run_id, const char *column) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT %s FROM run WHERE id = ?1", column);
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

int64_t store_device_id(struct store *s, int64_t run_id) { return run_column(s, run_id, "device_id"); }
int64_t store_build_id(struct store *s, int64_t run_id) { return run_column(s, run_id, "build_id"); }

int64_t store_build_this(struct store *s) {
    int64_t id = -1;
    char err[ERR_MAX];
    if (s->q[Q_BUILD_INS]) return build_upsert(s, &id, err, sizeof err) == 0 ? id : -1;
    /* A read-only store (store_open_readonly: a dry run) has no prepared
     * statements and may not insert: it finds the build, or -1. */
    sqlite3_stmt *sel = NULL;
    if (sqlite3_prepare_v2(s->db, stmt_sql[Q_BUILD_SEL], -1, &sel, NULL) == SQLITE_OK &&
        bind_build(sel, build_info_get()) == 0 && sqlite3_step(sel) == SQLITE_ROW)
        id = sqlite3_column_int64(sel, 0);
    sqlite3_finalize(sel);
    return id;
}

struct store_reader {
    sqlite3 *db;
};

struct store_reader *store_reader_open(const char *path, char *err, size_t errn) {
    if (access(path, F_OK) != 0) {
        err_set(err, errn, "no database at %s", path);
        return NULL;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        err_set(err, errn, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    int adopt;
    if (check_identity(db, path, &adopt, err, errn) != 0) {
        sqlite3_close(db);
        return NULL;
    }
    struct store_reader *rd = xcalloc(1, sizeof *rd);
    rd->db = db;
    return rd;
}

struct store *store_open_readonly(const char *path, char *err, size_t errn) {
    if (access(path, F_OK) != 0) {
        err_set(err, errn, "no database at %s", path);
        return NULL;
    }
    struct store *s = xcalloc(1, sizeof *s);
    str_copy(s->path, sizeof s->path, path);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        if (s->db) store_fail(s, err, errn);
        else err_set(err, errn, "%s: cannot open", path);
        store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 10000);
    int adopt;
    if (check_identity(s->db, path, &adopt, err, errn) != 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

struct store_reader *store_reader_open_cmd(const char *cmd, const char *path) {
    char err[ERR_MAX];
    struct store_reader *rd = store_reader_open(path, err, sizeof err);
    if (!rd) fprintf(stderr, "harness %s: %s\n", cmd, err);
    return rd;
}

void store_reader_close(struct store_reader *rd) {
    if (!rd) return;
    sqlite3_close(rd->db);
    free(rd);
}

const char *store_reader_errmsg(struct store_reader *rd) { return sqlite3_errmsg(rd->db); }

struct sqlite3 *store_reader_db(struct store_reader *rd) {
    return rd->db;
}

/* Closes the round being gathered: its median onto the line (a CSV row). */
static void round_close(FILE *out, int csv, const char *line, int round, const double *v, int *k) {
    if (*k) {
        if (csv) fprintf(out, "%s,%d,%.9g,%d\n", line, round, stats_median(v, (size_t)*k), *k);
        else fprintf(out, " %.4g", stats_median(v, (size_t)*k));
    }
    *k = 0;
}

int store_print_rounds(struct store *s, int limit, int csv, FILE *out) {
    const char *sql =
        "SELECT m.id, d.spec, c.app, c.input, COALESCE(m.variant, c.variant), c.wg_x, c.wg_y, m.status,"
        " m.rounds_done, m.rounds, s.round, s.seconds"
        " FROM (SELECT * FROM measurement ORDER BY id DESC LIMIT ?1) m JOIN config c ON c.id = m.config_id"
        " JOIN run r ON r.id = m.run_id JOIN device d ON d.id = r.device_id"
        " LEFT JOIN sample s ON s.measurement_id = m.id AND s.seconds IS NOT NULL ORDER BY m.id, s.round, s.rep";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", s->path, sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
    if (csv) fprintf(out, "id,device,app,input,variant,wg,status,rounds_done,rounds,round,median_s,reps\n");
    else
        fprintf(out, "%6s  %-11s %-10s %-22s %-9s %-8s %-7s  %s\n", "id", "device", "input", "variant", "wg", "status",
                "rounds", "median of each round");
    int64_t cur = -1;
    int round = -1, k = 0, rc;
    double v[4096];
    struct strbuf line = {0};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        int r = sqlite3_column_int(st, 10);
        if (id != cur) {
            round_close(out, csv, line.s, round, v, &k);
            if (cur >= 0 && !csv) fputc('\n', out);
            cur = id;
            sb_free(&line);
            line = (struct strbuf){0};
            char wg[32];
            snprintf(wg, sizeof wg, "%dx%d", sqlite3_column_int(st, 5), sqlite3_column_int(st, 6));
            if (csv)
                sb_printf(&line, "%lld,%s,%s,%s,%s,%s,%s,%d,%d", (long long)id, store_text(st, 1), store_text(st, 2),
                          store_text(st, 3), store_text(st, 4), wg, store_text(st, 7), sqlite3_column_int(st, 8),
                          sqlite3_column_int(st, 9));
            else
                fprintf(out, "%6lld  %-11s %-10s %-22s %-9s %-8s %3d/%-3d ", (long long)id, store_text(st, 1),
                        store_text(st, 3), store_text(st, 4), wg, store_text(st, 7), sqlite3_column_int(st, 8),
                        sqlite3_column_int(st, 9));
            round = r;
        }
        if (r != round) {
            round_close(out, csv, line.s, round, v, &k);
            round = r;
        }
        if (sqlite3_column_type(st, 11) != SQLITE_NULL && k < 4096) v[k++] = sqlite3_column_double(st, 11);
    }
    round_close(out, csv, line.s, round, v, &k);
    if (cur >= 0 && !csv) fputc('\n', out);
    sb_free(&line);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
