/* The engines' tests: dtype codecs, copy, fill, random, arange, linspace,
 * each checked against a host reference. No torch, no Python. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/linspace.h"

static const rs_dtype kAll[21] = {
    RS_BOOL, RS_UINT8, RS_INT8, RS_INT16, RS_INT32, RS_INT64, RS_UINT16, RS_UINT32,
    RS_UINT64, RS_FLOAT16, RS_BFLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX32,
    RS_COMPLEX64, RS_COMPLEX128, RS_FLOAT8_E4M3FN, RS_FLOAT8_E5M2, RS_FLOAT8_E4M3FNUZ,
    RS_FLOAT8_E5M2FNUZ, RS_FLOAT8_E8M0FNU};

static rs_device *g_dev;
static rs_stream *g_s;

static int has_fp64(void) { return rs_device_features(g_dev)->has_fp64; }

static rs_tensor vec(uint64_t addr, rs_dtype dt, int64_t n) { return ctest_view(addr, dt, 1, &n); }

static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* ---------------------------------------------------------------- c10, verbatim
 * The float-arithmetic converters of torch/headeronly/util (non-F16C path),
 * transcribed to C: the ground truth the integer codecs must match. */
static uint16_t c10_fp16(float f) {
    float scale_to_inf = bf(239u << 23), scale_to_zero = bf(17u << 23);
    float base = (fabsf(f) * scale_to_inf) * scale_to_zero;
    uint32_t w = fb(f), shl1_w = w + w, sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xFF000000u;
    if (bias < 0x71000000u) bias = 0x71000000u;
    base = bf((bias >> 1) + 0x07800000u) + base;
    uint32_t bits = fb(base);
    uint32_t exp_bits = (bits >> 13) & 0x00007C00u, mantissa_bits = bits & 0x00000FFFu;
    uint32_t nonsign = exp_bits + mantissa_bits;
    return (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}
static uint8_t c10_e4m3fn(float f) {
    uint32_t fp8_max = 1087u << 20, denorm_mask = 141u << 23, f_bits = fb(f);
    uint8_t result;
    uint32_t sign = f_bits & 0x80000000u;
    f_bits ^= sign;
    if (f_bits >= fp8_max) {
        result = f_bits > 0x7F800000u ? 0x7f : 0x7e;
    } else if (f_bits < (121u << 23)) {
        f_bits = fb(bf(f_bits) + bf(denorm_mask));
        result = (uint8_t)(f_bits - denorm_mask);
    } else {
        uint8_t mant_odd = (f_bits >> 20) & 1;
        f_bits += ((uint32_t)(7 - 127) << 23) + 0x7FFFF;
        f_bits += mant_odd;
        result = (uint8_t)(f_bits >> 20);
        if (result == 0x7f) result = 0x7e;
    }
    return result | (uint8_t)(sign >> 24);
}
static uint8_t c10_e5m2(float f) {
    uint32_t fp32_inf = 255u << 23, fp8_max = 143u << 23, denorm_mask = 134u << 23;
    uint32_t f_bits = fb(f);
    uint8_t result;
    uint32_t sign = f_bits & 0x80000000u;
    f_bits ^= sign;
    if (f_bits >= fp8_max) {
        result = f_bits > fp32_inf ? 0x7F : 0x7C;
    } else if (f_bits < (113u << 23)) {
        f_bits = fb(bf(f_bits) + bf(denorm_mask));
        result = (uint8_t)(f_bits - denorm_mask);
    } else {
        uint32_t mant_odd = (f_bits >> 21) & 1;
        f_bits += ((uint32_t)(15 - 127) << 23) + 0xFFFFF;
        f_bits += mant_odd;
        result = (uint8_t)(f_bits >> 21);
    }
    return result | (uint8_t)(sign >> 24);
}
static uint8_t c10_fnuz(float f, int e4m3) {
    uint32_t fnuz_max = (e4m3 ? 0x87u : 0x8Fu) << 23, denorm_mask = (e4m3 ? 0x8Cu : 0x85u) << 23;
    uint32_t lo = (e4m3 ? 0x78u : 0x70u) << 23, f_bits = fb(f), result;
    uint32_t sign = f_bits & 0x80000000u;
    f_bits ^= sign;
    if (f_bits >= fnuz_max) return 0x80;
    if (f_bits < lo) {
        f_bits = fb(bf(f_bits) + bf(denorm_mask));
        result = (uint8_t)(f_bits - denorm_mask);
        if (result == 0) return 0;
    } else if (e4m3) {
        uint8_t mant_odd = (f_bits >> 20) & 1;
        f_bits += ((uint32_t)(8 - 127) << 23) + 0x7FFFF;
        f_bits += mant_odd;
        result = (uint8_t)(f_bits >> 20);
    } else {
        uint8_t mant_odd = (f_bits >> 21) & 1;
        f_bits += ((uint32_t)(16 - 127) << 23) + 0xFFFFF;
        f_bits += mant_odd;
        result = (uint8_t)(f_bits >> 21);
    }
    return (uint8_t)(result | (sign >> 24));
}
static float c10_fp16_to_f32(uint16_t h) { /* fp16_ieee_to_fp32_value */
    uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, two_w = w + w;
    float normalized = bf((two_w >> 4) + (0xE0u << 23)) * bf(15u << 23);
    float denormalized = bf((two_w >> 17) | (126u << 23)) - 0.5f;
    return bf(sign | (two_w < (1u << 27) ? fb(denormalized) : fb(normalized)));
}

TEST(dtype_properties) {
    CHECK(rs_dtype_size(RS_BOOL) == 1 && rs_dtype_size(RS_COMPLEX32) == 4);
    CHECK(rs_dtype_size(RS_COMPLEX128) == 16 && rs_dtype_size(RS_FLOAT8_E8M0FNU) == 1);
    CHECK(rs_dtype_size(RS_UINT16) == 2 && rs_dtype_size(RS_UINT64) == 8);
    CHECK(strcmp(rs_dtype_name(RS_BFLOAT16), "bfloat16") == 0);
    CHECK(strcmp(rs_dtype_name(RS_FLOAT8_E4M3FNUZ), "float8_e4m3fnuz") == 0);
    CHECK(rs_dtype_valid(44) && !rs_dtype_valid(12) && !rs_dtype_valid(-1) && !rs_dtype_valid(46));
    /* float4_e2m1fn_x2: a byte of two values, stored and copied as bits only */
    CHECK(rs_dtype_valid(45) && rs_dtype_size(RS_FLOAT4_E2M1FN_X2) == 1);
    CHECK(strcmp(rs_dtype_name(RS_FLOAT4_E2M1FN_X2), "float4_e2m1fn_x2") == 0);
    for (int i = 0; i < 21; ++i) CHECK(rs_dtype_valid((int)kAll[i]) && rs_dtype_size(kAll[i]) > 0);
    CHECK(rs_dtype_needs_fp64(RS_FLOAT64) && rs_dtype_needs_fp64(RS_COMPLEX128));
    CHECK(!rs_dtype_needs_fp64(RS_FLOAT32) && !rs_dtype_needs_fp64(RS_COMPLEX64));

    int64_t sz[3] = {2, 3, 4};
    rs_tensor t = ctest_view(4096, RS_FLOAT32, 3, sz);
    CHECK(rs_tensor_numel(&t) == 24 && rs_tensor_is_contiguous(&t));
    uint64_t lo, hi;
    rs_tensor_extent(&t, &lo, &hi);
    CHECK(lo == 4096 && hi == 4096 + 96);
    t.strides[2] = -1; /* flipped last dim */
    CHECK(!rs_tensor_is_contiguous(&t));
    rs_tensor_extent(&t, &lo, &hi);
    CHECK(lo == 4096 - 12 && hi == 4096 + 4 * (12 + 8 + 1));
    rs_tensor z = t;
    z.ndim = 0;
    CHECK(rs_tensor_numel(&z) == 1 && rs_tensor_is_contiguous(&z));
    rs_tensor_extent(&z, &lo, &hi);
    CHECK(lo == 4096 && hi == 4100);
}

TEST(codecs_known_values) {
    /* values checked against c10's headers */
    CHECK(rs_f16_from_f32(65504.0f) == 0x7BFF);
    CHECK(rs_f16_from_f32(65519.0f) == 0x7BFF && rs_f16_from_f32(65520.0f) == 0x7C00);
    CHECK(rs_f16_from_f32(1.0f / 3) == 0x3555 && rs_f16_from_f32(-2.0f) == 0xC000);
    CHECK(rs_f16_from_f32(NAN) == 0x7E00 && rs_f16_from_f32(-NAN) == 0xFE00);
    CHECK(rs_f16_from_f32(5.9604645e-8f) == 0x0001 && rs_f16_from_f32(2.9802322e-8f) == 0);
    CHECK(rs_f16_to_f32(0x0001) == 5.9604645e-8f && rs_f16_to_f32(0x7BFF) == 65504.0f);
    CHECK(rs_bf16_from_f32(1.0f / 3) == 0x3EAB && rs_bf16_from_f32(-NAN) == 0x7FC0);
    CHECK(rs_bf16_from_f32(INFINITY) == 0x7F80 && rs_bf16_to_f32(0x3F80) == 1.0f);
    /* e4m3fn saturates (c10: >= 480 and inf -> 0x7E = 448); NaN -> 0x7F */
    CHECK(rs_e4m3fn_from_f32(448.0f) == 0x7E && rs_e4m3fn_from_f32(470.0f) == 0x7E);
    CHECK(rs_e4m3fn_from_f32(1e6f) == 0x7E && rs_e4m3fn_from_f32(INFINITY) == 0x7E);
    CHECK(rs_e4m3fn_from_f32(-INFINITY) == 0xFE && rs_e4m3fn_from_f32(NAN) == 0x7F);
    CHECK(rs_e4m3fn_to_f32(0x7E) == 448.0f && isnan(rs_e4m3fn_to_f32(0x7F)));
    CHECK(rs_e4m3fn_from_f32(0.001953125f) == 0x01); /* 2^-9, smallest subnormal */
    /* e5m2 overflows to inf (0x7C) from 61440 (the tie rounds up), NaN -> 0x7F */
    CHECK(rs_e5m2_from_f32(57344.0f) == 0x7B && rs_e5m2_from_f32(61440.0f) == 0x7C);
    CHECK(rs_e5m2_from_f32(1e9f) == 0x7C && rs_e5m2_from_f32(NAN) == 0x7F);
    CHECK(rs_e5m2_to_f32(0x7C) == INFINITY);
    /* fnuz: one NaN 0x80 (inf and overflow too); no negative zero */
    CHECK(rs_e4m3fnuz_from_f32(240.0f) == 0x7F && rs_e4m3fnuz_from_f32(256.0f) == 0x80);
    CHECK(rs_e4m3fnuz_from_f32(-0.0f) == 0x00 && rs_e4m3fnuz_from_f32(NAN) == 0x80);
    CHECK(rs_e4m3fnuz_to_f32(0x7F) == 240.0f && isnan(rs_e4m3fnuz_to_f32(0x80)));
    CHECK(rs_e5m2fnuz_from_f32(57344.0f) == 0x7F && rs_e5m2fnuz_from_f32(-INFINITY) == 0x80);
    CHECK(rs_e5m2fnuz_to_f32(0x7F) == 57344.0f);
    /* e8m0: exponent only; ties away from zero per c10's rule; no sign */
    CHECK(rs_e8m0fnu_from_f32(1.0f) == 127 && rs_e8m0fnu_from_f32(3.0f) == 129);
    CHECK(rs_e8m0fnu_from_f32(-1.0f) == 127 && rs_e8m0fnu_from_f32(NAN) == 0xFF);
    CHECK(rs_e8m0fnu_to_f32(127) == 1.0f && rs_e8m0fnu_to_f32(0) == bf(0x00400000u));
}

TEST(codecs_match_c10_sweep) {
    /* every 997th float bit pattern plus the neighbourhoods of the formats'
     * boundaries: the integer codecs against c10's float-arithmetic ones */
    for (uint64_t u = 0; u < (1ull << 32); u += 997) {
        float f = bf((uint32_t)u);
        CHECK(rs_f16_from_f32(f) == c10_fp16(f));
        CHECK(rs_e4m3fn_from_f32(f) == c10_e4m3fn(f));
        CHECK(rs_e5m2_from_f32(f) == c10_e5m2(f));
        CHECK(rs_e4m3fnuz_from_f32(f) == c10_fnuz(f, 1));
        CHECK(rs_e5m2fnuz_from_f32(f) == c10_fnuz(f, 0));
    }
    for (uint32_t e = 90; e < 150; ++e)
        for (uint32_t m = 0; m < (1u << 23); m += 4093) {
            for (int sgn = 0; sgn < 2; ++sgn) {
                float f = bf(((uint32_t)sgn << 31) | (e << 23) | m);
                CHECK(rs_f16_from_f32(f) == c10_fp16(f));
                CHECK(rs_e4m3fn_from_f32(f) == c10_e4m3fn(f));
                CHECK(rs_e5m2_from_f32(f) == c10_e5m2(f));
                CHECK(rs_e4m3fnuz_from_f32(f) == c10_fnuz(f, 1));
                CHECK(rs_e5m2fnuz_from_f32(f) == c10_fnuz(f, 0));
            }
        }
    for (uint32_t h = 0; h < 0x10000; ++h) {
        float a = rs_f16_to_f32((uint16_t)h), b = c10_fp16_to_f32((uint16_t)h);
        CHECK(fb(a) == fb(b) || (isnan(a) && isnan(b)));
    }
}

/* ---------------------------------------------------------------- copy */

static const double kDoubles[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.5, 100.7, -128.6,
                                  255.5, 300.25, 448.0, 65504.0, 70000.0, 1e-7, 1.0 / 3,
                                  -1e-40, NAN, INFINITY, -INFINITY, 1e10, -3e9, 9.3e18, 1.5e19,
                                  -7.25, 1e300, 5e-324, 0.0009765625, 123456789.123};
static const int64_t kInts[] = {0, 1, -1, 2, 127, 128, -129, 255, 256, 32767, -32769, 65535,
                                2147483647, -2147483648LL, 4294967296LL, (1LL << 53) + 1,
                                INT64_MAX, INT64_MIN, 16777217, -5};
#define NV 24

/* NV source elements of dtype dt: doubles and integers, converted. */
static void make_source(rs_dtype dt, uint8_t *out) {
    size_t es = rs_dtype_size(dt);
    for (int i = 0; i < NV; ++i) {
        if (i % 2 == 0) {
            double d = kDoubles[(i / 2 + (int)dt) % (sizeof kDoubles / sizeof *kDoubles)];
            rs_convert_host(out + i * es, dt, &d, RS_FLOAT64);
        } else {
            int64_t v = kInts[(i / 2 + (int)dt) % (sizeof kInts / sizeof *kInts)];
            rs_convert_host(out + i * es, dt, &v, RS_INT64);
        }
        if (dt == RS_COMPLEX64 && i % 3 == 0) { /* a nonzero imaginary part */
            float im = -0.75f * (float)i;
            memcpy(out + i * es + 4, &im, 4);
        }
        if (dt == RS_COMPLEX128 && i % 3 == 0) {
            double im = 1e-3 * i + 0.5;
            memcpy(out + i * es + 8, &im, 8);
        }
    }
}

/* Two elements of dtype dt that are equal but for the bits of their NaNs:
 * real floats NaN in both, complex64/128 part by part. */
static int same_but_nan_bits(const uint8_t *got, const uint8_t *want, rs_dtype dt) {
    if (dt == RS_COMPLEX64 || dt == RS_COMPLEX128) {
        rs_dtype part = dt == RS_COMPLEX64 ? RS_FLOAT32 : RS_FLOAT64;
        size_t ps = rs_dtype_size(part);
        return same_but_nan_bits(got, want, part) && same_but_nan_bits(got + ps, want + ps, part);
    }
    if (memcmp(got, want, rs_dtype_size(dt)) == 0) return 1;
    if (dt == RS_COMPLEX32 || dt == RS_BOOL) return 0;
    double g = 0, w = 0;
    rs_convert_host(&g, RS_FLOAT64, got, dt);
    rs_convert_host(&w, RS_FLOAT64, want, dt);
    return isnan(g) && isnan(w);
}

TEST(copy_every_dtype_pair) {
    uint64_t src = 0, dst = 0;
    CHECK_OK(rs_alloc(g_dev, NV * 16, g_s, &src));
    CHECK_OK(rs_alloc(g_dev, NV * 16, g_s, &dst));
    uint8_t in[NV * 16], out[NV * 16], ref[NV * 16];
    int bad = 0;
    for (int a = 0; a < 21 && !bad; ++a) {
        rs_dtype sdt = kAll[a];
        make_source(sdt, in);
        CHECK_OK(rs_memcpy_htod(g_s, src, in, NV * rs_dtype_size(sdt)));
        for (int b = 0; b < 21; ++b) {
            rs_dtype ddt = kAll[b];
            size_t es = rs_dtype_size(ddt);
            rs_tensor d = vec(dst, ddt, NV), s = vec(src, sdt, NV);
            CHECK_OK(rs_copy(g_s, &d, &s));
            CHECK_OK(rs_memcpy_dtoh(g_s, out, dst, NV * es));
            for (int i = 0; i < NV; ++i)
                rs_convert_host(ref + i * es, ddt, in + i * rs_dtype_size(sdt), sdt);
            for (int i = 0; i < NV; ++i) {
                /* a NaN is any NaN: a device may quiet a signaling one (the
                 * H200 made float8_e4m3fnuz's NaN, c10's 0x7f800001, into
                 * 0x7fc00001) */
                if (memcmp(out + i * es, ref + i * es, es) != 0 && same_but_nan_bits(out + i * es, ref + i * es, ddt))
                    continue;
                if (memcmp(out + i * es, ref + i * es, es) != 0) {
                    uint64_t got = 0, want = 0, x = 0;
                    memcpy(&got, out + i * es, es < 8 ? es : 8);
                    memcpy(&want, ref + i * es, es < 8 ? es : 8);
                    memcpy(&x, in + i * rs_dtype_size(sdt), rs_dtype_size(sdt) < 8 ? rs_dtype_size(sdt) : 8);
                    fprintf(stderr, "  copy %s -> %s [%d]: src 0x%llx got 0x%llx want 0x%llx\n",
                            rs_dtype_name(sdt), rs_dtype_name(ddt), i, (unsigned long long)x,
                            (unsigned long long)got, (unsigned long long)want);
                    if (++bad > 10) break;
                }
            }
        }
    }
    /* float4_e2m1fn_x2 copies its bytes to itself and converts to nothing
     * (CPU's copy_kernel has no cast for it) */
    uint8_t f4[NV], f4out[NV];
    for (int i = 0; i < NV; ++i) f4[i] = (uint8_t)(37 * i + 11);
    CHECK_OK(rs_memcpy_htod(g_s, src, f4, NV));
    rs_tensor d4 = vec(dst, RS_FLOAT4_E2M1FN_X2, NV), s4 = vec(src, RS_FLOAT4_E2M1FN_X2, NV);
    CHECK_OK(rs_copy(g_s, &d4, &s4));
    CHECK_OK(rs_memcpy_dtoh(g_s, f4out, dst, NV));
    CHECK(memcmp(f4, f4out, NV) == 0);
    rs_tensor d8 = vec(dst, RS_UINT8, NV), f32 = vec(dst, RS_FLOAT32, NV);
    CHECK(rs_copy(g_s, &d8, &s4) == RS_ERR_UNSUPPORTED);
    CHECK(rs_copy(g_s, &d4, &f32) == RS_ERR_UNSUPPORTED);
    CHECK(strstr(rs_last_error(), "not implemented for 'Float4_e2m1fn_x2'") != NULL);
    rs_free(g_dev, src);
    rs_free(g_dev, dst);
    CHECK(bad == 0);
}

/* the strided path's runs along the last dim (copy.c's STRIDED_RUN): a
 * permuted (2, 3, 5, 11) -> (3, 2, 5, 11) copy (attention's qkv split), a
 * last dim that is not a multiple of the run, a strided last dim on both
 * sides, and a last dim too short for runs */
TEST(copy_runs_along_the_last_dim) {
    enum { A = 2, B = 3, C = 5, D = 11, E = A * B * C * D };
    uint64_t a = 0, b = 0;
    CHECK_OK(rs_alloc(g_dev, 4 * E * 2, g_s, &a));
    CHECK_OK(rs_alloc(g_dev, 4 * E * 2, g_s, &b));
    static int32_t in[E * 2], out[E * 2];
    for (int i = 0; i < E * 2; ++i) in[i] = i * 7 - 300;
    CHECK_OK(rs_memcpy_htod(g_s, a, in, sizeof in));
    int64_t sz[4] = {B, A, C, D};
    rs_tensor src = ctest_view(a, RS_INT32, 4, sz), dst = ctest_view(b, RS_INT32, 4, sz);
    src.strides[0] = C * D, src.strides[1] = B * C * D, src.strides[2] = D, src.strides[3] = 1;
    CHECK_OK(rs_copy(g_s, &dst, &src));
    CHECK_OK(rs_memcpy_dtoh(g_s, out, b, 4 * E));
    int bad = 0;
    for (int i = 0; i < B; ++i)
        for (int j = 0; j < A; ++j)
            for (int k = 0; k < C * D; ++k) bad += out[(i * A + j) * C * D + k] != in[(j * B + i) * C * D + k];
    /* every other element of rows of 11 (stride 2) into a transposed-row
     * destination with stride 3 along the last dim */
    int64_t s2[2] = {A * B * C, D};
    src = ctest_view(a, RS_INT32, 2, s2), dst = ctest_view(b, RS_INT32, 2, s2);
    src.strides[0] = 2 * D, src.strides[1] = 2;
    dst.strides[0] = 1, dst.strides[1] = A * B * C; /* (D x rows) column-major */
    CHECK_OK(rs_copy(g_s, &dst, &src));
    CHECK_OK(rs_memcpy_dtoh(g_s, out, b, 4 * E));
    for (int r = 0; r < A * B * C; ++r)
        for (int c = 0; c < D; ++c) bad += out[c * A * B * C + r] != in[r * 2 * D + 2 * c];
    CHECK(bad == 0);
    rs_free(g_dev, a);
    rs_free(g_dev, b);
}

/* a contiguous bit copy as 16-byte words (what a discrete GPU takes for
 * large copies; RUSSET_COPY_WORDS=1 takes it here), with a tail of bytes
 * that are not a whole word, beside the vkCmdCopyBuffer path */
TEST(copy_contiguous_as_words) {
    enum { N = 70001 }; /* int8 elements: 4375 words and a tail of 1 byte */
    uint64_t a = 0, b = 0;
    CHECK_OK(rs_alloc(g_dev, N + 64, g_s, &a));
    CHECK_OK(rs_alloc(g_dev, N + 64, g_s, &b));
    static uint8_t in[N], out[N], zero[N];
    for (int i = 0; i < N; ++i) in[i] = (uint8_t)(i * 131 + 7);
    CHECK_OK(rs_memcpy_htod(g_s, a, in, N));
    for (int force = 0; force < 2; ++force) {
        setenv("RUSSET_COPY_WORDS", force ? "1" : "0", 1);
        CHECK_OK(rs_memcpy_htod(g_s, b, zero, N));
        rs_tensor src = vec(a, RS_INT8, N), dst = vec(b, RS_UINT8, N);
        CHECK_OK(rs_copy(g_s, &dst, &src));
        CHECK_OK(rs_memcpy_dtoh(g_s, out, b, N));
        CHECK_OK(rs_stream_synchronize(g_s));
        CHECK(memcmp(out, in, N) == 0);
    }
    unsetenv("RUSSET_COPY_WORDS");
    rs_free(g_dev, a);
    rs_free(g_dev, b);
}

TEST(copy_strided_views) {
    uint64_t a = 0, b = 0;
    CHECK_OK(rs_alloc(g_dev, 4096, g_s, &a));
    CHECK_OK(rs_alloc(g_dev, 4096, g_s, &b));
    float in[60];
    for (int i = 0; i < 60; ++i) in[i] = (float)i * 1.25f - 7.0f;
    CHECK_OK(rs_memcpy_htod(g_s, a, in, sizeof in));

    /* transposed 3x5 float32 -> contiguous 5x3 float16 */
    int64_t s35[2] = {5, 3};
    rs_tensor src = ctest_view(a, RS_FLOAT32, 2, s35);
    src.strides[0] = 1;
    src.strides[1] = 5;
    rs_tensor dst = ctest_view(b, RS_FLOAT16, 2, s35);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    uint16_t h[60];
    CHECK_OK(rs_memcpy_dtoh(g_s, h, b, 15 * 2));
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 3; ++j) CHECK(h[i * 3 + j] == rs_f16_from_f32(in[j * 5 + i]));

    /* expanded (stride 0) and flipped (negative stride), with an offset */
    int64_t s43[2] = {4, 3};
    src = ctest_view(a + 4 * 10, RS_FLOAT32, 2, s43); /* storage offset 10 */
    src.strides[0] = 0;
    src.strides[1] = -2;
    dst = ctest_view(b, RS_INT32, 2, s43);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    int32_t iv[12];
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, b, sizeof iv));
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) CHECK(iv[i * 3 + j] == (int32_t)in[10 - 2 * j]);

    /* same dtype, strided: the raw 8- and 16-byte paths (float64 bits and
     * complex128, which must work without fp64) */
    double dv[16];
    for (int i = 0; i < 16; ++i) dv[i] = i * 0.1 - 0.35;
    dv[3] = NAN;
    CHECK_OK(rs_memcpy_htod(g_s, a, dv, sizeof dv));
    src = vec(a, RS_FLOAT64, 8);
    src.strides[0] = 2;
    dst = vec(b, RS_FLOAT64, 8);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    double dout[16];
    CHECK_OK(rs_memcpy_dtoh(g_s, dout, b, 8 * 8));
    for (int i = 0; i < 8; ++i) CHECK(memcmp(&dout[i], &dv[2 * i], 8) == 0);
    src = vec(a, RS_COMPLEX128, 4);
    src.strides[0] = -1;
    src.address = a + 16 * 7;
    dst = vec(b, RS_COMPLEX128, 4);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    CHECK_OK(rs_memcpy_dtoh(g_s, dout, b, 64));
    for (int i = 0; i < 4; ++i) CHECK(memcmp(&dout[2 * i], &dv[2 * (7 - i)], 16) == 0);
    /* contiguous same dtype: rs_memcpy_dtod */
    src = vec(a, RS_FLOAT64, 16);
    dst = vec(b, RS_FLOAT64, 16);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    CHECK_OK(rs_memcpy_dtoh(g_s, dout, b, sizeof dout));
    CHECK(memcmp(dout, dv, sizeof dv) == 0);
    /* float64 -> float32 strided (software float64) */
    dst = vec(b, RS_FLOAT32, 8);
    dst.strides[0] = 2;
    src = vec(a, RS_FLOAT64, 8);
    CHECK_OK(rs_copy(g_s, &dst, &src));
    float fo[16];
    CHECK_OK(rs_memcpy_dtoh(g_s, fo, b, sizeof fo));
    for (int i = 0; i < 8; ++i) CHECK(fb(fo[2 * i]) == fb((float)dv[i]) || (isnan(fo[2 * i]) && i == 3));

    /* 0-dim */
    rs_tensor s0 = vec(a, RS_FLOAT64, 1), d0 = vec(b + 4, RS_BFLOAT16, 1);
    s0.ndim = d0.ndim = 0;
    CHECK_OK(rs_copy(g_s, &d0, &s0));
    uint16_t bv;
    CHECK_OK(rs_memcpy_dtoh(g_s, &bv, b + 4, 2));
    CHECK(bv == rs_bf16_from_f32((float)dv[0]));

    /* empty: no work, no error; mismatched sizes: an error */
    rs_tensor e0 = vec(a, RS_FLOAT32, 0), e1 = vec(b, RS_INT8, 0);
    CHECK_OK(rs_copy(g_s, &e1, &e0));
    rs_tensor m0 = vec(a, RS_FLOAT32, 3), m1 = vec(b, RS_FLOAT32, 4);
    CHECK(rs_copy(g_s, &m1, &m0) == RS_ERR_INVALID && strlen(rs_last_error()) > 0);
    rs_free(g_dev, a);
    rs_free(g_dev, b);
}

