/* Running gnuplot on a script of plots/ with variables set first: the one
 * way the harness draws (work-group bars, rooflines, nightly series). */
#ifndef HARNESS_GNUPLOT_H
#define HARNESS_GNUPLOT_H
#include <stddef.h>

/* 1 when a gnuplot is on PATH. */
int gnuplot_present(void);
#include "base/util.h"

/* Sets each vars[i][0] to the string vars[i][1], sends `extra` (raw gnuplot
 * commands: numbers, arrows, labels; NULL for none), loads ROOT/script_rel,
 * and checks that every file in outputs exists and is not empty afterwards
 * (they are removed first, so an old figure cannot pass for a new one).
 * 0, or -1 with err. */
int gnuplot_draw(const char *script_rel, const char *const vars[][2], int nvars, const char *extra,
                 const char *const outputs[], int nout, char *err, size_t errn);
/* Appends s as a gnuplot string literal (single quotes, '' inside; control
 * characters as spaces, so text cannot end the command). */
void gnuplot_quote(struct strbuf *b, const char *s);
#endif
