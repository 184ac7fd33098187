/* The rounds engine (rounds.h). */
#include "core/rounds.h"

#include "core/progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "core/hostload.h"

void rounds_note(FILE *out, const char *what, const struct round_state *st) {
    if (!st->disturbed || (harness_quiet && out == stderr)) return;
    fprintf(out, "note: %s round %d was disturbed: other processes kept %.1f cores busy, the hypervisor took %.1f\n",
            what, st->round + 1, st->foreign_cores, st->steal_cores);
}

int rounds_reps_each(int reps, int rounds) {
    if (rounds < 1) rounds = 1;
    int each = (reps + rounds - 1) / rounds;
    return each < 1 ? 1 : each;
}

void rounds_shuffle(int *perm, int n, unsigned long long seed) {
    uint64_t state = seed;
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* The rank of a job's device in round r: devices take turns in a shuffled
 * order, one device's configs together, so that one device's worker is idle
 * while another's measures only within a group (a confirmation's A and B). */
static int device_rank(const struct round_job *jobs, int n, const struct round_job *j, int r, unsigned seed) {
    char specs[64][32];
    int ns = 0, mine = 0;
    for (int i = 0; i < n && ns < 64; i++) {
        int seen = 0;
        for (int q = 0; q < ns && !seen; q++) seen = !strcmp(specs[q], jobs[i].job.device);
        if (!seen) str_copy(specs[ns++], sizeof specs[0], jobs[i].job.device);
    }
    for (int q = 0; q < ns; q++)
        if (!strcmp(specs[q], j->job.device)) mine = q;
    int perm[64];
    rounds_shuffle(perm, ns, ((unsigned long long)seed << 24) ^ 0x5bd1e995ull ^ (unsigned long long)r);
    for (int q = 0; q < ns; q++)
        if (perm[q] == mine) return q;
    return 0;
}

/* The jobs due in round r, in the order they run: devices in turn, and on
 * each device groups (and lone jobs) shuffled, a group's members back to
 * back in an order that turns with r. */
static int round_order(struct round_job *jobs, int n, int r, unsigned seed, int *order) {
    int *unit = xcalloc((size_t)n + 1, sizeof *unit), nunit = 0; /* a unit: its first job */
    for (int i = 0; i < n; i++) {
        struct round_job *j = &jobs[i];
        if (j->skip || j->done || r < j->first || r >= (j->m.rounds > 0 ? j->m.rounds : 1)) continue;
        int seen = 0;
        for (int u = 0; u < nunit && j->group >= 0 && !seen; u++) seen = jobs[unit[u]].group == j->group;
        if (!seen) unit[nunit++] = i;
    }
    int *perm = xcalloc((size_t)nunit + 1, sizeof *perm), k = 0;
    rounds_shuffle(perm, nunit, ((unsigned long long)seed << 20) ^ (unsigned long long)(r + 1));
    /* A stable pass per device rank keeps the shuffle within each device. */
    int *rank = xcalloc((size_t)nunit + 1, sizeof *rank), *sorted = xcalloc((size_t)nunit + 1, sizeof *sorted), ns = 0;
    for (int u = 0; u < nunit; u++) rank[u] = device_rank(jobs, n, &jobs[unit[perm[u]]], r, seed);
    for (int want = 0; want < 64 && ns < nunit; want++)
        for (int u = 0; u < nunit; u++)
            if (rank[u] == want) sorted[ns++] = perm[u];
    memcpy(perm, sorted, (size_t)nunit * sizeof *perm);
    free(rank);
    free(sorted);
    for (int u = 0; u < nunit; u++) {
        const struct round_job *head = &jobs[unit[perm[u]]];
        if (head->group < 0) {
            order[k++] = unit[perm[u]];
            continue;
        }
        int members[64], nm = 0;
        for (int i = 0; i < n && nm < 64; i++) {
            const struct round_job *j = &jobs[i];
            if (j->group == head->group && !j->skip && !j->done && r >= j->first &&
                r < (j->m.rounds > 0 ? j->m.rounds : 1))
                members[nm++] = i;
        }
        for (int q = 0; q < nm; q++) order[k++] = members[(q + r) % nm];
    }
    free(perm);
    free(unit);
    return k;
}

struct pools {
    int n;
    struct {
        char spec[32];
        int exec;
        struct worker_pool *pool;
    } p[64];
};

static struct worker_pool *pool_for(struct pools *ps, const struct rounds_opts *o, const char *spec, int exec) {
    for (int i = 0; i < ps->n; i++)
        if (ps->p[i].exec == exec && !strcmp(ps->p[i].spec, spec)) return ps->p[i].pool;
    if (ps->n == 64) { /* more devices x builds than a round can hold: reuse the last */
        return ps->p[63].pool;
    }
    const struct round_exec *e = exec < o->nexecs ? &o->execs[exec] : NULL;
    struct worker_pool *pool = e ? pool_open_exec(e->bin, e->root) : pool_open();
    str_copy(ps->p[ps->n].spec, sizeof ps->p[ps->n].spec, spec);
    ps->p[ps->n].exec = exec;
    ps->p[ps->n++].pool = pool;
    return pool;
}