/* ---------------------------------------------------------------- fill */

TEST(fill_every_element_size) {
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, 8192, g_s, &a));
    uint8_t out[8192], value[16];
    for (int i = 0; i < 16; ++i) value[i] = (uint8_t)(0xA0 + i * 7);
    const rs_dtype dts[5] = {RS_INT8, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
    const int64_t lens[3] = {37, 64, 1};
    for (int k = 0; k < 5; ++k) {
        size_t es = rs_dtype_size(dts[k]);
        for (int li = 0; li < 3; ++li) {
            int64_t n = lens[li];
            memset(out, 0x11, sizeof out);
            CHECK_OK(rs_memcpy_htod(g_s, a, out, sizeof out));
            rs_tensor t = vec(a + es, dts[k], n); /* offset by one element */
            CHECK_OK(rs_fill(g_s, &t, value));
            /* strided: every third element of the next region */
            rs_tensor u = vec(a + 4096, dts[k], n);
            u.strides[0] = 3;
            CHECK_OK(rs_fill(g_s, &u, value));
            CHECK_OK(rs_memcpy_dtoh(g_s, out, a, sizeof out));
            for (int64_t i = 0; i < n + 2; ++i) {
                int inside = i >= 1 && i <= n;
                for (size_t b = 0; b < es; ++b)
                    CHECK(out[i * es + b] == (inside ? value[b] : 0x11));
            }
            for (int64_t i = 0; i < 3 * n; ++i)
                for (size_t b = 0; b < es; ++b)
                    CHECK(out[4096 + i * es + b] == (i % 3 == 0 ? value[b] : 0x11));
        }
    }
    rs_tensor e = vec(a, RS_FLOAT32, 0);
    CHECK_OK(rs_fill(g_s, &e, value));
    rs_free(g_dev, a);
}

