/* The gradient scaler (russet/amp.h) without torch: unscaling float32
 * through a strided view and float16 (the product rounded once), found_inf
 * set by a NaN or an inf and never cleared; the scale's update: backoff,
 * growth at the interval (factors that are not float32 values: 2,000
 * products equal to float(double(s) * b), where a float Dekker product
 * was off by an ulp near midpoints), a grown scale that overflows, the
 * tracker; bad arguments. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static rs_tensor one_of(uint64_t a, rs_dtype dt) {
    const int64_t one = 1;
    return ctest_view(a, dt, 1, &one);
}

TEST(unscale_and_flag_non_finite) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { R = 5, C = 9, E = R * C };
    float g[E], got[E];
    for (int i = 0; i < E; ++i) g[i] = (float)(sin(i * 0.9) * 100.0);
    const float inv = 1.0f / 1024.0f * 3.0f, zero = 0.0f;
    uint64_t dg = ctest_upload(dev, s, g, sizeof g), di = ctest_upload(dev, s, &inv, 4), df = ctest_upload(dev, s, &zero, 4);
    const int64_t tsz[2] = {C, R};
    rs_tensor tg = ctest_view(dg, RS_FLOAT32, 2, tsz); /* read as its transpose: strided */
    tg.sizes[0] = R, tg.sizes[1] = C, tg.strides[0] = 1, tg.strides[1] = R;
    rs_tensor ti = one_of(di, RS_FLOAT32), tf = one_of(df, RS_FLOAT32);
    CHECK_OK(rs_amp_unscale(s, &tg, &tf, &ti));
    float flag;
    CHECK_OK(rs_memcpy_dtoh(s, got, dg, sizeof got));
    CHECK_OK(rs_memcpy_dtoh(s, &flag, df, 4));
    CHECK_OK(rs_stream_synchronize(s));
    for (int i = 0; i < E; ++i) CHECK(got[i] == g[i] * inv);
    CHECK(flag == 0.0f);
    /* a NaN sets the flag; a later finite gradient does not clear it */
    g[7] = NAN;
    CHECK_OK(rs_memcpy_htod(s, dg, g, sizeof g));
    CHECK_OK(rs_amp_unscale(s, &tg, &tf, &ti));
    g[7] = 1.0f, g[8] = -INFINITY;
    CHECK_OK(rs_memcpy_htod(s, dg, g, sizeof g));
    CHECK_OK(rs_amp_unscale(s, &tg, &tf, &ti));
    g[8] = 1.0f;
    CHECK_OK(rs_memcpy_htod(s, dg, g, sizeof g));
    CHECK_OK(rs_amp_unscale(s, &tg, &tf, &ti));
    CHECK_OK(rs_memcpy_dtoh(s, &flag, df, 4));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(flag == 1.0f);
    /* float16: 0x3C01 (1 + 2^-10) times 1 + 2^-11 + 2^-22 (float32): the
     * float32 product, 1 + 1.5 2^-10 and a little, rounds up to 1 + 2^-9
     * in float16 (0x3C02) */
    const uint16_t h = 0x3C01;
    const float f = 1.0f + ldexpf(1.0f, -11) + ldexpf(1.0f, -22);
    uint64_t dh = ctest_upload(dev, s, &h, 2);
    CHECK_OK(rs_memcpy_htod(s, di, &f, 4));
    rs_tensor th = one_of(dh, RS_FLOAT16);
    CHECK_OK(rs_amp_unscale(s, &th, &tf, &ti));
    uint16_t hg;
    CHECK_OK(rs_memcpy_dtoh(s, &hg, dh, 2));
    CHECK_OK(rs_stream_synchronize(s));
    if (hg != 0x3C02) fprintf(stderr, "  float16 unscale: %04x\n", hg);
    CHECK(hg == 0x3C02);
    /* refused: an integer gradient, a found_inf of two elements */
    rs_tensor bad = tg;
    bad.dtype = RS_INT32;
    CHECK(rs_amp_unscale(s, &bad, &tf, &ti) == RS_ERR_INVALID);
    const int64_t two = 2;
    rs_tensor f2 = ctest_view(df, RS_FLOAT32, 1, &two);
    CHECK(rs_amp_unscale(s, &tg, &f2, &ti) == RS_ERR_INVALID && strstr(rs_last_error(), "found_inf"));
    rs_free(dev, dg), rs_free(dev, di), rs_free(dev, df), rs_free(dev, dh);
}

