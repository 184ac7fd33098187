/* The timed repetitions of one config, run the same way for every app:
 * `warmup` untimed repetitions, then `reps` timed ones, each a sample (host
 * seconds after a full finish, device-event seconds), and, where the device
 * has an energy meter (dev->energy, energy.h), the energy its board drew
 * over the timed ones. The app says what one repetition is; the order and
 * what is recorded live here, so no app reads the counter at the wrong
 * moment or forgets to. */
#ifndef HARNESS_TIMED_H
#define HARNESS_TIMED_H
#include "backend/backend.h"
#include "core/measurement.h"

/* The shortest timed window whose energy is stored. NVML's counter moves in
 * steps: every 100 ms on an H100 (driver 580, measured: 30 of 30 steps
 * 97-103 ms apart; 20-100 ms by board, as PETSc's notes on
 * nvmlDeviceGetTotalEnergyConsumption say). Each read lags the truth by up
 * to one step, so a window of T seconds is measured over T plus or minus
 * one step: at most 20 % off at 0.5 s (about 8 % typical), 10 % at 1 s.
 * Shorter windows are stored as NULL (unknown), never lengthened: the
 * repetitions are the experiment's, and energy must not change them. */
#define ENERGY_MIN_WINDOW_S 0.5

/* One repetition: 0, with its host seconds (*wall) and device seconds; or
 * -1 with the reason in the device's err. The queue must be finished when
 * it returns, so that a counter read after the last one covers its work. */
typedef int (*timed_rep_fn)(void *ctx, double *wall, double *device);

/* Runs the repetitions into m (its sample arrays allocated here, for reps)
 * and, with a meter, sets m's energy_j, power_w and energy_reps. Returns 0,
 * or -1 at the first failed repetition (the samples before it stay; the
 * energy stays unknown). */
int timed_reps(struct dev *d, int warmup, int reps, struct measurement *m, timed_rep_fn rep, void *ctx);

/* The energy of one window from the counter's two reads (millijoules) around
 * `reps` repetitions lasting window_s: sets m's energy fields, or leaves them
 * unknown when the window is shorter than ENERGY_MIN_WINDOW_S or the counter
 * did not advance. (Part of timed_reps; exposed for tests.) */
void timed_energy(struct measurement *m, unsigned long long before_mj, unsigned long long after_mj, double window_s,
                  int reps);
#endif
