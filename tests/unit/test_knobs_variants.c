/* Knobs (apply, canonical string, -D flags) and variant files (bases,
 * errors as "path:LINE:", the shipped ladder). */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "core/app.h"
#include "core/knobs.h"
#include "core/variants.h"
#include "test_files.h"

static char tmpdir[] = "/tmp/test_knobs_variants.XXXXXX";

static const char *write_tmp(const char *name, const char *text, char *path, size_t n) {
    return write_file_in(tmpdir, name, text, path, n);
}

/* A small table of our own, so order and defaults are known here. */
static const struct knob_def defs[] = {
    {.name = "layout", .values = "aos|soa|soa-3d", .def = "aos", .help = ""},
    {.name = "kernels", .values = "split|fused|fused-accel", .def = "split", .help = ""},
    {.name = "chunk", .values = "int", .def = "1792", .help = ""},
    {.name = "work", .values = "full|empty", .def = "full", .help = ""},
    {.name = "threads", .values = "all|int", .def = "all", .help = ""},
    {0},
};

/* Ways to read a knob by name, each as a child process runs it. */
enum knob_read { READ_GET, READ_IS, READ_INT, READ_SHARE, READ_SHAPE };

/* Reads knob `name` of k the given way in a child process, its stderr
 * into msg: 1 when the child aborted (SIGABRT), 0 when it returned. */
