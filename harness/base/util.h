/* Small shared helpers: error text, files, paths, clocks. */
#ifndef HARNESS_UTIL_H
#define HARNESS_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses shared by every command (architecture.md). */
enum { EXIT_OK = 0, EXIT_FOUND = 1, EXIT_USAGE = 2, EXIT_INCONCLUSIVE = 3 };

/* The size of an error or reason buffer a caller passes down (char
 * err[ERR_MAX], with sizeof err): what went wrong, as one or a few lines,
 * ending as a measurement's reason or a message on stderr. As long as the
 * reason a measurement keeps (measurement.h). Build logs are longer and
 * have buffers of their own. */
#define ERR_MAX 2048

/* Formats into a caller-owned error buffer; always returns -1 so callers can
 * write `return err_set(err, n, "...")`. */
int err_set(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
char *file_read_all(const char *path, size_t *len, char *err, size_t errn);
int file_write_all(const char *path, const void *data, size_t len);
int dir_make_p(const char *path);

/* The repository root: the parent of the folder holding bin/harness, so the
 * harness finds kernels/ and variants/ wherever it is started from.
 * HARNESS_ROOT overrides it. */
const char *repo_root(void);
/* repo_root()/rel into buf. */
const char *repo_path(char *buf, size_t n, const char *rel);
/* Where compiled kernels are cached (HARNESS_CACHE or ROOT/build/cache). */
const char *cache_dir(void);

double clock_now(void); /* monotonic seconds */
uint64_t hash_fnv1a(const void *data, size_t len, uint64_t seed);
uint64_t hash_str(const char *s, uint64_t seed);
/* splitmix64 (Steele, Lea and Flood): the next of a repeatable stream from
 * *state; small, fast, and the same sequence on every libc (rand() is not).
 * Every seeded draw in the harness and the apps' generated inputs uses it. */
uint64_t splitmix64(uint64_t *state);

/* Appends formatted text to a growing malloc'd string. */
struct strbuf {
    char *s;
    size_t len, cap;
};
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *b);

char *xstrdup(const char *s);
void *xcalloc(size_t n, size_t size);
/* An allocation that cannot succeed is refused before it is tried, with
 * the size: -1 with err ("WHAT needs 618.5 GB of host memory; this machine
 * has 23.5 GB") when bytes exceed the machine's physical memory, else 0.
 * Inputs check their whole footprint with it when they are loaded, so a
 * grid too big for the host is bad input (exit 2), not an abort. */
int host_memory_check(double bytes, const char *what, char *err, size_t errn);
void *xrealloc(void *p, size_t size); /* realloc, or abort on exhaustion */
/* Copies at most n-1 bytes and always terminates. */
void str_copy(char *dst, size_t n, const char *src);
void str_trim(char *s);
/* Writes one CSV field (RFC 4180: quoted when it holds a separator, quote
 * or line break, with its quotes doubled). */
void csv_field(FILE *out, const char *v);
/* Numbers given on the command line or in a file, the one way every option
 * reads them: the whole text is the number (no leading space, nothing
 * after it), and a value strtol or strtod cannot hold is an error, never a
 * clamped or wrapped one. parse_whole: a decimal integer in [lo, hi].
 * parse_real: a finite number (no nan, no inf) in [lo, hi]. 0, or -1 and
 * *out untouched. */
int parse_whole(const char *text, long lo, long hi, long *out);
int parse_real(const char *text, double lo, double hi, double *out);
/* snprintf whose truncation is intended (long names are cut, not errors). */
void str_fmt(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Programs are run from an argument vector, never through a shell, so no
 * environment value (HARNESS_OMP_CC, OFFLOAD_CC, OFFLOAD_FLAGS) and no
 * option string reaches one: each is split into words on blanks and the
 * words are passed as they are (a ';' or '$(...)' is an argument, not a
 * command).
 *     struct argv_list a = {0};
 *     argv_words(&a, getenv("HARNESS_OMP_CC"));  argv_add(&a, "-O3"); ...
 *     int rc = argv_run(&a, "build.log");  argv_free(&a); */
struct argv_list {
    char **v; /* NULL-terminated */
    int n, cap;
};
void argv_add(struct argv_list *a, const char *word);   /* one word, as it is */
void argv_words(struct argv_list *a, const char *text); /* each blank-separated word of text */
void argv_free(struct argv_list *a);
/* Runs a->v (v[0] looked up in PATH), its stdout and stderr to log_path
 * (NULL: discarded), and waits: its exit status, 128 + the signal that
 * ended it, or -1 when it could not be started. */
int argv_run(const struct argv_list *a, const char *log_path);
/* The first line of its standard output (stderr discarded) into out,
 * trimmed: 0, or -1 when it could not run or printed nothing. */
int argv_first_line(const struct argv_list *a, char *out, size_t n);
#endif
