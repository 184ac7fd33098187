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

/* Knob settings the kernel cannot be built with (the rules refuse them first). */
#if !defined(K_BIND_ONCE)
#error "temporal>1 reads its first step from the device clock: the rules require bind=once"
#endif
#if defined(K_GEOMETRY_COMPILED) && (!defined(K_WG_X) || !defined(K_WG_Y))
#error "geometry=compiled: the host passes the work-group's shape as K_WG_X and K_WG_Y"
#endif
#if defined(K_HALO_CLUSTER) && defined(K_LATTICES_ONE)
#error "halo=cluster: the neighbours read a sub-step's lattice while it is current: lattices=two"
#endif
#if defined(K_CELLS_FIXED) && (!defined(K_TILE_INNER) || (defined(K_ILP) && K_ILP != 1))
#error "cells=fixed: one cell an item for every sub-step: tile=inner, ilp=1"
#endif
#if defined(K_ENTRY_PULL) && !defined(K_CELLS_FIXED)
#error "entry=pull: each item pulls its own cell's speeds: cells=fixed"
#endif

/* Each knob below is read in one place, which defines the helpers that
 * differ with it; the kernel (fused_temporal, at the end) calls them and
 * reads no knob itself. Helpers are LBM_FN functions, or macros where the
 * function changed the code: nvcc simplifies a function before inlining
 * it, and then (sm_90) lost that the loop's own test makes the first cell
 * live, ordered the cells' index arithmetic otherwise, or kept more
 * registers for the addresses of the local lattices (scripts/kernel_code.sh
 * prints a variant's registers and instruction counts). */

#define TB_STEPS K_TEMPORAL

/* c / w for the small non-negative c and w here, by a float multiply: an
 * integer division by a run-time w costs about twenty instructions a cell.
 * Exact: c + 0.5 lies at least 0.5 / w from a multiple of w, far beyond the
 * multiply's rounding for c < 2^20. */
#define TB_DIV(c, inv) ((int)(((float)(c) + 0.5f) * (inv)))

#define TB_PRAGMA(x) _Pragma(#x)
#define TB_UNROLL(n) TB_PRAGMA(unroll n) /* n expanded first: a pragma's text is not */

/* geometry=compiled: the host passes the work-group's shape as K_WG_X and
 * K_WG_Y, so the tile, the halo, every sub-step's region and the local
 * lattices' offsets are constants. The nine pulls then become loads at
 * fixed offsets from one address, and a row is a multiply by a constant;
 * with run-time sizes each pull costs its own multiply-add (the PTX of
 * the sub-step loop: about 300 instructions a cell, a third of them index
 * arithmetic). geometry=runtime reads the shape from the launch.
 *
 * TB_SUBSTEPS_UNROLL, before the sub-step loop: geometry=compiled unrolls
 * it (TB_UNROLL_COMPILED), so each sub-step's region is a constant size
 * (40 registers on sm_90 at T=4). With run-time sizes the copies only add
 * registers (72 against 56 rolled: one 512-item block an SM instead of
 * two), so that loop stays rolled. */
#if defined(K_GEOMETRY_COMPILED)
#define TB_GROUP_X K_WG_X
#define TB_GROUP_Y K_WG_Y
#define TB_ROW(c, w, inv) ((int)((unsigned)(c) / (unsigned)(w)))
#define TB_SUBSTEPS_UNROLL TB_UNROLL_COMPILED
#else
#define TB_GROUP_X ((int)LSIZE_X)
#define TB_GROUP_Y ((int)LSIZE_Y)
#define TB_ROW(c, w, inv) TB_DIV(c, inv)
#define TB_SUBSTEPS_UNROLL TB_PRAGMA(unroll 1)
#endif

/* unroll=plain|counted: how the unrolled sub-step loop is spelled, and
 * TB_PAST_COUNT, what a sub-step past the launch's count does. plain: a
 * bare `#pragma unroll`, and the loop ends there (break). counted:
 * NVIDIA's OpenCL compiler left the loop rolled under a bare `#pragma
 * unroll` with an early exit (its PTX: one copy of the sub-step, an
 * integer division a cell for the region's rows); here the count is
 * spelled out and the loop has no exit but its end (continue). */
