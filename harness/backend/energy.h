/* A GPU's energy meter: the board's cumulative energy counter, read through
 * NVML (NVIDIA's management library, loaded with dlopen at run time, never
 * linked), so a measurement can say how many joules its timed repetitions
 * drew (core/timed.h). A device without a meter is the normal case (a CPU,
 * another vendor's GPU, no NVIDIA driver): opening it returns NULL and says
 * nothing. */
#ifndef HARNESS_ENERGY_H
#define HARNESS_ENERGY_H
#include <stddef.h>

#include "backend/backend.h"

struct energy_meter;

/* The meter of dev's board, or NULL where there is none: not an NVIDIA GPU,
 * no NVML, a GPU older than Volta (no energy counter), or no way to tell
 * which NVML device dev is. Prints nothing. */
struct energy_meter *energy_open(const struct device_info *dev);
/* The same; where it returns NULL for an NVIDIA GPU, why says why (for
 * `harness devices`); "" for a device that never has a meter. */
struct energy_meter *energy_open_why(const struct device_info *dev, char *why, size_t whyn);
/* The board's energy since the driver loaded, in millijoules. 0, or -1 when
 * the read failed (then the window it would close has no energy). */
int energy_read_mj(struct energy_meter *m, unsigned long long *mj);
/* What the meter reads and how it found the board: "nvml, PCI 0000:65:00.0". */
const char *energy_describe(const struct energy_meter *m);
void energy_close(struct energy_meter *m);
#endif
