/* Index reductions in the C core (src/engine/scatter_reduce.c) against
 * sequential host references: the result must be bit-equal to reducing the
 * positions in increasing order, as CPU does. No torch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static rs_device *g_dev;
static rs_stream *g_s;

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* scatter_add along dim 1 of [R, N] with an index [R, K] full of duplicates:
 * bit-equal to the sequential float sum; include_self = 0 starts at +0 */
TEST(scatter_add_float32_bit_exact) {
    enum { R = 5, N = 7, K = 3000 };  /* K > a shared-memory block: the radix sort */
    float *self = malloc(sizeof(float) * R * N), *src = malloc(sizeof(float) * R * K),
          *out = malloc(sizeof(float) * R * N), *ref = malloc(sizeof(float) * R * N);
    int64_t *idx = malloc(sizeof(int64_t) * R * K);
    uint32_t seed = 3;
    for (int i = 0; i < R * N; ++i) self[i] = (float)((int)(lcg(&seed) >> 20) - 2048) / 7.0f;
    for (int i = 0; i < R * K; ++i) {
        src[i] = (float)((int)(lcg(&seed) >> 8) - (1 << 23)) / 3.0e5f;
        idx[i] = (int64_t)((lcg(&seed) >> 16) % N);
    }
    for (int incl = 0; incl < 2; ++incl) {
        uint64_t a = ctest_upload(g_dev, g_s, self, sizeof(float) * R * N), b = ctest_upload(g_dev, g_s, src, sizeof(float) * R * K),
                 c = ctest_upload(g_dev, g_s, idx, sizeof(int64_t) * R * K);
        CHECK(a && b && c);
        int64_t ss[2] = {R, N}, is[2] = {R, K};
        rs_index_reduce p;
        memset(&p, 0, sizeof p);
        p.name = "scatter_add";
        p.op = RS_IR_SUM;
        p.dim = 1;
        p.include_self = incl;
        p.self = ctest_view(a, RS_FLOAT32, 2, ss);
        p.src = ctest_view(b, RS_FLOAT32, 2, is);
        p.index = ctest_view(c, RS_INT64, 2, is);
        CHECK_OK(rs_index_reduce_run(g_s, &p));
        CHECK_OK(rs_memcpy_dtoh(g_s, out, a, sizeof(float) * R * N));
        for (int i = 0; i < R * N; ++i) ref[i] = self[i];
        for (int r = 0; r < R; ++r) {
            int touched[N] = {0};
            for (int k = 0; k < K; ++k) {
                float *t = &ref[r * N + idx[r * K + k]];
                if (!incl && !touched[idx[r * K + k]]) {
                    *t = 0.0f;
                    touched[idx[r * K + k]] = 1;
                }
                *t = *t + src[r * K + k];
            }
        }
        CHECK(memcmp(out, ref, sizeof(float) * R * N) == 0);
        rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    }
    free(self); free(src); free(out); free(ref); free(idx);
}

/* runs longer than a window of the segment pass (16384 sorted positions:
 * lavapipe ends a shader's loops after 65535 iterations): scatter_add along
 * dim 1 of [R, N], a run of 40000 and shorter ones, bit-equal to the
 * sequential sums; and a shared index (index_add) with a run of 70000 */
