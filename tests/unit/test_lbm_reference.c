/* The double-precision LBM reference: conservation on a grid without
 * obstacles, agreement with an independent step-by-step computation written
 * here from apps.md section 1, bit-identical results for any thread count,
 * the on-disk cache, lbm_verify on crafted results, and the Reynolds number. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "lbm.h"

static char tmpdir[] = "/tmp/test_lbm_reference.XXXXXX";

/* An input built by hand: no file, no generator. */
static struct app_input *make_input(int nx, int ny, double density, double accel, double omega) {
    struct app_input *in = xcalloc(1, sizeof *in);
    in->nx = nx;
    in->ny = ny;
    in->iters = in->iters_full = 1;
    in->reynolds_dim = 10;
    in->density = density;
    in->accel = accel;
    in->omega = omega;
    in->obstacles = xcalloc((size_t)nx * (size_t)ny, 1);
    in->fluid_cells = (long)nx * ny;
    snprintf(in->name, sizeof in->name, "hand-%dx%d", nx, ny);
    return in;
}

static void set_obstacle(struct app_input *in, int x, int y) {
    if (!in->obstacles[x + y * in->nx]) in->fluid_cells--;
    in->obstacles[x + y * in->nx] = 1;
}

static double max_abs(const double *x, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* ---- a. conservation ---- */
static void test_rest_and_mass(void) {
    const int nx = 16, ny = 12;
    const size_t n = (size_t)nx * ny;
    struct app_input *in = make_input(nx, ny, 0.1, 0.0, 1.85);
    struct app_ref *r = lbm_reference_compute(in, 200, 1);
    double worst_rho = 0;
    for (size_t i = 0; i < n; i++) worst_rho = fmax(worst_rho, fabs(r->pressure[i] * 3.0 - in->density));
    CHECK(max_abs(r->ux, n) <= 1e-12 && max_abs(r->uy, n) <= 1e-12,
          "rest: no obstacles, accel 0: velocities stay 0 after 200 steps (%g, %g)", max_abs(r->ux, n),
          max_abs(r->uy, n));
    CHECK(worst_rho <= 1e-12, "rest: every cell keeps rho = density (worst %g)", worst_rho);
    CHECK(max_abs(r->av_vels, 200) <= 1e-12, "rest: av_vels stays 0");
    lbm_ref_free(r);

    in->accel = 0.005;
    r = lbm_reference_compute(in, 200, 1);
    double mass = 0;
    for (size_t i = 0; i < n; i++) mass += r->pressure[i] * 3.0;
    CHECK(fabs(mass - (double)n * in->density) <= 1e-9,
          "mass: no obstacles, accel 0.005: sum(pressure*3) = nx*ny*density after 200 steps (%.15g vs %.15g)", mass,
          (double)n * in->density);
    CHECK(r->av_vels[199] > 1e-5 && r->av_vels[199] > r->av_vels[0] && r->av_vels[0] > 0,
          "mass: the flow is driven (av_vels %g -> %g)", r->av_vels[0], r->av_vels[199]);
    /* accelerate_flow pushes east on row ny-2: that row moves east. */
    double row_ux = 0;
    for (int x = 0; x < nx; x++) row_ux += r->ux[x + (ny - 2) * nx];
    CHECK(row_ux > 0, "mass: row ny-2 moves east (sum u_x %g)", row_ux);
    /* Periodic in x with nothing in the way: every cell of a row is the same. */
    int same = 1;
    for (int y = 0; y < ny; y++)
        for (int x = 1; x < nx; x++)
            same &= r->ux[x + y * nx] == r->ux[y * nx] && r->uy[x + y * nx] == r->uy[y * nx] &&
                    r->pressure[x + y * nx] == r->pressure[y * nx];
    CHECK(same, "mass: invariant under x translation (every row uniform)");
    lbm_ref_free(r);
    lbm_input_free(in);
}

/* ---- b. an independent computation, apps.md section 1 in the plainest form ---- */
static const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
static const double weight[9] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

static void macro(const double *f, double *rho, double *ux, double *uy) {
    double r = 0, mx = 0, my = 0;
    for (int k = 0; k < 9; k++) {
        r += f[k];
        mx += ex[k] * f[k];
        my += ey[k] * f[k];
    }
    *rho = r;
    *ux = mx / r;
    *uy = my / r;
}

struct hand {
    double *ux, *uy, *pressure, *av;
};

static struct hand by_hand(const struct app_input *in, int steps) {
    const int nx = in->nx, ny = in->ny;
    const size_t n = (size_t)nx * ny;
    double *f = calloc(9 * n, sizeof *f), *t = calloc(9 * n, sizeof *t);
    struct hand h = {calloc(n, sizeof(double)), calloc(n, sizeof(double)), calloc(n, sizeof(double)),
                     calloc((size_t)steps, sizeof(double))};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 9; k++) f[9 * i + k] = in->density * weight[k];
    for (int step = 0; step < steps; step++) {
        /* 1. accelerate_flow on row ny-2 */
        const double a1 = in->density * in->accel / 9, a2 = in->density * in->accel / 36;
        for (int x = 0; x < nx; x++) {
            double *c = f + 9 * (size_t)(x + (ny - 2) * nx);
            if (in->obstacles[x + (ny - 2) * nx]) continue;
            if (c[3] - a1 > 0 && c[6] - a2 > 0 && c[7] - a2 > 0) {
                c[1] += a1;
                c[5] += a2;
                c[8] += a2;
                c[3] -= a1;
                c[6] -= a2;
                c[7] -= a2;
            }
        }
        /* 2. propagate: speed k arrives from the cell one step against its direction */
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                for (int k = 0; k < 9; k++) {
                    int sx = (x - ex[k] + nx) % nx, sy = (y - ey[k] + ny) % ny;
                    t[9 * (size_t)(x + y * nx) + k] = f[9 * (size_t)(sx + sy * nx) + k];
                }
        /* 3. rebound and 4. collision */
        for (size_t i = 0; i < n; i++) {
            double *c = f + 9 * i, *s = t + 9 * i;
            if (in->obstacles[i]) {
                for (int k = 1; k < 9; k++) c[k] = s[opposite[k]];
                continue;
            }
            double rho, ux, uy;
            macro(s, &rho, &ux, &uy);
            for (int k = 0; k < 9; k++) {
                double eu = ex[k] * ux + ey[k] * uy;
                double eq = weight[k] * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * (ux * ux + uy * uy));
                c[k] = s[k] + in->omega * (eq - s[k]);
            }
        }
        /* 5. av_velocity */
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (in->obstacles[i]) continue;
            double rho, ux, uy;
            macro(f + 9 * i, &rho, &ux, &uy);
            sum += sqrt(ux * ux + uy * uy);
        }
        h.av[step] = sum / (double)in->fluid_cells;
    }
    for (size_t i = 0; i < n; i++) {
        if (in->obstacles[i]) {
            h.pressure[i] = in->density / 3;
            continue;
        }
        double rho;
        macro(f + 9 * i, &rho, &h.ux[i], &h.uy[i]);
        h.pressure[i] = rho / 3;
    }
    free(f);
    free(t);
    return h;
}

