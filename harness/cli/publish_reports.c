/* publish: the reports `harness report` wrote (report-*.md beside the
 * database, each the latest for its host and devices, with its figure
 * folder) copied into DIR/reports/, and a page for each showing the
 * Markdown as text (a browser renders no Markdown) with its figures. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "cli/publish.h"
#include "report/html.h"

static int is_report(const char *name) {
    const size_t n = strlen(name);
    return !strncmp(name, "report-", 7) && n > 10 && !strcmp(name + n - 3, ".md");
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Names in dir matching keep (NULL: every plain file), sorted; their count. */
static int list(const char *dir, int (*keep)(const char *), char ***out) {
    DIR *d = opendir(dir);
    int n = 0;
    *out = NULL;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[PATH_MAX];
        struct stat st;
        str_fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (keep && !keep(e->d_name)) continue;
        *out = xrealloc(*out, (size_t)(n + 1) * sizeof **out);
        (*out)[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(*out, (size_t)n, sizeof **out, by_name);
    return n;
}

static void free_list(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static int copy(struct publish *p, const char *from, const char *to) {
    size_t len = 0;
    char err[ERR_MAX];
    char *data = file_read_all(from, &len, err, sizeof err);
    if (!data || file_write_all(to, data, len) != 0) {
        fprintf(stderr, "harness publish: cannot copy %s to %s%s%s\n", from, to, data ? "" : ": ", data ? "" : err);
        free(data);
        p->failed++;
        return -1;
    }
    free(data);
    return 0;
}

static int is_figure(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".svg") || !strcmp(dot, ".png"));
}

static void report_page(struct publish *p, const char *from_dir, const char *md, struct strbuf *idx) {
    char stem[NAME_MAX + 1], src[PATH_MAX], dst[PATH_MAX], figs_from[PATH_MAX];
    str_copy(stem, sizeof stem, md);
    stem[strlen(stem) - 3] = 0;
    str_fmt(src, sizeof src, "%s/%s", from_dir, md);
    str_fmt(dst, sizeof dst, "%s/reports/%s", p->dir, md);
    if (copy(p, src, dst) != 0) return;
    size_t len = 0;
    char err[ERR_MAX];
    char *text = file_read_all(src, &len, err, sizeof err);
    struct strbuf b = {0};
    html_begin(&b, stem, 0);
    sb_printf(&b, "<p>The Markdown as written by <code>harness report</code>: <a href=\"reports/");
    html_esc(&b, md);
    sb_printf(&b, "\">");
    html_esc(&b, md);
    sb_printf(&b, "</a>.</p>\n");
    /* Its figures folder (report-<host>-<devices>/), files one level deep. */
    str_fmt(figs_from, sizeof figs_from, "%s/%s", from_dir, stem);
    char **figs = NULL;
    const int nf = list(figs_from, NULL, &figs);
    if (nf) {
        char dir[PATH_MAX];
        str_fmt(dir, sizeof dir, "%s/reports/%s", p->dir, stem);
        dir_make_p(dir);
        sb_printf(&b, "<h2>Figures</h2>\n");
        for (int i = 0; i < nf; i++) {
            char from[PATH_MAX], to[PATH_MAX], rel[PATH_MAX];
            str_fmt(from, sizeof from, "%s/%s", figs_from, figs[i]);
            str_fmt(to, sizeof to, "%s/%s", dir, figs[i]);
            if (copy(p, from, to) != 0) continue;
            str_fmt(rel, sizeof rel, "reports/%s/%s", stem, figs[i]);
            if (is_figure(figs[i]) && !strcmp(strrchr(figs[i], '.'), ".svg")) {
                sb_printf(&b, "<figure><img src=\"");
                html_esc(&b, rel);
                sb_printf(&b, "\" alt=\"");
                html_esc(&b, figs[i]);
                sb_printf(&b, "\"><figcaption>");
                html_esc(&b, figs[i]);
                sb_printf(&b, " (from the report: its commit and devices are in its header below)</figcaption>"
                              "</figure>\n");
            } else {
                sb_printf(&b, "<p><a href=\"");
                html_esc(&b, rel);
                sb_printf(&b, "\">");
                html_esc(&b, figs[i]);
                sb_printf(&b, "</a></p>\n");
            }
        }
    }
    free_list(figs, nf);
    sb_printf(&b, "<h2>Text</h2>\n<pre>");
    html_esc(&b, text ? text : "");
    sb_printf(&b, "</pre>\n");
    free(text);
    html_end(&b);
    char page[NAME_MAX + 8];
    str_fmt(page, sizeof page, "%s.html", stem);
    publish_write(p, page, &b);
    sb_free(&b);
    sb_printf(idx, "<li><a href=\"");
    html_esc(idx, page);
    sb_printf(idx, "\">");
    html_esc(idx, stem);
    sb_printf(idx, "</a></li>\n");
}

void publish_reports(struct publish *p, const char *from_dir, struct strbuf *idx) {
    char **mds = NULL;
    const int n = list(from_dir, is_report, &mds);
    if (!n) {
        sb_printf(idx, "<p>No reports in <code>");
        html_esc(idx, from_dir);
        sb_printf(idx, "</code> (<code>harness report APP</code> writes them).</p>\n");
        return;
    }
    char dir[PATH_MAX];
    str_fmt(dir, sizeof dir, "%s/reports", p->dir);
    if (dir_make_p(dir) != 0) {
        perror(dir);
        p->failed++;
        free_list(mds, n);
        return;
    }
    sb_printf(idx, "<ul id=\"reports\">\n");
    for (int i = 0; i < n; i++) report_page(p, from_dir, mds[i], idx);
    sb_printf(idx, "</ul>\n");
    free_list(mds, n);
}
