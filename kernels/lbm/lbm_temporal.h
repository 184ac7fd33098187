/* temporal=2..8: several time steps per launch of the fused step
 * (temporal blocking), included by lbm.cl and lbm.cu after lbm_gpu.h.
 *
 * Why: on small grids a step costs a launch (about 1.4 us with CUDA graphs
 * and overlapped launches, 4-6 us per OpenCL enqueue) and on large ones it
 * costs the lattice's trip through DRAM. T steps per launch pay one launch
 * and one trip for T steps.
 *
 * How: each work-group owns the tile of its own shape (tile=group), or of
 * its shape less 2(T-1) cells each way (tile=inner: then every sub-step's
 * region is at most the group, one pass each). It loads the tile
 * with a halo T cells wide (periodic wrap-around) into local memory, then
 * runs T sub-steps there: sub-step s updates the region T-1-s cells around
 * the tile (its pulls reach one cell further, which the previous sub-step
 * left valid), so the last one updates exactly the tile, which goes to
 * dst. Halo cells are computed by every group whose halo they lie in:
 * redundant work, traded for launches and traffic. Only the tile's own
 * cells count in the step's |u| sum (one partial per group per step, as
 * the fused step writes them).
 *
 * Two local lattices, a sub-step reading one and writing the other, so a
 * sub-step costs one barrier (lattices=one, with tile=inner: one lattice
 * updated in place, each item's new speeds held in registers across a
 * second barrier; half the local memory, so larger tiles fit a 48 KiB
 * work-group, as NVIDIA's OpenCL allows); the steps' |u| sums wait in registers and
 * are reduced together after the last (tb_reduce_steps). The first version
 * updated one lattice in place through registers (up to four cells of
 * nine speeds a work-item, 128 registers on sm_90, two barriers a
 * sub-step): on an H200 it was slower than g06-pdl at every size.
 *
 * cells=fixed (tile=inner) gives each item one cell for every sub-step;
 * entry=pull then skips the load pass: the first sub-step pulls from the
 * global lattice. halo=cluster shares the x halo through a thread-block
 * cluster instead of recomputing it. sums=end shuffles the steps' warp sums
 * after the last sub-step; unroll=counted spells the sub-step loop out for
 * compilers that leave a bare `#pragma unroll` loop with an exit rolled.
 *
 * The launch is bound once (bind=once): its first step comes from the
 * device clock, and it runs count = min(T, steps left, steps left in the
 * reduction chunk) steps, so a launch never spans two chunks of partials;
 * the host counts the same way (launch_steps.c). */
#if K_TEMPORAL > 1

#if !defined(K_BIND_ONCE)
#error "temporal>1 reads its first step from the device clock: the rules require bind=once"
#endif

#define TB_STEPS K_TEMPORAL

/* c / w for the small non-negative c and w here, by a float multiply: an
 * integer division by a run-time w costs about twenty instructions a cell.
 * Exact: c + 0.5 lies at least 0.5 / w from a multiple of w, far beyond the
 * multiply's rounding for c < 2^20. */
#define TB_DIV(c, inv) ((int)(((float)(c) + 0.5f) * (inv)))

/* geometry=compiled: the host passes the work-group's shape as K_WG_X and
 * K_WG_Y, so the tile, the halo, every sub-step's region and the local
 * lattices' offsets are constants. The nine pulls then become loads at
 * fixed offsets from one address, and a row is a multiply by a constant;
 * with run-time sizes each pull costs its own multiply-add (the PTX of
 * the sub-step loop: about 300 instructions a cell, a third of them index
 * arithmetic). geometry=runtime reads the shape from the launch. */
#if defined(K_GEOMETRY_COMPILED)
#if !defined(K_WG_X) || !defined(K_WG_Y)
#error "geometry=compiled: the host passes the work-group's shape as K_WG_X and K_WG_Y"
#endif
#define TB_GROUP_X K_WG_X
#define TB_GROUP_Y K_WG_Y
#define TB_ROW(c, w, inv) ((int)((unsigned)(c) / (unsigned)(w)))
#else
#define TB_GROUP_X ((int)LSIZE_X)
#define TB_GROUP_Y ((int)LSIZE_Y)
#define TB_ROW(c, w, inv) TB_DIV(c, inv)
#endif

