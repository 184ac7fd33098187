/* The DG app's physics at a point, one text for the serial reference and
 * every device (C, OpenCL C, CUDA, the directive compilers): the ideal gas,
 * the Euler flux, the Rusanov (local Lax-Friedrichs) flux and the
 * Navier-Stokes viscous flux. No pointers into device memory, only small
 * private arrays, so every dialect takes it as it is. The includer may
 * define DG_FN (how a function is declared: `static inline` by default;
 * OpenACC adds `acc routine seq`) before including it.
 *
 * Non-dimensional: gas constant R = 1 (T = p / rho), gamma = 1.4, Prandtl
 * 0.72, cp = gamma / (gamma - 1), conductivity k = mu cp / Pr.
 *
 * K_DIVIDE_INVERSE (the guideline's step 3): a point's 1/rho is computed
 * once and multiplied by; without it every quotient is a division, as the
 * seed's original code was written. */
#ifndef DG_PHYS_H
#define DG_PHYS_H

#ifndef DG_FN
#define DG_FN static inline
#endif

#define DG_NV 4 /* conserved variables: rho, rho u, rho v, E */
#define DG_NB 3 /* P1 modal basis on a cell: 1, xi, eta (Legendre, xi and eta in [-1, 1]) */
#define DG_NC (DG_NV * DG_NB)
#define DG_NG 6 /* gradients (BR1's auxiliary variable): du/dx, du/dy, dv/dx, dv/dy, dT/dx, dT/dy */
#define DG_NS 18 /* BR1 gradient coefficients a cell: 3 quantities x 2 directions x 3 */
#define DG_GAMMA 1.4
#define DG_PRANDTL 0.72
#define DG_GAUSS 0.57735026918962576 /* 1/sqrt(3): 2-point Gauss-Legendre on [-1, 1], weights 1 */

#if defined(K_DIVIDE_INVERSE)
#define DG_OVER_RHO(a, q, irho) ((a) * (irho))
#else
#define DG_OVER_RHO(a, q, irho) ((a) / (q)[0])
#endif

/* irho, a point's 1/rho, where divide=inverse multiplies by it (unused otherwise). */
#if defined(K_DIVIDE_INVERSE)
#define DG_INVERSE_RHO(q) const double irho = 1.0 / (q)[0]
#else
#define DG_INVERSE_RHO(q)                                                                                              \
    const double irho = 0.0;                                                                                           \
    (void)irho
#endif

DG_FN double dg_pressure(const double q[DG_NV]) {
#if defined(K_DIVIDE_INVERSE)
    const double irho = 1.0 / q[0];
    return (DG_GAMMA - 1.0) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) * irho);
#else
    return (DG_GAMMA - 1.0) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0]);
#endif
}

/* The Euler flux through a face of normal (nx, ny), F(q) . n, and the
 * fastest wave along n, |u . n| + c. */
DG_FN double dg_euler_flux(const double q[DG_NV], double nx, double ny, double f[DG_NV]) {
    DG_INVERSE_RHO(q);
    const double u = DG_OVER_RHO(q[1], q, irho), v = DG_OVER_RHO(q[2], q, irho);
    const double p = (DG_GAMMA - 1.0) * (q[3] - 0.5 * (q[1] * u + q[2] * v));
    const double un = u * nx + v * ny;
    f[0] = q[0] * un;
    f[1] = q[1] * un + p * nx;
    f[2] = q[2] * un + p * ny;
    f[3] = (q[3] + p) * un;
    return fabs(un) + sqrt(DG_OVER_RHO(DG_GAMMA * p, q, irho));
}

/* Rusanov's flux between the state inside (ql) and outside (qr) along the
 * normal n pointing from ql to qr: the mean of the two fluxes less half the
 * fastest wave times the jump. */
DG_FN void dg_rusanov(const double ql[DG_NV], const double qr[DG_NV], double nx, double ny, double f[DG_NV]) {
    double fl[DG_NV], fr[DG_NV];
    const double sl = dg_euler_flux(ql, nx, ny, fl), sr = dg_euler_flux(qr, nx, ny, fr);
    const double s = sl > sr ? sl : sr;
    for (int v = 0; v < DG_NV; v++) f[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * s * (qr[v] - ql[v]);
}

/* The primitive variables BR1 takes gradients of: u, v, T = p / rho. */
DG_FN void dg_primitive(const double q[DG_NV], double w[3]) {
    DG_INVERSE_RHO(q);
    w[0] = DG_OVER_RHO(q[1], q, irho);
    w[1] = DG_OVER_RHO(q[2], q, irho);
    w[2] = DG_OVER_RHO(dg_pressure(q), q, irho);
}

/* The viscous flux Fv . n at a point from its state and the gradients
 * g = (ux, uy, vx, vy, Tx, Ty): Stokes' stress with constant viscosity mu
 * and Fourier's heat flux. The equations are q_t + div(Fc - Fv) = 0. */
DG_FN void dg_viscous_flux(const double q[DG_NV], const double g[DG_NG], double mu, double nx, double ny,
                           double f[DG_NV]) {
    DG_INVERSE_RHO(q);
    const double u = DG_OVER_RHO(q[1], q, irho), v = DG_OVER_RHO(q[2], q, irho);
    const double div = g[0] + g[3];
    const double txx = mu * (2.0 * g[0] - (2.0 / 3.0) * div), tyy = mu * (2.0 * g[3] - (2.0 / 3.0) * div);
    const double txy = mu * (g[1] + g[2]);
    const double k = mu * DG_GAMMA / ((DG_GAMMA - 1.0) * DG_PRANDTL);
    f[0] = 0.0;
    f[1] = txx * nx + txy * ny;
    f[2] = txy * nx + tyy * ny;
    f[3] = (u * txx + v * txy + k * g[4]) * nx + (u * txy + v * tyy + k * g[5]) * ny;
}

/* A cell's stable-step rate from its mean state: (|u| + c)/dx + (|v| + c)/dy
 * for the waves, plus the viscous term's 3 nu_eff (1/dx^2 + 1/dy^2), nu_eff
 * the larger of (4/3) mu / rho and gamma mu / (Pr rho). dt = cfl / max rate. */
DG_FN double dg_rate(const double q[DG_NV], double mu, double dx, double dy) {
    const double u = q[1] / q[0], v = q[2] / q[0];
    const double c = sqrt(DG_GAMMA * dg_pressure(q) / q[0]);
    const double a = 4.0 / 3.0, b = DG_GAMMA / DG_PRANDTL;
    const double nu = (a > b ? a : b) * mu / q[0];
    return (fabs(u) + c) / dx + (fabs(v) + c) / dy + 3.0 * nu * (1.0 / (dx * dx) + 1.0 / (dy * dy));
}
#endif