/* ---------------------------------------------------------------- random */

static void host_block(uint64_t seed, uint64_t offset, uint64_t blk, uint32_t w[4]) {
    uint64_t c = offset >> 2;
    uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), (uint32_t)blk, (uint32_t)(blk >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    rs_philox4x32_10(ctr, key, w);
}

TEST(philox_known_answers) {
    /* Random123's kat_vectors for philox4x32_10 */
    uint32_t out[4];
    uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
    rs_philox4x32_10(c0, k0, out);
    CHECK(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu &&
          out[3] == 0x9b00dbd8u);
    uint32_t c1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    uint32_t k1[2] = {0xffffffffu, 0xffffffffu};
    rs_philox4x32_10(c1, k1, out);
    CHECK(out[0] == 0x408f276du && out[1] == 0x41c83b0eu && out[2] == 0xa20bc7c6u &&
          out[3] == 0x6d5451fdu);
    uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    uint32_t k2[2] = {0xa4093822u, 0x299f31d0u};
    rs_philox4x32_10(c2, k2, out);
    CHECK(out[0] == 0xd16cfe09u && out[1] == 0x94fdccebu && out[2] == 0x5001e420u &&
          out[3] == 0x24126ea1u);
    CHECK(rs_rng_offset_increment(0) == 0 && rs_rng_offset_increment(1000) == 4);
}

