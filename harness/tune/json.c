/* The strict JSON reader of json.h: recursive descent over the text with a
 * line counter, nodes and strings carved from large blocks (a Kernel Tuner
 * cache of a big space is a million values: one malloc each would cost
 * more than the parsing), freed all at once. */
#include "tune/json.h"

#include <errno.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Deeper nesting than any landscape needs is refused rather than risking
 * the stack on a hostile file. */
#define JSON_MAX_DEPTH 256
#define BLOCK_BYTES (1u << 20)

struct block {
    struct block *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
};

struct json_doc {
    struct block *blocks;
    struct json *root;
};

struct parser {
    const char *p, *end, *name;
    int line, depth;
    struct json_doc *doc;
    struct json_error *e;
};

static void *arena_alloc(struct json_doc *d, size_t n) {
    const size_t align = alignof(max_align_t);
    n = (n + align - 1) / align * align;
    struct block *b = d->blocks;
    if (!b || b->cap - b->used < n) {
        const size_t cap = n > BLOCK_BYTES ? n : BLOCK_BYTES;
        b = xcalloc(1, sizeof *b + cap);
        b->cap = cap;
        b->next = d->blocks;
        d->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

static int fail(struct parser *ps, int at_end, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct parser *ps, int at_end, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ps->e->line = ps->line;
    ps->e->at_end = at_end;
    snprintf(ps->e->msg, sizeof ps->e->msg, "%s:%d: %s", ps->name, ps->line, what);
    return -1;
}

/* What is at p, for a message: 'x', or "the end of the file". */
static const char *found(const struct parser *ps, char buf[24]) {
    if (ps->p >= ps->end) return "the end of the file";
    const unsigned char c = (unsigned char)*ps->p;
    if (c >= 0x20 && c < 0x7f) snprintf(buf, 24, "'%c'", c);
    else snprintf(buf, 24, "byte 0x%02x", c);
    return buf;
}

static void skip_space(struct parser *ps) {
    while (ps->p < ps->end) {
        const char c = *ps->p;
        if (c == '\n') ps->line++;
        else if (c != ' ' && c != '\t' && c != '\r') return;
        ps->p++;
    }
}

static struct json *node(struct parser *ps, enum json_type type) {
    struct json *v = arena_alloc(ps->doc, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = type;
    v->line = ps->line;
    return v;
}

static int literal(struct parser *ps, const char *word) {
    const size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n) {
        if (!memcmp(ps->p, word, (size_t)(ps->end - ps->p))) return fail(ps, 1, "the file ends inside '%s'", word);
        return -1;
    }
    if (memcmp(ps->p, word, n)) return -1;
    ps->p += n;
    return 0;
}

static int digits(struct parser *ps) {
    const char *start = ps->p;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    return ps->p > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, kept as written too. */
static int number(struct parser *ps, struct json *v) {
    const char *start = ps->p;
    char buf[24];
    if (ps->p < ps->end && *ps->p == '-') ps->p++;
    if (ps->p < ps->end && *ps->p == '0') {
        ps->p++;
        if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            return fail(ps, 0, "a number with a leading zero (JSON has none)");
    } else if (!digits(ps)) {
        return fail(ps, ps->p >= ps->end, "expected a digit, found %s", found(ps, buf));
    }
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (!digits(ps)) return fail(ps, ps->p >= ps->end, "expected a digit after '.', found %s", found(ps, buf));
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
        if (!digits(ps)) return fail(ps, ps->p >= ps->end, "expected an exponent, found %s", found(ps, buf));
    }
    const size_t n = (size_t)(ps->p - start);
    char *text = arena_alloc(ps->doc, n + 1);
    memcpy(text, start, n);
    text[n] = '\0';
    errno = 0;
    v->number = strtod(text, NULL);
    if (errno == ERANGE && (v->number > 1 || v->number < -1))
        return fail(ps, 0, "the number %s is too large for a double", text);
    v->text = text;
    return 0;
}

static int hex4(struct parser *ps, unsigned *out) {
    if (ps->end - ps->p < 4) return fail(ps, 1, "the file ends inside a \\u escape");
    unsigned u = 0;
    for (int i = 0; i < 4; i++) {
        const char c = ps->p[i];
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (d < 0) return fail(ps, 0, "\\u needs four hex digits");
        u = u * 16 + (unsigned)d;
    }
    ps->p += 4;
    *out = u;
    return 0;
}

static char *put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) *o++ = (char)cp;
    else if (cp < 0x800) *o++ = (char)(0xc0 | cp >> 6), *o++ = (char)(0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
        *o++ = (char)(0xe0 | cp >> 12), *o++ = (char)(0x80 | ((cp >> 6) & 0x3f)), *o++ = (char)(0x80 | (cp & 0x3f));
    else
        *o++ = (char)(0xf0 | cp >> 18), *o++ = (char)(0x80 | ((cp >> 12) & 0x3f)),
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3f)), *o++ = (char)(0x80 | (cp & 0x3f));
    return o;
}

