/* `harness worker`: the worker side of isolated execution (core/worker.h).
 * It reads jobs on standard input, runs each on its device (kept open, with
 * the input and its reference, across jobs) and sends the measurement back
 * on the protocol's stream. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend/backend.h"
#include "base/util.h"
#include "cli/commands.h"
#include "core/app.h"
#include "core/devset.h"
#include "core/probe_isolated.h"
#include "core/runner.h"
#include "core/worker.h"

struct worker_state {
    struct dev *dev;
    char spec[32];
    const struct app *app;
    struct app_input *in;
    char input_key[2200];
    struct ref_holder refs;
};

static int worker_device(struct worker_state *w, const char *spec, char *err, size_t errn) {
    if (w->dev && !strcmp(w->spec, spec)) return 0;
    dev_close(w->dev);
    w->dev = NULL;
    struct device_info info;
    if (device_find_one(spec, &info, err, errn) != 0) return -1;
    w->dev = dev_open_measuring(&info, err, errn);
    if (!w->dev) return -1;
    probe_drill_abort(spec);
    str_copy(w->spec, sizeof w->spec, spec);
    return 0;
}

static int worker_input(struct worker_state *w, const struct job *j, char *err, size_t errn) {
    char key[sizeof w->input_key];
    str_fmt(key, sizeof key, "%s|%s|%s|%s|%ld", j->app, j->input, j->params, j->obstacles, j->iters);
    if (w->in && !strcmp(key, w->input_key)) return 0;
    if (w->in) {
        if (w->refs.ref) w->app->ref_free(w->refs.ref);
        w->app->input_free(w->in);
        w->in = NULL;
    }
    w->app = app_find(j->app);
    if (!w->app) return err_set(err, errn, "unknown app '%s'", j->app);
    struct app_opts o = {.input = j->input[0] ? j->input : NULL,
                         .params = j->params[0] ? j->params : NULL,
                         .obstacles = j->obstacles[0] ? j->obstacles : NULL,
                         .iters = j->iters};
    w->in = w->app->input_load(&o, err, errn);
    if (!w->in) return -1;
    w->refs = (struct ref_holder){w->app, w->in, NULL};
    str_copy(w->input_key, sizeof w->input_key, key);
    return 0;
}

static void worker_job(struct worker_state *w, const struct job *j, struct measurement *m) {
    char err[1024];
    if (worker_input(w, j, err, sizeof err) || worker_device(w, j->device, err, sizeof err)) {
        m->status = ST_RUNTIME_ERROR;
        str_copy(m->reason, sizeof m->reason, err);
        return;
    }
    struct config c = {.app = w->app, .in = w->in, .wg = {j->wg[0], j->wg[1]}};
    str_copy(c.variant, sizeof c.variant, j->variant);
    knobs_init(&c.knobs, w->app->knobs);
    if (knobs_apply(&c.knobs, j->knobs, err, sizeof err) != 0) {
        m->status = ST_INVALID;
        str_copy(m->reason, sizeof m->reason, err);
        return;
    }
    runner_measure(w->dev, &c, &w->refs, j->warmup, j->reps, m, NULL);
}

int cmd_worker(int argc, char **argv) {
    (void)argc;
    (void)argv;
    /* Only the protocol may reach the parent: anything a library prints to
     * stdout goes to stderr instead. */
    /* A worker outlives no parent: if the sweep is killed (even with -9), a
     * hanging config must not keep the device busy. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return EXIT_FOUND;
    int proto_fd = dup(1);
    dup2(2, 1);
    FILE *proto = fdopen(proto_fd, "w");
    struct worker_state w = {0};
    struct job j;
    while (job_read(stdin, &j) == 0) {
        struct measurement m = {0};
        measurement_unknown(&m);
        worker_job(&w, &j, &m);
        measurement_send(proto, &m);
        int retire = m.status == ST_RUNTIME_ERROR || m.status == ST_COMPILE_ERROR;
        measurement_free(&m);
        if (retire) break;
    }
    dev_close(w.dev);
    if (w.refs.ref) w.app->ref_free(w.refs.ref);
    if (w.in) w.app->input_free(w.in);
    return 0;
}
