/* One function per subcommand (git's command table, in main.c). Each takes
 * argv with argv[0] = the command name and returns the exit status. */
#ifndef HARNESS_COMMANDS_H
#define HARNESS_COMMANDS_H
#include <stdio.h>
int cmd_devices(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_peak(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_tune(int argc, char **argv);
/* `tune --replay FILE` (a recorded landscape, no database), from cmd_tune:
 * whether argv asks for it, the command itself, and its part of tune's help. */
int tune_replay_file_named(int argc, char **argv);
int cmd_tune_replay_file(int argc, char **argv);
void tune_replay_file_usage(FILE *out);
int cmd_best(int argc, char **argv);
/* nightly tracking */
int cmd_nightly(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_regressions(int argc, char **argv);
int cmd_noise(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_exclude(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int plot_nightly(int argc, char **argv); /* `plot nightly`, from cmd_plot */
int cmd_launch_cost(int argc, char **argv);
int plot_launch_cost(int argc, char **argv); /* `plot launch-cost`, from cmd_plot */
int plot_variants(int argc, char **argv);    /* `plot variants`, from cmd_plot */
/* For publish: `plot variants` into the PNG `out` (an SVG beside it), the
 * paths printed when print; an exit status. */
int plot_variants_chart(const char *db, const char *app, const char *input, long iters, const char *out, int print);
/* A figure `plot wg` drew. */
struct wg_drawn {
    const char *svg, *fp, *spec, *input, *variant, *knobs;
    long iters;
    int bars; /* shapes in it */
};
/* `plot wg` with filt = {app, device, input, variant} into out_dir; each
 * figure drawn goes to drawn (NULL: its paths are printed). An exit status. */
int plot_wg_figures(const char *db_path, const char *const filt[4], const char *out_dir,
                    void (*drawn)(const struct wg_drawn *f, void *ctx), void *ctx);
struct history;
struct series_change_point;
/* `plot nightly`'s chart of one series into png (and svg when not NULL),
 * tmpdir holding its data file. 0, or -1 with the reason on stderr. */
int plot_nightly_series(const struct history *h, const struct series_change_point *cps, int ncp, const char *tmpdir,
                        const char *png, const char *svg);
int cmd_publish(int argc, char **argv);
#endif
