#include "nightly_gen.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "stats/stats.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(struct gen_rng *r) { /* xoshiro256** */
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in (0, 1): 53 random bits, never 0 (log of it is taken). */
static double uniform(struct gen_rng *r) { return ((double)(next_u64(r) >> 11) + 0.5) / 9007199254740992.0; }

static double normal(struct gen_rng *r) { return sqrt(-2.0 * log(uniform(r))) * cos(6.283185307179586 * uniform(r)); }

void gen_history(uint64_t seed, const struct gen_params *p, double *median, double *iqr_rel) {
    struct gen_rng r;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r.s[i] = splitmix64(&x);
    int reps = p->reps > 0 ? p->reps : 0;
    double *s = xcalloc(reps ? (size_t)reps : 1, sizeof *s);
    for (int night = 0; night < p->nights; night++) {
        double level = p->base;
        if (p->step_night >= 0 && night >= p->step_night) level *= 1.0 + p->step;
        if (night == p->spike_night) level *= 1.0 + p->spike;
        if (!reps) {
            median[night] = level * exp(p->sigma * normal(&r));
            if (iqr_rel) iqr_rel[night] = 0;
            continue;
        }
        for (int k = 0; k < reps; k++) s[k] = level * exp(p->sigma * normal(&r));
        median[night] = stats_median(s, (size_t)reps);
        if (iqr_rel)
            iqr_rel[night] =
                (stats_quantile(s, (size_t)reps, 0.75) - stats_quantile(s, (size_t)reps, 0.25)) / median[night];
    }
    free(s);
}

void gen_rng_seed(struct gen_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

double gen_rng_normal(struct gen_rng *r) { return normal(r); }

void gen_night(struct gen_rng *r, double level, double night, const struct gen_noise *g, double *round_med,
               double *samples) {
    double *s = xcalloc((size_t)(g->reps > 0 ? g->reps : 1), sizeof *s);
    for (int k = 0; k < g->rounds; k++) {
        double round = g->round * gen_rng_normal(r);
        for (int i = 0; i < g->reps; i++) {
            s[i] = level * exp(night + round + g->rep * gen_rng_normal(r));
            if (samples) samples[k * g->reps + i] = s[i];
        }
        round_med[k] = stats_median(s, (size_t)g->reps);
    }
    free(s);
}
