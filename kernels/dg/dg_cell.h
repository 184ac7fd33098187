/* The DG solver's device code, one text for every backend: each kernel is
 * a function of one cell (i, j) (or one column block, for the time step's
 * reduction), which dg_gpu.h runs as a work-item (OpenCL, CUDA) and
 * dg_loops.h as an iteration of a loop nest (OpenMP on the CPU, OpenACC,
 * OpenMP target). The scheme is README.md's; reference.c is the same scheme
 * written independently, face by face.
 *
 * Layout: structure of arrays. A field of n coefficients per cell is n
 * planes of `plane` = pitch x ny doubles; cell (i, j) is j pitch + i in each
 * (pitch = nx, or nx rounded up to 32 under align=warp: schedule.c):
 *   q, q0, qn  the state: plane v*3+k is variable v's coefficient k
 *              (1, xi, eta); q0 the step's start (Runge-Kutta); qn the
 *              fused form's output (it reads q, so it cannot write there)
 *   r          dq/dt, as q (the split form's integrals add into it)
 *   fx, fy     the flux through each cell's right (fx) and top (fy) face at
 *              its two Gauss points: plane v*2+g
 *   vx, vy     the same for the viscous flux (the split form only)
 *   s          BR1's gradients of (u, v, T): plane (a*2+d)*3+k, the
 *              derivative of w_a along d (x, y), coefficient k
 *   P          the run's numbers: dx, dy, 1/dx, 1/dy, mu, cfl, dt, t
 * Every cell kernel takes the same parameters (DG_PARAMS), so the wrappers
 * and the host's argument lists are one list each.
 *
 * Knobs (the guideline's steps, README.md):
 *   K_REGS_ON        step 1: a cell's coefficients loaded once into
 *                    registers, and every pointer `restrict`; without it
 *                    each point's value is read from memory where it is
 *                    used (as the seed's adapted code did), and stores in
 *                    between keep the compiler from reusing what it read
 *   K_DIVIDE_INVERSE step 3: multiplications by 1/dx, 1/dy and 1/rho
 *                    instead of divisions
 *   K_UNROLL_NONE    step 3: the small fixed loops kept rolled (`unroll 1`)
 *                    where the default asks the compiler to unroll them
 *   kernels=split|merged|fused|tiled  which of the kernels below schedule.c
 *                    runs (tiled: dg_gpu.h's work-group kernel, from the
 *                    dg_tile_* pieces here)
 * The dialect defines GLOBAL, DG_FN, DG_RESTRICT_KW and DG_UNROLL_ON /
 * DG_UNROLL_OFF (pragmas) before including this file. */
#ifndef DG_CELL_H
#define DG_CELL_H
#include "dg_phys.h"

#if defined(K_REGS_ON)
#define DG_RESTRICT DG_RESTRICT_KW
#else
#define DG_RESTRICT
#endif
#if defined(K_UNROLL_NONE)
#define DG_UNROLL DG_UNROLL_OFF
#else
#define DG_UNROLL DG_UNROLL_ON
#endif
#if defined(K_DIVIDE_INVERSE)
#define DG_PER_DX(x) ((x) * P[2])
#define DG_PER_DY(x) ((x) * P[3])
#else
#define DG_PER_DX(x) ((x) / P[0])
#define DG_PER_DY(x) ((x) / P[1])
#endif

/* Which form's kernels a program holds: the one kernels= names (each build
 * compiles only what its schedule launches: a third to a half of the code),
 * or all four where none is named (tests/unit/test_dg_cuda_compile.c). */
#if defined(K_KERNELS_SPLIT) || defined(K_KERNELS_MERGED) || defined(K_KERNELS_FUSED) || defined(K_KERNELS_TILED)
#define DG_FORM_ANY 0
#else
#define DG_FORM_ANY 1
#endif
#if defined(K_KERNELS_SPLIT)
#define DG_FORM_SPLIT 1
#else
#define DG_FORM_SPLIT DG_FORM_ANY
#endif
#if defined(K_KERNELS_MERGED)
#define DG_FORM_MERGED 1
#else
#define DG_FORM_MERGED DG_FORM_ANY
#endif
#if defined(K_KERNELS_FUSED)
#define DG_FORM_FUSED 1
#else
#define DG_FORM_FUSED DG_FORM_ANY
#endif
#if defined(K_KERNELS_TILED)
#define DG_FORM_TILED 1
#else
#define DG_FORM_TILED DG_FORM_ANY
#endif

