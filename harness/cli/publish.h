/* `harness publish`'s parts, each writing its own pages into the site
 * (cmd_publish.c writes the index and calls them). Every string from the
 * database or a file goes through html_esc. */
#ifndef HARNESS_PUBLISH_H
#define HARNESS_PUBLISH_H
#include "base/util.h"
#include "store/store.h"

struct publish {
    const char *db, *dir; /* the database as given, the site's folder */
    int charts;           /* gnuplot found: figures are drawn */
    int failed;           /* a page or figure could not be written */
    int pages, figures;
};

/* Writes dir/name with the text; counts a failure. */
void publish_write(struct publish *p, const char *name, const struct strbuf *b);
/* A figure: <figure> with the SVG (a link to it and the PNG beside it when
 * png_too), or the note that no chart was drawn; its caption names the commit,
 * the device fingerprint(s) and the command that draws it again. */
void publish_figure(struct publish *p, struct strbuf *b, const char *svg_rel, int png_too, const char *what,
                    const char *commit, const char *fps, const char *command);

/* The device x app x input pages: the latest verified measurement per variant,
 * the variants chart, the work-group figures where a shape sweep exists. The
 * index's table of them goes into idx. 0, or -1 (a database error, said). */
int publish_cases(struct publish *p, struct store_reader *rd, struct strbuf *idx);
/* One page per nightly series (trend, change points with their triage
 * state); the index's table into idx. Nothing when the file has no nights. */
int publish_nightly(struct publish *p, struct store_reader *rd, struct strbuf *idx);
/* Copies the report-*.md found in from_dir (and each one's figure folder)
 * and writes a page for each; the index's list into idx. */
void publish_reports(struct publish *p, const char *from_dir, struct strbuf *idx);
#endif
