/* harness merge OUT.db IN.db... [--sweep FILE --shards N]: several hosts'
 * (or shards') results in one file. The merging itself is the store's
 * (store/store_merge.c says what is matched how); this command checks its
 * arguments, expands a sharded sweep to know what should be there, and
 * prints what each input brought. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/commands.h"
#include "store/store.h"
#include "store/store_merge.h"
#include "store/store_nightly.h"

/* --sweep FILE --shards N: which shards of that sweep are missing or
 * incomplete in OUT. The expansion is the sweep's own: `harness sweep FILE
 * --dry-run --keys` prints every config key in the canonical order, and shard i
 * holds the positions p with p mod N == i (as `sweep --shard i/N` keeps
 * them). The dry run lists this machine's devices, so it must run where the
 * shards ran (or on the same kind of device). Prints one line per shard that
 * lacks configs; returns the number of such shards, or -1 when the sweep
 * could not be expanded. */
static int sweep_completeness(struct store *s, const char *sweep, int shards) {
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return close(fd[0]), close(fd[1]), -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char *args[] = {"harness", "sweep", (char *)sweep, "--dry-run", "--keys", "--shard", "0/1", NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char **keys = NULL, *line = NULL;
    int nkeys = 0;
    size_t cap = 0;
    while (in && getline(&line, &cap, in) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *inv = strstr(line, "  invalid: ");
        if (inv) *inv = '\0';
        if (!line[0]) continue;
        keys = xrealloc(keys, (size_t)(nkeys + 1) * sizeof *keys);
        keys[nkeys++] = xstrdup(line);
    }
    free(line);
    if (in) fclose(in);
    else close(fd[0]);
    int status = 0, bad = -1;
    waitpid(pid, &status, 0);
    char err[ERR_MAX];
    int64_t *want = xcalloc((size_t)shards, sizeof *want), *have = xcalloc((size_t)shards, sizeof *have);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "harness merge: could not expand %s with `harness sweep --dry-run`\n", sweep);
    } else if (store_shard_coverage(s, keys, nkeys, shards, want, have, err, sizeof err) != 0) {
        fprintf(stderr, "harness merge: %s\n", err);
    } else {
        bad = 0;
        int64_t want_all = 0, have_all = 0;
        for (int i = 0; i < shards; i++) {
            want_all += want[i];
            have_all += have[i];
            if (have[i] == want[i]) continue;
            bad++;
            if (have[i] == 0) printf("shard %d/%d: missing (0 of %lld configs)\n", i, shards, (long long)want[i]);
            else
                printf("shard %d/%d: incomplete (%lld of %lld configs, %lld missing)\n", i, shards, (long long)have[i],
                       (long long)want[i], (long long)(want[i] - have[i]));
        }
        printf("sweep %s: %lld of %lld configs in %d shards merged%s\n", sweep, (long long)have_all,
               (long long)want_all, shards, bad ? "" : "; complete");
    }
    for (int i = 0; i < nkeys; i++) free(keys[i]);
    free(keys);
    free(want);
    free(have);
    return bad;
}

static int merge_main(int argc, char **argv, const char *sweep, int shards);

int cmd_merge(int argc, char **argv) {
    /* --sweep FILE and --shards N may stand anywhere; the rest is OUT IN... */
    const char *sweep = NULL;
    int shards = 1;
    char **args = xcalloc((size_t)argc + 1, sizeof *args);
    int nargs = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--sweep") && i + 1 < argc) sweep = argv[++i];
        else if (i > 0 && !strncmp(argv[i], "--sweep=", 8)) sweep = argv[i] + 8;
        else if (i > 0 && (!strcmp(argv[i], "--shards") || !strncmp(argv[i], "--shards=", 9))) {
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
            long n;
            if (parse_whole(v, 1, 100000, &n)) {
                fprintf(stderr, "harness merge: --shards %s: expected a count >= 1\n", v);
                free(args);
                return EXIT_USAGE;
            }
            shards = (int)n;
        } else args[nargs++] = argv[i];
    }
    int rc = merge_main(nargs, args, sweep, shards);
    free(args);
    return rc;
}

