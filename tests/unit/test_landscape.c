/* Recorded landscapes (harness/tune/landscape.h) and `tune --replay FILE`'s
 * search (tune_replay_file.h) on the hand-made fixtures of tests/data/kt/
 * (their README says what each holds: a 64-point Kernel Tuner cache with
 * numbers, strings and booleans among its parameters and 6 failures of
 * every kind, the same cut off, gzipped, as T4 results, a harness T4
 * export, a CSV) and on tests/data/landscape-*.csv: exact counts, failures
 * kept, kinds, the optimum, a configuration's time found again, the
 * search finding the optimum; then the strict JSON reader, the refused
 * limits and every kind of bad input, each named at file:line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "test_files.h"
#include "tune/json.h"
#include "tune/landscape.h"
#include "tune/tune_replay_file.h"

static char tmpdir[] = "/tmp/test_landscape.XXXXXX";
static char err[8192];

static const char *data(const char *name, char *path, size_t n) {
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/%s", name);
    return repo_path(path, n, rel);
}

/* The first line of a message (a list of choices follows it), for a check's one-line name. */
static const char *first_line(const char *msg) {
    static char line[512];
    str_copy(line, sizeof line, msg);
    line[strcspn(line, "\n")] = '\0';
    return line;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

/* Loads text as a file called name; 0 or -1 (err filled). */
static int parse(const char *name, const char *text, struct landscape *l) {
    return landscape_parse(name, text, strlen(text), NULL, l, err, sizeof err);
}

/* The point with these values' seconds (NAN when there is none). */
static double time_of(const struct landscape *l, const char *const *values) {
    const int i = landscape_find(l, values);
    return i < 0 ? NAN : l->seconds[i];
}

/* The 64-point cache, as every Kernel Tuner format holds it. */
static void check_cache_landscape(const char *what, const struct landscape *l) {
    CHECK(l->n == 64 && l->failed == 6 && l->nparams == 5, "%s: 64 points, 6 failed, 5 parameters (%d, %d, %d)", what,
          l->n, l->failed, l->nparams);
    static const char *const names[5] = {"block_size_x", "block_size_y", "use_shared", "layout", "unroll"};
    static const enum landscape_kind kinds[5] = {LANDSCAPE_ORDERED, LANDSCAPE_ORDERED, LANDSCAPE_SWITCH,
                                                 LANDSCAPE_CATEGORICAL, LANDSCAPE_SWITCH};
    int named = l->nparams == 5;
    for (int k = 0; named && k < 5; k++) named = !strcmp(l->param[k].name, names[k]) && l->param[k].kind == kinds[k];
    CHECK(named,
          "%s: the parameters in order: two ordered sides, a boolean switch, a categorical string, a {0,1} "
          "switch",
          what);
    CHECK(l->nparams == 5 && l->param[0].nlevels == 3 && l->param[0].level[0].number == 16 &&
              l->param[0].level[2].number == 64 && l->param[2].level[0].type == LANDSCAPE_BOOL &&
              l->param[3].level[0].type == LANDSCAPE_STRING,
          "%s: levels typed as written, the ordered ones increasing", what);
    CHECK(l->optimum >= 0 && near(l->seconds[l->optimum], 1.35e-3), "%s: the optimum is 1.35 ms (%g s)", what,
          l->optimum >= 0 ? l->seconds[l->optimum] : NAN);
    const char *opt[5] = {"32", "4", "true", "row", "1"};
    CHECK(landscape_find(l, opt) == l->optimum, "%s: the optimum is 32x4, shared, row, unrolled", what);
    const char *some[5] = {"16", "2", "true", "row", "1"};
    CHECK(near(time_of(l, some), 2.01825e-3), "%s: 16,2,True,row,1 is found again at 2.01825 ms (%g)", what,
          time_of(l, some));
    const char *invalid[5] = {"64", "2", "false", "col", "0"}, *compile[5] = {"16", "1", "true", "row", "0"},
               *runtime[5] = {"64", "1", "true", "row", "1"}, *old[5] = {"16", "4", "false", "col", "1"};
    CHECK(time_of(l, invalid) < 0 && time_of(l, compile) < 0 && time_of(l, runtime) < 0 && time_of(l, old) < 0,
          "%s: InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig and 1e20 are kept, as failures", what);
    const char *absent[5] = {"64", "4", "true", "row", "1"};
    CHECK(landscape_find(l, absent) < 0, "%s: 64x4 was never recorded (x*y <= 128): not a point", what);
}

/* Exhaustive replay finds the optimum after paying for every point, failures too. */
static void check_search(const char *what, struct landscape *l) {
    struct tune_space sp;
    err[0] = '\0';
    CHECK(landscape_space(l, &sp, err, sizeof err) == 0 && sp.n == l->n && sp.nparams == l->nparams,
          "%s: a space of all %d points (%s)", what, l->n, err);
    struct tune_result r;
    CHECK(tune_search("exhaustive", &sp, 0, 1, landscape_eval, l, &r) == 0 && r.evaluations == l->n &&
              r.best == l->optimum && r.best_s == l->seconds[l->optimum],
          "%s: exhaustive evaluates all %d (%d) and finds the optimum", what, l->n, r.evaluations);
    tune_space_free(&sp);
}

static void test_caches(void) {
    char path[4096];
    struct landscape l;
    int rc = landscape_load(data("kt/cache-complete.json", path, sizeof path), NULL, &l, err, sizeof err);
    CHECK(rc == 0, "a complete Kernel Tuner cache loads (%s)", rc ? err : "ok");
    if (!rc) {
        check_cache_landscape("cache", &l);
        CHECK(!strcmp(l.format, "Kernel Tuner cache") && l.device && !strcmp(l.device, "NVIDIA A100-PCIE-40GB") &&
                  l.kernel && !strcmp(l.kernel, "matmul_kernel") && !l.cut_off,
              "cache: its format, device and kernel are kept; it was not cut off");
        CHECK(fabs(l.noise[l.optimum] - 0.02) < 1e-9, "cache: a point's spread is its times' IQR / median (%g)",
              l.noise[l.optimum]);
        CHECK(l.line[l.optimum] == 82, "cache: a point knows its line (%d)", l.line[l.optimum]);
        struct tune_space sp;
        landscape_space(&l, &sp, err, sizeof err);
        CHECK(sp.side_param[0] == 0 && sp.side_param[1] == 1 && sp.side_len[0][2] == 64 && sp.side_len[1][0] == 1 &&
                  sp.params[0].ordinal && !sp.params[2].ordinal && !sp.params[3].ordinal && !sp.params[4].ordinal,
              "cache: block_size_x/y are the work-group's sides; switches and strings are not ordered");
        tune_space_free(&sp);
        check_search("cache", &l);
        landscape_free(&l);
    }
    rc = landscape_load(data("kt/cache-cut.json", path, sizeof path), NULL, &l, err, sizeof err);
    CHECK(rc == 0 && l.cut_off, "a cache cut off without its closing (ends \"},\") loads, and says so (%s)",
          rc ? err : "ok");
    if (!rc) check_cache_landscape("cut cache", &l), landscape_free(&l);
    rc = landscape_load(data("kt/cache-complete.json.gz", path, sizeof path), NULL, &l, err, sizeof err);
    CHECK(rc == 0, "the gzipped cache loads (%s)", rc ? err : "ok");
    if (!rc) check_cache_landscape("gzipped cache", &l), landscape_free(&l);
    rc = landscape_load(data("kt/t4-kernel-tuner.json", path, sizeof path), NULL, &l, err, sizeof err);
    CHECK(rc == 0 && !strcmp(l.format, "T4 results"), "Kernel Tuner's T4 output loads (%s)", rc ? err : "ok");
    if (!rc) check_cache_landscape("T4", &l), check_search("T4", &l), landscape_free(&l);
}

/* Kernel Tuner's own repairs, and what it cannot repair. */
static void test_cut_off(void) {
    char path[4096], cut[4096];
    size_t len;
    char *full = file_read_all(data("kt/cache-cut.json", path, sizeof path), &len, err, sizeof err);
    struct landscape l;
    CHECK(full && len > 100 && full[len - 1] == ',', "the cut fixture ends with a comma, as Kernel Tuner leaves it");
    if (!full) return;
    full[len - 1] = '\n'; /* no trailing comma either */
    int rc = landscape_parse("nocomma.json", full, len, NULL, &l, err, sizeof err);
    CHECK(rc == 0 && l.cut_off && l.n == 64, "cut after an entry without its comma: still read (%s)", rc ? err : "ok");
    landscape_free(&l);
    char *last = strrchr(full, '\n');
    *last = '\0';
    last = strrchr(full, '\n');
    rc = landscape_parse("inside.json", full, (size_t)(last - full) + 40, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && names_line(err, "inside.json", 104) && strstr(err, "cut off inside an entry"),
          "cut inside an entry: an error at the line, never a guess (%s)", err);
    const char *header = strstr(full, "\"cache\": {");
    const size_t upto = (size_t)(header - full) + strlen("\"cache\": {");
    rc = landscape_parse("header.json", full, upto, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "no configuration is recorded"), "cut after the header: nothing recorded (%s)", err);
    free(full);
    snprintf(cut, sizeof cut, "%s", "{\"tune_params\": {\"a\": [1]}, \"cache\": {\"1\": {\"a\": 1, \"time\": 1}}");
    rc = parse("onebrace.json", cut, &l);
    CHECK(rc == 0 && l.cut_off && l.n == 1, "a cache missing only its last brace is closed too (%s)", rc ? err : "ok");
    landscape_free(&l);
}

