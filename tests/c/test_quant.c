/* The weight-only quantized products (russet/quant.h) without torch, against
 * a double-precision reference written from the contract: int8 weights with
 * a scale a row, and 4-bit weights two a byte (the even k in the high
 * nibble) with a (scale, zero) pair a group; float32 and bfloat16; few rows
 * (the GEMV kernel, its 16-byte reads and its byte path) and many (the
 * dequantize-and-GEMM path); x and out as transposed views. A wrong nibble
 * order, group or scale is off by the size of a weight, far past the
 * tolerance. Affine quantization and dequantization (per tensor, per
 * channel) against the same formulas in double. Bad arguments fail
 * clearly. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/quant.h"

static uint32_t lcg = 777;
static uint32_t next(void) { return lcg = lcg * 1664525u + 1013904223u; }
static float frand(void) { return (float)((next() >> 8) & 0xFFFF) / 32768.0f - 1.0f; }

/* v as stored in dt (into *bits), and the value it holds */
static float store(rs_dtype dt, float v, void *p, size_t i) {
    if (dt == RS_FLOAT32) return ((float *)p)[i] = v;
    uint16_t h = rs_bf16_from_f32(v);
    ((uint16_t *)p)[i] = h;
    return rs_bf16_to_f32(h);
}
static float load(rs_dtype dt, const void *p, size_t i) {
    return dt == RS_FLOAT32 ? ((const float *)p)[i] : rs_bf16_to_f32(((const uint16_t *)p)[i]);
}

/* out = x @ W^T for x (M, K), W (N, K) quantized with `bits`; x_t: x read
 * through a transposed view of a (K, M) buffer; out_t: out written through
 * a transposed view of an (N, M) buffer */
