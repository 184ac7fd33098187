/* The stencil kernels for the GPU programming models. stencil.cl (OpenCL)
 * and stencil.cu (CUDA) each define the few words that differ between the
 * two languages (KERNEL, GLOBAL, LOCAL, LOCAL_PARAM, LOCAL_DECL, the index
 * macros, BARRIER) and include this file, so both run the same algorithm.
 * The arithmetic (the update, the range's selections) is stencil_point.h,
 * shared with the serial reference and the OpenMP kernels.
 *
 * Every kernel is always compiled; the host (schedule.c) picks which run.
 * The update's launch covers the W x H grid in work-groups of the swept
 * shape, each work-item updating K_ROWS points down its column (the knob
 * rows; 1 is the slides' one point per item, and then the launch is the
 * grid itself). The border's points are not updated (the slides' kernel
 * returns early; update_range keeps its border items for the group
 * reduction, contributing 0, which cannot change a range whose min and max
 * start at 0). */
#ifndef K_ROWS
#define K_ROWS 1
#endif
#ifndef K_STEPS
#define K_STEPS 1
#endif
#include "stencil_point.h"

/* Each program holds the kernels its range mode launches, no others
 * (schedule.c asks for the same set): PoCL compiles every kernel of a
 * program, so the unused ones were most of a cold build (issue 40). */

/* The slides' update kernel (with rows=1): range=host, chunked, coalesced. */
#if !defined(K_RANGE_FUSED) && !defined(K_RANGE_ATOMIC)
KERNEL update(GLOBAL const float *in, GLOBAL float *out, int w, int h) {
    const int x = (int)GID_X, y0 = (int)GID_Y * K_ROWS;
    if (x == 0 || x >= w - 1) return;
    for (int r = 0; r < K_ROWS; r++) {
        const int y = y0 + r;
        if (y == 0 || y >= h - 1) continue;
        const int i = y * w + x;
        out[i] = stencil_point(in[i - w], in[i - 1], in[i + w], in[i + 1], in[i]);
    }
}
#endif

/* Min and max of a work-group: a tree in local memory (lo_s and hi_s hold
 * lsize floats each), any group size; item 0 ends with the pair in *lo,
 * *hi. Every item of the group must call it. */
ST_FN void group_tree(LOCAL float *lo_s, LOCAL float *hi_s, float *lo, float *hi, int lid, int lsize) {
    lo_s[lid] = *lo;
    hi_s[lid] = *hi;
    BARRIER;
    int stride = 1;
    while (stride < lsize) stride <<= 1;
    for (stride >>= 1; stride > 0; stride >>= 1) {
        if (lid < stride && lid + stride < lsize) {
            lo_s[lid] = ST_LO(lo_s[lid], lo_s[lid + stride]);
            hi_s[lid] = ST_HI(hi_s[lid], hi_s[lid + stride]);
        }
        BARRIER;
    }
    *lo = lo_s[0];
    *hi = hi_s[0];
}

/* The tree, with item 0 storing the pair at dst. */
ST_FN void group_range(LOCAL float *lo_s, LOCAL float *hi_s, float lo, float hi, int lid, int lsize,
                       GLOBAL float *dst) {
    group_tree(lo_s, hi_s, &lo, &hi, lid, lsize);
    if (lid == 0) {
        dst[0] = lo;
        dst[1] = hi;
    }
}

#include "stencil_atomic.h"

/* Ours: the update and the range in one pass. Each group leaves its
 * (min, max) at partials[2*group], both started at 0 as the slides' are.
 * The group's tree costs barriers while the group holds its slot; with
 * rows > 1 it is paid once per K_ROWS points (on an H100 at 4096x4096,
 * 32x8 groups: update alone 69 us, update_range with rows=1 179 us). */
