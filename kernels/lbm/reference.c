/* The serial reference: the coursework's D2Q9 algorithm in plain C, in
 * double precision, step by step in the order of apps.md (accelerate_flow,
 * propagate, rebound, collision, av_velocity).
 *
 * Large grids (1024x1024 x 20000 steps) take minutes on one core, so the
 * rows of each phase may be shared out to threads. Each row is computed by
 * exactly the serial code and the av_velocity sum is formed per row and then
 * added in row order, so the result is bit-identical for any thread count
 * (tests/unit/test_lbm_reference.c checks this). Results are cached on disk. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/build_cache.h"
#include "base/util.h"
#include "lbm.h"

struct ref_state {
    const struct app_input *in;
    double *cells, *next; /* AoS, 9 per cell: this step's and the next's */
    double *row_u;        /* per-row sums of |u| for the current step */
    long iters;
    double *av_vels;
    int threads;
    pthread_barrier_t barrier;
};

static void accelerate_flow(struct ref_state *s) {
    const struct app_input *in = s->in;
    const double w1 = in->density * in->accel / 9.0, w2 = in->density * in->accel / 36.0;
    const int jj = in->ny - 2;
    for (int ii = 0; ii < in->nx; ii++) {
        double *c = s->cells + 9 * (size_t)(ii + jj * in->nx);
        if (!in->obstacles[ii + jj * in->nx] && c[3] - w1 > 0.0 && c[6] - w2 > 0.0 && c[7] - w2 > 0.0) {
            c[1] += w1;
            c[5] += w2;
            c[8] += w2;
            c[3] -= w1;
            c[6] -= w2;
            c[7] -= w2;
        }
    }
}

/* One step for rows [y0, y1): each cell pulls its nine values from the
 * neighbours in `cells` (propagate), bounces them back on obstacles or
 * relaxes them (rebound, collision) into `next`, and its speed joins the
 * row's sum (av_velocity). One pass over memory instead of the three phases
 * of the serial program; the per-row sums of |u| are added in row order. */
static void step_rows(struct ref_state *s, int y0, int y1) {
    const struct app_input *in = s->in;
    const int nx = in->nx, ny = in->ny;
    const double w0 = 4.0 / 9.0, w1 = 1.0 / 9.0, w2 = 1.0 / 36.0, omega = in->omega;
    const double *cells = s->cells;
    for (int jj = y0; jj < y1; jj++) {
        const int y_n = (jj + 1) % ny, y_s = (jj == 0) ? ny - 1 : jj - 1;
        double sum = 0.0;
        for (int ii = 0; ii < nx; ii++) {
            const int x_e = (ii + 1) % nx, x_w = (ii == 0) ? nx - 1 : ii - 1;
            const size_t i = (size_t)(ii + jj * nx);
            double t[9];
            t[0] = cells[9 * i + 0];
            t[1] = cells[9 * (size_t)(x_w + jj * nx) + 1];
            t[2] = cells[9 * (size_t)(ii + y_s * nx) + 2];
            t[3] = cells[9 * (size_t)(x_e + jj * nx) + 3];
            t[4] = cells[9 * (size_t)(ii + y_n * nx) + 4];
            t[5] = cells[9 * (size_t)(x_w + y_s * nx) + 5];
            t[6] = cells[9 * (size_t)(x_e + y_s * nx) + 6];
            t[7] = cells[9 * (size_t)(x_e + y_n * nx) + 7];
            t[8] = cells[9 * (size_t)(x_w + y_n * nx) + 8];
            double *c = s->next + 9 * i;
            if (in->obstacles[i]) {
                c[0] = t[0];
                c[1] = t[3];
                c[2] = t[4];
                c[3] = t[1];
                c[4] = t[2];
                c[5] = t[7];
                c[6] = t[8];
                c[7] = t[5];
                c[8] = t[6];
                continue;
            }
            double rho = 0.0;
            for (int k = 0; k < 9; k++) rho += t[k];
            const double inv_rho = 1.0 / rho;
            const double ux = (t[1] + t[5] + t[8] - (t[3] + t[6] + t[7])) * inv_rho;
            const double uy = (t[2] + t[5] + t[6] - (t[4] + t[7] + t[8])) * inv_rho;
            /* d_eq = w rho (1 + u/c_sq + u^2/(2 c_sq^2) - |u|^2/(2 c_sq)) with
             * c_sq = 1/3 written as the exact factors 3, 4.5 and 1.5: no
             * division in the loop (a few ulp from dividing by the rounded 1/3,
             * far below anything verification can see). */
            const double base = 1.0 - 1.5 * (ux * ux + uy * uy);
            const double u[9] = {0, ux, uy, -ux, -uy, ux + uy, -ux + uy, -ux - uy, ux - uy};
            const double wr[3] = {w0 * rho, w1 * rho, w2 * rho};
            for (int k = 0; k < 9; k++) {
                const double eq = wr[k == 0 ? 0 : k < 5 ? 1 : 2] * (base + u[k] * (3.0 + 4.5 * u[k]));
                c[k] = t[k] + omega * (eq - t[k]);
            }
            /* av_velocity, from the relaxed values as the serial program reads them */
            double r2 = 0.0;
            for (int k = 0; k < 9; k++) r2 += c[k];
            const double inv_r2 = 1.0 / r2;
            const double vx = (c[1] + c[5] + c[8] - (c[3] + c[6] + c[7])) * inv_r2;
            const double vy = (c[2] + c[5] + c[6] - (c[4] + c[7] + c[8])) * inv_r2;
            sum += sqrt(vx * vx + vy * vy);
        }
        s->row_u[jj] = sum;
    }
}

