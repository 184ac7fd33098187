/* The serial reference, written first and kept simple: the scheme of
 * README.md in the plainest loops, cell-major arrays, each face's flux
 * computed once into a face array and each cell then summing its volume
 * integral and its four faces in one fixed order (rows split among the
 * host's cores: the same bits for any number; below). It shares
 * only dg_phys.h's point physics with the devices' code (dg_cell.h), so a
 * slip in a device's assembly (a sign, an index, a missed term) shows as a
 * difference here; the physics itself is checked by the order of accuracy
 * and conservation tests (tests/unit/test_dg.c). Cached on disk by input
 * and steps (build_cache), made under the config's watchdog. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/build_cache.h"
#include "base/util.h"
#include "dg.h"

/* Bump when the reference's arithmetic changes: it is part of the cache key. */
#define DG_REF_VERSION "dg-reference-3"

#define Q(c, v, k) (((size_t)(c) * DG_NV + (v)) * DG_NB + (k))
#define S(c, a, d, k) ((((size_t)(c) * 3 + (a)) * 2 + (d)) * DG_NB + (k)) /* BR1's gradient of w_a along d */

struct mesh {
    int nx, ny;
    double dx, dy, mu;
};

static long cell(const struct mesh *m, int i, int j) {
    i = (i + m->nx) % m->nx;
    j = (j + m->ny) % m->ny;
    return (long)j * m->nx + i;
}

/* Rows [j0, j1) of a pass run by each of the host's cores (at most 64):
 * every pass writes only its own rows' cells, each cell's arithmetic in one
 * fixed order, so the result is the same to the bit for any number of
 * threads (tests/unit/test_dg.c checks 1, 2 and 3). The seed's case,
 * 2001x2001 for 100 steps, would take about 280 s on one core (estimated
 * from 0.7 us a cell-step measured at 128x128); the reference must not be
 * the call's bottleneck on a GPU host. */
struct rows_job {
    void (*fn)(void *ctx, int part, int j0, int j1);
    void *ctx;
    int part, j0, j1;
};
static void *rows_thread(void *arg) {
    struct rows_job *j = arg;
    j->fn(j->ctx, j->part, j->j0, j->j1);
    return NULL;
}
static int reference_threads(void) {
    const char *env = getenv("DG_REFERENCE_THREADS"); /* tests: fix the count */
    long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}