/* lattices=two|one: local lattices a sub-step reads and writes. */
#if defined(K_LATTICES_ONE)
#define TB_LATTICES 1
#else
#define TB_LATTICES 2
#endif

/* ilp=1|2: cells a work-item updates at once in a sub-step's pass. */
#if defined(K_ILP)
#define TB_ILP K_ILP
#else
#define TB_ILP 1
#endif

/* halo=compute|cluster: the halo across x computed by each work-group, or
 * (CUDA, sm_90) none: the work-groups of a row of tiles are one
 * thread-block cluster spanning the grid's width, and a sub-step's pulls
 * across a tile's west or east edge read the neighbouring block's local
 * lattice (distributed shared memory; the row wraps around, as the grid
 * does). Every sub-step then ends at a cluster barrier, not a group's:
 * the neighbours' next lattice is written and nobody still reads the one
 * the next sub-step overwrites. Only the halo across y is recomputed, so a
 * small grid's redundant work falls by the x share (128x128, T=5, 8x24
 * groups: 1.25 cells updated a cell a sub-step, where 24x16 groups with
 * both halos update 1.94). */
#if defined(K_HALO_CLUSTER)
#if defined(K_LATTICES_ONE)
#error "halo=cluster: the neighbours read a sub-step's lattice while it is current: lattices=two"
#endif
#define TB_HALO_X 0
#define TB_SYNC cluster_sync()
#else
#define TB_HALO_X TB_STEPS
#define TB_SYNC BARRIER
#endif

/* One cell's rebound or collision in place; returns its |u| (0 for an obstacle). */
LBM_FN float tb_update(float *s, int obst, float omega) {
    REBOUND_OR_COLLIDE;
    return u;
}

#if defined(K_TREE_WARP)
/* tree=warp: this warp's sum of v, into its slot of step s (lane 0 writes). */
LBM_FN void tb_warp_slot(LOCAL float *slots, int s, int lid, float v) {
    const float w = WARP_SUM(v);
    if ((lid & 31) == 0) slots[s * 32 + lid / 32] = w;
}
#endif

/* i wrapped into [0, n) for any i at most one grid away. */
LBM_FN int tb_wrap(int i, int n) { return i < 0 ? i + n : i >= n ? i - n : i; }

/* The launch's `count` steps' group sums, after the last sub-step, whose
 * barrier they follow. tree=warp: each warp summed each sub-step by shuffles
 * into slots[step][warp] (no barrier of its own), and here one warp a step
 * adds them up. Otherwise the items' sums wait in registers (usums) and one
 * local-memory tree sums all the steps at once in the free lattice memory
 * (`scratch`, T x lsize floats): log2 of the group's size barriers a
 * launch, where the first version paid them (eight for 256 items) every
 * sub-step. Step t0 + s goes to slot slot0 + s: a launch never spans two
 * chunks. */
LBM_FN void tb_reduce_steps(LOCAL float *scratch, LOCAL const float *slots, const float *usums, int count,
                            GLOBAL float *partials, int slot0, int group, int ngroups, int lid, int lsize) {
    GLOBAL float *out = partials + (size_t)slot0 * (size_t)ngroups + (size_t)group;
#if defined(K_TREE_WARP)
    (void)scratch; (void)usums;
    /* Warp w adds step w's slots (and w + nwarps's...): the steps' sums in
     * parallel, one shuffle chain long, not T chains in turn by one warp. */
    const int nwarps = lsize / 32, warp = lid / 32, lane = lid & 31;
    for (int s = warp; s < count; s += nwarps) {
        const float total = WARP_SUM(lane < nwarps ? slots[s * 32 + lane] : 0.0f);
        if (lane == 0) out[(size_t)s * (size_t)ngroups] = total;
    }
#else
    (void)slots;
    for (int s = 0; s < TB_STEPS; s++) {
        if (s >= count) break;
        scratch[s * lsize + lid] = usums[s];
    }
    BARRIER;
    int stride = 1;
    while (stride < lsize) stride <<= 1;
    for (stride >>= 1; stride > 0; stride >>= 1) {
        if (lid < stride && lid + stride < lsize)
            for (int s = 0; s < count; s++) scratch[s * lsize + lid] += scratch[s * lsize + lid + stride];
        BARRIER;
    }
    if (lid < count) out[(size_t)lid * (size_t)ngroups] = scratch[lid * lsize];
#endif
}

