/* rs_jagged_copy_run (russet/jagged.h) without torch: rows of every word
 * width (element sizes 1 to 16 bytes, rows whose bytes take 1- to 16-byte
 * words) to a padded tensor and back, with empty items and an item cut at
 * L; the device errors for an item longer than L and for a final offset
 * other than the rows; bad arguments. The reference is the same rule on
 * the host's bytes. */
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "russet/jagged.h"

enum { B = 4 };

static rs_jagged_copy desc(rs_jagged_direction dir, uint64_t va, uint64_t pa, uint64_t oa, rs_dtype dt,
                           int64_t total, int64_t L, int64_t inner) {
    rs_jagged_copy c;
    memset(&c, 0, sizeof c);
    c.direction = dir;
    int64_t vs[2] = {total, inner}, ps[3] = {B, L, inner}, os[1] = {B + 1};
    c.values = ctest_view(va, dt, 2, vs);
    c.padded = ctest_view(pa, dt, 3, ps);
    c.offsets = ctest_view(oa, RS_INT64, 1, os);
    return c;
}

/* items of lengths 3, 0, 5, 1 (total 9) into L = 4 (the third cut) and
 * back from a padded tensor whose items fit */
static void round_trip(rs_dtype dt, int64_t inner) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t len[B] = {3, 0, 5, 1}, L = 4, total = 9;
    int64_t off[B + 1] = {0};
    for (int b = 0; b < B; ++b) off[b + 1] = off[b] + len[b];
    const size_t es = rs_dtype_size(dt), row = es * (size_t)inner;
    const size_t vbytes = row * (size_t)total, pbytes = row * (size_t)(B * L);
    uint8_t *vh = malloc(vbytes), *ph = malloc(pbytes), *got = malloc(pbytes > vbytes ? pbytes : vbytes);
    for (size_t i = 0; i < vbytes; ++i) vh[i] = (uint8_t)(i * 29u + 7u);
    memset(ph, 0xA5, pbytes); /* the padding, which TO_PADDED leaves */
    uint64_t va = ctest_upload(dev, s, vh, vbytes), pa = ctest_upload(dev, s, ph, pbytes);
    uint64_t oa = ctest_upload(dev, s, off, sizeof off);
    rs_jagged_copy c = desc(RS_JAGGED_TO_PADDED, va, pa, oa, dt, total, L, inner);
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK_OK(rs_memcpy_dtoh(s, got, pa, pbytes));
    for (int b = 0; b < B; ++b)
        for (int64_t p = 0; p < L; ++p) {
            const uint8_t *g = got + row * (size_t)(b * L + p);
            if (p < len[b]) CHECK(memcmp(g, vh + row * (size_t)(off[b] + p), row) == 0);
            else
                for (size_t k = 0; k < row; ++k) CHECK(g[k] == 0xA5);
        }
    /* back, with the third item 4 long (total 8): every row from its place */
    const int64_t len2[B] = {3, 0, 4, 1}, total2 = 8;
    int64_t off2[B + 1] = {0};
    for (int b = 0; b < B; ++b) off2[b + 1] = off2[b] + len2[b];
    for (size_t i = 0; i < pbytes; ++i) ph[i] = (uint8_t)(i * 13u + 3u);
    CHECK_OK(rs_memcpy_htod(s, pa, ph, pbytes));
    CHECK_OK(rs_memcpy_htod(s, oa, off2, sizeof off2));
    c = desc(RS_JAGGED_FROM_PADDED, va, pa, oa, dt, total2, L, inner);
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK_OK(rs_memcpy_dtoh(s, got, va, row * (size_t)total2));
    CHECK_OK(rs_stream_synchronize(s));
    for (int b = 0; b < B; ++b)
        for (int64_t p = 0; p < len2[b]; ++p)
            CHECK(memcmp(got + row * (size_t)(off2[b] + p), ph + row * (size_t)(b * L + p), row) == 0);
    free(vh), free(ph), free(got);
    rs_free(dev, va), rs_free(dev, pa), rs_free(dev, oa);
}