/* fn(ctx, part, j0, j1): part is the block's number, 0 .. threads - 1. */
static void rows_parallel(int ny, void (*fn)(void *ctx, int part, int j0, int j1), void *ctx) {
    int nt = reference_threads();
    if (nt > ny) nt = ny;
    struct rows_job jobs[64];
    pthread_t tid[64];
    int started[64] = {0};
    for (int t = 0; t < nt; t++) {
        jobs[t] = (struct rows_job){fn, ctx, t, (int)((long)ny * t / nt), (int)((long)ny * (t + 1) / nt)};
        if (t > 0) started[t] = pthread_create(&tid[t], NULL, rows_thread, &jobs[t]) == 0;
    }
    for (int t = 1; t < nt; t++)
        if (!started[t]) rows_thread(&jobs[t]); /* no thread: this one does its rows */
    rows_thread(&jobs[0]);
    for (int t = 1; t < nt; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

static void point(const double *q, long c, double xi, double eta, double out[DG_NV]) {
    for (int v = 0; v < DG_NV; v++) out[v] = q[Q(c, v, 0)] + xi * q[Q(c, v, 1)] + eta * q[Q(c, v, 2)];
}

static void gradient(const double *s, long c, double xi, double eta, double g[DG_NG]) {
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 2; d++) g[2 * a + d] = s[S(c, a, d, 0)] + xi * s[S(c, a, d, 1)] + eta * s[S(c, a, d, 2)];
}

static void w_at(const double *q, long c, double xi, double eta, double w[3]) {
    double p[DG_NV];
    point(q, c, xi, eta, p);
    dg_primitive(p, w);
}

/* BR1: the gradient of w = (u, v, T) in each cell's P1 basis, from the
 * cell's values and the mean of both sides' traces on its faces. */
static void gradients(const struct mesh *m, const double *q, double *s, int j0, int j1) {
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < m->nx; i++) {
            const long c = cell(m, i, j);
            double vol[3] = {0}, r[2][3], l[2][3], t[2][3], b[2][3];
            for (int a = 0; a < 2; a++)
                for (int e = 0; e < 2; e++) {
                    double w[3];
                    w_at(q, c, gp[a], gp[e], w);
                    for (int n = 0; n < 3; n++) vol[n] += w[n];
                }
            for (int g = 0; g < 2; g++) {
                double in[3], out[3];
                w_at(q, c, 1, gp[g], in), w_at(q, cell(m, i + 1, j), -1, gp[g], out);
                for (int n = 0; n < 3; n++) r[g][n] = 0.5 * (in[n] + out[n]);
                w_at(q, c, -1, gp[g], in), w_at(q, cell(m, i - 1, j), 1, gp[g], out);
                for (int n = 0; n < 3; n++) l[g][n] = 0.5 * (in[n] + out[n]);
                w_at(q, c, gp[g], 1, in), w_at(q, cell(m, i, j + 1), gp[g], -1, out);
                for (int n = 0; n < 3; n++) t[g][n] = 0.5 * (in[n] + out[n]);
                w_at(q, c, gp[g], -1, in), w_at(q, cell(m, i, j - 1), gp[g], 1, out);
                for (int n = 0; n < 3; n++) b[g][n] = 0.5 * (in[n] + out[n]);
            }
            for (int n = 0; n < 3; n++) {
                s[S(c, n, 0, 0)] = (r[0][n] + r[1][n] - l[0][n] - l[1][n]) / (2 * m->dx);
                s[S(c, n, 0, 1)] = 3 * (r[0][n] + r[1][n] + l[0][n] + l[1][n] - vol[n]) / (2 * m->dx);
                s[S(c, n, 0, 2)] = 3 * (gp[0] * (r[0][n] - l[0][n]) + gp[1] * (r[1][n] - l[1][n])) / (2 * m->dx);
                s[S(c, n, 1, 0)] = (t[0][n] + t[1][n] - b[0][n] - b[1][n]) / (2 * m->dy);
                s[S(c, n, 1, 1)] = 3 * (gp[0] * (t[0][n] - b[0][n]) + gp[1] * (t[1][n] - b[1][n])) / (2 * m->dy);
                s[S(c, n, 1, 2)] = 3 * (t[0][n] + t[1][n] + b[0][n] + b[1][n] - vol[n]) / (2 * m->dy);
            }
        }
}

/* The total flux (convective less viscous) through a face of normal n at a
 * point, from the states and gradients on both sides. */
static void face_flux(const struct mesh *m, const double ql[DG_NV], const double gl[DG_NG], const double qr[DG_NV],
                      const double gr[DG_NG], double nx, double ny, double f[DG_NV]) {
    dg_rusanov(ql, qr, nx, ny, f);
    if (m->mu == 0) return;
    double vl[DG_NV], vr[DG_NV];
    dg_viscous_flux(ql, gl, m->mu, nx, ny, vl);
    dg_viscous_flux(qr, gr, m->mu, nx, ny, vr);
    for (int v = 0; v < DG_NV; v++) f[v] -= 0.5 * (vl[v] + vr[v]);
}

/* What one residual evaluation reads and writes. */
struct pass {
    const struct mesh *m;
    const double *q;
    double *s, *r, *fx, *fy; /* gradients; dq/dt; each cell's right and top faces' fluxes (v * 2 + g) */
};

static void pass_gradients(void *ctx, int part, int j0, int j1) {
    (void)part;
    const struct pass *p = ctx;
    gradients(p->m, p->q, p->s, j0, j1);
}

