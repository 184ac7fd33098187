/* The on-disk cache of compiled kernels, shared by every backend.
 * A key hashes everything that changes the product: the source text (with
 * the headers it includes, which the caller folds in), the options, the
 * compiler or driver version, and the device. */
#ifndef HARNESS_BUILD_CACHE_H
#define HARNESS_BUILD_CACHE_H
#include <stddef.h>

/* Fills key (17 bytes) from the parts; any may be NULL. */
void cache_key(char key[17], const char *source_text, const char *options, const char *compiler, const char *device);
/* cache_dir()/key.ext into path. */
void cache_path(char *path, size_t n, const char *key, const char *ext);
/* A build of this key by one process at a time: concurrent processes that
 * need the same product (a sweep's workers, tests side by side) wait for
 * the first compile and then load what it cached, instead of each compiling
 * it (issue 40: the suite's PoCL programs were built in parallel twice and
 * three times). Blocks until the key's lock file (KEY.lock) is ours; returns
 * its descriptor for cache_unlock, or -1 (then build unlocked, as before). */
int cache_lock(const char *key);
void cache_unlock(int fd);
/* Returns a malloc'd copy of the cached product, or NULL when absent. */
void *cache_load(const char *key, const char *ext, size_t *len);
int cache_store(const char *key, const char *ext, const void *data, size_t len);
/* A shared object is code that runs when it is loaded (its constructors),
 * so one found at a key is loaded only if it is the one the harness built:
 * cache_seal writes PATH.sum (the hash of PATH's bytes) when the product is
 * made, and cache_check compares before every load. A file planted or
 * damaged at the key fails the check and is built afresh (a planted one
 * once ran its constructor and the run said ok). 0, or -1. */
int cache_seal(const char *path);
/* A run-time compile of the OpenMP and directive backends: cmd holds the
 * compiler and its flags; this appends -I<harness/backend>, the kernel's
 * options (words), -o out, the source and -lm, runs it from the argument
 * vector (util.h: never a shell) with its output in log, and frees cmd.
 * The compiler's exit status. */
struct argv_list;
int cache_compile(struct argv_list *cmd, const char *options, const char *out, const char *source, const char *log);
int cache_check(const char *path);
/* A kernel source and every file it #includes with quotes from its own
 * folder, and what those include in turn, for the key (source_inlined
 * without further folders). */
char *source_with_includes(const char *path, char *err, size_t errn);
/* The kernel source with its quoted #includes written in place, each file
 * once (found beside the including file, then in dirs), with #line markers
 * naming files by base name: text that is the same in every checkout, so a
 * driver's own cache (PoCL's is keyed by the source and the options) serves
 * a second checkout, which an -I option naming this one's folder defeats. */
char *source_inlined(const char *path, const char *const *dirs, int ndirs, char *err, size_t errn);
#endif
