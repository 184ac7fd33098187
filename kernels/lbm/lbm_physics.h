/* The D2Q9 BGK physics of one cell, shared by every device kernel source:
 * OpenCL C, CUDA C++ and OpenMP C include this file after defining LBM_FN
 * (their spelling of an inline device function). Speeds: 0 centre, 1 E, 2 N,
 * 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE. Single precision, as in the report.
 *
 * Knobs read here: K_DIVIDE_RECIPROCAL (see LBM_PER_RHO), K_MOMENTS_TREE (see
 * LBM_VELOCITY), K_COLLIDE_PAIRED (see lbm_collide), K_CONSTANTS_HOISTED (constant factors folded into
 * multiplications, as the report's "hoisted constants" step) or the original
 * divisions by c_sq. */
#ifndef LBM_PHYSICS_H
#define LBM_PHYSICS_H

#if defined(K_CONSTANTS_HOISTED)
#define LBM_DIV_CSQ(x) ((x) * 3.0f)            /* x / c_sq, c_sq = 1/3 */
#define LBM_DIV_2CSQ2(x) ((x) * 4.5f)          /* x / (2 c_sq^2) */
#define LBM_DIV_2CSQ(x) ((x) * 1.5f)           /* x / (2 c_sq) */
#else
#define LBM_C_SQ (1.0f / 3.0f)
#define LBM_DIV_CSQ(x) ((x) / LBM_C_SQ)
#define LBM_DIV_2CSQ2(x) ((x) / (2.0f * LBM_C_SQ * LBM_C_SQ))
#define LBM_DIV_2CSQ(x) ((x) / (2.0f * LBM_C_SQ))
#endif

/* divide=reciprocal: u = momentum * (1 / rho), one reciprocal for both
 * components instead of two IEEE divisions (each a multi-instruction
 * sequence on GPUs); the results differ in the last bits only. */
#if !defined(LBM_RECIP)
#define LBM_RECIP(x) (1.0f / (x)) /* a source may map it to its fast reciprocal (math=fast) */
#endif
#if defined(K_DIVIDE_RECIPROCAL)
#define LBM_PER_RHO(x, rho) ((x) * LBM_RECIP(rho))
#else
#define LBM_PER_RHO(x, rho) ((x) / (rho))
#endif

/* Declares the density rho and the velocity ux, uy of s. moments=serial:
 * the sums as the report writes them, left to right (rho a chain of eight
 * dependent adds); moments=tree: opposite speeds paired first, then a
 * balanced tree (four levels for rho, three for the momentum), so the
 * collision's inputs are ready sooner; the rounding differs. */
#if defined(K_MOMENTS_TREE)
#define LBM_VELOCITY(s, rho, ux, uy)                                                         \
    const float a13_ = (s)[1] + (s)[3], a24_ = (s)[2] + (s)[4];                              \
    const float a57_ = (s)[5] + (s)[7], a68_ = (s)[6] + (s)[8];                              \
    const float d13_ = (s)[1] - (s)[3], d24_ = (s)[2] - (s)[4];                              \
    const float d57_ = (s)[5] - (s)[7], d68_ = (s)[6] - (s)[8];                              \
    float rho = ((s)[0] + a13_) + (a24_ + (a57_ + a68_));                                    \
    float ux = LBM_PER_RHO(d13_ + (d57_ - d68_), rho);                                       \
    float uy = LBM_PER_RHO(d24_ + (d57_ + d68_), rho)
#else
#define LBM_VELOCITY(s, rho, ux, uy)                                                         \
    float rho = (s)[0] + (s)[1] + (s)[2] + (s)[3] + (s)[4] + (s)[5] + (s)[6] + (s)[7] + (s)[8]; \
    float ux = LBM_PER_RHO((s)[1] + (s)[5] + (s)[8] - ((s)[3] + (s)[6] + (s)[7]), rho);      \
    float uy = LBM_PER_RHO((s)[2] + (s)[5] + (s)[6] - ((s)[4] + (s)[7] + (s)[8]), rho)
#endif

/* Obstacle cells bounce every particle back where it came from. */
LBM_FN void lbm_rebound(float *s) {
    float t;
    t = s[1]; s[1] = s[3]; s[3] = t;
    t = s[2]; s[2] = s[4]; s[4] = t;
    t = s[5]; s[5] = s[7]; s[7] = t;
    t = s[6]; s[6] = s[8]; s[8] = t;
}

