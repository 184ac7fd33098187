/* `--json` wherever a command takes `--csv`: the command runs with --csv
 * and its standard output is caught in a temporary file, then written as a
 * JSON array with one object per CSV row, keyed by the header's names. One
 * conversion for every command, so the two forms can never disagree on
 * what a row holds. A blank line in the CSV starts another table with its
 * own header (its rows join the same array). Fields: "" is null, a whole
 * finite number is a number, anything else a string. */
#include "cli/json_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

int json_take(int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json")) {
            argv[i] = "--csv";
            json = 1;
        }
    return json;
}

int json_capture(struct json_capture *c) {
    fflush(stdout);
    c->tmp = tmpfile();
    c->saved = c->tmp ? dup(STDOUT_FILENO) : -1;
    if (c->saved < 0 || dup2(fileno(c->tmp), STDOUT_FILENO) < 0) {
        if (c->tmp) fclose(c->tmp);
        c->tmp = NULL;
        return -1;
    }
    return 0;
}

/* One CSV field from *p (RFC 4180: quotes around a field, "" inside);
 * *p moves past it and its comma. Returns the field (malloc'd). */
static char *csv_next(const char **p, int *end_of_row) {
    struct strbuf b = {0};
    const char *s = *p;
    if (*s == '"') {
        for (s++; *s; s++) {
            if (*s == '"' && s[1] == '"') sb_printf(&b, "\""), s++;
            else if (*s == '"') {
                s++;
                break;
            } else sb_printf(&b, "%c", *s);
        }
    }
    for (; *s && *s != ',' && *s != '\n'; s++) sb_printf(&b, "%c", *s);
    if (*s == '\r') s++;
    *end_of_row = *s != ',';
    if (*s) s++;
    *p = s;
    char *v = b.s ? b.s : xstrdup("");
    size_t n = strlen(v);
    if (n && v[n - 1] == '\r') v[n - 1] = '\0';
    return v;
}

static void json_string(FILE *out, const char *v) {
    fputc('"', out);
    for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
        else if (*s == '\n') fputs("\\n", out);
        else if (*s == '\t') fputs("\\t", out);
        else if (*s < 0x20) fprintf(out, "\\u%04x", *s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

static void json_value(FILE *out, const char *v) {
    char *end;
    if (!*v) {
        fputs("null", out);
        return;
    }
    double d = strtod(v, &end);
    /* JSON has no hex, inf or nan, and no leading '+' or '.'. */
    if (!*end && isfinite(d) && strspn(v, "-0123456789.eE") == strlen(v) && v[0] != '.') fputs(v, out);
    else json_string(out, v);
}

/* Reads a whole row of fields; returns how many (0 at the end of text or on
 * a blank line, which *blank says). */
static int csv_row(const char **p, char ***fields, int *blank) {
    int n = 0;
    *blank = 0;
    if (!**p) return 0;
    if (**p == '\n' || (**p == '\r' && (*p)[1] == '\n')) {
        *p += **p == '\r' ? 2 : 1;
        *blank = 1;
        return 0;
    }
    for (int end = 0; !end;) {
        *fields = xrealloc(*fields, sizeof **fields * (size_t)(n + 1));
        (*fields)[n++] = csv_next(p, &end);
    }
    return n;
}

static void free_fields(char **f, int n) {
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
}

void json_write(FILE *out, const char *csv) {
    const char *p = csv;
    char **head = NULL, **row = NULL;
    int nhead = 0, rows = 0, blank;
    fputs("[", out);
    while (*p) {
        int n = csv_row(&p, &row, &blank);
        if (blank) {
            free_fields(head, nhead);
            head = NULL;
            nhead = 0;
            continue;
        }
        if (!n) break;
        if (!nhead) {
            head = row, nhead = n, row = NULL;
            continue;
        }
        fprintf(out, "%s\n  {", rows++ ? "," : "");
        for (int i = 0; i < n; i++) {
            if (i) fputs(", ", out);
            if (i < nhead) json_string(out, head[i]);
            else fprintf(out, "\"column_%d\"", i + 1);
            fputs(": ", out);
            json_value(out, row[i]);
        }
        fputs("}", out);
        free_fields(row, n);
        row = NULL;
    }
    fputs(rows ? "\n]\n" : "]\n", out);
    free_fields(head, nhead);
}

void json_finish(struct json_capture *c, int emit) {
    if (!c->tmp) return;
    fflush(stdout);
    dup2(c->saved, STDOUT_FILENO);
    close(c->saved);
    long n = ftell(c->tmp);
    char *text = xcalloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(c->tmp);
    size_t got = n > 0 ? fread(text, 1, (size_t)n, c->tmp) : 0;
    text[got] = '\0';
    fclose(c->tmp);
    c->tmp = NULL;
    if (emit) json_write(stdout, text);
    else fputs(text, stdout);
    free(text);
}
