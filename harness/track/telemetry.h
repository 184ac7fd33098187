/* The machine's state as an unprivileged process can read it, recorded with
 * each nightly so a slow night can be explained: the CPU frequency governor
 * and current clock, the load average, and per NVIDIA GPU (through NVML,
 * when libnvidia-ml is present) its clocks, temperature and throttle reasons. */
#ifndef HARNESS_TELEMETRY_H
#define HARNESS_TELEMETRY_H
#include "base/util.h"

/* Appends "key: value" lines to out. Never fails: what cannot be read says so. */
void telemetry_collect(struct strbuf *out);
#endif
