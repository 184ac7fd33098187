/* The pieces of the measurement issue that need no device: spreading
 * repetitions over rounds, the engine's shuffle, a measurement gathering
 * its rounds, and kept builds (content hash, keep once, find, prune). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "base/util.h"
#include "check.h"
#include "core/measurement.h"
#include "core/rounds.h"
#include "track/kept_build.h"

static int is_permutation(const int *p, int n) {
    int *seen = calloc((size_t)n + 1, sizeof *seen), ok = 1;
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n || seen[p[i]]) ok = 0;
        else seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

static void shuffles(void) {
    CHECK(rounds_reps_each(12, 6) == 2 && rounds_reps_each(9, 6) == 2 && rounds_reps_each(3, 5) == 1 &&
              rounds_reps_each(5, 1) == 5 && rounds_reps_each(1, 0) == 1,
          "repetitions per round: 12 over 6 is 2, 9 over 6 is 2 (rounded up), 3 over 5 is 1, at least 1");
    int a[50], b[50], c[50];
    rounds_shuffle(a, 50, 7);
    rounds_shuffle(b, 50, 7);
    rounds_shuffle(c, 50, 8);
    CHECK(is_permutation(a, 50) && is_permutation(c, 50), "a shuffle is a permutation");
    CHECK(!memcmp(a, b, sizeof a), "the same seed, the same order (a sweep's --seed repeats it)");
    CHECK(memcmp(a, c, sizeof a) != 0, "another seed, another order");
    int moved = 0;
    for (int i = 0; i < 50; i++) moved += a[i] != i;
    CHECK(moved > 40, "a shuffle moves most configs (%d of 50)", moved);
}

static void gathering(void) {
    struct measurement acc = {0};
    acc.status = ST_OK;
    acc.rounds = 3;
    acc.max_abs_err = acc.max_rel_err = acc.tolerance = acc.result = NAN;
    double s1[2] = {1.0, 1.2}, s2[2] = {2.0, 2.2}, s3[1] = {3.0};
    struct measurement r1 = {.status = ST_OK,
                             .nsamples = 2,
                             .samples = s1,
                             .max_rel_err = 1e-4,
                             .tolerance = 1e-2,
                             .max_abs_err = NAN,
                             .result = NAN,
                             .iters = 100,
                             .iters_full = 1000};
    struct measurement r2 = r1, r3 = r1;
    r2.samples = s2;
    r2.max_rel_err = 3e-4;
    measurement_add_round(&acc, &r1, 0);
    measurement_add_round(&acc, &r2, 1);
    CHECK(acc.nsamples == 4 && acc.sample_round[0] == 0 && acc.sample_round[3] == 1 && acc.rounds_done == 2,
          "two rounds: four samples tagged 0, 0, 1, 1; rounds_done 2");
    CHECK(acc.max_rel_err == 3e-4 && acc.iters == 100, "the largest error of the rounds is kept");
    double med[8];
    int k = measurement_round_medians(&acc, med);
    CHECK(k == 2 && fabs(med[0] - 1.1) < 1e-12 && fabs(med[1] - 2.1) < 1e-12, "each round's median: 1.1, 2.1");
    r3.status = ST_WRONG;
    r3.nsamples = 1;
    r3.samples = s3;
    str_copy(r3.reason, sizeof r3.reason, "cell (3, 4) differs");
    measurement_add_round(&acc, &r3, 2);
    CHECK(acc.status == ST_WRONG && strstr(acc.reason, "round 3 of 3: cell (3, 4) differs"),
          "a round that went wrong makes the config wrong, its reason naming the round (%s)", acc.reason);
    struct measurement r4 = r1;
    measurement_add_round(&acc, &r4, 3);
    CHECK(acc.status == ST_WRONG, "a later good round does not undo it");
    measurement_free(&acc);
    /* A measurement from before rounds: its samples become round 0. */
    struct measurement old = {0};
    old.status = ST_OK;
    old.nsamples = 2;
    old.samples = malloc(2 * sizeof(double));
    old.device_samples = malloc(2 * sizeof(double));
    old.samples[0] = old.samples[1] = 5;
    measurement_add_round(&old, &r2, 1);
    CHECK(old.nsamples == 4 && old.sample_round[0] == 0 && old.sample_round[1] == 0 && old.sample_round[2] == 1,
          "samples gathered before rounds were counted are round 0");
    measurement_free(&old);
}

