/* `harness results --runs` (store_runs.h): the runs and nights that
 * `compare`, `exclude` and `report --from-db` take by id, each with its
 * build, device and what it measured, newest last. */
#include "store/store_runs.h"

#include <sqlite3.h>
#include <string.h>

#include "base/util.h"
#include "store/store_sql.h"

/* nightly_run exists once a nightly has run in this file (store_nightly.c
 * creates it); before that no run belongs to a night. */
static const char runs_sql[] =
    "SELECT * FROM (SELECT r.id, r.started_at, COALESCE(r.ended_at, ''), d.spec, d.name, substr(b.git_commit, 1, 12),"
    " b.dirty, %s, r.command,"
    " (SELECT count(*) FROM measurement m WHERE m.run_id = r.id),"
    " (SELECT count(*) FROM measurement m WHERE m.run_id = r.id AND m.status = 'ok')"
    " FROM run r JOIN device d ON d.id = r.device_id JOIN build b ON b.id = r.build_id"
    " ORDER BY r.id DESC LIMIT ?1) ORDER BY 1";

int store_print_runs(struct store *s, int limit, int csv, FILE *out) {
    sqlite3 *db = store_db(s);
    struct strbuf sql = {0};
    sb_printf(&sql, runs_sql,
              store_has_column(db, "nightly_run", "run_id")
                  ? "COALESCE((SELECT CAST(n.nightly_id AS TEXT) FROM nightly_run n WHERE n.run_id = r.id), '')"
                  : "''");
    sqlite3_stmt *st = NULL;
    const int rc = sqlite3_prepare_v2(db, sql.s, -1, &st, NULL);
    sb_free(&sql);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "harness results: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int(st, 1, limit > 0 ? limit : -1);
    if (csv) fprintf(out, "run,started,ended,device,device_name,commit,dirty,night,measurements,ok,command\n");
    else
        fprintf(out, "%4s  %-19s  %-12s  %-24s  %-13s  %5s  %7s  %s\n", "run", "started", "device", "name", "commit",
                "night", "ok/all", "command");
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const long long id = sqlite3_column_int64(st, 0);
        const char *started = store_text(st, 1), *ended = store_text(st, 2), *spec = store_text(st, 3);
        const char *name = store_text(st, 4), *commit = store_text(st, 5), *night = store_text(st, 7);
        const char *command = store_text(st, 8);
        const int dirty = sqlite3_column_int(st, 6), all = sqlite3_column_int(st, 9), ok = sqlite3_column_int(st, 10);
        if (csv) {
            fprintf(out, "%lld,", id);
            const char *f[] = {started, ended, spec, name, commit};
            for (int k = 0; k < 5; k++) csv_field(out, f[k]), fputc(',', out);
            fprintf(out, "%d,%s,%d,%d,", dirty, night, all, ok);
            csv_field(out, command);
            fputc('\n', out);
        } else {
            char when[20], c[16];
            str_copy(when, sizeof when, started);
            if (strlen(when) > 10) when[10] = ' ';
            str_fmt(c, sizeof c, "%s%s", commit, dirty ? "+" : "");
            fprintf(out, "%4lld  %-19s  %-12.12s  %-24.24s  %-13s  %5s  %3d/%-3d  %.70s%s\n", id, when, spec, name, c,
                    night[0] ? night : "-", ok, all, command, strlen(command) > 70 ? "..." : "");
        }
        n++;
    }
    sqlite3_finalize(st);
    if (!csv && !n) fprintf(out, "(no runs)\n");
    if (!csv && n)
        fprintf(out, "(+ after a commit: built with uncommitted changes; night: the nightly:N it belongs to)\n");
    return ferror(out) ? -1 : 0;
}
