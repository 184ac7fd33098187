/* The progress of a command that runs many configs (sweep, verify, report,
 * nightly, tune, compare --rerun): "[37/500] elapsed 3m12s, about 40m left".
 * On a terminal one line on stderr, rewritten in place; into a file or a
 * pipe a plain line per step; nothing at all with --quiet (harness_quiet).
 * The estimate is the recent pace times what is left: the steps of the
 * later half of those done (at most PROGRESS_WINDOW), so one-off costs at
 * the start (kernel builds, the reference, the first worker) do not
 * inflate it for the rest of a long command. */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

/* Set by main() for `--quiet` anywhere on the command line: no progress and
 * no notes, only results and errors. */
extern int harness_quiet;

/* "note: ..." on stderr (fmt carries its newline), unless --quiet. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define PROGRESS_WINDOW 64

struct progress {
    const char *what; /* the label: "sweep", "verify" */
    int total, done;
    double started;
    double at[PROGRESS_WINDOW]; /* at[k % WINDOW]: when the count reached k */
    int tty, shown;             /* shown: a terminal line is on screen */
    int logged;                 /* the count of the last plain line */
};

void progress_start(struct progress *p, const char *what, int total);
/* `done` of total finished; detail (may be NULL) names the next one. */
void progress_update(struct progress *p, int done, const char *detail);
/* The same with the caller's own estimate of the seconds left (< 0: the
 * pace), for a caller that knows its steps' costs differ (rounds.c). */
void progress_update_left(struct progress *p, int done, double left_s, const char *detail);
/* Clears a terminal line; a plain log gets nothing more. */
void progress_end(struct progress *p);
/* "3m12s", "45s", "1h05m" into buf. */
void progress_duration(char *buf, int n, double seconds);
/* How often a long wait says it is still waiting (a config in its worker,
 * the serial reference): 30 s, or HARNESS_HEARTBEAT_S (tests: 1). */
double progress_heartbeat_s(void);
#endif
