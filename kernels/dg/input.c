/* DG inputs: Yee's isentropic vortex on the periodic square [0, 10]^2,
 * generated on the host. "yee:N" is N x N cells of the Euler equations
 * (viscosity 0); "yee:NXxNY" another mesh; options follow, each ":name=v":
 *   re=R    Navier-Stokes at Reynolds number R (mu = 1 / R: the free
 *           stream's density and speed scale 1, the vortex's radius 1)
 *   t=T     run to the time T in equal steps, dt = T / ceil(T rate0 / cfl)
 *           (rate0 the initial state's largest dg_rate), instead of steps
 *           each of whose dt is the CFL step of the moment
 *   cfl=C   the CFL number (default 0.2; at most DG_CFL_MAX)
 * The vortex: centre (5, 5), strength beta = 5, gamma = 1.4, free stream
 * rho = 1, p = 1, (u, v) = (1, 1). The exact solution at time t is the
 * vortex carried to (5 + t, 5 + t), wrapped; the square is not quite
 * periodic for it (the perturbation at the edge is about e^-12 of its
 * peak, 2e-5 of the velocity), which is far below every error measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "dg.h"

static const char *USAGE = "expected yee:N or yee:NXxNY, then any of :re=R :t=T :cfl=C (e.g. yee:2001, yee:64:re=100:t=2)";

/* "64" or "64x32": 0, or -1 with err filled. */
static int parse_mesh(const char *text, const char *part, int *nx, int *ny, char *err, size_t errn) {
    char a[16] = "", b[16] = "";
    const char *x = strchr(part, 'x');
    const size_t la = x ? (size_t)(x - part) : strlen(part);
    if (la == 0 || la >= sizeof a || (x && (strlen(x + 1) == 0 || strlen(x + 1) >= sizeof b)))
        return err_set(err, errn, "dg input '%s': %s", text, USAGE);
    memcpy(a, part, la);
    if (x) strcpy(b, x + 1);
    long v[2];
    if (parse_whole(a, 0, 1L << 30, &v[0]) || parse_whole(x ? b : a, 0, 1L << 30, &v[1]))
        return err_set(err, errn, "dg input '%s': '%s' is not a mesh of whole numbers: %s", text, part, USAGE);
    for (int i = 0; i < 2; i++)
        if (v[i] < DG_MIN_SIDE || v[i] > DG_MAX_SIDE)
            return err_set(err, errn,
                           "dg input '%s': %ld cells along a side; from %d (a cell's two neighbours along each axis "
                           "distinct from it and from each other on the periodic mesh) to %d",
                           text, v[i], DG_MIN_SIDE, DG_MAX_SIDE);
    *nx = (int)v[0];
    *ny = (int)v[1];
    return 0;
}