static void compare_by_hand(const struct app_input *in, int steps, const char *what) {
    const size_t n = (size_t)in->nx * in->ny;
    struct hand h = by_hand(in, steps);
    struct app_ref *r = lbm_reference_compute(in, steps, 1);
    double dux = 0, duy = 0, dp = 0, dav = 0;
    for (size_t i = 0; i < n; i++) {
        dux = fmax(dux, fabs(h.ux[i] - r->ux[i]));
        duy = fmax(duy, fabs(h.uy[i] - r->uy[i]));
        dp = fmax(dp, fabs(h.pressure[i] - r->pressure[i]));
    }
    for (int s = 0; s < steps; s++) dav = fmax(dav, fabs(h.av[s] - r->av_vels[s]));
    CHECK(dux <= 1e-12 && duy <= 1e-12 && dp <= 1e-12,
          "%s, %d step%s: u_x, u_y, pressure of every cell match (%.2g %.2g %.2g)", what, steps, steps == 1 ? "" : "s",
          dux, duy, dp);
    CHECK(dav <= 1e-12, "%s, %d step%s: av_vels match (%.2g)", what, steps, steps == 1 ? "" : "s", dav);
    /* Not a vacuous match: the state has moved. */
    CHECK(max_abs(h.ux, n) > 1e-7 && h.av[steps - 1] > 1e-7, "%s: the by-hand flow is nonzero (max |u_x| %g)", what,
          max_abs(h.ux, n));
    free(h.ux);
    free(h.uy);
    free(h.pressure);
    free(h.av);
    lbm_ref_free(r);
}

