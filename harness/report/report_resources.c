/* A resources table: the registers and local memory (spills and stack, in
 * bytes a thread) of each kernel of the table's variants, per device that
 * reports them, as the backend read them when the config loaded its kernels
 * (backend.h: struct dev's resources, stored with each measurement). The
 * guideline's steps trade registers for loads, so the time of a step is read
 * beside what the compiler made of it. A table of dashes would look like a
 * measurement of nothing: where no device reports any, one sentence says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/report.h"

#define MAX_KERNELS 16 /* a variant's kernels: the apps load at most 8 a stage */

struct kernel_use {
    char name[96];
    int registers, local_bytes;
};

/* "name:registers:local_bytes ..." into out; entries that do not read as
 * one are skipped (a text from a newer harness keeps what this one knows). */
static int kernels_of(const char *text, struct kernel_use *out, int max) {
    int n = 0;
    while (text && *text && n < max) {
        const size_t len = strcspn(text, " ");
        char entry[160];
        str_fmt(entry, sizeof entry, "%.*s", (int)(len < sizeof entry ? len : sizeof entry - 1), text);
        char *second = strrchr(entry, ':');
        if (second) *second = 0;
        char *first = second ? strrchr(entry, ':') : NULL;
        if (first && first > entry) {
            *first = 0;
            char *end1, *end2;
            const long regs = strtol(first + 1, &end1, 10), local = strtol(second + 1, &end2, 10);
            if (!*end1 && !*end2 && end1 != first + 1 && end2 != second + 1) {
                str_copy(out[n].name, sizeof out[n].name, entry);
                out[n].registers = (int)regs;
                out[n++].local_bytes = (int)local;
            }
        }
        text += len;
        while (*text == ' ') text++;
    }
    return n;
}

/* The cell of a device and variant: measured on first use for a ladder
 * device (as every table's cells are), only looked up for the others (a
 * directive device has its programs' cells from the openacc table). */
static const struct report_cell *cell_of(struct report *r, int device, int input, const char *variant) {
    return r->dev[device].ladder ? report_cell(r, device, input, variant, r->def->wg)
                                 : report_find(r, device, input, variant, r->def->wg);
}

/* Whether any cell of the device at those variants carries resources. */
static int device_reports(struct report *r, int device, int input, const struct report_table *t) {
    int any = 0;
    for (int v = 0; v < t->nprograms; v++) {
        const struct report_cell *c = cell_of(r, device, input, t->programs[v]);
        any |= c && c->m.resources[0];
    }
    return any;
}

/* One variant's rows: the union of its kernels over the reporting devices,
 * in the order first seen. */
static void variant_rows(struct report *r, const char *variant, int input, const int *cols, int ncols,
                         struct strbuf *b) {
    struct kernel_use per[REPORT_MAX_DEVICES][MAX_KERNELS];
    int nper[REPORT_MAX_DEVICES];
    const char *names[MAX_KERNELS * 2];
    int nnames = 0;
    for (int c = 0; c < ncols; c++) {
        const struct report_cell *cell = cell_of(r, cols[c], input, variant);
        nper[c] = cell ? kernels_of(cell->m.resources, per[c], MAX_KERNELS) : 0;
        for (int k = 0; k < nper[c]; k++) {
            int seen = 0;
            for (int j = 0; j < nnames && !seen; j++) seen = !strcmp(names[j], per[c][k].name);
            if (!seen && nnames < MAX_KERNELS * 2) names[nnames++] = per[c][k].name;
        }
    }
    if (!nnames) { /* not run on any of them (refused, failed to build): its status */
        sb_printf(b, "| `%s` | - |", variant);
        for (int c = 0; c < ncols; c++) {
            const struct report_cell *cell = cell_of(r, cols[c], input, variant);
            const char *why = !cell ? "not run" : cell->m.status == ST_OK ? "none loaded" : status_name(cell->m.status);
            sb_printf(b, " %s | %s |", why, why);
        }
        sb_printf(b, "\n");
        return;
    }
    for (int j = 0; j < nnames; j++) {
        sb_printf(b, "| `%s` | %s |", variant, names[j]);
        for (int c = 0; c < ncols; c++) {
            const struct kernel_use *u = NULL;
            for (int k = 0; k < nper[c] && !u; k++)
                if (!strcmp(per[c][k].name, names[j])) u = &per[c][k];
            if (u) sb_printf(b, " %d | %d%s |", u->registers, u->local_bytes, u->local_bytes > 0 ? " **(local)**" : "");
            else sb_printf(b, " - | - |");
        }
        sb_printf(b, "\n");
    }
}

void report_resources_table(struct report *r, const struct report_table *t, struct strbuf *b) {
    const struct report_def *def = r->def;
    const int input = report_input_run_first(r);
    int cols[REPORT_MAX_DEVICES], ncols = 0;
    struct strbuf silent = {0};
    for (int d = 0; d < r->ndev && input >= 0; d++) {
        if (device_reports(r, d, input, t)) cols[ncols++] = d;
        else if (r->dev[d].ladder) sb_printf(&silent, "%s%s", silent.len ? ", " : "", r->dev[d].info.spec);
    }
    if (!ncols) {
        sb_printf(b,
                  "No device here reports registers or local memory per kernel (%s): the CPU backends and OpenCL"
                  " have no such query. CUDA reads them from each kernel it loads, and the directive backends"
                  " from ptxas's report of a GPU build; run the report on such a device for this table.\n",
                  silent.len ? silent.s : "no device ran");
        sb_free(&silent);
        return;
    }
    sb_printf(b, "| variant | kernel |");
    for (int c = 0; c < ncols; c++)
        sb_printf(b, " %s registers | %s local bytes |", r->dev[cols[c]].info.spec, r->dev[cols[c]].info.spec);
    sb_printf(b, "\n|---|---|");
    for (int c = 0; c < ncols; c++) sb_printf(b, "---|---|");
    sb_printf(b, "\n");
    for (int v = 0; v < t->nprograms; v++) variant_rows(r, t->programs[v], input, cols, ncols, b);
    sb_printf(b,
              "\nRegisters a thread and local memory in bytes a thread (spills and stack: **(local)** where"
              " there is any), as each backend read them when the config loaded its kernels (CUDA: the"
              " function's attributes; directive backends: ptxas's report), at %s with %ux%u.",
              def->inputs[input], def->wg[0], def->wg[1]);
    if (silent.len) sb_printf(b, " Not reported by %s (no such query on CPU backends and OpenCL).", silent.s);
    sb_printf(b, "\n");
    sb_free(&silent);
}
