/* rs_triangle (russet/tensor.h) without torch: tril and triu of every
 * element size, diagonal offsets past both ends, a batch read through a
 * transposed view and written in place; the Hermitian completion of each
 * triangle (complex: conjugated mirror, real diagonal); bad arguments. The
 * reference is the same rule on the host's bytes. */
#include <stdint.h>
#include <string.h>

#include "ctest.h"

enum { P = 3, R = 5, C = 7 };

/* the bytes of element (p, i, j) of a row-major (P, rows, cols) batch */
static uint8_t *elem(uint8_t *base, size_t es, int64_t p, int64_t i, int64_t j, int64_t rows, int64_t cols) {
    return base + (size_t)((p * rows + i) * cols + j) * es;
}

/* tril/triu of a (P, R, C) batch of dt for diagonal d, from src read
 * through its transpose when `transposed` (the buffer then holds (P, C, R)) */
static void triangle_case(rs_dtype dt, int lower, int64_t d, int transposed) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const size_t es = rs_dtype_size(dt), bytes = (size_t)(P * R * C) * es;
    uint8_t *host = malloc(bytes), *got = malloc(bytes);
    for (size_t i = 0; i < bytes; ++i) host[i] = (uint8_t)(i * 37u + 11u) | 1u; /* no zero elements */
    int64_t sz[3] = {P, R, C}, tsz[3] = {P, C, R};
    uint64_t ds = ctest_upload(dev, s, host, bytes), dd;
    CHECK_OK(rs_alloc(dev, bytes, s, &dd));
    rs_tensor src = ctest_view(ds, dt, 3, transposed ? tsz : sz), dst = ctest_view(dd, dt, 3, sz);
    if (transposed) {
        int64_t v = src.sizes[1];
        src.sizes[1] = src.sizes[2], src.sizes[2] = v;
        v = src.strides[1];
        src.strides[1] = src.strides[2], src.strides[2] = v;
    }
    CHECK_OK(rs_triangle(s, &src, lower, d, 0, &dst));
    CHECK_OK(rs_memcpy_dtoh(s, got, dd, bytes));
    for (int64_t p = 0; p < P; ++p)
        for (int64_t i = 0; i < R; ++i)
            for (int64_t j = 0; j < C; ++j) {
                const int keep = lower ? j - i <= d : j - i >= d;
                const uint8_t *want = transposed ? elem(host, es, p, j, i, C, R) : elem(host, es, p, i, j, R, C);
                const uint8_t *g = elem(got, es, p, i, j, R, C);
                for (size_t b = 0; b < es; ++b) CHECK(g[b] == (keep ? want[b] : 0));
            }
    /* in place on a contiguous batch */
    rs_tensor self = ctest_view(ds, dt, 3, sz);
    CHECK_OK(rs_memcpy_htod(s, ds, host, bytes));
    CHECK_OK(rs_triangle(s, &self, lower, d, 0, &self));
    CHECK_OK(rs_memcpy_dtoh(s, got, ds, bytes));
    for (int64_t p = 0; p < P; ++p)
        for (int64_t i = 0; i < R; ++i)
            for (int64_t j = 0; j < C; ++j) {
                const int keep = lower ? j - i <= d : j - i >= d;
                const uint8_t *want = elem(host, es, p, i, j, R, C), *g = elem(got, es, p, i, j, R, C);
                for (size_t b = 0; b < es; ++b) CHECK(g[b] == (keep ? want[b] : 0));
            }
    free(host), free(got);
    rs_free(dev, ds), rs_free(dev, dd);
}

