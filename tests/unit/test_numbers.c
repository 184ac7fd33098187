/* The one reading of numbers every option and file uses (parse_whole,
 * parse_real in util.c), work-group shapes (wg_parse) and --shard K/N
 * (cli_shard): what each accepts and refuses, the cases fuzz/fuzz_cli_numbers.c
 * found wrong in the old per-option readings among them. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "cli/cli.h"
#include "core/runner.h"

static int whole(const char *text, long lo, long hi, long want) {
    long v = -12345;
    return parse_whole(text, lo, hi, &v) == 0 && v == want;
}

static int whole_refused(const char *text, long lo, long hi) {
    long v = -12345;
    return parse_whole(text, lo, hi, &v) == -1 && v == -12345;
}

static int real_refused(const char *text) {
    double v = 0.25;
    return parse_real(text, -DBL_MAX, DBL_MAX, &v) == -1 && v == 0.25;
}

static int shape(const char *text, unsigned w, unsigned h) {
    unsigned wg[2] = {0, 0};
    return wg_parse(text, wg) == 0 && wg[0] == w && wg[1] == h;
}

static int shape_refused(const char *text) {
    unsigned wg[2] = {7, 7};
    return wg_parse(text, wg) == -1 && wg[0] == 7 && wg[1] == 7;
}

int main(void) {
    CHECK(whole("5", 1, 10, 5) && whole("+5", 1, 10, 5) && whole("-3", -5, 5, -3) && whole("007", 0, 10, 7),
          "parse_whole: decimal, with a sign or leading zeros");
    CHECK(whole("9223372036854775807", LONG_MIN, LONG_MAX, LONG_MAX) &&
              whole("-9223372036854775808", LONG_MIN, LONG_MAX, LONG_MIN),
          "parse_whole: long's whole range");
    /* --reps 4294967297 was (int) 1; --warmup "" was 0. */
    const char *bad_whole[] = {"", " 5", "5 ", "5x", "0x10", "1e3", "9223372036854775808", "4294967297", "--5"};
    for (size_t i = 0; i < sizeof bad_whole / sizeof bad_whole[0]; i++)
        CHECK(whole_refused(bad_whole[i], 0, INT_MAX), "parse_whole refuses '%s' and writes nothing", bad_whole[i]);
    CHECK(whole_refused("0", 1, 10) && whole_refused("11", 1, 10) && whole("10", 1, 10, 10),
          "parse_whole: the bounds are inclusive");

    double v = 0;
    CHECK(parse_real("0.05", 0, 1, &v) == 0 && v == 0.05 && parse_real("1e-3", 0, 1, &v) == 0 && v == 1e-3,
          "parse_real: decimals and exponents");
    /* --timeout nan was accepted (nan <= 0 is false) and never timed out. */
    const char *bad_real[] = {"", "nan", "NAN", "inf", "-inf", "1e999", " 1", "1 ", "1s", "0x"};
    for (size_t i = 0; i < sizeof bad_real / sizeof bad_real[0]; i++)
        CHECK(real_refused(bad_real[i]), "parse_real refuses '%s' and writes nothing", bad_real[i]);
    CHECK(parse_real("2", 0, 1, &v) == -1 && parse_real("1", 0, 1, &v) == 0 && v == 1,
          "parse_real: the bounds are inclusive");

    CHECK(shape("32x1", 32, 1) && shape(" 64x2 ", 64, 2) && shape("1048576x1", 1048576, 1) && shape("08x4", 8, 4),
          "wg_parse: WxH, space around it, up to 1048576 a side");
    /* -1x1 was read as 4294967295x1. */
    const char *bad_shapes[] = {"-1x1", "+32x1", "0x1", "32x0",   "32x 1", "32 x1",       "1048577x1",
                                "32",   "32x",   "x32", "32x1x1", "32X1",  "4294967328x1"};
    for (size_t i = 0; i < sizeof bad_shapes / sizeof bad_shapes[0]; i++)
        CHECK(shape_refused(bad_shapes[i]), "wg_parse refuses '%s' and writes nothing", bad_shapes[i]);

    int k = -1, n = -1;
    CHECK(cli_shard("0/4", &k, &n) == 0 && k == 0 && n == 4 && cli_shard("3/4", &k, &n) == 0 && k == 3,
          "cli_shard: K/N with 0 <= K < N");
    const char *bad_shards[] = {"4/4", "-1/4", "1/0", "1/", "/4", "1", "1/4/2", "4294967296/4294967297", "1/4 "};
    for (size_t i = 0; i < sizeof bad_shards / sizeof bad_shards[0]; i++) {
        k = n = -7;
        CHECK(cli_shard(bad_shards[i], &k, &n) == -1 && k == -7 && n == -7, "cli_shard refuses '%s'", bad_shards[i]);
    }
    CHECK_DONE();
}
