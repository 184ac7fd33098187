/* The range without a partials array (range=atomic), included by
 * stencil_gpu.h. Each iteration j has a pair of unsigned words,
 * slots[2j] and slots[2j+1] (stencil_point.h: floats as order-preserving
 * keys, both started at the key of 0 by the host); every work-group folds
 * its (min, max) in with one atomic min and one atomic max. The host reads
 * the pairs only every `check` iterations, so launches queue up in between;
 * an update launch that finds an earlier iteration already at range <= 100
 * returns at once (every item reads the same words: the exit is uniform and
 * comes before any barrier), so iterations past convergence change nothing
 * and the count the host finds in the pairs is exact.
 *
 * How a group combines its items' pairs is the knob reduce:
 *   tree    the local-memory tree of group_range (log2(items) barriers);
 *   atomic  one local atomic min and max per item on a pair of local words
 *           (two barriers);
 *   warp    32-wide shuffles within each warp, the warps' pairs through
 *           local memory, one barrier, the first warp's shuffles again.
 * The language files supply ATOMIC_MIN/ATOMIC_MAX (global and local
 * unsigned words), RESTRICT and, for reduce=warp, WARP_XOR(v, lane mask). */

#if defined(K_REDUCE_WARP)
/* A warp's pair in every lane. The shuffles are taken into variables
 * first: ST_LO and ST_HI are macros that name their argument twice, and a
 * shuffle in one arm of a selection would run in some lanes only. */
ST_FN void warp_pair(float *lo, float *hi) {
    float l = *lo, h = *hi;
    for (int o = 16; o > 0; o >>= 1) {
        const float ol = WARP_XOR(l, o), oh = WARP_XOR(h, o);
        l = ST_LO(l, ol);
        h = ST_HI(h, oh);
    }
    *lo = l;
    *hi = h;
}
#endif

/* The group's (lo, hi) left in item 0's *lo, *hi (other items': partial).
 * scratch holds at least 2*lsize floats. Every item must call it, and the
 * caller keeps a barrier between two calls that share scratch. */
ST_FN void group_pair(LOCAL float *scratch, float *lo, float *hi, int lid, int lsize) {
#if defined(K_REDUCE_WARP)
    /* Items fill warps in linear local-id order (x fastest), 32 a warp;
     * the rules (app.c) ask for a multiple of 32 items, at most 1024. */
    float l = *lo, h = *hi;
    warp_pair(&l, &h);
    const int warp = lid >> 5, lane = lid & 31, nwarps = lsize >> 5;
    if (lane == 0) {
        scratch[warp] = l;
        scratch[32 + warp] = h;
    }
    BARRIER;
    if (warp == 0) {
        /* Absent warps count as 0, which cannot move a pair with lo <= 0 <= hi. */
        l = lane < nwarps ? scratch[lane] : 0.0f;
        h = lane < nwarps ? scratch[32 + lane] : 0.0f;
        warp_pair(&l, &h);
    }
    *lo = l;
    *hi = h;
#elif defined(K_REDUCE_ATOMIC)
    LOCAL ST_UINT *key = (LOCAL ST_UINT *)scratch;
    if (lid == 0) key[0] = key[1] = ST_KEY_ZERO;
    BARRIER;
    ATOMIC_MIN(&key[0], st_key(*lo));
    ATOMIC_MAX(&key[1], st_key(*hi));
    BARRIER;
    *lo = st_unkey(key[0]);
    *hi = st_unkey(key[1]);
#else
    group_tree(scratch, scratch + lsize, lo, hi, lid, lsize);
#endif
}

/* Whether an iteration before `it` (back to it - back) reached range <= 100.
 * A pair no launch has touched reads as range 0, so launches queued behind
 * a skipped one skip too. */
ST_FN int converged_before(GLOBAL const ST_UINT *slots, int it, int back) {
    for (int j = it - back; j < it; j++)
        if (j >= 0 && st_slot_range(slots[2 * j], slots[2 * j + 1]) <= ST_LIMIT) return 1;
    return 0;
}

/* Item 0 folds the group's pair into iteration j's words. */
ST_FN void fold_pair(GLOBAL ST_UINT *slots, int j, float lo, float hi, int lid) {
    if (lid == 0) {
        ATOMIC_MIN(&slots[2 * j], st_key(lo));
        ATOMIC_MAX(&slots[2 * j + 1], st_key(hi));
    }
}

/* One iteration, K_ROWS points down each item's column. All the column's
 * loads (K_ROWS + 2 rows of it, and the K_ROWS west and east neighbours)
 * are issued before the first store, so they are in flight together, and
 * each row of the grid is read from memory once per column (the window
 * slides in registers) instead of three times. */
