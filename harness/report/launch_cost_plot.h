/* The launch-cost figure (the report's Figure 1) from a database. */
#ifndef HARNESS_LAUNCH_COST_PLOT_H
#define HARNESS_LAUNCH_COST_PLOT_H
#include <stddef.h>

/* Draws the figure from a database into png (and svg, unless NULL):
 * microseconds per launch (enqueue, median with q1..q3 bars) against the
 * argument count, one line per device and kind, from the latest run of each
 * device that measured launch cost. The database is opened read-only. 0, or
 * -1 with err (no database, no launch-cost rows, no gnuplot, gnuplot
 * failed). */
int launch_cost_plot(const char *db_path, const char *png, const char *svg, char *err, size_t errn);
#endif