TEST(rng_uniform) {
    enum { N = 1003 };
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, N * 16, g_s, &a));
    static float f[N], g[N];
    uint64_t seed = 0x123456789abcdefull, off = 8;
    rs_tensor t = vec(a, RS_FLOAT32, N);
    CHECK_OK(rs_rng_uniform(g_s, &t, 0.0, 1.0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    /* bit-exact against the host Philox and the documented layout */
    for (int i = 0; i < N; ++i) {
        uint32_t w[4];
        host_block(seed, off, (uint64_t)i / 4, w);
        CHECK(f[i] == (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f));
    }
    /* reproducible; a new offset gives new numbers */
    CHECK_OK(rs_rng_uniform(g_s, &t, 0.0, 1.0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, g, a, sizeof g));
    CHECK(memcmp(f, g, sizeof f) == 0);
    CHECK_OK(rs_rng_uniform(g_s, &t, 0.0, 1.0, seed, off + rs_rng_offset_increment(N)));
    CHECK_OK(rs_memcpy_dtoh(g_s, g, a, sizeof g));
    int same = 0;
    for (int i = 0; i < N; ++i) same += f[i] == g[i];
    CHECK(same < 5);
    /* range and mean, for float32 and the 16-bit floats */
    CHECK_OK(rs_rng_uniform(g_s, &t, -3.0, 5.0, seed, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    double mean = 0;
    for (int i = 0; i < N; ++i) {
        CHECK(f[i] >= -3.0f && f[i] < 5.0f);
        mean += f[i] / N;
    }
    CHECK(fabs(mean - 1.0) < 0.3);
    rs_tensor h = vec(a, RS_BFLOAT16, N);
    CHECK_OK(rs_rng_uniform(g_s, &h, 2.0, 4.0, seed, 0));
    uint16_t hv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, hv, a, sizeof hv));
    for (int i = 0; i < N; ++i) CHECK(rs_bf16_to_f32(hv[i]) >= 2.0f && rs_bf16_to_f32(hv[i]) < 4.0f);
    /* strided dst: element i of the logical order gets the same number */
    rs_tensor tr = vec(a + 4, RS_FLOAT32, 100);
    tr.strides[0] = 3;
    CHECK_OK(rs_rng_uniform(g_s, &tr, 0.0, 1.0, seed, off));
    static float st[300];
    CHECK_OK(rs_memcpy_dtoh(g_s, st, a + 4, sizeof st));
    CHECK_OK(rs_memcpy_dtoh(g_s, g, a, 4)); /* sync */
    /* f[] was overwritten: recompute the first numbers on the host */
    for (int i = 0; i < 100; ++i) {
        uint32_t w[4];
        host_block(seed, off, (uint64_t)i / 4, w);
        CHECK(st[3 * i] == (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f));
    }
    /* float64: native with fp64, else unsupported */
    rs_tensor d = vec(a, RS_FLOAT64, N);
    rs_status r = rs_rng_uniform(g_s, &d, 1.0, 2.0, seed, 0);
    if (has_fp64()) {
        CHECK_OK(r);
        static double dv[N];
        CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
        for (int i = 0; i < N; ++i) CHECK(dv[i] >= 1.0 && dv[i] < 2.0);
    } else {
        CHECK(r == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "float64"));
    }
    /* complex64 draws its real view */
    rs_tensor c = vec(a, RS_COMPLEX64, 10);
    CHECK_OK(rs_rng_uniform(g_s, &c, 0.0, 1.0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, g, a, 80));
    for (int i = 0; i < 20; ++i) {
        uint32_t w[4];
        host_block(seed, off, (uint64_t)i / 4, w);
        CHECK(g[i] == (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f));
    }
    rs_tensor bad = vec(a, RS_INT32, 4);
    CHECK(rs_rng_uniform(g_s, &bad, 0, 1, seed, 0) == RS_ERR_INVALID);
    rs_free(g_dev, a);
}