#if defined(K_RANGE_ATOMIC) && K_STEPS == 1
KERNEL update_atomic(GLOBAL const float *RESTRICT in, GLOBAL float *RESTRICT out, GLOBAL ST_UINT *slots, int w,
                     int h, int it LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    if (converged_before(slots, it, 1)) return;
    const int x = (int)GID_X, y0 = (int)GID_Y * K_ROWS;
    const int lid = (int)(LID_X + LID_Y * LSIZE_X), lsize = (int)(LSIZE_X * LSIZE_Y);
    float lo = 0.0f, hi = 0.0f;
    if (x > 0 && x < w - 1) {
        float col[K_ROWS + 2], west[K_ROWS], east[K_ROWS];
        const int i0 = y0 * w + x;
#pragma unroll
        for (int r = 0; r < K_ROWS + 2; r++) {
            const int y = y0 - 1 + r;
            col[r] = y >= 0 && y < h ? in[i0 + (r - 1) * w] : 0.0f;
        }
#pragma unroll
        for (int r = 0; r < K_ROWS; r++) {
            west[r] = in[i0 + r * w - 1];
            east[r] = in[i0 + r * w + 1];
        }
#pragma unroll
        for (int r = 0; r < K_ROWS; r++) {
            const int y = y0 + r;
            if (y == 0 || y >= h - 1) continue;
            const float v = stencil_point(col[r], west[r], col[r + 2], east[r], col[r + 1]);
            out[i0 + r * w] = v;
            lo = ST_LO(lo, v);
            hi = ST_HI(hi, v);
        }
    }
    group_pair(scratch, &lo, &hi, lid, lsize);
    fold_pair(slots, it, lo, hi, lid);
}
#endif

/* Temporal blocking: `nsteps` (<= K_STEPS) iterations in one launch. The
 * group's tile is LSIZE_X x LSIZE_Y*K_ROWS points; it loads the tile with
 * a K_STEPS-point halo into local memory, and step s recomputes the points
 * at least s from the loaded edge (the halo shrinks by one a step), so the
 * tile's own points are exact after every step; each step's range over the
 * tile goes to its own pair. Points outside the grid load as 0 and, like
 * the border, are copied, never updated. Local memory: the reduction's
 * 2*lsize floats, then two (LSIZE_X+2T) x (LSIZE_Y*K_ROWS+2T) buffers.
 * The host relaunches from the untouched `in` with fewer steps when the
 * range falls within a launch (schedule.c). */
#if defined(K_RANGE_ATOMIC) && K_STEPS > 1
KERNEL update_blocked(GLOBAL const float *RESTRICT in, GLOBAL float *RESTRICT out, GLOBAL ST_UINT *slots, int w,
                      int h, int it, int nsteps LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    if (converged_before(slots, it, K_STEPS)) return;
    const int T = K_STEPS, tx = (int)LSIZE_X, ty = (int)LSIZE_Y * K_ROWS;
    const int ex = tx + 2 * T, ey = ty + 2 * T;
    const int lx0 = (int)LID_X, ly0 = (int)LID_Y, sx = (int)LSIZE_X, sy = (int)LSIZE_Y;
    const int lid = lx0 + ly0 * sx, lsize = sx * sy;
    const int gx0 = (int)GROUP_X * tx - T, gy0 = (int)GROUP_Y * ty - T;
    LOCAL float *src = scratch + 2 * lsize, *dst = src + ex * ey;
    for (int ly = ly0; ly < ey; ly += sy)
        for (int lx = lx0; lx < ex; lx += sx) {
            const int gx = gx0 + lx, gy = gy0 + ly;
            src[ly * ex + lx] = gx >= 0 && gx < w && gy >= 0 && gy < h ? in[gy * w + gx] : 0.0f;
        }
    BARRIER;
    for (int s = 1; s <= nsteps; s++) {
        float lo = 0.0f, hi = 0.0f;
        for (int ly = s + ly0; ly < ey - s; ly += sy)
            for (int lx = s + lx0; lx < ex - s; lx += sx) {
                const int gx = gx0 + lx, gy = gy0 + ly, p = ly * ex + lx;
                float v = src[p];
                if (gx > 0 && gx < w - 1 && gy > 0 && gy < h - 1) {
                    v = stencil_point(src[p - ex], src[p - 1], src[p + ex], src[p + 1], v);
                    if (lx >= T && lx < T + tx && ly >= T && ly < T + ty) {
                        lo = ST_LO(lo, v);
                        hi = ST_HI(hi, v);
                    }
                }
                dst[p] = v;
            }
        group_pair(scratch, &lo, &hi, lid, lsize);
        fold_pair(slots, it + s - 1, lo, hi, lid);
        BARRIER; /* dst complete before it is read; scratch free for the next step's pair */
        LOCAL float *t = src;
        src = dst;
        dst = t;
    }
    for (int ly = T + ly0; ly < T + ty; ly += sy)
        for (int lx = T + lx0; lx < T + tx; lx += sx) {
            const int gx = gx0 + lx, gy = gy0 + ly;
            if (gx > 0 && gx < w - 1 && gy > 0 && gy < h - 1) out[gy * w + gx] = src[ly * ex + lx];
        }
}
#endif
