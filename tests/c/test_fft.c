/* rs_fft without torch: power-of-two lengths against a DFT computed here in
 * double, forward and inverse, several rows; bad lengths and an output that
 * is the input fail clearly; the device's constant tables (the twiddles). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

/* rows x n, forward or inverse, complex64 or (wide) complex128, checked
 * against the O(n^2) DFT; returns the largest error relative to the row's
 * largest magnitude */
static double run(rs_device *dev, rs_stream *s, int64_t rows, int64_t n, int inverse, int wide, int *failed) {
    const size_t count = (size_t)(rows * n * 2), es = wide ? 8 : 4; /* bytes a component */
    double *x = malloc(count * sizeof(double)), *y = malloc(count * sizeof(double));
    void *buf = malloc(count * es);
    for (size_t i = 0; i < count; i++) {
        x[i] = sin(0.37 * (double)i + 0.1) + (double)(i % 7) * 0.25;
        if (!wide) x[i] = (float)x[i];
        if (wide) ((double *)buf)[i] = x[i];
        else ((float *)buf)[i] = (float)x[i];
    }
    uint64_t dx, dy;
    *failed = rs_alloc(dev, count * es, s, &dx) != RS_OK || rs_alloc(dev, count * es, s, &dy) != RS_OK;
    if (*failed) return 1;
    rs_memcpy_htod(s, dx, buf, count * es);
    rs_fft_desc d = {dx, dy, rows, n, inverse, wide ? RS_COMPLEX128 : RS_COMPLEX64};
    *failed = rs_fft(s, &d) != RS_OK || rs_memcpy_dtoh(s, buf, dy, count * es) != RS_OK;
    for (size_t i = 0; i < count; i++) y[i] = wide ? ((double *)buf)[i] : ((float *)buf)[i];
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
            /* the reference in long double: complex128's errors are near double's own */
            long double re = 0, im = 0;
            for (int64_t j = 0; j < n; j++) {
                int64_t t = (j * k) % n;
                long double xr = x[2 * (r * n + j)], xi = x[2 * (r * n + j) + 1];
                re += xr * cs[2 * t] - xi * cs[2 * t + 1];
                im += xr * cs[2 * t + 1] + xi * cs[2 * t];
            }
            double er = fabs(y[2 * (r * n + k)] - (double)re), ei = fabs(y[2 * (r * n + k) + 1] - (double)im);
            if (er > err) err = er;
            if (ei > err) err = ei;
            if (hypot((double)re, (double)im) > mag) mag = hypot((double)re, (double)im);
        }
        if (err / mag > worst) worst = err / mag;
    }
    free(cs);
    rs_free(dev, dx);
    rs_free(dev, dy);
    free(x);
    free(y);
    free(buf);
    return worst;
}

TEST(fft_power_of_two_lengths) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* up to 4096: one workgroup a row in shared memory (where the device
     * has n * 8 bytes of it, n * 16 for complex128); 8192 and 16384: one
     * dispatch a step */
    const int64_t lens[] = {1, 2, 4, 8, 16, 64, 256, 1024, 2048, 4096, 8192, 16384};
    const int fp64 = rs_device_features(dev)->has_fp64;
    for (int wide = 0; wide <= fp64; wide++)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
            for (int inv = 0; inv < 2; inv++) {
                int failed = 0;
                double e = run(dev, s, lens[i] >= 4096 ? 1 : 3, lens[i], inv, wide, &failed);
                CHECK(!failed);
                /* float32: measured 3e-8 to 7e-8 of the largest output;
                 * float64: 1e-16 to 1.6e-16 on lavapipe */
                const double limit = wide ? 1e-15 : 5e-7;
                if (getenv("FFT_VERBOSE") || !(e < limit))
                    fprintf(stderr, "  n %lld inverse %d wide %d: error %.3g\n", (long long)lens[i], inv, wide, e);
                CHECK(e < limit);
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
    double e = run(dev, s, 1, 1 << 15, 0, 0, &failed); /* a length with no table yet */
    CHECK(!failed && e < 5e-7);
}

TEST(fft_errors) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t a;
    CHECK_OK(rs_alloc(dev, 64, s, &a));
    rs_fft_desc d = {a, a + 32, 1, 3, 0, RS_COMPLEX64};
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID); /* not a power of two */
    CHECK(strstr(rs_last_error(), "power of two") != NULL);
    d.n = 0;
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID);
    d.n = 4;
    d.out = a;
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID); /* in place */
    d.rows = 0;
    CHECK_OK(rs_fft(s, &d)); /* nothing to do */
    d.dtype = RS_FLOAT32;
    CHECK(rs_fft(s, &d) == RS_ERR_INVALID && strstr(rs_last_error(), "complex64 or complex128"));
    d.dtype = RS_COMPLEX128, d.rows = 1;
    if (!rs_device_features(dev)->has_fp64) CHECK(rs_fft(s, &d) == RS_ERR_UNSUPPORTED); /* the apple profile */
    rs_free(dev, a);
}

