#include "core/hostload.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* Busy seconds of the whole machine: user, nice, system, irq and softirq
 * from the first line of /proc/stat (guest time is inside user already;
 * idle, iowait and steal are not work), and the stolen seconds. -1 when
 * unreadable. */
static double machine_busy(double *steal) {
    FILE *f = fopen("/proc/stat", "r");
    *steal = -1;
    if (!f) return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                   &v[7]);
    fclose(f);
    if (n < 7) return -1;
    const double tick = (double)sysconf(_SC_CLK_TCK) > 0 ? (double)sysconf(_SC_CLK_TCK) : 100;
    *steal = n >= 8 ? (double)v[7] / tick : 0;
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / tick;
}

static double tv_s(struct timeval t) { return (double)t.tv_sec + 1e-6 * (double)t.tv_usec; }

static double own_cpu(void) {
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
}

void cpu_meter_start(struct cpu_meter *m) {
    m->busy_s = machine_busy(&m->steal_s);
    m->own_s = own_cpu();
    m->wall = clock_now();
}

double cpu_meter_steal(const struct cpu_meter *m) {
    double steal, wall = clock_now() - m->wall;
    machine_busy(&steal);
    if (steal < 0 || m->steal_s < 0 || wall <= 0) return NAN;
    return (steal - m->steal_s) / wall;
}

double cpu_meter_foreign(const struct cpu_meter *m) {
    double steal, busy = machine_busy(&steal), wall = clock_now() - m->wall;
    if (busy < 0 || m->busy_s < 0 || wall <= 0) return NAN;
    /* /proc/stat counts in ticks and rusage in microseconds: a short window
     * can come out a hair below zero. */
    double foreign = (busy - m->busy_s) - (own_cpu() - m->own_s);
    return foreign > 0 ? foreign / wall : 0;
}

double hostload_sample(double seconds) {
    struct cpu_meter m;
    cpu_meter_start(&m);
    struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0) {
    }
    return cpu_meter_foreign(&m);
}

void utc_now(char *buf, unsigned n) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    str_fmt(buf, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}