static int read_aborts(const struct knob_set *k, const char *name, enum knob_read how, char *msg, size_t n) {
    int fd[2];
    msg[0] = '\0';
    if (pipe(fd)) return 0;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}); /* an abort expected: no core file */
        dup2(fd[1], 2);
        close(fd[0]);
        unsigned shape[2];
        volatile long sink = how == READ_GET     ? (long)strlen(knob_get(k, name))
                             : how == READ_IS    ? knob_is(k, name, "aos")
                             : how == READ_INT   ? knob_int(k, name)
                             : how == READ_SHARE ? (long)knob_share(k, name)
                                                 : knob_shape(k, name, shape);
        (void)sink;
        _exit(0);
    }
    close(fd[1]);
    size_t got = 0;
    for (ssize_t r; got + 1 < n && (r = read(fd[0], msg + got, n - 1 - got)) > 0;) got += (size_t)r;
    msg[got] = '\0';
    msg[strcspn(msg, "\n")] = '\0';
    close(fd[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return 0;
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

/* A name the app does not declare is a defect in the code reading it: every
 * way of reading one stops the process, naming the knob and the app's
 * knobs; a declared name reads as before. */
static void test_unknown_knob(void) {
    struct knob_set k;
    knobs_init(&k, defs);
    char msg[512];
    static const char *const how_name[] = {"knob_get", "knob_is", "knob_int", "knob_share", "knob_shape"};
    for (int how = READ_GET; how <= READ_SHAPE; how++) {
        const int aborted = read_aborts(&k, "nosuch", (enum knob_read)how, msg, sizeof msg);
        CHECK(aborted && strstr(msg, "knob 'nosuch'") && strstr(msg, "layout, kernels, chunk, work, threads"),
              "%s: an undeclared name aborts, naming it and the declared knobs (%s)", how_name[how],
              msg[0] ? msg : "no message");
    }
    CHECK(!read_aborts(&k, "layout", READ_IS, msg, sizeof msg) && !read_aborts(&k, "chunk", READ_INT, msg, sizeof msg),
          "knob_is, knob_int: a declared name reads without stopping");
}

static void test_knobs(void) {
    struct knob_set k;
    char err[1024] = "", buf[512];
    knobs_init(&k, defs);
    CHECK(k.n == 5 && knob_is(&k, "layout", "aos") && knob_int(&k, "chunk") == 1792, "knobs_init: defaults");

    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "layout=aos,kernels=split,chunk=1792,work=full,threads=all") == 0, "canonical: defaults (%s)",
          buf);

    CHECK(knobs_apply(&k, "work=empty, layout=soa-3d chunk=64", err, sizeof err) == 0,
          "apply: commas and spaces separate (%s)", err);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "layout=soa-3d,kernels=split,chunk=64,work=empty,threads=all") == 0,
          "canonical: declaration order, not the order applied (%s)", buf);

    struct strbuf d = {0};
    knobs_defines(&k, &d);
    CHECK(d.s && strstr(d.s, "-DK_LAYOUT_SOA_3D=1") && strstr(d.s, "-DK_CHUNK=64") && strstr(d.s, "-DK_WORK_EMPTY=1") &&
              strstr(d.s, "-DK_KERNELS_SPLIT=1") && strstr(d.s, "-DK_THREADS_ALL=1"),
          "defines: -DK_LAYOUT_SOA_3D=1 -DK_CHUNK=64 ... (%s)", d.s ? d.s : "");
    CHECK(d.s && !strstr(d.s, "-DK_LAYOUT_SOA=1") && !strstr(d.s, "-DK_LAYOUT_AOS") && !strstr(d.s, "-DK_CHUNK_"),
          "defines: only the chosen value of each knob");
    sb_free(&d);

    /* Failures name what is wrong and leave the setting as it was. */
    knobs_init(&k, defs);
    err[0] = '\0';
    CHECK(knobs_apply(&k, "colour=red", err, sizeof err) == -1 && strstr(err, "colour"),
          "apply: unknown knob fails naming it (%s)", err);
    err[0] = '\0';
    CHECK(knobs_apply(&k, "layout=hex", err, sizeof err) == -1 && strstr(err, "layout") && strstr(err, "hex"),
          "apply: bad value fails naming knob and value (%s)", err);
    CHECK(knob_is(&k, "layout", "aos"), "apply: a rejected value is not stored");
    err[0] = '\0';
    CHECK(knobs_apply(&k, "layout=soa3d", err, sizeof err) == -1, "apply: near-miss value 'soa3d' fails");
    err[0] = '\0';
    CHECK(knobs_apply(&k, "layout=so", err, sizeof err) == -1, "apply: prefix value 'so' fails");
    /* Found by fuzz/fuzz_knobs.c: "int" itself was a value (knob_int 0, a
     * division by zero in the stencil's rules); "010" was 10 to the host and
     * octal 8 to the kernel's -DK_CHUNK=010; past INT_MAX wrapped. */
    const char *bad_ints[] = {"chunk=0",  "chunk=-3",  "chunk=abc",        "chunk=12x",
                              "chunk=",   "chunk=int", "chunk=010",        "chunk=+5",
                              "chunk= 5", "chunk=1e3", "chunk=2147483648", "chunk=99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++) {
        err[0] = '\0';
        CHECK(knobs_apply(&k, bad_ints[i], err, sizeof err) == -1 && strstr(err, "chunk"),
              "apply: int knob '%s' fails naming chunk (%s)", bad_ints[i], err);
    }
    CHECK(knob_int(&k, "chunk") == 1792, "apply: bad ints leave chunk at 1792");
    CHECK(knobs_apply(&k, "chunk=2147483647", err, sizeof err) == 0 && knob_int(&k, "chunk") == 2147483647,
          "apply: an int knob takes INT_MAX (%s)", err);
    /* A knob of words and integers ("all|int"). */
    CHECK(knobs_apply(&k, "threads=3", err, sizeof err) == 0 && knob_int(&k, "threads") == 3,
          "apply: all|int knob takes 3 (%s)", err);
    struct strbuf td = {0};
    knobs_defines(&k, &td);
    CHECK(td.s && strstr(td.s, "-DK_THREADS=3") && !strstr(td.s, "-DK_THREADS_"),
          "defines: threads=3 gives -DK_THREADS=3 (%s)", td.s ? td.s : "");
    sb_free(&td);
    CHECK(knobs_apply(&k, "threads=all", err, sizeof err) == 0 && knob_is(&k, "threads", "all"),
          "apply: all|int knob takes all");
    const char *bad_threads[] = {"threads=0",       "threads=-1", "threads=some",
                                 "threads=integer", "threads=in", "threads=int"};
    for (size_t i = 0; i < sizeof bad_threads / sizeof bad_threads[0]; i++) {
        err[0] = '\0';
        CHECK(knobs_apply(&k, bad_threads[i], err, sizeof err) == -1 && strstr(err, "threads"),
              "apply: all|int knob '%s' fails naming threads (%s)", bad_threads[i], err);
    }
    CHECK(knob_is(&k, "threads", "all"), "apply: rejected threads values leave all");
    err[0] = '\0';
    CHECK(knobs_apply(&k, "layout", err, sizeof err) == -1 && strstr(err, "layout"),
          "apply: a word without '=' fails (%s)", err);
    CHECK(knobs_apply(&k, "", err, sizeof err) == 0, "apply: empty text is no change");

    /* The LBM app's table: defaults are the final variant. */
    const struct app *lbm = app_find("lbm");
    CHECK(lbm != NULL, "app_find(\"lbm\")");
    if (!lbm) return;
    knobs_init(&k, lbm->knobs);
    knobs_canonical(&k, buf, sizeof buf);
    static const char lbm_prefix[] = "layout=soa-3d,kernels=fused-accel,sync=in-order,obstacles=mask,"
                                     "neighbours=bitmask,reduction=deferred,chunk=1792,";
    CHECK(strncmp(buf, lbm_prefix, sizeof lbm_prefix - 1) == 0,
          "lbm canonical defaults begin with the final program's knobs (%s)", buf);
    struct strbuf ld = {0};
    knobs_defines(&k, &ld);
    CHECK(ld.s && strstr(ld.s, "-DK_LAYOUT_SOA_3D=1") && strstr(ld.s, "-DK_CHUNK=1792") &&
              strstr(ld.s, "-DK_KERNELS_FUSED_ACCEL=1") && strstr(ld.s, "-DK_REDUCTION_DEFERRED=1"),
          "lbm defines: -DK_LAYOUT_SOA_3D=1 and -DK_CHUNK=1792 (%s)", ld.s ? ld.s : "");
    int flags = 0, quiet = 0;
    for (const char *p = ld.s; p && (p = strstr(p, "-D")); p += 2) flags++;
    for (int i = 0; i < k.n; i++) quiet += k.defs[i].quiet_default; /* at their defaults: no -D (strips) */
    CHECK(flags == k.n - quiet && k.n >= 10,
          "lbm defines: one -D per knob but the quiet ones at their defaults (%d for %d, %d quiet)", flags, k.n, quiet);
    sb_free(&ld);
    err[0] = '\0';
    CHECK(knobs_apply(&k, "reduction=tree", err, sizeof err) == -1 && strstr(err, "reduction"),
          "lbm apply: reduction=tree fails (%s)", err);
}

