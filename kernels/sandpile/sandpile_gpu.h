/* The sandpile kernels for the GPU programming models. sandpile.cl (OpenCL)
 * and sandpile.cu (CUDA) define the few words that differ (KERNEL, GLOBAL,
 * RESTRICT, LOCAL, LOCAL_PARAM, LOCAL_DECL, the index macros, BARRIER,
 * GROUP_ANY, LOCAL_MAX) and include this file, so both run the same
 * algorithm; the rule itself is sandpile_rule.h, shared with the serial
 * reference and the OpenMP kernels.
 *
 * Both kernels update the interior columns of the rows [row0, row1): one
 * device of a row split runs its own rows (the halo rows it reads are the
 * other device's, exchanged by the host); a single device runs [1, h-1).
 *
 * Termination: after step k, a work-group whose cells hold 4 or more
 * grains stores k in flags[k] (nothing is ever cleared: iteration numbers
 * only grow, so flags[k] == k means "grid k was unstable" whatever earlier
 * checks read; the host zeroes the array once per repetition). Unstable
 * steps are a prefix 1 .. K-1 of the run (a stable grid is a fixed point of
 * the rule), so the host needs only the last flagged step of a batch: K is
 * one past it, however far the run went beyond K (schedule.c). That lets the
 * tiled kernel flag once per launch (its last unstable step) rather than
 * once per step. K_DETECT_NONE (detect=none, the seed's plain kernel)
 * leaves the flags out. K_VOTE_ITEM (vote=item) has every unstable item
 * store the flag itself: no group vote and its barriers, many stores to one
 * word instead (which of the two costs less is the device's business:
 * PoCL pays for barriers, a GPU for same-address stores). K_VOTE_CELL
 * (vote=cell) records instead, per cell, the last step it was unstable, in
 * a W x H array in the flags' place: no barrier and no shared word, and the
 * host takes the largest entry when it checks (the last unstable step of
 * the whole grid, K-1), reading W x H ints instead of a batch of flags. */
#ifndef K_STEPS
#define K_STEPS 1
#endif
#include "sandpile_rule.h"

/* One synchronous step: one work-item per cell, x from 1, y from row0; the
 * launch is rounded up to whole groups and the items past the rows or the
 * interior columns only take part in the group's flag. */
#if K_STEPS == 1
KERNEL topple(GLOBAL const unsigned *RESTRICT in, GLOBAL unsigned *RESTRICT out, GLOBAL int *flags, int it, int w,
              int h, int row0, int row1 LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    const int x = 1 + (int)GID_X, y = row0 + (int)GID_Y;
    int unstable = 0;
    (void)h;
    if (x < w - 1 && y < row1) {
        const int i = y * w + x;
#ifdef K_BROKEN_BORDER
        /* tests only: the first column never receives its east neighbour's
         * grains (a sink one cell too wide) */
        const unsigned east = x == 1 ? 0u : in[i + 1];
#else
        const unsigned east = in[i + 1];
#endif
        const unsigned v = SP_RULE(in[i], in[i - w], in[i + w], east, in[i - 1]);
        out[i] = v;
        unstable = SP_UNSTABLE(v);
    }
#if defined(K_DETECT_NONE)
#elif defined(K_VOTE_ITEM)
    if (unstable) flags[it] = it; /* every unstable item stores, no barrier */
#elif defined(K_VOTE_CELL)
    if (unstable) flags[y * w + x] = it; /* the cell's own word: no barrier, no shared store */
#else
    if (GROUP_ANY(unstable, scratch) && LID_X == 0 && LID_Y == 0) flags[it] = it;
#endif
#ifdef K_DETECT_NONE
    (void)unstable;
    (void)flags;
    (void)it;
#endif
}
#endif

/* Temporal blocking (steps=T > 1): a group loads a tile of LSIZE_X x
 * LSIZE_Y cells into local memory and runs `nsteps` <= T steps there, then
 * writes its inner (LSIZE_X - 2T) x (LSIZE_Y - 2T) cells. The tile's edge
 * cells cannot be updated (their neighbours are outside), so the stale zone
 * grows one cell a step from the edge; after nsteps <= T steps the inner
 * cells, T from every edge, are exact. Cells outside the grid's interior
 * are 0 and stay 0 (the sink). Tiles overlap by 2T: each cell is inner to
 * exactly one group, which writes it and counts it in the flag. Each item
 * remembers the last step its own cell was unstable; one atomic max in
 * local memory after the loop gives the group's, so the steps cost the
 * tile's two barriers and nothing more, and the group stores one flag.
 * (gx, gy) is the block of cells: the launch's group, or one a resident
 * group took (launch=resident, below). */
