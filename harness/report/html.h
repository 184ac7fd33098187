/* Writing the static HTML of `harness publish`: escaping every string that
 * came from a database or a file, and a page's common head and foot. */
#ifndef HARNESS_HTML_H
#define HARNESS_HTML_H
#include "base/util.h"

/* Appends s with & < > " ' as entities (NULL as nothing). */
void html_esc(struct strbuf *b, const char *s);
/* The same for a printf-formatted string. */
void html_escf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <!DOCTYPE html> .. <body><h1>title</h1>, linking style.css and, unless
 * this is the index, a way back to index.html. */
void html_begin(struct strbuf *b, const char *title, int is_index);
void html_end(struct strbuf *b);
/* A file name: prefix, then text with letters, digits, '.', '-' kept and the
 * rest '_' (cut at 80 characters), then a short hash of key (NULL: of text)
 * so two names never meet. */
void html_slug(char *out, size_t n, const char *prefix, const char *text, const char *key);
#endif
