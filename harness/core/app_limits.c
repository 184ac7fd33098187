/* Validity rules more than one app shares (app.h): whether a work-group
 * is within a device's limits, and whether a grid of double-buffered cells
 * fits it. Generic: shapes and sizes in words, no app's data. */
#include <stdio.h>

#include "core/app.h"

const char *app_wg_fits(const struct device_info *dev, const unsigned wg[2], char *why, size_t n) {
    const size_t items = (size_t)wg[0] * wg[1];
    if (items > dev->max_wg) {
        snprintf(why, n, "work-group %ux%u = %zu items exceeds the device's maximum of %zu", wg[0], wg[1], items,
                 dev->max_wg);
        return why;
    }
    if (wg[0] > dev->max_item[0] || wg[1] > dev->max_item[1]) {
        snprintf(why, n, "work-group %ux%u exceeds the device's per-dimension limits %zux%zu", wg[0], wg[1],
                 dev->max_item[0], dev->max_item[1]);
        return why;
    }
    return NULL;
}

const char *app_grid_fits(const struct device_info *dev, int w, int h, size_t cell_bytes, char *why, size_t n) {
    const double grid = (double)w * (double)h * (double)cell_bytes;
    if (dev->max_alloc && grid > (double)dev->max_alloc) {
        snprintf(why, n, "a %dx%d grid is %.2f GiB, over the device's largest allocation of %.2f GiB", w, h,
                 grid / 1073741824.0, (double)dev->max_alloc / 1073741824.0);
        return why;
    }
    /* Two grids (the current and the next iteration) and a little room. */
    if (dev->global_mem && 2.1 * grid > (double)dev->global_mem) {
        snprintf(why, n, "two %dx%d grids do not fit the device's %.2f GiB", w, h,
                 (double)dev->global_mem / 1073741824.0);
        return why;
    }
    return NULL;
}
