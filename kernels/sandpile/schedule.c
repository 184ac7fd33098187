/* The sandpile host schedule, written once against the backend interface.
 * One repetition runs from the start to the first stable grid:
 *
 *   it = 0;
 *   loop: run steps it+1 .. next on the device (launches of `steps` steps)
 *         it = next; check (per detect); stop when stable, else next += every
 *
 * The knobs decide when the host looks and what it reads:
 *   detect=none     the serial count of steps, no check at all (the seed's
 *                   plain kernel, 380 ms on its RTX 2070): the floor the
 *                   others are measured against, not a way to find stability;
 *   detect=grid     the whole grid read back and scanned on the host every
 *                   `every` steps (the seed's baseline reads every step);
 *   detect=flag     the device's per-step flags of the batch read back
 *                   (4 bytes a step) every `every` steps;
 *   detect=predict  no check until the predicted step, then as flag.
 * A kernel stores k in flags[k] when grid k is unstable (sandpile_gpu.h;
 * the tiled kernel only its launch's last unstable step), so a check that
 * lands past stability still finds the first stable step exactly: one past
 * the batch's last flagged step. Steps past it change nothing (a stable grid is a fixed point of the
 * rule), so overshooting costs time, never the result: at most every-1
 * steps (detect=predict: up to its prediction's error, 10 steps at
 * 512x512, or every-1 after a prediction that came early). With steps=T, a
 * launch runs up to T steps; the batch is cut so no launch passes the next
 * check or the run's limit.
 *
 * The asynchronous rule (rule=async, OpenMP) sweeps the grid in place, four
 * launches a sweep (one per tile colour); flags[k] = k when sweep k toppled
 * anything, so the count is the last sweep that did (verify.c compares its
 * grid only).
 *
 * Rows: the kernels take a row range [row0, row1); a single device runs
 * [1, h-1). A split across devices runs each device's rows and exchanges
 * the rows next to the cut (with steps=T, T rows: the tiles read T past
 * their own rows, the redundant computation of a wider halo).
 *
 * Timing: the host clock and two device marks around the loop, from the
 * first launch until the count is known on the host; the start is written
 * (and the flags zeroed) before, and the final grid read after. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "core/devset.h"
#include "core/timed.h"
#include "sandpile.h"
#include "schedule.h"

size_t sp_cells(const struct sp_exec *e) { return (size_t)e->in->w * (size_t)e->in->h; }
static size_t round_up(size_t a, size_t b) { return (a + b - 1) / b * b; }

enum detect sp_detect_of(const struct knob_set *k) {
    if (knob_is(k, "detect", "none")) return DETECT_NONE;
    if (knob_is(k, "detect", "grid")) return DETECT_GRID;
    if (knob_is(k, "detect", "predict")) return DETECT_PREDICT;
    return DETECT_FLAG;
}

static void build_options(struct sp_exec *e, const struct knob_set *k) {
    char dir[PATH_MAX];
    repo_path(dir, sizeof dir, "kernels/sandpile");
    sb_printf(&e->opts, "-I%s", dir);
    knobs_defines(k, &e->opts);
    /* Tests only: SANDPILE_TEST_DEFINES adds defines (-DK_BROKEN_BORDER) to
     * show that verification catches a broken kernel. */
    const char *extra = getenv("SANDPILE_TEST_DEFINES");
    if (extra && *extra) sb_printf(&e->opts, " %s", extra);
    char rel[128];
    snprintf(rel, sizeof rel, "kernels/sandpile/sandpile%s", e->d->ops->source_suffix);
    repo_path(e->src, sizeof e->src, rel);
}

size_t sandpile_local_bytes(int steps, int double_tile, int cells, const unsigned wg[2]) {
    if (steps < 2) return sizeof(unsigned); /* the group's vote */
    /* The tile (twice with tile=double) and the group's last unstable step;
     * topple_strip adds a row of padding before each copy and after the last. */
    const size_t copies = double_tile ? 2 : 1, bw = wg[0] + 2 * (size_t)steps, bh = wg[1] + 2 * (size_t)steps;
    const size_t pad = cells > 1 ? (copies + 1) * bw : 0;
    return (copies * bw * bh + pad + 1) * sizeof(unsigned);
}

/* The launch geometry: the work-group shape is the block of cells each
 * group writes. topple and the asynchronous tiles: one item per cell.
 * topple_tiled: the group is that block plus a T-cell halo on every side,
 * (wx + 2T) x (wy + 2T) items, so a variant's shape means the same cells
 * whatever its steps. topple_strip (cells=R): the same tile of cells, R
 * rows of it per item, (wx + 2T) x (wy + 2T)/R items (app.c refuses a
 * height R does not divide). */