struct worker {
    struct ref_state *s;
    int id;
};

static void rows_of(const struct ref_state *s, int id, int *y0, int *y1) {
    const int ny = s->in->ny, per = (ny + s->threads - 1) / s->threads;
    *y0 = id * per < ny ? id * per : ny;
    *y1 = (id + 1) * per < ny ? (id + 1) * per : ny;
}

static void *worker_run(void *arg) {
    struct worker *w = arg;
    struct ref_state *s = w->s;
    int y0, y1;
    rows_of(s, w->id, &y0, &y1);
    for (long t = 0; t < s->iters; t++) {
        if (w->id == 0) accelerate_flow(s);
        pthread_barrier_wait(&s->barrier);
        step_rows(s, y0, y1);
        pthread_barrier_wait(&s->barrier);
        if (w->id == 0) { /* the others wait at the next step's first barrier */
            double tot = 0.0;
            for (int jj = 0; jj < s->in->ny; jj++) tot += s->row_u[jj]; /* fixed order */
            s->av_vels[t] = tot / (double)s->in->fluid_cells;
            double *swap = s->cells;
            s->cells = s->next;
            s->next = swap;
        }
    }
    return NULL;
}

struct app_ref *lbm_reference_compute(const struct app_input *in, long iters, int threads) {
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    struct ref_state s = {.in = in, .iters = iters};
    s.cells = xcalloc(9 * n, sizeof *s.cells);
    s.next = xcalloc(9 * n, sizeof *s.next);
    s.row_u = xcalloc((size_t)in->ny, sizeof *s.row_u);
    s.av_vels = xcalloc((size_t)iters, sizeof *s.av_vels);
    for (size_t i = 0; i < n; i++) {
        double *c = s.cells + 9 * i;
        c[0] = in->density * 4.0 / 9.0;
        c[1] = c[2] = c[3] = c[4] = in->density / 9.0;
        c[5] = c[6] = c[7] = c[8] = in->density / 36.0;
    }
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 0 ? (int)cpus : 1;
    }
    if (threads > in->ny) threads = in->ny;
    if (n < 4096) threads = 1; /* barriers would cost more than the rows */
    s.threads = threads;
    pthread_barrier_init(&s.barrier, NULL, (unsigned)threads);
    pthread_t *th = xcalloc((size_t)threads, sizeof *th);
    struct worker *w = xcalloc((size_t)threads, sizeof *w);
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){&s, i};
        if (i) pthread_create(&th[i], NULL, worker_run, &w[i]);
    }
    worker_run(&w[0]);
    for (int i = 1; i < threads; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&s.barrier);
    free(th);
    free(w);

    struct app_ref *r = xcalloc(1, sizeof *r);
    r->iters = iters;
    r->av_vels = s.av_vels;
    r->ux = xcalloc(n, sizeof *r->ux);
    r->uy = xcalloc(n, sizeof *r->uy);
    r->pressure = xcalloc(n, sizeof *r->pressure);
    for (size_t i = 0; i < n; i++) {
        if (in->obstacles[i]) {
            r->pressure[i] = in->density / 3.0;
            continue;
        }
        const double *c = s.cells + 9 * i;
        double rho = 0.0;
        for (int k = 0; k < 9; k++) rho += c[k];
        r->ux[i] = (c[1] + c[5] + c[8] - (c[3] + c[6] + c[7])) / rho;
        r->uy[i] = (c[2] + c[5] + c[6] - (c[4] + c[7] + c[8])) / rho;
        r->pressure[i] = rho / 3.0;
    }
    free(s.cells);
    free(s.next);
    free(s.row_u);
    return r;
}