TEST(long_runs_cross_windows) {
    enum { R = 2, N = 3, K = 50000, KS = 90000 };
    float self[R * N], out[R * N], ref[R * N];
    float *src = malloc(sizeof(float) * (size_t)R * KS);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)R * KS);
    uint32_t seed = 5;
    for (int i = 0; i < R * N; ++i) self[i] = (float)i;
    for (int i = 0; i < R * KS; ++i) src[i] = (float)((int)(lcg(&seed) >> 20) - 2048) / 64.0f;
    for (int r = 0; r < R; ++r)
        for (int k = 0; k < K; ++k) idx[r * K + k] = k < 40000 ? r : (k % 3);
    uint64_t a = ctest_upload(g_dev, g_s, self, sizeof self), b = ctest_upload(g_dev, g_s, src, sizeof(float) * R * K),
             c = ctest_upload(g_dev, g_s, idx, sizeof(int64_t) * R * K);
    int64_t ss[2] = {R, N}, is[2] = {R, K};
    rs_index_reduce p;
    memset(&p, 0, sizeof p);
    p.name = "scatter_add";
    p.op = RS_IR_SUM;
    p.dim = 1;
    p.include_self = 1;
    p.self = ctest_view(a, RS_FLOAT32, 2, ss);
    p.src = ctest_view(b, RS_FLOAT32, 2, is);
    p.index = ctest_view(c, RS_INT64, 2, is);
    CHECK_OK(rs_index_reduce_run(g_s, &p));
    CHECK_OK(rs_memcpy_dtoh(g_s, out, a, sizeof out));
    memcpy(ref, self, sizeof ref);
    for (int r = 0; r < R; ++r)
        for (int k = 0; k < K; ++k) ref[r * N + idx[r * K + k]] += src[r * K + k];
    CHECK(memcmp(out, ref, sizeof out) == 0);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    /* shared index: [KS, 1] into [2, 1], target 0 for the first 70000 */
    for (int k = 0; k < KS; ++k) idx[k] = k < 70000 ? 0 : 1;
    float s2[2] = {0.5f, -0.5f}, o2[2], r2[2] = {0.5f, -0.5f};
    a = ctest_upload(g_dev, g_s, s2, sizeof s2);
    b = ctest_upload(g_dev, g_s, src, sizeof(float) * KS);
    c = ctest_upload(g_dev, g_s, idx, sizeof(int64_t) * KS);
    int64_t s2s[2] = {2, 1}, srs[2] = {KS, 1}, i2s[1] = {KS};
    memset(&p, 0, sizeof p);
    p.name = "index_add";
    p.op = RS_IR_SUM;
    p.dim = 0;
    p.shared_index = 1;
    p.include_self = 1;
    p.self = ctest_view(a, RS_FLOAT32, 2, s2s);
    p.src = ctest_view(b, RS_FLOAT32, 2, srs);
    p.index = ctest_view(c, RS_INT64, 1, i2s);
    CHECK_OK(rs_index_reduce_run(g_s, &p));
    CHECK_OK(rs_memcpy_dtoh(g_s, o2, a, sizeof o2));
    for (int k = 0; k < KS; ++k) r2[idx[k]] += src[k];
    CHECK(o2[0] == r2[0] && o2[1] == r2[1]);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    free(src); free(idx);
}

/* index_add (a shared 1-D int32 index) on [N, D] along dim 0, float16:
 * every addition rounds to float16, as CPU's; and with acc_opmath one
 * rounding at the end */
TEST(index_add_float16_rounding) {
    enum { V = 6, D = 5, K = 400 };
    uint16_t self[V * D], src[K * D], out[V * D];
    int32_t idx[K];
    uint32_t seed = 9;
    for (int i = 0; i < V * D; ++i) self[i] = rs_f16_from_f32((float)((int)(lcg(&seed) >> 24) - 128) / 16.0f);
    for (int i = 0; i < K * D; ++i) src[i] = rs_f16_from_f32((float)((int)(lcg(&seed) >> 22) - 512) / 64.0f);
    for (int k = 0; k < K; ++k) idx[k] = (int32_t)((lcg(&seed) >> 16) % V);
    for (int opm = 0; opm < 2; ++opm) {
        uint64_t a = ctest_upload(g_dev, g_s, self, sizeof self), b = ctest_upload(g_dev, g_s, src, sizeof src), c = ctest_upload(g_dev, g_s, idx, sizeof idx);
        int64_t ss[2] = {V, D}, rs[2] = {K, D}, is[1] = {K};
        rs_index_reduce p;
        memset(&p, 0, sizeof p);
        p.name = "index_add";
        p.op = RS_IR_SUM;
        p.dim = 0;
        p.shared_index = 1;
        p.include_self = 1;
        p.acc_opmath = opm;
        p.self = ctest_view(a, RS_FLOAT16, 2, ss);
        p.src = ctest_view(b, RS_FLOAT16, 2, rs);
        p.index = ctest_view(c, RS_INT32, 1, is);
        CHECK_OK(rs_index_reduce_run(g_s, &p));
        CHECK_OK(rs_memcpy_dtoh(g_s, out, a, sizeof out));
        for (int v = 0; v < V; ++v)
            for (int d = 0; d < D; ++d) {
                float acc = rs_f16_to_f32(self[v * D + d]);
                for (int k = 0; k < K; ++k)
                    if (idx[k] == v) {
                        acc = acc + rs_f16_to_f32(src[k * D + d]);
                        if (!opm) acc = rs_f16_to_f32(rs_f16_from_f32(acc));
                    }
                CHECK(out[v * D + d] == rs_f16_from_f32(acc));
            }
        rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    }
}

/* integer ops: sum wraps in int8, mean floors the wrapped sum, amax/amin
 * without self start from the dtype's limits, prod, copy keeps the last;
 * self of 4 elements (the direct pass) and of 600 (the sorted segments:
 * the elements past 4 stay as they are) */
