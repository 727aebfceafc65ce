/* Kernel timing (russet/profiler.h, src/vk/profile.c) without torch:
 * records of timed dispatches with their names, correlation ids, stream
 * and host-clock times inside the window that recorded them; none while
 * off; more dispatches than one batch holds; partial takes; bad arguments. */
#include <string.h>
#include <time.h>

#include "ctest.h"
#include "russet/profiler.h"

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* n fills of a 1024-float buffer on s */
static void fills(rs_stream *s, uint64_t buf, int n) {
    int64_t size = 1024;
    rs_tensor t = ctest_view(buf, RS_FLOAT32, 1, &size);
    float v = 1.5f;
    for (int i = 0; i < n; ++i) CHECK_OK(rs_fill(s, &t, &v));
}

TEST(records_name_correlation_stream_and_time) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t buf;
    CHECK_OK(rs_alloc(dev, 4096, s, &buf));
    CHECK_OK(rs_stream_synchronize(s));
    const int64_t before = now_ns();
    CHECK_OK(rs_profiler_start(dev));
    CHECK(rs_profiler_active(dev) == 1);
    CHECK_OK(rs_profiler_start(dev)); /* idempotent */
    rs_profiler_set_correlation(42);
    fills(s, buf, 3);
    rs_profiler_set_correlation(0);
    fills(s, buf, 1);
    CHECK_OK(rs_profiler_stop(dev));
    const int64_t after = now_ns();
    CHECK(rs_profiler_active(dev) == 0);
    rs_kernel_record rec[8];
    size_t n = rs_profiler_take(dev, rec, 8);
    CHECK(n == 4);
    /* the calibration's error is half a submit-and-wait round trip: allow 50 ms */
    const int64_t slack = 50 * 1000 * 1000;
    for (size_t i = 0; i < n; ++i) {
        CHECK(strlen(rec[i].name) > 0);
        CHECK(rec[i].end_ns >= rec[i].start_ns);
        CHECK(rec[i].start_ns > before - slack && rec[i].end_ns < after + slack);
        CHECK(rec[i].correlation == (i < 3 ? 42u : 0u));
        CHECK(rec[i].stream == rs_stream_id(s));
        if (i) CHECK(rec[i].start_ns >= rec[i - 1].start_ns); /* one stream: in order */
    }
    CHECK(rs_profiler_take(dev, rec, 8) == 0); /* taken */
    /* off: nothing is recorded */
    fills(s, buf, 2);
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(rs_profiler_take(dev, rec, 8) == 0);
    rs_free(dev, buf);
}

TEST(more_than_a_batch_and_partial_takes) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t buf;
    CHECK_OK(rs_alloc(dev, 4096, s, &buf));
    CHECK_OK(rs_profiler_start(dev));
    fills(s, buf, 600); /* a batch holds 256 dispatches */
    CHECK_OK(rs_profiler_stop(dev));
    rs_kernel_record rec[256];
    size_t total = 0, n;
    while ((n = rs_profiler_take(dev, rec, 100)) > 0) {
        CHECK(n <= 100);
        total += n;
    }
    CHECK(total == 600);
    /* a new start drops what was not taken */
    CHECK_OK(rs_profiler_start(dev));
    fills(s, buf, 5);
    CHECK_OK(rs_profiler_stop(dev));
    CHECK_OK(rs_profiler_start(dev));
    CHECK_OK(rs_profiler_stop(dev));
    CHECK(rs_profiler_take(dev, rec, 256) == 0);
    rs_free(dev, buf);
}

TEST(bad_arguments) {
    rs_kernel_record rec[1];
    CHECK(rs_profiler_start(NULL) == RS_ERR_INVALID);
    CHECK(rs_profiler_stop(NULL) == RS_ERR_INVALID);
    CHECK(rs_profiler_take(NULL, rec, 1) == 0);
    rs_device *dev = ctest_device();
    CHECK(rs_profiler_take(dev, NULL, 1) == 0);
    CHECK_OK(rs_profiler_stop(dev)); /* not started: nothing to stop */
}

int main(void) {
    RUN(records_name_correlation_stream_and_time);
    RUN(more_than_a_batch_and_partial_takes);
    RUN(bad_arguments);
    CTEST_END();
}
