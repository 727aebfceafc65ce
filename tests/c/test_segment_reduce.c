/* The segment-reduction engine (russet/segment_reduce.h) without torch,
 * against host loops written from the contract (CPU's SegmentReduce.cpp
 * loops): every op, forward and backward, lengths (int64, int32, strided)
 * and offsets (a first offset past 0, an offset past the data), with and
 * without an initial value, an empty segment, NaN, zeros and ties in the
 * data, strided data; float32 and float16 (each step rounded), compared
 * bit for bit. A negative length raises at the sync; bad arguments fail
 * clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { OUTER = 2, L = 7, INNER = 3, S = 4 };

/* row 0: [0, 2) [2, 2) [2, 5) [5, 7); row 1: [0, 3) [3, 4) [4, 4) [4, 7) */
static const int64_t LENS[OUTER][S] = {{2, 0, 3, 2}, {3, 1, 0, 3}};
/* offsets: row 0 starts at 1 and its last segment runs past L (9); row 1 as its lengths */
static const int64_t OFFS[OUTER][S + 1] = {{1, 2, 2, 5, 9}, {0, 3, 4, 4, 7}};

typedef float (*round_fn)(float);
static float same(float x) { return x; }
static float half(float x) { return rs_f16_to_f32(rs_f16_from_f32(x)); }

static void bounds_of(int offsets, int o, int s, int64_t *a, int64_t *b) {
    if (offsets) {
        *a = OFFS[o][s], *b = OFFS[o][s + 1];
    } else {
        *a = 0;
        for (int k = 0; k < s; ++k) *a += LENS[o][k];
        *b = *a + LENS[o][s];
    }
}

static float start_value(rs_segment_op op, int has_init, float init, round_fn r) {
    if (has_init) return r(init);
    return op == RS_SEG_MAX ? -INFINITY : op == RS_SEG_MIN ? INFINITY : op == RS_SEG_PROD ? 1.0f : 0.0f;
}

/* x[o][j][i] in a plain array */
#define X(o, j, i) x[((o) * L + (j)) * INNER + (i)]

static void ref_forward(rs_segment_op op, int offsets, int has_init, float init, const float *x, round_fn r,
                        float *out) {
    for (int o = 0; o < OUTER; ++o)
        for (int s = 0; s < S; ++s)
            for (int i = 0; i < INNER; ++i) {
                int64_t a, b;
                bounds_of(offsets, o, s, &a, &b);
                float acc = start_value(op, has_init, init, r);
                for (int64_t j = a; j < b && j < L; ++j) {
                    const float v = X(o, j, i);
                    if (op == RS_SEG_SUM || op == RS_SEG_MEAN) acc = r(acc + v);
                    else if (op == RS_SEG_MAX) acc = isnan(v) ? v : (acc < v ? v : acc);
                    else if (op == RS_SEG_MIN) acc = isnan(v) ? v : (v < acc ? v : acc);
                    else acc = r(acc * v);
                }
                const int64_t len = b - a;
                if (op == RS_SEG_MEAN) {
                    if (len == 0 && !has_init) acc = NAN;
                    else if (len > 0 && !isnan(acc)) acc = r(acc / r((float)len));
                }
                out[(o * S + s) * INNER + i] = acc;
            }
}

static void ref_backward(rs_segment_op op, int offsets, int has_init, float init, const float *x, const float *g,
                         const float *y, round_fn r, float *gi) {
    memset(gi, 0, sizeof(float) * OUTER * L * INNER);
    for (int o = 0; o < OUTER; ++o)
        for (int s = 0; s < S; ++s)
            for (int i = 0; i < INNER; ++i) {
                int64_t a, b;
                bounds_of(offsets, o, s, &a, &b);
                const int64_t len = b - a;
                if (len == 0) continue;
                if (b > L) b = L;
                const float gv = g[(o * S + s) * INNER + i], yv = y[(o * S + s) * INNER + i];
                int64_t count = 0;
                for (int64_t j = a; j < b; ++j) count += isnan(X(o, j, i)) || X(o, j, i) == yv;
                for (int64_t j = a; j < b; ++j) {
                    const float xv = X(o, j, i);
                    float v;
                    if (op == RS_SEG_SUM) v = gv;
                    else if (op == RS_SEG_MEAN) v = r(gv / r((float)len));
                    else if (op == RS_SEG_MAX || op == RS_SEG_MIN)
                        v = isnan(xv) || xv == yv ? (count >= 2 && gv > 0 ? r(gv / r((float)count)) : gv) : 0.0f;
                    else if (isnan(xv) || xv == 0) {
                        float ex = start_value(op, has_init, init, r);
                        for (int64_t m = a; m < b; ++m)
                            if (m != j) ex = r(ex * X(o, m, i));
                        v = r(gv * ex);
                    } else {
                        v = r(r(gv * yv) / xv);
                    }
                    gi[(o * L + j) * INNER + i] = v;
                }
            }
}