void sp_geometry(struct sp_exec *e, const unsigned wg[2]) {
    const size_t iw = (size_t)e->in->w - 2, ih = (size_t)(e->row1 - e->row0), halo = 2 * (size_t)e->steps;
    e->tiles[0] = (int)((iw + wg[0] - 1) / wg[0]);
    e->tiles[1] = (int)((ih + wg[1] - 1) / wg[1]);
    if (e->steps > 1) {
        e->local[0] = wg[0] + halo;
        e->local[1] = (wg[1] + halo) / (size_t)e->cells;
        e->global[0] = (iw + wg[0] - 1) / wg[0] * e->local[0];
        e->global[1] = (ih + wg[1] - 1) / wg[1] * e->local[1];
    } else {
        e->local[0] = wg[0];
        e->local[1] = wg[1];
        e->global[0] = round_up(iw, wg[0]);
        e->global[1] = round_up(ih, wg[1]);
    }
    e->local_bytes = sandpile_local_bytes(e->steps, e->double_tile, e->cells, wg);
}

/* launch=resident: steps it+1 .. to in one launch of as many resident
 * groups as there are blocks (or fit), which ends early at stability with
 * both grids holding the stable one. Otherwise grid[1] holds the last
 * round's output: swapped here as the rounds swapped it. */
static int advance_resident(struct sp_exec *e, long it, long to) {
    struct dev *d = e->d;
    size_t groups = (size_t)e->tiles[0] * (size_t)e->tiles[1];
    const struct karg a[13] = {ARG_BUF(e->grid[0]),      ARG_BUF(e->grid[1]),    ARG_BUF(e->flags),
                               ARG_BUF(e->bar),          ARG_INT((int)(it + 1)), ARG_INT((int)(to - it)),
                               ARG_INT(e->in->w),        ARG_INT(e->in->h),      ARG_INT(e->row0),
                               ARG_INT(e->row1),         ARG_INT(e->tiles[0]),   ARG_INT(e->tiles[1]),
                               ARG_LOCAL(e->local_bytes)};
    if (d->ops->launch_resident(d, e->kern, &groups, e->local, 13, a)) return -1;
    if (((to - it + e->steps - 1) / e->steps) % 2) {
        struct buf *t = e->grid[0];
        e->grid[0] = e->grid[1];
        e->grid[1] = t;
    }
    return 0;
}

/* Steps it+1 .. to on the device. */
int sp_advance(struct sp_exec *e, long it, long to) {
    struct dev *d = e->d;
    const int w = e->in->w, h = e->in->h;
    if (e->resident && it < to) return advance_resident(e, it, to);
    while (it < to) {
        if (e->async) {
            for (int colour = 0; colour < 4; colour++) {
                const struct karg a[6] = {ARG_BUF(e->grid[0]), ARG_BUF(e->flags), ARG_INT((int)(it + 1)),
                                          ARG_INT(w),          ARG_INT(h),        ARG_INT(colour)};
                if (d->ops->launch(d, e->kern, e->global, e->local, 6, a)) return -1;
            }
            it++;
            continue;
        }
        const long n = to - it < e->steps ? to - it : e->steps; /* steps in this launch */
        if (e->steps > 1) {
            const struct karg a[10] = {ARG_BUF(e->grid[0]), ARG_BUF(e->grid[1]),
                                       ARG_BUF(e->flags),   ARG_INT((int)(it + 1)),
                                       ARG_INT((int)n),     ARG_INT(w),
                                       ARG_INT(h),          ARG_INT(e->row0),
                                       ARG_INT(e->row1),    ARG_LOCAL(e->local_bytes)};
            if (d->ops->launch(d, e->kern, e->global, e->local, 10, a)) return -1;
        } else {
            const struct karg a[9] = {ARG_BUF(e->grid[0]),    ARG_BUF(e->grid[1]), ARG_BUF(e->flags),
                                      ARG_INT((int)(it + 1)), ARG_INT(w),          ARG_INT(h),
                                      ARG_INT(e->row0),       ARG_INT(e->row1),    ARG_LOCAL(e->local_bytes)};
            if (d->ops->launch(d, e->kern, e->global, e->local, 9, a)) return -1;
        }
        struct buf *t = e->grid[0];
        e->grid[0] = e->grid[1];
        e->grid[1] = t;
        it += n;
    }
    return 0;
}

/* The first stable grid among steps from+1 .. to, from the flags. Unstable
 * grids are a prefix of the run (a stable grid is a fixed point; an
 * asynchronous sweep that changes nothing leaves a stable grid), and grid
 * `from` was unstable (the last check said so, or it is the start), so with
 * m the last flagged step of the batch (or `from`), the first stable grid is
 * step m + 1 (the synchronous rule), or the grid after sweep m (async), if
 * m < to. *found is -1 when every step of the batch was unstable. */