/* Tests only (tests/integration/dg.sh): a device whose x-face flux has the
 * wrong sign must be reported wrong. */
#if defined(DG_TEST_FLIP_FLUX)
#define DG_XSIGN (-1.0)
#else
#define DG_XSIGN 1.0
#endif

#define DG_PARAMS                                                                                                      \
    GLOBAL double *DG_RESTRICT q, GLOBAL double *DG_RESTRICT q0, GLOBAL double *DG_RESTRICT r,                         \
        GLOBAL double *DG_RESTRICT fx, GLOBAL double *DG_RESTRICT fy, GLOBAL double *DG_RESTRICT s,                    \
        GLOBAL double *DG_RESTRICT vx, GLOBAL double *DG_RESTRICT vy, GLOBAL double *DG_RESTRICT qn,                   \
        GLOBAL const double *DG_RESTRICT P, int nx, int ny, int pitch, int stage, int visc
#define DG_ARGS q, q0, r, fx, fy, s, vx, vy, qn, P, nx, ny, pitch, stage, visc

/* A point's values of a P1 field of n quantities (the state: 4; the
 * gradients: 6) from a cell's coefficients (quantity v's 1, xi, eta at
 * 3v, 3v+1, 3v+2): in registers, or read from memory where used. */
DG_FN void dg_eval_r(const double *c, int n, double xi, double eta, double *o) {
    DG_UNROLL
    for (int v = 0; v < n; v++) o[v] = c[v * DG_NB] + xi * c[v * DG_NB + 1] + eta * c[v * DG_NB + 2];
}
DG_FN void dg_eval_g(GLOBAL const double *f, int n, long c, long plane, double xi, double eta, double *o) {
    DG_UNROLL
    for (int v = 0; v < n; v++)
        o[v] = f[(v * DG_NB) * plane + c] + xi * f[(v * DG_NB + 1) * plane + c] + eta * f[(v * DG_NB + 2) * plane + c];
}
/* A cell's n coefficients of a field into registers. */
DG_FN void dg_load(GLOBAL const double *f, int n, long c, long plane, double *o) {
    DG_UNROLL
    for (int k = 0; k < n; k++) o[k] = f[k * plane + c];
}

#if defined(K_REGS_ON)
#define DG_CELLQ(nm, idx)                                                                                              \
    double nm[DG_NC];                                                                                                  \
    dg_load(q, DG_NC, (idx), plane, nm)
#define DG_QPT(nm, xi, eta, o) dg_eval_r(nm, DG_NV, (xi), (eta), (o))
#define DG_CELLS(nm, idx, when)                                                                                        \
    double nm[DG_NS];                                                                                                  \
    if (when) dg_load(s, DG_NS, (idx), plane, nm)
#define DG_SPT(nm, xi, eta, o) dg_eval_r(nm, DG_NG, (xi), (eta), (o))
#else
#define DG_CELLQ(nm, idx) const long nm = (idx)
#define DG_QPT(nm, xi, eta, o) dg_eval_g(q, DG_NV, nm, plane, (xi), (eta), (o))
#define DG_CELLS(nm, idx, when) const long nm = (idx)
#define DG_SPT(nm, xi, eta, o) dg_eval_g(s, DG_NG, nm, plane, (xi), (eta), (o))
#endif

