/* cpu_counters.h. */
#include "core/cpu_counters.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int opened, fd_cycles = -1, fd_instr = -1;

static int counter_open(unsigned long long config) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.inherit = 1;        /* the threads this process starts later */
    a.exclude_kernel = 1; /* what an unprivileged process may count (perf_event_paranoid 2) */
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void cpu_counters_open(void) {
    if (opened) return;
    opened = 1;
    const char *no = getenv("HARNESS_NO_PERF");
    if (no && *no && strcmp(no, "0")) return;
    /* Virtual machines often have no hardware counters (ENOENT): CPU time
     * then stands alone. */
    fd_cycles = counter_open(PERF_COUNT_HW_CPU_CYCLES);
    fd_instr = fd_cycles >= 0 ? counter_open(PERF_COUNT_HW_INSTRUCTIONS) : -1;
}

int cpu_counters_hw(void) { return fd_cycles >= 0; }

static double counter_read(int fd) {
    uint64_t v = 0;
    if (fd < 0 || read(fd, &v, sizeof v) != (ssize_t)sizeof v) return NAN;
    return (double)v;
}

void cpu_counters_read(struct cpu_reading *r) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    r->cpu_s = (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
               1e-6 * (double)u.ru_stime.tv_usec;
    r->cycles = counter_read(fd_cycles);
    r->instructions = counter_read(fd_instr);
}