/* ---- rs_fft_nd against a host reference in double: every dim's lines
 * transformed by the O(n^2) DFT, on arrays of up to 3 dims */
typedef struct host_nd {
    int ndim;
    int64_t sizes[3];
    double *v; /* interleaved complex, contiguous */
} host_nd;

static int64_t numel_of(const host_nd *h) {
    int64_t n = 1;
    for (int d = 0; d < h->ndim; ++d) n *= h->sizes[d];
    return n;
}

/* h's lines along dim d replaced by their DFT (sign -1 forward, +1 inverse) */
static void host_dft(host_nd *h, int d, double sign) {
    int64_t n = h->sizes[d], inner = 1, outer = 1;
    for (int i = d + 1; i < h->ndim; ++i) inner *= h->sizes[i];
    for (int i = 0; i < d; ++i) outer *= h->sizes[i];
    double *line = malloc(sizeof(double) * 2 * (size_t)n);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
            double *base = h->v + 2 * (o * n * inner + in);
            for (int64_t k = 0; k < n; ++k) {
                double re = 0, im = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double a = sign * 2 * 3.14159265358979323846 * (double)((j * k) % n) / (double)n;
                    double xr = base[2 * j * inner], xi = base[2 * j * inner + 1];
                    re += xr * cos(a) - xi * sin(a);
                    im += xr * sin(a) + xi * cos(a);
                }
                line[2 * k] = re, line[2 * k + 1] = im;
            }
            for (int64_t k = 0; k < n; ++k) base[2 * k * inner] = line[2 * k], base[2 * k * inner + 1] = line[2 * k + 1];
        }
    free(line);
}

/* the largest difference between got (complex interleaved or real) and
 * want, relative to want's largest magnitude */
static double rel_error(const double *got, const double *want, int64_t count, int complex_) {
    double mag = 1e-30, err = 0;
    for (int64_t i = 0; i < count; ++i) {
        double wr = want[2 * i], wi = complex_ ? want[2 * i + 1] : 0;
        double gr = complex_ ? got[2 * i] : got[i], gi = complex_ ? got[2 * i + 1] : 0;
        mag = fmax(mag, hypot(wr, wi));
        err = fmax(err, fmax(fabs(gr - wr), fabs(gi - wi)));
    }
    return err / mag;
}

/* sample values, rounded to float unless wide (so the reference sees what
 * the device gets) */
static double sample(int64_t i, int wide) {
    const double v = sin(0.37 * (double)i + 0.1) + (double)(i % 7) * 0.25;
    return wide ? v : (double)(float)v;
}

/* `count` values uploaded as float, or double where wide */
static uint64_t upload(rs_device *dev, rs_stream *s, const double *v, int64_t count, int wide) {
    void *buf = malloc((size_t)count * (wide ? 8 : 4));
    for (int64_t i = 0; i < count; ++i) {
        if (wide) ((double *)buf)[i] = v[i];
        else ((float *)buf)[i] = (float)v[i];
    }
    const uint64_t a = ctest_upload(dev, s, buf, (uint64_t)count * (wide ? 8u : 4u));
    free(buf);
    return a;
}

/* `count` values read back (NaN where the read fails, which the caller's check then shows) */
static double *download(rs_stream *s, uint64_t a, int64_t count, int wide) {
    void *buf = malloc((size_t)count * (wide ? 8 : 4));
    double *v = malloc(sizeof(double) * (size_t)count);
    if (rs_memcpy_dtoh(s, buf, a, (uint64_t)count * (wide ? 8u : 4u)) != RS_OK) {
        fprintf(stderr, "  download: %s\n", rs_last_error());
        for (int64_t i = 0; i < count; ++i) v[i] = NAN;
        free(buf);
        return v;
    }
    for (int64_t i = 0; i < count; ++i) v[i] = wide ? ((double *)buf)[i] : ((float *)buf)[i];
    free(buf);
    return v;
}

/* the limit on rel_error: float32 measured to 1e-7 here, float64 to 5e-16
 * (the reference's own double DFT is no better than about 1e-15) */
static double nd_limit(int wide) { return wide ? 5e-15 : 2e-6; }