/* The cell, its four neighbours on the periodic mesh, and the plane. */
#define DG_WHERE                                                                                                       \
    const long plane = (long)pitch * ny;                                                                               \
    const long c = (long)j * pitch + i;                                                                                \
    const long e = (long)j * pitch + (i + 1 == nx ? 0 : i + 1);                                                        \
    const long w = (long)j * pitch + (i == 0 ? nx - 1 : i - 1);                                                        \
    const long n = (long)(j + 1 == ny ? 0 : j + 1) * pitch + i;                                                        \
    const long so = (long)(j == 0 ? ny - 1 : j - 1) * pitch + i;                                                       \
    (void)e, (void)w, (void)n, (void)so

/* The flux through a face of normal (nx, ny) at one point: Rusanov's
 * convective flux (conv) less the mean of both sides' viscous fluxes (visc:
 * BR1's central choice). */
DG_FN void dg_face(const double ql[DG_NV], const double qr[DG_NV], const double gl[DG_NG], const double gr[DG_NG],
                   double mu, double nx, double ny, int conv, int visc, double f[DG_NV]) {
    if (conv) dg_rusanov(ql, qr, nx, ny, f);
    else
        for (int v = 0; v < DG_NV; v++) f[v] = 0.0;
    if (visc) {
        double a[DG_NV], b[DG_NV];
        dg_viscous_flux(ql, gl, mu, nx, ny, a);
        dg_viscous_flux(qr, gr, mu, nx, ny, b);
        DG_UNROLL
        for (int v = 0; v < DG_NV; v++) f[v] -= 0.5 * (a[v] + b[v]);
    }
}

/* A face's fluxes at its two Gauss points, into out (plane v*2+g at cell c):
 * the right face (x: cells c | e) or the top face (y: cells c | n). `sign`
 * is -1 for the viscous-only array, which stores +mean(Fv). */
DG_FN void dg_face_pair(DG_PARAMS, int i, int j, int along_y, int conv, int visc_part, double sign,
                        GLOBAL double *out) {
    DG_WHERE;
    const long o = along_y ? n : e;
    DG_CELLQ(L, c);
    DG_CELLQ(R, o);
    DG_CELLS(SL, c, visc_part);
    DG_CELLS(SR, o, visc_part);
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    DG_UNROLL
    for (int g = 0; g < 2; g++) {
        double ql[DG_NV], qr[DG_NV], gl[DG_NG] = {0}, gr[DG_NG] = {0}, f[DG_NV];
        if (along_y) {
            DG_QPT(L, gp[g], 1.0, ql);
            DG_QPT(R, gp[g], -1.0, qr);
            if (visc_part) {
                DG_SPT(SL, gp[g], 1.0, gl);
                DG_SPT(SR, gp[g], -1.0, gr);
            }
            dg_face(ql, qr, gl, gr, P[4], 0.0, 1.0, conv, visc_part, f);
        } else {
            DG_QPT(L, 1.0, gp[g], ql);
            DG_QPT(R, -1.0, gp[g], qr);
            if (visc_part) {
                DG_SPT(SL, 1.0, gp[g], gl);
                DG_SPT(SR, -1.0, gp[g], gr);
            }
            dg_face(ql, qr, gl, gr, P[4], DG_XSIGN, 0.0, conv, visc_part, f);
        }
        DG_UNROLL
        for (int v = 0; v < DG_NV; v++) out[(v * 2 + g) * plane + c] = sign * f[v];
    }
}

/* The volume integral's share of dq/dt (Gauss 2x2): (3/2dx) sum Fx into the
 * xi coefficient, (3/2dy) sum Fy into eta's; convective (conv) and/or less
 * the viscous flux (visc_part). */
