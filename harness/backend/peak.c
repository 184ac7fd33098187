/* A device's own ceilings, measured as BabelStream does: a large
 * device-to-device copy, bytes read plus bytes written over the median time
 * of many copies; and the FP32 rate of FMA chains. `harness peak` and
 * `harness report` store them per device fingerprint. */
#include "backend/peak.h"
#include "backend/compilers.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/stats.h"

#define PEAK_FILL_CHUNK ((size_t)16 << 20)

size_t peak_copy_bytes(const struct device_info *info) {
    size_t bytes = strcmp(info->kind, "gpu") == 0 ? (size_t)1 << 30 : (size_t)256 << 20;
    if (info->max_alloc && bytes > info->max_alloc / 2) bytes = info->max_alloc / 2;
    if (info->global_mem && bytes > info->global_mem / 8) bytes = info->global_mem / 8;
    return bytes & ~(size_t)4095;
}

int peak_copy_gbs(struct dev *d, double *gbs) {
    const size_t bytes = peak_copy_bytes(&d->info);
    struct buf *a = d->ops->alloc(d, bytes), *b = a ? d->ops->alloc(d, bytes) : NULL;
    if (!b) {
        d->ops->buf_free(d, a);
        return -1;
    }
    /* Initialised memory (no lazy zero pages on a CPU device), written from
     * one chunk of ones: a host buffer as large as the copy's was 1 GiB more
     * of host memory for a GPU, and 256 MiB more to fault in and fill on a
     * CPU, in every canary (a burn-in runs several, tune and compare check
     * before and after). The timed copies below do not change. */
    const size_t chunk = bytes < PEAK_FILL_CHUNK ? bytes : PEAK_FILL_CHUNK;
    char *fill = xcalloc(1, chunk);
    memset(fill, 1, chunk);
    int rc = 0;
    for (size_t off = 0; off < bytes && !rc; off += chunk) {
        const size_t n = bytes - off < chunk ? bytes - off : chunk;
        rc = d->ops->write(d, a, off, n, fill) || d->ops->write(d, b, off, n, fill);
    }
    free(fill);
    double t[PEAK_REPS];
    for (int r = -2; r < PEAK_REPS && !rc; r++) { /* two untimed warm-ups */
        double dev_s = 0;
        rc = d->ops->mark(d, 0) || d->ops->copy(d, b, a, bytes) || d->ops->mark(d, 1) || d->ops->finish(d) ||
             d->ops->elapsed(d, &dev_s);
        if (r >= 0) t[r] = dev_s;
    }
    d->ops->buf_free(d, a);
    d->ops->buf_free(d, b);
    if (rc) return -1;
    *gbs = 2.0 * (double)bytes / stats_median(t, PEAK_REPS) / 1e9;
    return 0;
}

int peak_fp32_gflops(struct dev *d, double *gflops) {
    char src[4096], rel[64], dir[4096];
    snprintf(rel, sizeof rel, "harness/backend/peak/flops%s", d->ops->source_suffix);
    repo_path(src, sizeof src, rel);
    repo_path(dir, sizeof dir, "harness/backend/peak");
    char opts[4200];
    snprintf(opts, sizeof opts, "-I%s%s", dir, compiler_probe_option());
    struct program *p = d->ops->build(d, src, opts);
    struct kernel *k = p ? d->ops->kernel(d, p, "fma_chain") : NULL;
    size_t local = d->info.max_wg < 256 ? d->info.max_wg : 256;
    size_t items = (size_t)(d->info.compute_units ? d->info.compute_units : 1) * 2048;
    items = (items + local - 1) / local * local;
    struct buf *out = k ? d->ops->alloc(d, items * sizeof(float)) : NULL;
    int rc = out ? 0 : -1;
    double t[5] = {0};
    int iters = 256;
    for (int r = -1; r < 5 && !rc; r++) {
        const size_t g[2] = {items, 1}, l[2] = {local, 1};
        const struct karg a[4] = {ARG_BUF(out), ARG_INT(iters), ARG_FLOAT(0.999999f), ARG_FLOAT(1e-6f)};
        double s = 0;
        rc = d->ops->mark(d, 0) || d->ops->launch(d, k, g, l, 4, a) || d->ops->mark(d, 1) || d->ops->finish(d) ||
             d->ops->elapsed(d, &s);
        if (rc) break;
        if (r < 0) { /* calibrate the length on the first launch */
            while (s < 0.05 && iters < (1 << 24)) {
                iters *= 2;
                s *= 2;
            }
            continue;
        }
        t[r] = (double)items * (double)iters * 16.0 / s / 1e9;
    }
    if (out) d->ops->buf_free(d, out);
    if (p) d->ops->program_free(d, p);
    if (rc) return -1;
    *gflops = stats_median(t, 5);
    return 0;
}