#if defined(K_UNROLL_COUNTED)
#define TB_UNROLL_COMPILED TB_UNROLL(K_TEMPORAL)
#define TB_PAST_COUNT continue
#else
#define TB_UNROLL_COMPILED TB_PRAGMA(unroll)
#define TB_PAST_COUNT break
#endif

/* A lattice in global memory as a helper's parameter: nine buffers
 * (layout=soa), else one (soa-3d's stride is the helper's `ncells`). */
#if defined(K_LAYOUT_SOA)
#define TB_GRID(n) GLOBAL float *const *n
#else
#define TB_GRID(n) GLOBAL float *n
#endif

/* ilp=1|2: cells a work-item updates at once in a sub-step's pass. */
#if defined(K_ILP)
#define TB_ILP K_ILP
#else
#define TB_ILP 1
#endif

/* i wrapped into [0, n) for any i at most one grid away. */
LBM_FN int tb_wrap(int i, int n) { return i < 0 ? i + n : i >= n ? i - n : i; }

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
 * both halos update 1.94).
 *
 * tb_neighbours: the west and east neighbours' local lattices, mapped once
 * (none with halo=compute). TB_PULL: the nine speeds s streaming into
 * local cell n (column rx) from the current lattice `cur`, lattice sub & 1
 * of the pair. */
#if defined(K_HALO_CLUSTER)
#define TB_HALO_X 0
#define TB_SYNC cluster_sync()
LBM_FN void tb_neighbours(LOCAL float *f, const float **west, const float **east) {
    const unsigned crank = cluster_rank(), csize = cluster_size();
    *west = cluster_map(f, (crank + csize - 1) % csize);
    *east = cluster_map(f, (crank + 1) % csize);
}
/* Across the tile's west or east edge: the neighbour's column, same row,
 * same lattice of the pair. */
#define TB_PULL(s, cur, west, east, sub, rx, n, W, area)                                         \
    do {                                                                                         \
        const int half_ = ((sub) & 1) * 9 * (area);                                             \
        const float *wb_ = (rx) == 0 ? (west) + half_ + (n) + (W) - 1 : (cur) + (n) - 1;        \
        const float *eb_ = (rx) == (W) - 1 ? (east) + half_ + (n) - ((W) - 1) : (cur) + (n) + 1; \
        (s)[0] = (cur)[n];                      (s)[1] = wb_[area];                              \
        (s)[2] = (cur)[2 * (area) + (n) - (W)]; (s)[3] = eb_[3 * (area)];                        \
        (s)[4] = (cur)[4 * (area) + (n) + (W)]; (s)[5] = wb_[5 * (area) - (W)];                  \
        (s)[6] = eb_[6 * (area) - (W)];         (s)[7] = eb_[7 * (area) + (W)];                  \
        (s)[8] = wb_[8 * (area) + (W)];                                                          \
    } while (0)
#else
#define TB_HALO_X TB_STEPS
#define TB_SYNC BARRIER
LBM_FN void tb_neighbours(LOCAL float *f, const float **west, const float **east) {
    (void)f;
    *west = 0;
    *east = 0;
}
#define TB_PULL(s, cur, west, east, sub, rx, n, W, area)                                         \
    do {                                                                                         \
        (s)[0] = (cur)[n];                          (s)[1] = (cur)[(area) + (n) - 1];            \
        (s)[2] = (cur)[2 * (area) + (n) - (W)];     (s)[3] = (cur)[3 * (area) + (n) + 1];        \
        (s)[4] = (cur)[4 * (area) + (n) + (W)];     (s)[5] = (cur)[5 * (area) + (n) - 1 - (W)];  \
        (s)[6] = (cur)[6 * (area) + (n) + 1 - (W)]; (s)[7] = (cur)[7 * (area) + (n) + 1 + (W)];  \
        (s)[8] = (cur)[8 * (area) + (n) - 1 + (W)];                                              \
    } while (0)
#endif

/* tile=group|inner: the tile a work-group updates, its own shape, or with
 * tile=inner the group covers the tile and all but the outermost ring of
 * its halo, so no sub-step needs more than one pass of the group. */
