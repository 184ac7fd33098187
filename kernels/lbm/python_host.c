/* host=python: one config run by the Python host (host.py) instead of
 * schedule.c. The worker starts host.py as a co-process, gives it the
 * problem (the input's obstacles and initial state in files, the kernel
 * options the C host builds `final` with), and drives the repetitions one
 * by one through timed_reps, so warm-up, samples and the energy meter are
 * the same as for a C-host run; the wall time of each repetition is the one
 * host.py measured around its own launches. The result comes back in files
 * and is verified by the app like any other. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "core/timed.h"
#include "lbm.h"

struct pyhost {
    struct dev *d;
    pid_t pid;
    FILE *to, *from;
    char dir[PATH_MAX];
    char line[8192];
    int summed; /* the last repetition's reply gave sum, its averages summed */
    double sum;
};

/* host.py's next line, without its newline; NULL when it has exited. */
static const char *pyhost_read(struct pyhost *p) {
    if (!fgets(p->line, sizeof p->line, p->from)) return NULL;
    p->line[strcspn(p->line, "\n")] = 0;
    return p->line;
}

static int pyhost_died(struct pyhost *p, const char *when) {
    return dev_fail(p->d, "the Python host exited %s (its stderr is in the log)", when);
}

/* Starts host.py with pipes on its stdin and stdout; its stderr is ours. */
static int pyhost_start(struct pyhost *p, const char *python) {
    char script[PATH_MAX];
    repo_path(script, sizeof script, "kernels/lbm/host.py");
    int in[2], out[2];
    if (pipe(in)) return dev_fail(p->d, "pipe: %s", strerror(errno));
    if (pipe(out)) {
        close(in[0]);
        close(in[1]);
        return dev_fail(p->d, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    p->pid = fork();
    if (p->pid == 0) {
        /* The worker may be killed by its watchdog: host.py goes with it,
         * and does not keep the device busy. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execlp(python, python, "-u", script, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (p->pid < 0) {
        close(in[1]);
        close(out[0]);
        return dev_fail(p->d, "fork: %s", strerror(errno));
    }
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    return p->to && p->from ? 0 : dev_fail(p->d, "fdopen: %s", strerror(errno));
}

static void pyhost_stop(struct pyhost *p) {
    if (p->to) fclose(p->to); /* end of input: host.py returns */
    if (p->from) fclose(p->from);
    if (p->pid > 0) {
        int st;
        while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
}

static void path_in(const struct pyhost *p, char *buf, size_t n, const char *name) {
    str_fmt(buf, n, "%s/%s", p->dir, name);
}

/* The problem in host.py's terms: the device layout (soa-3d: speed k of
 * cell i at k*n + i) and the arguments schedule.c passes. */
static int pyhost_setup(struct pyhost *p, const struct app_input *in, const struct knob_set *k, const unsigned wg[2]) {
    struct dev *d = p->d;
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    float *aos = xcalloc(9 * n, sizeof(float)), *soa = xcalloc(9 * n, sizeof(float));
    lbm_initial_cells(in, aos);
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < 9; s++) soa[s * n + i] = aos[9 * i + s];
    char initial[PATH_MAX], obstacles[PATH_MAX];
    path_in(p, initial, sizeof initial, "initial.f32");
    path_in(p, obstacles, sizeof obstacles, "obstacles.u8");
    const int wrote =
        file_write_all(initial, soa, 9 * n * sizeof(float)) || file_write_all(obstacles, in->obstacles, n);
    free(aos);
    free(soa);
    if (wrote) return dev_fail(d, "cannot write the Python host's input under %s", p->dir);

    /* The options of the C host's build of the same knobs (schedule.c's
     * build()): host=c so that not even the unread K_HOST_ define differs. */
    struct knob_set c_knobs = *k;
    char err[ERR_MAX];
    if (knobs_apply(&c_knobs, "host=c", err, sizeof err)) return dev_fail(d, "%s", err);
    char src[PATH_MAX], dir[PATH_MAX];
    repo_path(src, sizeof src, "kernels/lbm/lbm.cl");
    repo_path(dir, sizeof dir, "kernels/lbm");
    const size_t local[2] = {wg[0], wg[1]};
    struct strbuf opts = {0};
    sb_printf(&opts, "-I%s", dir);
    lbm_build_options(&c_knobs, d->ops, local, &opts);

    size_t row_local = wg[0];
    while (in->nx % (int)row_local) row_local--;
    long chunk = lbm_partials_capacity(in, &d->info, wg);
    if (chunk > in->iters) chunk = in->iters;
    const size_t reduce_local = d->info.max_wg < 64 ? d->info.max_wg : 64;
    const int hoisted = knob_is(k, "constants", "hoisted");
    char cells[PATH_MAX], av[PATH_MAX];
    path_in(p, cells, sizeof cells, "cells.f32");
    path_in(p, av, sizeof av, "av.f32");
    fprintf(p->to,
            "platform %d\ndevice %d\ndevice_name %s\nsource %s\noptions %s\nnx %d\nny %d\niters %ld\nwg_x %u\nwg_y %u\n"
            "row_local %zu\nchunk %ld\nreduce_local %zu\nomega %.9g\nacc_a %.9g\nacc_b %.9g\ninv_cells %.9g\n"
            "initial %s\nobstacles %s\nout_cells %s\nout_av %s\nend\n",
            d->info.index[0], d->info.index[1], d->info.name, src, opts.s, in->nx, in->ny, in->iters, wg[0], wg[1],
            row_local, chunk, reduce_local, (double)(float)in->omega,
            (double)(float)(hoisted ? in->density * in->accel / 9.0 : in->density),
            (double)(float)(hoisted ? in->density * in->accel / 36.0 : in->accel),
            (double)(float)(1.0 / (double)in->fluid_cells), initial, obstacles, cells, av);
    sb_free(&opts);
    fflush(p->to);
    const char *r = pyhost_read(p);
    if (!r) return pyhost_died(p, "while it set up");
    if (!strcmp(r, "ready")) return 0;
    const int compile = !strncmp(r, "compile-error ", 14);
    dev_fail(d, "Python host: %s", compile ? r + 14 : !strncmp(r, "error ", 6) ? r + 6 : r);
    return compile ? -2 : -1;
}

/* One repetition as timed_reps calls it: host.py's own clock, its markers. */
static int pyhost_rep(void *ctx, double *wall, double *device) {
    struct pyhost *p = ctx;
    fputs("rep\n", p->to);
    fflush(p->to);
    const char *r = pyhost_read(p);
    if (!r) return pyhost_died(p, "during a repetition");
    const int got = sscanf(r, "ok %lf %lf %lf", wall, device, &p->sum);
    p->summed = got == 3;
    if (got >= 2) return 0;
    return dev_fail(p->d, "Python host: %s", !strncmp(r, "error ", 6) ? r + 6 : r);
}

/* timed_check: the sum host.py gave with the repetition. */
static int pyhost_sum(void *ctx, double *sum) {
    const struct pyhost *p = ctx;
    *sum = p->sum;
    return p->summed ? 0 : -1;
}
static const struct timed_check pyhost_check = {pyhost_sum, LBM_REP_RTOL};

/* The last repetition's lattice (soa-3d, back to AoS) and averages. */
static struct app_result *pyhost_result(struct pyhost *p, const struct app_input *in) {
    fputs("result\n", p->to);
    fflush(p->to);
    const char *r = pyhost_read(p);
    if (!r) return pyhost_died(p, "while it wrote its result"), NULL;
    if (strcmp(r, "ok")) return dev_fail(p->d, "Python host: %s", r), NULL;
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    char cells[PATH_MAX], av[PATH_MAX], err[ERR_MAX];
    path_in(p, cells, sizeof cells, "cells.f32");
    path_in(p, av, sizeof av, "av.f32");
    size_t cells_len = 0, av_len = 0;
    float *soa = (float *)file_read_all(cells, &cells_len, err, sizeof err);
    float *avs = (float *)file_read_all(av, &av_len, err, sizeof err);
    struct app_result *res = NULL;
    if (!soa || !avs || cells_len != 9 * n * sizeof(float) || av_len != (size_t)in->iters * sizeof(float)) {
        dev_fail(p->d, "the Python host's result files are missing or the wrong size");
    } else {
        res = xcalloc(1, sizeof *res);
        res->iters = in->iters;
        res->nx = in->nx;
        res->ny = in->ny;
        res->av_vels = xcalloc((size_t)in->iters, sizeof(double));
        for (long t = 0; t < in->iters; t++) res->av_vels[t] = avs[t];
        res->cells = xcalloc(9 * n, sizeof(float));
        for (size_t i = 0; i < n; i++)
            for (size_t s = 0; s < 9; s++) res->cells[9 * i + s] = soa[s * n + i];
    }
    free(soa);
    free(avs);
    return res;
}

static void remove_dir(const struct pyhost *p) {
    static const char *const files[] = {"initial.f32", "obstacles.u8", "cells.f32", "av.f32"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[PATH_MAX];
        path_in(p, path, sizeof path, files[i]);
        unlink(path);
    }
    rmdir(p->dir);
}

struct app_result *lbm_python_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                      const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    m->iters = in->iters;
    m->iters_full = in->iters_full;
    m->warmup = warmup;
    m->cell_updates = (double)in->nx * (double)in->ny * (double)in->iters;
    m->status = ST_RUNTIME_ERROR;
    char why[1200];
    const char *python = lbm_python_find(why, sizeof why);
    if (!python) { /* the rules said so before; the environment changed since */
        m->status = ST_INVALID;
        str_copy(m->reason, sizeof m->reason, why);
        return NULL;
    }
    struct pyhost p = {.d = d};
    const char *tmp = getenv("TMPDIR");
    str_fmt(p.dir, sizeof p.dir, "%s/harness-pyhost-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(p.dir)) {
        str_fmt(m->reason, sizeof m->reason, "mkdtemp %s: %s", p.dir, strerror(errno));
        return NULL;
    }
    /* A Python host that dies leaves a closed pipe: a write to it must be
     * an error return, not a SIGPIPE that kills the worker. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ignore, &old);
    struct app_result *res = NULL;
    int rc = pyhost_start(&p, python);
    if (!rc) rc = pyhost_setup(&p, in, k, wg);
    if (rc) m->status = rc == -2 ? ST_COMPILE_ERROR : ST_RUNTIME_ERROR;
    else if (timed_reps(d, warmup, reps, m, pyhost_rep, &p, &pyhost_check)) m->status = ST_RUNTIME_ERROR;
    else if ((res = pyhost_result(&p, in))) m->status = ST_OK; /* verify() decides ok or wrong */
    if (m->status != ST_OK) str_copy(m->reason, sizeof m->reason, d->err);
    pyhost_stop(&p);
    sigaction(SIGPIPE, &old, NULL);
    remove_dir(&p);
    return res;
}
