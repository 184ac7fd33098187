/* Merging results databases (`harness merge`): rows matched on their natural
 * keys, never on ids; one transaction per input file. store_merge.c says
 * what is matched how. */
#ifndef HARNESS_STORE_MERGE_H
#define HARNESS_STORE_MERGE_H
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* What one input brought. */
struct merge_tally {
    int64_t runs, skipped, measurements, resumed, samples, peaks, nightlies, change_points;
};

/* Merges the results database at `path` into s's file: all of it, or (-1
 * with err) nothing. s has the nightly tables (store_nightly_tables). */
int store_merge_file(struct store *s, const char *path, struct merge_tally *t, char *err, size_t errn);
/* Shard coverage of a sweep: keys are its configs' canonical keys in order
 * (`harness sweep --dry-run`), shard i holding the positions p % shards == i.
 * want[i] and have[i] (arrays of `shards`): the shard's configs, and those
 * the file holds with all their rounds. 0, or -1 with err. */
int store_shard_coverage(struct store *s, char *const *keys, int nkeys, int shards, int64_t *want, int64_t *have,
                         char *err, size_t errn);
#endif