#if defined(K_TILE_INNER)
#define TB_TILE_X (TB_GROUP_X - (TB_HALO_X ? 2 * (TB_STEPS - 1) : 0))
#define TB_TILE_Y (TB_GROUP_Y - 2 * (TB_STEPS - 1))
#else
#define TB_TILE_X TB_GROUP_X
#define TB_TILE_Y TB_GROUP_Y
#endif

/* lattices=two|one: local lattices a sub-step reads and writes.
 * TB_CUR, TB_NXT: the lattice sub-step `sub` reads and the one it writes.
 * TB_KEEP: a cell's new speeds s, at index i, for the next sub-step;
 * `keep`: the cell whose new speeds wait in registers (-1: none).
 * tb_kept: after the item's passes, what TB_KEEP left waiting. */
#if defined(K_LATTICES_ONE)
/* lattices=one (tile=inner, ilp=1): one lattice, updated in place, so one
 * pass at most: each item holds its cell's new speeds (s[0], at index
 * `keep`) in registers until every pull of the sub-step is done. */
#define TB_LATTICES 1
#define TB_CUR(f, sub, area) (f)
#define TB_NXT(f, sub, area) (f)
#define TB_KEEP(nxt, area, i, s, keep) ((keep) = (i))
LBM_FN void tb_kept(LOCAL float *nxt, int area, int keep, const float *s) {
    /* One lattice, updated in place: every pull of the sub-step first. */
    BARRIER;
    if (keep >= 0)
        for (int k = 0; k < 9; k++) nxt[k * area + keep] = s[k];
}
#else
#define TB_LATTICES 2
#define TB_CUR(f, sub, area) ((f) + ((sub) & 1) * 9 * (area))
#define TB_NXT(f, sub, area) ((f) + (1 - ((sub) & 1)) * 9 * (area))
#define TB_KEEP(nxt, area, i, s, keep) for (int k_ = 0; k_ < 9; k_++) (nxt)[k_ * (area) + (i)] = (s)[k_]
LBM_FN void tb_kept(LOCAL float *nxt, int area, int keep, const float *s) {
    (void)nxt; (void)area; (void)keep; (void)s;
}
#endif

/* cells=packed|fixed: which cells a work-item updates in a sub-step.
 * TB_PASSES: the loop over the item's passes over the region (fixed_in:
 * whether the region holds its fixed cell); TB_LIVE: whether cell h of
 * pass c0 is in the region (an absent second cell, past the region with
 * ilp=2, is skipped, not computed on a stand-in: whole warps of them
 * branch around the update); TB_PLACE: that cell's place (rx, ry) in the
 * local lattice; tb_cell_obst: its obstacle byte.
 *
 * The fixed cell (TB_FIXED_X, TB_FIXED_Y), which only cells=fixed
 * updates: the cell one ring in from the halo's edge (x alone with
 * halo=cluster, which has no halo across x) of the item at (x, y) of the
 * group, the first region being the group's shape. */
#define TB_FIXED_X ((int)LID_X + (TB_HALO_X ? 1 : 0))
#define TB_FIXED_Y ((int)LID_Y + 1)
#if defined(K_CELLS_FIXED)
/* cells=fixed (tile=inner): each item keeps its fixed cell for every
 * sub-step; its obstacle flag is read once, and its index and row
 * (constants of the unrolled sub-steps) are computed once. One pass when
 * the region holds the item's cell, else none. */
#define TB_PASSES(c0, lid, lsize, rcells, fixed_in) for (int c0 = (fixed_in) ? 0 : 1; c0 < 1; c0++)
#define TB_LIVE(c0, h, lsize, rcells) 1
#define TB_PLACE(rx, ry, c0, h, live, lsize, m, mx, rw, inv_rw, fixed_x, fixed_y) ((rx) = (fixed_x), (ry) = (fixed_y))
LBM_FN int tb_cell_obst(LOCAL const uchar *ob, int n, int fixed_obst) {
    (void)ob; (void)n;
    return fixed_obst;
}
#else
/* cells=packed: each sub-step's region packed into the first work-items,
 * TB_ILP cells an item a pass (the fewest warps busy). */
