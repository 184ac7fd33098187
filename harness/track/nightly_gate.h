/* The nightly gate: tonight against the night before (same host and suite),
 * on the round statistics and the noise model learned before tonight
 * (compare.h); every series that looks changed (a flag, or a suspect: past
 * the minimum effect at p <= 0.05) is confirmed at once with
 * both nights' kept builds interleaved on the device (confirm.h). Only a
 * confirmed change is the code's; a rejected one is listed as noise with its
 * figures; an unconfirmed flag on a device tonight's disturbance touched
 * (night_quality.h) is the host's.
 *
 * A series whose comparison could not see a change of the target
 * (compare.h) is inconclusive: it is measured again the same way, rounds
 * added until it can or the time budget is spent (confirm.h), and counted
 * as inconclusive when it still cannot. CPU series are judged by their
 * steadiest measure (steadiest.h). */
#ifndef HARNESS_NIGHTLY_GATE_H
#define HARNESS_NIGHTLY_GATE_H
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

struct gate_opts {
    int confirm;        /* 0: flags stay unconfirmed (--no-confirm) */
    int confirm_rounds; /* pairs of rounds */
    double burn_in_s;   /* before a confirmation, at most this per device */
    /* The burn-in of the devices a confirmation measures (a spec list): the
     * command's, which resolves them (cli_burn_in); NULL: none. */
    int (*burn_in)(const char *specs, double min_s, double max_s, FILE *log);
    const char *disturbed_devices; /* the devices tonight's disturbance touched: specs, "*" all; NULL or "" none */
    double target;                 /* the change every series must be able to show (COMPARE_TARGET; <= 0 none) */
    double max_time_s;             /* for rounds added to inconclusive series (0: none) */
};

struct gate_result {
    int series, flagged, confirmed_regressions, confirmed_improvements, rejected, unconfirmed;
    int suspects, suspects_rejected; /* suspects: not flags; confirmed ones count as confirmed changes */
    int inconclusive;                /* series that could not show a change of the target, rounds added or not */
    int settled;                     /* inconclusive series the added rounds settled */
    int added_rounds;                /* pairs of rounds added, and their seconds */
    double added_s;
};

/* Runs the gate; 0, or -1 with err. */
int nightly_gate(struct store *store, int64_t prev, int64_t id, const struct gate_opts *o, struct gate_result *res,
                 FILE *out, char *err, size_t errn);
#endif
