/* How an app's schedule builds its kernel source for a device: the one
 * recipe the mat-vec and DG schedules shared line for line (the other apps
 * add options of their own: their schedule.c). */
#include <limits.h>
#include <stdio.h>

#include "base/util.h"
#include "core/app.h"
#include "core/compiler_knobs.h"

struct program *app_build_program(struct dev *d, const char *app, const struct knob_set *k, const size_t local[2],
                                  const char *extra) {
    char dir[PATH_MAX], rel[PATH_MAX], src[PATH_MAX];
    struct strbuf opts = {0};
    snprintf(rel, sizeof rel, "kernels/%s", app);
    repo_path(dir, sizeof dir, rel);
    sb_printf(&opts, "-I%s", dir);
    knobs_defines(k, &opts);
    /* A directive program has the shape compiled in: GCC takes
     * vector_length only as a constant, so one program per shape. */
    if (d->info.caps.directives) sb_printf(&opts, " -DK_WG_X=%zu -DK_WG_Y=%zu", local[0], local[1]);
    regcap_option(k, d->ops, &opts); /* where the app declares regcap */
    if (extra && *extra) sb_printf(&opts, " %s", extra);
    snprintf(rel, sizeof rel, "kernels/%s/%s%s", app, app, d->ops->source_suffix);
    repo_path(src, sizeof src, rel);
    struct program *prog = d->ops->build(d, src, opts.s);
    sb_free(&opts);
    return prog;
}