DG_FN void dg_volume(DG_PARAMS, int i, int j, int conv, int visc_part, double acc[DG_NC]) {
    DG_WHERE;
    DG_CELLQ(C, c);
    DG_CELLS(SC, c, visc_part);
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    DG_UNROLL
    for (int a = 0; a < 2; a++) {
        DG_UNROLL
        for (int b = 0; b < 2; b++) {
            double p[DG_NV], f[DG_NV], h[DG_NV], gr[DG_NG];
            DG_QPT(C, gp[a], gp[b], p);
            if (conv) {
                dg_euler_flux(p, 1.0, 0.0, f);
                dg_euler_flux(p, 0.0, 1.0, h);
            } else {
                for (int v = 0; v < DG_NV; v++) f[v] = h[v] = 0.0;
            }
            if (visc_part) {
                double vf[DG_NV], vh[DG_NV];
                DG_SPT(SC, gp[a], gp[b], gr);
                dg_viscous_flux(p, gr, P[4], 1.0, 0.0, vf);
                dg_viscous_flux(p, gr, P[4], 0.0, 1.0, vh);
                for (int v = 0; v < DG_NV; v++) f[v] -= vf[v], h[v] -= vh[v];
            }
            DG_UNROLL
            for (int v = 0; v < DG_NV; v++) {
                acc[v * DG_NB + 1] += DG_PER_DX(1.5 * f[v]);
                acc[v * DG_NB + 2] += DG_PER_DY(1.5 * h[v]);
            }
        }
    }
}

/* The faces' share of dq/dt from fluxes through the right, left, top and
 * bottom faces at the two Gauss points (fr[v*2+g] ...). */
DG_FN void dg_faces_sum(GLOBAL const double *P, const double fr[8], const double fl[8], const double ft[8],
                        const double fb[8], double acc[DG_NC]) {
    const double g0 = -DG_GAUSS, g1 = DG_GAUSS;
    DG_UNROLL
    for (int v = 0; v < DG_NV; v++) {
        const double r0 = fr[v * 2], r1 = fr[v * 2 + 1], l0 = fl[v * 2], l1 = fl[v * 2 + 1];
        const double t0 = ft[v * 2], t1 = ft[v * 2 + 1], b0 = fb[v * 2], b1 = fb[v * 2 + 1];
        acc[v * DG_NB] += DG_PER_DX(-0.5 * (r0 + r1 - l0 - l1)) + DG_PER_DY(-0.5 * (t0 + t1 - b0 - b1));
        acc[v * DG_NB + 1] += DG_PER_DX(-1.5 * (r0 + r1 + l0 + l1)) + DG_PER_DY(-1.5 * (g0 * (t0 - b0) + g1 * (t1 - b1)));
        acc[v * DG_NB + 2] += DG_PER_DX(-1.5 * (g0 * (r0 - l0) + g1 * (r1 - l1))) + DG_PER_DY(-1.5 * (t0 + t1 + b0 + b1));
    }
}

/* The four faces' stored fluxes around cell c (arrays gx, gy as fx, fy). */
DG_FN void dg_faces_stored(GLOBAL const double *gx, GLOBAL const double *gy, long c, long w, long so, long plane,
                           double fr[8], double fl[8], double ft[8], double fb[8]) {
    DG_UNROLL
    for (int k = 0; k < 8; k++) {
        fr[k] = gx[k * plane + c];
        fl[k] = gx[k * plane + w];
        ft[k] = gy[k * plane + c];
        fb[k] = gy[k * plane + so];
    }
}

/* One Runge-Kutta stage's update of cell c from dq/dt (acc): SSP-RK3 as
 * q <- a q0 + b (q + dt r), (a, b) = (0, 1), (3/4, 1/4), (1/3, 2/3); stage
 * 0 also keeps the step's start in q0. Reads `from`, writes `to`. */
DG_FN void dg_rk_cell(GLOBAL const double *from, GLOBAL double *to, GLOBAL double *q0, GLOBAL const double *P, long c,
                      long plane, int stage, double acc[DG_NC]) {
    const double dt = P[6];
    const double a = stage == 0 ? 0.0 : stage == 1 ? 0.75 : 1.0 / 3.0;
    const double b = stage == 0 ? 1.0 : stage == 1 ? 0.25 : 2.0 / 3.0;
#if defined(DG_TEST_NAN) /* tests only: a device whose state turns NaN must be reported wrong */
    if (c == 0) acc[0] = sqrt(-1.0 - P[0]);
#endif
    DG_UNROLL
    for (int k = 0; k < DG_NC; k++) {
        const double now = from[k * plane + c];
        if (stage == 0) {
            q0[k * plane + c] = now;
            to[k * plane + c] = now + dt * acc[k];
        } else {
            to[k * plane + c] = a * q0[k * plane + c] + b * (now + dt * acc[k]);
        }
    }
}

