#include "core/measurement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stats/stats.h"

const char *status_name(enum status s) {
    static const char *names[] = {"ok",      "wrong",   "invalid",   "compile-error", "runtime-error",
                                  "timeout", "crashed", "unverified"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *measure_name(enum measure k) {
    static const char *names[] = {"wall", "cpu", "cycles", "instructions", "device"};
    return (unsigned)k < MEASURE_N ? names[k] : "?";
}

const char *measure_column(enum measure k) {
    static const char *columns[] = {"seconds", "cpu_seconds", "cycles", "instructions", "device_seconds"};
    return (unsigned)k < MEASURE_N ? columns[k] : "seconds";
}

void measurement_summarise(struct measurement *m, double bytes_per_cell) {
    size_t n = (size_t)m->nsamples;
    m->median = n ? stats_median(m->samples, n) : NAN;
    m->q1 = n ? stats_quantile(m->samples, n, 0.25) : NAN;
    m->q3 = n ? stats_quantile(m->samples, n, 0.75) : NAN;
    m->device_median = n && m->device_samples ? stats_median(m->device_samples, n) : NAN;
    if (n && m->median > 0) {
        m->mlups = m->cell_updates / m->median / 1e6;
        m->gbs = m->cell_updates * bytes_per_cell / m->median / 1e9;
    } else {
        m->mlups = m->gbs = NAN;
    }
}

void measurement_unknown(struct measurement *m) {
    m->median = m->q1 = m->q3 = m->device_median = m->mlups = m->gbs = NAN;
    m->max_abs_err = m->max_rel_err = m->tolerance = m->result = NAN;
    m->energy_j = m->power_w = NAN;
    m->energy_reps = 0;
    m->rep_differs = 0;
    m->rep_sums[0] = m->rep_sums[1] = NAN;
}

void measurement_check_repetitions(struct measurement *m) {
    if (m->status != ST_OK || !m->rep_differs) return;
    m->status = ST_WRONG;
    snprintf(m->reason, sizeof m->reason,
             "repetition %d of %d (warm-ups counted) gave another result than the first: checksum %.9g, the "
             "first's %.9g (the last repetition is the one compared with the reference)",
             m->rep_differs, m->warmup + m->nsamples, m->rep_sums[1], m->rep_sums[0]);
}

void measurement_free(struct measurement *m) {
    free(m->samples);
    free(m->device_samples);
    free(m->sample_round);
    for (int c = 0; c < MEASURE_COUNTERS; c++) free(m->counters[c]), m->counters[c] = NULL;
    m->samples = m->device_samples = NULL;
    m->sample_round = NULL;
    m->nsamples = 0;
}

static double worse(double a, double b) { return isnan(a) ? b : isnan(b) ? a : fmax(a, b); }

/* Totals rather than a median of rounds: a joule is a joule whichever round
 * drew it. Each side's window in seconds follows from its joules and watts,
 * so the combined watts are total joules over total seconds. */
static void add_energy(struct measurement *acc, const struct measurement *r) {
    int rn = r->energy_reps > 0 ? r->energy_reps : r->nsamples;
    if (isnan(r->energy_j) || !(r->power_w > 0) || rn <= 0) return;
    if (isnan(acc->energy_j) || !(acc->power_w > 0) || acc->energy_reps <= 0) {
        acc->energy_j = r->energy_j;
        acc->power_w = r->power_w;
        acc->energy_reps = rn;
        return;
    }
    double ja = acc->energy_j * acc->energy_reps, jr = r->energy_j * rn;
    double seconds = ja / acc->power_w + jr / r->power_w;
    acc->energy_reps += rn;
    acc->energy_j = (ja + jr) / acc->energy_reps;
    acc->power_w = (ja + jr) / seconds;
}

void measurement_add_round(struct measurement *acc, const struct measurement *r, int round) {
    int n = acc->nsamples + r->nsamples;
    if (!acc->sample_round && acc->nsamples) /* samples of one round, taken before rounds were counted */
        acc->sample_round = xcalloc((size_t)acc->nsamples, sizeof *acc->sample_round);
    acc->samples = xrealloc(acc->samples, (size_t)(n ? n : 1) * sizeof *acc->samples);
    acc->device_samples = xrealloc(acc->device_samples, (size_t)(n ? n : 1) * sizeof *acc->device_samples);
    acc->sample_round = xrealloc(acc->sample_round, (size_t)(n ? n : 1) * sizeof *acc->sample_round);
    for (int c = 0; c < MEASURE_COUNTERS; c++) {
        if (!r->counters[c] && !acc->counters[c]) continue;
        int had = acc->counters[c] != NULL;
        acc->counters[c] = xrealloc(acc->counters[c], (size_t)(n ? n : 1) * sizeof *acc->counters[c]);
        for (int i = had ? acc->nsamples : 0; i < n; i++)
            acc->counters[c][i] = i >= acc->nsamples && r->counters[c] ? r->counters[c][i - acc->nsamples] : NAN;
    }
    for (int i = 0; i < r->nsamples; i++) {
        acc->samples[acc->nsamples + i] = r->samples ? r->samples[i] : NAN;
        acc->device_samples[acc->nsamples + i] = r->device_samples ? r->device_samples[i] : NAN;
        acc->sample_round[acc->nsamples + i] = round;
    }
    acc->nsamples = n;
    acc->rounds_done = round + 1;
    acc->max_abs_err = worse(acc->max_abs_err, r->max_abs_err);
    acc->max_rel_err = worse(acc->max_rel_err, r->max_rel_err);
    add_energy(acc, r);
    if (!isnan(r->tolerance)) acc->tolerance = r->tolerance;
    if (!isnan(r->result)) acc->result = r->result;
    if (r->iters > 0) acc->iters = r->iters, acc->iters_full = r->iters_full;
    /* Every round builds the same program: the first round's resources stand. */
    if (!acc->resources[0]) str_copy(acc->resources, sizeof acc->resources, r->resources);
    /* The first failure decides: a config that went wrong in one round is
     * wrong, whatever the other rounds said. */
    if (acc->status == ST_OK || acc->status == ST_UNVERIFIED) {
        acc->status = r->status;
        if (r->reason[0] && acc->rounds > 1)
            str_fmt(acc->reason, sizeof acc->reason, "round %d of %d: %s", round + 1, acc->rounds, r->reason);
        else str_copy(acc->reason, sizeof acc->reason, r->reason);
    }
}

int measurement_round_medians(const struct measurement *m, double *out) {
    int nr = 0;
    double *tmp = xcalloc((size_t)(m->nsamples ? m->nsamples : 1), sizeof *tmp);
    for (int i = 0; i < m->nsamples;) {
        int round = m->sample_round ? m->sample_round[i] : 0, k = 0;
        while (i < m->nsamples && (m->sample_round ? m->sample_round[i] : 0) == round) {
            if (!isnan(m->samples[i])) tmp[k++] = m->samples[i];
            i++;
        }
        if (k) out[nr++] = stats_median(tmp, (size_t)k);
    }
    free(tmp);
    return nr;
}
