/* A small strict JSON reader (RFC 8259) for the recorded landscapes of
 * landscape.c: the whole document becomes a tree in which every value knows
 * the line it starts on, so a complaint about a value long after parsing
 * still names file:line.
 *
 * Strict: no comments, no trailing commas, no NaN or Infinity, no leading
 * zeros or '+', no raw control characters in strings, valid UTF-8 only,
 * nothing after the top-level value. \u escapes become UTF-8 (a lone
 * surrogate or \u0000 is an error: the strings are C strings). Member names
 * are not checked for repeats (json_get finds the first); the landscape
 * readers refuse a configuration recorded twice themselves. */
#ifndef HARNESS_JSON_H
#define HARNESS_JSON_H
#include <stddef.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_type type;
    int line;           /* where the value starts, from 1 */
    int boolean;        /* JSON_BOOL */
    double number;      /* JSON_NUMBER */
    const char *text;   /* JSON_STRING: the decoded value; JSON_NUMBER: as written */
    const char *key;    /* a member's name, inside an object; else NULL */
    int count;          /* JSON_ARRAY, JSON_OBJECT: elements or members */
    struct json *child; /* the first element or member */
    struct json *next;  /* the next one in the same array or object */
};

struct json_error {
    int line;      /* where it went wrong */
    int at_end;    /* 1: the text ended before the value did (a file cut off) */
    char msg[320]; /* "NAME:LINE: what" */
};

struct json_doc; /* owns every node and string of one document */

/* Parses text[0..len) (NULs inside are an error); name prefixes the
 * message. The document, or NULL with *e filled. */
struct json_doc *json_parse(const char *name, const char *text, size_t len, struct json_error *e);
const struct json *json_root(const struct json_doc *doc);
void json_free(struct json_doc *doc);

/* The first member of an object called key, or NULL (also when v is not an object). */
const struct json *json_get(const struct json *object, const char *key);
/* "a string", "a number", ... for messages. */
const char *json_type_name(enum json_type type);

/* Writing the values back (harness tune --replay FILE --json): a string
 * quoted and escaped; a number as the shortest text that reads back as
 * the same double (null when it is not finite). */
void json_put_string(FILE *out, const char *s);
void json_put_number(FILE *out, double v);
#endif