/* ---- the split form: the seed's 8 kernels a stage ---- */
DG_FN void dg_cell_conv_x(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 0, 1, 0, 1.0, fx); }
DG_FN void dg_cell_conv_y(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 1, 1, 0, 1.0, fy); }
DG_FN void dg_cell_visc_x(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 0, 0, 1, -1.0, vx); }
DG_FN void dg_cell_visc_y(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 1, 0, 1, -1.0, vy); }

/* conv_int writes r (volume + faces of the convective flux); visc_int adds
 * the viscous share (vx, vy hold +mean Fv, so its faces enter negated). */
DG_FN void dg_cell_conv_int(DG_PARAMS, int i, int j) {
    DG_WHERE;
    double acc[DG_NC] = {0}, fr[8], fl[8], ft[8], fb[8];
    dg_volume(DG_ARGS, i, j, 1, 0, acc);
    dg_faces_stored(fx, fy, c, w, so, plane, fr, fl, ft, fb);
    dg_faces_sum(P, fr, fl, ft, fb, acc);
    DG_UNROLL
    for (int k = 0; k < DG_NC; k++) r[k * plane + c] = acc[k];
}
DG_FN void dg_cell_visc_int(DG_PARAMS, int i, int j) {
    DG_WHERE;
    double acc[DG_NC] = {0}, fr[8], fl[8], ft[8], fb[8];
    dg_volume(DG_ARGS, i, j, 0, 1, acc);
    dg_faces_stored(vx, vy, c, w, so, plane, fr, fl, ft, fb);
    for (int k = 0; k < 8; k++) fr[k] = -fr[k], fl[k] = -fl[k], ft[k] = -ft[k], fb[k] = -fb[k];
    dg_faces_sum(P, fr, fl, ft, fb, acc);
    DG_UNROLL
    for (int k = 0; k < DG_NC; k++) r[k * plane + c] += acc[k];
}
DG_FN void dg_cell_rk(DG_PARAMS, int i, int j) {
    DG_WHERE;
    double acc[DG_NC];
    DG_UNROLL
    for (int k = 0; k < DG_NC; k++) acc[k] = r[k * plane + c];
    dg_rk_cell(q, q, q0, P, c, plane, stage, acc);
}

/* BR1's gradients of w = (u, v, T) (the seed's "local viscosity" kernel):
 * each cell from its own values and the mean of both traces on its faces. */