static void int8_ops_n(int N);
TEST(int8_ops) {
    int8_ops_n(4);
    int8_ops_n(600);
}
static void int8_ops_n(int N) {
    enum { K = 9 };
    int8_t self[600] = {10, -20, 30, 100};
    for (int i = 4; i < N; ++i) self[i] = (int8_t)i;
    int8_t src[K] = {100, 100, -7, 5, 127, -128, 3, 50, -1};
    int64_t idx[K] = {3, 3, 0, 0, 1, 1, 0, 3, 1};
    struct { rs_index_reduce_op op; int incl; int8_t want[4]; } cases[] = {
        {RS_IR_SUM, 1, {(int8_t)(10 - 7 + 5 + 3), (int8_t)(-20 + 127 - 128 - 1), 30, (int8_t)(100 + 100 + 100 + 50)}},
        {RS_IR_MEAN, 1, {3, -6, 30, (int8_t)(94 / 4)}},  /* floor(11/4)=2? see below */
        {RS_IR_AMAX, 0, {5, 127, 30, 100}},
        {RS_IR_AMIN, 0, {-7, -128, 30, 50}},
        {RS_IR_PROD, 1, {(int8_t)(10 * -7 * 5 * 3), (int8_t)(-20 * 127 * -128 * -1), 30, (int8_t)(100 * 100 * 100 * 50)}},
        {RS_IR_COPY, 1, {3, -1, 30, 50}},
    };
    /* mean with self: slot 0: (10 - 7 + 5 + 3) = 11 over 4 -> 2; slot 1:
     * wrap(-20 + 127 - 128 - 1) = -22 over 4 -> floor(-5.5) = -6; slot 3:
     * wrap(350) = 94 over 4 -> 23 */
    cases[1].want[0] = 2;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        uint64_t a = ctest_upload(g_dev, g_s, self, (size_t)N), b = ctest_upload(g_dev, g_s, src, sizeof src), ci = ctest_upload(g_dev, g_s, idx, sizeof idx);
        int64_t ss[1] = {N}, is[1] = {K};
        rs_index_reduce p;
        memset(&p, 0, sizeof p);
        p.name = "scatter_reduce";
        p.op = cases[c].op;
        p.dim = 0;
        p.include_self = cases[c].incl;
        p.self = ctest_view(a, RS_INT8, 1, ss);
        p.src = ctest_view(b, RS_INT8, 1, is);
        p.index = ctest_view(ci, RS_INT64, 1, is);
        CHECK_OK(rs_index_reduce_run(g_s, &p));
        int8_t out[600];
        CHECK_OK(rs_memcpy_dtoh(g_s, out, a, (size_t)N));
        for (int i = 0; i < N; ++i) {
            int8_t want = i < 4 ? cases[c].want[i] : self[i];
            if (out[i] != want) fprintf(stderr, "  N %d op %d slot %d: %d, want %d\n", N, (int)cases[c].op, i, out[i], want);
            CHECK(out[i] == want);
        }
        rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, ci);
    }
}

/* float amax/amin: NaN from src wins, a NaN in self stays; embedding-style
 * skip and scale by count; an out-of-range index raises at the sync */