static int bits_equal(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0; }

static void to_dev(const float *h, int n, rs_dtype dt, void *buf) {
    for (int k = 0; k < n; ++k)
        if (dt == RS_FLOAT16) ((uint16_t *)buf)[k] = rs_f16_from_f32(h[k]);
        else ((float *)buf)[k] = h[k];
}

static void from_dev(const void *buf, int n, rs_dtype dt, float *h) {
    for (int k = 0; k < n; ++k) h[k] = dt == RS_FLOAT16 ? rs_f16_to_f32(((const uint16_t *)buf)[k]) : ((const float *)buf)[k];
}

/* bounds: 0 lengths int64, 1 lengths int32, 2 lengths int64 strided, 3 offsets int64, 4 offsets int32 */
static void run(rs_segment_op op, rs_dtype dt, int bounds, int has_init) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const round_fn r = dt == RS_FLOAT16 ? half : same;
    const size_t es = dt == RS_FLOAT16 ? 2 : 4;
    const int offsets = bounds >= 3;
    const float init = 1.4f;
    /* data with ties, zeros and a NaN, rounded to the dtype; kept on the
     * device as (outer, inner, L) and described as (outer, L, inner) */
    float x[OUTER * L * INNER];
    for (int o = 0; o < OUTER; ++o)
        for (int j = 0; j < L; ++j)
            for (int i = 0; i < INNER; ++i) X(o, j, i) = r(0.3f * (float)((o * 5 + j * 3 + i * 7) % 9) - 1.1f);
    X(0, 2, 0) = X(0, 4, 0) = 2.5f; /* a tie for max in row 0's segment 2 */
    X(0, 3, 1) = 0.0f;               /* a zero for prod */
    X(1, 5, 2) = NAN;
    X(1, 0, 1) = X(1, 1, 1) = 0.0f;  /* two zeros in one segment */
    float xt[OUTER * INNER * L];
    for (int o = 0; o < OUTER; ++o)
        for (int j = 0; j < L; ++j)
            for (int i = 0; i < INNER; ++i) xt[(o * INNER + i) * L + j] = X(o, j, i);
    uint8_t buf[4 * OUTER * L * INNER];
    to_dev(xt, OUTER * L * INNER, dt, buf);
    uint64_t dx = ctest_upload(dev, s, buf, es * OUTER * L * INNER);
    /* the bounds: lengths strided take every other element of (outer, 2 S) */
    int64_t b64[OUTER * 2 * (S + 1)];
    int32_t b32[OUTER * (S + 1)];
    const int ncol = offsets ? S + 1 : S;
    for (int o = 0; o < OUTER; ++o)
        for (int k = 0; k < ncol; ++k) {
            const int64_t v = offsets ? OFFS[o][k] : LENS[o][k];
            b32[o * ncol + k] = (int32_t)v;
            if (bounds == 2) b64[o * 2 * ncol + 2 * k] = v, b64[o * 2 * ncol + 2 * k + 1] = -99;
            else b64[o * ncol + k] = v;
        }
    const int b32on = bounds == 1 || bounds == 4;
    uint64_t db = b32on ? ctest_upload(dev, s, b32, sizeof b32) : ctest_upload(dev, s, b64, sizeof b64);
    uint64_t dy, dg, dgi;
    CHECK_OK(rs_alloc(dev, es * OUTER * S * INNER, s, &dy));
    CHECK_OK(rs_alloc(dev, es * OUTER * L * INNER, s, &dgi));
    rs_segment_reduce p;
    memset(&p, 0, sizeof p);
    p.op = op;
    const int64_t dsz[3] = {OUTER, L, INNER}, bsz[2] = {OUTER, ncol}, ysz[3] = {OUTER, S, INNER};
    p.data = ctest_view(dx, dt, 3, dsz);
    p.data.strides[0] = L * INNER, p.data.strides[1] = 1, p.data.strides[2] = L;
    p.bounds = ctest_view(db, b32on ? RS_INT32 : RS_INT64, 2, bsz);
    if (bounds == 2) p.bounds.strides[0] = 2 * ncol, p.bounds.strides[1] = 2;
    p.offsets = offsets;
    p.has_initial = has_init;
    p.initial = init;
    p.out = ctest_view(dy, dt, 3, ysz);
    CHECK_OK(rs_segment_reduce_run(s, &p));
    float y[OUTER * S * INNER], want[OUTER * L * INNER];
    CHECK_OK(rs_memcpy_dtoh(s, buf, dy, es * OUTER * S * INNER));
    from_dev(buf, OUTER * S * INNER, dt, y);
    ref_forward(op, offsets, has_init, init, x, r, want);
    for (int k = 0; k < OUTER * S * INNER; ++k)
        if (!bits_equal(y[k], want[k])) {
            fprintf(stderr, "  forward op %d dt %d bounds %d init %d: [%d] %g, want %g\n", (int)op, (int)dt, bounds,
                        has_init, k, y[k], want[k]);
            CHECK(0);
            break;
        }
    /* the backward on the forward's own result */
    float g[OUTER * S * INNER], gi[OUTER * L * INNER];
    for (int k = 0; k < OUTER * S * INNER; ++k) g[k] = r(0.5f + 0.25f * (float)(k % 5) - 0.75f * (float)(k % 2));
    to_dev(g, OUTER * S * INNER, dt, buf);
    dg = ctest_upload(dev, s, buf, es * OUTER * S * INNER);
    p.grad = ctest_view(dg, dt, 3, ysz);
    p.output = p.out;
    p.out = ctest_view(dgi, dt, 3, dsz);
    CHECK_OK(rs_segment_reduce_backward_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, buf, dgi, es * OUTER * L * INNER));
    from_dev(buf, OUTER * L * INNER, dt, gi);
    ref_backward(op, offsets, has_init, init, x, g, y, r, want);
    for (int k = 0; k < OUTER * L * INNER; ++k)
        if (!bits_equal(gi[k], want[k])) {
            fprintf(stderr, "  backward op %d dt %d bounds %d init %d: [%d] %g, want %g\n", (int)op, (int)dt, bounds,
                    has_init, k, gi[k], want[k]);
            CHECK(0);
            break;
        }
    rs_free(dev, dx), rs_free(dev, db), rs_free(dev, dy), rs_free(dev, dg), rs_free(dev, dgi);
}