/* Each face once: a cell's right face (to e) and top face (to n). */
static void pass_faces(void *ctx, int part, int j0, int j1) {
    (void)part;
    const struct pass *p = ctx;
    const struct mesh *m = p->m;
    const double gp[2] = {-DG_GAUSS, DG_GAUSS}, zero[DG_NG] = {0};
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < m->nx; i++) {
            const long c = cell(m, i, j), e = cell(m, i + 1, j), n = cell(m, i, j + 1);
            for (int g = 0; g < 2; g++) {
                double ql[DG_NV], qr[DG_NV], gl[DG_NG], gr[DG_NG], f[DG_NV];
                point(p->q, c, 1, gp[g], ql), point(p->q, e, -1, gp[g], qr);
                if (m->mu > 0) gradient(p->s, c, 1, gp[g], gl), gradient(p->s, e, -1, gp[g], gr);
                face_flux(m, ql, m->mu > 0 ? gl : zero, qr, m->mu > 0 ? gr : zero, 1, 0, f);
                for (int v = 0; v < DG_NV; v++) p->fx[c * 8 + v * 2 + g] = f[v];
                point(p->q, c, gp[g], 1, ql), point(p->q, n, gp[g], -1, qr);
                if (m->mu > 0) gradient(p->s, c, gp[g], 1, gl), gradient(p->s, n, gp[g], -1, gr);
                face_flux(m, ql, m->mu > 0 ? gl : zero, qr, m->mu > 0 ? gr : zero, 0, 1, f);
                for (int v = 0; v < DG_NV; v++) p->fy[c * 8 + v * 2 + g] = f[v];
            }
        }
}

/* dq/dt of each cell (the mass matrix inverted): its volume integral, then
 * its right, left, top and bottom faces, in that order. */
static void pass_cells(void *ctx, int part, int j0, int j1) {
    (void)part;
    const struct pass *p = ctx;
    const struct mesh *m = p->m;
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < m->nx; i++) {
            const long c = cell(m, i, j), w = cell(m, i - 1, j), so = cell(m, i, j - 1);
            double *r = p->r + c * DG_NC;
            for (int k = 0; k < DG_NC; k++) r[k] = 0;
            for (int a = 0; a < 2; a++)
                for (int e = 0; e < 2; e++) {
                    double q[DG_NV], g[DG_NG], fx[DG_NV], fy[DG_NV];
                    point(p->q, c, gp[a], gp[e], q);
                    dg_euler_flux(q, 1, 0, fx);
                    dg_euler_flux(q, 0, 1, fy);
                    if (m->mu > 0) {
                        double vx[DG_NV], vy[DG_NV];
                        gradient(p->s, c, gp[a], gp[e], g);
                        dg_viscous_flux(q, g, m->mu, 1, 0, vx);
                        dg_viscous_flux(q, g, m->mu, 0, 1, vy);
                        for (int v = 0; v < DG_NV; v++) fx[v] -= vx[v], fy[v] -= vy[v];
                    }
                    for (int v = 0; v < DG_NV; v++) {
                        r[v * DG_NB + 1] += 3 * fx[v] / (2 * m->dx);
                        r[v * DG_NB + 2] += 3 * fy[v] / (2 * m->dy);
                    }
                }
            for (int g = 0; g < 2; g++)
                for (int v = 0; v < DG_NV; v++) {
                    const double right = p->fx[c * 8 + v * 2 + g] / (2 * m->dx);
                    const double left = p->fx[w * 8 + v * 2 + g] / (2 * m->dx);
                    const double top = p->fy[c * 8 + v * 2 + g] / (2 * m->dy);
                    const double bottom = p->fy[so * 8 + v * 2 + g] / (2 * m->dy);
                    r[v * DG_NB] += -right + left - top + bottom;
                    r[v * DG_NB + 1] += -3 * right - 3 * left - 3 * gp[g] * (top - bottom);
                    r[v * DG_NB + 2] += -3 * gp[g] * (right - left) - 3 * top - 3 * bottom;
                }
        }
}

/* r = dq/dt of every cell's coefficients. */
static void residual(const struct mesh *m, const double *q, double *s, double *r, double *fx, double *fy) {
    struct pass p = {m, q, s, r, fx, fy};
    if (m->mu > 0) rows_parallel(m->ny, pass_gradients, &p);
    rows_parallel(m->ny, pass_faces, &p);
    rows_parallel(m->ny, pass_cells, &p);
}

/* The CFL step of the moment: cfl over the largest rate of any cell's
 * mean (a maximum: exact in any order). */