TEST(rng_normal) {
    enum { N = 8192 };
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, N * 8, g_s, &a));
    static float f[N];
    rs_tensor t = vec(a, RS_FLOAT32, N);
    CHECK_OK(rs_rng_normal(g_s, &t, 2.0, 3.0, 42, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    double m = 0, v = 0;
    for (int i = 0; i < N; ++i) m += f[i] / N;
    for (int i = 0; i < N; ++i) v += (f[i] - m) * (f[i] - m) / (N - 1);
    CHECK(fabs(m - 2.0) < 0.15 && fabs(sqrt(v) - 3.0) < 0.15);
    rs_tensor h = vec(a, RS_FLOAT16, N);
    CHECK_OK(rs_rng_normal(g_s, &h, 0.0, 1.0, 43, 4));
    static uint16_t hv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, hv, a, sizeof hv));
    m = 0;
    for (int i = 0; i < N; ++i) m += rs_f16_to_f32(hv[i]) / N;
    CHECK(fabs(m) < 0.1);
    rs_tensor d = vec(a, RS_FLOAT64, N);
    rs_status r = rs_rng_normal(g_s, &d, -1.0, 0.5, 44, 0);
    if (has_fp64()) {
        CHECK_OK(r);
        static double dv[N];
        CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
        m = v = 0;
        for (int i = 0; i < N; ++i) m += dv[i] / N;
        for (int i = 0; i < N; ++i) v += (dv[i] - m) * (dv[i] - m) / (N - 1);
        CHECK(fabs(m + 1.0) < 0.05 && fabs(sqrt(v) - 0.5) < 0.05);
    } else {
        CHECK(r == RS_ERR_UNSUPPORTED);
    }
    rs_free(g_dev, a);
}

TEST(rng_random) {
    enum { N = 999 };
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, N * 8, g_s, &a));
    static int64_t iv[N];
    rs_tensor t = vec(a, RS_INT64, N);
    CHECK_OK(rs_rng_random(g_s, &t, -5, 10, 7, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    int seen[10] = {0};
    for (int i = 0; i < N; ++i) {
        CHECK(iv[i] >= -5 && iv[i] < 5);
        seen[iv[i] + 5] = 1;
        uint32_t w[4];
        host_block(7, 0, (uint64_t)i / 4, w);
        CHECK(iv[i] == -5 + (int64_t)(w[i % 4] % 10));
    }
    for (int k = 0; k < 10; ++k) CHECK(seen[k]);
    /* full 64-bit range */
    CHECK_OK(rs_rng_random(g_s, &t, 0, 0, 7, 4));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    for (int i = 0; i < 10; ++i) {
        uint32_t w[4];
        host_block(7, 4, (uint64_t)i / 2, w);
        CHECK((uint64_t)iv[i] == ((uint64_t)w[(i % 2) * 2 + 1] << 32 | w[(i % 2) * 2]));
    }
    /* bool gets 0/1; floats get integers; float64 works without fp64 */
    rs_tensor b = vec(a, RS_BOOL, N);
    CHECK_OK(rs_rng_random(g_s, &b, 0, 2, 9, 0));
    uint8_t bv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, bv, a, N));
    int ones = 0;
    for (int i = 0; i < N; ++i) {
        CHECK(bv[i] <= 1);
        ones += bv[i];
    }
    CHECK(ones > N / 4 && ones < 3 * N / 4);
    rs_tensor d = vec(a, RS_FLOAT64, N);
    CHECK_OK(rs_rng_random(g_s, &d, 0, 1u << 24, 9, 0));
    static double dv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
    for (int i = 0; i < N; ++i) CHECK(dv[i] == floor(dv[i]) && dv[i] >= 0 && dv[i] < 16777216.0);
    rs_tensor u8 = vec(a, RS_UINT8, N);
    CHECK_OK(rs_rng_random(g_s, &u8, 0, 256, 11, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, bv, a, N));
    int distinct = 0, hist[256] = {0};
    for (int i = 0; i < N; ++i) distinct += hist[bv[i]]++ == 0;
    CHECK(distinct > 200);
    rs_free(g_dev, a);
}

/* the float32 uniform element i of (seed, off) draws, as rng.comp makes it */
static float host_u01(uint64_t seed, uint64_t off, int64_t i) {
    uint32_t w[4];
    host_block(seed, off, (uint64_t)i / 4, w);
    return (float)(w[i % 4] >> 8) * (1.0f / 16777216.0f);
}

static int close_rel(double got, double want, double tol) {
    return fabs(got - want) <= tol * (1.0 + fabs(want));
}

/* rs_rng_sample: each element is its uniform's transform (bernoulli bit
 * for bit, the others to float32 rounding of libm's), over strided and
 * integer and float64 dsts, the probabilities as a strided tensor, and the
 * argument errors */
TEST(rng_sample_transforms_each_uniform) {
    enum { N = 1003 };
    uint64_t a = 0, b = 0;
    CHECK_OK(rs_alloc(g_dev, N * 24, g_s, &a));
    CHECK_OK(rs_alloc(g_dev, N * 16, g_s, &b));
    const uint64_t seed = 0xfeedull, off = 12;
    static float f[3 * N];
    static int64_t iv[N];
    static double dv[N];
    /* bernoulli into a float32 view of stride 3, into int64, into float64 */
    rs_tensor t3 = vec(a, RS_FLOAT32, N);
    t3.strides[0] = 3;
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &t3, NULL, 0.3, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    int ones = 0;
    for (int i = 0; i < N; ++i) {
        CHECK(f[3 * i] == (host_u01(seed, off, i) < 0.3f ? 1.0f : 0.0f));
        ones += f[3 * i] == 1.0f;
    }
    CHECK(ones > N / 5 && ones < 2 * N / 5);
    rs_tensor ti = vec(a, RS_INT64, N), td = vec(a, RS_FLOAT64, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &ti, NULL, 0.5, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    for (int i = 0; i < N; ++i) CHECK(iv[i] == (host_u01(seed, off, i) < 0.5f));
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &td, NULL, 0.5, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
    for (int i = 0; i < N; ++i) CHECK(dv[i] == (host_u01(seed, off, i) < 0.5f ? 1.0 : 0.0));
    /* probabilities from a tensor: a transposed-like float32 view (stride 2) */
    static float p[2 * N];
    for (int i = 0; i < 2 * N; ++i) p[i] = (float)(i % 11) / 10.0f;
    CHECK_OK(rs_memcpy_htod(g_s, b, p, sizeof p));
    rs_tensor tp = vec(b, RS_FLOAT32, N);
    tp.strides[0] = 2;
    rs_tensor tb = vec(a, RS_BOOL, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI_TENSOR, &tb, &tp, 0, 0, seed, off));
    static uint8_t bv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, bv, a, sizeof bv));
    for (int i = 0; i < N; ++i) CHECK(bv[i] == (host_u01(seed, off, i) < p[2 * i]));
    /* float64 probabilities: read as bits on every device */
    static double pd[N];
    for (int i = 0; i < N; ++i) pd[i] = (double)(i % 7) / 6.0;
    CHECK_OK(rs_memcpy_htod(g_s, b, pd, sizeof pd));
    rs_tensor tpd = vec(b, RS_FLOAT64, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI_TENSOR, &ti, &tpd, 0, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    for (int i = 0; i < N; ++i) CHECK(iv[i] == (host_u01(seed, off, i) < (float)pd[i]));
    /* the continuous transforms, against libm in double */
    rs_tensor t = vec(a, RS_FLOAT32, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_EXPONENTIAL, &t, NULL, 2.5, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, N * 4));
    for (int i = 0; i < N; ++i) CHECK(close_rel(f[i], -1.0 / 2.5 * log1p(-(double)host_u01(seed, off, i)), 1e-5));
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_CAUCHY, &t, NULL, 1.0, 0.5, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, N * 4));
    for (int i = 0; i < N; ++i) {
        double u = host_u01(seed, off, i), want = 1.0 + 0.5 * tan(M_PI * (u - 0.5));
        CHECK(close_rel(f[i], want, fabs(u - 0.5) > 0.49 ? 1e-3 : 1e-5)); /* tan near its pole */
    }
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_GEOMETRIC, &ti, NULL, 0.2, 0, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    int near = 0;
    for (int i = 0; i < N; ++i) {
        double x = log(1.0 - (double)host_u01(seed, off, i)) / log1p(-0.2), want = fmax(ceil(x), 1.0);
        near += fabs(x - round(x)) < 1e-4; /* on a boundary float32 may round either way */
        CHECK(iv[i] == (int64_t)want || fabs(x - round(x)) < 1e-4);
    }
    CHECK(near < N / 20);
    /* log-normal: exp of the float32 normals rs_rng_normal writes */
    static float nv[N];
    CHECK_OK(rs_rng_normal(g_s, &t, 0.5, 0.25, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, nv, a, N * 4));
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_LOG_NORMAL, &t, NULL, 0.5, 0.25, seed, off));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, N * 4));
    for (int i = 0; i < N; ++i) CHECK(close_rel(f[i], exp((double)nv[i]), 1e-5));
    /* bfloat16 dst: the float result rounded */
    rs_tensor th = vec(a, RS_BFLOAT16, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_EXPONENTIAL, &th, NULL, 1.0, 0, seed, off));
    static uint16_t hv[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, hv, a, sizeof hv));
    for (int i = 0; i < N; ++i)
        CHECK(close_rel(rs_bf16_to_f32(hv[i]), -log1p(-(double)host_u01(seed, off, i)), 1e-2));
    /* float64 continuous values: fp64 devices only */
    rs_status r = rs_rng_sample(g_s, RS_RNG_EXPONENTIAL, &td, NULL, 1.0, 0, seed, off);
    CHECK(has_fp64() ? r == RS_OK : (r == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "float64")));
    /* errors */
    rs_tensor tc = vec(a, RS_COMPLEX64, 4);
    CHECK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &tc, NULL, 0.5, 0, seed, off) == RS_ERR_INVALID);
    CHECK(rs_rng_sample(g_s, RS_RNG_EXPONENTIAL, &ti, NULL, 1.0, 0, seed, off) == RS_ERR_INVALID);
    CHECK(rs_rng_sample(g_s, RS_RNG_BERNOULLI_TENSOR, &t, NULL, 0, 0, seed, off) == RS_ERR_INVALID);
    CHECK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &t, &tp, 0.5, 0, seed, off) == RS_ERR_INVALID);
    CHECK(rs_rng_sample(g_s, (rs_rng_dist)9, &t, NULL, 0, 0, seed, off) == RS_ERR_INVALID);
    rs_tensor tp_short = vec(b, RS_FLOAT32, N - 1);
    CHECK(rs_rng_sample(g_s, RS_RNG_BERNOULLI_TENSOR, &t, &tp_short, 0, 0, seed, off) == RS_ERR_INVALID);
    CHECK_OK(rs_stream_synchronize(g_s));
    rs_free(g_dev, a);
    rs_free(g_dev, b);
}