#if defined(K_COLLIDE_PAIRED)
/* collide=paired: the same BGK relaxation, arranged by opposite directions.
 * Speeds k and k' = opposite(k) have u_k' = -u_k, so their equilibria share
 * w rho (base + u^2 / (2 c_sq^2)) and differ in the sign of w rho u / c_sq;
 * omega is folded into the weights, and s' = (1 - omega) s + omega eq.
 * About fourteen fewer operations a cell than the plain loop; the results
 * differ from it in rounding only. */
#define LBM_PAIR(k, kk, uk, wr)                                                              \
    do {                                                                                     \
        const float c_ = (wr) * (base + LBM_DIV_2CSQ2((uk) * (uk)));                         \
        const float l_ = (wr) * LBM_DIV_CSQ(uk);                                             \
        s[k] = keep * s[k] + (c_ + l_);                                                      \
        s[kk] = keep * s[kk] + (c_ - l_);                                                    \
    } while (0)
LBM_FN float lbm_collide(float *s, float omega) {
    LBM_VELOCITY(s, rho, ux, uy);
    float usq = ux * ux + uy * uy;
    const float keep = 1.0f - omega, orho = omega * rho;
    const float base = 1.0f - LBM_DIV_2CSQ(usq);
    const float w1r = orho * (1.0f / 9.0f), w2r = orho * (1.0f / 36.0f);
    s[0] = keep * s[0] + orho * (4.0f / 9.0f) * base;
    LBM_PAIR(1, 3, ux, w1r);
    LBM_PAIR(2, 4, uy, w1r);
    LBM_PAIR(5, 7, ux + uy, w2r);
    LBM_PAIR(6, 8, uy - ux, w2r);
    return usq;
}
#undef LBM_PAIR
#else
/* BGK relaxation towards the local equilibrium, in place. Returns |u|^2 of
 * the moments it used: the collision conserves density and momentum, so
 * that is the post-collision |u|^2 up to rounding (speed=moments uses it
 * instead of recomputing the moments from the new speeds, as av_velocity
 * does). */
LBM_FN float lbm_collide(float *s, float omega) {
    const float w0 = 4.0f / 9.0f, w1 = 1.0f / 9.0f, w2 = 1.0f / 36.0f;
    LBM_VELOCITY(s, rho, ux, uy);
    float usq = ux * ux + uy * uy;
    float u[9];
    u[1] = ux;        u[2] = uy;
    u[3] = -ux;       u[4] = -uy;
    u[5] = ux + uy;   u[6] = -ux + uy;
    u[7] = -ux - uy;  u[8] = ux - uy;
    float base = 1.0f - LBM_DIV_2CSQ(usq);
    float eq0 = w0 * rho * base;
    s[0] += omega * (eq0 - s[0]);
    for (int k = 1; k < 9; k++) {
        float w = k < 5 ? w1 : w2;
        float eq = w * rho * (base + LBM_DIV_CSQ(u[k]) + LBM_DIV_2CSQ2(u[k] * u[k]));
        s[k] += omega * (eq - s[k]);
    }
    return usq;
}
#endif

/* |u|^2 and |u| of a cell, for av_velocity. */
LBM_FN float lbm_speed_sq(const float *s) {
    LBM_VELOCITY(s, rho, ux, uy);
    return ux * ux + uy * uy;
}
LBM_FN float lbm_speed(const float *s) { return LBM_SQRT(lbm_speed_sq(s)); }

/* Collides s and returns its |u|^2: speed=moments takes the collision's own
 * moments (conserved by it), speed=post recomputes them from the new speeds
 * (as av_velocity does). The fused steps of every backend use it. */
LBM_FN float lbm_collide_usq(float *s, float omega) {
#if defined(K_SPEED_MOMENTS)
    return lbm_collide(s, omega);
#else
    lbm_collide(s, omega);
    return lbm_speed_sq(s);
#endif
}

/* accelerate_flow for one cell of row ny-2; `on` is 0 or 1 so the same code
 * serves the branching and the masking (fused-accel) forms. */
LBM_FN void lbm_accelerate(float *s, float w1, float w2, float on) {
    float ok = (s[3] - w1 > 0.0f && s[6] - w2 > 0.0f && s[7] - w2 > 0.0f) ? on : 0.0f;
    s[1] += ok * w1; s[5] += ok * w2; s[8] += ok * w2;
    s[3] -= ok * w1; s[6] -= ok * w2; s[7] -= ok * w2;
}
#endif
