#include "measurement.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

const char *status_name(enum status s) {
    static const char *names[] = {"ok",            "wrong",   "invalid", "compile-error",
                                  "runtime-error", "timeout", "crashed", "unverified"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
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

void measurement_free(struct measurement *m) {
    free(m->samples);
    free(m->device_samples);
    m->samples = m->device_samples = NULL;
    m->nsamples = 0;
}
