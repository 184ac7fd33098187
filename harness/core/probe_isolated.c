/* probe_isolated.h. */
#include "core/probe_isolated.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/launch_cost.h"
#include "core/worker.h"

void probe_drill_abort(const char *spec) {
    const char *drill = getenv("HARNESS_DRILL_ABORT");
    if (drill && *drill && spec && !strcmp(drill, spec)) {
        fprintf(stderr, "harness: HARNESS_DRILL_ABORT=%s: aborting as a runtime's fatal error would\n", drill);
        abort();
    }
}

/* The last "error ..." line of out, if any, into err. */
static int error_line(const char *out, char *err, size_t errn) {
    const char *found = NULL;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, "error ", 6)) found = p + 6;
    if (!found) return 0;
    size_t len = strcspn(found, "\n");
    snprintf(err, errn, "%.*s", (int)len, found);
    return 1;
}

int probe_isolated(const struct device_info *info, const char *what, const char *const *args, double timeout_s,
                   struct strbuf *out, char *err, size_t errn) {
    char *argv[16] = {"harness", "probe", (char *)what, (char *)info->spec};
    int argc = 4;
    for (int i = 0; args && args[i] && argc < 15; i++) argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    pid_t pid;
    FILE *to, *from;
    if (spawn_piped(NULL, NULL, argv, &pid, &to, &from, err, errn) != 0) return -1;
    fclose(to); /* the probe reads nothing */
    const double deadline = clock_now() + timeout_s;
    char buf[4096];
    int timed_out = 0, interrupted = 0;
    for (;;) {
        int ready = wait_fd_readable(fileno(from), deadline);
        if (ready <= 0) {
            timed_out = ready == 0;
            interrupted = ready < 0;
            kill(pid, SIGKILL);
            break;
        }
        ssize_t n = read(fileno(from), buf, sizeof buf - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        buf[n] = '\0';
        sb_printf(out, "%s", buf);
    }
    fclose(from);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (timed_out) return err_set(err, errn, "no answer within %.0f s; its probe process was killed", timeout_s);
    if (interrupted) return err_set(err, errn, "interrupted");
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (!error_line(out->s ? out->s : "", err, errn)) describe_exit(st, "its probe process", err, errn);
    return -1;
}

int probe_peak(const struct device_info *info, int fp32, struct probe_peak *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    struct strbuf text = {0};
    const char *args[] = {fp32 ? "fp32" : NULL, NULL};
    int rc = probe_isolated(info, "peak", args, PROBE_TIMEOUT_S, &text, err, errn);
    if (rc == 0) {
        const char *s = text.s ? text.s : "";
        const char *copy = strstr(s, "copy ");
        if (!copy || sscanf(copy, "copy %lg", &out->gbs) != 1 || !(out->gbs > 0))
            rc = err_set(err, errn, "its probe reported no copy rate");
        const char *f = strstr(s, "fp32 ");
        if (f) sscanf(f, "fp32 %lg", &out->gflops);
        const char *fe = strstr(s, "fp32_error ");
        if (fe) snprintf(out->fp32_err, sizeof out->fp32_err, "%.*s", (int)strcspn(fe + 11, "\n"), fe + 11);
    }
    sb_free(&text);
    return rc;
}

int probe_launch_cost(const struct device_info *info, const struct launch_cost_opts *o, struct launch_cost_row *rows,
                      int maxrows, char *err, size_t errn) {
    struct strbuf counts = {0};
    for (int i = 0; i < o->ncounts; i++) sb_printf(&counts, "%s%d", i ? "," : "", o->counts[i]);
    char launches[32], reps[32], warmup[32];
    snprintf(launches, sizeof launches, "%ld", o->launches);
    snprintf(reps, sizeof reps, "%d", o->reps);
    snprintf(warmup, sizeof warmup, "%d", o->warmup);
    const char *args[] = {counts.s ? counts.s : "0", launches, reps, warmup, NULL};
    struct strbuf text = {0};
    int n = probe_isolated(info, "launch-cost", args, PROBE_TIMEOUT_S, &text, err, errn);
    sb_free(&counts);
    if (n == 0) {
        for (const char *p = text.s ? text.s : ""; *p && n >= 0; p += strcspn(p, "\n"), p += *p == '\n') {
            if (strncmp(p, "row ", 4)) continue;
            if (n >= maxrows || launch_cost_row_read(p, &rows[n]) != 0)
                n = err_set(err, errn, "its probe sent a row that does not read: %.80s", p);
            else n++;
        }
        if (n == 0) n = err_set(err, errn, "its probe sent no rows");
    }
    sb_free(&text);
    return n;
}