DG_FN void dg_cell_grad(DG_PARAMS, int i, int j) {
    DG_WHERE;
    DG_CELLQ(C, c);
    DG_CELLQ(E, e);
    DG_CELLQ(W, w);
    DG_CELLQ(N, n);
    DG_CELLQ(S, so);
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    double vol[3] = {0, 0, 0}, rs[3] = {0, 0, 0}, ls[3] = {0, 0, 0}, ts[3] = {0, 0, 0}, bs[3] = {0, 0, 0};
    double rd[3] = {0, 0, 0}, td[3] = {0, 0, 0}; /* sums weighted by the face point's coordinate */
    DG_UNROLL
    for (int g = 0; g < 2; g++) {
        double p[DG_NV], o[DG_NV], a[3], b[3];
        DG_UNROLL
        for (int h = 0; h < 2; h++) {
            DG_QPT(C, gp[g], gp[h], p);
            dg_primitive(p, a);
            for (int m = 0; m < 3; m++) vol[m] += a[m];
        }
        DG_QPT(C, 1.0, gp[g], p), DG_QPT(E, -1.0, gp[g], o);
        dg_primitive(p, a), dg_primitive(o, b);
        for (int m = 0; m < 3; m++) rs[m] += 0.5 * (a[m] + b[m]), rd[m] += gp[g] * 0.5 * (a[m] + b[m]);
        DG_QPT(C, -1.0, gp[g], p), DG_QPT(W, 1.0, gp[g], o);
        dg_primitive(p, a), dg_primitive(o, b);
        for (int m = 0; m < 3; m++) ls[m] += 0.5 * (a[m] + b[m]), rd[m] -= gp[g] * 0.5 * (a[m] + b[m]);
        DG_QPT(C, gp[g], 1.0, p), DG_QPT(N, gp[g], -1.0, o);
        dg_primitive(p, a), dg_primitive(o, b);
        for (int m = 0; m < 3; m++) ts[m] += 0.5 * (a[m] + b[m]), td[m] += gp[g] * 0.5 * (a[m] + b[m]);
        DG_QPT(C, gp[g], -1.0, p), DG_QPT(S, gp[g], 1.0, o);
        dg_primitive(p, a), dg_primitive(o, b);
        for (int m = 0; m < 3; m++) bs[m] += 0.5 * (a[m] + b[m]), td[m] -= gp[g] * 0.5 * (a[m] + b[m]);
    }
    DG_UNROLL
    for (int m = 0; m < 3; m++) {
        s[((m * 2 + 0) * DG_NB + 0) * plane + c] = DG_PER_DX(0.5 * (rs[m] - ls[m]));
        s[((m * 2 + 0) * DG_NB + 1) * plane + c] = DG_PER_DX(1.5 * (rs[m] + ls[m] - vol[m]));
        s[((m * 2 + 0) * DG_NB + 2) * plane + c] = DG_PER_DX(1.5 * rd[m]);
        s[((m * 2 + 1) * DG_NB + 0) * plane + c] = DG_PER_DY(0.5 * (ts[m] - bs[m]));
        s[((m * 2 + 1) * DG_NB + 1) * plane + c] = DG_PER_DY(1.5 * td[m]);
        s[((m * 2 + 1) * DG_NB + 2) * plane + c] = DG_PER_DY(1.5 * (ts[m] + bs[m] - vol[m]));
    }
}

/* ---- the merged form: 4 kernels a stage (grad, flux_x, flux_y, int_rk) ---- */
DG_FN void dg_cell_flux_x(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 0, 1, visc, 1.0, fx); }
DG_FN void dg_cell_flux_y(DG_PARAMS, int i, int j) { dg_face_pair(DG_ARGS, i, j, 1, 1, visc, 1.0, fy); }
DG_FN void dg_cell_int_rk(DG_PARAMS, int i, int j) {
    DG_WHERE;
    double acc[DG_NC] = {0}, fr[8], fl[8], ft[8], fb[8];
    dg_volume(DG_ARGS, i, j, 1, visc, acc);
    dg_faces_stored(fx, fy, c, w, so, plane, fr, fl, ft, fb);
    dg_faces_sum(P, fr, fl, ft, fb, acc);
    dg_rk_cell(q, q, q0, P, c, plane, stage, acc);
}

/* ---- ours, the fused form: a cell computes its own four faces (each face
 * twice over the mesh, no flux arrays), the volume and the update, reading
 * q and writing qn ---- */