/* The word "shape" (WxH, 1..65536 each) and host_* knobs: read by the host
 * alone, so no define, and absent from the identity at their default. */
static const struct knob_def shape_defs[] = {
    {.name = "steps", .values = "int", .def = "1", .help = ""},
    {.name = "host_tile", .values = "auto|shape", .def = "auto", .help = ""},
    {0},
};

static void test_shape_knobs(void) {
    struct knob_set k;
    char err[512] = "", buf[256];
    unsigned s[2] = {0, 0};
    knobs_init(&k, shape_defs);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "steps=1") == 0, "host_tile at auto is left out of the identity (%s)", buf);
    CHECK(knob_shape(&k, "host_tile", s) == -1, "auto is a word, not a shape");
    CHECK(knobs_apply(&k, "host_tile=4094x32", err, sizeof err) == 0 && knob_shape(&k, "host_tile", s) == 0 &&
              s[0] == 4094 && s[1] == 32,
          "host_tile=4094x32 reads as 4094 and 32 (%u %u; %s)", s[0], s[1], err);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "steps=1,host_tile=4094x32") == 0, "a set host_tile is in the identity (%s)", buf);
    struct strbuf d = {0};
    knobs_defines(&k, &d);
    CHECK(d.s && !strstr(d.s, "HOST_TILE"), "host_* knobs are no compiler define (%s)", d.s ? d.s : "");
    sb_free(&d);
    CHECK(knobs_apply(&k, "host_tile=65536x1", err, sizeof err) == 0 && knob_shape(&k, "host_tile", s) == 0 &&
              s[0] == 65536 && s[1] == 1,
          "65536x1: the largest width");
    const char *bad[] = {"65537x1", "0x4", "4x0", "x4", "4x", "4", "08x8", "4x4x4", "-4x4", "4X4", "4x 4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[64];
        snprintf(text, sizeof text, "host_tile=%s", bad[i]);
        err[0] = '\0';
        CHECK(knobs_apply(&k, text, err, sizeof err) == -1 && strstr(err, "shape: WxH"), "%s is refused (%s)", text,
              err);
    }
    CHECK(knob_shape(&k, "host_tile", s) == 0 && s[0] == 65536, "a refused value leaves the setting as it was");
}

/* quiet_default: a knob added after configs were stored is in the identity
 * and among the defines only where it differs from its default. */
static const struct knob_def quiet_defs[] = {
    {.name = "form", .values = "a|b", .def = "a", .help = ""},
    {.name = "params", .values = "clauses|globals", .def = "clauses", .help = "", .quiet_default = 1},
    {0},
};