#define TB_PASSES(c0, lid, lsize, rcells, fixed_in) for (int c0 = (lid); c0 < (rcells); c0 += TB_ILP * (lsize))
#define TB_LIVE(c0, h, lsize, rcells) ((c0) + (h) * (lsize) < (rcells))
#define TB_PLACE(rx, ry, c0, h, live, lsize, m, mx, rw, inv_rw, fixed_x, fixed_y) \
    do {                                                                          \
        const int c_ = (live) ? (c0) + (h) * (lsize) : (c0);                      \
        const int row_ = TB_ROW(c_, rw, inv_rw);                                  \
        (rx) = (mx) + c_ - row_ * (rw);                                           \
        (ry) = (m) + row_;                                                        \
    } while (0)
LBM_FN int tb_cell_obst(LOCAL const uchar *ob, int n, int fixed_obst) {
    (void)fixed_obst;
    return ob[n];
}
#endif

/* entry=load|pull: how the launch's first sub-step gets its speeds.
 * tb_enter: what happens before any sub-step, returning the fixed cell's
 * obstacle byte where it reads it; tb_entered, after tb_neighbours: the
 * fixed cell's obstacle byte (cells=fixed); TB_PULL_ENTRY: the pulls of
 * sub-step `sub` from the global lattice, 1, or 0 where the local
 * lattice's (TB_PULL) are the ones. (entry_x, entry_y): the fixed cell in
 * the grid. */
#if defined(K_ENTRY_PULL)
/* entry=pull (cells=fixed): no load pass; the first sub-step pulls its
 * cells' speeds from the global lattice and each item reads its own
 * cell's obstacle byte, so the launch starts without a round trip
 * through local memory or a barrier. */
LBM_FN int tb_enter(LOCAL float *f, LOCAL uchar *ob, TB_GRID(src), GLOBAL const uchar *obstacles, int ncells, int x0,
                    int y0, int W, int area, int nx, int ny, int lid, int lsize, int entry_x, int entry_y) {
    (void)f; (void)ob; (void)src; (void)ncells; (void)x0; (void)y0; (void)W; (void)area; (void)ny; (void)lid;
    (void)lsize;
    return RD(obstacles[entry_x + entry_y * nx]);
}
LBM_FN int tb_entered(LOCAL const uchar *ob, int fixed_x, int fixed_y, int W, int obst) {
    (void)ob; (void)fixed_x; (void)fixed_y; (void)W;
    return obst;
}
LBM_FN int tb_pull_entry(float *s, int sub, TB_GRID(src), int ncells, int entry_x, int entry_y, int nx, int ny) {
    (void)ncells;
    if (sub != 0) return 0;
    /* The first sub-step's pulls, from the global lattice. */
    const int xw = tb_wrap(entry_x - 1, nx), xe = tb_wrap(entry_x + 1, nx);
    const int yc = entry_y * nx, ys = tb_wrap(entry_y - 1, ny) * nx;
    const int yn = tb_wrap(entry_y + 1, ny) * nx;
    s[0] = RD(AT(src, 0, entry_x + yc));  s[1] = RD(AT(src, 1, xw + yc));
    s[2] = RD(AT(src, 2, entry_x + ys));  s[3] = RD(AT(src, 3, xe + yc));
    s[4] = RD(AT(src, 4, entry_x + yn));  s[5] = RD(AT(src, 5, xw + ys));
    s[6] = RD(AT(src, 6, xe + ys));       s[7] = RD(AT(src, 7, xe + yn));
    s[8] = RD(AT(src, 8, xw + yn));
    return 1;
}
#define TB_PULL_ENTRY tb_pull_entry
#else
/* entry=load: the tile and its halo (periodic wrap-around) into the local
 * lattice f and the obstacle bytes ob. Two cells a work-item per pass, all
 * their loads issued before any store: twice the loads in flight while the
 * group waits at the barrier (tb_entered's). */
