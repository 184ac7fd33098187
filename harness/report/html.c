#include "report/html.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void html_esc(struct strbuf *b, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': sb_printf(b, "&amp;"); break;
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        case '\'': sb_printf(b, "&#39;"); break;
        default: sb_printf(b, "%c", *s);
        }
    }
}

void html_escf(struct strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) abort();
    va_end(ap);
    html_esc(b, s);
    free(s);
}

void html_begin(struct strbuf *b, const char *title, int is_index) {
    sb_printf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    html_esc(b, title);
    sb_printf(b, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n");
    if (!is_index) sb_printf(b, "<nav><a href=\"index.html\">&larr; all results</a></nav>\n");
    sb_printf(b, "<h1>");
    html_esc(b, title);
    sb_printf(b, "</h1>\n");
}

void html_end(struct strbuf *b) {
    sb_printf(b, "<footer>Written by <code>harness publish</code>; every figure says the command that draws it "
                 "again.</footer>\n</body>\n</html>\n");
}

void html_slug(char *out, size_t n, const char *prefix, const char *text, const char *key) {
    char stem[81];
    str_fmt(stem, sizeof stem, "%s", text);
    for (char *s = stem; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') && *s != '.' &&
            *s != '-')
            *s = '_';
    str_fmt(out, n, "%s%s-%08llx", prefix, stem, (unsigned long long)(hash_str(key ? key : text, 0) & 0xffffffffu));
}