int sp_first_stable(struct sp_exec *e, long from, long to, long *found) {
    struct dev *d = e->d;
    long m = from;
    if (e->per_cell) { /* the grid's last unstable step: the largest cell's */
        if (d->ops->read(d, e->flags, 0, e->nflags * sizeof(int), e->host_flags)) return -1;
        for (size_t i = 0; i < e->nflags; i++)
            if (e->host_flags[i] > m) m = e->host_flags[i];
        *found = m < to ? m + 1 : -1;
        return 0;
    }
    const size_t bytes = (size_t)(to - from) * sizeof(int);
    if (d->ops->read(d, e->flags, (size_t)(from + 1) * sizeof(int), bytes, e->host_flags + from + 1)) return -1;
    for (long k = to; k > from; k--)
        if (e->host_flags[k] == (int)k) {
            m = k;
            break;
        }
    *found = m < to ? (e->async ? m : m + 1) : -1;
    return 0;
}

/* detect=grid: the whole grid back, scanned on the host; the exact step
 * from the flags once it is stable. */
static int grid_check(struct sp_exec *e, long from, long to, long *found) {
    struct dev *d = e->d;
    *found = -1;
    if (d->ops->read(d, e->grid[0], 0, sp_cells(e) * sizeof(unsigned), e->host_grid)) return -1;
    if (!sandpile_is_stable(e->host_grid, e->in->w, e->in->h)) return 0;
    if (to - from == 1 && !e->async) {
        *found = to; /* checked every step: this is the first stable one */
        return 0;
    }
    if (sp_first_stable(e, from, to, found)) return -1;
    if (*found < 0) *found = to; /* async: every sweep of the batch changed something, the last made it stable */
    return 0;
}

static int repetition(struct sp_exec *e, double *wall, double *device) {
    struct dev *d = e->d;
    if (sp_start(e)) return -1;
    if (d->ops->mark(d, 0)) return -1;
    const double t0 = clock_now();
    long it = 0, count = 0;
    if (!e->in->initial_stable) {
        long next = e->detect == DETECT_NONE ? e->target : e->detect == DETECT_PREDICT ? e->predict_at : e->every;
        for (;;) {
            if (next > e->limit) next = e->limit;
            if (sp_advance(e, it, next)) return -1;
            const long from = it;
            it = next;
            long found = -1;
            if (e->detect == DETECT_NONE) found = it;
            else if (e->detect == DETECT_GRID ? grid_check(e, from, it, &found) : sp_first_stable(e, from, it, &found))
                return -1;
            if (found >= 0 || it >= e->limit) {
                count = found >= 0 ? found : it;
                break;
            }
            next = it + e->every;
        }
    }
    if (d->ops->mark(d, 1) || d->ops->finish(d)) return -1;
    *wall = clock_now() - t0;
    e->iters = count;
    return d->ops->elapsed(d, device);
}

static int timed_repetition(void *ctx, double *wall, double *device) { return repetition(ctx, wall, device); }

/* timed_check: the repetition's final grid, read back and hashed, exactly:
 * a stable grid is the same whatever order the topplings ran in, and a
 * capped synchronous run is determined step by step. */
static int repetition_sum(void *ctx, double *sum) {
    struct sp_exec *e = ctx;
    const size_t bytes = sp_cells(e) * sizeof(unsigned);
    unsigned *grid = xcalloc(1, bytes);
    const int rc = e->d->ops->read(e->d, e->grid[0], 0, bytes, grid);
    *sum = (double)hash_fnv1a(grid, bytes, 0);
    free(grid);
    return rc ? -1 : 0;
}
static const struct timed_check repetition_check = {repetition_sum, 0};

static void fail(struct measurement *m, enum status st, const struct dev *d) {
    m->status = st;
    str_copy(m->reason, sizeof m->reason, d->err);
}

void sp_release(struct sp_exec *e) {
    struct dev *d = e->d;
    for (int i = 0; i < 2; i++) d->ops->buf_free(d, e->grid[i]);
    d->ops->buf_free(d, e->bar);
    d->ops->buf_free(d, e->flags);
    if (e->prog) d->ops->program_free(d, e->prog);
    free(e->host_grid);
    free(e->host_flags);
    sb_free(&e->opts);
}