TEST(tril_and_triu_of_every_element_size) {
    const rs_dtype dts[] = {RS_UINT8, RS_FLOAT16, RS_FLOAT32, RS_INT64, RS_FLOAT64, RS_COMPLEX128, RS_BOOL};
    const int64_t diagonals[] = {0, 1, -2, 9, -9};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k)
        for (size_t d = 0; d < sizeof diagonals / sizeof diagonals[0]; ++d)
            for (int lower = 0; lower < 2; ++lower) {
                int before = ctest_failed_checks;
                triangle_case(dts[k], lower, diagonals[d], (int)(d + k) % 2);
                if (ctest_failed_checks != before) {
                    fprintf(stderr, "  %s lower %d diagonal %lld\n", rs_dtype_name(dts[k]), lower, (long long)diagonals[d]);
                    return;
                }
            }
}

/* the Hermitian matrix of one triangle: complex64 (conjugate = the
 * imaginary part's sign flipped, the diagonal's imaginary part cleared)
 * and float32 (a symmetric copy) */
TEST(hermitian_completion) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 6 };
    float a[P * N * N * 2], got[P * N * N * 2];
    for (int i = 0; i < P * N * N * 2; ++i) a[i] = (float)(i % 13) - 6.5f;
    int64_t sz[3] = {P, N, N};
    uint64_t da = ctest_upload(dev, s, a, sizeof a), dd;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &dd));
    for (int complex_ = 0; complex_ < 2; ++complex_)
        for (int lower = 0; lower < 2; ++lower) {
            const rs_dtype dt = complex_ ? RS_COMPLEX64 : RS_FLOAT32;
            const int w = complex_ ? 2 : 1;
            rs_tensor src = ctest_view(da, dt, 3, sz), dst = ctest_view(dd, dt, 3, sz);
            CHECK_OK(rs_triangle(s, &src, lower, 0, 1, &dst));
            CHECK_OK(rs_memcpy_dtoh(s, got, dd, sizeof a));
            for (int p = 0; p < P; ++p)
                for (int i = 0; i < N; ++i)
                    for (int j = 0; j < N; ++j) {
                        const int keep = lower ? j <= i : j >= i;
                        const float *from = &a[((p * N + (keep ? i : j)) * N + (keep ? j : i)) * w];
                        const float *g = &got[((p * N + i) * N + j) * w];
                        CHECK(g[0] == from[0]);
                        if (complex_) CHECK(g[1] == (i == j ? 0.0f : keep ? from[1] : -from[1]));
                    }
        }
    rs_free(dev, da), rs_free(dev, dd);
}

TEST(empty_and_bad_arguments) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int64_t empty[3] = {2, 0, 3}, sq[3] = {2, 3, 3}, wide[3] = {2, 3, 4}, one = 4;
    rs_tensor e = ctest_view(0, RS_FLOAT32, 3, empty);
    CHECK_OK(rs_triangle(s, &e, 1, 0, 0, &e)); /* nothing to do */
    rs_tensor a = ctest_view(64, RS_FLOAT32, 3, sq), w = ctest_view(64, RS_FLOAT32, 3, wide);
    rs_tensor v = ctest_view(64, RS_FLOAT32, 1, &one), h = a;
    h.dtype = RS_FLOAT16;
    CHECK(rs_triangle(s, &a, 1, 0, 0, &w) == RS_ERR_INVALID);
    CHECK(rs_triangle(s, &v, 1, 0, 0, &v) == RS_ERR_INVALID && strstr(rs_last_error(), "2 dims"));
    CHECK(rs_triangle(s, &a, 1, 0, 0, &h) == RS_ERR_INVALID && strstr(rs_last_error(), "bits"));
    CHECK(rs_triangle(s, &w, 1, 0, 1, &w) == RS_ERR_INVALID && strstr(rs_last_error(), "Hermitian"));
    CHECK(rs_triangle(s, &a, 1, 1, 1, &a) == RS_ERR_INVALID);
    CHECK(rs_triangle(NULL, &a, 1, 0, 0, &a) == RS_ERR_INVALID);
}

int main(void) {
    RUN(tril_and_triu_of_every_element_size);
    RUN(hermitian_completion);
    RUN(empty_and_bad_arguments);
    CTEST_END();
}