static void test_quiet_knobs(void) {
    struct knob_set k, again;
    char err[512] = "", buf[256], buf2[256];
    knobs_init(&k, quiet_defs);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "form=a") == 0, "a quiet knob at its default is left out of the identity (%s)", buf);
    struct strbuf d = {0};
    knobs_defines(&k, &d);
    CHECK(d.s && strstr(d.s, "-DK_FORM_A=1") && !strstr(d.s, "PARAMS"), "... and of the defines (%s)", d.s ? d.s : "");
    sb_free(&d);
    CHECK(knobs_apply(&k, "params=globals", err, sizeof err) == 0, "params=globals applies (%s)", err);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "form=a,params=globals") == 0, "set, it is in the identity (%s)", buf);
    d = (struct strbuf){0};
    knobs_defines(&k, &d);
    CHECK(d.s && strstr(d.s, "-DK_PARAMS_GLOBALS=1"), "... and a define (%s)", d.s ? d.s : "");
    sb_free(&d);
    knobs_init(&again, quiet_defs);
    CHECK(knobs_apply(&again, buf, err, sizeof err) == 0, "the identity applies again (%s)", err);
    knobs_canonical(&again, buf2, sizeof buf2);
    CHECK(strcmp(buf, buf2) == 0, "and reads back the same (%s)", buf2);
    CHECK(knobs_apply(&k, "params=clauses", err, sizeof err) == 0, "params=clauses applies (%s)", err);
    knobs_canonical(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "form=a") == 0, "set to its default, it is left out again (%s)", buf);
}

