/* rs_fft without torch: power-of-two lengths against a DFT computed here in
 * double, forward and inverse, several rows; bad lengths and an output that
 * is the input fail clearly; the device's constant tables (the twiddles). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

/* rows x n, forward or inverse, checked against the O(n^2) DFT; returns the
 * largest error relative to the row's largest magnitude */
static double run(rs_device *dev, rs_stream *s, int64_t rows, int64_t n, int inverse, int *failed) {
    size_t count = (size_t)(rows * n * 2);
    float *x = malloc(count * sizeof(float)), *y = malloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++) x[i] = (float)sin(0.37 * (double)i + 0.1) + (float)(i % 7) * 0.25f;
    uint64_t dx, dy;
    *failed = rs_alloc(dev, count * 4, s, &dx) != RS_OK || rs_alloc(dev, count * 4, s, &dy) != RS_OK;
    if (*failed) return 1;
    rs_memcpy_htod(s, dx, x, count * 4);
    rs_fft_desc d = {dx, dy, rows, n, inverse};
    *failed = rs_fft(s, &d) != RS_OK || rs_memcpy_dtoh(s, y, dy, count * 4) != RS_OK;
    double worst = 0;
    const double sign = inverse ? 2.0 : -2.0;
    double *cs = malloc((size_t)n * 2 * sizeof(double)); /* e^(sign pi i t / n), t < n */
    for (int64_t t = 0; t < n; t++) {
        cs[2 * t] = cos(sign * 3.14159265358979323846 * (double)t / (double)n);
        cs[2 * t + 1] = sin(sign * 3.14159265358979323846 * (double)t / (double)n);
    }
    for (int64_t r = 0; r < rows && !*failed; r++) {
        double mag = 1e-30, err = 0;
        for (int64_t k = 0; k < n; k++) {
            double re = 0, im = 0;
            for (int64_t j = 0; j < n; j++) {
                int64_t t = (j * k) % n;
                double xr = x[2 * (r * n + j)], xi = x[2 * (r * n + j) + 1];
                re += xr * cs[2 * t] - xi * cs[2 * t + 1];
                im += xr * cs[2 * t + 1] + xi * cs[2 * t];
            }
            double er = fabs(y[2 * (r * n + k)] - re), ei = fabs(y[2 * (r * n + k) + 1] - im);
            if (er > err) err = er;
            if (ei > err) err = ei;
            if (hypot(re, im) > mag) mag = hypot(re, im);
        }
        if (err / mag > worst) worst = err / mag;
    }
    free(cs);
    rs_free(dev, dx);
    rs_free(dev, dy);
    free(x);
    free(y);
    return worst;
}

TEST(fft_power_of_two_lengths) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* up to 4096: one workgroup a row in shared memory (where the device
     * has n * 8 bytes of it); 8192 and 16384: one dispatch a step */
    const int64_t lens[] = {1, 2, 4, 8, 16, 64, 256, 1024, 2048, 4096, 8192, 16384};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (int inv = 0; inv < 2; inv++) {
            int failed = 0;
            double e = run(dev, s, lens[i] >= 4096 ? 1 : 3, lens[i], inv, &failed);
            CHECK(!failed);
            if (getenv("FFT_VERBOSE") || !(e < 5e-7)) fprintf(stderr, "  n %lld inverse %d: error %.3g\n", (long long)lens[i], inv, e);
            CHECK(e < 5e-7); /* float32: measured 3e-8 to 7e-8 of the largest output */
        }
}

static int fills;
static void fill_ramp(void *ctx, void *host) {
    fills++;
    for (int i = 0; i < 64; i++) ((uint32_t *)host)[i] = *(const uint32_t *)ctx + (uint32_t)i;
}

/* rs_device_table (the twiddles' cache): made once per key, its contents
 * uploaded; past the limit of tables, 0, and rs_fft then makes its own */
TEST(device_tables) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint32_t base = 1000, got[64];
    uint64_t a = 0, b = 0, c = 0;
    fills = 0;
    CHECK_OK(rs_device_table(s, 0x7E570001ull, sizeof got, fill_ramp, &base, &a));
    CHECK_OK(rs_device_table(s, 0x7E570001ull, sizeof got, fill_ramp, &base, &b));
    CHECK(a != 0 && a == b && fills == 1);
    CHECK_OK(rs_memcpy_dtoh(s, got, a, sizeof got));
    CHECK(got[0] == 1000 && got[63] == 1063);
    CHECK_OK(rs_device_table(s, 0x7E570002ull, sizeof got, fill_ramp, &base, &c));
    CHECK(c != 0 && c != a && fills == 2);
    int i = 0;
    for (; i < 100 && c; i++) CHECK_OK(rs_device_table(s, 0x7E570100ull + (uint64_t)i, sizeof got, fill_ramp, &base, &c));
    CHECK(c == 0 && i < 100); /* the table limit */
    int failed = 0;
    double e = run(dev, s, 1, 1 << 15, 0, &failed); /* a length with no table yet */
    CHECK(!failed && e < 5e-7);
}

TEST(fft_errors) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t a;
    CHECK_OK(rs_alloc(dev, 64, s, &a));
    rs_fft_desc d = {a, a + 32, 1, 3, 0};
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID); /* not a power of two */
    CHECK(strstr(rs_last_error(), "power of two") != NULL);
    d.n = 0;
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID);
    d.n = 4;
    d.out = a;
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID); /* in place */
    d.rows = 0;
    CHECK_OK(rs_fft(s, &d)); /* nothing to do */
    rs_free(dev, a);
}

int main(void) {
    RUN(fft_power_of_two_lengths);
    RUN(fft_errors);
    RUN(device_tables);
    CTEST_END();
}