/* The source of this reference (this file and lbm.h), hashed by the Makefile
 * when it compiles this file: an edited reference never reuses what its older
 * self stored in the cache. */
#ifndef LBM_REFERENCE_SOURCE
#error "build with -DLBM_REFERENCE_SOURCE (the Makefile's hash of reference.c and lbm.h)"
#endif

void lbm_reference_key_text(const struct app_input *in, char *buf, size_t n) {
    snprintf(buf, n, "lbm-ref-v1|%s|%d|%d|%ld|%.17g|%.17g|%.17g", LBM_REFERENCE_SOURCE, in->nx, in->ny, in->iters,
             in->density, in->accel, in->omega);
}

/* The cache key: everything the reference depends on, its own code included. */
static void ref_key(const struct app_input *in, char key[17]) {
    char params[256];
    lbm_reference_key_text(in, params, sizeof params);
    uint64_t h = hash_fnv1a(in->obstacles, (size_t)in->nx * (size_t)in->ny, 0);
    char obst[32];
    snprintf(obst, sizeof obst, "%016llx", (unsigned long long)h);
    cache_key(key, params, obst, NULL, NULL);
}

struct app_ref *lbm_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    const size_t n = (size_t)in->nx * (size_t)in->ny;
    const size_t bytes = ((size_t)in->iters + 3 * n) * sizeof(double);
    char key[17];
    ref_key(in, key);
    size_t len = 0;
    double *blob = cache_load(key, ".ref", &len);
    struct app_ref *r;
    if (blob && len == bytes) {
        r = xcalloc(1, sizeof *r);
        r->iters = in->iters;
        r->av_vels = xcalloc((size_t)in->iters, sizeof(double));
        r->ux = xcalloc(n, sizeof(double));
        r->uy = xcalloc(n, sizeof(double));
        r->pressure = xcalloc(n, sizeof(double));
        memcpy(r->av_vels, blob, (size_t)in->iters * sizeof(double));
        memcpy(r->ux, blob + in->iters, n * sizeof(double));
        memcpy(r->uy, blob + in->iters + n, n * sizeof(double));
        memcpy(r->pressure, blob + in->iters + 2 * n, n * sizeof(double));
        free(blob);
        return r;
    }
    free(blob);
    r = lbm_reference_compute(in, in->iters, 0);
    blob = malloc(bytes);
    if (blob) {
        memcpy(blob, r->av_vels, (size_t)in->iters * sizeof(double));
        memcpy(blob + in->iters, r->ux, n * sizeof(double));
        memcpy(blob + in->iters + n, r->uy, n * sizeof(double));
        memcpy(blob + in->iters + 2 * n, r->pressure, n * sizeof(double));
        cache_store(key, ".ref", blob, bytes);
        free(blob);
    }
    return r;
}

void lbm_ref_free(struct app_ref *r) {
    if (!r) return;
    free(r->av_vels);
    free(r->ux);
    free(r->uy);
    free(r->pressure);
    free(r);
}