static int merge_main(int argc, char **argv, const char *sweep, int shards) {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: harness merge OUT.db IN.db... [--sweep FILE [--shards N]]\n"
               "  Copies every run (with measurements and samples), peak, tuned decision (and their\n"
               "  history), change point, nightly and exclusion of each input into OUT (created if\n"
               "  needed), matching rows on\n"
               "  their natural keys; a run OUT already has is not copied again, so merging twice adds\n"
               "  nothing, but what it gained since (a resumed shard's rounds and configs) is added.\n"
               "  --sweep FILE --shards N: the inputs are shards of that sweep (`sweep --shard I/N`);\n"
               "  unreadable inputs are skipped, and every shard whose configs OUT lacks is listed as\n"
               "  missing or incomplete (exit 1). The sweep is expanded on this machine's devices.\n");
        return EXIT_OK;
    }
    if (argc < (sweep ? 2 : 3)) {
        fprintf(stderr, "usage: harness merge OUT.db IN.db... [--sweep FILE [--shards N]]\n");
        return EXIT_USAGE;
    }
    if (sweep && access(sweep, R_OK) != 0) {
        fprintf(stderr, "harness merge: cannot read %s\n", sweep);
        return EXIT_USAGE;
    }
    char out_real[PATH_MAX] = "", in_real[PATH_MAX];
    char err[ERR_MAX];
    for (int i = 2; i < argc && !sweep; i++) {
        if (access(argv[i], R_OK) != 0) {
            fprintf(stderr, "harness merge: cannot read %s\n", argv[i]);
            return EXIT_USAGE;
        }
        /* An input that is not a harness database is bad input, found
         * before the output is touched (exit 2, the README's convention). */
        struct store_reader *rd = store_reader_open(argv[i], err, sizeof err); /* checks what the file is */
        if (!rd) {
            fprintf(stderr, "harness merge: %s; nothing merged\n", err);
            return EXIT_USAGE;
        }
        store_reader_close(rd);
    }
    struct store *s = store_open(argv[1], err, sizeof err);
    if (!s || store_nightly_tables(s, err, sizeof err) != 0) {
        fprintf(stderr, "harness merge: %s\n", err);
        store_close(s);
        return EXIT_FOUND;
    }
    if (!realpath(argv[1], out_real)) out_real[0] = '\0';
    int failures = 0;
    for (int i = 2; i < argc; i++) {
        if (sweep && access(argv[i], R_OK) != 0) {
            fprintf(stderr, "harness merge: cannot read %s; skipped\n", argv[i]);
            failures++;
            continue;
        }
        if (realpath(argv[i], in_real) && !strcmp(in_real, out_real)) {
            fprintf(stderr, "harness merge: %s is the output itself; skipped\n", argv[i]);
            failures++;
            continue;
        }
        struct merge_tally t = {0};
        if (store_merge_file(s, argv[i], &t, err, sizeof err) != 0) {
            fprintf(stderr, "harness merge: %s: %s (nothing from it was merged)\n", argv[i], err);
            failures++;
            continue;
        }
        printf("%s: %lld runs added (%lld already there), %lld measurements", argv[i], (long long)t.runs,
               (long long)t.skipped, (long long)t.measurements);
        if (t.resumed) printf(" (and %lld given their resumed rounds)", (long long)t.resumed);
        printf(", %lld samples, %lld peaks, %lld nightlies, %lld change points\n", (long long)t.samples,
               (long long)t.peaks, (long long)t.nightlies, (long long)t.change_points);
    }
    if (sweep && sweep_completeness(s, sweep, shards) != 0) failures++;
    store_close(s);
    return failures ? EXIT_FOUND : EXIT_OK;
}
