/* Kept builds: every night's build (the binary and the kernel tree it reads
 * at run time), content-addressed under results/builds/<hash>/ (beside the
 * database) with the layout of a checkout, so that a change seen tonight can be measured again
 * at once beside last night's build, interleaved on the same device
 * (confirm.h): the kept binary runs with HARNESS_ROOT at its own folder.
 * The hash covers the binary and every file it reads (kernels/, variants/,
 * harness/backend/omp_kernel.h, harness/backend/peak/), so two builds with one hash run the
 * same code. Pruned by age, never the ones named as still needed. */
#ifndef HARNESS_KEPT_BUILD_H
#define HARNESS_KEPT_BUILD_H
#include <stddef.h>
#include <stdio.h>

#define KEPT_HASH_LEN 16

/* Where builds are kept: HARNESS_BUILDS, else beside the database the
 * command uses (kept_builds_for_db: DIR/builds for DIR/results.db), else
 * ROOT/results/builds. Beside the database, because its nights name them:
 * a night run on another kernel tree (HARNESS_ROOT) keeps its build there too. */
const char *kept_builds_dir(void);
void kept_builds_for_db(const char *db_path);
/* The content hash of a build: the binary exe and the tree under root. */
int kept_build_hash(const char *root, const char *exe, char hash[KEPT_HASH_LEN + 1], char *err, size_t errn);
/* Keeps this build (exe and root's tree) unless a build of that hash is
 * kept already; its hash and folder out. 0, or -1 with err. */
int kept_build_keep(const char *root, const char *exe, char hash[KEPT_HASH_LEN + 1], char *dir, size_t dirn, char *err,
                    size_t errn);
/* The folder of a kept build and its binary; 0 when both are there, -1 with
 * a message naming the problem (pruned, never kept) otherwise. */
int kept_build_find(const char *hash, char *dir, size_t dirn, char *bin, size_t binn, char *err, size_t errn);
/* Removes kept builds older than max_age_days (by when last kept or used),
 * except those in keep[]. Returns how many were removed. */
int kept_build_prune(double max_age_days, const char *const *keep, int nkeep, FILE *log);
/* Marks a kept build as used now (its age restarts). */
void kept_build_touch(const char *hash);
#endif
