/* The reduction engine without torch: sums, argmax and variance over inner,
 * outer and all dims (one pass and the two-pass chunked path), checked
 * against values computed here; determinism; bad descriptions. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static rs_tensor mat(uint64_t addr, rs_dtype dt, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
    rs_tensor t;
    memset(&t, 0, sizeof t);
    t.address = addr;
    t.dtype = dt;
    t.ndim = 2;
    t.sizes[0] = rows;
    t.sizes[1] = cols;
    t.strides[0] = rs;
    t.strides[1] = cs;
    return t;
}

TEST(int32_sums_rows_columns_and_all) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { R = 37, C = 300 };
    static int32_t a[R * C];
    for (int i = 0; i < R * C; i++) a[i] = (i * 7919) % 1000 - 500;
    int64_t rows[R], cols[C], all = 0;
    uint64_t da, dr, dc, dall;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof rows, s, &dr));
    CHECK_OK(rs_alloc(dev, sizeof cols, s, &dc));
    CHECK_OK(rs_alloc(dev, 8, s, &dall));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = "sum";
    r.op = RS_REDUCE_SUM;
    r.acc = RS_INT64;
    r.in = mat(da, RS_INT32, R, C, C, 1);
    r.out = mat(dr, RS_INT64, R, 1, 1, 0); /* over the inner dim */
    CHECK_OK(rs_reduce_run(s, &r));
    r.out = mat(dc, RS_INT64, 1, C, 0, 1); /* over the outer dim */
    CHECK_OK(rs_reduce_run(s, &r));
    r.out = mat(dall, RS_INT64, 1, 1, 0, 0);
    CHECK_OK(rs_reduce_run(s, &r));
    CHECK_OK(rs_memcpy_dtoh(s, rows, dr, sizeof rows));
    CHECK_OK(rs_memcpy_dtoh(s, cols, dc, sizeof cols));
    CHECK_OK(rs_memcpy_dtoh(s, &all, dall, 8));
    int64_t total = 0;
    for (int i = 0; i < R; i++) {
        int64_t t = 0;
        for (int j = 0; j < C; j++) t += a[i * C + j];
        CHECK(rows[i] == t);
        total += t;
    }
    for (int j = 0; j < C; j++) {
        int64_t t = 0;
        for (int i = 0; i < R; i++) t += a[i * C + j];
        CHECK(cols[j] == t);
    }
    CHECK(all == total);
    rs_free(dev, da);
    rs_free(dev, dr);
    rs_free(dev, dc);
    rs_free(dev, dall);
}

TEST(float_sum_of_many_is_chunked_and_deterministic) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 1 << 20 };
    static float a[N];
    double ref = 0;
    for (int i = 0; i < N; i++) {
        a[i] = (float)((i % 97) - 48) * 0.25f;
        ref += a[i];
    }
    uint64_t da, dout;
    CHECK_OK(rs_alloc(dev, N * sizeof(float), s, &da));
    CHECK_OK(rs_alloc(dev, 8, s, &dout));
    CHECK_OK(rs_memcpy_htod(s, da, a, N * sizeof(float)));
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = "sum";
    r.op = RS_REDUCE_SUM;
    r.acc = RS_FLOAT32;
    r.in = mat(da, RS_FLOAT32, 1, N, N, 1);
    r.out = mat(dout, RS_FLOAT32, 1, 1, 0, 0);
    float got[2];
    for (int k = 0; k < 2; k++) {
        CHECK_OK(rs_reduce_run(s, &r));
        CHECK_OK(rs_memcpy_dtoh(s, &got[k], dout, 4));
    }
    /* every partial sum is a multiple of 0.25 below 2^24: exact */
    CHECK(got[0] == (float)ref);
    CHECK(memcmp(&got[0], &got[1], 4) == 0);
    rs_free(dev, da);
    rs_free(dev, dout);
}

