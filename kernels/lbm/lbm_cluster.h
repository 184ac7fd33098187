/* persistent=cluster: the whole grid in one thread-block cluster's shared
 * memory (CUDA, sm_90 and later), included by lbm.cu after lbm_gpu.h.
 *
 * Block r of the C-block cluster owns rows [r*R, (r+1)*R), R = ny / C, of
 * both lattices, speed-major in its shared memory. A step pulls from its
 * own band and, for the band's first and last rows, from the neighbouring
 * blocks' bands (distributed shared memory); one cluster barrier separates
 * the steps: after it every band of the new source is written, and nobody
 * still reads the old one that the next step overwrites. Global memory sees
 * the band once in, once out, the obstacles and the partials. The host
 * picks C (lbm_cluster_size: the grid must fit); the lattices and steps are
 * passed as for fused_persistent. The lattice in `a` is the current state;
 * after `count` steps the result is written to b when count is odd. */
#if defined(K_PERSISTENT_CLUSTER)
#define CL(l, k, row, x) smem[((l) * 9 + (k)) * band + (row) * nx + (x)]

KERNEL fused_cluster(GRID_PARAM(a), GRID_PARAM(b), GLOBAL const uchar *obstacles,
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
    float *scratch = smem + 18 * band; /* after both lattices: the reduction's */
    const int lid = (int)(LID_X + LID_Y * LSIZE_X), lsize = (int)(LSIZE_X * LSIZE_Y);
    for (int c = lid; c < band; c += lsize)
        for (int k = 0; k < 9; k++) CL(0, k, 0, c) = AT(a, k, row0 * nx + c);
    cluster_sync(); /* every band is in before anyone pulls across */
    const int tiles_x = nx / (int)LSIZE_X, band_tiles = tiles_x * (rows / (int)LSIZE_Y);
    const int ntiles = tiles_x * (ny / (int)LSIZE_Y);
    const unsigned rank_n = (rank + 1) % nblocks, rank_s = (rank + nblocks - 1) % nblocks;
    for (int step = 0; step < count; step++) {
        const int t = first + step, slot = t % chunk, accelerate = t != nsteps - 1;
        const int l = step & 1;
        for (int bt = 0; bt < band_tiles; bt++) {
            const int tx = bt % tiles_x, ty = bt / tiles_x;
            const int ii = tx * (int)LSIZE_X + (int)LID_X, row = ty * (int)LSIZE_Y + (int)LID_Y;
            const int jj = row0 + row;
#if defined(K_NEIGHBOURS_BITMASK)
            const int x_e = (ii + 1) & (nx - 1), x_w = (ii - 1) & (nx - 1);
#else
            const int x_e = (ii + 1) % nx, x_w = (ii == 0) ? (ii + nx - 1) : (ii - 1);
#endif
            /* The rows north and south: in this band, or the next band's
             * first row / the previous band's last, in another block. */
            const int last = row + 1 == rows, firstrow = row == 0;
            const float *own = &CL(l, 0, row, 0);
            const float *north = cluster_map(&CL(l, 0, last ? 0 : row + 1, 0), last ? rank_n : rank);
            const float *south = cluster_map(&CL(l, 0, firstrow ? rows - 1 : row - 1, 0),
                                             firstrow ? rank_s : rank);
            float s[9];
            s[0] = own[ii];                 s[1] = own[band + x_w];
            s[2] = south[2 * band + ii];    s[3] = own[3 * band + x_e];
            s[4] = north[4 * band + ii];    s[5] = south[5 * band + x_w];
            s[6] = south[6 * band + x_e];   s[7] = north[7 * band + x_e];
            s[8] = north[8 * band + x_w];
            const int obst = obstacles[ii + jj * nx];
            REBOUND_OR_COLLIDE;
            lbm_accelerate(s, w1, w2, (accelerate && jj == ny - 2 && !obst) ? 1.0f : 0.0f);
            float *out = &CL(1 - l, 0, row, 0);
            for (int k = 0; k < 9; k++) out[k * band + ii] = s[k];
            group_reduce_at(scratch, u, obst ? 0.0f : 1.0f, partials, slot,
                            (row0 / (int)LSIZE_Y + ty) * tiles_x + tx, ntiles);
        }
        cluster_sync();
    }
    /* The last step's barrier has passed: only this block's band is read. */
    const int lf = count & 1;
    PICK_GRIDS(lf);
    (void)dst;
    for (int c = lid; c < band; c += lsize)
        for (int k = 0; k < 9; k++) AT(src, k, row0 * nx + c) = CL(lf, k, 0, c);
}
#undef CL
#endif