static void test_by_hand(void) {
    /* 4x4, one obstacle at (1, 1); accel large enough to move things. */
    struct app_input *in = make_input(4, 4, 0.1, 0.05, 1.7);
    set_obstacle(in, 1, 1);
    compare_by_hand(in, 1, "4x4 with one obstacle");
    compare_by_hand(in, 5, "4x4 with one obstacle");
    /* After 5 steps the obstacle reports 0 velocity and density/3. */
    struct app_ref *r = lbm_reference_compute(in, 5, 1);
    CHECK(r->ux[1 + 4] == 0 && r->uy[1 + 4] == 0 && r->pressure[1 + 4] == in->density / 3,
          "obstacle cell reports u = 0 and pressure = density/3");
    lbm_ref_free(r);
    lbm_input_free(in);
    /* Not square, obstacles on the accelerated row and in a corner: a
     * swapped nx/ny or a wrong wrap-around shows here. */
    in = make_input(5, 4, 0.1, 0.05, 1.85);
    set_obstacle(in, 0, 0);
    set_obstacle(in, 3, 2);
    set_obstacle(in, 4, 3);
    compare_by_hand(in, 7, "5x4 with three obstacles");
    lbm_input_free(in);
}

/* ---- c. threads ---- */
static void test_threads(void) {
    char err[512];
    struct app_opts o = {.input = "gen:96x96"};
    struct app_input *in = lbm_input_load(&o, err, sizeof err);
    CHECK(in != NULL, "threads: gen:96x96 (%s)", in ? "" : err);
    if (!in) return;
    const size_t n = 96 * 96;
    struct app_ref *a = lbm_reference_compute(in, 50, 1), *b = lbm_reference_compute(in, 50, 3),
                   *c = lbm_reference_compute(in, 50, 2);
    CHECK(memcmp(a->av_vels, b->av_vels, 50 * sizeof(double)) == 0 && memcmp(a->ux, b->ux, n * sizeof(double)) == 0 &&
              memcmp(a->uy, b->uy, n * sizeof(double)) == 0 &&
              memcmp(a->pressure, b->pressure, n * sizeof(double)) == 0,
          "threads: 1 and 3 threads bit-identical on 96x96, 50 steps");
    CHECK(memcmp(a->av_vels, c->av_vels, 50 * sizeof(double)) == 0 && memcmp(a->ux, c->ux, n * sizeof(double)) == 0,
          "threads: 1 and 2 threads bit-identical");
    CHECK(a->av_vels[49] > 0 && max_abs(a->ux, n) > 0, "threads: the compared flow is nonzero");
    lbm_ref_free(c);

    /* The cached reference (lbm_reference, in->iters steps) equals the computed one. */
    in->iters = 50;
    struct app_ref *first = lbm_reference(in, err, sizeof err), *again = lbm_reference(in, err, sizeof err);
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "ls '%s'/*.ref >/dev/null 2>&1", tmpdir);
    CHECK(system(probe) == 0, "cache: lbm_reference stored a .ref file under HARNESS_CACHE");
    CHECK(first && again && memcmp(first->av_vels, a->av_vels, 50 * sizeof(double)) == 0 &&
              memcmp(again->av_vels, a->av_vels, 50 * sizeof(double)) == 0 &&
              memcmp(again->ux, a->ux, n * sizeof(double)) == 0 && memcmp(again->uy, a->uy, n * sizeof(double)) == 0 &&
              memcmp(again->pressure, a->pressure, n * sizeof(double)) == 0,
          "cache: computed and reloaded references equal lbm_reference_compute");
    lbm_ref_free(first);
    lbm_ref_free(again);
    /* The key carries the reference's own source as it is now (reference.c and
     * lbm.h, hashed as the Makefile hashes them): an edited reference is
     * rebuilt with a new hash and never served what its older self cached. */
    char key[512], now[64] = "";
    lbm_reference_key_text(in, key, sizeof key);
    FILE *ck = popen("cat kernels/lbm/reference.c kernels/lbm/lbm.h | cksum | cut -d' ' -f1", "r");
    if (ck) {
        if (!fgets(now, sizeof now, ck)) now[0] = '\0';
        pclose(ck);
    }
    now[strcspn(now, "\n")] = '\0';
    char want[80];
    snprintf(want, sizeof want, "|%s|", now);
    CHECK(now[0] && strstr(key, want), "cache: the key names the reference's current source (%s in '%s')", now, key);
    /* Another accel must not be served the cached answer. */
    in->accel = 0.01;
    struct app_ref *other = lbm_reference(in, err, sizeof err), *other_c = lbm_reference_compute(in, 50, 1);
    CHECK(other && memcmp(other->av_vels, other_c->av_vels, 50 * sizeof(double)) == 0 &&
              other->av_vels[49] != a->av_vels[49],
          "cache: a different accel gets its own reference");
    lbm_ref_free(other);
    lbm_ref_free(other_c);
    /* Nor another obstacle layout of the same size. */
    in->accel = 0.005;
    in->obstacles[40 + 40 * 96] = 1;
    in->fluid_cells--;
    other = lbm_reference(in, err, sizeof err);
    other_c = lbm_reference_compute(in, 50, 1);
    CHECK(other && memcmp(other->ux, other_c->ux, n * sizeof(double)) == 0 && other->ux[40 + 40 * 96] == 0,
          "cache: a different obstacle layout gets its own reference");
    lbm_ref_free(other);
    lbm_ref_free(other_c);
    lbm_ref_free(a);
    lbm_ref_free(b);
    lbm_input_free(in);
}