/* rs_dropout: the mask is the bernoulli of 1 - p on the same draws, out is
 * (x * mask) * scale rounded once, over strided views; p = 1 drops
 * everything; float64 needs fp64; the argument errors */
TEST(dropout_mask_and_scaled_output) {
    enum { N = 777 };
    uint64_t ax = 0, ao = 0, am = 0;
    CHECK_OK(rs_alloc(g_dev, N * 16, g_s, &ax));
    CHECK_OK(rs_alloc(g_dev, N * 16, g_s, &ao));
    CHECK_OK(rs_alloc(g_dev, N * 2, g_s, &am));
    static float x[2 * N], o[2 * N];
    static uint8_t m[N];
    for (int i = 0; i < 2 * N; ++i) x[i] = (float)sin(i * 0.37) * 3.0f;
    x[4] = NAN;
    CHECK_OK(rs_memcpy_htod(g_s, ax, x, sizeof x));
    const uint64_t seed = 99, off = 40;
    rs_tensor tx = vec(ax, RS_FLOAT32, N), to = vec(ao, RS_FLOAT32, N), tm = vec(am, RS_BOOL, N);
    tx.strides[0] = 2; /* x every other element; out and mask dense */
    CHECK_OK(rs_dropout(g_s, &tx, 0.25, seed, off, &to, &tm));
    CHECK_OK(rs_memcpy_dtoh(g_s, o, ao, N * 4));
    CHECK_OK(rs_memcpy_dtoh(g_s, m, am, N));
    const float keep = 0.75f, scale = (float)(1.0 / 0.75);
    int kept = 0;
    for (int i = 0; i < N; ++i) {
        int want = host_u01(seed, off, i) < keep;
        CHECK(m[i] == want);
        kept += want;
        volatile float t = x[2 * i] * (want ? 1.0f : 0.0f);
        float e = t * scale;
        CHECK(memcmp(&o[i], &e, 4) == 0 || (isnan(o[i]) && isnan(e)));
    }
    CHECK(kept > N / 2 && kept < 7 * N / 8);
    /* the same draws as a bernoulli of 1 - p into a mask */
    rs_tensor tb = vec(ao, RS_BOOL, N);
    CHECK_OK(rs_rng_sample(g_s, RS_RNG_BERNOULLI, &tb, NULL, 0.75, 0, seed, off));
    static uint8_t mb[N];
    CHECK_OK(rs_memcpy_dtoh(g_s, mb, ao, N));
    CHECK(memcmp(m, mb, N) == 0);
    /* p = 1: nothing kept, zeros out (NaN stays NaN, as x * 0 * 0) */
    to = vec(ao, RS_FLOAT32, N);
    CHECK_OK(rs_dropout(g_s, &tx, 1.0, seed, off, &to, &tm));
    CHECK_OK(rs_memcpy_dtoh(g_s, o, ao, N * 4));
    CHECK_OK(rs_memcpy_dtoh(g_s, m, am, N));
    for (int i = 0; i < N; ++i) CHECK(m[i] == 0 && (o[i] == 0.0f || (i == 2 && isnan(o[i]))));
    /* float16 */
    static uint16_t hx[N], ho[N];
    for (int i = 0; i < N; ++i) hx[i] = c10_fp16((float)i / 64.0f);
    CHECK_OK(rs_memcpy_htod(g_s, ax, hx, sizeof hx));
    rs_tensor hxt = vec(ax, RS_FLOAT16, N), hot = vec(ao, RS_FLOAT16, N);
    CHECK_OK(rs_dropout(g_s, &hxt, 0.5, seed, off, &hot, &tm));
    CHECK_OK(rs_memcpy_dtoh(g_s, ho, ao, sizeof ho));
    CHECK_OK(rs_memcpy_dtoh(g_s, m, am, N));
    for (int i = 0; i < N; ++i) CHECK(ho[i] == c10_fp16(m[i] ? c10_fp16_to_f32(hx[i]) * 2.0f : 0.0f));
    /* float64: fp64 devices only */
    rs_tensor dx = vec(ax, RS_FLOAT64, N), dout = vec(ao, RS_FLOAT64, N);
    rs_status r = rs_dropout(g_s, &dx, 0.5, seed, off, &dout, &tm);
    CHECK(has_fp64() ? r == RS_OK : (r == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "float64")));
    /* errors */
    CHECK(rs_dropout(g_s, &tx, 1.5, seed, off, &to, &tm) == RS_ERR_INVALID);
    CHECK(rs_dropout(g_s, &tx, 0.5, seed, off, &hot, &tm) == RS_ERR_INVALID);
    CHECK(rs_dropout(g_s, &tx, 0.5, seed, off, &to, &to) == RS_ERR_INVALID);
    rs_tensor ix = vec(ax, RS_INT32, N), io = vec(ao, RS_INT32, N);
    CHECK(rs_dropout(g_s, &ix, 0.5, seed, off, &io, &tm) == RS_ERR_UNSUPPORTED);
    CHECK_OK(rs_stream_synchronize(g_s));
    rs_free(g_dev, ax);
    rs_free(g_dev, ao);
    rs_free(g_dev, am);
}

/* rs_multinomial: samples follow p (with replacement, into a transposed
 * out, from a transposed p), distinct categories without replacement and
 * never one of probability 0, the argmax path, the same samples for the
 * same (seed, offset), and its argument errors */
TEST(multinomial_samples_follow_p) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { R = 3, C = 4, N = 4000 };
    /* p stored (C, R): row r of the view is column r here */
    const float pt[C * R] = {0.1f, 0, 0.25f, 0, 0, 0.25f, 0.6f, 1, 0.25f, 0.3f, 0, 0.25f};
    const float want[R][C] = {{0.1f, 0, 0.6f, 0.3f}, {0, 0, 1, 0}, {0.25f, 0.25f, 0.25f, 0.25f}};
    uint64_t dp = ctest_upload(dev, s, pt, sizeof pt), dout = 0;
    const int64_t psz[2] = {R, C}, osz[2] = {R, N};
    rs_tensor p = ctest_view(dp, RS_FLOAT32, 2, psz);
    p.strides[0] = 1, p.strides[1] = R;
    CHECK_OK(rs_alloc(dev, (uint64_t)R * N * 8, s, &dout));
    rs_tensor o = ctest_view(dout, RS_INT64, 2, osz);
    o.strides[0] = 1, o.strides[1] = R; /* (N, R) in memory */
    static int64_t a[R * N], b[R * N];
    CHECK_OK(rs_multinomial(s, &p, N, 1, 7, 0, &o));
    CHECK_OK(rs_memcpy_dtoh(s, a, dout, sizeof a));
    CHECK_OK(rs_stream_synchronize(s));
    for (int r = 0; r < R; ++r) {
        int hist[C] = {0};
        for (int i = 0; i < N; ++i) {
            int64_t c = a[i * R + r];
            CHECK(c >= 0 && c < C);
            if (c >= 0 && c < C) hist[c]++;
        }
        for (int c = 0; c < C; ++c) CHECK(fabsf((float)hist[c] / N - want[r][c]) < 0.04f);
        CHECK(hist[1] == 0 || r == 2);
    }
    /* the same draw again: the same samples; another offset: others */
    CHECK_OK(rs_multinomial(s, &p, N, 1, 7, 0, &o));
    CHECK_OK(rs_memcpy_dtoh(s, b, dout, sizeof b));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK_OK(rs_multinomial(s, &p, N, 1, 7, 4, &o));
    CHECK_OK(rs_memcpy_dtoh(s, b, dout, sizeof b));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(memcmp(a, b, sizeof a) != 0);
    /* without replacement: rows 0 and 2, three samples each (row 1 has one
     * category, so it takes one sample alone below) */
    const int64_t p2sz[2] = {1, C}, o3sz[2] = {1, 3};
    rs_tensor p0 = ctest_view(dp, RS_FLOAT32, 2, p2sz);
    p0.strides[1] = R; /* row 0 of the view */
    rs_tensor o3 = ctest_view(dout, RS_INT64, 2, o3sz);
    for (int t = 0; t < 50; ++t) {
        CHECK_OK(rs_multinomial(s, &p0, 3, 0, 11, 4 * (uint64_t)t, &o3));
        int64_t got[3];
        CHECK_OK(rs_memcpy_dtoh(s, got, dout, sizeof got));
        CHECK_OK(rs_stream_synchronize(s));
        CHECK(got[0] != 1 && got[1] != 1 && got[2] != 1);
        CHECK(got[0] != got[1] && got[1] != got[2] && got[0] != got[2]);
    }
    /* one sample: the argmax path; row 1 always category 2 */
    const int64_t o1sz[2] = {R, 1};
    rs_tensor o1 = ctest_view(dout, RS_INT64, 2, o1sz);
    CHECK_OK(rs_multinomial(s, &p, 1, 0, 3, 0, &o1));
    int64_t one[R];
    CHECK_OK(rs_memcpy_dtoh(s, one, dout, sizeof one));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(one[1] == 2 && one[0] != 1 && one[0] >= 0 && one[0] < C);
    /* errors: more samples than categories without replacement, a wrong out */
    const int64_t o5sz[2] = {R, 5};
    rs_tensor o5 = ctest_view(dout, RS_INT64, 2, o5sz);
    CHECK(rs_multinomial(s, &p, 5, 0, 1, 0, &o5) == RS_ERR_INVALID);
    CHECK(rs_multinomial(s, &p, 4, 1, 1, 0, &o5) == RS_ERR_INVALID);
    o5.dtype = RS_INT32;
    CHECK(rs_multinomial(s, &p, 5, 1, 1, 0, &o5) == RS_ERR_INVALID);
    rs_free(dev, dp);
    rs_free(dev, dout);
}

