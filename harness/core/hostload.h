/* What the rest of the host is doing while the harness measures: CPU time
 * spent by processes that are not this one or its (waited-for) children,
 * per second of wall time. A round of measurements (rounds.h) during which
 * other processes kept half a core busy or more is "disturbed": on a CPU
 * device that is a core the kernels did not get, on a GPU host a launch
 * thread that may wait. Read from /proc/stat and getrusage, no privileges. */
#ifndef HARNESS_HOSTLOAD_H
#define HARNESS_HOSTLOAD_H

/* Foreign CPU (or stolen CPU) at or above this many cores marks a round
 * disturbed. */
#define HOSTLOAD_DISTURBED_CORES 0.5

struct cpu_meter {
    double busy_s;  /* the whole machine's busy CPU seconds (/proc/stat) */
    double steal_s; /* time the hypervisor gave this machine's CPUs to others */
    double own_s;   /* this process's and its waited-for children's */
    double wall;    /* monotonic seconds */
};

void cpu_meter_start(struct cpu_meter *m);
/* Other processes' CPU seconds per wall second since the start; NaN when
 * /proc/stat cannot be read. Children still running are not yet counted as
 * our own, so read it after they were waited for. */
double cpu_meter_foreign(const struct cpu_meter *m);
/* CPU seconds per wall second the hypervisor took from this virtual
 * machine since the start (steal); 0 on bare metal, NaN when unreadable. */
double cpu_meter_steal(const struct cpu_meter *m);
/* An idle window of `seconds` in which nothing of ours runs: what the rest
 * of the machine does on its own. */
double hostload_sample(double seconds);
/* The current UTC time as ISO 8601 with milliseconds, into buf (>= 25). */
void utc_now(char *buf, unsigned n);
#endif