LBM_FN int tb_enter(LOCAL float *f, LOCAL uchar *ob, TB_GRID(src), GLOBAL const uchar *obstacles, int ncells, int x0,
                    int y0, int W, int area, int nx, int ny, int lid, int lsize, int entry_x, int entry_y) {
    (void)ncells; (void)entry_x; (void)entry_y;
    const float inv_w = 1.0f / (float)W;
    (void)inv_w;
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
    return 0;
}
LBM_FN int tb_entered(LOCAL const uchar *ob, int fixed_x, int fixed_y, int W, int obst) {
    (void)obst;
    TB_SYNC; /* halo=cluster: every neighbour's tile is in before anyone pulls across */
    return ob[fixed_x + fixed_y * W];
}
#define TB_PULL_ENTRY(s, sub, src, ncells, entry_x, entry_y, nx, ny) 0
#endif

/* One cell's rebound or collision in place; returns its |u| (0 for an obstacle). */
LBM_FN float tb_update(float *s, int obst, float omega) {
    REBOUND_OR_COLLIDE;
    return u;
}

/* tree=local|warp, sums=each|deferred|end: where each sub-step's |u| sum
 * waits and how the launch's steps' group sums are reduced.
 * tb_sums_early: at a sub-step's start; tb_sums_step: its sum, usum, at its
 * end (before its barrier); tb_sums_flush: after the last sub-step's
 * barrier; then tb_reduce_steps: the launch's `count` steps' group sums.
 * Step t0 + s goes to slot slot0 + s: a launch never spans two chunks. */
#if defined(K_TREE_WARP)
/* tree=warp: this warp's sum of v, into its slot of step s (lane 0 writes). */
LBM_FN void tb_warp_slot(LOCAL float *slots, int s, int lid, float v) {
    const float w = WARP_SUM(v);
    if ((lid & 31) == 0) slots[s * 32 + lid / 32] = w;
}
#if defined(K_SUMS_DEFERRED)
/* sums=deferred: the previous sub-step's warp sum (pending) at a
 * sub-step's start, after its barrier, where its shuffle chain can overlap
 * this sub-step's pulls and arithmetic instead of holding that barrier
 * back. */
LBM_FN void tb_sums_early(LOCAL float *slots, int sub, int lid, float pending) {
    if (sub > 0) tb_warp_slot(slots, sub - 1, lid, pending);
}
LBM_FN void tb_sums_step(LOCAL float *slots, int sub, int lid, float usum, float *pending, float *usums) {
    (void)slots; (void)sub; (void)lid; (void)usums;
    *pending = usum;
}
LBM_FN void tb_sums_flush(LOCAL float *slots, int count, int lid, float pending, const float *usums) {
    (void)usums;
    tb_warp_slot(slots, count - 1, lid, pending);
    BARRIER;
}
#elif defined(K_SUMS_END)
/* sums=end: the sums wait in registers (usums), and after the last
 * sub-step the launch's steps' warp sums, their shuffle chains
 * independent, so they interleave (one chain long, not T). */
LBM_FN void tb_sums_early(LOCAL float *slots, int sub, int lid, float pending) {
    (void)slots; (void)sub; (void)lid; (void)pending;
}
LBM_FN void tb_sums_step(LOCAL float *slots, int sub, int lid, float usum, float *pending, float *usums) {
    (void)slots; (void)lid; (void)pending;
    usums[sub] = usum;
}
LBM_FN void tb_sums_flush(LOCAL float *slots, int count, int lid, float pending, const float *usums) {
    (void)pending;
    for (int s = 0; s < TB_STEPS; s++)
        if (s < count) tb_warp_slot(slots, s, lid, usums[s]);
    BARRIER;
}
#else
/* sums=each: each sub-step's warp sum before its barrier. */
LBM_FN void tb_sums_early(LOCAL float *slots, int sub, int lid, float pending) {
    (void)slots; (void)sub; (void)lid; (void)pending;
}
LBM_FN void tb_sums_step(LOCAL float *slots, int sub, int lid, float usum, float *pending, float *usums) {
    (void)pending; (void)usums;
    tb_warp_slot(slots, sub, lid, usum);
}
LBM_FN void tb_sums_flush(LOCAL float *slots, int count, int lid, float pending, const float *usums) {
    (void)slots; (void)count; (void)lid; (void)pending; (void)usums;
}
#endif
/* Each warp summed each sub-step by shuffles into slots[step][warp] (no
 * barrier of its own), and here one warp a step adds them up: warp w adds
 * step w's slots (and w + nwarps's...), the steps' sums in parallel, one
 * shuffle chain long, not T chains in turn by one warp. */
