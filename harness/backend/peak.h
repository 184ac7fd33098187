/* Device ceilings: copy bandwidth and FP32 rate (harness/backend/peak.c). */
#ifndef HARNESS_PEAK_H
#define HARNESS_PEAK_H
#include <stddef.h>

#include "backend/backend.h"

#define PEAK_REPS 20

/* The copy's buffer size: big enough to defeat every cache (H100 L2 50 MB,
 * CPU L3 tens of MB), small enough to fit any device. */
size_t peak_copy_bytes(const struct device_info *info);
/* Read + write bytes over the median device time of PEAK_REPS copies. 0 or -1 (d->err). */
int peak_copy_gbs(struct dev *d, double *gbs);
/* Eight FMA chains per work-item (harness/backend/peak/flops*), lengthened until one
 * launch takes at least 50 ms, median of 5. 0 or -1 (d->err). */
int peak_fp32_gflops(struct dev *d, double *gflops);
#endif