#define TILE_STEPS_BODY(in, out)                                                                                       \
    const int lx = (int)LID_X, ly = (int)LID_Y, bw = (int)LSIZE_X, bh = (int)LSIZE_Y;                                  \
    const int iw = bw - 2 * K_STEPS, ih = bh - 2 * K_STEPS;                                                            \
    const int x = 1 + gx * iw - K_STEPS + lx;                                                                          \
    const int y = row0 + gy * ih - K_STEPS + ly;                                                                       \
    const int cell = x >= 1 && x < w - 1 && y >= 1 && y < h - 1;                                                       \
    const int own = cell && lx >= K_STEPS && lx < K_STEPS + iw && ly >= K_STEPS && ly < K_STEPS + ih && y < row1;      \
    const int edge = lx == 0 || ly == 0 || lx == bw - 1 || ly == bh - 1;                                               \
    LOCAL unsigned *t = scratch;                                                                                       \
    LOCAL int *best = (LOCAL int *)(scratch + TILE_COPIES * bw * bh); /* the group's last unstable step */             \
    const int l = ly * bw + lx;                                                                                        \
    unsigned v = cell ? in[y * w + x] : 0u;                                                                            \
    int last = -1;                                                                                                     \
    t[l] = v;                                                                                                          \
    if (l == 0) *best = -1;                                                                                            \
    TILE_LOOP                                                                                                          \
    TILE_FLAG                                                                                                          \
    if (own) out[y * w + x] = v;

/* The steps in local memory. tile=single: one copy of the tile, so a step
 * reads its neighbours, waits, then writes (two barriers a step).
 * tile=double: two copies in turn, read one and write the other, so only the
 * barrier before each step's reads remains (the writes of step s go to the
 * copy that step s-1 read, all of whose reads came before that barrier). */
#ifdef K_TILE_DOUBLE
#define TILE_COPIES 2
#define TILE_LOOP                                                                                                      \
    LOCAL unsigned *cur = t, *nxt = t + bw * bh;                                                                       \
    for (int s = 0; s < nsteps; s++) {                                                                                 \
        BARRIER;                                                                                                       \
        unsigned nv = v;                                                                                               \
        if (cell && !edge) nv = SP_RULE(cur[l], cur[l - bw], cur[l + bw], cur[l + 1], cur[l - 1]);                     \
        nxt[l] = nv;                                                                                                   \
        v = nv;                                                                                                        \
        LOCAL unsigned *was = cur;                                                                                     \
        cur = nxt;                                                                                                     \
        nxt = was;                                                                                                     \
        if (own && SP_UNSTABLE(v)) last = s;                                                                           \
    }
#else
#define TILE_COPIES 1
#define TILE_LOOP                                                                                                      \
    for (int s = 0; s < nsteps; s++) {                                                                                 \
        BARRIER;                                                                                                       \
        unsigned nv = v;                                                                                               \
        if (cell && !edge) nv = SP_RULE(t[l], t[l - bw], t[l + bw], t[l + 1], t[l - 1]);                               \
        BARRIER;                                                                                                       \
        t[l] = nv;                                                                                                     \
        v = nv;                                                                                                        \
        if (own && SP_UNSTABLE(v)) last = s;                                                                           \
    }
#endif

#if defined(K_DETECT_NONE)
#define TILE_FLAG                                                                                                      \
    (void)flags;                                                                                                       \
    (void)it;                                                                                                          \
    (void)last;                                                                                                        \
    (void)best;
#elif defined(K_VOTE_ITEM)
#define TILE_FLAG                                                                                                      \
    if (last >= 0) flags[it + last] = it + last;                                                                       \
    (void)best;
#elif defined(K_VOTE_CELL)
#define TILE_FLAG                                                                                                      \
    if (last >= 0) flags[y * w + x] = it + last; /* only own cells have last >= 0 */                                   \
    (void)best;
#else
#define TILE_FLAG                                                                                                      \
    BARRIER;                                                                                                           \
    if (last >= 0) LOCAL_MAX(best, last);                                                                              \
    BARRIER;                                                                                                           \
    if (l == 0 && *best >= 0) flags[it + *best] = it + *best;
#endif

/* A program holds the kernels its steps can launch (schedule.c picks one):
 * PoCL compiles every kernel of a program (issue 40). */
