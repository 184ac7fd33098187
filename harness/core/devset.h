/* Device sets: one config run on two devices at once ("opencl:0.0+openmp"),
 * each computing its share of the grid (rowsplit.h says how the rows are
 * divided and exchanged). A set is a device like any other to everything
 * that lists, stores, sweeps and tunes: it has a device_info (backend
 * "set", spec "A+B", a fingerprint hashed from its members' fingerprints),
 * it is opened by dev_open_measuring and it runs in a worker process under
 * the watchdog, so a crash or a hang costs its row. Only an app that
 * declares the split knobs (ROWSPLIT_KNOBS) runs on one; the app reaches
 * the members through devset_of. */
#ifndef HARNESS_DEVSET_H
#define HARNESS_DEVSET_H
#include <stddef.h>

#include "backend/backend.h"
#include "core/app.h"

#define DEVSET_BACKEND "set"
#define DEVSET_MAX 2 /* a row split has two sides; more members would be more cuts */

/* An open set: its members, opened in the order the spec names them, and the
 * helper thread that drives member 1 while the caller drives member 0. */
struct devset {
    int n;
    struct dev *m[DEVSET_MAX];
    struct devset_thread *thread;
};

/* The set's operations (backend_by_name(DEVSET_BACKEND)): open opens the
 * members, close and finish act on both, and the rest fail with a reason:
 * a set has no kernels, buffers or clock of its own, so a command that
 * measures one device (peak, launch-cost, a canary) gets an error, never a
 * crash. */
extern const struct backend_ops devset_backend;

/* Whether d describes a device set. */
int devset_is(const struct device_info *d);
/* A spec as --device, a sweep file's `device` or a worker's job names it,
 * resolved against the devices present (*all, *n). A spec with '+' is a set:
 * its members each name exactly one device, no device twice; its device_info
 * is appended to *all (realloc'd) and its index written to idx[0]. Any other
 * spec is devices_match's. Returns the count of indices (0: nothing matches
 * a plain spec), or -1 with `what is wrong` in err for a malformed set. */
/* The one device spec names, listed afresh (a child process's view: a
 * worker's or a probe's). 0, or -1 with err ("no device matches ..."). */
int device_find_one(const char *spec, struct device_info *out, char *err, size_t errn);
int devices_resolve(struct device_info **all, int *n, const char *spec, int *idx, int max, char *err, size_t errn);
/* The members of a set, as this host lists them (the device list is read
 * once per process). 0, or -1 with err. */
int devset_members(const struct device_info *set, struct device_info m[DEVSET_MAX], char *err, size_t errn);
/* Opens every member (dev_open_measuring) and the helper thread; the set's
 * own struct dev has no kernels of its own: dev_close closes the members. */
struct dev *devset_open(const struct device_info *info, char *err, size_t errn);
/* The members of an open set, or NULL when d is one device. */
struct devset *devset_of(struct dev *d);
/* Runs fn(ctx, i) for every member i at once (member 0 on the calling
 * thread, member 1 on the helper), then finishes each member's queue; busy[i]
 * is the host seconds from the start until member i's queue was finished:
 * what the run-time balancer compares. 0, or -1 with the failing member's
 * reason in set->err (the set's struct dev). fn must not finish itself. */
int devset_parallel(struct dev *set, int (*fn)(void *ctx, int member), void *ctx, double busy[DEVSET_MAX]);
/* The core's rule before the app's: a set runs only an app that declares
 * the split knobs, and only a set takes them at other than their defaults.
 * NULL = the app decides. */
const char *devset_invalid(const struct app *app, const struct knob_set *k, const struct device_info *dev, char *why,
                           size_t n);
/* What every caller checks a config with: devset_invalid, then the app's
 * own invalid(); the reason as app.h's invalid gives it (why: n bytes). */
const char *app_invalid(const struct app *app, const struct knob_set *k, const struct app_input *in,
                        const struct device_info *dev, const unsigned wg[2], char *why, size_t n);
#endif
