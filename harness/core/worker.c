/* Isolated execution of configs (see worker.h): the line protocol and the
 * parent side (a pool of one worker process, a watchdog). The worker side is
 * the command `harness worker` (cli/cmd_worker.c). */
#include "core/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "core/progress.h"

extern char **environ;

volatile sig_atomic_t harness_interrupted;

/* ---- the line protocol -------------------------------------------------
 * A job or a measurement is a block of "key value" lines ending in "end".
 * Values never contain newlines (reasons have theirs replaced). */

void job_write(FILE *f, const struct job *j) {
    fprintf(f,
            "app %s\ninput %s\nparams %s\nobstacles %s\niters %ld\nvariant %s\nknobs %s\n"
            "wg %ux%u\ndevice %s\nwarmup %d\nreps %d\nend\n",
            j->app, j->input, j->params, j->obstacles, j->iters, j->variant, j->knobs, j->wg[0], j->wg[1], j->device,
            j->warmup, j->reps);
    fflush(f);
}

/* Splits "key value" in place; returns the value ("" when absent). */
static char *split_line(char *line) {
    line[strcspn(line, "\n")] = '\0';
    char *sp = strchr(line, ' ');
    if (!sp) return line + strlen(line);
    *sp = '\0';
    return sp + 1;
}

int job_read(FILE *f, struct job *j) {
    memset(j, 0, sizeof *j);
    char line[4096];
    int any = 0;
    while (fgets(line, sizeof line, f)) {
        any = 1;
        char *v = split_line(line);
        if (!strcmp(line, "end")) return 0;
        if (!strcmp(line, "app")) str_copy(j->app, sizeof j->app, v);
        else if (!strcmp(line, "input")) str_copy(j->input, sizeof j->input, v);
        else if (!strcmp(line, "params")) str_copy(j->params, sizeof j->params, v);
        else if (!strcmp(line, "obstacles")) str_copy(j->obstacles, sizeof j->obstacles, v);
        else if (!strcmp(line, "iters")) j->iters = strtol(v, NULL, 10);
        else if (!strcmp(line, "variant")) str_copy(j->variant, sizeof j->variant, v);
        else if (!strcmp(line, "knobs")) str_copy(j->knobs, sizeof j->knobs, v);
        else if (!strcmp(line, "wg")) sscanf(v, "%ux%u", &j->wg[0], &j->wg[1]);
        else if (!strcmp(line, "device")) str_copy(j->device, sizeof j->device, v);
        else if (!strcmp(line, "warmup")) j->warmup = (int)strtol(v, NULL, 10);
        else if (!strcmp(line, "reps")) j->reps = (int)strtol(v, NULL, 10);
    }
    (void)any;
    return -1;
}

static void write_doubles(FILE *f, const char *key, const double *x, int n) {
    fprintf(f, "%s", key);
    for (int i = 0; i < n; i++) fprintf(f, " %.17g", x ? x[i] : NAN);
    fputc('\n', f);
}

void measurement_send(FILE *f, const struct measurement *m) {
    char reason[sizeof m->reason];
    str_copy(reason, sizeof reason, m->reason);
    for (char *p = reason; *p; p++)
        if (*p == '\n' || *p == '\r') *p = '|';
    fprintf(f, "status %d\nreason %s\n", (int)m->status, reason);
    fprintf(f, "errors %.17g %.17g %.17g\n", m->max_abs_err, m->max_rel_err, m->tolerance);
    fprintf(f, "result %.17g\niters %ld %ld\n", m->result, m->iters, m->iters_full);
    /* A failed API call can leave the context unusable (a CUDA illegal
     * address is sticky): the worker retires, and the next config gets a
     * fresh process and context. */
    fprintf(f, "retire %d\n", m->status == ST_RUNTIME_ERROR || m->status == ST_COMPILE_ERROR);
    fprintf(f, "nsamples %d\n", m->nsamples);
    write_doubles(f, "samples", m->samples, m->nsamples);
    write_doubles(f, "device_samples", m->device_samples, m->nsamples);
    for (int c = 0; c < MEASURE_COUNTERS; c++)
        if (m->counters[c]) write_doubles(f, measure_name((enum measure)(c + 1)), m->counters[c], m->nsamples);
    /* A parent from before energy ignores the line; a worker from before
     * it sends none, and the parent's values stay unknown. */
    fprintf(f, "energy %.17g %.17g %d\n", m->energy_j, m->power_w, m->energy_reps);
    /* Registers per kernel where the backend knows them; a parent from
     * before them ignores the line, as it does energy's. */
    if (m->resources[0]) fprintf(f, "resources %s\n", m->resources);
    fprintf(f, "end\n");
    fflush(f);
}

static void read_doubles(char *v, double *x, int n) {
    for (int i = 0; i < n; i++) x[i] = strtod(v, &v);
}