/* c2c over a Bluestein length (600) and a DFT-matrix length (6) of a
 * non-contiguous view, ortho scaling; over a power of two, inverse */
static void c2c_case(rs_device *dev, rs_stream *s, int64_t a0, int64_t a1, int64_t a2, int nd, const int *dims,
                     int inverse, int norm, int wide) {
    host_nd h = {3, {a0, a1, a2}, NULL};
    const int64_t count = numel_of(&h);
    const rs_dtype ct = wide ? RS_COMPLEX128 : RS_COMPLEX64;
    h.v = malloc(sizeof(double) * 2 * (size_t)count);
    double *x = malloc(sizeof(double) * 2 * (size_t)count);
    /* stored as (a2, a1, a0) contiguous, viewed as (a0, a1, a2) */
    for (int64_t i = 0; i < a0; ++i)
        for (int64_t j = 0; j < a1; ++j)
            for (int64_t k = 0; k < a2; ++k) {
                int64_t li = (i * a1 + j) * a2 + k, st = (k * a1 + j) * a0 + i;
                x[2 * st] = sample(li, wide), x[2 * st + 1] = sample(3 * li + 1, wide);
                h.v[2 * li] = x[2 * st], h.v[2 * li + 1] = x[2 * st + 1];
            }
    double n = 1;
    for (int i = 0; i < nd; ++i) host_dft(&h, dims[i], inverse ? 1 : -1), n *= (double)h.sizes[dims[i]];
    const double f = norm == 0 ? 1 : norm == 1 ? 1 / sqrt(n) : 1 / n;
    for (int64_t i = 0; i < 2 * count; ++i) h.v[i] *= f;
    uint64_t dx = upload(dev, s, x, 2 * count, wide), dy = 0;
    CHECK_OK(rs_alloc(dev, rs_dtype_size(ct) * (uint64_t)count, s, &dy));
    rs_fft_nd_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RS_FFT_C2C;
    const int64_t sz[3] = {a0, a1, a2};
    d.in = ctest_view(dx, ct, 3, sz);
    d.in.strides[0] = 1, d.in.strides[1] = a0, d.in.strides[2] = a0 * a1;
    d.out = ctest_view(dy, ct, 3, sz);
    d.ndims = nd;
    memcpy(d.dims, dims, sizeof(int) * (size_t)nd);
    d.inverse = inverse, d.normalization = norm;
    CHECK_OK(rs_fft_nd(s, &d));
    double *y = download(s, dy, 2 * count, wide);
    double e = rel_error(y, h.v, count, 1);
    if (!(e < nd_limit(wide)) || getenv("FFT_VERBOSE"))
        fprintf(stderr, "  c2c (%lld, %lld, %lld) wide %d: error %.3g\n", (long long)a0, (long long)a1, (long long)a2,
                wide, e);
    CHECK(e < nd_limit(wide));
    free(h.v), free(x), free(y);
    rs_free(dev, dx), rs_free(dev, dy);
}

/* r2c (onesided) then c2r back to lengths L: the inverse of the onesided
 * spectrum reproduces the signal for L = its length (norm 2 one way);
 * other L: zero-padding (L > 2 (h - 1)) and dropped values, against the
 * reference recipe */
