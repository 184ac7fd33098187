// Counts the floating-point operations of the DG kernels from their code
// (kernels/dg/dg_cell.h and dg_phys.h, included as they are), by running one
// cell's kernels with `double` replaced by a number type that counts each
// +, -, *, / and sqrt as one operation (fabs, comparisons and sign changes
// as none; a multiply-add is the two it is written as). Prints flops per cell
// update (a cell, one time step, three Runge-Kutta stages, the step's rate)
// for each form, Euler and Navier-Stokes. tests/integration/dg_cost.sh
// checks that kernels/dg/app.c's cost model quotes these numbers.
#include <cmath>
#include <cstdio>

struct F {
    double v;
    static long n;
    F() : v(0) {}
    F(double x) : v(x) {}
    F(int x) : v(x) {}
};
long F::n = 0;
static inline F op(double x) { F::n++; return F(x); }
static inline F operator+(F a, F b) { return op(a.v + b.v); }
static inline F operator-(F a, F b) { return op(a.v - b.v); }
static inline F operator*(F a, F b) { return op(a.v * b.v); }
static inline F operator/(F a, F b) { return op(a.v / b.v); }
static inline F operator+(F a, double b) { return op(a.v + b); }
static inline F operator-(F a, double b) { return op(a.v - b); }
static inline F operator*(F a, double b) { return op(a.v * b); }
static inline F operator/(F a, double b) { return op(a.v / b); }
static inline F operator+(double a, F b) { return op(a + b.v); }
static inline F operator-(double a, F b) { return op(a - b.v); }
static inline F operator*(double a, F b) { return op(a * b.v); }
static inline F operator/(double a, F b) { return op(a / b.v); }
static inline F operator-(F a) { return F(-a.v); }
static inline F &operator+=(F &a, F b) { a = a + b; return a; }
static inline F &operator-=(F &a, F b) { a = a - b; return a; }
static inline bool operator>(F a, F b) { return a.v > b.v; }
static inline bool operator<(F a, F b) { return a.v < b.v; }
static inline bool operator==(F a, double b) { return a.v == b; }
static inline F sqrt(F a) { return op(std::sqrt(a.v)); }
static inline F fabs(F a) { return F(std::fabs(a.v)); }

#define double F
#define GLOBAL
#define DG_FN static inline
#define DG_RESTRICT_KW __restrict__
#define DG_UNROLL_ON
#define DG_UNROLL_OFF
#include "dg_cell.h"
#undef double

enum { NX = 4, NY = 4, PL = NX * NY };
static F q[DG_NC * PL], q0[DG_NC * PL], r[DG_NC * PL], fx[8 * PL], fy[8 * PL], s[DG_NS * PL], vx[8 * PL], vy[8 * PL],
    qn[DG_NC * PL], part[PL], P[8];

typedef void (*cell_fn)(F *, F *, F *, F *, F *, F *, F *, F *, F *, const F *, int, int, int, int, int, int, int);
static long count(cell_fn f, int stage, int visc) {
    const long before = F::n;
    f(q, q0, r, fx, fy, s, vx, vy, qn, P, NX, NY, NX, stage, visc, 1, 1);
    return F::n - before;
}

// The tiled form's share of one cell (dg_gpu.h's dg_tiled, whose work-group
// memory this cannot run): the pieces of dg_cell.h it calls, as it calls
// them for a cell, its right and top faces at both Gauss points (each face
// once: the left and bottom are the neighbours'), its volume, its update.
static long count_tiled(int stage, int visc) {
    const long before = F::n;
    const int c = 5, e = 6, n = 9; // cell (1, 1) of the 4 x 4 mesh, its right and top neighbours
    F cc[DG_NC], ce[DG_NC], cn[DG_NC], f[DG_NV], acc[DG_NC], fr[8], fl[8], ft[8], fb[8];
    for (int k = 0; k < DG_NC; k++) cc[k] = q[k * PL + c], ce[k] = q[k * PL + e], cn[k] = q[k * PL + n];
    for (int g = 0; g < 2; g++) {
        const double gp = g ? DG_GAUSS : -DG_GAUSS;
        dg_tile_point(s, P, PL, visc, cc, ce, c, e, 1.0, gp, -1.0, gp, DG_XSIGN, 0.0, f);
        for (int v = 0; v < DG_NV; v++) fr[v * 2 + g] = fl[v * 2 + g] = f[v];
        dg_tile_point(s, P, PL, visc, cc, cn, c, n, gp, 1.0, gp, -1.0, 0.0, 1.0, f);
        for (int v = 0; v < DG_NV; v++) ft[v * 2 + g] = fb[v * 2 + g] = f[v];
    }
    dg_tile_volume(s, P, PL, visc, c, cc, acc);
    dg_tile_update(qn, q0, P, c, PL, stage, cc, fr, fl, ft, fb, acc);
    return F::n - before;
}

int main() {
    for (int c = 0; c < PL; c++) { // a smooth positive state: no branch depends on it
        const double v[DG_NV] = {1.0, 0.5, 0.25, 2.5};
        for (int k = 0; k < DG_NC; k++) q[k * PL + c] = q0[k * PL + c] = (k % DG_NB == 0) ? v[k / DG_NB] : 0.01;
    }
    const double p[8] = {0.1, 0.1, 10, 10, 0.01, 0.2, 0.001, 0};
    for (int i = 0; i < 8; i++) P[i] = p[i];
    const long before = F::n;
    dg_rate_block(q, part, P, NX, NY, NX, 1, 1, 1);
    const long rate = F::n - before;
    for (int visc = 0; visc < 2; visc++) {
        long split = 0, merged = 0, fused = 0, tiled = 0;
        for (int st = 0; st < 3; st++) {
            const long grad = visc ? count(dg_cell_grad, st, 1) : 0;
            split += grad + count(dg_cell_conv_x, st, visc) + count(dg_cell_conv_y, st, visc) +
                     count(dg_cell_conv_int, st, visc) + count(dg_cell_rk, st, visc);
            if (visc)
                split += count(dg_cell_visc_x, st, 1) + count(dg_cell_visc_y, st, 1) + count(dg_cell_visc_int, st, 1);
            merged += grad + count(dg_cell_flux_x, st, visc) + count(dg_cell_flux_y, st, visc) +
                      count(dg_cell_int_rk, st, visc);
            fused += grad + count(dg_cell_fused, st, visc);
            tiled += grad + count_tiled(st, visc);
        }
        printf("%s split %ld merged %ld fused %ld tiled %ld (the step's rate %ld included)\n",
               visc ? "navier-stokes" : "euler", split + rate, merged + rate, fused + rate, tiled + rate, rate);
    }
    return 0;
}