/* ---------------------------------------------------------------- arange, linspace */

static int64_t ulp_diff(float a, float b) {
    int32_t x = (int32_t)fb(a), y = (int32_t)fb(b);
    if (x < 0) x = INT32_MIN - x;
    if (y < 0) y = INT32_MIN - y;
    return llabs((long long)x - y);
}

/* multinomial's checks raise CPU's message of highest rank at the sync,
 * and nothing for valid probabilities (a transposed view, float16) */
static rs_status multinomial_case(rs_stream *s, const float *p, int rows, int cols, int transposed, int replacement) {
    rs_device *dev = rs_stream_device(s);
    uint64_t d = ctest_upload(dev, s, p, (size_t)(rows * cols) * 4);
    const int64_t sz[2] = {rows, cols};
    rs_tensor t = ctest_view(d, RS_FLOAT32, 2, sz);
    if (transposed) { /* the buffer holds (cols, rows) */
        t.strides[0] = 1, t.strides[1] = rows;
    }
    rs_status st = rs_multinomial_check(s, &t, replacement);
    if (st == RS_OK) st = rs_stream_synchronize(s);
    rs_free(dev, d);
    return st;
}

TEST(multinomial_checks_on_the_device) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const float ok[6] = {0.1f, 0, 0.3f, 2, 0.5f, 1e-30f};
    CHECK_OK(multinomial_case(s, ok, 2, 3, 0, 1));
    CHECK_OK(multinomial_case(s, ok, 3, 2, 1, 0));
    /* row 1 all zero, row 0 holds an inf: the inf's message wins (CPU's order) */
    const float inf_and_zero[6] = {1, INFINITY, 2, 0, 0, 0};
    CHECK(multinomial_case(s, inf_and_zero, 2, 3, 0, 1) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "infinity or NaN") != NULL);
    CHECK(multinomial_case(s, inf_and_zero, 2, 3, 0, 0) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "`inf`, `nan` or element < 0") != NULL);
    /* a NaN: the "< 0" message with replacement (CPU's >= 0 check fails first) */
    const float nan_and_neg[4] = {NAN, 1, 1, 1};
    CHECK(multinomial_case(s, nan_and_neg, 2, 2, 0, 1) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "entry < 0") != NULL);
    const float zero_row[6] = {1, 2, 3, 0, 0, -0.0f};
    CHECK(multinomial_case(s, zero_row, 2, 3, 0, 0) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "sum of probabilities") != NULL && strstr(rs_last_error(), "multinomial") != NULL);
    /* many rows and wide ones (past the workgroup), the bad entry last */
    enum { R = 7, C = 700 };
    static float wide[R * C];
    for (int i = 0; i < R * C; ++i) wide[i] = 0.5f;
    CHECK_OK(multinomial_case(s, wide, R, C, 0, 1));
    wide[R * C - 1] = -1;
    CHECK(multinomial_case(s, wide, R, C, 0, 1) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "entry < 0"));
    const int64_t one = 3;
    rs_tensor v = ctest_view(64, RS_FLOAT32, 1, &one);
    CHECK(rs_multinomial_check(s, &v, 0) == RS_ERR_INVALID);
}

TEST(arange) {
    enum { N = 1000 };
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, N * 8, g_s, &a));
    static int64_t iv[N];
    rs_tensor t = vec(a, RS_INT64, N);
    CHECK_OK(rs_arange(g_s, &t, 3.7, -2.2)); /* int64: start 3, step -2 */
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, sizeof iv));
    for (int i = 0; i < N; ++i) CHECK(iv[i] == 3 - 2LL * i);
    rs_tensor i8 = vec(a, RS_INT8, 300);
    CHECK_OK(rs_arange(g_s, &i8, 0, 1));
    int8_t bv[300];
    CHECK_OK(rs_memcpy_dtoh(g_s, bv, a, 300));
    for (int i = 0; i < 300; ++i) CHECK(bv[i] == (int8_t)(uint8_t)i);
    /* float32: the CPU computes start + step * i in double */
    static float f[N];
    rs_tensor ft = vec(a, RS_FLOAT32, N);
    CHECK_OK(rs_arange(g_s, &ft, -1.3, 0.1));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    int inexact = 0;
    for (int i = 0; i < N; ++i) {
        float want = (float)(-1.3 + 0.1 * (double)i);
        CHECK(ulp_diff(f[i], want) <= 1);
        inexact += f[i] != want;
    }
    CHECK(inexact <= N / 100);
    /* float16: the CPU accumulates in float */
    rs_tensor ht = vec(a, RS_FLOAT16, 500);
    CHECK_OK(rs_arange(g_s, &ht, 0.5, 0.25));
    uint16_t hv[500];
    CHECK_OK(rs_memcpy_dtoh(g_s, hv, a, sizeof hv));
    for (int i = 0; i < 500; ++i) CHECK(hv[i] == rs_f16_from_f32(0.5f + 0.25f * (float)i));
    rs_tensor dt = vec(a, RS_FLOAT64, N);
    rs_status r = rs_arange(g_s, &dt, 1.0, 1e-3);
    if (has_fp64()) {
        CHECK_OK(r);
        static double dv[N];
        CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
        for (int i = 0; i < N; ++i) CHECK(dv[i] == 1.0 + 1e-3 * i);
    } else {
        CHECK(r == RS_ERR_UNSUPPORTED);
    }
    rs_tensor bt = vec(a, RS_BOOL, 3);
    CHECK(rs_arange(g_s, &bt, 0, 1) == RS_ERR_INVALID);
    rs_free(g_dev, a);
}

