/* The progress line (progress.h). Steps are configs (or rounds of them),
 * which on one device take about the same time, so elapsed / done is a fair
 * pace; nothing is estimated before the first step ends. */
#include "core/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/util.h"

int harness_quiet;

void note(const char *fmt, ...) {
    if (harness_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("note: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void progress_duration(char *buf, int n, double seconds) {
    long s = seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (seconds < 9.95) snprintf(buf, (size_t)n, "%.1fs", seconds > 0 ? seconds : 0.0);
    else if (s < 60) snprintf(buf, (size_t)n, "%lds", s);
    else if (s < 3600) snprintf(buf, (size_t)n, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, (size_t)n, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
}

void progress_start(struct progress *p, const char *what, int total) {
    p->what = what;
    p->total = total;
    p->done = 0;
    p->started = clock_now();
    p->tty = isatty(2);
    p->shown = 0;
    p->logged = 0;
    p->at[0] = p->started;
}

/* Seconds per step lately: over the later half of the steps done. */
static double pace(const struct progress *p, double now) {
    int w = p->done - p->done / 2;
    if (w > PROGRESS_WINDOW - 1) w = PROGRESS_WINDOW - 1;
    if (w < 1) return 0;
    return (now - p->at[(p->done - w) % PROGRESS_WINDOW]) / w;
}

void progress_update(struct progress *p, int done, const char *detail) { progress_update_left(p, done, -1, detail); }

void progress_update_left(struct progress *p, int done, double left_s, const char *detail) {
    const double now = clock_now();
    for (int k = p->done + 1; k <= done; k++) p->at[k % PROGRESS_WINDOW] = now;
    p->done = done;
    if (harness_quiet || p->total < 2) return;
    /* A plain log gets a line per finished step: none for "starting", none
     * twice for one count. */
    if (!p->tty && (done == 0 || done == p->logged)) return;
    p->logged = done;
    const double elapsed = now - p->started;
    char el[32], left[48] = "";
    progress_duration(el, sizeof el, elapsed);
    if (done > 0 && done < p->total) {
        char d[32];
        progress_duration(d, sizeof d, left_s >= 0 ? left_s : pace(p, now) * (p->total - done));
        snprintf(left, sizeof left, ", about %s left", d);
    }
    fprintf(stderr, "%s%s [%d/%d] elapsed %s%s%s%s%s", p->tty ? "\r\033[K" : "", p->what ? p->what : "", done, p->total,
            el, left, detail ? ", " : "", detail ? detail : "", p->tty ? "" : "\n");
    fflush(stderr);
    p->shown = p->tty;
}

void progress_end(struct progress *p) {
    if (p->shown) fprintf(stderr, "\r\033[K");
    p->shown = 0;
}

double progress_heartbeat_s(void) {
    const char *env = getenv("HARNESS_HEARTBEAT_S");
    double s = 0;
    if (env && *env && parse_real(env, 0.1, 86400, &s) == 0) return s;
    return 30.0;
}
