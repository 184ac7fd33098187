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

#include "base/util.h"
#include "core/devset.h"

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

/* Everything but closing and finishing goes to a member (devset_of); an app
 * that would build on the set itself never gets one (devset_invalid), and a
 * command that measures one device gets this reason. */
#define ONE_DEVICE "%s is a device set: this measures one device (name its members one by one)"
static struct program *set_build(struct dev *d, const char *source, const char *options) {
    (void)source, (void)options;
    dev_fail(d, ONE_DEVICE, d->info.spec);
    return NULL;
}
static void set_program_free(struct dev *d, struct program *p) { (void)d, (void)p; }
static struct kernel *set_kernel(struct dev *d, struct program *p, const char *name) {
    (void)p, (void)name;
    dev_fail(d, ONE_DEVICE, d->info.spec);
    return NULL;
}
static struct buf *set_alloc(struct dev *d, size_t bytes) {
    (void)bytes;
    dev_fail(d, ONE_DEVICE, d->info.spec);
    return NULL;
}
static void set_buf_free(struct dev *d, struct buf *b) { (void)d, (void)b; }
static int set_write(struct dev *d, struct buf *b, size_t offset, size_t bytes, const void *src) {
    (void)b, (void)offset, (void)bytes, (void)src;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static int set_read(struct dev *d, struct buf *b, size_t offset, size_t bytes, void *dst) {
    (void)b, (void)offset, (void)bytes, (void)dst;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static int set_copy(struct dev *d, struct buf *dst, struct buf *src, size_t bytes) {
    (void)dst, (void)src, (void)bytes;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static int set_launch(struct dev *d, struct kernel *k, const size_t global[2], const size_t local[2], int nargs,
                      const struct karg *args) {
    (void)k, (void)global, (void)local, (void)nargs, (void)args;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static int set_mark(struct dev *d, int slot) {
    (void)slot;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static int set_elapsed(struct dev *d, double *seconds) {
    *seconds = 0;
    return dev_fail(d, ONE_DEVICE, d->info.spec);
}
static void set_caps(struct device_info *info) { memset(&info->caps, 0, sizeof info->caps); }

const struct backend_ops devset_backend = {
    .name = DEVSET_BACKEND,
    .list = NULL, /* sets are named (A+B), never listed */
    .open = devset_open,
    .close = set_close,
    .build = set_build,
    .program_free = set_program_free,
    .kernel = set_kernel,
    .alloc = set_alloc,
    .buf_free = set_buf_free,
    .write = set_write,
    .read = set_read,
    .copy = set_copy,
    .launch = set_launch,
    .finish = set_finish,
    .mark = set_mark,
    .elapsed = set_elapsed,
    .source_suffix = "",
    .caps = set_caps,
};

struct devset *devset_of(struct dev *d) {
    return d && d->ops == &devset_backend ? set_of(d) : NULL;
}

struct dev *devset_open(const struct device_info *info, char *err, size_t errn) {
    struct device_info m[DEVSET_MAX];
    if (devset_members(info, m, err, errn)) return NULL;
    /* OpenMP's idle threads spin by default (libgomp: about 300k polls
     * after each parallel region), on the very cores the partner needs: a
     * GPU's launching thread, or PoCL's workers. Measured on 2 cores, PoCL +
     * OpenMP at split 0.3, 256x256, 1000 steps: 544 ms median and an IQR of
     * 1.4 s spinning, 105 ms and 31 ms sleeping. Set before the OpenMP
     * kernels load libgomp (this worker runs this set alone); a policy the
     * user set stays. */
    setenv("OMP_WAIT_POLICY", "passive", 0);
    struct dev *d = xcalloc(1, sizeof *d);
    struct devset *s = xcalloc(1, sizeof *s);
    d->ops = &devset_backend;
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
