/* harness noise: the per-series noise model (noise.h), learned from the
 * nightly history again, stored in noise_model and shown: how much a night
 * of one build wobbles beyond its rounds, how much a round wobbles within a
 * night, the degrees of freedom behind each, and so the smallest change a
 * single night against the night before can show. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "cli/commands.h"
#include "store/store.h"
#include "store/store_nightly.h"
#include "track/noise.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: harness noise [--db PATH] [--device SPEC|FINGERPRINT] [--measure M] [--csv]\n"
            "\n"
            "Learns each series' noise from the nightly history (nights of one build: nothing\n"
            "changed between them; disturbed nights and excluded runs left out), stores it and\n"
            "lists it. sigma night: how a night's value (the mean of its rounds) moves beyond its\n"
            "rounds; sigma round: how one round (a worker process) moves within a night; df: the\n"
            "degrees of freedom behind each with the priors every test adds (a round: 1 %% with\n"
            "the weight of 2; a night: as much as the series' round, with the weight of 3). min\n"
            "change: the smallest change one\n"
            "night against the night before can flag at p <= 0.002 with %d rounds a night.\n"
            "`harness compare`, `regressions` and `nightly` use the same model.\n"
            "--measure: wall (default), cpu, cycles or device (the device events' time,\n"
            "which the gate may judge a GPU series by): the model learned from that measure;\n"
            "shown only, the stored model stays the wall time's.\n"
            "\n"
            "Exit status: 0 listed, 1 no database, 2 bad usage.\n",
            6);
}

/* The smallest |B/A - 1| one night against one night flags, both with R
 * rounds as spread as the series' rounds usually are. */
static double min_change(const struct noise_model *own, const struct noise_model *m, int rounds) {
    for (double e = 0.001; e < 10; e *= 1.02) {
        struct night_value a = {.rounds = rounds, .mean = 0, .var = m->sigma_round * m->sigma_round};
        struct night_value b = {.rounds = rounds, .mean = log1p(e), .var = a.var};
        struct rc_result r;
        if (rc_compare(&a, 1, &b, 1, own, 0.03, &r) == 0 && r.p <= 0.002 && e >= r.threshold) return e;
    }
    return INFINITY;
}

int cmd_noise(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"device", required_argument, 0, 'D'},
                                             {"csv", no_argument, 0, 'c'},
                                             {"measure", required_argument, 0, 'm'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *db_path = NULL, *device = NULL;
    int csv = 0, c;
    enum measure measure = MEASURE_WALL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd') db_path = optarg;
        else if (c == 'D') device = optarg;
        else if (c == 'c') csv = 1;
        else if (c == 'm') {
            int k = 0;
            while (k < MEASURE_N && strcmp(optarg, measure_name((enum measure)k))) k++;
            if (k == MEASURE_N || k == MEASURE_INSTRUCTIONS) /* instructions track work, not time */
                return fprintf(stderr, "harness noise: --measure: '%s' is not wall, cpu, cycles or device\n", optarg),
                       EXIT_USAGE;
            measure = (enum measure)k;
        }
        else if (c == 'h') return usage(stdout), EXIT_OK;
        else return usage(stderr), EXIT_USAGE;
    }
    if (optind != argc) return fprintf(stderr, "harness noise: unexpected '%s'\n", argv[optind]), EXIT_USAGE;
    int rc = 0;
    struct store *store = nightly_store_open("noise", db_path, 1, &rc);
    if (!store) return rc;
    char err[ERR_MAX];
    struct noise_set ns;
    /* Only the wall time's model is stored: it is the one the gate reads
     * first; the others are learned again wherever they are asked for. */
    if (noise_set_load_by(store, measure, NULL, &ns, err, sizeof err) != 0 ||
        (measure == MEASURE_WALL && noise_set_store(store, &ns, err, sizeof err) != 0)) {
        fprintf(stderr, "harness noise: %s\n", err);
        store_close(store);
        return EXIT_FOUND;
    }
    if (csv)
        printf("series,fingerprint,label,nights,builds,own_sigma_night,own_df_night,sigma_night,df_night,sigma_round,"
               "df_round,min_change_6_rounds\n");
    else {
        if (measure != MEASURE_WALL) printf("measure: %s (learned for this listing; not stored)\n", measure_name(measure));
        printf("%-46s %6s %6s %10s %11s %10s %11s %11s\n", "series", "nights", "builds", "own night", "sigma night",
               "df night", "sigma round", "min change");
    }
    int shown = 0;
    for (int i = 0; i < ns.n; i++) {
        const struct noise_entry *e = &ns.e[i];
        if (device && strcmp(device, e->fp) && strncmp(e->label, device, strlen(device))) continue;
        double mc = min_change(&e->own, &e->used, 6);
        shown++;
        if (csv) {
            csv_field(stdout, e->key);
            printf(",%s,", e->fp);
            csv_field(stdout, e->label);
            printf(",%d,%d,%.5f,%.0f,%.5f,%.1f,%.5f,%.1f,%.4f\n", e->own.nights, e->own.builds, e->own.sigma_night,
                   e->own.df_night, e->used.sigma_night, e->used.df_night, e->used.sigma_round, e->used.df_round, mc);
        } else {
            printf("%-46.46s %6d %6d %9.2f%% %10.2f%% %10.0f %10.2f%% %10.1f%%\n", e->label, e->own.nights,
                   e->own.builds, 100 * e->own.sigma_night, 100 * e->used.sigma_night, e->used.df_night,
                   100 * e->used.sigma_round, 100 * mc);
        }
    }
    if (!csv && !shown) printf("no nightly history yet: every series stands on the priors alone\n");
    noise_set_free(&ns);
    store_close(store);
    return EXIT_OK;
}