/* one update from (scale, tracker, found_inf): the new scale and tracker */
static void update(rs_stream *s, uint64_t buf, float scale, int32_t tracker, float found, double growth,
                   double backoff, int64_t interval, float *out_scale, int32_t *out_tracker) {
    rs_device *dev = rs_stream_device(s);
    (void)dev;
    CHECK_OK(rs_memcpy_htod(s, buf, &scale, 4));
    CHECK_OK(rs_memcpy_htod(s, buf + 4, &tracker, 4));
    CHECK_OK(rs_memcpy_htod(s, buf + 8, &found, 4));
    rs_tensor ts = one_of(buf, RS_FLOAT32), tt = one_of(buf + 4, RS_INT32), tf = one_of(buf + 8, RS_FLOAT32);
    CHECK_OK(rs_amp_update_scale(s, &ts, &tt, &tf, growth, backoff, interval));
    CHECK_OK(rs_memcpy_dtoh(s, out_scale, buf, 4));
    CHECK_OK(rs_memcpy_dtoh(s, out_tracker, buf + 4, 4));
    CHECK_OK(rs_stream_synchronize(s));
}

TEST(update_scale_as_float_times_double) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t buf = 0;
    CHECK_OK(rs_alloc(dev, 16, s, &buf));
    float sc;
    int32_t tr;
    update(s, buf, 65536.0f, 5, 1.0f, 2.0, 0.5, 2000, &sc, &tr); /* found inf: back off */
    CHECK(sc == 32768.0f && tr == 0);
    update(s, buf, 65536.0f, 5, 0.0f, 2.0, 0.5, 2000, &sc, &tr); /* a step: the tracker */
    CHECK(sc == 65536.0f && tr == 6);
    update(s, buf, 65536.0f, 1999, 0.0f, 2.0, 0.5, 2000, &sc, &tr); /* the interval: growth */
    CHECK(sc == 131072.0f && tr == 0);
    /* factors that are not float32 values, scales of many mantissas */
    const double factors[5] = {1.1, 0.3, 1.0000001, 1.0 / 0.37, 0.999};
    int bad = 0;
    for (int f = 0; f < 5; ++f)
        for (int k = 0; k < 200; ++k) {
            /* scales of many mantissas and exponents, a subnormal one among them */
            const float s0 = k == 7 ? 1e-40f : (float)(1.0 + k * 0.0123456789) * ldexpf(1.0f, k % 80 - 20);
            update(s, buf, s0, 0, 0.0f, factors[f], 0.5, 1, &sc, &tr);
            const float want = (float)((double)s0 * factors[f]);
            if (sc != want || tr != 0) fprintf(stderr, "  s %.9g b %.17g: %.9g want %.9g\n", s0, factors[f], sc, want);
            bad += sc != want || tr != 0;
            update(s, buf, s0, 0, 1.0f, 2.0, factors[f], 1, &sc, &tr);
            bad += sc != (float)((double)s0 * factors[f]);
        }
    if (bad) fprintf(stderr, "  %d updates off float(double(s) * b)\n", bad);
    CHECK(bad == 0);
    /* a grown scale that overflows is not taken; the tracker restarts */
    update(s, buf, 3.0e38f, 0, 0.0f, 2.0, 0.5, 1, &sc, &tr);
    CHECK(sc == 3.0e38f && tr == 0);
    rs_tensor ts = one_of(buf, RS_FLOAT32), tt = one_of(buf + 4, RS_FLOAT32), tf = one_of(buf + 8, RS_FLOAT32);
    CHECK(rs_amp_update_scale(s, &ts, &tt, &tf, 2.0, 0.5, 1) == RS_ERR_INVALID && strstr(rs_last_error(), "growth_tracker"));
    rs_free(dev, buf);
}

int main(void) {
    RUN(unscale_and_flag_non_finite);
    RUN(update_scale_as_float_times_double);
    CTEST_END();
}