TEST(float_amax_skip_scale_and_errors) {
    float self[3] = {1.0f, NAN, -5.0f};
    float src[5] = {2.0f, NAN, 7.0f, 0.5f, -1.0f};
    int64_t idx[5] = {0, 0, 1, 2, 2};
    uint64_t a = ctest_upload(g_dev, g_s, self, sizeof self), b = ctest_upload(g_dev, g_s, src, sizeof src), c = ctest_upload(g_dev, g_s, idx, sizeof idx);
    int64_t ss[1] = {3}, is[1] = {5};
    rs_index_reduce p;
    memset(&p, 0, sizeof p);
    p.name = "scatter_reduce";
    p.op = RS_IR_AMAX;
    p.include_self = 1;
    p.self = ctest_view(a, RS_FLOAT32, 1, ss);
    p.src = ctest_view(b, RS_FLOAT32, 1, is);
    p.index = ctest_view(c, RS_INT64, 1, is);
    CHECK_OK(rs_index_reduce_run(g_s, &p));
    float out[3];
    CHECK_OK(rs_memcpy_dtoh(g_s, out, a, sizeof out));
    CHECK(isnan(out[0]) && isnan(out[1]) && out[2] == 0.5f);
    rs_free(g_dev, a);

    /* embedding backward: rows of [5, 2] into [3, 2], padding index 1 skipped, scaled by 1/count */
    float g[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, zeros[6] = {0}, w[6];
    int64_t ids[5] = {0, 1, 0, 2, 0};
    uint64_t ga = ctest_upload(g_dev, g_s, g, sizeof g), wa = ctest_upload(g_dev, g_s, zeros, sizeof zeros), ia = ctest_upload(g_dev, g_s, ids, sizeof ids);
    int64_t ws[2] = {3, 2}, gs[2] = {5, 2};
    memset(&p, 0, sizeof p);
    p.name = "embedding_backward";
    p.op = RS_IR_SUM;
    p.shared_index = 1;
    p.include_self = 1;
    p.has_skip = 1;
    p.skip_index = 1;
    p.scale_by_count = 1;
    p.self = ctest_view(wa, RS_FLOAT32, 2, ws);
    p.src = ctest_view(ga, RS_FLOAT32, 2, gs);
    p.index = ctest_view(ia, RS_INT64, 1, is);
    CHECK_OK(rs_index_reduce_run(g_s, &p));
    CHECK_OK(rs_memcpy_dtoh(g_s, w, wa, sizeof w));
    float third = 1.0f / 3.0f;
    CHECK(w[0] == ((0.0f + third * 1) + third * 5) + third * 9);
    CHECK(w[1] == ((0.0f + third * 2) + third * 6) + third * 10);
    CHECK(w[2] == 0.0f && w[3] == 0.0f);
    CHECK(w[4] == 7.0f && w[5] == 8.0f);

    /* out of range (and negative) indices */
    int64_t bad[5] = {0, 3, 0, -1, 0};
    CHECK_OK(rs_memcpy_htod(g_s, ia, bad, sizeof bad));
    CHECK_OK(rs_index_reduce_run(g_s, &p));
    CHECK(rs_stream_synchronize(g_s) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "out of bounds") != NULL);
    /* bad arguments */
    p.src.dtype = RS_INT32;
    CHECK(rs_index_reduce_run(g_s, &p) == RS_ERR_INVALID);
    p.src.dtype = RS_FLOAT32;
    p.op = RS_IR_AMAX;
    p.self.dtype = p.src.dtype = RS_COMPLEX64;
    CHECK(rs_index_reduce_run(g_s, &p) == RS_ERR_INVALID);
    p.self.dtype = p.src.dtype = RS_UINT32;
    CHECK(rs_index_reduce_run(g_s, &p) == RS_ERR_UNSUPPORTED);
    rs_free(g_dev, b); rs_free(g_dev, c); rs_free(g_dev, ga); rs_free(g_dev, wa); rs_free(g_dev, ia);
}

/* advanced indexing's linear index: two index tensors (an int64 one
 * broadcast along dim 0 with stride 0, an int32 one strided), negative
 * indices wrapped, out-of-range ones giving -1; with one tensor the bad
 * value itself */
TEST(index_linearize_wraps_and_marks) {
    enum { R = 3, C = 4 };
    const int64_t n0 = 5, n1 = 6;
    const int64_t i0[C] = {0, -1, 4, 5};                      /* broadcast over rows */
    const int32_t i1[R * 2 * C] = {0, 9, 1, 9, -6, 9, 2, 9,   /* every other element */
                                   3, 9, 5, 9, -1, 9, 0, 9,
                                   6, 9, -7, 9, 1, 9, 2, 9};
    uint64_t a = ctest_upload(g_dev, g_s, i0, sizeof i0), b = ctest_upload(g_dev, g_s, i1, sizeof i1), o;
    CHECK_OK(rs_alloc(g_dev, 8 * R * C, g_s, &o));
    const int64_t sz[2] = {R, C};
    rs_tensor idx[2];
    idx[0] = ctest_view(a, RS_INT64, 2, sz);
    idx[0].strides[0] = 0, idx[0].strides[1] = 1;
    idx[1] = ctest_view(b, RS_INT32, 2, sz);
    idx[1].strides[0] = 2 * C, idx[1].strides[1] = 2;
    rs_tensor out = ctest_view(o, RS_INT64, 2, sz);
    const int64_t sizes[2] = {n0, n1};
    CHECK_OK(rs_index_linearize(g_s, 2, idx, sizes, &out));
    int64_t got[R * C];
    CHECK_OK(rs_memcpy_dtoh(g_s, got, o, sizeof got));
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
            const int64_t x = i0[c], y = i1[r * 2 * C + 2 * c];
            const int ok = x >= -n0 && x < n0 && y >= -n1 && y < n1;
            const int64_t want = ok ? (x < 0 ? x + n0 : x) * n1 + (y < 0 ? y + n1 : y) : -1;
            if (got[r * C + c] != want) {
                fprintf(stderr, "  [%d, %d]: %lld, want %lld\n", r, c, (long long)got[r * C + c], (long long)want);
                CHECK(0);
            }
        }
    /* one tensor: an index out of range stays itself (the gather names it) */
    CHECK_OK(rs_index_linearize(g_s, 1, &idx[0], sizes, &out));
    CHECK_OK(rs_memcpy_dtoh(g_s, got, o, sizeof got));
    for (int r = 0; r < R; ++r) {
        CHECK(got[r * C + 0] == 0 && got[r * C + 1] == 4 && got[r * C + 2] == 4 && got[r * C + 3] == 5);
    }
    /* bad arguments */
    idx[1].dtype = RS_FLOAT32;
    CHECK(rs_index_linearize(g_s, 2, idx, sizes, &out) == RS_ERR_INVALID && strstr(rs_last_error(), "int64 or int32"));
    idx[1].dtype = RS_INT32;
    idx[1].sizes[0] = 2;
    CHECK(rs_index_linearize(g_s, 2, idx, sizes, &out) == RS_ERR_INVALID && strstr(rs_last_error(), "sizes"));
    CHECK(rs_index_linearize(g_s, 0, idx, sizes, &out) == RS_ERR_INVALID);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, o);
}

