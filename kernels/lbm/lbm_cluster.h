/* persistent=cluster: the whole grid in one thread-block cluster's shared
 * memory (CUDA, sm_90 and later), included by lbm.cu after lbm_gpu.h.
 *
 * Block r of the C-block cluster owns rows [r*R, (r+1)*R), R = ny / C, of
 * both lattices, speed-major in its shared memory, and the band's obstacle
 * bytes. A step pulls from its own band and, for the band's first and last
 * rows, from the neighbouring blocks' bands (distributed shared memory).
 * One cluster barrier per step and nothing else: after it every band of
 * the new source is written, nobody still reads the old one that the next
 * step overwrites, and every warp's |u| sum of the step is in its slot.
 * Then thread 0 adds its block's warp slots and writes one partial per
 * block per step: partials[slot * C + rank] (the host reduces C per step).
 * The warp slots alternate with the step's parity, so the next step's
 * writes never meet this step's reads. Global memory sees the band once
 * in, once out, and one float per block per step.
 *
 * The first version (a local-memory tree with ten barriers and a partial
 * per tile, obstacles from global memory, every pull through a mapped
 * cluster address, the fewest blocks: 8 for 128x128) ran 6.7 us a step on
 * an H200; this one, 16 blocks of 128x8, 1.9 us (0.077 s for 40000 steps).
 * What is left is mostly issue: ~256 instructions a cell (PTX) on 16 SMs,
 * 1024 cells each, is ~1 us a step before any barrier, so one cluster
 * (16 SMs at most) cannot go far below that. The host picks C (lbm_cluster_size, cluster=fewest|most); the
 * launch passes lbm_cluster_smem bytes. The lattice in `a` is the current
 * state; after `count` steps the result is written to b when count is odd. */
#if defined(K_PERSISTENT_CLUSTER)
/* The nine speeds streaming into column ii from this row and the rows
 * north and south of it (speed-major bands of `band` floats). */
#define CLUSTER_PULL(own, north, south)                                                      \
    s[0] = (own)[ii];                 s[1] = (own)[band + x_w];                              \
    s[2] = (south)[2 * band + ii];    s[3] = (own)[3 * band + x_e];                          \
    s[4] = (north)[4 * band + ii];    s[5] = (south)[5 * band + x_w];                        \
    s[6] = (south)[6 * band + x_e];   s[7] = (north)[7 * band + x_e];                        \
    s[8] = (north)[8 * band + x_w]

/* 1024 threads per block at most, so the compiler keeps to 64 registers:
 * without the bound a 128x8 block did not launch (out of resources). */
extern "C" __global__ void __launch_bounds__(1024, 1) fused_cluster(GRID_PARAM(a), GRID_PARAM(b), GLOBAL const uchar *obstacles,
                     GLOBAL float *partials, COMMON_PARAMS, int first, int count, int nsteps,
                     int chunk) {
    extern __shared__ float smem[];
    EMPTY_RETURN;
    GRID_BIND(a);
    GRID_BIND(b);
    ACCEL_WEIGHTS;
    const int ncells = nx * ny;
    (void)ncells;
    const unsigned rank = cluster_rank(), nblocks = cluster_size();
    const int rows = ny / (int)nblocks, row0 = (int)rank * rows, band = rows * nx;
    float *warp_sums = smem + 18 * band;                 /* [step parity][warp], 2 x 32 */
    uchar *obst_band = (uchar *)(warp_sums + 64);
    const int lid = (int)(LID_X + LID_Y * LSIZE_X), lsize = (int)(LSIZE_X * LSIZE_Y);
    const int nwarps = lsize / 32;                       /* whole warps: the rules see to it */
    for (int c = lid; c < band; c += lsize) {
        for (int k = 0; k < 9; k++) smem[k * band + c] = AT(a, k, row0 * nx + c);
        obst_band[c] = obstacles[row0 * nx + c];
    }
    /* The neighbouring blocks' shared memory, mapped once. */
    const float *smem_n = cluster_map(smem, (rank + 1) % nblocks);
    const float *smem_s = cluster_map(smem, (rank + nblocks - 1) % nblocks);
    cluster_sync(); /* every band is in before anyone pulls across */
    for (int step = 0; step < count; step++) {
        const int t = first + step, accelerate = t != nsteps - 1;
        const int cur = (step & 1) * 9 * band, nxt = 9 * band - cur;
        float usum = 0.0f;
        /* The band's work-group-shaped tiles, row by column: no division
         * or remainder per tile (they cost as much as a few pulls). */
        for (int row = (int)LID_Y; row < rows; row += (int)LSIZE_Y)
        for (int ii = (int)LID_X; ii < nx; ii += (int)LSIZE_X) {
            const int jj = row0 + row;
#if defined(K_NEIGHBOURS_BITMASK)
            const int x_e = (ii + 1) & (nx - 1), x_w = (ii - 1) & (nx - 1);
#else
            const int x_e = (ii + 1) % nx, x_w = (ii == 0) ? (ii + nx - 1) : (ii - 1);
#endif
            /* The rows north and south: in this band, or the next band's
             * first row / the previous band's last, in another block. Inner
             * rows (whole warps, when the work-group is a row or more wide)
             * take shared-memory loads; only the band's edge rows go through
             * the generic, mapped addresses. */
            const float *own = smem + cur + row * nx;
            float s[9];
            if (row > 0 && row + 1 < rows) {
                CLUSTER_PULL(own, own + nx, own - nx);
            } else {
                const float *north = row + 1 == rows ? smem_n + cur : own + nx;
                const float *south = row == 0 ? smem_s + cur + (rows - 1) * nx : own - nx;
                CLUSTER_PULL(own, north, south);
            }
            const int obst = obst_band[row * nx + ii];
            REBOUND_OR_COLLIDE;
            lbm_accelerate(s, w1, w2, (accelerate && jj == ny - 2 && !obst) ? 1.0f : 0.0f);
            float *out = smem + nxt + row * nx;
            for (int k = 0; k < 9; k++) out[k * band + ii] = s[k];
            usum += u;
        }
        const float w = warp_sum(usum);
        if ((lid & 31) == 0) warp_sums[(step & 1) * 32 + lid / 32] = w;
        cluster_sync();
        /* Warp 0 adds the slots by shuffles: one thread adding 32 slots in
         * turn held warp 0, and so the next barrier, back every step. */
        if (lid < 32) {
            const float total = warp_sum(lid < nwarps ? warp_sums[(step & 1) * 32 + lid] : 0.0f);
            if (lid == 0) partials[(size_t)(t % chunk) * nblocks + rank] = total;
        }
    }
    /* The last step's barrier has passed: only this block's band is read. */
    const int lf = count & 1;
    PICK_GRIDS(lf);
    (void)dst;
    for (int c = lid; c < band; c += lsize)
        for (int k = 0; k < 9; k++) AT(src, k, row0 * nx + c) = smem[(lf * 9 + k) * band + c];
}
#undef CLUSTER_PULL
#endif