DG_FN void dg_face_point(DG_PARAMS, long a, long b, double xa, double ya, double xb, double yb, double nx_, double ny_,
                         double f[DG_NV]) {
    const long plane = (long)pitch * ny;
    DG_CELLQ(A, a);
    DG_CELLQ(B, b);
    DG_CELLS(SA, a, visc);
    DG_CELLS(SB, b, visc);
    double qa[DG_NV], qb[DG_NV], ga[DG_NG] = {0}, gb[DG_NG] = {0};
    DG_QPT(A, xa, ya, qa);
    DG_QPT(B, xb, yb, qb);
    if (visc) {
        DG_SPT(SA, xa, ya, ga);
        DG_SPT(SB, xb, yb, gb);
    }
    dg_face(qa, qb, ga, gb, P[4], nx_, ny_, 1, visc, f);
}
DG_FN void dg_cell_fused(DG_PARAMS, int i, int j) {
    DG_WHERE;
    double acc[DG_NC] = {0}, fr[8], fl[8], ft[8], fb[8];
    dg_volume(DG_ARGS, i, j, 1, visc, acc);
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    DG_UNROLL
    for (int g = 0; g < 2; g++) {
        double f[DG_NV];
        dg_face_point(DG_ARGS, c, e, 1.0, gp[g], -1.0, gp[g], DG_XSIGN, 0.0, f);
        for (int v = 0; v < DG_NV; v++) fr[v * 2 + g] = f[v];
        dg_face_point(DG_ARGS, w, c, 1.0, gp[g], -1.0, gp[g], DG_XSIGN, 0.0, f);
        for (int v = 0; v < DG_NV; v++) fl[v * 2 + g] = f[v];
        dg_face_point(DG_ARGS, c, n, gp[g], 1.0, gp[g], -1.0, 0.0, 1.0, f);
        for (int v = 0; v < DG_NV; v++) ft[v * 2 + g] = f[v];
        dg_face_point(DG_ARGS, so, c, gp[g], 1.0, gp[g], -1.0, 0.0, 1.0, f);
        for (int v = 0; v < DG_NV; v++) fb[v * 2 + g] = f[v];
    }
    dg_faces_sum(P, fr, fl, ft, fb, acc);
    dg_rk_cell(q, qn, q0, P, c, plane, stage, acc);
}

/* ---- ours, the tiled form's arithmetic (the kernel, dg_gpu.h's dg_tiled,
 * needs a work-group's local memory: OpenCL and CUDA only). A work-group
 * holds its block's q and a one-cell halo; each face's flux at each Gauss
 * point is computed once, by one work-item, from both sides' coefficients
 * copied out of the tile; then each cell adds its volume integral and its
 * four faces and updates q -> qn. The same arithmetic as the fused form
 * (dg_face_point, dg_volume with regs=on, dg_faces_sum, dg_rk_cell), here
 * on private copies: regs= does not change it, and no value is read from
 * global memory where it is used but the gradients (viscosity: s is read
 * from global memory, not tiled). tests/cost/dg_flops.cc counts these
 * pieces as the kernel composes them. ---- */
#if DG_FORM_TILED
/* One face point's flux, normal (nx_, ny_) from side a to side b: a's
 * coefficients ca at (xa, ya), b's cb at (xb, yb); with viscosity the
 * gradients of cells sa and sb from s. */
DG_FN void dg_tile_point(GLOBAL const double *DG_RESTRICT s, GLOBAL const double *DG_RESTRICT P, long plane, int visc,
                         const double ca[DG_NC], const double cb[DG_NC], long sa, long sb, double xa, double ya,
                         double xb, double yb, double nx_, double ny_, double f[DG_NV]) {
    double qa[DG_NV], qb[DG_NV], ga[DG_NG] = {0}, gb[DG_NG] = {0};
    dg_eval_r(ca, DG_NV, xa, ya, qa);
    dg_eval_r(cb, DG_NV, xb, yb, qb);
    if (visc) {
        dg_eval_g(s, DG_NG, sa, plane, xa, ya, ga);
        dg_eval_g(s, DG_NG, sb, plane, xb, yb, gb);
    }
    dg_face(qa, qb, ga, gb, P[4], nx_, ny_, 1, visc, f);
}

/* dg_volume's integral (Gauss 2x2, convective less viscous) of the cell
 * whose coefficients are C (its gradients: cell c of s). */
