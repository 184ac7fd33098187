/* Report definitions (harness/report/report_def.c): the shipped LBM definition
 * parses into the report's 17 tables with its numbers; each kind of mistake
 * is refused with the file and the line it is on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/report_def.h"
#include "test_files.h"

static char dir[] = "/tmp/test_report_def-XXXXXX";

static char def_path[512];

/* Parses text as a definition; returns the error ("" when it parsed). */
static const char *parse_text(const char *text, struct report_def *d) {
    static char err[1024];
    write_file_in(dir, "t.def", text, def_path, sizeof def_path);
    err[0] = 0;
    if (report_def_parse(def_path, d, err, sizeof err) == 0) err[0] = 0;
    return err;
}

static int refused_at(const char *text, int line, const char *what) {
    static struct report_def d;
    const char *err = parse_text(text, &d);
    int ok = names_line(err, def_path, line) && strstr(err, what);
    if (!ok) printf("# got \"%s\"\n", err);
    return ok;
}

int main(void) {
    set_root();
    if (!mkdtemp(dir)) return 1;
    static struct report_def d;
    char path[4096], err[1024] = "";
    snprintf(path, sizeof path, "%s/kernels/lbm/report.def", getenv("HARNESS_ROOT"));
    CHECK(report_def_parse(path, &d, err, sizeof err) == 0, "the LBM definition parses (%s)", err);
    CHECK(d.ntables == 17, "it has 17 tables: %d", d.ntables);
    int numbered = 1;
    for (int i = 0; i < d.ntables; i++) numbered &= d.tables[i].number == i + 1;
    CHECK(numbered, "numbered 1 to 17 in order");
    CHECK(d.ninputs == 3 && !strcmp(d.inputs[2], "1024x1024") && d.nquick == 2, "3 inputs, 2 of them quick");
    const struct report_table *t7 = &d.tables[6], *t10 = &d.tables[9], *t13 = &d.tables[12];
    CHECK(t7->kind == RK_STEP && t7->nrows == 2 && !strcmp(t7->rows[1].variant, "t07-device-struct") &&
              !strcmp(t7->rows[1].from, "t05-soa") && t7->rows[1].published[1] == 2.505,
          "Table 7 compares the 3D buffer and the device struct, each over t05-soa, with 2.505 s at 256x256");
    CHECK(isnan(t10->rows[1].published[2]), "Table 10's missing 1024x1024 number reads as none");
    CHECK(t13->kind == RK_CLASSES && t13->nclasses == 3 && !strcmp(t13->classes[0], "opencl/gpu") && t13->nrows == 3 &&
              t13->rows[2].published[2] == 20.744,
          "Table 13 runs final on three device classes beside the report's three columns");
    CHECK(d.tables[16].kind == RK_SPEEDUP && d.tables[16].rows[0].published[2] == 426.1, "Table 17 is a speedup table");
    const struct report_table *t16 = &d.tables[15];
    CHECK(t16->kind == RK_HOSTLANG && t16->nrows == 3 && !strcmp(t16->rows[1].label, "Python") &&
              !strcmp(t16->rows[1].variant, "final-python") && !t16->rows[0].variant[0] && !t16->rows[2].variant[0],
          "Table 16 measures its Python column by final-python; C is the table's own run, Haskell only probed");
    CHECK(d.nshapes >= 16 && d.shapes[0][0] == 16 && d.shapes[0][1] == 1, "the work-group figure's shapes");

    const struct report_table *t15 = &d.tables[14];
    CHECK(t15->kind == RK_OPENACC && t15->nprograms == 4 && !strcmp(t15->programs[0], "a01-given") &&
              !strcmp(t15->programs[1], "a06-async") && !strcmp(t15->programs[2], "a07-globals") &&
              !strcmp(t15->programs[3], "a09-globals-strips") && t15->nrows == 1,
          "Table 15 runs a01-given, a06-async, a07-globals and a09-globals-strips on the directive devices beside the "
          "report's OpenACC column");

    CHECK(strstr(d.figures_note, "Figure 2 of the report is a diagram") != NULL,
          "the LBM definition says its Figure 2 has nothing to measure (figures-note)");
    {
        static struct report_def other;
        const char *e = parse_text("app b\ninputs x\ntable 1 step \"t\"\nrow v - 1\n", &other);
        CHECK(!e[0] && !other.figures_note[0], "a definition without figures-note has none (%s)", e);
    }

    const char *head = "app a\ninputs x y\n";
    char text[1024];
    snprintf(text, sizeof text, "%stable 15 openacc \"t\"\nrun a b c d e\n", head);
    CHECK(refused_at(text, 4, "one to four directive variants"), "an openacc table runs at most four programs");
    snprintf(text, sizeof text, "%stable 15 openacc \"t\"\nrun a\nrun b\n", head);
    CHECK(refused_at(text, 5, "already has its `run` line"), "an openacc table has one run line");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - 1.0\n", head);
    CHECK(refused_at(text, 4, "1 numbers given, one per input wanted"), "a row with too few numbers");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - 1.0 -2\n", head);
    CHECK(refused_at(text, 4, "`-2` is not a positive number"), "a negative number");
    snprintf(text, sizeof text, "%stable 1 sideways \"t\"\n", head);
    CHECK(refused_at(text, 3, "unknown table kind `sideways`"), "an unknown table kind");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - 1 2\ntable 1 step \"u\"\n", head);
    CHECK(refused_at(text, 5, "table 1 again (first on line 3)"), "a repeated table number");
    snprintf(text, sizeof text, "%srow v - 1 2\n", head);
    CHECK(refused_at(text, 3, "outside a table"), "a row before any table");
    snprintf(text, sizeof text, "%stable 1 classes \"t\"\nrun final on opencl/tpu\n", head);
    CHECK(refused_at(text, 4, "the device kind is gpu, cpu or accelerator"), "an unknown device class");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\npublished \"x\" 1 2\n", head);
    CHECK(refused_at(text, 4, "`published` columns belong to"), "published numbers in a step table");
    snprintf(text, sizeof text, "%stable 1 devices \"t\"\nrun final\npending \"x\" \"y\" 1 2\n", head);
    CHECK(refused_at(text, 5, "`pending` rows belong to step tables"), "a pending row in a devices table");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\npending \"x\" \"y\" 1\n", head);
    CHECK(refused_at(text, 4, "1 numbers given"), "a pending row with too few numbers");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - 1 2\npending \"hybrid\" \"no core\" 9.264 -\n", head);
    CHECK(!parse_text(text, &d)[0] && d.tables[0].nrows == 2 && !d.tables[0].rows[1].variant[0] &&
              !strcmp(d.tables[0].rows[1].label, "hybrid") && !strcmp(d.tables[0].rows[1].why, "no core") &&
              d.tables[0].rows[1].published[0] == 9.264 && isnan(d.tables[0].rows[1].published[1]),
          "a step table's pending row: its label, reason and numbers, no variant");
    snprintf(path, sizeof path, "%s/kernels/sandpile/report.def", getenv("HARNESS_ROOT"));
    CHECK(report_def_parse(path, &d, err, sizeof err) == 0 && d.ntables >= 1 && !strcmp(d.app, "sandpile"),
          "the sandpile definition parses (%s)", err);
    snprintf(text, sizeof text, "%stable 2 devices \"t\"\npublished \"x\" 1 2\n", head);
    CHECK(refused_at(text, 3, "table 2 (devices) has no `run` line"), "a devices table that runs nothing");
    snprintf(text, sizeof text, "%stable 16 hostlang \"t\"\nrun final\nhost \"Python\" final-python\n", head);
    CHECK(refused_at(text, 5, "no `published \"Python\"` column before it"), "a host line without its column");
    snprintf(text, sizeof text,
             "%stable 16 hostlang \"t\"\nrun final\npublished \"Python\" 1 2\nhost \"Python\" a\n"
             "host \"Python\" b\n",
             head);
    CHECK(refused_at(text, 7, "host `Python` again: it runs a"), "a second host line for one column");
    snprintf(text, sizeof text, "%stable 13 devices \"t\"\nrun final\npublished \"Python\" 1 2\nhost \"Python\" a\n",
             head);
    CHECK(refused_at(text, 6, "`host` belongs to hostlang tables"), "a host line in a devices table");
    snprintf(text, sizeof text, "%stable 16 hostlang \"t\"\nrun final\npublished \"Python\" 1 2\nhost \"Python\"\n",
             head);
    CHECK(refused_at(text, 6, "usage: host"), "a host line without its variant");
    snprintf(text, sizeof text, "%stable 1 step \"unterminated\n", head);
    CHECK(refused_at(text, 3, "unterminated \""), "an unterminated title");
    snprintf(text, sizeof text, "app a\nquick x\ninputs x\n");
    CHECK(refused_at(text, 2, "`quick` names inputs of `inputs`, which comes first"), "quick before inputs");
    /* Found by fuzz/fuzz_report_def.c: each `quick` line added up, past
     * the four inputs' room (an overflow into the fields after it); and
     * strtod's inf was a positive number. */
    snprintf(text, sizeof text, "%squick x y\nquick x y\nquick x\n", head);
    CHECK(refused_at(text, 4, "`quick` again"), "a second quick line");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - inf 1\n", head);
    CHECK(refused_at(text, 4, "`inf` is not a positive number"), "an infinite number");
    snprintf(text, sizeof text, "%stable 1 step \"t\"\nrow v - 1e999 1\n", head);
    CHECK(refused_at(text, 4, "`1e999` is not a positive number"), "a number past double's range");
    snprintf(text, sizeof text, "%stable 1 classes \"t\"\nrun final on openclopenclopenclopenclopenclopencl/gpu\n",
             head);
    CHECK(refused_at(text, 4, "class `openclopencl"),
          "a class longer than 31 characters (its '/' was written past the copy)");
    CHECK(refused_at("app a\ntable 1 step \"t\"\nrow v -\ninputs x\n", 3, "numbers before `inputs`"),
          "a row before inputs (its numbers were zeros, not none)");
    snprintf(text, sizeof text, "%swg -1x1\n", head);
    CHECK(refused_at(text, 3, "not a work-group shape"), "a negative shape (read as 4294967295x1 before)");
    snprintf(text, sizeof text, "%swg 32by1\n", head);
    CHECK(refused_at(text, 3, "not a work-group shape"), "a malformed shape");
    snprintf(text, sizeof text, "inputs x\n");
    CHECK(refused_at(text, 1, "no `app` line"), "no app");
    CHECK(!parse_text("app a  # comment\ninputs x y\ntable 3 speedup \"s # not a comment\"\nrow a b 2 -\n", &d)[0] &&
              !strcmp(d.tables[0].title, "s # not a comment") && d.tables[0].rows[0].published[0] == 2,
          "comments end lines, except inside quotes");
    /* Issue 38: the rate column, the resources table, OpenACC against a GPU's variant, the ladder figure. */
    snprintf(path, sizeof path, "%s/kernels/dg/report.def", getenv("HARNESS_ROOT"));
    CHECK(report_def_parse(path, &d, err, sizeof err) == 0, "the DG definition parses (%s)", err);
    CHECK(d.rate_factor == 1e6 && !strcmp(d.rate_label, "P") && !strcmp(d.rate_unit, "cell updates/s"),
          "DG's rate is P in cell updates/s, the MLUPS column x 1e6");
    {
        const char *steps[REPORT_MAX_LADDER];
        const int n = report_ladder_steps(&d, steps);
        CHECK(d.ladder_figure && !d.nladder && n == 8 && !strcmp(steps[0], "s0-adapted") &&
                  !strcmp(steps[4], "s3-rolled") && !strcmp(steps[6], "o6-fused") && !strcmp(steps[7], "o7-tiled"),
              "DG's ladder figure runs the step tables' 8 rows in order (%d)", n);
    }
    const struct report_table *t8 = NULL, *t9 = NULL;
    for (int i = 0; i < d.ntables; i++) {
        if (d.tables[i].number == 8) t8 = &d.tables[i];
        if (d.tables[i].number == 9) t9 = &d.tables[i];
    }
    CHECK(t8 && t8->kind == RK_OPENACC && !strcmp(t8->against, "final"), "DG's Table 8 sets the directives against final");
    CHECK(t9 && t9->kind == RK_RESOURCES && t9->nprograms == 8 && !strcmp(t9->programs[6], "o6-fused") &&
              !strcmp(t9->programs[7], "o7-tiled"),
          "DG's Table 9 lists the resources of the 8 ladder variants");
    snprintf(path, sizeof path, "%s/kernels/lbm/report.def", getenv("HARNESS_ROOT"));
    CHECK(report_def_parse(path, &d, err, sizeof err) == 0 && d.rate_factor == 0 && !d.ladder_figure &&
              !d.tables[14].against[0],
          "LBM's definition has no rate, no ladder figure and no against: its report is unchanged");
    CHECK(!parse_text("app a\ninputs x\nrate P \"cell updates/s\" 1e6\nladder-figure b a\n", &d)[0] &&
              d.nladder == 2 && !strcmp(d.ladder[0], "b"),
          "a ladder figure may name its steps");
    {
        const char *steps[REPORT_MAX_LADDER];
        CHECK(report_ladder_steps(&d, steps) == 2 && !strcmp(steps[1], "a"), "named steps are the ladder, in order");
    }
    CHECK(!parse_text("app a\ninputs x\ntable 1 step \"t\"\nrow a - 1\npending \"p\" \"w\" 1\n"
                      "table 2 step \"u\"\nrow b a 1\nrow a b 1\nladder-figure\n",
                      &d)[0],
          "a definition with a repeated and a pending row parses");
    {
        const char *steps[REPORT_MAX_LADDER];
        CHECK(report_ladder_steps(&d, steps) == 2 && !strcmp(steps[0], "a") && !strcmp(steps[1], "b"),
              "the step tables' ladder skips pending rows and repeats");
    }
    snprintf(text, sizeof text, "%srate P \"u\" 0\n", head);
    CHECK(refused_at(text, 3, "rate factor `0` is not a positive number"), "a zero rate factor");
    snprintf(text, sizeof text, "%srate P \"u\" lots\n", head);
    CHECK(refused_at(text, 3, "rate factor `lots`"), "a rate factor that is no number");
    snprintf(text, sizeof text, "%srate P 1e6\n", head);
    CHECK(refused_at(text, 3, "usage: rate LABEL \"UNIT\" FACTOR"), "a rate without its unit");
    snprintf(text, sizeof text, "%srate P \"u\" 1\nrate Q \"v\" 2\n", head);
    CHECK(refused_at(text, 4, "`rate` again"), "a second rate");
    snprintf(text, sizeof text, "%srate PPPPPPPPPPPPPPPPPPPP \"u\" 1\n", head);
    CHECK(refused_at(text, 3, "rate label `PPPP"), "a rate label longer than its room");
    snprintf(text, sizeof text, "%sladder-figure\nladder-figure\n", head);
    CHECK(refused_at(text, 4, "`ladder-figure` again"), "a second ladder figure");
    snprintf(text, sizeof text, "%sladder-figure a b c d e f g h i j k l m n o p q\n", head);
    CHECK(refused_at(text, 3, "more than 16 ladder steps"), "a ladder of more steps than its room");
    snprintf(text, sizeof text, "%stable 9 resources \"r\"\n", head);
    CHECK(refused_at(text, 3, "table 9 (resources) has no `run` line"), "a resources table that lists nothing");
    snprintf(text, sizeof text, "%stable 9 resources \"r\"\nrun a b c d e f g h i\n", head);
    CHECK(refused_at(text, 4, "one to eight variants"), "a resources table of more than eight variants");
    snprintf(text, sizeof text, "%stable 9 resources \"r\"\nrow a - 1 2\n", head);
    CHECK(refused_at(text, 4, "`row` belongs to step and speedup tables; table 9 is resources"),
          "a row in a resources table");
    snprintf(text, sizeof text, "%stable 9 resources \"r\"\nrun a b c d e f g h\n", head);
    CHECK(!parse_text(text, &d)[0] && d.tables[0].kind == RK_RESOURCES && d.tables[0].nprograms == 8,
          "a resources table of eight variants");
    snprintf(text, sizeof text, "%stable 8 openacc \"t\"\nrun a\nagainst final\nagainst other\n", head);
    CHECK(refused_at(text, 6, "table 8 is already against final"), "a second against line");
    snprintf(text, sizeof text, "%stable 7 devices \"t\"\nrun final\nagainst final\n", head);
    CHECK(refused_at(text, 5, "`against` belongs to openacc tables; table 7 is devices"), "against on a devices table");
    snprintf(text, sizeof text, "%sagainst final\n", head);
    CHECK(refused_at(text, 3, "outside a table"), "against before any table");
    snprintf(text, sizeof text, "%stable 8 openacc \"t\"\nagainst\n", head);
    CHECK(refused_at(text, 4, "usage: against VARIANT"), "against without its variant");

    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) return 1;
    CHECK_DONE();
}
