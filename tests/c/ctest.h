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

/* Stream 0 of a device. */
static inline rs_stream *ctest_stream(rs_device *dev) {
    rs_stream *s = NULL;
    rs_stream_get(dev, 0, &s);
    return s;
}

/* A contiguous view of `ndim` sizes at addr. */
static inline rs_tensor ctest_view(uint64_t addr, rs_dtype dt, int ndim, const int64_t *sizes) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = addr;
    t.dtype = dt;
    t.ndim = ndim;
    int64_t st = 1;
    for (int d = ndim - 1; d >= 0; --d) {
        t.sizes[d] = sizes[d];
        t.strides[d] = st;
        st *= sizes[d];
    }
    return t;
}

/* A new device buffer holding a copy of `bytes` host bytes (at least one
 * byte is allocated); 0 when the allocation fails. */
static inline uint64_t ctest_upload(rs_device *dev, rs_stream *s, const void *host, size_t bytes) {
    uint64_t a = 0;
    if (rs_alloc(dev, bytes ? bytes : 1, s, &a) != RS_OK) return 0;
    if (bytes) rs_memcpy_htod(s, a, host, bytes);
    return a;
}

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