int dg_parse_input(const char *text, struct app_input *in, char *err, size_t errn) {
    if (strncmp(text, "yee:", 4) != 0) return err_set(err, errn, "dg input '%s': %s", text, USAGE);
    char buf[128];
    if (strlen(text) >= sizeof buf) return err_set(err, errn, "dg input '%.40s...': too long", text);
    strcpy(buf, text + 4);
    in->cfl = DG_CFL;
    char *save = NULL;
    char *part = strtok_r(buf, ":", &save);
    if (!part || parse_mesh(text, part, &in->nx, &in->ny, err, errn)) return part ? -1 : err_set(err, errn, "dg input '%s': %s", text, USAGE);
    int seen_re = 0, seen_t = 0, seen_cfl = 0;
    while ((part = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(part, '=');
        if (!eq) return err_set(err, errn, "dg input '%s': '%s' is not name=value: %s", text, part, USAGE);
        *eq = '\0';
        const char *name = part, *value = eq + 1;
        double v;
        if (strcmp(name, "re") == 0 && !seen_re++) {
            if (parse_real(value, 1e-300, 1e300, &v))
                return err_set(err, errn, "dg input '%s': re=%s: the Reynolds number must be a number above 0", text,
                               value);
            in->re = v;
        } else if (strcmp(name, "t") == 0 && !seen_t++) {
            if (parse_real(value, 1e-300, 1e6, &v))
                return err_set(err, errn, "dg input '%s': t=%s: the end time must be a number above 0, at most 1e6",
                               text, value);
            in->end_time = v;
        } else if (strcmp(name, "cfl") == 0 && !seen_cfl++) {
            if (parse_real(value, 1e-300, 1e300, &v))
                return err_set(err, errn, "dg input '%s': cfl=%s: the CFL number must be a number above 0", text,
                               value);
            if (v > DG_CFL_MAX)
                return err_set(err, errn,
                               "dg input '%s': cfl=%s diverges: P1 DG with 3rd-order Runge-Kutta is stable up to "
                               "cfl=%.2f in this step's measure (kernels/dg/README.md)",
                               text, value, DG_CFL_MAX);
            in->cfl = v;
        } else {
            return err_set(err, errn, "dg input '%s': '%s' is unknown or given twice: %s", text, name, USAGE);
        }
    }
    in->mu = in->re > 0 ? 1.0 / in->re : 0.0;
    in->dx = DG_SIDE / in->nx;
    in->dy = DG_SIDE / in->ny;
    /* The canonical name: the mesh as N when square, options in one order. */
    int n = in->nx == in->ny ? snprintf(in->name, sizeof in->name, "yee:%d", in->nx)
                             : snprintf(in->name, sizeof in->name, "yee:%dx%d", in->nx, in->ny);
    if (in->re > 0) n += snprintf(in->name + n, sizeof in->name - (size_t)n, ":re=%g", in->re);
    if (in->end_time > 0) n += snprintf(in->name + n, sizeof in->name - (size_t)n, ":t=%g", in->end_time);
    if (seen_cfl) snprintf(in->name + n, sizeof in->name - (size_t)n, ":cfl=%g", in->cfl);
    return 0;
}

void dg_exact(double t, double x, double y, double q[DG_NV]) {
    const double pi = 3.14159265358979323846, g = DG_GAMMA;
    double rx = x - (DG_SIDE / 2 + t), ry = y - (DG_SIDE / 2 + t);
    rx -= DG_SIDE * floor(rx / DG_SIDE + 0.5); /* the nearest image of the centre */
    ry -= DG_SIDE * floor(ry / DG_SIDE + 0.5);
    const double r2 = rx * rx + ry * ry, e = exp(0.5 * (1.0 - r2));
    const double u = 1.0 - DG_BETA / (2 * pi) * ry * e, v = 1.0 + DG_BETA / (2 * pi) * rx * e;
    const double temp = 1.0 - (g - 1.0) * DG_BETA * DG_BETA / (8.0 * g * pi * pi) * e * e;
    const double rho = pow(temp, 1.0 / (g - 1.0)), p = rho * temp;
    q[0] = rho;
    q[1] = rho * u;
    q[2] = rho * v;
    q[3] = p / (g - 1.0) + 0.5 * rho * (u * u + v * v);
}

/* 3-point Gauss-Legendre on [-1, 1]. */
static const double G3X[3] = {-0.77459666924148338, 0.0, 0.77459666924148338};
static const double G3W[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};

/* The L2 projection of the exact vortex at t = 0 on each cell's P1 basis:
 * q_k = (integral of q phi_k) / (integral of phi_k^2), by 3x3 Gauss. */
static void project(struct app_input *in) {
    const long nc = (long)in->nx * in->ny;
    for (long c = 0; c < nc; c++) {
        const double xc = (c % in->nx + 0.5) * in->dx, yc = (c / in->nx + 0.5) * in->dy;
        double s[DG_NC] = {0};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double q[DG_NV];
                dg_exact(0.0, xc + 0.5 * in->dx * G3X[a], yc + 0.5 * in->dy * G3X[b], q);
                const double w = G3W[a] * G3W[b];
                for (int v = 0; v < DG_NV; v++) {
                    s[v * DG_NB + 0] += w * q[v];
                    s[v * DG_NB + 1] += w * q[v] * G3X[a];
                    s[v * DG_NB + 2] += w * q[v] * G3X[b];
                }
            }
        for (int v = 0; v < DG_NV; v++) {
            in->q0[(c * DG_NV + v) * DG_NB + 0] = s[v * DG_NB + 0] / 4.0;
            in->q0[(c * DG_NV + v) * DG_NB + 1] = s[v * DG_NB + 1] * 3.0 / 4.0;
            in->q0[(c * DG_NV + v) * DG_NB + 2] = s[v * DG_NB + 2] * 3.0 / 4.0;
        }
    }
}

