/* Isolated execution: each config runs in a worker process (bin/harness
 * worker, a fresh exec, since CUDA and OpenCL state does not survive fork)
 * under a watchdog. A config that crashes or hangs costs one row (status
 * crashed or timeout) and a new worker; the parent alone writes the
 * database. A worker is kept across configs so a device is opened and a
 * program built once. */
#ifndef HARNESS_WORKER_H
#define HARNESS_WORKER_H
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/measurement.h"

/* Set by the commands' SIGINT/SIGTERM handlers: a pool_run in progress
 * kills its worker and returns at once (status crashed, "interrupted"). */
extern volatile sig_atomic_t harness_interrupted;

/* Seconds a config may run before its worker is killed, one default for
 * every command (run, verify, sweep files, tune, report, confirmation
 * reruns): long enough for a full-length run on a small CPU, which a
 * shorter watchdog would record as a hang. An app may ask for less in
 * `harness verify` (app.h: verify_timeout_s). */
#define CONFIG_TIMEOUT_S 600.0

/* Everything a worker needs to run one config. */
struct job {
    char app[32];
    char input[64]; /* a name, or "" with params/obstacles */
    char params[1024], obstacles[1024];
    long iters; /* 0: the input's own */
    char variant[64];
    char knobs[KNOBS_TEXT_MAX]; /* canonical knob string: the config's identity */
    unsigned wg[2];
    char device[32]; /* a device spec */
    int warmup, reps;
};

struct worker_pool;

struct worker_pool *pool_open(void);
/* A pool whose workers are another harness: `bin` (NULL: this binary) with
 * HARNESS_ROOT set to `root` (NULL: inherited). A kept build's workers run
 * its own binary on its own kernel tree, so a confirmation measures the old
 * and the new build side by side in the same minutes. The job protocol is
 * shared by every build that speaks it. */
struct worker_pool *pool_open_exec(const char *bin, const char *root);
/* Runs the job in the worker (starting one if needed) and waits at most
 * timeout_s. On a crash or a timeout the worker is replaced and m says so.
 * m arrives described by the caller (runner_describe); pool_run fills the
 * outcome: status, reason, errors, samples. The caller summarises. */
void pool_run(struct worker_pool *p, const struct job *j, double timeout_s, struct measurement *m);
void pool_close(struct worker_pool *p);

/* Starts `bin argv...` (bin NULL or "": this binary; root as for
 * pool_open_exec) with its stdin and stdout on pipes: *to and *from are the
 * parent's ends. 0, or -1 with err. */
int spawn_piped(const char *bin, const char *root, char *const argv[], pid_t *pid, FILE **to, FILE **from, char *err,
                size_t errn);
/* 1 when fd is readable, 0 when the deadline (clock_now) passed first, -1
 * when interrupted (harness_interrupted). */
int wait_fd_readable(int fd, double deadline);
/* How a child ended (a waitpid status), as "WHO died of signal 6 (Aborted)". */
void describe_exit(int st, const char *who, char *reason, size_t n);

/* The job line protocol, shared by both ends (also used by tests). */
void job_write(FILE *f, const struct job *j);
int job_read(FILE *f, struct job *j); /* 0, or -1 at end of input */
/* A measurement's outcome, from worker to parent: status, reason, errors,
 * result, samples, energy. measurement_receive fills them into m (already
 * described by the parent) and *retire (the worker is ending); 0, or -1
 * when the block ended early (the worker died). */
void measurement_send(FILE *f, const struct measurement *m);
int measurement_receive(FILE *f, struct measurement *m, int *retire);
#endif