LBM_FN void tb_reduce_steps(LOCAL float *scratch, LOCAL const float *slots, const float *usums, int count,
                            GLOBAL float *partials, int slot0, int group, int ngroups, int lid, int lsize) {
    GLOBAL float *out = partials + (size_t)slot0 * (size_t)ngroups + (size_t)group;
    (void)scratch; (void)usums;
    const int nwarps = lsize / 32, warp = lid / 32, lane = lid & 31;
    for (int s = warp; s < count; s += nwarps) {
        const float total = WARP_SUM(lane < nwarps ? slots[s * 32 + lane] : 0.0f);
        if (lane == 0) out[(size_t)s * (size_t)ngroups] = total;
    }
}
#else
/* tree=local: the items' sums wait in registers (usums) and one
 * local-memory tree sums all the steps at once in the free lattice memory
 * (`scratch`, T x lsize floats) after the last sub-step, whose barrier it
 * follows: log2 of the group's size barriers a launch, where the first
 * version paid them (eight for 256 items) every sub-step. */
LBM_FN void tb_sums_early(LOCAL float *slots, int sub, int lid, float pending) {
    (void)slots; (void)sub; (void)lid; (void)pending;
}
LBM_FN void tb_sums_step(LOCAL float *slots, int sub, int lid, float usum, float *pending, float *usums) {
    (void)slots; (void)lid; (void)pending;
    usums[sub] = usum;
}
LBM_FN void tb_sums_flush(LOCAL float *slots, int count, int lid, float pending, const float *usums) {
    (void)slots; (void)count; (void)lid; (void)pending; (void)usums;
}
LBM_FN void tb_reduce_steps(LOCAL float *scratch, LOCAL const float *slots, const float *usums, int count,
                            GLOBAL float *partials, int slot0, int group, int ngroups, int lid, int lsize) {
    GLOBAL float *out = partials + (size_t)slot0 * (size_t)ngroups + (size_t)group;
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
}
#endif

