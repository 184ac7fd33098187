/* Device probes in a process of their own. A command that measures several
 * devices (peak, report's ceilings and launch costs, nightly's burn-in and
 * canaries) used to open each in its own process, one after another; two
 * runtimes that share a driver then met there (the CUDA backend's released
 * context, then libgomp's nvptx plugin: "context is destroyed" and a fatal
 * exit that ended the command with no report). Each probe now runs in
 * `harness probe` (cli/cmd_probe.c), a fresh exec, under a watchdog: a
 * runtime that aborts or hangs costs that device's figure, never the
 * command or the other devices.
 *
 *     struct probe_peak p;
 *     if (probe_peak(info, 1, &p, err, sizeof err) == 0)
 *         printf("%.1f GB/s, %.0f GFLOP/s%s\n", p.gbs, p.gflops, p.fp32_err);
 */
#ifndef HARNESS_PROBE_ISOLATED_H
#define HARNESS_PROBE_ISOLATED_H
#include <stddef.h>

#include "backend/backend.h"
#include "base/util.h"

/* A probe's watchdog: a copy ceiling takes seconds, a burn-in its bound. */
#define PROBE_TIMEOUT_S 300.0

/* Runs `harness probe WHAT SPEC ARGS...` (args: NULL-terminated, may be
 * NULL) and collects its standard output into out. 0 when it exited 0;
 * else -1 with err: its own "error ..." line, or how it died or that it
 * was killed at the timeout. */
int probe_isolated(const struct device_info *info, const char *what, const char *const *args, double timeout_s,
                   struct strbuf *out, char *err, size_t errn);

struct probe_peak {
    double gbs;         /* read + write bytes per second of the copy / 1e9 */
    double gflops;      /* the FP32 rate, 0 when not measured or failed */
    char fp32_err[512]; /* why there is no FP32 rate ("" when there is) */
};
/* The copy ceiling (and the FP32 rate when fp32). 0, or -1 with err. */
int probe_peak(const struct device_info *info, int fp32, struct probe_peak *out, char *err, size_t errn);

/* The launch cost (backend/launch_cost.h) of o's counts: fills rows and
 * returns how many, or -1 with err. */
struct launch_cost_opts;
struct launch_cost_row;
int probe_launch_cost(const struct device_info *info, const struct launch_cost_opts *o, struct launch_cost_row *rows,
                      int maxrows, char *err, size_t errn);

/* A test drill (tests/integration/isolation.sh): a child process that opens
 * the device whose spec HARNESS_DRILL_ABORT names (a probe or a worker)
 * aborts right after, as a runtime's fatal error would. */
void probe_drill_abort(const char *spec);
#endif