/* ---- d. lbm_verify on crafted results, lbm_reynolds ---- */

/* A float cell whose moments are (rho, rho*ux, rho*uy): the equilibrium. */
static void equilibrium(float *s, double rho, double ux, double uy) {
    for (int k = 0; k < 9; k++) {
        double eu = ex[k] * ux + ey[k] * uy;
        s[k] = (float)(weight[k] * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * (ux * ux + uy * uy)));
    }
}

static struct app_result *result_from(const struct app_input *in, const struct app_ref *r) {
    const size_t n = (size_t)in->nx * in->ny;
    struct app_result *res = xcalloc(1, sizeof *res);
    res->iters = r->iters;
    res->nx = in->nx;
    res->ny = in->ny;
    res->av_vels = xcalloc((size_t)r->iters, sizeof(double));
    memcpy(res->av_vels, r->av_vels, (size_t)r->iters * sizeof(double));
    res->cells = xcalloc(9 * n, sizeof(float));
    for (size_t i = 0; i < n; i++) equilibrium(res->cells + 9 * i, r->pressure[i] * 3, r->ux[i], r->uy[i]);
    return res;
}

static void test_verify(void) {
    char err[512];
    struct app_opts o = {.input = "gen:32x16", .iters = 60};
    struct app_input *in = lbm_input_load(&o, err, sizeof err);
    if (!in) {
        CHECK(0, "verify: gen:32x16 (%s)", err);
        return;
    }
    struct app_ref *r = lbm_reference_compute(in, 60, 1);
    struct measurement m;

    struct app_result *res = result_from(in, r);
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_OK && m.max_rel_err < 1e-4 && m.tolerance == 1e-2,
          "verify: the reference itself (as float equilibria) verifies (err %g)", m.max_rel_err);
    CHECK(fabs(m.result - lbm_reynolds(in, r->av_vels[59])) <= 1e-12 * m.result && m.result > 0,
          "verify: result is the Reynolds number of the last av_vels (%g)", m.result);

    /* One cell's u_x off by 5 % of the field's scale. */
    const int x = 10, y = 7;
    const size_t i = (size_t)(x + y * in->nx);
    const double scale = max_abs(r->ux, (size_t)in->nx * in->ny);
    equilibrium(res->cells + 9 * i, r->pressure[i] * 3, r->ux[i] + 0.05 * scale, r->uy[i]);
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "u_x") && strstr(m.reason, "(10, 7)"),
          "verify: u_x of one cell 5%% off is wrong, named with its cell (%s)", m.reason);
    lbm_result_free(res);

    /* Pressure of one cell 2 % high. */
    res = result_from(in, r);
    equilibrium(res->cells + 9 * i, r->pressure[i] * 3 * 1.02, r->ux[i], r->uy[i]);
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "pressure"), "verify: pressure 2%% high is wrong (%s)", m.reason);
    lbm_result_free(res);

    /* Half a percent is within the 1 % tolerance. */
    res = result_from(in, r);
    equilibrium(res->cells + 9 * i, r->pressure[i] * 3 * 1.005, r->ux[i], r->uy[i]);
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_OK, "verify: pressure 0.5%% high is within tolerance (err %g)", m.max_rel_err);
    lbm_result_free(res);

    /* One step's av_vels 2 % off. */
    res = result_from(in, r);
    res->av_vels[17] *= 1.02;
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_WRONG && strstr(m.reason, "av_vels step 17"), "verify: av_vels step 17 2%% off (%s)",
          m.reason);
    lbm_result_free(res);

    /* A NaN anywhere in a fluid cell is wrong. */
    res = result_from(in, r);
    res->cells[9 * i + 4] = NAN;
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_WRONG, "verify: a NaN cell is wrong (%s)", m.reason);
    lbm_result_free(res);
    res = result_from(in, r);
    res->av_vels[59] = NAN;
    memset(&m, 0, sizeof m);
    lbm_verify(in, r, res, &m);
    CHECK(m.status == ST_WRONG, "verify: a NaN av_vels is wrong (%s)", m.reason);
    lbm_result_free(res);

    lbm_ref_free(r);
    lbm_input_free(in);

    /* Reynolds number = av * reynolds_dim / (1/6 (2/omega - 1)). */
    struct app_input *h = make_input(4, 4, 0.1, 0.005, 1.85);
    const double re = lbm_reynolds(h, 0.01), want = 0.01 * 10 / ((2 / 1.85 - 1) / 6);
    CHECK(fabs(re - want) <= 1e-12 * want && fabs(re - 7.4) < 1e-9, "reynolds: omega 1.85, dim 10, av 0.01 -> %.12g",
          re);
    h->omega = 1.0;
    h->reynolds_dim = 128;
    CHECK(fabs(lbm_reynolds(h, 0.002) - 0.002 * 128 * 6) < 1e-12, "reynolds: omega 1, dim 128, av 0.002 -> 1.536");
    lbm_input_free(h);
}

int main(void) {
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("HARNESS_CACHE", tmpdir, 1); /* lbm_reference's cache, private to this test */
    test_rest_and_mass();
    test_by_hand();
    test_threads();
    test_verify();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
