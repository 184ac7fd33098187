/* The sandpile schedule's state for one device, shared by schedule.c (one
 * device) and hybrid.c (the two members of a device set, one state each). */
#ifndef SANDPILE_SCHEDULE_H
#define SANDPILE_SCHEDULE_H
#include <limits.h>

#include "base/util.h"
#include "sandpile.h"

enum detect { DETECT_NONE, DETECT_GRID, DETECT_FLAG, DETECT_PREDICT };

struct sp_exec {
    struct dev *d;
    const struct app_input *in;
    enum detect detect;
    long every, predict_at, limit, target;
    int steps, async;
    int double_tile; /* tile=double: two copies of the tile in local memory, one barrier a step */
    int cells;       /* cells=R: R tile rows per work-item (topple_strip); 1: topple_tiled */
    int resident;    /* launch=resident: one co-resident launch per batch, ending itself at stability */
    struct buf *bar; /* its grid barrier's two words */
    int tiles[2];    /* launch=resident: blocks of cells across and down */
    int per_cell;    /* vote=cell: flags is W x H, each cell's last unstable step */
    size_t nflags;   /* ints in flags: limit + 1, or W x H */
    int row0, row1;  /* the rows the next launch updates: [1, h-1) alone; in a split, what rowsplit_rows says */
    unsigned wg[2];
    char src[PATH_MAX];
    struct strbuf opts;
    struct program *prog;
    struct kernel *kern; /* topple, topple_tiled, topple_strip or topple_async */
    struct buf *grid[2]; /* grid[0] is always the current state */
    struct buf *flags;   /* flags[k] == k while grid k is unstable (vote=cell: per cell, below) */
    size_t global[2], local[2];
    size_t local_bytes;
    unsigned *host_grid; /* detect=grid: the grid read back */
    int *host_flags;
    long iters; /* this repetition's count */
};

enum detect sp_detect_of(const struct knob_set *k);
size_t sp_cells(const struct sp_exec *e);
/* Reads the knobs, builds the kernel and allocates the buffers on d for rows
 * [1, h-1). 0, or -1 with m's status and reason set (sp_release either way). */
int sp_setup(struct sp_exec *e, struct dev *d, const struct app_input *in, const struct knob_set *k,
             const unsigned wg[2], struct measurement *m);
void sp_release(struct sp_exec *e);
/* A repetition's start: the initial grid in both buffers, the flags zeroed,
 * the queue finished. */
int sp_start(struct sp_exec *e);
/* The launch geometry for e's rows [row0, row1) and shape. */
void sp_geometry(struct sp_exec *e, const unsigned wg[2]);
/* Steps it+1 .. to on e's device, rows [row0, row1) each step. */
int sp_advance(struct sp_exec *e, long it, long to);
/* The first stable step among from+1 .. to from e's flags, or -1. */
int sp_first_stable(struct sp_exec *e, long from, long to, long *found);

/* hybrid.c: one config on a device set (devset.h), the rows split. */
struct app_result *sandpile_execute_set(struct dev *set, const struct app_input *in, const struct knob_set *k,
                                        const unsigned wg[2], int warmup, int reps, struct measurement *m);
#endif