TEST(ops_against_the_contract) {
    const rs_dtype dts[2] = {RS_FLOAT32, RS_FLOAT16};
    for (int op = RS_SEG_SUM; op <= RS_SEG_PROD; ++op)
        for (int d = 0; d < 2; ++d)
            for (int b = 0; b < 5; ++b)
                for (int init = 0; init < 2; ++init) run((rs_segment_op)op, dts[d], b, init);
}

/* a negative length raises at the sync, CPU's message */
TEST(negative_length_raises) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const float x[4] = {1, 2, 3, 4};
    const int64_t lens[2] = {3, -1};
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), db = ctest_upload(dev, s, lens, sizeof lens), dy;
    CHECK_OK(rs_alloc(dev, 8, s, &dy));
    rs_segment_reduce p;
    memset(&p, 0, sizeof p);
    const int64_t dsz[3] = {1, 4, 1}, bsz[2] = {1, 2}, ysz[3] = {1, 2, 1};
    p.op = RS_SEG_SUM;
    p.data = ctest_view(dx, RS_FLOAT32, 3, dsz);
    p.bounds = ctest_view(db, RS_INT64, 2, bsz);
    p.out = ctest_view(dy, RS_FLOAT32, 3, ysz);
    CHECK_OK(rs_segment_reduce_run(s, &p));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "segment_length >= 0"));
    rs_free(dev, dx), rs_free(dev, db), rs_free(dev, dy);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_segment_reduce p;
    memset(&p, 0, sizeof p);
    const int64_t dsz[3] = {2, 5, 1}, bsz[2] = {2, 3}, ysz[3] = {2, 3, 1};
    p.data = ctest_view(0, RS_INT32, 3, dsz);
    p.bounds = ctest_view(0, RS_INT64, 2, bsz);
    p.out = ctest_view(0, RS_INT32, 3, ysz);
    CHECK(rs_segment_reduce_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "int32 data"));
    p.data.dtype = p.out.dtype = RS_FLOAT32;
    p.bounds.dtype = RS_FLOAT32;
    CHECK(rs_segment_reduce_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "int64 or int32"));
    p.bounds.dtype = RS_INT64;
    p.offsets = 1; /* 3 offsets: 2 segments, out has 3 */
    CHECK(rs_segment_reduce_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "out is not"));
    p.offsets = 0;
    p.op = (rs_segment_op)9;
    CHECK(rs_segment_reduce_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "bad op"));
    p.op = RS_SEG_SUM;
    p.grad = p.out, p.output = p.out; /* out must be data's shape */
    CHECK(rs_segment_reduce_backward_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "data's shape"));
}

int main(void) {
    RUN(ops_against_the_contract);
    RUN(negative_length_raises);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