static void pools_close(struct pools *ps) {
    for (int i = 0; i < ps->n; i++) pool_close(ps->p[i].pool);
    ps->n = 0;
}

/* Ends the workers of every device but `spec`: its turn in the round is over. */
static void pools_close_others(struct pools *ps, const char *spec) {
    int kept = 0;
    for (int i = 0; i < ps->n; i++) {
        if (!strcmp(ps->p[i].spec, spec)) ps->p[kept++] = ps->p[i];
        else pool_close(ps->p[i].pool);
    }
    ps->n = kept;
}

/* The seconds left: each job's rounds still to run at what its own last
 * round took, or while it has not run yet, at the mean of its device's
 * jobs so far (or of all). Steps differ by far more than a pace can hide: a
 * GPU config and a CPU one, a 1x1 shape and a 32x8, and a device's first
 * config in a round starts its worker. -1 before anything ran. */
static double left_estimate(const struct round_job *jobs, int n, const double *dur, const int *ran) {
    double all = 0;
    int nall = 0;
    for (int i = 0; i < n; i++)
        if (dur[i] > 0) all += dur[i], nall++;
    if (!nall) return -1;
    double left = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].skip || jobs[i].done) continue;
        const int rem = jobs[i].m.rounds - jobs[i].first - ran[i];
        if (rem <= 0) continue;
        double est = dur[i];
        if (!(est > 0)) {
            double dev = 0;
            int ndev = 0;
            for (int k = 0; k < n; k++)
                if (dur[k] > 0 && !strcmp(jobs[k].job.device, jobs[i].job.device)) dev += dur[k], ndev++;
            est = ndev ? dev / ndev : all / nall;
        }
        left += rem * est;
    }
    return left;
}

int rounds_run(struct round_job *jobs, int n, const struct rounds_opts *o) {
    int rounds = 0, total = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].m.rounds < 1) jobs[i].m.rounds = 1;
        if (jobs[i].skip) continue;
        if (jobs[i].m.rounds > rounds) rounds = jobs[i].m.rounds;
        total += jobs[i].m.rounds - jobs[i].first;
    }
    int *order = xcalloc((size_t)n + 1, sizeof *order), done = 0, begun = 0;
    struct progress pr;
    progress_start(&pr, o->what ? o->what : "", total);
    double *dur = xcalloc((size_t)n + 1, sizeof *dur); /* each job's last round, wall seconds */
    int *ran = xcalloc((size_t)n + 1, sizeof *ran);    /* rounds each job ran here */
    for (int r = 0; r < rounds && !harness_interrupted; r++) {
        int k = round_order(jobs, n, r, o->seed, order);
        if (!k) continue;
        begun++;
        struct round_state st = {.round = r};
        utc_now(st.started_at, sizeof st.started_at);
        struct cpu_meter meter;
        cpu_meter_start(&meter);
        struct pools ps = {0};
        for (int q = 0; q < k && !harness_interrupted; q++) {
            struct round_job *j = &jobs[order[q]];
            pools_close_others(&ps, j->job.device);
            char detail[160];
            str_fmt(detail, sizeof detail, "round %d/%d, %.40s on %.32s", r + 1, rounds, j->m.variant, j->job.device);
            progress_update_left(&pr, done, left_estimate(jobs, n, dur, ran), detail);
            struct measurement rm = {0};
            measurement_unknown(&rm);
            const double t0 = clock_now();
            pool_run(pool_for(&ps, o, j->job.device, j->exec), &j->job, j->timeout_s, &rm);
            dur[order[q]] = clock_now() - t0;
            ran[order[q]]++;
            if (harness_interrupted) { /* the config in flight says nothing */
                measurement_free(&rm);
                break;
            }
            int first_sample = j->m.nsamples;
            measurement_add_round(&j->m, &rm, r);
            measurement_free(&rm);
            measurement_summarise(&j->m, j->bytes_per_cell);
            if ((j->m.status != ST_OK && j->m.status != ST_UNVERIFIED) || r + 1 >= j->m.rounds) j->done = 1;
            done++;
            progress_end(&pr); /* the result line (on_result) goes on a clean line */
            if (o->on_result) o->on_result(o->ctx, j, r, first_sample);
            if (!pr.tty) progress_update_left(&pr, done, left_estimate(jobs, n, dur, ran), NULL);
        }
        pools_close(&ps); /* every worker of this round exits: the next round starts fresh */
        st.wall_s = clock_now() - meter.wall;
        st.foreign_cores = cpu_meter_foreign(&meter);
        st.steal_cores = cpu_meter_steal(&meter);
        st.disturbed = st.foreign_cores >= HOSTLOAD_DISTURBED_CORES || st.steal_cores >= HOSTLOAD_DISTURBED_CORES;
        if (o->on_round && !harness_interrupted) o->on_round(o->ctx, &st);
    }
    progress_end(&pr);
    free(dur);
    free(ran);
    free(order);
    return harness_interrupted ? -1 : begun;
}
