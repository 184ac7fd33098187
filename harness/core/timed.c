#include "core/timed.h"

#include <math.h>

#include "backend/energy.h"
#include "base/util.h"
#include "core/cpu_counters.h"

void timed_energy(struct measurement *m, unsigned long long before_mj, unsigned long long after_mj, double window_s,
                  int reps) {
    /* A counter that did not move over half a second is not counting. */
    if (reps < 1 || !(window_s >= ENERGY_MIN_WINDOW_S) || after_mj <= before_mj) return;
    double joules = (double)(after_mj - before_mj) / 1000.0;
    m->energy_j = joules / reps;
    m->power_w = joules / window_s;
    m->energy_reps = reps;
}

/* The first repetition's sum, once taken. */
struct first_sum {
    int taken;
    double sum;
};

/* Repetition r's sum against the first's: the first that differs is noted
 * in m, with both sums. A NAN differs from any number; two NANs agree, and
 * the reference comparison of the last repetition judges them. */
static void check_repetition(struct measurement *m, const struct timed_check *check, void *ctx, int r,
                             struct first_sum *first) {
    double sum;
    if (check->sum(ctx, &sum) != 0) return;
    if (r == 0) {
        *first = (struct first_sum){1, sum};
        return;
    }
    if (!first->taken || m->rep_differs) return;
    const int differs = isnan(sum) || isnan(first->sum) ? isnan(sum) != isnan(first->sum)
                                                        : fabs(sum - first->sum) > check->rtol * fabs(first->sum);
    if (!differs) return;
    m->rep_differs = r + 1;
    m->rep_sums[0] = first->sum;
    m->rep_sums[1] = sum;
}

int timed_reps(struct dev *d, int warmup, int reps, struct measurement *m, timed_rep_fn rep, void *ctx,
               const struct timed_check *check) {
    m->samples = xcalloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    m->device_samples = xcalloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    for (int c = 0; c < MEASURE_COUNTERS; c++) m->counters[c] = xcalloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    /* The window: from the counter read before the first timed repetition
     * to the one after the last has finished. Each read takes milliseconds
     * (about 4 on an H100), so the clock starts after the first returns and
     * stops before the second begins. */
    unsigned long long before = 0, after = 0;
    int metered = 0;
    double t0 = 0;
    struct first_sum first = {0, NAN};
    for (int r = 0; r < warmup + reps; r++) {
        if (r == warmup && d->energy) {
            metered = energy_read_mj(d->energy, &before) == 0;
            t0 = clock_now();
        }
        double wall = 0, dev_s = 0;
        struct cpu_reading c0, c1;
        cpu_counters_read(&c0);
        if (rep(ctx, &wall, &dev_s)) return -1;
        cpu_counters_read(&c1);
        if (check) check_repetition(m, check, ctx, r, &first);
        if (r >= warmup) {
            const int i = m->nsamples++;
            m->samples[i] = wall;
            m->device_samples[i] = dev_s;
            m->counters[MEASURE_CPU - 1][i] = c1.cpu_s - c0.cpu_s;
            m->counters[MEASURE_CYCLES - 1][i] = c1.cycles - c0.cycles;
            m->counters[MEASURE_INSTRUCTIONS - 1][i] = c1.instructions - c0.instructions;
        }
    }
    if (metered) {
        double window = clock_now() - t0;
        if (energy_read_mj(d->energy, &after) == 0) timed_energy(m, before, after, window, reps);
    }
    return 0;
}