#if K_STEPS > 1
KERNEL topple_tiled(GLOBAL const unsigned *RESTRICT in, GLOBAL unsigned *RESTRICT out, GLOBAL int *flags, int it,
                    int nsteps, int w, int h, int row0, int row1 LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    const int gx = (int)GROUP_X, gy = (int)GROUP_Y;
    TILE_STEPS_BODY(in, out)
}
#endif

#ifdef GRID_SYNC
/* launch=resident (CUDA): one co-resident launch runs `count` steps from
 * step `it`: every group takes blocks of cells in turn (block b of
 * tiles_x x tiles_y, b = group, group + groups, ...), runs up to T steps on
 * each in local memory as topple_tiled does, and the whole grid waits at a
 * grid-wide barrier between rounds of T steps instead of between launches.
 * After a round every group reads the flag of the round's last step: if no
 * block flagged it, that grid is stable (a fixed point of the rule), so the
 * groups copy their blocks into the other grid (both then hold the stable
 * grid, whichever one the host takes as current) and leave: the launch ends
 * at stability, not at the end of its batch. The grids are written during
 * the launch, so no read-only (non-coherent) loads: no RESTRICT here; the
 * barrier's acquire makes other groups' writes of the last round visible. */
KERNEL topple_resident(GLOBAL unsigned *a, GLOBAL unsigned *b, GLOBAL int *flags, GLOBAL unsigned *bar, int it0,
                       int count, int w, int h, int row0, int row1, int tiles_x, int tiles_y) {
    LOCAL_DECL(scratch)
    const int blocks = tiles_x * tiles_y;
    GLOBAL unsigned *src = a, *dst = b;
    for (int done = 0; done < count;) {
        const int nsteps = count - done < K_STEPS ? count - done : K_STEPS, it = it0 + done;
        for (int blk = (int)GROUP_X; blk < blocks; blk += (int)NUM_GROUPS) {
            const int gx = blk % tiles_x, gy = blk / tiles_x;
            TILE_STEPS_BODY(src, dst)
            BARRIER; /* the next block reuses the tile and *best */
        }
        GRID_SYNC(bar);
        done += nsteps;
        const int last = it0 + done - 1;
        if (((volatile GLOBAL int *)flags)[last] != last) {
            for (int blk = (int)GROUP_X; blk < blocks; blk += (int)NUM_GROUPS) {
                const int iw = (int)LSIZE_X - 2 * K_STEPS, ih = (int)LSIZE_Y - 2 * K_STEPS;
                const int x = 1 + (blk % tiles_x) * iw + (int)LID_X, y = row0 + (blk / tiles_x) * ih + (int)LID_Y;
                if ((int)LID_X < iw && (int)LID_Y < ih && x < w - 1 && y < row1) src[y * w + x] = dst[y * w + x];
            }
            return;
        }
        GLOBAL unsigned *tmp = src;
        src = dst;
        dst = tmp;
    }
}
#endif

#if defined(K_CELLS) && K_CELLS > 1
/* cells=R (with steps=T > 1): temporal blocking with R cells per work-item.
 * A group of LSIZE_X x LSIZE_Y items holds a tile of bw = LSIZE_X columns
 * and bh = R * LSIZE_Y rows; item (lx, ly) owns the column strip of tile
 * rows ly*R .. ly*R + R-1 at column lx and keeps its R cells in registers.
 * A step reads north and south from its own registers but at the strip's two
 * ends, and east and west (and the two ends) from the tile in local memory:
 * 2R + 2 reads and R writes of local memory for R cell updates, against 5
 * reads and a write a cell in topple_tiled; and the taller tile wastes less
 * of the group on halo (a 32x8 group with R = 8 is a 32x64 tile: with T = 4
 * its inner 24x56 cells are 66 % of it, a 32x32 group's 24x24 are 56 %).
 * The rest is topple_tiled's: the inner (bw - 2T) x (bh - 2T) cells exact
 * after up to T steps, written and counted in the flags as there (per
 * vote), rows [row0, row1) of a split. A consecutive lx is a consecutive
 * address in each tile row, so the local reads and the global loads and
 * stores of a row are whole lines.
 *
 * No cell tests whether it is on the tile's edge: every cell applies the
 * rule, and the tile's edge cells read whatever lies beyond it (a row of
 * padding above and below each copy of the tile, never written; the row
 * before or after for the first and last columns). That only moves where
 * the stale zone starts: an edge cell is wrong after step 1, a cell d from
 * the edge after step d + 1, so the inner cells (T or more from the edge)
 * are exact after T steps as before. Cells outside the grid's interior (the
 * sink) are masked to 0 at every step; the group's own cells are masked
 * into one word whose grains >= 4 say the step was unstable for them. */
