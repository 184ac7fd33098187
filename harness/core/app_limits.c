/* Validity rules more than one app shares (app.h): whether a grid of
 * double-buffered cells fits a device. Generic: a grid's size in words,
 * no app's data. */
#include <stdio.h>

#include "core/app.h"

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