static void run(rs_dtype dt, int bits, int M, int N, int K, int G, int x_t, int out_t) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const size_t es = dt == RS_FLOAT32 ? 4 : 2;
    const int KB = bits == 8 ? K : K / 2, ng = bits == 8 ? 1 : K / G;
    void *xh = malloc(es * (size_t)M * K), *sh = malloc(es * (size_t)(bits == 8 ? N : ng * N * 2));
    void *oh = malloc(es * (size_t)M * N);
    float *xf = malloc(4 * (size_t)M * K), *wf = malloc(4 * (size_t)N * K);
    uint8_t *wh = malloc((size_t)N * KB);
    for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) {
            const size_t at = x_t ? (size_t)k * M + m : (size_t)m * K + k;
            xf[m * K + k] = store(dt, frand(), xh, at);
        }
    if (bits == 8) {
        for (int n = 0; n < N; ++n) {
            const float sc = store(dt, 0.01f + 0.05f * fabsf(frand()), sh, n);
            for (int k = 0; k < K; ++k) {
                const int8_t q = (int8_t)(next() >> 24);
                wh[n * K + k] = (uint8_t)q;
                wf[n * K + k] = (float)q * sc; /* the reference scales the sum; the same in exact arithmetic */
            }
        }
    } else {
        float *scale = malloc(4 * (size_t)ng * N), *zero = malloc(4 * (size_t)ng * N);
        for (int g = 0; g < ng; ++g)
            for (int n = 0; n < N; ++n) {
                const size_t at = ((size_t)g * N + n) * 2;
                scale[g * N + n] = store(dt, 0.01f + 0.1f * fabsf(frand()), sh, at);
                zero[g * N + n] = store(dt, 0.5f * frand(), sh, at + 1);
            }
        for (int n = 0; n < N; ++n)
            for (int kb = 0; kb < KB; ++kb) {
                const int hi = (int)(next() >> 28), lo = (int)(next() >> 28);
                wh[n * KB + kb] = (uint8_t)(hi << 4 | lo);
                const int g = 2 * kb / G;
                wf[n * K + 2 * kb] = (float)(hi - 8) * scale[g * N + n] + zero[g * N + n];
                wf[n * K + 2 * kb + 1] = (float)(lo - 8) * scale[g * N + n] + zero[g * N + n];
            }
        free(scale), free(zero);
    }
    const size_t sbytes = es * (size_t)(bits == 8 ? N : ng * N * 2);
    uint64_t xa = ctest_upload(dev, s, xh, es * (size_t)M * K), wa = ctest_upload(dev, s, wh, (size_t)N * KB);
    uint64_t sa = ctest_upload(dev, s, sh, sbytes), oa = 0;
    CHECK_OK(rs_alloc(dev, es * (size_t)M * N, s, &oa));

    rs_weight_qmm q;
    memset(&q, 0, sizeof q);
    const int64_t xsz[2] = {M, K}, wsz[2] = {N, KB}, osz[2] = {M, N}, s8[1] = {N}, s4[3] = {ng, N, 2};
    q.x = ctest_view(xa, dt, 2, xsz);
    if (x_t) q.x.strides[0] = 1, q.x.strides[1] = M;
    q.w = ctest_view(wa, bits == 8 ? RS_INT8 : RS_UINT8, 2, wsz);
    q.scales = bits == 8 ? ctest_view(sa, dt, 1, s8) : ctest_view(sa, dt, 3, s4);
    q.out = ctest_view(oa, dt, 2, osz);
    if (out_t) q.out.strides[0] = 1, q.out.strides[1] = M;
    q.bits = bits, q.group = G;
    CHECK_OK(rs_weight_qmm_run(s, &q));
    CHECK_OK(rs_memcpy_dtoh(s, oh, oa, es * (size_t)M * N));
    int bad = 0;
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            double ref = 0.0, mag = 0.0;
            for (int k = 0; k < K; ++k) {
                ref += (double)xf[m * K + k] * wf[n * K + k];
                mag += fabs((double)xf[m * K + k] * wf[n * K + k]);
            }
            const float got = load(dt, oh, out_t ? (size_t)n * M + m : (size_t)m * N + n);
            /* float32 sums in another order; bfloat16: the output's rounding
             * and, on the GEMM path, W's (bits 4) */
            const double tol = dt == RS_FLOAT32 ? 1e-5 * mag + 1e-6 : 8e-3 * mag + fabs(ref) / 128.0;
            if (!(fabs(got - ref) <= tol) && bad++ < 5)
                fprintf(stderr, "  bits %d M %d N %d K %d: out[%d][%d] = %g, expected %g (tol %g)\n", bits, M, N, K,
                        m, n, got, ref, tol);
        }
    CHECK(bad == 0);
    rs_free(dev, xa), rs_free(dev, wa), rs_free(dev, sa), rs_free(dev, oa);
    free(xh), free(sh), free(oh), free(xf), free(wf), free(wh);
}

TEST(int8_gemv) {
    run(RS_FLOAT32, 8, 1, 40, 64, 0, 0, 0);   /* 16-byte reads */
    run(RS_FLOAT32, 8, 5, 13, 40, 0, 1, 1);   /* K not a multiple of 16: bytes; a partial tile of rows and columns */
    run(RS_BFLOAT16, 8, 3, 24, 96, 0, 0, 0);
}
TEST(int8_gemm) {
    run(RS_FLOAT32, 8, 20, 33, 72, 0, 0, 0);
    run(RS_BFLOAT16, 8, 17, 24, 64, 0, 1, 1);
}
TEST(int4_gemv) {
    run(RS_FLOAT32, 4, 1, 16, 128, 32, 0, 0);  /* 16-byte reads, 4 groups */
    run(RS_FLOAT32, 4, 6, 9, 48, 16, 1, 1);    /* group 16: bytes */
    run(RS_BFLOAT16, 4, 2, 32, 256, 64, 0, 0);
}
TEST(int4_gemm) {
    run(RS_FLOAT32, 4, 24, 16, 128, 32, 0, 0);
    run(RS_BFLOAT16, 4, 16, 40, 64, 32, 1, 1);
}

/* q = clamp(rne(x * (1/scale) + zp)) rounded once (uint8), and back per
 * channel: (q - zp) * scale rounded once from double, on a transposed x */
