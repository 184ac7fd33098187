#include "report/gnuplot.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

int gnuplot_present(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

void gnuplot_quote(struct strbuf *b, const char *s) {
    sb_printf(b, "'");
    for (; *s; s++) {
        if (*s == '\'') sb_printf(b, "'");
        sb_printf(b, "%c", (unsigned char)*s < 0x20 ? ' ' : *s);
    }
    sb_printf(b, "'");
}

int gnuplot_draw(const char *script_rel, const char *const vars[][2], int nvars, const char *extra,
                 const char *const outputs[], int nout, char *err, size_t errn) {
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
    struct strbuf cmds = {0};
    for (int i = 0; i < nvars; i++) {
        sb_printf(&cmds, "%s = ", vars[i][0]);
        gnuplot_quote(&cmds, vars[i][1]);
        sb_printf(&cmds, "\n");
    }
    if (extra) sb_printf(&cmds, "%s\n", extra);
    sb_printf(&cmds, "load ");
    gnuplot_quote(&cmds, script);
    sb_printf(&cmds, "\n");
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        sb_free(&cmds);
        snprintf(err, errn, "cannot start gnuplot");
        return -1;
    }
    fwrite(cmds.s, 1, cmds.len, gp);
    sb_free(&cmds);
    int st = pclose(gp);
    if (st != 0) {
        snprintf(err, errn, "gnuplot (%s) failed: exit %d", script_rel,
                 st == -1        ? -1
                 : WIFEXITED(st) ? WEXITSTATUS(st)
                                 : 128 + WTERMSIG(st));
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