void dg_totals(const struct app_input *in, const double *q, double tot[DG_NV]) {
    const long nc = (long)in->nx * in->ny;
    for (int v = 0; v < DG_NV; v++) {
        double s = 0, comp = 0;
        for (long c = 0; c < nc; c++) {
            const double y = q[(c * DG_NV + v) * DG_NB] - comp, t = s + y;
            comp = (t - s) - y;
            s = t;
        }
        tot[v] = s * in->dx * in->dy;
    }
}

double dg_density_l2(const struct app_input *in, const double *q, double t) {
    const long nc = (long)in->nx * in->ny;
    double sum = 0;
    for (long c = 0; c < nc; c++) {
        const double xc = (c % in->nx + 0.5) * in->dx, yc = (c / in->nx + 0.5) * in->dy;
        const double *r = q + c * DG_NV * DG_NB; /* density's 3 coefficients */
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double e[DG_NV];
                dg_exact(t, xc + 0.5 * in->dx * G3X[a], yc + 0.5 * in->dy * G3X[b], e);
                const double d = r[0] + r[1] * G3X[a] + r[2] * G3X[b] - e[0];
                sum += G3W[a] * G3W[b] * d * d;
            }
    }
    return sqrt(sum * in->dx * in->dy / 4.0 / (DG_SIDE * DG_SIDE));
}

/* The initial state's largest stable-step rate (dg_rate of the cell means). */
static double max_rate(const struct app_input *in) {
    double m = 0;
    for (long c = 0; c < (long)in->nx * in->ny; c++) {
        double q[DG_NV];
        for (int v = 0; v < DG_NV; v++) q[v] = in->q0[(c * DG_NV + v) * DG_NB];
        const double r = dg_rate(q, in->mu, in->dx, in->dy);
        m = r > m ? r : m;
    }
    return m;
}

struct app_input *dg_input_load(const struct app_opts *o, char *err, size_t errn) {
    if (o->params || o->obstacles)
        return err_set(err, errn, "dg takes no input files (--params, --obstacles): give --input yee:N"), NULL;
    struct app_input *in = xcalloc(1, sizeof *in);
    if (dg_parse_input(o->input ? o->input : DG_DEFAULT_INPUT, in, err, errn)) {
        free(in);
        return NULL;
    }
    const long nc = (long)in->nx * in->ny;
    if (host_memory_check(4.0 * nc * DG_NC * sizeof(double), "this dg input with its reference", err, errn)) {
        free(in);
        return NULL;
    }
    in->q0 = xcalloc((size_t)nc * DG_NC, sizeof(double));
    project(in);
    dg_totals(in, in->q0, in->totals0);
    if (in->end_time > 0) {
        if (o->iters > 0) {
            err_set(err, errn, "dg input '%s': t= fixes the steps (equal ones to that time); --iters cannot also",
                    in->name);
            dg_input_free(in);
            return NULL;
        }
        const double steps = ceil(in->end_time * max_rate(in) / in->cfl);
        if (steps > 1e9) {
            err_set(err, errn, "dg input '%s': %.3g steps to t=%g; at most 1e9", in->name, steps, in->end_time);
            dg_input_free(in);
            return NULL;
        }
        in->iters = in->steps_full = (long)steps;
    } else {
        in->steps_full = DG_STEPS;
        in->iters = o->iters > 0 ? o->iters : DG_STEPS;
    }
    return in;
}

void dg_input_free(struct app_input *in) {
    if (!in) return;
    free(in->q0);
    free(in);
}

/* `--time T` (harness/core/app.h): the input, or the default, to time T. */
int dg_input_at_time(const char *input, double t, char *out, size_t n, char *err, size_t errn) {
    struct app_input probe = {0};
    if (dg_parse_input(input ? input : DG_DEFAULT_INPUT, &probe, err, errn)) return -1;
    if (probe.end_time > 0)
        return err_set(err, errn, "dg input '%s' already runs to t=%g; give the time once", probe.name,
                       probe.end_time);
    char with[160];
    snprintf(with, sizeof with, "%s:t=%.17g", probe.name, t);
    struct app_input timed = {0};
    if (dg_parse_input(with, &timed, err, errn)) return -1;
    str_copy(out, n, timed.name);
    return 0;
}