TEST(affine_quantize_and_dequantize) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { R = 3, C = 4 };
    const float xs[R * C] = {0.0f, 1.26f, -0.7f, 300.0f, -300.0f, 2.5f, 3.5f, -2.5f, 1e10f, 0.05f, -0.049f, 7.0f};
    const double scale = 0.0731;
    const int64_t zp = 3;
    uint64_t xa = ctest_upload(dev, s, xs, sizeof xs), qa = 0, ya = 0;
    CHECK_OK(rs_alloc(dev, R * C, s, &qa));
    CHECK_OK(rs_alloc(dev, 4 * R * C, s, &ya));
    const int64_t sz[2] = {R, C};
    rs_affine_quant a;
    memset(&a, 0, sizeof a);
    a.x = ctest_view(xa, RS_FLOAT32, 2, sz);
    a.q = ctest_view(qa, RS_UINT8, 2, sz);
    a.scale = scale, a.zero_point = zp;
    CHECK_OK(rs_quantize(s, &a));
    uint8_t q[R * C];
    CHECK_OK(rs_memcpy_dtoh(s, q, qa, sizeof q));
    const float inv = 1.0f / (float)scale;
    for (int i = 0; i < R * C; ++i) {
        double t = nearbyint((double)(float)((double)xs[i] * inv + (double)zp));  /* one rounding to float */
        const int expect = t < 0 ? 0 : t > 255 ? 255 : (int)t;
        if (q[i] != expect) fprintf(stderr, "  quantize %g: %d, expected %d\n", xs[i], q[i], expect);
        CHECK(q[i] == expect);
    }
    /* per channel along dim 1 of the (C, R) transposed view of q */
    const double scales[R] = {0.1, 0.0731, 1.0 / 3.0};
    const int64_t zps[R] = {0, 3, 200};
    uint64_t sa = ctest_upload(dev, s, scales, sizeof scales), za = ctest_upload(dev, s, zps, sizeof zps);
    const int64_t tsz[2] = {C, R}, csz[1] = {R};
    const rs_tensor st = ctest_view(sa, RS_FLOAT64, 1, csz), zt = ctest_view(za, RS_INT64, 1, csz);
    rs_affine_quant b;
    memset(&b, 0, sizeof b);
    b.q = ctest_view(qa, RS_UINT8, 2, tsz);
    b.q.strides[0] = 1, b.q.strides[1] = C;
    b.x = ctest_view(ya, RS_FLOAT32, 2, tsz);
    b.scales = &st, b.zero_points = &zt, b.axis = 1;
    CHECK_OK(rs_dequantize(s, &b));
    float y[R * C];
    CHECK_OK(rs_memcpy_dtoh(s, y, ya, sizeof y));
    for (int c = 0; c < C; ++c)
        for (int r = 0; r < R; ++r) {
            const float expect = (float)((double)(q[r * C + c] - (int)zps[r]) * scales[r]);
            CHECK(y[c * R + r] == expect);
        }
    rs_free(dev, xa), rs_free(dev, qa), rs_free(dev, ya), rs_free(dev, sa), rs_free(dev, za);
}

/* torch 2.15's rule (zero_point_after_round): q = clamp(rne(x * (1/scale))
 * + zp); on ties x * (1/scale) = n + 0.5 with an odd zp it differs from
 * 2.13's rne(x * (1/scale) + zp) (1.25 / 0.5 + 3: 5, where 2.13 gives 6).
 * uint8 and int32 per tensor, int8 per channel; NaN and out-of-range x. */