KERNEL fused_temporal(STEP_GRIDS, GLOBAL const uchar *obstacles, GLOBAL float *partials,
                      COMMON_PARAMS, int slot, int accelerate CLOCK_PARAMS LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    EMPTY_RETURN;
    DEPENDENCY_WAIT; /* before the first read: the step clock and the lattice */
    BIND_STEP_GRIDS;
    ACCEL_WEIGHTS;
    (void)slot;
    const int ncells = nx * ny;
    const int t0 = clock[which];
    int count = nsteps - t0;
    if (count > TB_STEPS) count = TB_STEPS;
    if (count > chunk - t0 % chunk) count = chunk - t0 % chunk;

    /* The tile, its halo and the local memory they take. */
    const int lx = TB_TILE_X, ly = TB_TILE_Y;
    const int lid = (int)LID_X + (int)LID_Y * TB_GROUP_X, lsize = TB_GROUP_X * TB_GROUP_Y;
    const int W = lx + 2 * TB_HALO_X, H = ly + 2 * TB_STEPS, area = W * H;
    const int x0 = (int)GROUP_X * lx - TB_HALO_X, y0 = (int)GROUP_Y * ly - TB_STEPS;
    const int group = (int)(GROUP_X + GROUP_Y * NGROUPS_X), ngroups = (int)(NGROUPS_X * NGROUPS_Y);
    LOCAL float *f = scratch;                        /* [lattices][9][area], speed-major */
    LOCAL float *slots = scratch + TB_LATTICES * 9 * area; /* [T][32] warp sums (tree=warp) */
    LOCAL uchar *ob = (LOCAL uchar *)(slots + TB_STEPS * 32); /* [area] obstacle bytes */
    const int fixed_x = TB_FIXED_X, fixed_y = TB_FIXED_Y; /* cells=fixed: the item's cell */
    const int entry_x = tb_wrap(x0 + fixed_x, nx), entry_y = tb_wrap(y0 + fixed_y, ny);

    /* Entry: the tile into local memory, the neighbours mapped, the fixed
     * cell's obstacle byte. */
    int fixed_obst = tb_enter(f, ob, src, obstacles, ncells, x0, y0, W, area, nx, ny, lid, lsize, entry_x, entry_y);
    const float *west, *east; /* halo=cluster: the neighbours' local lattices */
    tb_neighbours(f, &west, &east);
    fixed_obst = tb_entered(ob, fixed_x, fixed_y, W, fixed_obst);

    float pending = 0.0f; /* sums=deferred: the previous sub-step's sum, not yet warp-summed */
    float usums[TB_STEPS]; /* each sub-step's |u| sum of this item's own cells (tree=local) */
    TB_SUBSTEPS_UNROLL
    for (int sub = 0; sub < TB_STEPS; sub++) {
        if (sub >= count) TB_PAST_COUNT; /* count is the same for the whole group */
        tb_sums_early(slots, sub, lid, pending);
        const int t = t0 + sub, last = sub == count - 1;
        const int step_accel = accelerate && t != nsteps - 1;
        LOCAL const float *cur = TB_CUR(f, sub, area);
        LOCAL float *nxt = TB_NXT(f, sub, area);
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
        /* cells=fixed: whether the region holds the item's cell */
        const int fixed_in = fixed_x >= mx && fixed_x < W - mx && fixed_y >= m && fixed_y < H - m;
        (void)rcells; (void)inv_rw; (void)fixed_in; /* each cells setting reads some */
        TB_PASSES(c0, lid, lsize, rcells, fixed_in) {
            int i[TB_ILP], rx[TB_ILP], ry[TB_ILP], obst[TB_ILP], live[TB_ILP];
            float u[TB_ILP];
            /* ilp=2: both cells' pulls, then both updates, in one block of
             * code the compiler can interleave. */
            for (int h = 0; h < TB_ILP; h++) {
                live[h] = TB_LIVE(c0, h, lsize, rcells);
                if (h > 0 && !live[h]) continue;
                TB_PLACE(rx[h], ry[h], c0, h, live[h], lsize, m, mx, rw, inv_rw, fixed_x, fixed_y);
                i[h] = rx[h] + ry[h] * W;
                const int n = i[h];
                if (!TB_PULL_ENTRY(s[h], sub, src, ncells, entry_x, entry_y, nx, ny))
                    TB_PULL(s[h], cur, west, east, sub, rx[h], n, W, area);
                obst[h] = tb_cell_obst(ob, n, fixed_obst);
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
                    TB_KEEP(nxt, area, i[h], s[h], keep);
                }
            }
        }
        tb_kept(nxt, area, keep, s[0]);
        tb_sums_step(slots, sub, lid, usum, &pending, usums);
        /* Publishes nxt and ends every read of cur, which the next sub-step
         * overwrites; after the last, the lattices are free for the sums
         * (halo=cluster: the neighbours' reads too, so a block may end). */
        TB_SYNC;
    }
    tb_sums_flush(slots, count, lid, pending, usums);
    tb_reduce_steps(scratch, slots, usums, count, partials, t0 % chunk, group, ngroups, lid, lsize);
    if (GID_X == 0 && GID_Y == 0) clock[1 - which] = t0 + count;
    DEPENDENTS_LAUNCH; /* this block is done: the next launch may be scheduled */
}
#undef TB_STEPS
#undef TB_DIV
#undef TB_PRAGMA
#undef TB_UNROLL
#undef TB_GROUP_X
#undef TB_GROUP_Y
#undef TB_ROW
#undef TB_SUBSTEPS_UNROLL
#undef TB_UNROLL_COMPILED
#undef TB_PAST_COUNT
#undef TB_GRID
#undef TB_ILP
#undef TB_HALO_X
#undef TB_SYNC
#undef TB_TILE_X
#undef TB_TILE_Y
#undef TB_LATTICES
#undef TB_KEEP
#undef TB_CUR
#undef TB_NXT
#undef TB_PULL
#undef TB_PULL_ENTRY
#undef TB_FIXED_X
#undef TB_FIXED_Y
#undef TB_PASSES
#undef TB_LIVE
#undef TB_PLACE
#endif