#ifdef K_TILE_DOUBLE
#define STRIP_COPIES 2
#else
#define STRIP_COPIES 1
#endif
KERNEL topple_strip(GLOBAL const unsigned *RESTRICT in, GLOBAL unsigned *RESTRICT out, GLOBAL int *flags, int it,
                    int nsteps, int w, int h, int row0, int row1 LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    const int lx = (int)LID_X, ly = (int)LID_Y, bw = (int)LSIZE_X, bh = K_CELLS * (int)LSIZE_Y;
    const int iw = bw - 2 * K_STEPS, ih = bh - 2 * K_STEPS;
    const int x = 1 + (int)GROUP_X * iw - K_STEPS + lx;
    const int ty0 = ly * K_CELLS;                            /* the strip's first tile row */
    const int y0 = row0 + (int)GROUP_Y * ih - K_STEPS + ty0; /* its grid row */
    const int col = x >= 1 && x < w - 1;                     /* an interior column */
    const int xin = lx >= K_STEPS && lx < K_STEPS + iw;      /* an inner column of the tile */
    /* Copy c of the tile starts at (c + 1) * bw + c * bw * bh: a padding row
     * of bw before each copy and one after the last. */
    LOCAL unsigned *t = scratch + bw;
    LOCAL int *best = (LOCAL int *)(scratch + STRIP_COPIES * bw * (bh + 1) + bw); /* the group's last unstable step */
    unsigned v[K_CELLS], live[K_CELLS], mine[K_CELLS]; /* ~0u on a cell of the interior (not the sink); on an own one */
#pragma unroll
    for (int r = 0; r < K_CELLS; r++) {
        const int y = y0 + r, ty = ty0 + r;
        const int cell = col && y >= 1 && y < h - 1;
        live[r] = cell ? ~0u : 0u;
        mine[r] = cell && xin && ty >= K_STEPS && ty < K_STEPS + ih && y < row1 ? ~0u : 0u;
        v[r] = cell ? in[y * w + x] : 0u;
        t[ty * bw + lx] = v[r];
    }
#ifdef K_VOTE_CELL
    int last[K_CELLS];
#pragma unroll
    for (int r = 0; r < K_CELLS; r++) last[r] = -1;
#else
    int last = -1;
#endif
    if (lx == 0 && ly == 0) *best = -1;
    LOCAL unsigned *cur = t;
#ifdef K_TILE_DOUBLE
    LOCAL unsigned *nxt = t + bw * (bh + 1);
#endif
    const int l = ty0 * bw + lx; /* the strip's first cell in the tile */
    for (int s = 0; s < nsteps; s++) {
        BARRIER;
        unsigned nv[K_CELLS];
        const unsigned north = cur[l - bw], south = cur[l + K_CELLS * bw]; /* the strip's ends */
#pragma unroll
        for (int r = 0; r < K_CELLS; r++) {
            const unsigned n = r == 0 ? north : v[r - 1], so = r == K_CELLS - 1 ? south : v[r + 1];
            nv[r] = SP_RULE(v[r], n, so, cur[l + r * bw + 1], cur[l + r * bw - 1]) & live[r];
        }
#ifdef K_TILE_DOUBLE
        /* The other copy: every read of it (step s-1's) came before this
         * step's barrier. */
        LOCAL unsigned *was = cur;
        cur = nxt;
        nxt = was;
#else
        BARRIER; /* every read of this step before any write */
#endif
#ifndef K_VOTE_CELL
        unsigned mask = 0u;
#endif
#pragma unroll
        for (int r = 0; r < K_CELLS; r++) {
            v[r] = nv[r];
            cur[l + r * bw] = v[r];
#ifdef K_VOTE_CELL
            if (SP_UNSTABLE(v[r] & mine[r])) last[r] = s;
#else
            mask |= v[r] & mine[r];
#endif
        }
#ifndef K_VOTE_CELL
        if (SP_UNSTABLE(mask)) last = s; /* some own cell holds 4 or more */
#endif
    }
#if defined(K_VOTE_CELL) && !defined(K_DETECT_NONE)
#pragma unroll
    for (int r = 0; r < K_CELLS; r++)
        if (last[r] >= 0) flags[(y0 + r) * w + x] = it + last[r]; /* only own cells have last >= 0 */
    (void)best;
#else
    TILE_FLAG /* topple_tiled's: l == 0 is item (0, 0) here too */
#endif
#pragma unroll
    for (int r = 0; r < K_CELLS; r++)
        if (mine[r]) out[(y0 + r) * w + x] = v[r];
}
#endif