static void quantize_after_round(rs_dtype qt, int per_channel) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 12 };
    const float xs[N] = {1.25f, 1.75f, -1.25f, -0.25f, 0.25f, 2.5f, 3e9f, -3e9f, NAN, 60.75f, -70.25f, 0.7f};
    const int64_t zp = 3, sz[1] = {N}, csz[1] = {1};
    const double scale = 0.5, scales[1] = {0.5};
    const int64_t zps[1] = {zp};
    const int width = qt == RS_INT32 ? 4 : 1;
    uint64_t xa = ctest_upload(dev, s, xs, sizeof xs), qa = 0;
    uint64_t sa = ctest_upload(dev, s, scales, sizeof scales), za = ctest_upload(dev, s, zps, sizeof zps);
    CHECK_OK(rs_alloc(dev, (uint64_t)(width * N), s, &qa));
    const rs_tensor st = ctest_view(sa, RS_FLOAT64, 1, csz), zt = ctest_view(za, RS_INT64, 1, csz);
    rs_affine_quant a;
    memset(&a, 0, sizeof a);
    a.x = ctest_view(xa, RS_FLOAT32, 1, sz);
    a.q = ctest_view(qa, qt, 1, sz);
    a.scale = scale, a.zero_point = zp, a.zero_point_after_round = 1;
    if (per_channel) {
        /* one channel along dim 0 of a (1, N) view */
        const int64_t sz2[2] = {1, N};
        a.x = ctest_view(xa, RS_FLOAT32, 2, sz2), a.q = ctest_view(qa, qt, 2, sz2);
        a.scales = &st, a.zero_points = &zt, a.axis = 0;
    }
    CHECK_OK(rs_quantize(s, &a));
    int32_t q32[N];
    uint8_t q8[N];
    CHECK_OK(rs_memcpy_dtoh(s, width == 4 ? (void *)q32 : (void *)q8, qa, (uint64_t)(width * N)));
    const double lo = qt == RS_UINT8 ? 0 : qt == RS_INT8 ? -128 : -2147483648.0;
    const double hi = qt == RS_UINT8 ? 255 : qt == RS_INT8 ? 127 : 2147483647.0;
    for (int i = 0; i < N; ++i) {
        const float inv = 1.0f / (float)scale;
        const double t = nearbyint((double)(xs[i] * inv)) + (double)zp;
        const double want = isnan(xs[i]) ? (qt == RS_INT32 ? lo : hi) : t < lo ? lo : t > hi ? hi : t;
        const double got = qt == RS_INT32 ? q32[i] : qt == RS_INT8 ? (int8_t)q8[i] : q8[i];
        if (got != want) fprintf(stderr, "  quantize %g to dtype %d: %g, expected %g\n", xs[i], (int)qt, got, want);
        CHECK(got == want);
    }
    rs_free(dev, xa), rs_free(dev, qa), rs_free(dev, sa), rs_free(dev, za);
}

TEST(quantize_zero_point_after_round) {
    quantize_after_round(RS_UINT8, 0);
    quantize_after_round(RS_INT32, 0);
    quantize_after_round(RS_INT8, 1);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_weight_qmm q;
    memset(&q, 0, sizeof q);
    const int64_t xsz[2] = {2, 32}, wsz[2] = {8, 16}, osz[2] = {2, 8}, ssz[3] = {1, 8, 2};
    q.x = ctest_view(0x1000, RS_FLOAT32, 2, xsz);
    q.w = ctest_view(0x2000, RS_UINT8, 2, wsz);
    q.scales = ctest_view(0x3000, RS_FLOAT32, 3, ssz);
    q.out = ctest_view(0x4000, RS_FLOAT32, 2, osz);
    q.bits = 4, q.group = 24; /* does not divide K */
    CHECK(rs_weight_qmm_run(s, &q) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "group") != NULL);
    q.group = 32;
    q.x.dtype = RS_INT32;
    CHECK(rs_weight_qmm_run(s, &q) == RS_ERR_INVALID);
    q.x.dtype = RS_FLOAT32;
    q.bits = 8; /* an int8 W must be (N, K) int8 */
    CHECK(rs_weight_qmm_run(s, &q) == RS_ERR_INVALID);
    q.bits = 3;
    CHECK(rs_weight_qmm_run(s, &q) == RS_ERR_INVALID);
}

int main(void) {
    RUN(int8_gemv);
    RUN(int8_gemm);
    RUN(int4_gemv);
    RUN(int4_gemm);
    RUN(affine_quantize_and_dequantize);
    RUN(quantize_zero_point_after_round);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