int sp_setup(struct sp_exec *e, struct dev *d, const struct app_input *in, const struct knob_set *k,
             const unsigned wg[2], struct measurement *m) {
    *e = (struct sp_exec){.d = d, .in = in};
    const struct sp_serial *serial = sandpile_serial(in);
    e->detect = sp_detect_of(k);
    e->every = knob_int(k, "every");
    e->steps = (int)knob_int(k, "steps");
    e->async = knob_is(k, "rule", "async");
    e->resident = knob_is(k, "launch", "resident");
    e->double_tile = knob_is(k, "tile", "double");
    /* cells=R is a work-group kernel's; a set's CPU member runs its tiles (app.c). */
    e->cells = d->info.caps.work_groups ? (int)knob_int(k, "cells") : 1;
    e->limit = sandpile_run_limit(in);
    e->target = serial->iters;
    e->row0 = 1;
    e->row1 = in->h - 1;
    e->predict_at = knob_is(k, "predict", "seed") ? sandpile_seed_prediction(in) : knob_int(k, "predict");
    if (e->predict_at < 1) e->predict_at = 1;
    sandpile_tile_shape(&d->info, k, wg, e->wg); /* a CPU's host_tile, else the config's shape */
    sp_geometry(e, e->wg);
    build_options(e, k);
    const char *name = e->async       ? "topple_async"
                       : e->resident  ? "topple_resident"
                       : e->cells > 1 ? "topple_strip"
                       : e->steps > 1 ? "topple_tiled"
                                      : "topple";
    e->prog = d->ops->build(d, e->src, e->opts.s);
    if (!e->prog || !(e->kern = d->ops->kernel(d, e->prog, name))) {
        fail(m, ST_COMPILE_ERROR, d);
        return -1;
    }
    const size_t n = sp_cells(e);
    e->per_cell = knob_is(k, "vote", "cell");
    e->nflags = e->per_cell ? n : (size_t)e->limit + 1;
    e->host_flags = xcalloc(e->nflags, sizeof(int)); /* zeroed and written to the device before each repetition */
    if (e->detect == DETECT_GRID) e->host_grid = xcalloc(n, sizeof(unsigned));
    if (!(e->grid[0] = d->ops->alloc(d, n * sizeof(unsigned))) ||
        (!e->async && !(e->grid[1] = d->ops->alloc(d, n * sizeof(unsigned)))) ||
        !(e->flags = d->ops->alloc(d, e->nflags * sizeof(int))) ||
        (e->resident && !(e->bar = d->ops->alloc(d, 2 * sizeof(unsigned))))) {
        fail(m, ST_RUNTIME_ERROR, d);
        return -1;
    }
    return 0;
}

int sp_start(struct sp_exec *e) {
    struct dev *d = e->d;
    const size_t bytes = sp_cells(e) * sizeof(unsigned);
    static const unsigned zero_bar[2] = {0, 0}; /* launch=resident's barrier: no arrivals, generation 0 */
    /* The flags start at 0: host_flags holds the last repetition's reads. */
    memset(e->host_flags, 0, e->nflags * sizeof(int));
    return d->ops->write(d, e->grid[0], 0, bytes, e->in->initial) ||
                   (e->grid[1] && d->ops->write(d, e->grid[1], 0, bytes, e->in->initial)) ||
                   d->ops->write(d, e->flags, 0, e->nflags * sizeof(int), e->host_flags) ||
                   (e->bar && d->ops->write(d, e->bar, 0, sizeof zero_bar, zero_bar)) || d->ops->finish(d)
               ? -1
               : 0;
}

struct app_result *sandpile_execute(struct dev *d, const struct app_input *in, const struct knob_set *k,
                                    const unsigned wg[2], int warmup, int reps, struct measurement *m) {
    if (devset_of(d)) return sandpile_execute_set(d, in, k, wg, warmup, reps, m);
    struct sp_exec e;
    const struct sp_serial *serial = sandpile_serial(in);
    m->warmup = warmup;
    m->iters_full = serial->iters_full;
    if (sp_setup(&e, d, in, k, wg, m)) {
        sp_release(&e);
        return NULL;
    }
    const size_t n = sp_cells(&e);
    int rc = timed_reps(d, warmup, reps, m, timed_repetition, &e, &repetition_check);
    struct app_result *res = NULL;
    if (rc) {
        fail(m, ST_RUNTIME_ERROR, d);
    } else {
        res = xcalloc(1, sizeof *res);
        res->iters = e.iters;
        res->count_comparable = !e.async;
        res->grid = xcalloc(n, sizeof(unsigned));
        if (d->ops->read(d, e.grid[0], 0, n * sizeof(unsigned), res->grid)) {
            fail(m, ST_RUNTIME_ERROR, d);
            sandpile_result_free(res);
            res = NULL;
        }
        if (res) m->status = ST_OK; /* verify() decides ok or wrong */
    }
    /* The count as run, for cell updates; the parent of an isolated run
     * computes them from the input's count, equal whenever it verifies. */
    m->iters = res && !e.async ? e.iters : serial->iters;
    m->cell_updates = sandpile_interior(in) * (double)m->iters;
    sp_release(&e);
    return res;
}