TEST(linspace) {
    enum { N = 101 };
    uint64_t a = 0;
    CHECK_OK(rs_alloc(g_dev, N * 8, g_s, &a));
    float f[N];
    rs_tensor t = vec(a, RS_FLOAT32, N);
    CHECK_OK(rs_linspace(g_s, &t, -1.0, 3.3, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, sizeof f));
    float s = -1.0f, e = 3.3f, st = (e - s) / (float)(N - 1);
    for (int i = 0; i < N; ++i) {
        /* one rounding per element, as CPU's build fuses the multiply-add */
        float want = i < N / 2 ? fmaf(st, (float)i, s) : fmaf(-st, (float)(N - i - 1), e);
        CHECK(f[i] == want);
    }
    CHECK(f[0] == -1.0f && f[N - 1] == 3.3f);
    /* steps == 1 gives start */
    rs_tensor one = vec(a, RS_FLOAT32, 1);
    CHECK_OK(rs_linspace(g_s, &one, 7.0, 9.0, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, 4));
    CHECK(f[0] == 7.0f);
    /* int64 with an integral step: exact on every device */
    int64_t iv[N];
    rs_tensor it = vec(a, RS_INT64, 11);
    CHECK_OK(rs_linspace(g_s, &it, 0, 100, 0));
    CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, 11 * 8));
    for (int i = 0; i < 11; ++i) CHECK(iv[i] == 10 * i);
    rs_tensor it2 = vec(a, RS_INT64, 4);
    rs_status r = rs_linspace(g_s, &it2, 0, 10, 0); /* step 10/3 */
    if (has_fp64()) {
        CHECK_OK(r);
        CHECK_OK(rs_memcpy_dtoh(g_s, iv, a, 4 * 8));
        CHECK(iv[0] == 0 && iv[1] == 3 && iv[2] == 6 && iv[3] == 10);
    } else {
        CHECK(r == RS_ERR_UNSUPPORTED);
    }
    /* float16, rounding each operation to half as c10's Half arithmetic */
    rs_tensor ht = vec(a, RS_FLOAT16, 9);
    CHECK_OK(rs_linspace(g_s, &ht, 0.0, 1.0, 0));
    uint16_t hv[9];
    CHECK_OK(rs_memcpy_dtoh(g_s, hv, a, sizeof hv));
    for (int i = 0; i < 9; ++i) CHECK(rs_f16_to_f32(hv[i]) == 0.125f * (float)i);
    /* float16 in float, rounded once (torch 2.15's CPU): (-5, 7.3, 8)
     * gives -5, -3.2421875, ... where each operation rounded gives
     * -3.2441406 at 1 */
    rs_tensor h8 = vec(a, RS_FLOAT16, 8);
    uint16_t h8v[8];
    for (int once = 0; once < 2; ++once) {
        CHECK_OK(rs_linspace_rounding(g_s, &h8, -5.0, 7.3, 0, once));
        CHECK_OK(rs_memcpy_dtoh(g_s, h8v, a, sizeof h8v));
        CHECK_OK(rs_stream_synchronize(g_s));
        float hs = rs_f16_to_f32(rs_f16_from_f32(-5.0f)), he = rs_f16_to_f32(rs_f16_from_f32(7.3f));
        float hst = (he - hs) / 7.0f;
        int same = 0;
        for (int i = 0; i < 8; ++i) {
            float v = i < 4 ? hs + hst * (float)i : he - hst * (float)(7 - i);
            same += rs_f16_to_f32(h8v[i]) == rs_f16_to_f32(rs_f16_from_f32(v));
        }
        CHECK(once ? same == 8 : same < 8);
    }
    /* logspace */
    rs_tensor lt = vec(a, RS_FLOAT32, 7);
    CHECK_OK(rs_linspace(g_s, &lt, -2.0, 4.0, 10.0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, 7 * 4));
    for (int i = 0; i < 7; ++i) CHECK(f[i] == (float)pow(10.0, i - 2));
    CHECK_OK(rs_linspace(g_s, &lt, 0.0, 1.0, 2.0));
    CHECK_OK(rs_memcpy_dtoh(g_s, f, a, 7 * 4));
    for (int i = 0; i < 7; ++i) CHECK(fabs(f[i] - pow(2.0, i / 6.0)) < 4e-7 * pow(2.0, i / 6.0));
    rs_tensor dt = vec(a, RS_FLOAT64, N);
    r = rs_linspace(g_s, &dt, 0.0, 1.0, 0);
    if (has_fp64()) {
        CHECK_OK(r);
        double dv[N];
        CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, sizeof dv));
        double step = 1.0 / (N - 1);
        for (int i = 0; i < N; ++i)
            CHECK(dv[i] == (i < N / 2 ? step * i : 1.0 - step * (N - i - 1)));
        rs_tensor dl = vec(a, RS_FLOAT64, 5);
        CHECK_OK(rs_linspace(g_s, &dl, 0.5, 2.5, 3.0));
        CHECK_OK(rs_memcpy_dtoh(g_s, dv, a, 5 * 8));
        for (int i = 0; i < 5; ++i) CHECK(fabs(dv[i] - pow(3.0, 0.5 + 0.5 * i)) < 1e-14 * dv[i]);
    } else {
        CHECK(r == RS_ERR_UNSUPPORTED);
    }
    rs_free(g_dev, a);
}

/* rs_fastdiv_magic: fastdiv.glsl's (umulhi(n, m) + n) >> s, done here in
 * 64-bit host arithmetic, equals n / d for every divisor 1..4096 against
 * the numerators around its multiples, and for divisors up to 2^31 - 1
 * (powers of two and their neighbours, random ones) against edge and
 * random numerators up to 2^31 - 1 */
static uint32_t fd_lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

static uint32_t fastdiv_host(uint32_t n, uint64_t magic) {
    uint32_t hi = (uint32_t)(((uint64_t)n * (uint32_t)magic) >> 32);
    return (uint32_t)(((uint64_t)hi + n) >> (uint32_t)(magic >> 32));
}

TEST(fastdiv_magic) {
    int bad = 0;
    for (uint32_t d = 1; d <= 4096; ++d) {
        uint64_t mg = rs_fastdiv_magic(d);
        for (uint32_t q = 0; q < 64; ++q)
            for (int e = -1; e <= 1; ++e) {
                int64_t n = (int64_t)q * d + e;
                if (n >= 0) bad += fastdiv_host((uint32_t)n, mg) != (uint32_t)n / d;
            }
        bad += fastdiv_host(0x7fffffffu, mg) != 0x7fffffffu / d;
    }
    uint32_t seed = 3, ds[200];
    int nd = 0;
    for (int b = 1; b < 31; ++b) ds[nd++] = (1u << b) - 1, ds[nd++] = 1u << b, ds[nd++] = (1u << b) + 1;
    while (nd < 200) ds[nd++] = fd_lcg(&seed) % 0x7fffffffu + 1;
    for (int i = 0; i < nd; ++i) {
        uint32_t d = ds[i];
        uint64_t mg = rs_fastdiv_magic(d);
        uint32_t edge[6] = {0, d - 1, d, d + 1 <= 0x7fffffffu ? d + 1 : d, 0x7fffffffu, 0x7ffffffeu};
        for (int k = 0; k < 6; ++k) bad += fastdiv_host(edge[k], mg) != edge[k] / d;
        for (int k = 0; k < 2000; ++k) {
            uint32_t n = fd_lcg(&seed) & 0x7fffffffu;
            bad += fastdiv_host(n, mg) != n / d;
        }
    }
    CHECK(bad == 0);
}

/* the engines' capability queries (the adapter's choice of host
 * execution): each engine's dtype table, float64 kinds only with fp64 */
TEST(capability_queries) {
    const int f64 = has_fp64();
    CHECK(rs_norm_computes(g_dev, RS_FLOAT32) && rs_norm_computes(g_dev, RS_BFLOAT16));
    CHECK(!rs_norm_computes(g_dev, RS_INT32) && !rs_norm_computes(g_dev, RS_COMPLEX64));
    CHECK(rs_norm_computes(g_dev, RS_FLOAT64) == f64);
    CHECK(rs_linalg_computes(g_dev, RS_COMPLEX64) && !rs_linalg_computes(g_dev, RS_FLOAT16));
    CHECK(rs_linalg_computes(g_dev, RS_COMPLEX128) == f64);
    CHECK(rs_conv_computes(g_dev, RS_INT64) && rs_conv_computes(g_dev, RS_FLOAT16));
    CHECK(!rs_conv_computes(g_dev, RS_BOOL) && !rs_conv_computes(g_dev, RS_COMPLEX64));
    CHECK(rs_conv_computes(g_dev, RS_FLOAT64) == f64);
    /* index reductions: bits for COPY, CPU's refusals on the host */
    CHECK(rs_index_reduce_computes(g_dev, RS_COMPLEX128, RS_IR_COPY));
    CHECK(rs_index_reduce_computes(g_dev, RS_FLOAT8_E4M3FN, RS_IR_COPY));
    CHECK(!rs_index_reduce_computes(g_dev, RS_COMPLEX64, RS_IR_AMAX));
    CHECK(!rs_index_reduce_computes(g_dev, RS_BOOL, RS_IR_MEAN) && rs_index_reduce_computes(g_dev, RS_BOOL, RS_IR_SUM));
    CHECK(rs_index_reduce_computes(g_dev, RS_COMPLEX32, RS_IR_SUM) &&
          !rs_index_reduce_computes(g_dev, RS_COMPLEX32, RS_IR_PROD));
    CHECK(!rs_index_reduce_computes(g_dev, RS_UINT16, RS_IR_SUM));
    CHECK(rs_index_reduce_computes(g_dev, RS_FLOAT64, RS_IR_MEAN) == f64);
    CHECK(!rs_norm_computes(NULL, RS_FLOAT32));
}

int main(void) {
    g_dev = ctest_device();
    if (rs_stream_get(g_dev, 0, &g_s) != RS_OK) {
        fprintf(stderr, "no stream: %s\n", rs_last_error());
        return 1;
    }
    RUN(dtype_properties);
    RUN(fastdiv_magic);
    RUN(capability_queries);
    RUN(codecs_known_values);
    RUN(codecs_match_c10_sweep);
    RUN(philox_known_answers);
    RUN(copy_runs_along_the_last_dim);
    RUN(copy_contiguous_as_words);
    RUN(copy_strided_views);
    RUN(fill_every_element_size);
    RUN(rng_uniform);
    RUN(rng_normal);
    RUN(rng_random);
    RUN(rng_sample_transforms_each_uniform);
    RUN(dropout_mask_and_scaled_output);
    RUN(multinomial_checks_on_the_device);
    RUN(multinomial_samples_follow_p);
    RUN(arange);
    RUN(linspace);
    RUN(copy_every_dtype_pair);
    CTEST_END();
}