/* take: a strided self (a transposed 4 x 5 view of a 5 x 4 buffer), int64
 * indices with negatives, a strided out (a transposed 2 x 3 view); an
 * index past the end raises at the sync naming it; empty self refused */
TEST(take_strided_wraps_and_raises) {
    enum { R = 4, C = 5 };
    float buf[C * R];
    for (int i = 0; i < C * R; ++i) buf[i] = (float)i;
    const int64_t ix[6] = {0, 7, -1, 19, -20, 12};
    uint64_t ds = ctest_upload(g_dev, g_s, buf, sizeof buf), di = ctest_upload(g_dev, g_s, ix, sizeof ix), dout;
    CHECK_OK(rs_alloc(g_dev, sizeof(float) * 6, g_s, &dout));
    const int64_t ssz[2] = {R, C}, isz[2] = {2, 3};
    rs_tensor self = ctest_view(ds, RS_FLOAT32, 2, ssz), index = ctest_view(di, RS_INT64, 2, isz),
              out = ctest_view(dout, RS_FLOAT32, 2, isz);
    self.strides[0] = 1, self.strides[1] = R; /* self[r][c] = buf[c * R + r] */
    out.strides[0] = 1, out.strides[1] = 2;   /* out[a][b] at b * 2 + a */
    CHECK_OK(rs_take(g_s, &self, &index, &out));
    float got[6];
    CHECK_OK(rs_memcpy_dtoh(g_s, got, dout, sizeof got));
    int bad = 0;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 3; ++b) {
            int64_t p = ix[a * 3 + b];
            if (p < 0) p += R * C;
            const int r = (int)(p / C), c = (int)(p % C); /* row-major position in self */
            bad += got[b * 2 + a] != buf[c * R + r];
        }
    CHECK(bad == 0);
    const int64_t past[1] = {20}, one[1] = {1};
    uint64_t dp = ctest_upload(g_dev, g_s, past, sizeof past);
    rs_tensor pi = ctest_view(dp, RS_INT64, 1, one), po = ctest_view(dout, RS_FLOAT32, 1, one);
    CHECK_OK(rs_take(g_s, &self, &pi, &po));
    CHECK(rs_stream_synchronize(g_s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "20"));
    rs_tensor empty = self;
    empty.sizes[0] = 0;
    CHECK(rs_take(g_s, &empty, &pi, &po) == RS_ERR_INVALID && strstr(rs_last_error(), "empty"));
    rs_free(g_dev, ds); rs_free(g_dev, di); rs_free(g_dev, dout); rs_free(g_dev, dp);
}

int main(void) {
    g_dev = ctest_device();
    if (rs_stream_get(g_dev, 0, &g_s) != RS_OK) {
        fprintf(stderr, "no stream: %s\n", rs_last_error());
        return 1;
    }
    RUN(scatter_add_float32_bit_exact);
    RUN(index_add_float16_rounding);
    RUN(long_runs_cross_windows);
    RUN(int8_ops);
    RUN(float_amax_skip_scale_and_errors);
    RUN(index_linearize_wraps_and_marks);
    RUN(take_strided_wraps_and_raises);
    CTEST_END();
}
