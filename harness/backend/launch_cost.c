/* Launch cost: options and the measurement itself (see launch_cost.h). */
#include "backend/launch_cost.h"
#include "backend/compilers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "stats/stats.h"

/* The report's Figure 1 goes up to 32 arguments; denser at the low end,
 * where real kernels live. */
static const int default_counts[] = {0, 1, 2, 4, 8, 12, 16, 24, 32};

void launch_cost_defaults(struct launch_cost_opts *o) {
    memset(o, 0, sizeof *o);
    o->ncounts = (int)(sizeof default_counts / sizeof default_counts[0]);
    memcpy(o->counts, default_counts, sizeof default_counts);
    o->launches = 50000; /* the report's count */
    o->reps = 5;
    o->warmup = 300;
}

const char *launch_cost_kind_name(enum launch_cost_kind k) { return k == LAUNCH_COST_BUFFER ? "buffer" : "int"; }

int launch_cost_parse_counts(const char *list, struct launch_cost_opts *o, char *err, size_t errn) {
    int counts[LAUNCH_COST_MAX_COUNTS], n = 0;
    if (!list || !*list) return err_set(err, errn, "an empty list of argument counts");
    for (const char *p = list;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[32];
        if (len == 0 || len >= sizeof item)
            return err_set(err, errn, "'%.*s' in '%s' is not an argument count", (int)(len < 32 ? len : 32), p, list);
        memcpy(item, p, len);
        item[len] = '\0';
        char *stop;
        errno = 0;
        long v = strtol(item, &stop, 10);
        /* strtol skips leading blanks; a list is digits and commas only. */
        if (*stop || errno || stop == item || !(item[0] == '-' || (item[0] >= '0' && item[0] <= '9')))
            return err_set(err, errn, "'%s' in '%s' is not an argument count", item, list);
        if (v < 0 || v > KARG_MAX)
            return err_set(err, errn, "argument count %ld is outside 0..%d (KARG_MAX)", v, KARG_MAX);
        /* A count twice would be one point measured twice (and one row
         * twice in a run, which the database refuses). */
        for (int i = 0; i < n; i++)
            if (counts[i] == v) return err_set(err, errn, "argument count %ld appears twice in '%s'", v, list);
        if (n == LAUNCH_COST_MAX_COUNTS)
            return err_set(err, errn, "more than %d argument counts in '%s'", LAUNCH_COST_MAX_COUNTS, list);
        counts[n++] = (int)v;
        if (!end) break;
        p = end + 1;
    }
    memcpy(o->counts, counts, (size_t)n * sizeof counts[0]);
    o->ncounts = n;
    return 0;
}

/* One built probe with its arguments, ready to launch. */
struct probe {
    enum launch_cost_kind kind;
    int nargs;
    struct program *prog;
    struct kernel *k;
    struct karg args[KARG_MAX];
};

/* The source goes into the kernel cache folder, named by what it is, and
 * is written through a temporary file and a rename: two harnesses probing
 * at once must never build a half-written file. The backend's own cache
 * then keys the product by the text, so a second run compiles nothing. */