static void real_case(rs_device *dev, rs_stream *s, int64_t r, int64_t c, int64_t L, int wide) {
    const int64_t count = r * c, hc = c / 2 + 1;
    const rs_dtype rt = wide ? RS_FLOAT64 : RS_FLOAT32, ct = wide ? RS_COMPLEX128 : RS_COMPLEX64;
    double *x = malloc(sizeof(double) * (size_t)count);
    host_nd h = {2, {r, c, 0}, malloc(sizeof(double) * 2 * (size_t)count)};
    for (int64_t i = 0; i < count; ++i) x[i] = sample(5 * i, wide), h.v[2 * i] = x[i], h.v[2 * i + 1] = 0;
    host_dft(&h, 0, -1), host_dft(&h, 1, -1);
    uint64_t dx = upload(dev, s, x, count, wide), ds = 0, dy = 0;
    CHECK_OK(rs_alloc(dev, rs_dtype_size(ct) * (uint64_t)(r * hc), s, &ds));
    CHECK_OK(rs_alloc(dev, rs_dtype_size(rt) * (uint64_t)(r * L), s, &dy));
    const int64_t xs[2] = {r, c}, ss[2] = {r, hc}, ys[2] = {r, L};
    rs_fft_nd_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RS_FFT_R2C;
    d.in = ctest_view(dx, rt, 2, xs);
    d.out = ctest_view(ds, ct, 2, ss);
    d.ndims = 2, d.dims[0] = 0, d.dims[1] = 1, d.onesided = 1, d.normalization = 0;
    CHECK_OK(rs_fft_nd(s, &d));
    double *spec = download(s, ds, 2 * r * hc, wide);
    double *want = malloc(sizeof(double) * 2 * (size_t)(r * hc));
    for (int64_t i = 0; i < r; ++i)
        for (int64_t k = 0; k < hc; ++k)
            want[2 * (i * hc + k)] = h.v[2 * (i * c + k)], want[2 * (i * hc + k) + 1] = h.v[2 * (i * c + k) + 1];
    double e = rel_error(spec, want, r * hc, 1);
    if (!(e < nd_limit(wide))) fprintf(stderr, "  r2c (%lld, %lld) wide %d: error %.3g\n", (long long)r, (long long)c, wide, e);
    CHECK(e < nd_limit(wide));
    /* c2r: the reference extends the spectrum's last dim to L by Hermitian
     * symmetry (zero-padded past hc), then inverse DFTs over both dims */
    const int64_t hl = L / 2 + 1;
    host_nd g = {2, {r, L, 0}, calloc(2 * (size_t)(r * L), sizeof(double))};
    for (int64_t i = 0; i < r; ++i) {
        for (int64_t k = 0; k < hl && k < hc; ++k)
            g.v[2 * (i * L + k)] = spec[2 * (i * hc + k)], g.v[2 * (i * L + k) + 1] = spec[2 * (i * hc + k) + 1];
    }
    host_dft(&g, 0, 1); /* the first dim first, as the engine: then the mirror of the result */
    for (int64_t i = 0; i < r; ++i)
        for (int64_t k = hl; k < L; ++k)
            g.v[2 * (i * L + k)] = g.v[2 * (i * L + L - k)], g.v[2 * (i * L + k) + 1] = -g.v[2 * (i * L + L - k) + 1];
    host_dft(&g, 1, 1);
    for (int64_t i = 0; i < 2 * r * L; ++i) g.v[i] /= (double)(r * L);
    d.kind = RS_FFT_C2R;
    d.in = d.out;
    d.out = ctest_view(dy, rt, 2, ys);
    d.onesided = 0, d.normalization = 2;
    CHECK_OK(rs_fft_nd(s, &d));
    double *y = download(s, dy, r * L, wide);
    e = rel_error(y, g.v, r * L, 0);
    if (!(e < nd_limit(wide)))
        fprintf(stderr, "  c2r (%lld, %lld) -> %lld wide %d: error %.3g\n", (long long)r, (long long)c, (long long)L, wide, e);
    CHECK(e < nd_limit(wide));
    if (L == c) { /* the round trip */
        double *orig = malloc(sizeof(double) * 2 * (size_t)count);
        for (int64_t i = 0; i < count; ++i) orig[2 * i] = x[i], orig[2 * i + 1] = 0;
        CHECK(rel_error(y, orig, count, 0) < nd_limit(wide));
        free(orig);
    }
    free(x), free(spec), free(h.v), free(want), free(g.v), free(y);
    rs_free(dev, dx), rs_free(dev, ds), rs_free(dev, dy);
}

TEST(fft_nd_transforms) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int d21[2] = {2, 1}, d1[1] = {1}, d0[1] = {0};
    /* complex128 and float64 where the device has fp64 (the native profile) */
    for (int wide = 0; wide <= rs_device_features(dev)->has_fp64; ++wide) {
        c2c_case(dev, s, 3, 6, 600, 2, d21, 0, 1, wide); /* Bluestein (600) and the DFT matrix (6) */
        c2c_case(dev, s, 5, 16, 3, 1, d1, 1, 0, wide);   /* a power of two, inverse */
        c2c_case(dev, s, 7, 2, 2, 1, d0, 0, 2, wide);    /* the DFT matrix, 1 / n */
        real_case(dev, s, 4, 10, 10, wide);
        real_case(dev, s, 3, 12, 9, wide);  /* fewer points: the spectrum's extra values unused */
        real_case(dev, s, 3, 8, 13, wide);  /* more points: zero-padded */
        real_case(dev, s, 2, 1030, 1030, wide); /* Bluestein on the last dim */
    }
}

