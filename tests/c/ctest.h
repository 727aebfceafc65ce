/* A tiny test harness for the C core's tests: no dependencies.
 * Each test file defines tests with TEST(name) and lists them in main()
 * through RUN(name). The runner prints "N passed, N failed". */
#ifndef RS_CTEST_H
#define RS_CTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "russet/russet.h"

static int ctest_failed_checks;
static int ctest_passed, ctest_failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            ctest_failed_checks++;                                                   \
            return;                                                                  \
        }                                                                            \
    } while (0)

/* Checks an rs_status call and prints rs_last_error() on failure. */
#define CHECK_OK(call)                                                               \
    do {                                                                             \
        rs_status st_ = (call);                                                      \
        if (st_ != RS_OK) {                                                          \
            fprintf(stderr, "  %s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,    \
                    rs_status_name(st_), rs_last_error());                           \
            ctest_failed_checks++;                                                   \
            return;                                                                  \
        }                                                                            \
    } while (0)

#define TEST(name) static void name(void)

#define RUN(name)                                                                    \
    do {                                                                             \
        int before_ = ctest_failed_checks;                                           \
        name();                                                                      \
        if (ctest_failed_checks == before_) {                                        \
            ctest_passed++;                                                          \
            printf("PASS %s\n", #name);                                              \
        } else {                                                                     \
            ctest_failed++;                                                          \
            printf("FAIL %s\n", #name);                                              \
        }                                                                            \
        fflush(stdout);                                                              \
    } while (0)

#define CTEST_END()                                                                  \
    do {                                                                             \
        rs_shutdown();                                                               \
        printf("%d passed, %d failed\n", ctest_passed, ctest_failed);                \
        return ctest_failed ? 1 : 0;                                                 \
    } while (0)

/* The first device, or skip the whole file when there is none. */
static rs_device *ctest_device(void) {
    rs_device *dev = NULL;
    if (rs_device_count() == 0 || rs_device_get(0, &dev) != RS_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", rs_last_error());
        exit(1);
    }
    return dev;
}

#endif