int measurement_receive(FILE *f, struct measurement *m, int *retire) {
    char *line = malloc(1 << 20); /* sample lists can be long */
    int done = 0;
    *retire = 0;
    while (!done && fgets(line, 1 << 20, f)) {
        char *v = split_line(line);
        if (!strcmp(line, "end")) done = 1;
        else if (!strcmp(line, "status")) m->status = (enum status)strtol(v, NULL, 10);
        else if (!strcmp(line, "reason")) str_copy(m->reason, sizeof m->reason, v);
        else if (!strcmp(line, "errors")) sscanf(v, "%lg %lg %lg", &m->max_abs_err, &m->max_rel_err, &m->tolerance);
        else if (!strcmp(line, "result")) m->result = strtod(v, NULL);
        else if (!strcmp(line, "retire")) *retire = (int)strtol(v, NULL, 10);
        else if (!strcmp(line, "iters")) sscanf(v, "%ld %ld", &m->iters, &m->iters_full);
        else if (!strcmp(line, "energy")) sscanf(v, "%lg %lg %d", &m->energy_j, &m->power_w, &m->energy_reps);
        else if (!strcmp(line, "resources")) str_copy(m->resources, sizeof m->resources, v);
        else if (!strcmp(line, "nsamples")) {
            m->nsamples = (int)strtol(v, NULL, 10);
            if (m->nsamples < 0 || m->nsamples > 1000000) m->nsamples = 0;
            m->samples = xcalloc((size_t)m->nsamples, sizeof(double));
            m->device_samples = xcalloc((size_t)m->nsamples, sizeof(double));
        } else if (!strcmp(line, "samples") && m->samples) read_doubles(v, m->samples, m->nsamples);
        else if (!strcmp(line, "device_samples") && m->device_samples) read_doubles(v, m->device_samples, m->nsamples);
        else
            for (int c = 0; c < MEASURE_COUNTERS; c++)
                if (!strcmp(line, measure_name((enum measure)(c + 1))) && m->nsamples > 0 && !m->counters[c]) {
                    m->counters[c] = xcalloc((size_t)m->nsamples, sizeof(double));
                    read_doubles(v, m->counters[c], m->nsamples);
                }
    }
    free(line);
    return done ? 0 : -1;
}

/* ---- the parent side --------------------------------------------------- */

/* One worker process per device: two runtimes that share a driver (CUDA's
 * and libgomp's nvptx plugin) must never meet in one process, where one's
 * context release breaks the other ("context is destroyed", then a fatal
 * exit that took every later config with it). So a pool keeps a worker for
 * each device it has been sent, and a device's crash costs its own worker. */
#define POOL_MAX_WORKERS 16
struct worker {
    pid_t pid;
    FILE *to, *from;   /* the worker's stdin and its protocol output */
    char device[32];   /* the device spec its jobs name */
    unsigned long use; /* when it last ran a job: the least recent goes first */
};
struct worker_pool {
    struct worker w[POOL_MAX_WORKERS];
    unsigned long clock;
    char bin[4096];  /* "" : this binary */
    char root[4096]; /* "" : HARNESS_ROOT as inherited */
};

struct worker_pool *pool_open(void) {
    return xcalloc(1, sizeof(struct worker_pool));
}

struct worker_pool *pool_open_exec(const char *bin, const char *root) {
    struct worker_pool *p = pool_open();
    if (bin) str_copy(p->bin, sizeof p->bin, bin);
    if (root) str_copy(p->root, sizeof p->root, root);
    return p;
}

/* environ with HARNESS_ROOT replaced by root: a malloc'd array whose strings
 * are environ's but for the one made here (freed by the caller: env[0..]). */
static char **env_with_root(const char *root, char **made) {
    size_t n = 0;
    while (environ[n]) n++;
    char **env = xcalloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "HARNESS_ROOT=", 13)) env[k++] = environ[i];
    size_t len = strlen(root) + 14;
    *made = xcalloc(1, len);
    snprintf(*made, len, "HARNESS_ROOT=%s", root);
    env[k] = *made;
    return env;
}

static void worker_stop(struct worker *w, int sig) {
    if (!w->pid) return;
    if (w->to) fclose(w->to);
    if (sig) kill(w->pid, sig);
    int st;
    waitpid(w->pid, &st, 0);
    if (w->from) fclose(w->from);
    w->pid = 0;
    w->to = w->from = NULL;
}

/* Starts `bin argv...` (bin "": this binary) with its stdin and stdout on
 * pipes; *to and *from are the parent's ends. 0, or -1 with err. */