static int write_source(const struct dev *d, const char *text, enum launch_cost_kind kind, int nargs, char *path,
                        size_t n, char *err, size_t errn) {
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    str_fmt(dir, sizeof dir, "%s/launch-cost", cache_dir());
    if (dir_make_p(dir) != 0) return err_set(err, errn, "cannot create %s", dir);
    str_fmt(path, n, "%s/%s-%s-%d%s", dir, d->ops->name, launch_cost_kind_name(kind), nargs,
            d->ops->source_suffix ? d->ops->source_suffix : ".txt");
    str_fmt(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (file_write_all(tmp, text, strlen(text)) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return err_set(err, errn, "cannot write %s", path);
    }
    return 0;
}

static int probe_build(struct dev *d, struct probe *p, struct buf *const *bufs, char *err, size_t errn) {
    char *text = launch_cost_source(d->ops->name, p->kind, p->nargs);
    if (!text) return err_set(err, errn, "%s: no launch-cost probe for the %s backend", d->info.spec, d->ops->name);
    char path[PATH_MAX];
    int rc = write_source(d, text, p->kind, p->nargs, path, sizeof path, err, errn);
    free(text);
    if (rc) return -1;
    p->prog = d->ops->build(d, path, compiler_probe_option());
    p->k = p->prog ? d->ops->kernel(d, p->prog, LAUNCH_COST_KERNEL) : NULL;
    if (!p->k)
        return err_set(err, errn, "%s: building the %d-%s probe %s: %s", d->info.spec, p->nargs,
                       launch_cost_kind_name(p->kind), path, d->err);
    /* Distinct buffers, as an app passes: a driver may track each one. */
    for (int i = 0; i < p->nargs; i++) p->args[i] = p->kind == LAUNCH_COST_BUFFER ? ARG_BUF(bufs[i]) : ARG_INT(i + 1);
    return 0;
}

static const size_t one[2] = {1, 1};

static int launch_n(struct dev *d, const struct probe *p, long n) {
    for (long i = 0; i < n; i++)
        if (d->ops->launch(d, p->k, one, one, p->nargs, p->args) != 0) return -1;
    return 0;
}

/* One repetition of one probe. Buffer probes start from a sentinel in a0
 * and must end with nargs there, proof that the launches ran. */
static int probe_rep(struct dev *d, const struct probe *p, struct buf *a0, long launches, double *enq, double *total,
                     char *err, size_t errn) {
    const int check = p->kind == LAUNCH_COST_BUFFER && p->nargs > 0;
    const float sentinel = -1.0f;
    if ((check && d->ops->write(d, a0, 0, sizeof sentinel, &sentinel) != 0) || d->ops->finish(d) != 0)
        return err_set(err, errn, "%s: %s", d->info.spec, d->err);
    const double t0 = clock_now();
    int rc = launch_n(d, p, launches);
    const double t1 = clock_now();
    rc = rc || d->ops->finish(d);
    const double t2 = clock_now();
    if (rc)
        return err_set(err, errn, "%s: launching the %d-%s probe: %s", d->info.spec, p->nargs,
                       launch_cost_kind_name(p->kind), d->err);
    *enq = t1 - t0;
    *total = t2 - t0;
    float got = sentinel;
    if (check && d->ops->read(d, a0, 0, sizeof got, &got) != 0)
        return err_set(err, errn, "%s: %s", d->info.spec, d->err);
    if (check && got != (float)p->nargs)
        return err_set(err, errn, "%s: the %d-buffer probe's launches left %g in a0, not %d", d->info.spec, p->nargs,
                       (double)got, p->nargs);
    return 0;
}

static int check_opts(const struct launch_cost_opts *o, int maxrows, char *err, size_t errn) {
    if (o->ncounts < 1 || o->ncounts > LAUNCH_COST_MAX_COUNTS)
        return err_set(err, errn, "%d argument counts (1..%d allowed)", o->ncounts, LAUNCH_COST_MAX_COUNTS);
    for (int i = 0; i < o->ncounts; i++)
        if (o->counts[i] < 0 || o->counts[i] > KARG_MAX)
            return err_set(err, errn, "argument count %d is outside 0..%d", o->counts[i], KARG_MAX);
    for (int i = 0; i < o->ncounts; i++)
        for (int j = 0; j < i; j++)
            if (o->counts[i] == o->counts[j])
                return err_set(err, errn, "argument count %d appears twice", o->counts[i]);
    if (o->launches < 1) return err_set(err, errn, "launches must be at least 1 (got %ld)", o->launches);
    if (o->reps < 1 || o->reps > LAUNCH_COST_MAX_REPS)
        return err_set(err, errn, "reps must be 1..%d (got %d)", LAUNCH_COST_MAX_REPS, o->reps);
    if (o->warmup < 0) return err_set(err, errn, "warm-up must not be negative (got %d)", o->warmup);
    if (maxrows < LAUNCH_COST_KINDS * o->ncounts)
        return err_set(err, errn, "room for %d rows, %d needed", maxrows, LAUNCH_COST_KINDS * o->ncounts);
    return 0;
}

static void summarise(struct launch_cost_row *r) {
    const size_t n = (size_t)r->reps;
    r->enqueue_median_s = stats_median(r->enqueue_s, n);
    r->enqueue_q1_s = stats_quantile(r->enqueue_s, n, 0.25);
    r->enqueue_q3_s = stats_quantile(r->enqueue_s, n, 0.75);
    r->total_median_s = stats_median(r->total_s, n);
    r->total_q1_s = stats_quantile(r->total_s, n, 0.25);
    r->total_q3_s = stats_quantile(r->total_s, n, 0.75);
}

int launch_cost_measure(struct dev *d, const struct launch_cost_opts *o, struct launch_cost_row *rows, int maxrows,
                        char *err, size_t errn) {
    if (check_opts(o, maxrows, err, errn) != 0) return -1;
    const int nprobes = LAUNCH_COST_KINDS * o->ncounts;
    int maxn = 1; /* buffer 0 always exists: it carries the sentinel */
    for (int i = 0; i < o->ncounts; i++) maxn = o->counts[i] > maxn ? o->counts[i] : maxn;
    struct buf *bufs[KARG_MAX] = {0};
    struct probe *pr = xcalloc((size_t)nprobes, sizeof *pr);
    int rc = 0;
    static const float zeros[16];
    for (int i = 0; i < maxn && !rc; i++) {
        bufs[i] = d->ops->alloc(d, sizeof zeros);
        rc = !bufs[i] || d->ops->write(d, bufs[i], 0, sizeof zeros, zeros) != 0;
        if (rc) err_set(err, errn, "%s: %s", d->info.spec, d->err);
    }
    /* Every probe is built and warmed up before any is timed: first-launch
     * costs (PoCL compiles per work-group size at the first enqueue, CUDA
     * loads modules lazily) belong to no repetition. */
    for (int i = 0; i < nprobes && !rc; i++) {
        pr[i].kind = i < o->ncounts ? LAUNCH_COST_BUFFER : LAUNCH_COST_INT;
        pr[i].nargs = o->counts[i % o->ncounts];
        rc = probe_build(d, &pr[i], bufs, err, errn);
        if (!rc && (launch_n(d, &pr[i], o->warmup) != 0 || d->ops->finish(d) != 0))
            rc = err_set(err, errn, "%s: warming up the %d-%s probe: %s", d->info.spec, pr[i].nargs,
                         launch_cost_kind_name(pr[i].kind), d->err);
    }
    for (int i = 0; i < nprobes && !rc; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].kind = pr[i].kind;
        rows[i].nargs = pr[i].nargs;
        rows[i].launches = o->launches;
        rows[i].reps = o->reps;
    }
    for (int r = 0; r < o->reps && !rc; r++)
        for (int i = 0; i < nprobes && !rc; i++)
            rc = probe_rep(d, &pr[i], bufs[0], o->launches, &rows[i].enqueue_s[r], &rows[i].total_s[r], err, errn);
    for (int i = 0; i < nprobes && !rc; i++) summarise(&rows[i]);
    for (int i = 0; i < nprobes; i++)
        if (pr[i].prog) d->ops->program_free(d, pr[i].prog);
    for (int i = 0; i < maxn; i++)
        if (bufs[i]) d->ops->buf_free(d, bufs[i]);
    free(pr);
    return rc ? -1 : nprobes;
}

