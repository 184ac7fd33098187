/* Opening and driving a device set (devset.h). The members run at once:
 * member 0 on the calling thread, member 1 on a helper thread kept for the
 * set's life, handed each batch through a mutex and a condition variable.
 * A thread per member, rather than enqueueing on one and then running the
 * other, because an OpenMP launch returns only when its work is done and
 * the balancer needs each member's own finish time: issued from one thread,
 * a GPU that finished early would look as slow as the CPU it waited for.
 * (CUDA makes its context current in every call, OpenCL queues may be used
 * from any one thread at a time, OpenMP starts a team per calling thread.) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "devset.h"
#include "util.h"

struct devset_thread {
    pthread_t id;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long posted, done; /* batches handed over, and finished */
    int quit;
    int (*fn)(void *ctx, int member);
    void *ctx;
    int rc;
    double busy;
    struct dev *member;
};

/* One member's batch, then its queue finished: the time until then. */
static int batch(struct dev *d, int (*fn)(void *, int), void *ctx, int i, double *busy) {
    const double t0 = clock_now();
    int rc = fn(ctx, i);
    if (!rc) rc = d->ops->finish(d);
    *busy = clock_now() - t0;
    return rc;
}

static void *helper(void *arg) {
    struct devset_thread *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->posted == t->done && !t->quit) pthread_cond_wait(&t->cv, &t->mu);
        if (t->quit) break;
        pthread_mutex_unlock(&t->mu);
        double busy = 0;
        int rc = batch(t->member, t->fn, t->ctx, 1, &busy);
        pthread_mutex_lock(&t->mu);
        t->rc = rc;
        t->busy = busy;
        t->done = t->posted;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static struct devset *set_of(struct dev *d) { return d->ctx; }

static void set_close(struct dev *d) {
    struct devset *s = set_of(d);
    struct devset_thread *t = s->thread;
    if (t) {
        pthread_mutex_lock(&t->mu);
        t->quit = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->id, NULL);
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
        free(t);
    }
    for (int i = 0; i < s->n; i++) dev_close(s->m[i]);
    free(s);
    free(d);
}

static int set_finish(struct dev *d) {
    struct devset *s = set_of(d);
    for (int i = 0; i < s->n; i++)
        if (s->m[i]->ops->finish(s->m[i])) return dev_fail(d, "%s: %s", s->m[i]->info.spec, s->m[i]->err);
    return 0;
}

/* The set's own operations: closing and finishing. Everything else goes to
 * a member (devset_of); an app that would build on the set itself never
 * gets one (devset_invalid). */
static const struct backend_ops devset_ops = {
    .name = DEVSET_BACKEND,
    .close = set_close,
    .finish = set_finish,
    .source_suffix = "",
};

struct devset *devset_of(struct dev *d) {
    return d && d->ops == &devset_ops ? set_of(d) : NULL;
}

struct dev *devset_open(const struct device_info *info, char *err, size_t errn) {
    struct device_info m[DEVSET_MAX];
    if (devset_members(info, m, err, errn)) return NULL;
    struct dev *d = xcalloc(1, sizeof *d);
    struct devset *s = xcalloc(1, sizeof *s);
    d->ops = &devset_ops;
    d->info = *info;
    d->ctx = s;
    for (int i = 0; i < DEVSET_MAX; i++) {
        char e[1024] = "";
        if (!(s->m[i] = dev_open_measuring(&m[i], e, sizeof e))) {
            err_set(err, errn, "%s: %s", m[i].spec, e);
            set_close(d);
            return NULL;
        }
        s->n = i + 1;
    }
    struct devset_thread *t = xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->member = s->m[1];
    if (pthread_create(&t->id, NULL, helper, t)) {
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
        free(t);
        err_set(err, errn, "%s: cannot start the thread that drives %s", info->spec, m[1].spec);
        set_close(d);
        return NULL;
    }
    s->thread = t;
    return d;
}

int devset_parallel(struct dev *set, int (*fn)(void *ctx, int member), void *ctx, double busy[DEVSET_MAX]) {
    struct devset *s = devset_of(set);
    struct devset_thread *t = s->thread;
    pthread_mutex_lock(&t->mu);
    t->fn = fn;
    t->ctx = ctx;
    t->posted++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    const int rc0 = batch(s->m[0], fn, ctx, 0, &busy[0]);
    pthread_mutex_lock(&t->mu);
    while (t->done != t->posted) pthread_cond_wait(&t->cv, &t->mu);
    const int rc1 = t->rc;
    busy[1] = t->busy;
    pthread_mutex_unlock(&t->mu);
    if (rc0) return dev_fail(set, "%s: %s", s->m[0]->info.spec, s->m[0]->err);
    if (rc1) return dev_fail(set, "%s: %s", s->m[1]->info.spec, s->m[1]->err);
    return 0;
}