TEST(rows_of_every_word_width_go_and_come_back) {
    const rs_dtype dts[] = {RS_UINT8, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
    const int64_t inners[] = {1, 3, 4, 2, 5};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
        for (size_t i = 0; i < sizeof inners / sizeof inners[0]; ++i) {
            int before = ctest_failed_checks;
            round_trip(dts[d], inners[i]);
            if (ctest_failed_checks != before) {
                fprintf(stderr, "  %s inner %lld\n", rs_dtype_name(dts[d]), (long long)inners[i]);
                return;
            }
        }
}

/* from padded: an item longer than L, then a final offset past the rows */
TEST(device_errors_as_cpu_raises) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t L = 2;
    int64_t off[B + 1] = {0, 1, 4, 4, 5}; /* item 1 is 3 long */
    float vh[5] = {0}, ph[B * 2] = {0};
    uint64_t va = ctest_upload(dev, s, vh, sizeof vh), pa = ctest_upload(dev, s, ph, sizeof ph);
    uint64_t oa = ctest_upload(dev, s, off, sizeof off);
    rs_jagged_copy c = desc(RS_JAGGED_FROM_PADDED, va, pa, oa, RS_FLOAT32, 5, L, 1);
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "found batch item of length 3"));
    int64_t off2[B + 1] = {0, 1, 2, 3, 4}; /* 4 rows of 5 */
    CHECK_OK(rs_memcpy_htod(s, oa, off2, sizeof off2));
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "final offset should match"));
    /* no rows at all, and a final offset of 4 */
    c.values.sizes[0] = 0;
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "offset is 4"));
    /* and the same to padded raises nothing (a longer item is cut) */
    CHECK_OK(rs_memcpy_htod(s, oa, off, sizeof off));
    c = desc(RS_JAGGED_TO_PADDED, va, pa, oa, RS_FLOAT32, 5, L, 1);
    CHECK_OK(rs_jagged_copy_run(s, &c));
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, va), rs_free(dev, pa), rs_free(dev, oa);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_jagged_copy c = desc(RS_JAGGED_TO_PADDED, 256, 512, 1024, RS_FLOAT32, 5, 2, 3);
    c.padded.dtype = RS_FLOAT16;
    CHECK(rs_jagged_copy_run(s, &c) == RS_ERR_INVALID && strstr(rs_last_error(), "values are float32"));
    c = desc(RS_JAGGED_TO_PADDED, 256, 512, 1024, RS_FLOAT32, 5, 2, 3);
    c.offsets.sizes[0] = 3;
    CHECK(rs_jagged_copy_run(s, &c) == RS_ERR_INVALID && strstr(rs_last_error(), "padded has 4 items"));
    c = desc(RS_JAGGED_TO_PADDED, 256, 512, 1024, RS_FLOAT32, 5, 2, 3);
    c.padded.sizes[2] = 4;
    CHECK(rs_jagged_copy_run(s, &c) == RS_ERR_INVALID && strstr(rs_last_error(), "differ in dim 1"));
    c = desc(RS_JAGGED_TO_PADDED, 256, 512, 1024, RS_FLOAT32, 5, 2, 3);
    c.values.strides[0] = 6;
    CHECK(rs_jagged_copy_run(s, &c) == RS_ERR_INVALID && strstr(rs_last_error(), "contiguous"));
    c.direction = (rs_jagged_direction)7;
    CHECK(rs_jagged_copy_run(s, &c) == RS_ERR_INVALID && strstr(rs_last_error(), "unknown direction"));
    CHECK(rs_jagged_copy_run(s, NULL) == RS_ERR_INVALID);
}

int main(void) {
    RUN(rows_of_every_word_width_go_and_come_back);
    RUN(device_errors_as_cpu_raises);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