TEST(fft_nd_errors) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t a;
    CHECK_OK(rs_alloc(dev, 4096, s, &a));
    const int64_t sz[2] = {4, 8}, half[2] = {4, 5};
    rs_fft_nd_desc d;
    memset(&d, 0, sizeof d);
    d.kind = RS_FFT_C2C;
    d.in = ctest_view(a, RS_COMPLEX64, 2, sz), d.out = ctest_view(a + 2048, RS_COMPLEX64, 2, sz);
    d.ndims = 2, d.dims[0] = 1, d.dims[1] = 1; /* repeated */
    CHECK(rs_fft_nd(s, &d) == RS_ERR_INVALID);
    d.dims[1] = 2; /* out of range */
    CHECK(rs_fft_nd(s, &d) == RS_ERR_INVALID);
    d.dims[1] = 0;
    d.normalization = 3;
    CHECK(rs_fft_nd(s, &d) == RS_ERR_INVALID && strstr(rs_last_error(), "normalization"));
    d.normalization = 0;
    d.out = ctest_view(a + 2048, RS_COMPLEX64, 2, half); /* wrong shape */
    CHECK(rs_fft_nd(s, &d) == RS_ERR_INVALID);
    d.out = ctest_view(a + 2048, RS_COMPLEX128, 2, sz); /* complex64 to complex128: none */
    CHECK(rs_fft_nd(s, &d) == RS_ERR_UNSUPPORTED);
    d.in.dtype = RS_COMPLEX128;
    if (!rs_device_features(dev)->has_fp64) /* the apple profile */
        CHECK(rs_fft_nd(s, &d) == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "fp64"));
    d.kind = RS_FFT_C2R, d.in = ctest_view(a, RS_COMPLEX64, 2, half);
    int64_t none[2] = {4, 0};
    d.out = ctest_view(a + 2048, RS_FLOAT32, 2, none); /* no points */
    CHECK(rs_fft_nd(s, &d) == RS_ERR_INVALID);
    rs_free(dev, a);
}

/* the result strides CPU's MKL path gives (read from torch 2.13's CPU) */
static int layout_is(rs_fft_kind kind, int nd, const int64_t *in_sizes, const int64_t *in_strides,
                     const int64_t *out_sizes, int ndims, const int *dims, const int64_t *want) {
    rs_fft_nd_desc d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.in.ndim = d.out.ndim = nd;
    memcpy(d.in.sizes, in_sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(d.in.strides, in_strides, sizeof(int64_t) * (size_t)nd);
    memcpy(d.out.sizes, out_sizes, sizeof(int64_t) * (size_t)nd);
    d.ndims = ndims;
    memcpy(d.dims, dims, sizeof(int) * (size_t)ndims);
    int64_t got[RS_MAX_DIMS];
    rs_fft_nd_layout(&d, got);
    return memcmp(got, want, sizeof(int64_t) * (size_t)nd) == 0;
}

TEST(fft_nd_layout) {
    const int64_t s3[3] = {5, 10, 7}, c3[3] = {70, 7, 1};
    const int d1[1] = {1}, d20[2] = {2, 0}, d02[2] = {0, 2}, d2[1] = {2};
    CHECK(layout_is(RS_FFT_C2C, 3, s3, c3, s3, 1, d1, (const int64_t[]){70, 1, 10}));
    /* c2c orders the dims by the input's strides */
    CHECK(layout_is(RS_FFT_C2C, 3, s3, c3, s3, 2, d20, (const int64_t[]){7, 35, 1}));
    /* r2c keeps the last dim given last */
    const int64_t r_in[3] = {4, 6, 8}, r_st[3] = {48, 8, 1}, r_out[3] = {3, 6, 8};
    CHECK(layout_is(RS_FFT_R2C, 3, r_in, r_st, r_out, 2, d20, (const int64_t[]){1, 24, 3}));
    /* c2r: the other dims' c2c first, whose layout orders the batch */
    const int64_t c_in[3] = {4, 6, 5}, c_st[3] = {30, 5, 1}, c_out[3] = {4, 6, 8};
    CHECK(layout_is(RS_FFT_C2R, 3, c_in, c_st, c_out, 2, d02, (const int64_t[]){8, 32, 1}));
    /* a broadcast dim (stride 0) goes inside the others */
    const int64_t e_sz[3] = {3, 2, 4}, e_st[3] = {4, 0, 1};
    CHECK(layout_is(RS_FFT_C2C, 3, e_sz, e_st, e_sz, 1, d2, (const int64_t[]){8, 4, 1}));
}

int main(void) {
    RUN(fft_power_of_two_lengths);
    RUN(fft_errors);
    RUN(fft_nd_transforms);
    RUN(fft_nd_errors);
    RUN(fft_nd_layout);
    RUN(device_tables);
    RUN(fft_nd_transforms); /* again, past the table limit: tables of its own */
    CTEST_END();
}