static void test_gzip_corrupt(void) {
    char path[4096], out[4096];
    size_t len;
    char *gz = file_read_all(data("kt/cache-complete.json.gz", path, sizeof path), &len, err, sizeof err);
    CHECK(gz != NULL, "the gzipped fixture reads (%s)", gz ? "ok" : err);
    if (!gz) return;
    struct landscape l;
    snprintf(out, sizeof out, "%s/cut.json.gz", tmpdir);
    file_write_all(out, gz, len / 2);
    int rc = landscape_load(out, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "cut.json.gz: a corrupt gzip file"), "a gzip file cut in half is refused (%s)", err);
    gz[len / 2] ^= 0x55;
    gz[len / 2 + 1] ^= 0x55;
    snprintf(out, sizeof out, "%s/flipped.json.gz", tmpdir);
    file_write_all(out, gz, len);
    rc = landscape_load(out, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "flipped.json.gz: a corrupt gzip file"),
          "a gzip file with damaged bytes is refused (%s)", err);
    free(gz);
}

static void test_t4_export(void) {
    char path[4096];
    struct landscape l;
    const char *file = data("kt/t4-harness.json", path, sizeof path);
    int rc = landscape_load(file, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "holds 2 landscapes; choose one with --input") && strstr(err, "--input gen-32x32") &&
              strstr(err, "--input gen-64x64"),
          "a harness export of two inputs: no guess, the choices listed (%s)", first_line(err));
    struct landscape_pick pick = {.input = "gen-32x32"};
    rc = landscape_load(file, &pick, &l, err, sizeof err);
    CHECK(rc == 0, "--input gen-32x32 picks one (%s)", rc ? err : "ok");
    if (!rc) {
        CHECK(l.n == 18 && l.failed == 1 && l.repeated == 1 && l.device && !strcmp(l.device, "openmp"),
              "its 18 configurations, the wrong result a failure, the one measured twice counted once (%d, %d, %d)",
              l.n, l.failed, l.repeated);
        const char *again[3] = {"16", "2", "deferred"}, *best[3] = {"16", "4", "deferred"};
        CHECK(near(time_of(&l, again), 1.38e-3), "the later record of a repeated configuration counts (%g s)",
              time_of(&l, again));
        CHECK(near(l.seconds[l.optimum], 0.8e-3) && landscape_find(&l, best) == l.optimum,
              "the optimum in seconds as written: 0.8 ms at 16x4 deferred");
        CHECK(near(l.noise[l.optimum], 0.03), "the spread from time_q1 and time_q3 (%g)", l.noise[l.optimum]);
        landscape_free(&l);
    }
    pick.input = "gen-128x128";
    rc = landscape_load(file, &pick, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "no landscape matches --input gen-128x128"), "an input it lacks: refused (%s)",
          first_line(err));
    pick = (struct landscape_pick){.variant = "final"};
    rc = landscape_load(file, &pick, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "--variant does not apply"), "a T4 export's landscapes are not told by variant (%s)",
          err);
}