static int write_file(const char *path, const char *text) { return file_write_all(path, text, strlen(text)); }

static void kept(void) {
    char root[] = "/tmp/test_rounds.XXXXXX";
    if (!mkdtemp(root)) return;
    char p[8400], builds[4200], exe[4200];
    const char *dirs[] = {"kernels/app", "variants", "harness/backend/peak"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/tree/%s", root, dirs[i]);
        dir_make_p(p);
    }
    snprintf(p, sizeof p, "%s/tree/kernels/app/k.cl", root);
    write_file(p, "kernel one");
    snprintf(p, sizeof p, "%s/tree/variants/app.variants", root);
    write_file(p, "final: k=v\n");
    snprintf(p, sizeof p, "%s/tree/harness/backend/omp_kernel.h", root);
    write_file(p, "abi");
    snprintf(exe, sizeof exe, "%s/harness-bin", root);
    write_file(exe, "#!/bin/sh\nexit 0\n");
    chmod(exe, 0755);
    snprintf(builds, sizeof builds, "%s/builds", root);
    setenv("HARNESS_BUILDS", builds, 1);
    char tree[4200], h1[KEPT_HASH_LEN + 1], h2[KEPT_HASH_LEN + 1], h3[KEPT_HASH_LEN + 1], dir[8192], bin[8192],
        err[512];
    snprintf(tree, sizeof tree, "%s/tree", root);
    int rc = kept_build_keep(tree, exe, h1, dir, sizeof dir, err, sizeof err);
    str_fmt(p, sizeof p, "%s/kernels/app/k.cl", dir);
    char *copy = file_read_all(p, NULL, NULL, 0);
    CHECK(rc == 0 && strlen(h1) == KEPT_HASH_LEN && copy && !strcmp(copy, "kernel one"),
          "a build is kept with its kernel tree (%s: %s)", h1, rc ? err : dir);
    free(copy);
    CHECK(kept_build_find(h1, dir, sizeof dir, bin, sizeof bin, err, sizeof err) == 0 && access(bin, X_OK) == 0,
          "and found again by its hash, its binary executable");
    rc = kept_build_keep(tree, exe, h2, dir, sizeof dir, err, sizeof err);
    CHECK(rc == 0 && !strcmp(h1, h2), "keeping the same build again: the same hash, nothing new");
    snprintf(p, sizeof p, "%s/tree/kernels/app/k.cl", root);
    write_file(p, "kernel two");
    kept_build_hash(tree, exe, h3, err, sizeof err);
    CHECK(strcmp(h1, h3) != 0, "one changed kernel file changes the hash (%s -> %s)", h1, h3);
    kept_build_keep(tree, exe, h3, dir, sizeof dir, err, sizeof err);
    CHECK(kept_build_find("0123456789abcdef", dir, sizeof dir, bin, sizeof bin, err, sizeof err) != 0 &&
              strstr(err, "is not kept"),
          "a build that was never kept: a message naming it (%s)", err);
    CHECK(kept_build_find("../etc", dir, sizeof dir, bin, sizeof bin, err, sizeof err) != 0,
          "a malformed hash is refused");
    /* Pruning: both are old now; the one still needed stays. */
    snprintf(p, sizeof p, "%s/%s", builds, h1);
    struct utimbuf old = {0, 0};
    utime(p, &old);
    snprintf(p, sizeof p, "%s/%s", builds, h3);
    utime(p, &old);
    const char *keep[1] = {h3};
    int removed = kept_build_prune(30, keep, 1, NULL);
    CHECK(removed == 1 && kept_build_find(h1, dir, sizeof dir, bin, sizeof bin, err, sizeof err) != 0 &&
              kept_build_find(h3, dir, sizeof dir, bin, sizeof bin, err, sizeof err) == 0,
          "pruning by age removes the old build and keeps the one still needed (%d removed)", removed);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) perror(cmd);
    unsetenv("HARNESS_BUILDS");
}

int main(void) {
    shuffles();
    gathering();
    kept();
    CHECK_DONE();
}
