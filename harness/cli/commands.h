/* One function per subcommand (git's command table, in main.c). Each takes
 * argv with argv[0] = the command name and returns the exit status. */
#ifndef HARNESS_COMMANDS_H
#define HARNESS_COMMANDS_H
int cmd_devices(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_peak(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_tune(int argc, char **argv);
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
#endif