TEST(argmax_first_index_nan_and_values) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* 3 rows of 5, reduced over the rows (dim 0, strided) */
    float a[15] = {1, 5, 2, NAN, 0,
                   3, 5, 2, 1, -1,
                   3, 4, NAN, 7, -1};
    float vals[5];
    int64_t idx[5];
    uint64_t da, dv, di;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof vals, s, &dv));
    CHECK_OK(rs_alloc(dev, sizeof idx, s, &di));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = "max";
    r.op = RS_REDUCE_ARGMAX;
    r.acc = RS_FLOAT32;
    r.in = mat(da, RS_FLOAT32, 3, 5, 5, 1);
    r.out = mat(dv, RS_FLOAT32, 1, 5, 0, 1);
    r.out2 = mat(di, RS_INT64, 1, 5, 0, 1);
    CHECK_OK(rs_reduce_run(s, &r));
    CHECK_OK(rs_memcpy_dtoh(s, vals, dv, sizeof vals));
    CHECK_OK(rs_memcpy_dtoh(s, idx, di, sizeof idx));
    int64_t want_i[5] = {1, 0, 2, 0, 0};
    float want_v[5] = {3, 5, NAN, NAN, 0};
    for (int j = 0; j < 5; j++) {
        CHECK(idx[j] == want_i[j]);
        CHECK(isnan(want_v[j]) ? isnan(vals[j]) : vals[j] == want_v[j]);
    }
    rs_free(dev, da);
    rs_free(dev, dv);
    rs_free(dev, di);
}

TEST(variance_with_correction_and_mean) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 5000 };
    static float a[N];
    double m = 0, m2 = 0;
    for (int i = 0; i < N; i++) a[i] = (float)sin(i * 0.37) * 3.0f + 10.0f;
    for (int i = 0; i < N; i++) m += a[i];
    m /= N;
    for (int i = 0; i < N; i++) m2 += (a[i] - m) * (a[i] - m);
    uint64_t da, dv, dm;
    CHECK_OK(rs_alloc(dev, sizeof a, s, &da));
    CHECK_OK(rs_alloc(dev, 4, s, &dv));
    CHECK_OK(rs_alloc(dev, 4, s, &dm));
    CHECK_OK(rs_memcpy_htod(s, da, a, sizeof a));
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = "var";
    r.op = RS_REDUCE_VAR;
    r.acc = RS_FLOAT32;
    r.correction = 1.0;
    r.in = mat(da, RS_FLOAT32, 1, N, N, 1);
    r.out = mat(dv, RS_FLOAT32, 1, 1, 0, 0);
    r.out2 = mat(dm, RS_FLOAT32, 1, 1, 0, 0);
    CHECK_OK(rs_reduce_run(s, &r));
    float v, mean;
    CHECK_OK(rs_memcpy_dtoh(s, &v, dv, 4));
    CHECK_OK(rs_memcpy_dtoh(s, &mean, dm, 4));
    CHECK(fabs(v - m2 / (N - 1)) <= 1e-5 * m2 / (N - 1));
    CHECK(fabs(mean - m) <= 1e-6 * fabs(m));
    rs_free(dev, da);
    rs_free(dev, dv);
    rs_free(dev, dm);
}

TEST(bad_descriptions_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t d;
    CHECK_OK(rs_alloc(dev, 64, s, &d));
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = "sum";
    r.op = RS_REDUCE_SUM;
    r.acc = RS_FLOAT32;
    r.in = mat(d, RS_FLOAT32, 2, 4, 4, 1);
    r.out = mat(d, RS_FLOAT32, 3, 1, 1, 0);
    CHECK(rs_reduce_run(s, &r) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "size 3 at dim 0") != NULL);
    r.out = mat(d, RS_FLOAT32, 2, 1, 1, 0);
    r.op = RS_REDUCE_MAX;
    r.acc = RS_COMPLEX64;
    r.in.dtype = RS_COMPLEX64;
    CHECK(rs_reduce_run(s, &r) == RS_ERR_INVALID);
    r.op = RS_REDUCE_SUM;
    r.acc = RS_FLOAT64;
    r.in.dtype = RS_FLOAT64;
    rs_status st = rs_reduce_run(s, &r);
    if (!rs_device_features(dev)->has_fp64) CHECK(st == RS_ERR_UNSUPPORTED);
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, d);
}

int main(void) {
    RUN(int32_sums_rows_columns_and_all);
    RUN(float_sum_of_many_is_chunked_and_deterministic);
    RUN(argmax_first_index_nan_and_values);
    RUN(variance_with_correction_and_mean);
    RUN(bad_descriptions_fail_clearly);
    CTEST_END();
}