struct rates {
    const struct app_input *in;
    const double *q;
    double most[64];
    int nt;
};
static void pass_rates(void *ctx, int part, int j0, int j1) {
    struct rates *r = ctx;
    double most = 0;
    for (long c = (long)j0 * r->in->nx; c < (long)j1 * r->in->nx; c++) {
        double p[DG_NV];
        for (int v = 0; v < DG_NV; v++) p[v] = r->q[Q(c, v, 0)];
        const double rt = dg_rate(p, r->in->mu, r->in->dx, r->in->dy);
        most = rt > most ? rt : most;
    }
    r->most[part] = most; /* each block's own slot */
}
static double cfl_step(const struct app_input *in, const double *q) {
    struct rates r = {.in = in, .q = q, .nt = reference_threads()};
    if (r.nt > in->ny) r.nt = in->ny;
    rows_parallel(in->ny, pass_rates, &r);
    double most = 0;
    for (int t = 0; t < r.nt; t++) most = r.most[t] > most ? r.most[t] : most;
    return in->cfl / most;
}

/* One Runge-Kutta stage's update, q <- a q0 + b (q + dt r), by rows. */
struct update {
    const struct app_input *in;
    double *q;
    const double *q0, *r;
    double a, b, dt;
};
static void pass_update(void *ctx, int part, int j0, int j1) {
    (void)part;
    const struct update *u = ctx;
    for (size_t i = (size_t)j0 * u->in->nx * DG_NC; i < (size_t)j1 * u->in->nx * DG_NC; i++)
        u->q[i] = u->a * u->q0[i] + u->b * (u->q[i] + u->dt * u->r[i]);
}

double dg_reference_run(const struct app_input *in, double *q) {
    const struct mesh m = {in->nx, in->ny, in->dx, in->dy, in->mu};
    const size_t nc = (size_t)in->nx * in->ny, n = nc * DG_NC;
    double *q0 = xcalloc(n, sizeof(double)), *r = xcalloc(n, sizeof(double));
    double *fx = xcalloc(nc * 8, sizeof(double)), *fy = xcalloc(nc * 8, sizeof(double));
    double *s = in->mu > 0 ? xcalloc(nc * DG_NS, sizeof(double)) : NULL;
    /* SSP-RK3 (Shu-Osher): q <- a q0 + b (q + dt L(q)) per stage. */
    const double a[3] = {0.0, 0.75, 1.0 / 3.0}, b[3] = {1.0, 0.25, 2.0 / 3.0};
    double t = 0;
    for (long step = 0; step < in->iters; step++) {
        const double dt = in->end_time > 0 ? in->end_time / (double)in->iters : cfl_step(in, q);
        memcpy(q0, q, n * sizeof(double));
        for (int st = 0; st < 3; st++) {
            residual(&m, q, s, r, fx, fy);
            struct update u = {in, q, q0, r, a[st], b[st], dt};
            rows_parallel(in->ny, pass_update, &u);
        }
        t += dt;
    }
    free(q0);
    free(r);
    free(fx);
    free(fy);
    free(s);
    return t;
}

static void ref_key(const struct app_input *in, char key[17]) {
    char text[256];
    snprintf(text, sizeof text, "%s %s steps=%ld", DG_REF_VERSION, in->name, in->iters);
    cache_key(key, text, "", NULL, NULL);
}

static void scales(struct app_ref *r) {
    for (int i = 0; i < DG_NC; i++) r->scale[i] = 0;
    for (long c = 0; c < r->ncells; c++)
        for (int i = 0; i < DG_NC; i++) r->scale[i] = fmax(r->scale[i], fabs(r->q[c * DG_NC + i]));
}

struct app_ref *dg_reference(const struct app_input *in, char *err, size_t errn) {
    (void)err;
    (void)errn;
    struct app_ref *r = xcalloc(1, sizeof *r);
    r->ncells = (long)in->nx * in->ny;
    const size_t n = (size_t)r->ncells * DG_NC, bytes = (n + 1) * sizeof(double);
    char key[17];
    ref_key(in, key);
    size_t len = 0;
    double *blob = cache_load(key, ".ref", &len);
    r->q = xcalloc(n, sizeof(double));
    if (blob && len == bytes) {
        memcpy(r->q, blob, n * sizeof(double));
        r->time = blob[n];
    } else {
        memcpy(r->q, in->q0, n * sizeof(double));
        r->time = dg_reference_run(in, r->q);
        free(blob);
        blob = malloc(bytes);
        if (blob) {
            memcpy(blob, r->q, n * sizeof(double));
            blob[n] = r->time;
            cache_store(key, ".ref", blob, bytes);
        }
    }
    free(blob);
    scales(r);
    return r;
}

void dg_ref_free(struct app_ref *r) {
    if (!r) return;
    free(r->q);
    free(r);
}