int spawn_piped(const char *bin, const char *root, char *const argv[], pid_t *pid, FILE **to, FILE **from, char *err,
                size_t errn) {
    int in[2], out[2];
    /* Close-on-exec: a second worker (another device, another build) must not
     * inherit this one's pipes, or closing our end would never end it. */
    if (pipe2(in, O_CLOEXEC)) return err_set(err, errn, "pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]);
        close(in[1]);
        return err_set(err, errn, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char *made = NULL, **env = root && root[0] ? env_with_root(root, &made) : environ;
    int rc = posix_spawn(pid, bin && bin[0] ? bin : "/proc/self/exe", &fa, NULL, argv, env);
    if (env != environ) free(env);
    free(made);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        *pid = 0;
        return err_set(err, errn, "posix_spawn: %s", strerror(rc));
    }
    *to = fdopen(in[1], "w");
    *from = fdopen(out[0], "r");
    return 0;
}

static int worker_start(struct worker_pool *p, struct worker *w, char *err, size_t errn) {
    char *argv[] = {"harness", "worker", NULL};
    return spawn_piped(p->bin, p->root, argv, &w->pid, &w->to, &w->from, err, errn);
}

/* The device's worker slot: its own, else a free one, else the least
 * recently used (whose worker is ended: a pool of more devices than slots
 * pays a restart, never a shared process). */
static struct worker *worker_for(struct worker_pool *p, const char *device) {
    struct worker *free_slot = NULL, *oldest = &p->w[0];
    for (int i = 0; i < POOL_MAX_WORKERS; i++) {
        struct worker *w = &p->w[i];
        if (w->device[0] && !strcmp(w->device, device)) return w;
        if (!w->device[0] && !free_slot) free_slot = w;
        if (w->use < oldest->use) oldest = w;
    }
    struct worker *w = free_slot ? free_slot : oldest;
    worker_stop(w, 0);
    str_copy(w->device, sizeof w->device, device);
    return w;
}

/* Waits until fd is readable or the deadline passes.
 * 1 readable, 0 timed out, -1 interrupted. */
int wait_fd_readable(int fd, double deadline) {
    for (;;) {
        if (harness_interrupted) return -1;
        double left = deadline - clock_now();
        if (left <= 0) return 0;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
        int r = poll(&pf, 1, ms);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 0;
    }
}

void describe_exit(int st, const char *who, char *reason, size_t n) {
    if (WIFSIGNALED(st))
        snprintf(reason, n, "%s died of signal %d (%s)", who, WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(reason, n, "%s exited with status %d before reporting", who, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void describe_death(pid_t pid, struct measurement *m) {
    int st = 0;
    waitpid(pid, &st, 0);
    m->status = ST_CRASHED;
    describe_exit(st, "the worker", m->reason, sizeof m->reason);
}

/* Waits for the worker's answer as wait_fd_readable does, saying on stderr
 * every progress_heartbeat_s() (30 s) that the config is still running
 * (unless --quiet): a long config was silent for its whole length (6
 * minutes inside the main job's first config on a 2-core machine, as if
 * hung). */
static int wait_with_heartbeat(struct worker *w, const struct job *j, double deadline) {
    const double start = clock_now(), beat = progress_heartbeat_s();
    for (double next = start + beat;; next += beat) {
        const int ready = wait_fd_readable(fileno(w->from), next < deadline ? next : deadline);
        if (ready != 0 || clock_now() >= deadline) return ready;
        if (harness_quiet) continue;
        char so_far[32], limit[32];
        progress_duration(so_far, sizeof so_far, clock_now() - start);
        progress_duration(limit, sizeof limit, deadline - start);
        fprintf(stderr, "  ... %s %s on %s still running: %s so far (its watchdog: %s)\n", j->app, j->variant,
                j->device, so_far, limit);
    }
}

void pool_run(struct worker_pool *p, const struct job *j, double timeout_s, struct measurement *m) {
    char err[ERR_MAX];
    struct worker *w = worker_for(p, j->device);
    w->use = ++p->clock;
    if (!w->pid && worker_start(p, w, err, sizeof err) != 0) {
        m->status = ST_RUNTIME_ERROR;
        str_copy(m->reason, sizeof m->reason, err);
        return;
    }
    /* A worker that died between jobs shows up as a failed write. */
    signal(SIGPIPE, SIG_IGN);
    job_write(w->to, j);
    int ready = wait_with_heartbeat(w, j, clock_now() + timeout_s);
    if (ready <= 0) {
        worker_stop(w, SIGKILL);
        if (ready < 0) {
            m->status = ST_CRASHED;
            str_copy(m->reason, sizeof m->reason, "interrupted");
            return;
        }
        m->status = ST_TIMEOUT;
        snprintf(m->reason, sizeof m->reason, "no result within %.0f s; the worker was killed", timeout_s);
        return;
    }
    /* The first bytes are here; the rest of the block follows at once. */
    int retire = 0;
    if (measurement_receive(w->from, m, &retire) == 0) {
        if (retire) worker_stop(w, 0);
    } else {
        pid_t pid = w->pid;
        fclose(w->to);
        fclose(w->from);
        w->to = w->from = NULL;
        w->pid = 0;
        describe_death(pid, m);
    }
}

void pool_close(struct worker_pool *p) {
    if (!p) return;
    for (int i = 0; i < POOL_MAX_WORKERS; i++) worker_stop(&p->w[i], 0); /* closing its stdin ends a healthy worker */
    free(p);
}