#if defined(K_RANGE_FUSED)
KERNEL update_range(GLOBAL const float *in, GLOBAL float *out, GLOBAL float *partials, int w,
                    int h LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    const int x = (int)GID_X, y0 = (int)GID_Y * K_ROWS;
    const int lid = (int)(LID_X + LID_Y * LSIZE_X), lsize = (int)(LSIZE_X * LSIZE_Y);
    const int group = (int)(GROUP_X + GROUP_Y * NGROUPS_X);
    float lo = 0.0f, hi = 0.0f;
    if (x > 0 && x < w - 1) {
        for (int r = 0; r < K_ROWS; r++) {
            const int y = y0 + r;
            if (y == 0 || y >= h - 1) continue;
            const int i = y * w + x;
            const float v = stencil_point(in[i - w], in[i - 1], in[i + w], in[i + 1], in[i]);
            out[i] = v;
            lo = ST_LO(lo, v);
            hi = ST_HI(hi, v);
        }
    }
    group_pair(scratch, &lo, &hi, lid, lsize); /* the knob reduce: tree by default */
    if (lid == 0) {
        partials[2 * group] = lo;
        partials[2 * group + 1] = hi;
    }
}
#endif

/* The fused variant's second step: the npairs group pairs reduced to one
 * per launched group (group g takes a contiguous share, its items striding
 * through it together) at result[2*g]. The host launches it twice: many
 * groups, then one group over their pairs, and reads the last pair (8
 * bytes). One group alone over 65536 pairs is latency-bound (each item's
 * loads one after another): on an H100 at 4096x4096 with 32x8 groups the
 * fused loop took 6.8 ms that way and 5.95 ms with the two launches (about
 * 5 us each under ncu). */
#if defined(K_RANGE_FUSED)
KERNEL range_finish(GLOBAL const float *partials, GLOBAL float *result, int npairs LOCAL_PARAM(scratch)) {
    LOCAL_DECL(scratch)
    const int lid = (int)LID_X, lsize = (int)LSIZE_X, group = (int)GROUP_X, ngroups = (int)NGROUPS_X;
    const int per = (npairs + ngroups - 1) / ngroups;
    const int start = per * group, stop = start + per < npairs ? start + per : npairs;
    float lo = 0.0f, hi = 0.0f;
    for (int g = start + lid; g < stop; g += lsize) {
        lo = ST_LO(lo, partials[2 * g]);
        hi = ST_HI(hi, partials[2 * g + 1]);
    }
    group_range(scratch, scratch + lsize, lo, hi, lid, lsize, result + 2 * group);
}
#endif

/* The slides' range kernel: each work-item reduces a contiguous chunk of
 * the grid (neighbouring items read addresses a chunk apart: uncoalesced).
 * The chunk is rounded up and the last ones clipped, where the slides'
 * divided evenly (4096x4096 by 4096 items). One-dimensional launch. */
#if defined(K_RANGE_CHUNKED)
KERNEL range_chunked(GLOBAL const float *data, int total, GLOBAL float *range) {
    const int nitems = (int)GSIZE_X, gid = (int)GID_X;
    const int per = (total + nitems - 1) / nitems;
    const int start = per * gid, stop = start + per < total ? start + per : total;
    float lo = 0.0f, hi = 0.0f;
    for (int i = start; i < stop; i++) {
        const float d = data[i];
        lo = ST_LO(lo, d);
        hi = ST_HI(hi, d);
    }
    range[2 * gid] = lo;
    range[2 * gid + 1] = hi;
}
#endif

/* The slides' range_coalesced: each group owns a contiguous chunk, and its
 * items stride through it together (item j reads start+j, start+j+lsize,
 * ...), so one step of the group reads consecutive addresses. The slides'
 * loop ran each item to start+j+chunk, past its group's chunk (harmless
 * for min/max, but off the end of the data for the last group); here every
 * item stops at the chunk's end. */
#if defined(K_RANGE_COALESCED)
KERNEL range_coalesced(GLOBAL const float *data, int total, GLOBAL float *range) {
    const int ngroups = (int)NGROUPS_X, group = (int)GROUP_X, lid = (int)LID_X, lsize = (int)LSIZE_X;
    const int per = (total + ngroups - 1) / ngroups;
    const int start = per * group, stop = start + per < total ? start + per : total;
    float lo = 0.0f, hi = 0.0f;
    for (int i = start + lid; i < stop; i += lsize) {
        const float d = data[i];
        lo = ST_LO(lo, d);
        hi = ST_HI(hi, d);
    }
    const int gid = (int)GID_X;
    range[2 * gid] = lo;
    range[2 * gid + 1] = hi;
}
#endif
