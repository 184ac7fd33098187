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

/* Every repetition's result checked, not only the last one's (which the
 * app's verify() compares with the reference in full): after each returns,
 * outside its timed region, `sum` sums up what it produced into one number
 * (the app's results as the host has them, or read back), 0 with *sum, or
 * -1 when there is nothing to compare this time. A repetition, warm-ups
 * included, whose sum differs from the first's by more than rtol (relative;
 * 0: exactly) is noted in m (rep_differs, rep_sums), and the runner records
 * the config as wrong (runner.c). rtol covers what may differ honestly: a
 * float reduction whose order the device does not fix. */
struct timed_check {
    int (*sum)(void *ctx, double *sum);
    double rtol;
};

/* Runs the repetitions into m (its sample arrays allocated here, for reps)
 * and, with a meter, sets m's energy_j, power_w and energy_reps; with a
 * check (NULL: none), compares every repetition's sum with the first's.
 * Returns 0, or -1 at the first failed repetition (the samples before it
 * stay; the energy stays unknown). */
int timed_reps(struct dev *d, int warmup, int reps, struct measurement *m, timed_rep_fn rep, void *ctx,
               const struct timed_check *check);

/* The energy of one window from the counter's two reads (millijoules) around
 * `reps` repetitions lasting window_s: sets m's energy fields, or leaves them
 * unknown when the window is shorter than ENERGY_MIN_WINDOW_S or the counter
 * did not advance. (Part of timed_reps; exposed for tests.) */
void timed_energy(struct measurement *m, unsigned long long before_mj, unsigned long long after_mj, double window_s,
                  int reps);
#endif