static void test_csv(void) {
    char path[4096];
    struct landscape l;
    int rc = landscape_load(data("kt/landscape.csv", path, sizeof path), NULL, &l, err, sizeof err);
    CHECK(rc == 0, "a CSV landscape loads (%s)", rc ? err : "ok");
    if (!rc) {
        CHECK(l.n == 16 && l.failed == 3 && l.nparams == 4 && l.param[2].kind == LANDSCAPE_CATEGORICAL &&
                  l.param[3].kind == LANDSCAPE_SWITCH && l.param[0].kind == LANDSCAPE_ORDERED,
              "CSV: 16 rows, an empty time, a status and InvalidConfig are 3 failures; kinds by the values (%d, %d)",
              l.n, l.failed);
        const char *opt[4] = {"32", "4", "row", "true"};
        CHECK(near(l.seconds[l.optimum], 1.35e-3) && landscape_find(&l, opt) == l.optimum,
              "CSV: time_ms read in ms: the optimum is 1.35 ms at 32x4 row shared");
        CHECK(fabs(l.noise[l.optimum] - 0.04) < 1e-6, "CSV: the spread from q1_ms and q3_ms (%g)", l.noise[l.optimum]);
        check_search("CSV", &l);
        landscape_free(&l);
    }
    const char *file = data("landscape-h200-cuda.csv", path, sizeof path);
    rc = landscape_load(file, NULL, &l, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "--input 128x128") && strstr(err, "--input 256x256"),
          "landscape-h200-cuda.csv holds two inputs: the choices listed (%s)", first_line(err));
    struct landscape_pick pick = {.input = "128x128", .variant = "g15-fast"};
    rc = landscape_load(file, &pick, &l, err, sizeof err);
    CHECK(rc == 0, "--input 128x128 --variant g15-fast loads (%s)", rc ? err : "ok");
    if (!rc) {
        static const char *const names[6] = {"temporal", "tile", "cells", "entry", "wg_x", "wg_y"};
        int named = l.nparams == 6;
        for (int k = 0; named && k < 6; k++) named = !strcmp(l.param[k].name, names[k]);
        CHECK(l.n == 87 && l.failed == 0 && named, "its 87 points, the variant's knobs then wg_x, wg_y (%d)", l.n);
        CHECK(l.seconds[l.optimum] == 0.0015013359999969111, "its optimum, median_s as written (%.17g)",
              l.seconds[l.optimum]);
        struct tune_space sp;
        landscape_space(&l, &sp, err, sizeof err);
        CHECK(sp.side_param[0] == 4 && sp.side_param[1] == 5, "wg_x and wg_y are the work-group's sides");
        tune_space_free(&sp);
        check_search("landscape-h200-cuda.csv 128x128", &l);
        landscape_free(&l);
    }
    /* Every shipped landscape loads whole: 87 or 360 points each. */
    static const struct {
        const char *file, *input;
        int n;
    } shipped[] = {{"landscape-h200-cuda-wide.csv", "256x256", 360},
                   {"landscape-h100-cuda.csv", "1024x1024", 87},
                   {"landscape-h100-cuda-rect.csv", "512x2048", 87},
                   {"landscape-h200-cuda-heldout.csv", "512x512", 87}};
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        pick = (struct landscape_pick){.input = shipped[i].input};
        rc = landscape_load(data(shipped[i].file, path, sizeof path), &pick, &l, err, sizeof err);
        CHECK(rc == 0 && l.n == shipped[i].n, "%s --input %s: %d points (%d; %s)", shipped[i].file, shipped[i].input,
              shipped[i].n, rc ? -1 : l.n, rc ? err : "ok");
        if (!rc) landscape_free(&l);
    }
}

