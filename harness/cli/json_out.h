/* --json for the commands that print --csv: the CSV caught and converted
 * (json_out.c says how fields become JSON values). */
#ifndef HARNESS_JSON_OUT_H
#define HARNESS_JSON_OUT_H
#include <stdio.h>

/* Rewrites every --json of argv (before a `--`) into --csv; 1 if any. */
int json_take(int argc, char **argv);

struct json_capture {
    FILE *tmp; /* standard output goes here while captured */
    int saved; /* the real standard output */
};
/* Sends standard output to a temporary file; 0, or -1 (nothing captured). */
int json_capture(struct json_capture *c);
/* Restores standard output and writes what was caught: as JSON when emit,
 * else as it was (help text, a usage error's output). */
void json_finish(struct json_capture *c, int emit);
/* The CSV text as a JSON array of objects. */
void json_write(FILE *out, const char *csv);
#endif
