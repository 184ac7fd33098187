/* What a CPU repetition cost beside its wall time, for measures a busy host
 * moves less (issue 41): the process's CPU time (user + system, every thread:
 * getrusage), and, where the kernel and the machine allow perf_event_open,
 * the user-space cycles and instructions retired of every thread started
 * after cpu_counters_open (inherited counters). A preempted repetition's
 * wall time grows by the time it waited; its CPU time and cycles do not. */
#ifndef HARNESS_CPU_COUNTERS_H
#define HARNESS_CPU_COUNTERS_H

struct cpu_reading {
    double cpu_s;               /* user + system seconds of the process so far */
    double cycles, instructions; /* NAN where the counters are unavailable */
};

/* Opens the cycle and instruction counters of this process and the threads
 * it will start (once; later calls do nothing). Call before any thread
 * pool starts: counters are inherited by threads created after them only.
 * HARNESS_NO_PERF=1 leaves them closed (as on a host without them). */
void cpu_counters_open(void);
/* 1 when the cycle counter is open. */
int cpu_counters_hw(void);
void cpu_counters_read(struct cpu_reading *r);
#endif