/* The length of the UTF-8 sequence at p (up to end), or 0 when it is not
 * one (overlong forms and surrogates included). */
static int utf8_len(const unsigned char *p, const unsigned char *end) {
    const unsigned c = p[0];
    const int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || end - p < len) return 0;
    for (int k = 1; k < len; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) return 0;
    if (len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) return 0;
    return len;
}

/* A string after its opening quote; decoded into the arena (never longer
 * than the text it came from). */
static int string(struct parser *ps, const char **out) {
    const char *start = ps->p;
    /* Escapes never decode longer than they are written: the bytes up to
     * the closing quote are room enough. */
    const char *q = start;
    while (q < ps->end && *q != '"') q += *q == '\\' ? 2 : 1;
    char *s = arena_alloc(ps->doc, (size_t)(q - start) + 8), *o = s;
    while (1) {
        if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside a string");
        const unsigned char c = (unsigned char)*ps->p;
        if (c == '"') break;
        if (c < 0x20)
            return fail(ps, 0, "%s inside a string (escape it)", c == '\n' ? "a line break" : "a control character");
        if (c >= 0x80) {
            const int n = utf8_len((const unsigned char *)ps->p, (const unsigned char *)ps->end);
            if (!n) return fail(ps, 0, "a string that is not UTF-8 (byte 0x%02x)", c);
            memcpy(o, ps->p, (size_t)n);
            o += n, ps->p += n;
            continue;
        }
        ps->p++;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside a string");
        const char esc = *ps->p++;
        const char *plain = strchr("\"\\/bfnrt", esc);
        if (plain && esc) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            *o++ = to[plain - "\"\\/bfnrt"];
            continue;
        }
        if (esc != 'u') return fail(ps, 0, "an unknown escape \\%c in a string", esc);
        unsigned cp;
        if (hex4(ps, &cp)) return -1;
        if (cp >= 0xdc00 && cp <= 0xdfff) return fail(ps, 0, "a lone low surrogate \\u%04x", cp);
        if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned lo;
            if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
                return fail(ps, ps->end - ps->p < 2, "a high surrogate \\u%04x without its low half", cp);
            ps->p += 2;
            if (hex4(ps, &lo)) return -1;
            if (lo < 0xdc00 || lo > 0xdfff) return fail(ps, 0, "a high surrogate \\u%04x without its low half", cp);
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        if (!cp) return fail(ps, 0, "\\u0000 in a string (not supported)");
        o = put_utf8(o, cp);
    }
    ps->p++; /* the closing quote */
    *o = '\0';
    *out = s;
    return 0;
}

static int value(struct parser *ps, struct json **out);