static void test_json(void) {
    struct json_error e;
    const char *text = "{\"a\": [1, -2.5e3, 0],\n \"s\": \"\\u00e9\\ud83d\\ude00\\n\",\n \"t\": true, \"n\": null}";
    struct json_doc *d = json_parse("t.json", text, strlen(text), &e);
    const struct json *a = d ? json_get(json_root(d), "a") : NULL, *s = d ? json_get(json_root(d), "s") : NULL;
    CHECK(d && a && a->count == 3 && a->child->next->number == -2500 && !strcmp(a->child->next->text, "-2.5e3") && s &&
              s->line == 2 && !strcmp(s->text, "\xc3\xa9\xf0\x9f\x98\x80\n"),
          "JSON: numbers kept as written, \\u escapes and surrogate pairs to UTF-8, lines counted");
    json_free(d);
    static const struct {
        const char *text, *why;
        int line, at_end;
    } bad[] = {
        {"{\"a\": [1, 2,]}", "trailing comma", 1, 0},
        {"{\"a\": 1,\n}", "(a trailing comma?)", 2, 0},
        {"{\"a\": 01}", "leading zero", 1, 0},
        {"{\"a\": NaN}", "expected a value", 1, 0},
        {"{\"a\": \"x\ny\"}", "a line break inside a string", 1, 0},
        {"{\"a\": \"\\x\"}", "unknown escape", 1, 0},
        {"{\"a\": \"\\ud800\"}", "without its low half", 1, 0},
        {"{\"a\": 1} x", "after the end of the document", 1, 0},
        {"{\"a\": 1e999}", "too large", 1, 0},
        {"// c\n{}", "expected a value", 1, 0},
        {"{\"a\": \"\xff\"}", "not UTF-8", 1, 0},
        {"{\n\"a\": [1,\n2", "ends inside an array (opened at line 2)", 3, 1},
        {"{\"a\": tru", "ends inside 'true'", 1, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = json_parse("t.json", bad[i].text, strlen(bad[i].text), &e);
        char want[32];
        snprintf(want, sizeof want, "t.json:%d:", bad[i].line);
        CHECK(!d && strstr(e.msg, bad[i].why) && !strncmp(e.msg, want, strlen(want)) && e.at_end == bad[i].at_end,
              "JSON refuses %s at line %d (%s)", bad[i].why, bad[i].line, e.msg);
        json_free(d);
    }
    d = json_parse("t.json", "{\"a\":\0}", 7, &e);
    CHECK(!d && strstr(e.msg, "NUL"), "JSON refuses a NUL byte (%s)", e.msg);
}

/* Bad files: each refused with its name and, where there is one, its line. */
static void test_bad_input(void) {
    static const struct {
        const char *name, *text, *want;
    } bad[] = {
        {"notjson.json", "hello\n", "notjson.json:1: expected a value"},
        {"malformed.json",
         "{\"tune_params\": {\"a\": [1, 2]},\n\"cache\": {\n\"1\": {\"a\": 1, \"time\": 1.0},\n\"2\": {\"a\": 2 "
         "\"time\": 2.0}\n}}",
         "malformed.json:4: expected ',' or '}'"},
        {"noparams.json", "{\"device_name\": \"x\", \"cache\": {}}",
         "noparams.json: a Kernel Tuner cache without "
         "tune_params"},
        {"novalues.json",
         "{\"tune_params_keys\": [\"a\", \"b\"],\n\"tune_params\": {\"a\": [1],\n\"b\": []}, "
         "\"cache\": {}}",
         "novalues.json:3: parameter b has no values"},
        {"twice.json", "{\"tune_params\": {\"a\": [1,\n1]}, \"cache\": {}}", "twice.json:2: parameter a lists 1 twice"},
        {"badkey.json",
         "{\"tune_params\": {\"a\": [1, 2], \"b\": [\"x\", \"y\"]}, \"cache\": {\n\"1,x\": {\"a\": 1, \"b\": \"x\", "
         "\"time\": 1},\n\"2,x\": {\"a\": 2, \"b\": \"y\", \"time\": 2}}}",
         "badkey.json:3: the key \"2,x\" does not match the entry's values (2,y)"},
        {"outside.json", "{\"tune_params\": {\"a\": [1, 2]}, \"cache\": {\n\"3\": {\"a\": 3,\n\"time\": 1}}}",
         "outside.json:2: the entry \"3\": a=3 is not among tune_params' values"},
        {"nokey.json",
         "{\"tune_params\": {\"a\": [1], \"b\": [true]}, \"cache\": {\n\"1,True\": {\"a\": 1, \"time\": "
         "1}}}",
         "nokey.json:2: the entry \"1,True\" has no b"},
        {"notime.json", "{\"tune_params\": {\"a\": [1]}, \"cache\": {\n\"1\": {\"a\": 1}}}",
         "notime.json:2: the entry \"1\" has no time"},
        {"allfail.json",
         "{\"tune_params\": {\"a\": [1, 2]}, \"cache\": {\"1\": {\"a\": 1, \"time\": \"InvalidConfig\"}, \"2\": "
         "{\"a\": 2, \"time\": \"RuntimeFailedConfig\"}}}",
         "allfail.json: none of its 2 configurations succeeded"},
        {"neither.json", "{\"x\": 1}", "neither.json: JSON, but neither a Kernel Tuner cache"},
        {"array.json", "[1, 2]", "array.json:1: JSON, but an array"},
        {"notime.csv", "# a comment\nx,y,speed\n1,2,3\n", "notime.csv:2: no time column"},
        {"unit.csv", "x,time_min\n1,2\n", "unit.csv:1: the time column \"time_min\" is in a unit not known"},
        {"fields.csv", "x,time_ms\n1,2\n3\n", "fields.csv:3: 1 fields; the header (line 1) has 2"},
        {"again.csv", "x,time_ms\n1,2\n2,3\n1,4\n", "again.csv:4: this configuration is recorded already, at line 2"},
        {"quote.csv", "x,time_ms\n\"1,2\n", "quote.csv:2: a quoted field is never closed"},
        {"nonpos.csv", "x,time_ms\n1,0\n", "nonpos.csv:2: time 0 is not a duration"},
        {"empty.csv", "", "empty.csv: empty"},
        {"knobs.csv", "variant,time_s\n\"v{a=1,b=2}\",1\n\"v{a=2,a=1}\",2\n", "knobs.csv:3: knob a is named twice"},
        {"unit.json",
         "{\"results\": [\n{\"configuration\": {\"a\": 1}, \"invalidity\": \"correct\", \"measurements\": "
         "[{\"name\": \"time\", \"value\": 1, \"unit\": \"min\"}]}]}",
         "unit.json:2: the unit of this time is \"min\""},
        {"params.json",
         "{\"results\": [\n{\"configuration\": {\"a\": 1}, \"measurements\": [{\"name\": \"time\", \"value\": 1, "
         "\"unit\": \"s\"}]},\n{\"configuration\": {\"b\": 1}, \"measurements\": []}]}",
         "params.json:3: this configuration has no a, which the first (line 2) has"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct landscape l;
        const int rc = parse(bad[i].name, bad[i].text, &l);
        CHECK(rc < 0 && strstr(err, bad[i].want), "%s is refused: %s (%s)", bad[i].name, bad[i].want, err);
        if (!rc) landscape_free(&l);
    }
    struct landscape l;
    char path[4096];
    snprintf(path, sizeof path, "%s/missing.json", tmpdir);
    CHECK(landscape_load(path, NULL, &l, err, sizeof err) < 0 && strstr(err, "missing.json: No such file"),
          "a missing file is named (%s)", err);
    CHECK(landscape_load(tmpdir, NULL, &l, err, sizeof err) < 0 && strstr(err, "a directory"),
          "a directory is not a landscape (%s)", err);
}

/* The tuner's limits refuse, never cut: one more parameter or value than
 * tune.h allows is an error naming both numbers; more points than the
 * test loaders' 4096 is nothing special. */
static void test_limits(void) {
    struct strbuf b = {0};
    for (int k = 0; k <= TUNE_MAX_PARAMS; k++) sb_printf(&b, "p%d,", k);
    sb_printf(&b, "time_s\n");
    for (int row = 0; row < 2; row++) {
        for (int k = 0; k <= TUNE_MAX_PARAMS; k++) sb_printf(&b, "%d,", k ? 0 : row);
        sb_printf(&b, "1\n");
    }
    struct landscape l;
    struct tune_space sp;
    char want[128];
    int rc = parse("wide.csv", b.s, &l);
    snprintf(want, sizeof want, "%d parameters; the tuner takes at most %d", TUNE_MAX_PARAMS + 1, TUNE_MAX_PARAMS);
    CHECK(rc == 0 && l.nparams == TUNE_MAX_PARAMS + 1 && landscape_space(&l, &sp, err, sizeof err) < 0 &&
              strstr(err, want),
          "%d parameters load, and the space is refused (%s)", TUNE_MAX_PARAMS + 1, err);
    if (!rc) landscape_free(&l);
    sb_free(&b);
    b = (struct strbuf){0};
    sb_printf(&b, "v,time_s\n");
    for (int i = 0; i <= TUNE_MAX_LEVELS; i++) sb_printf(&b, "%d,%d\n", i, i + 1);
    rc = parse("levels.csv", b.s, &l);
    snprintf(want, sizeof want, "parameter v has %d values; the tuner takes at most %d", TUNE_MAX_LEVELS + 1,
             TUNE_MAX_LEVELS);
    CHECK(rc == 0 && l.n == TUNE_MAX_LEVELS + 1 && landscape_space(&l, &sp, err, sizeof err) < 0 && strstr(err, want),
          "a parameter of %d values loads whole, and the space is refused (%s)", TUNE_MAX_LEVELS + 1, err);
    if (!rc) landscape_free(&l);
    sb_free(&b);
    b = (struct strbuf){0};
    sb_printf(&b, "a,b,c,median_us\n");
    for (int i = 0; i < 5000; i++) sb_printf(&b, "%d,%d,%d,%d\n", i % 50, (i / 50) % 50, i / 2500, 1000 + i);
    rc = parse("big.csv", b.s, &l);
    CHECK(rc == 0 && l.n == 5000 && near(l.seconds[l.optimum], 1e-3) && l.optimum == 0,
          "5000 points load, none dropped, microseconds read as such (%d)", rc ? -1 : l.n);
    if (!rc) check_search("big.csv", &l), landscape_free(&l);
    sb_free(&b);
}

static void test_replay_file(void) {
    char path[4096];
    struct replay_budget bu;
    CHECK(!tune_budget_parse("10%", &bu) && bu.percent == 10 && !bu.count && !tune_budget_parse("7", &bu) &&
              bu.count == 7 && tune_budget_parse("0%", &bu) && tune_budget_parse("101%", &bu) &&
              tune_budget_parse("0", &bu) && tune_budget_parse("%", &bu) && tune_budget_parse("5x", &bu),
          "--budget: a count or a percentage in (0, 100], nothing else");
    struct replay_file_opts o = {.path = data("kt/cache-complete.json", path, sizeof path),
                                 .strategy = "random",
                                 .seed = 3,
                                 .budget = {.percent = 10}};
    struct replay_file_run run, again;
    int rc = tune_replay_file(&o, &run, err, sizeof err);
    CHECK(rc == EXIT_OK && run.budget == 7 && run.r.evaluations == 7, "10%% of 64 points is 7 evaluations (%d, %d)",
          run.budget, run.r.evaluations);
    const int r2 = tune_replay_file(&o, &again, err, sizeof err);
    CHECK(rc == EXIT_OK && r2 == EXIT_OK && run.r.best == again.r.best && run.r.best_s == again.r.best_s,
          "one seed, one answer");
    tune_replay_file_free(&run);
    tune_replay_file_free(&again);
    o.strategy = "forest", o.budget = (struct replay_budget){.count = 64};
    rc = tune_replay_file(&o, &run, err, sizeof err);
    CHECK(rc == EXIT_OK && run.r.best == run.l.optimum, "a budget of the whole space finds the optimum");
    tune_replay_file_free(&run);
    o.budget.count = 65;
    rc = tune_replay_file(&o, &run, err, sizeof err);
    CHECK(rc == EXIT_USAGE && strstr(err, "--budget 65 is more than the space's 64 points"),
          "a budget larger than the space is refused with its size (%s)", err);
    tune_replay_file_free(&run);
    o.strategy = "bayes";
    rc = tune_replay_file(&o, &run, err, sizeof err);
    CHECK(rc == EXIT_USAGE && strstr(err, "unknown --strategy bayes"), "an unknown strategy is refused (%s)", err);
    tune_replay_file_free(&run);
    /* One point of four succeeds: a budget of 1 that draws a failure has
     * found nothing, which is said (exit 1), not hidden. */
    char file[4096];
    write_file_in(tmpdir, "one.csv", "x,time_s\n1,\n2,\n3,0.5\n4,\n", file, sizeof file);
    o = (struct replay_file_opts){.path = file, .strategy = "random", .budget = {.count = 1}};
    int nothing = 0, found = 0;
    for (unsigned seed = 1; seed <= 40; seed++) {
        o.seed = seed;
        rc = tune_replay_file(&o, &run, err, sizeof err);
        nothing += rc == EXIT_FOUND && run.r.evaluations == 1 && strstr(err, "none of the 1 configurations");
        found += rc == EXIT_OK && run.r.best_s == 0.5;
        tune_replay_file_free(&run);
    }
    CHECK(nothing && found && nothing + found == 40,
          "a failed point costs its evaluation: %d of 40 seeds found nothing, %d the one success", nothing, found);
}

int main(void) {
    set_root();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_caches();
    test_cut_off();
    test_gzip_corrupt();
    test_t4_export();
    test_csv();
    test_json();
    test_bad_input();
    test_limits();
    test_replay_file();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tmpdir);
    CHECK_DONE();
}
