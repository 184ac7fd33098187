#include "gnuplot.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

int gnuplot_present(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

/* A gnuplot string literal: single quotes, doubled inside; control
 * characters become spaces so a name cannot end the command. */
static void put_string(FILE *out, const char *s) {
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', out);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
    }
    fputc('\'', out);
}

int gnuplot_draw(const char *script_rel, const char *const vars[][2], int nvars, const char *const outputs[],
                 int nout, char *err, size_t errn) {
    char script[4096];
    repo_path(script, sizeof script, script_rel);
    if (access(script, R_OK) != 0) {
        snprintf(err, errn, "cannot read %s", script);
        return -1;
    }
    if (!gnuplot_present()) {
        snprintf(err, errn, "gnuplot not found; install it (Debian: apt-get install gnuplot-nox, or `make deps`)");
        return -1;
    }
    for (int i = 0; i < nout; i++) remove(outputs[i]);
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        snprintf(err, errn, "cannot start gnuplot");
        return -1;
    }
    for (int i = 0; i < nvars; i++) {
        fprintf(gp, "%s = ", vars[i][0]);
        put_string(gp, vars[i][1]);
        fputc('\n', gp);
    }
    fputs("load ", gp);
    put_string(gp, script);
    fputc('\n', gp);
    int st = pclose(gp);
    if (st != 0) {
        snprintf(err, errn, "gnuplot (%s) failed: exit %d", script_rel,
                 st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return -1;
    }
    for (int i = 0; i < nout; i++) {
        struct stat sb;
        if (stat(outputs[i], &sb) != 0 || !sb.st_size) {
            snprintf(err, errn, "gnuplot (%s) wrote no %s", script_rel, outputs[i]);
            return -1;
        }
    }
    return 0;
}