/* ---- rows as text (a probe process sends them to its parent) ---- */

void launch_cost_row_write(FILE *f, const struct launch_cost_row *r) {
    fprintf(f, "row %d %d %ld %d", (int)r->kind, r->nargs, r->launches, r->reps);
    for (int i = 0; i < r->reps; i++) fprintf(f, " %.17g %.17g", r->enqueue_s[i], r->total_s[i]);
    fprintf(f, " %.17g %.17g %.17g %.17g %.17g %.17g\n", r->enqueue_median_s, r->enqueue_q1_s, r->enqueue_q3_s,
            r->total_median_s, r->total_q1_s, r->total_q3_s);
}

int launch_cost_row_read(const char *line, struct launch_cost_row *r) {
    memset(r, 0, sizeof *r);
    int kind, used;
    if (sscanf(line, "row %d %d %ld %d%n", &kind, &r->nargs, &r->launches, &r->reps, &used) != 4) return -1;
    if ((kind != LAUNCH_COST_BUFFER && kind != LAUNCH_COST_INT) || r->reps < 1 || r->reps > LAUNCH_COST_MAX_REPS)
        return -1;
    r->kind = (enum launch_cost_kind)kind;
    const char *p = line + used;
    char *end;
    for (int i = 0; i < r->reps; i++) {
        r->enqueue_s[i] = strtod(p, &end);
        if (end == p) return -1;
        r->total_s[i] = strtod(p = end, &end);
        if (end == p) return -1;
        p = end;
    }
    double *tail[] = {&r->enqueue_median_s, &r->enqueue_q1_s, &r->enqueue_q3_s,
                      &r->total_median_s,   &r->total_q1_s,   &r->total_q3_s};
    for (int i = 0; i < 6; i++) {
        *tail[i] = strtod(p, &end);
        if (end == p) return -1;
        p = end;
    }
    return 0;
}