/* The elements of an array or members of an object after its opener. */
static int container(struct parser *ps, struct json *v, char close) {
    const int opened = ps->line;
    const char *kind = close == ']' ? "an array" : "an object";
    char buf[24];
    struct json **tail = &v->child;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) return ps->p++, 0;
    while (1) {
        const char *key = NULL;
        skip_space(ps);
        if (close == '}') {
            if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside %s (opened at line %d)", kind, opened);
            if (*ps->p != '"')
                return fail(ps, 0, "expected a member name in quotes, found %s%s", found(ps, buf),
                            *ps->p == '}' ? " (a trailing comma?)" : "");
            ps->p++;
            if (string(ps, &key)) return -1;
            skip_space(ps);
            if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside %s (opened at line %d)", kind, opened);
            if (*ps->p != ':')
                return fail(ps, 0, "expected ':' after the member name \"%s\", found %s", key, found(ps, buf));
            ps->p++;
        }
        skip_space(ps);
        if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside %s (opened at line %d)", kind, opened);
        if (close == ']' && *ps->p == ']') return fail(ps, 0, "a trailing comma before ']'");
        struct json *item;
        if (value(ps, &item)) return -1;
        item->key = key;
        *tail = item;
        tail = &item->next;
        v->count++;
        skip_space(ps);
        if (ps->p >= ps->end) return fail(ps, 1, "the file ends inside %s (opened at line %d)", kind, opened);
        if (*ps->p == close) return ps->p++, 0;
        if (*ps->p != ',')
            return fail(ps, 0, "expected ',' or '%c' in %s (opened at line %d), found %s", close, kind, opened,
                        found(ps, buf));
        ps->p++;
    }
}

static int value(struct parser *ps, struct json **out) {
    char buf[24];
    skip_space(ps);
    if (ps->p >= ps->end) return fail(ps, 1, "expected a value, found the end of the file");
    const char c = *ps->p;
    struct json *v;
    if (c == '{' || c == '[') {
        if (++ps->depth > JSON_MAX_DEPTH) return fail(ps, 0, "nested deeper than %d levels", JSON_MAX_DEPTH);
        v = node(ps, c == '{' ? JSON_OBJECT : JSON_ARRAY);
        ps->p++;
        if (container(ps, v, c == '{' ? '}' : ']')) return -1;
        ps->depth--;
    } else if (c == '"') {
        v = node(ps, JSON_STRING);
        ps->p++;
        if (string(ps, &v->text)) return -1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v = node(ps, JSON_NUMBER);
        if (number(ps, v)) return -1;
    } else {
        v = node(ps, JSON_NULL);
        int rc = literal(ps, "null");
        if (rc && !ps->e->msg[0] && !(rc = literal(ps, "true"))) v->type = JSON_BOOL, v->boolean = 1;
        else if (rc && !ps->e->msg[0] && !(rc = literal(ps, "false"))) v->type = JSON_BOOL;
        if (rc) {
            if (ps->e->msg[0]) return -1;
            return fail(ps, 0, "expected a value (an object, array, string, number, true, false or null), found %s",
                        found(ps, buf));
        }
    }
    *out = v;
    return 0;
}

struct json_doc *json_parse(const char *name, const char *text, size_t len, struct json_error *e) {
    memset(e, 0, sizeof *e);
    struct json_doc *doc = xcalloc(1, sizeof *doc);
    struct parser ps = {.p = text, .end = text + len, .name = name, .line = 1, .doc = doc, .e = e};
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        for (const char *q = text; q < nul; q++) ps.line += *q == '\n';
        fail(&ps, 0, "a NUL byte: not JSON text");
    } else {
        if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) ps.p += 3; /* a byte-order mark, as RFC 8259 allows */
        if (!value(&ps, &doc->root)) {
            char buf[24];
            skip_space(&ps);
            if (ps.p < ps.end) fail(&ps, 0, "%s after the end of the document", found(&ps, buf));
        }
    }
    if (e->msg[0]) {
        json_free(doc);
        return NULL;
    }
    return doc;
}

const struct json *json_root(const struct json_doc *doc) { return doc->root; }

void json_free(struct json_doc *doc) {
    if (!doc) return;
    for (struct block *b = doc->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(doc);
}

const struct json *json_get(const struct json *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (const struct json *m = object->child; m; m = m->next)
        if (!strcmp(m->key, key)) return m;
    return NULL;
}

const char *json_type_name(enum json_type type) {
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return names[type];
}

void json_put_string(FILE *out, const char *s) {
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        if (*p >= 0x80) { /* a CSV's text is not checked when read: what is not UTF-8 becomes U+FFFD */
            const int n = utf8_len(p, end);
            if (n) fwrite(p, 1, (size_t)n, out);
            else fputs("\\ufffd", out);
            p += n ? n : 1;
            continue;
        }
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
        p++;
    }
    fputc('"', out);
}

void json_put_number(FILE *out, double v) {
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, out);
}