static void test_variants(void) {
    char path[PATH_MAX], err[2048];
    struct variant_list l;

    write_tmp("good.variants",
              "# a comment\n"
              "\n"
              "base: layout=soa kernels=fused   # the base\n"
              "child: base kernels=fused-accel chunk=5\n"
              "plain: work=empty\n",
              path, sizeof path);
    int rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc == 0 && l.n == 3, "variants: good file loads 3 (%s)", rc ? err : "");
    if (rc == 0) {
        const struct variant *b = variant_find(&l, "base"), *c = variant_find(&l, "child"),
                             *p = variant_find(&l, "plain");
        CHECK(b && c && p && !variant_find(&l, "nosuch"), "variants: variant_find");
        CHECK(b && knob_is(&b->knobs, "layout", "soa") && knob_is(&b->knobs, "kernels", "fused") &&
                  knob_int(&b->knobs, "chunk") == 1792,
              "variants: base sets its knobs over the defaults");
        CHECK(b && strcmp(b->description, "the base") == 0, "variants: description after '#' (%s)",
              b ? b->description : "");
        CHECK(c && knob_is(&c->knobs, "layout", "soa"), "variants: child inherits layout=soa from base");
        CHECK(c && knob_is(&c->knobs, "kernels", "fused-accel") && knob_int(&c->knobs, "chunk") == 5,
              "variants: child overrides kernels and chunk");
        CHECK(b && knob_is(&b->knobs, "kernels", "fused"), "variants: overriding in child leaves base alone");
        CHECK(p && knob_is(&p->knobs, "layout", "aos") && knob_is(&p->knobs, "work", "empty"),
              "variants: no base starts from the defaults");
        variants_free(&l);
    }

    write_tmp("unknown_base.variants", "a: layout=soa\n\nb: nosuch layout=aos\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 3) && strstr(err, "nosuch"),
          "variants: unknown base fails at path:3: naming it (%s)", err);
    CHECK(l.n == 0 && l.v == NULL, "variants: a failed load leaves an empty list");

    write_tmp("later_base.variants", "a: b layout=soa\nb: layout=aos\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 1), "variants: a base defined later fails at path:1: (%s)", err);

    write_tmp("dup.variants", "a: layout=soa\n# comment\nb: a\na: layout=aos\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 4) && strstr(err, "'a'"), "variants: duplicate name fails at path:4: (%s)",
          err);

    write_tmp("nocolon.variants", "a: layout=soa\nb layout=aos\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2), "variants: a line without ':' fails at path:2: (%s)", err);

    write_tmp("badknob.variants", "a: layout=soa\nb: a colour=red\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 2) && strstr(err, "colour"),
          "variants: an unknown knob fails at path:2: naming it (%s)", err);

    write_tmp("badname.variants", "a b: layout=soa\n", path, sizeof path);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && names_line(err, path, 1), "variants: a name with a space fails at path:1: (%s)", err);

    snprintf(path, sizeof path, "%s/absent.variants", tmpdir);
    err[0] = '\0';
    rc = variants_load(path, defs, &l, err, sizeof err);
    CHECK(rc != 0 && strstr(err, path), "variants: a missing file fails naming it (%s)", err);

    /* The shipped ladder. */
    const struct app *lbm = app_find("lbm");
    if (!lbm) return;
    err[0] = '\0';
    rc = variants_load_app("lbm", lbm->knobs, &l, err, sizeof err);
    CHECK(rc == 0, "shipped: variants/lbm.variants loads (%s)", err);
    if (rc) return;
    CHECK(l.n >= 15, "shipped: at least the 15 variants of the report's ladder (%d)", l.n);
    const struct variant *t02 = variant_find(&l, "t02-ported");
    CHECK(t02 != NULL, "shipped: t02-ported present");
    if (t02) {
        static const char *const want[][2] = {{"layout", "aos"},
                                              {"args", "buffers"},
                                              {"kernels", "split"},
                                              {"sync", "finish-each"},
                                              {"obstacles", "branch"},
                                              {"neighbours", "wrap"},
                                              {"reduction", "host-each-step"},
                                              {"constants", "inline"},
                                              {"work", "full"}};
        int good = 1;
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            if (!knob_is(&t02->knobs, want[i][0], want[i][1])) {
                printf("# t02-ported %s=%s, wanted %s\n", want[i][0], knob_get(&t02->knobs, want[i][0]), want[i][1]);
                good = 0;
            }
        CHECK(good, "shipped: t02-ported is aos, buffers, split, finish-each, branch, wrap, host-each-step, inline");
    }
    const struct variant *fin = variant_find(&l, "final");
    CHECK(fin != NULL, "shipped: final present");
    if (fin) {
        CHECK(knob_is(&fin->knobs, "layout", "soa-3d") && knob_is(&fin->knobs, "kernels", "fused-accel") &&
                  knob_is(&fin->knobs, "reduction", "deferred") && knob_is(&fin->knobs, "neighbours", "bitmask") &&
                  knob_is(&fin->knobs, "obstacles", "mask"),
              "shipped: final is soa-3d, fused-accel, deferred, bitmask, mask");
        CHECK(knob_is(&fin->knobs, "sync", "in-order") && knob_is(&fin->knobs, "args", "packed") &&
                  knob_is(&fin->knobs, "constants", "hoisted") && knob_is(&fin->knobs, "work", "full"),
              "shipped: final is in-order, packed, hoisted, full");
        struct knob_set defaults;
        char a[KNOBS_TEXT_MAX], b[KNOBS_TEXT_MAX];
        knobs_init(&defaults, lbm->knobs);
        knobs_canonical(&defaults, a, sizeof a);
        knobs_canonical(&fin->knobs, b, sizeof b);
        CHECK(strcmp(a, b) == 0, "shipped: final's knobs are the app's defaults (%s)", b);
    }
    const struct variant *empty = variant_find(&l, "t06-empty"), *c3584 = variant_find(&l, "t10-chunked-3584"),
                         *t05 = variant_find(&l, "t05-soa");
    CHECK(empty && knob_is(&empty->knobs, "work", "empty") && knob_is(&empty->knobs, "layout", "soa"),
          "shipped: t06-empty is t05-soa with work=empty");
    CHECK(t05 && knob_is(&t05->knobs, "work", "full") && knob_is(&t05->knobs, "kernels", "fused") &&
              knob_is(&t05->knobs, "sync", "in-order"),
          "shipped: t05-soa keeps its bases' fused, in-order");
    CHECK(c3584 && knob_int(&c3584->knobs, "chunk") == 3584 && knob_is(&c3584->knobs, "reduction", "chunked"),
          "shipped: t10-chunked-3584 has chunk=3584");
    /* Each shipped name appears once (variant_find finds the first). */
    int dups = 0;
    for (int i = 0; i < l.n; i++)
        for (int j = i + 1; j < l.n; j++) dups += strcmp(l.v[i].name, l.v[j].name) == 0;
    CHECK(dups == 0, "shipped: names unique");
    variants_free(&l);
}

int main(void) {
    set_root();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_knobs();
    test_unknown_knob();
    test_shape_knobs();
    test_quiet_knobs();
    test_variants();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