DG_FN void dg_tile_volume(GLOBAL const double *DG_RESTRICT s, GLOBAL const double *DG_RESTRICT P, long plane, int visc,
                          long c, const double C[DG_NC], double acc[DG_NC]) {
    const double gp[2] = {-DG_GAUSS, DG_GAUSS};
    DG_UNROLL
    for (int a = 0; a < 2; a++) {
        DG_UNROLL
        for (int b = 0; b < 2; b++) {
            double p[DG_NV], f[DG_NV], h[DG_NV], gr[DG_NG];
            dg_eval_r(C, DG_NV, gp[a], gp[b], p);
            dg_euler_flux(p, 1.0, 0.0, f);
            dg_euler_flux(p, 0.0, 1.0, h);
            if (visc) {
                double vf[DG_NV], vh[DG_NV];
                dg_eval_g(s, DG_NG, c, plane, gp[a], gp[b], gr);
                dg_viscous_flux(p, gr, P[4], 1.0, 0.0, vf);
                dg_viscous_flux(p, gr, P[4], 0.0, 1.0, vh);
                for (int v = 0; v < DG_NV; v++) f[v] -= vf[v], h[v] -= vh[v];
            }
            DG_UNROLL
            for (int v = 0; v < DG_NV; v++) {
                acc[v * DG_NB + 1] += DG_PER_DX(1.5 * f[v]);
                acc[v * DG_NB + 2] += DG_PER_DY(1.5 * h[v]);
            }
        }
    }
}

/* The four faces' share (fr, fl, ft, fb as dg_faces_sum's) added to acc
 * (the volume's), then dg_rk_cell's update of cell c into qn from its
 * coefficients now (q's, from the tile). */
DG_FN void dg_tile_update(GLOBAL double *DG_RESTRICT qn, GLOBAL double *DG_RESTRICT q0,
                          GLOBAL const double *DG_RESTRICT P, long c, long plane, int stage, const double now[DG_NC],
                          const double fr[8], const double fl[8], const double ft[8], const double fb[8],
                          double acc[DG_NC]) {
    dg_faces_sum(P, fr, fl, ft, fb, acc);
    const double dt = P[6];
    const double a = stage == 0 ? 0.0 : stage == 1 ? 0.75 : 1.0 / 3.0;
    const double b = stage == 0 ? 1.0 : stage == 1 ? 0.25 : 2.0 / 3.0;
#if defined(DG_TEST_NAN)
    if (c == 0) acc[0] = sqrt(-1.0 - P[0]);
#endif
    DG_UNROLL
    for (int k = 0; k < DG_NC; k++) {
        if (stage == 0) {
            q0[k * plane + c] = now[k];
            qn[k * plane + c] = now[k] + dt * acc[k];
        } else {
            qn[k * plane + c] = a * q0[k * plane + c] + b * (now[k] + dt * acc[k]);
        }
    }
}
#endif

/* ---- the time step: the largest rate, reduced on the device ---- */
/* Column i's largest dg_rate over rows [blk rows, (blk + 1) rows). */
DG_FN void dg_rate_block(GLOBAL const double *q, GLOBAL double *part, GLOBAL const double *P, int nx, int ny,
                         int pitch, int rows, int i, int blk) {
    const long plane = (long)pitch * ny;
    double most = 0.0;
    const int end = (blk + 1) * rows < ny ? (blk + 1) * rows : ny;
    for (int j = blk * rows; j < end; j++) {
        const long c = (long)j * pitch + i;
        double p[DG_NV];
        for (int v = 0; v < DG_NV; v++) p[v] = q[(v * DG_NB) * plane + c];
        const double rt = dg_rate(p, P[4], P[0], P[1]);
        most = rt > most ? rt : most;
    }
    part[(long)blk * nx + i] = most;
}
/* out[m] = the largest of in[m*DG_FOLD ... ] (n values in all). */
#define DG_FOLD 64
DG_FN void dg_max_fold(GLOBAL const double *in, GLOBAL double *out, long n, long m) {
    double most = 0.0;
    const long end = (m + 1) * DG_FOLD < n ? (m + 1) * DG_FOLD : n;
    for (long k = m * DG_FOLD; k < end; k++) most = in[k] > most ? in[k] : most;
    out[m] = most;
}
/* The last fold (n <= DG_FOLD) sets dt = cfl / rate and advances t. */
DG_FN void dg_step_from(GLOBAL const double *in, GLOBAL double *P, long n) {
    double most = 0.0;
    for (long k = 0; k < n; k++) most = in[k] > most ? in[k] : most;
    P[6] = P[5] / most;
    P[7] += P[6];
}
#endif
