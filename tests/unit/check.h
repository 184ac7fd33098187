/* A minimal test vocabulary: each check prints "ok - name" or
 * "not ok - name"; tests/run_all.sh counts the lines. A test program exits
 * non-zero when any of its checks failed. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H
#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        int ok_ = !!(cond);                                                                                            \
        printf("%s - ", ok_ ? "ok" : "not ok");                                                                        \
        printf(__VA_ARGS__);                                                                                           \
        if (!ok_) printf("   [%s:%d: %s]", __FILE__, __LINE__, #cond);                                                 \
        printf("\n");                                                                                                  \
        fflush(stdout);                                                                                                \
        check_failures += !ok_;                                                                                        \
    } while (0)

#define CHECK_DONE() return check_failures ? 1 : 0
#endif