KERNEL fused_temporal(STEP_GRIDS, GLOBAL const uchar *obstacles, GLOBAL float *partials,
                      COMMON_PARAMS, int slot, int accelerate CLOCK_PARAMS LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    EMPTY_RETURN;
    DEPENDENCY_WAIT; /* before the first read: the step clock and the lattice */
    BIND_STEP_GRIDS;
    ACCEL_WEIGHTS;
    (void)slot;
    const int ncells = nx * ny;
    (void)ncells;
    const int t0 = clock[which];
    int count = nsteps - t0;
    if (count > TB_STEPS) count = TB_STEPS;
    if (count > chunk - t0 % chunk) count = chunk - t0 % chunk;

#if defined(K_TILE_INNER)
    /* tile=inner: the group covers the tile and all but the outermost ring
     * of its halo, so no sub-step needs more than one pass of the group. */
    const int lx = TB_GROUP_X - (TB_HALO_X ? 2 * (TB_STEPS - 1) : 0), ly = TB_GROUP_Y - 2 * (TB_STEPS - 1);
#else
    const int lx = TB_GROUP_X, ly = TB_GROUP_Y;
#endif
    const int lid = (int)LID_X + (int)LID_Y * TB_GROUP_X, lsize = TB_GROUP_X * TB_GROUP_Y;
    const int W = lx + 2 * TB_HALO_X, H = ly + 2 * TB_STEPS, area = W * H;
    const int x0 = (int)GROUP_X * lx - TB_HALO_X, y0 = (int)GROUP_Y * ly - TB_STEPS;
    const int group = (int)(GROUP_X + GROUP_Y * NGROUPS_X), ngroups = (int)(NGROUPS_X * NGROUPS_Y);
    LOCAL float *f = scratch;                        /* [lattices][9][area], speed-major */
    LOCAL float *slots = scratch + TB_LATTICES * 9 * area; /* [T][32] warp sums (tree=warp) */
    LOCAL uchar *ob = (LOCAL uchar *)(slots + TB_STEPS * 32); /* [area] obstacle bytes */

#if defined(K_CELLS_FIXED)
#if !defined(K_TILE_INNER) || TB_ILP != 1
#error "cells=fixed: one cell an item for every sub-step: tile=inner, ilp=1"
#endif
    /* cells=fixed: item (x, y) of the group keeps the cell one ring in from
     * the halo's edge (x alone with halo=cluster, which has no halo across
     * x) for every sub-step, the first region being the group's shape; its
     * obstacle flag is read once, and its index and row (constants of the
     * unrolled sub-steps) are computed once. */
    const int fixed_x = (int)LID_X + (TB_HALO_X ? 1 : 0), fixed_y = (int)LID_Y + 1;
#endif
#if defined(K_ENTRY_PULL)
    /* entry=pull (cells=fixed): no load pass; the first sub-step pulls its
     * cells' speeds from the global lattice and each item reads its own
     * cell's obstacle byte, so the launch starts without a round trip
     * through local memory or a barrier. */
#if !defined(K_CELLS_FIXED)
#error "entry=pull: each item pulls its own cell's speeds: cells=fixed"
#endif
    (void)ob;
    const int entry_x = tb_wrap(x0 + fixed_x, nx), entry_y = tb_wrap(y0 + fixed_y, ny);
    const int fixed_obst = RD(obstacles[entry_x + entry_y * nx]);
#else
    /* Two cells a work-item per pass, all their loads issued before any
     * store: twice the loads in flight while the group waits at the barrier. */
    const float inv_w = 1.0f / (float)W;
    for (int c0 = lid; c0 < area; c0 += 2 * lsize) {
        float v[2][9];
        uchar o[2];
        int c[2]; /* the second cell past the halo repeats the first */
        for (int h = 0; h < 2; h++) {
            c[h] = c0 + h * lsize < area ? c0 + h * lsize : c0;
            const int row = TB_ROW(c[h], W, inv_w);
            const int gi = tb_wrap(x0 + c[h] - row * W, nx) + tb_wrap(y0 + row, ny) * nx;
            for (int k = 0; k < 9; k++) v[h][k] = RD(AT(src, k, gi));
            o[h] = RD(obstacles[gi]);
        }
        for (int h = 0; h < 2; h++) {
            for (int k = 0; k < 9; k++) f[k * area + c[h]] = v[h][k];
            ob[c[h]] = o[h];
        }
    }
#endif
#if defined(K_HALO_CLUSTER)
    /* The west and east neighbours' local lattices, mapped once. */
    const unsigned crank = cluster_rank(), csize = cluster_size();
    const float *west = cluster_map(f, (crank + csize - 1) % csize);
    const float *east = cluster_map(f, (crank + 1) % csize);
#endif
#if !defined(K_ENTRY_PULL)
    TB_SYNC; /* halo=cluster: every neighbour's tile is in before anyone pulls across */
#endif

#if defined(K_CELLS_FIXED) && !defined(K_ENTRY_PULL)
    const int fixed_obst = ob[fixed_x + fixed_y * W];
#endif
    float pending = 0.0f; /* sums=deferred: the previous sub-step's sum, not yet warp-summed */
    (void)pending;
    float usums[TB_STEPS]; /* each sub-step's |u| sum of this item's own cells (tree=local) */
    (void)usums;
    /* geometry=compiled: unrolled, so each sub-step's region is a constant
     * size (40 registers on sm_90 at T=4). With run-time sizes the copies
     * only add registers (72 against 56 rolled: one 512-item block an SM
     * instead of two), so that loop stays rolled. */
#define TB_PRAGMA(x) _Pragma(#x)
#define TB_UNROLL(n) TB_PRAGMA(unroll n) /* n expanded first: a pragma's text is not */
#if defined(K_GEOMETRY_COMPILED) && defined(K_UNROLL_COUNTED)
    /* unroll=counted: NVIDIA's OpenCL compiler left the loop below rolled
     * under a bare `#pragma unroll` with an early exit (its PTX: one copy of
     * the sub-step, an integer division a cell for the region's rows); here
     * the count is spelled out and the loop has no exit but its end. */
    TB_UNROLL(K_TEMPORAL)
#elif defined(K_GEOMETRY_COMPILED)
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int sub = 0; sub < TB_STEPS; sub++) {
#if defined(K_UNROLL_COUNTED)
        if (sub < count) { /* count is the same for the whole group */
#else
        if (sub >= count) break; /* count is the same for the whole group */
        {
#endif
#if defined(K_TREE_WARP) && defined(K_SUMS_DEFERRED)
        /* sums=deferred: the previous sub-step's warp sum here, after its
         * barrier, where its shuffle chain can overlap this sub-step's pulls
         * and arithmetic instead of holding that barrier back. */
        if (sub > 0) tb_warp_slot(slots, sub - 1, lid, pending);
#endif
        const int t = t0 + sub, last = sub == count - 1;
        const int step_accel = accelerate && t != nsteps - 1;
#if defined(K_LATTICES_ONE)
        LOCAL const float *cur = f;
        LOCAL float *nxt = f;
#else
        LOCAL const float *cur = f + (sub & 1) * 9 * area;
        LOCAL float *nxt = f + (1 - (sub & 1)) * 9 * area;
#endif
        /* The region this sub-step updates: `m` cells in from the halo's
         * edge. A full launch's last region is the tile; a shorter one
         * (the run's or the chunk's end) updates a larger region last and
         * writes only its tile. */
        const int m = sub + 1, mx = TB_HALO_X ? m : 0;
        const int rw = W - 2 * mx, rcells = rw * (H - 2 * m);
        const float inv_rw = 1.0f / (float)rw;
        float usum = 0.0f;
        float s[TB_ILP][9];
        int keep = -1; /* lattices=one: the cell whose new speeds wait in s[0] */
        /* lattices=one (tile=inner, ilp=1): one pass at most. */
#if defined(K_CELLS_FIXED)
        /* One pass when the region holds this item's cell, else none. */
        const int fixed_in = fixed_x >= mx && fixed_x < W - mx && fixed_y >= m && fixed_y < H - m;
        (void)rcells;
        (void)inv_rw;
        for (int c0 = fixed_in ? 0 : 1; c0 < 1; c0++) {
#else
        for (int c0 = lid; c0 < rcells; c0 += TB_ILP * lsize) {
#endif
            int i[TB_ILP], rx[TB_ILP], ry[TB_ILP], obst[TB_ILP], live[TB_ILP];
            float u[TB_ILP];
            /* ilp=2: both cells' pulls, then both updates, in one block of
             * code the compiler can interleave. An absent second cell (past
             * the region) is skipped, not computed on a stand-in: whole warps
             * of them branch around the update. */
            for (int h = 0; h < TB_ILP; h++) {
#if defined(K_CELLS_FIXED)
                live[h] = 1;
                rx[h] = fixed_x;
                ry[h] = fixed_y;
#else
                live[h] = c0 + h * lsize < rcells;
                if (h > 0 && !live[h]) continue;
                const int c = live[h] ? c0 + h * lsize : c0;
                const int row = TB_ROW(c, rw, inv_rw);
                rx[h] = mx + c - row * rw;
                ry[h] = m + row;
#endif
                i[h] = rx[h] + ry[h] * W;
                const int n = i[h];
#if defined(K_ENTRY_PULL)
                if (sub == 0) {
                    /* The first sub-step's pulls, from the global lattice. */
                    const int xw = tb_wrap(entry_x - 1, nx), xe = tb_wrap(entry_x + 1, nx);
                    const int yc = entry_y * nx, ys = tb_wrap(entry_y - 1, ny) * nx;
                    const int yn = tb_wrap(entry_y + 1, ny) * nx;
                    s[h][0] = RD(AT(src, 0, entry_x + yc));  s[h][1] = RD(AT(src, 1, xw + yc));
                    s[h][2] = RD(AT(src, 2, entry_x + ys));  s[h][3] = RD(AT(src, 3, xe + yc));
                    s[h][4] = RD(AT(src, 4, entry_x + yn));  s[h][5] = RD(AT(src, 5, xw + ys));
                    s[h][6] = RD(AT(src, 6, xe + ys));       s[h][7] = RD(AT(src, 7, xe + yn));
                    s[h][8] = RD(AT(src, 8, xw + yn));
                } else
#endif
                {
#if defined(K_HALO_CLUSTER)
                /* Across the tile's west or east edge: the neighbour's
                 * column, same row, same lattice of the pair. */
                const int half = (sub & 1) * 9 * area;
                const float *wb = rx[h] == 0 ? west + half + n + W - 1 : cur + n - 1;
                const float *eb = rx[h] == W - 1 ? east + half + n - (W - 1) : cur + n + 1;
                s[h][0] = cur[n];                      s[h][1] = wb[area];
                s[h][2] = cur[2 * area + n - W];       s[h][3] = eb[3 * area];
                s[h][4] = cur[4 * area + n + W];       s[h][5] = wb[5 * area - W];
                s[h][6] = eb[6 * area - W];            s[h][7] = eb[7 * area + W];
                s[h][8] = wb[8 * area + W];
#else
                s[h][0] = cur[n];                      s[h][1] = cur[area + n - 1];
                s[h][2] = cur[2 * area + n - W];       s[h][3] = cur[3 * area + n + 1];
                s[h][4] = cur[4 * area + n + W];       s[h][5] = cur[5 * area + n - 1 - W];
                s[h][6] = cur[6 * area + n + 1 - W];   s[h][7] = cur[7 * area + n + 1 + W];
                s[h][8] = cur[8 * area + n - 1 + W];
#endif
                }
#if defined(K_CELLS_FIXED)
                obst[h] = fixed_obst;
#else
                obst[h] = ob[n];
#endif
            }
            for (int h = 0; h < TB_ILP; h++) u[h] = h == 0 || live[h] ? tb_update(s[h], obst[h], omega) : 0.0f;
            for (int h = 0; h < TB_ILP; h++) {
                if (!live[h]) continue;
                const int jj = tb_wrap(y0 + ry[h], ny);
                /* A branch, not the fused step's mask: one row in H is
                 * accelerated, and the mask costs every cell ~20 instructions. */
                if (step_accel && jj == ny - 2 && !obst[h]) lbm_accelerate(s[h], w1, w2, 1.0f);
                const int own = rx[h] >= TB_HALO_X && rx[h] < TB_HALO_X + lx && ry[h] >= TB_STEPS &&
                                ry[h] < TB_STEPS + ly;
                usum += own ? u[h] : 0.0f;
                if (last) {
                    /* The tile's own cells: no wrap-around. */
                    if (own) STORE(dst, s[h], (x0 + rx[h]) + (y0 + ry[h]) * nx);
                } else {
#if defined(K_LATTICES_ONE)
                    keep = i[h];
#else
                    for (int k = 0; k < 9; k++) nxt[k * area + i[h]] = s[h][k];
#endif
                }
            }
        }
#if defined(K_LATTICES_ONE)
        /* One lattice, updated in place: every pull of the sub-step first. */
        BARRIER;
        if (keep >= 0)
            for (int k = 0; k < 9; k++) nxt[k * area + keep] = s[0][k];
#else
        (void)keep;
#endif
#if defined(K_TREE_WARP) && defined(K_SUMS_DEFERRED)
        pending = usum;
#elif defined(K_TREE_WARP) && !defined(K_SUMS_END)
        tb_warp_slot(slots, sub, lid, usum);
#else
        usums[sub] = usum;
#endif
        /* Publishes nxt and ends every read of cur, which the next sub-step
         * overwrites; after the last, the lattices are free for the sums
         * (halo=cluster: the neighbours' reads too, so a block may end). */
        TB_SYNC;
        }
    }
#if defined(K_TREE_WARP) && defined(K_SUMS_DEFERRED)
    tb_warp_slot(slots, count - 1, lid, pending);
    BARRIER;
#elif defined(K_TREE_WARP) && defined(K_SUMS_END)
    /* sums=end: the launch's steps' warp sums now, their shuffle chains
     * independent, so they interleave (one chain long, not T). */
    for (int s = 0; s < TB_STEPS; s++)
        if (s < count) tb_warp_slot(slots, s, lid, usums[s]);
    BARRIER;
#endif
    tb_reduce_steps(scratch, slots, usums, count, partials, t0 % chunk, group, ngroups, lid, lsize);
    if (GID_X == 0 && GID_Y == 0) clock[1 - which] = t0 + count;
    DEPENDENTS_LAUNCH; /* this block is done: the next launch may be scheduled */
}
#undef TB_STEPS
#undef TB_ILP
#undef TB_LATTICES
#undef TB_GROUP_X
#undef TB_GROUP_Y
#undef TB_ROW
#undef TB_HALO_X
#undef TB_SYNC
#undef TB_PRAGMA
#undef TB_UNROLL
#endif
