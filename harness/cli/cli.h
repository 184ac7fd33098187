/* Option handling shared by the commands that select apps, inputs,
 * variants and devices. Each helper prints its own error (naming the bad
 * value) and returns EXIT_USAGE, so a command can `return` it unchanged. */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H
#include <stdio.h>

#include "backend/backend.h"
#include "core/app.h"
#include "core/variants.h"

#define CLI_MAX_DEVICES 64

struct device_pick {
    struct device_info *all; /* every device present */
    int n;
    int idx[CLI_MAX_DEVICES]; /* the chosen ones, as indices into all */
    int count;
};

/* Resolves a comma-separated list of --device specs ("all" when NULL). */
int cli_devices(const char *specs, struct device_pick *out);
/* The same, but a kind ("gpu", "cpu") that matches nothing here is no
 * error: a sweep of the GPUs on a machine without one runs nothing. */
int cli_devices_kinds_optional(const char *specs, struct device_pick *out);
void cli_devices_free(struct device_pick *p);

struct store;
struct host_check;
/* track/'s burn-in and host check on the devices of a spec list (NULL:
 * all), resolved here as the commands resolve --device: burn_in_devices
 * (1 when the list names no device), and host_check with each device's
 * canary (canaries 0, or a list naming none: the load alone). */
int cli_burn_in(const char *specs, double min_s, double max_s, FILE *log);
void cli_host_check(struct store *s, const char *specs, int canaries, struct host_check *out);

const struct app *cli_app(const char *name);
/* `--time T` for commands that load an input: *input becomes the app's
 * input that runs to time T (in buf, n bytes). 0, or EXIT_USAGE after
 * saying why (the app runs steps only; --iters given too). */
int cli_input_at_time(const struct app *app, const char **input, double t, long iters, char *buf, size_t n);

/* The named variants (comma-separated; "all" = the whole file), with
 * `knobs` applied on top of each. With no names but knobs, one unnamed
 * variant "custom" from the app's defaults. */
int cli_variants(const struct app *app, const char *names, const char *knobs, struct variant_list *out);
/* The same for a command that runs stored configurations (run): the name
 * TUNED_VARIANT gives a placeholder (variant.tuned) that the command
 * resolves per device and input (store_tuned_variant). --knobs cannot go
 * on top of it: a changed configuration is no longer the tuned one. */
int cli_variants_tuned(const struct app *app, const char *names, const char *knobs, struct variant_list *out);

/* "cmd arg arg ..." for the run table. */
void cli_command_line(int argc, char **argv, char *buf, size_t n);
/* The gate options compare and regressions share: --alpha (0 < P < 1) and
 * --min-effect (a fraction, 0 to 10). 0, or EXIT_USAGE after one message
 * naming the command. */
int cli_alpha(const char *cmd, const char *arg, double *out);
int cli_min_effect(const char *cmd, const char *arg, double *out);
/* --target PCT: the change a comparison must be able to show, a percentage
 * in 1..100 (or 0: never inconclusive), as a fraction in *out. */
int cli_target(const char *cmd, const char *arg, double *out);
/* --max-time SECONDS (>= 0). */
int cli_max_time(const char *cmd, const char *arg, double *out);
/* --shard K/N: shard K (0..N-1) of N >= 1, both whole decimal numbers.
 * 0, or -1 with nothing written (the caller names the option). */
int cli_shard(const char *text, int *shard, int *shards);

/* Opens the database for a command that only looks (db NULL: the default).
 * Looking must not create: a missing file says "no results yet" and leaves
 * *out NULL. EXIT_OK (with *out open, or NULL), or EXIT_FOUND after a
 * message naming the command. */
/* A result the database refused (a full disk, a read-only file) is a lost
 * measurement, never one printed as stored: run and sweep say so and stop
 * there (the rounds end as on Ctrl-C), exit 1. Before, a full disk ate
 * every later result while the command reported success ("60 measured (0
 * failed)", exit 0, 0 stored, then "FOREIGN KEY constraint failed" each). */
struct cli_unstored {
    int count;       /* results refused; the command stopped at the first */
    char first[512]; /* what the database said the first time */
};
void cli_unstored(struct cli_unstored *u, const char *spec, const char *variant, const char *err);

int cli_store_to_look(const char *cmd, const char *db, struct store **out);
/* The exit status of a read-only command whose store_reader_open_cmd(db)
 * failed: EXIT_FOUND (1) when there is no file, EXIT_USAGE (2) when the file
 * is there but is not a harness database (a foreign file is bad input). */
int cli_reader_failed(const char *db);
#endif
