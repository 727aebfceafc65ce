/* Batch norm, group norm, layer norm and RMS norm as one engine call each
 * (russet/norm_layers.h) without torch: forward (training and evaluation,
 * running statistics) and backward in NCHW and channels-last, the
 * float16/bfloat16 statistics path outside the fused kernel, group norm's
 * and the row norms' forward and backward, and bad arguments, against
 * double references. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static int close_to(double got, double want, double tol) { return fabs(got - want) <= tol * (1.0 + fabs(want)); }

static float value(int64_t i, double scale) { return (float)(sin((double)i * 0.37 + 0.2) * scale + 0.5); }

/* a (C) float32 vector view */
static rs_tensor vec(uint64_t a, rs_dtype dt, int64_t n) {
    int64_t sz[1] = {n};
    return ctest_view(a, dt, 1, sz);
}

/* (N, C, H, W) at a in NCHW (cl 0) or channels-last (cl 1) strides */
static rs_tensor nchw(uint64_t a, rs_dtype dt, const int64_t sz[4], int cl) {
    rs_tensor t = ctest_view(a, dt, 4, sz);
    if (cl) {
        t.strides[1] = 1;
        t.strides[3] = sz[1];
        t.strides[2] = sz[1] * sz[3];
        t.strides[0] = sz[1] * sz[2] * sz[3];
    }
    return t;
}

/* element offset of (n, c, hw) in a layout */
static int64_t at_of(const int64_t sz[4], int cl, int64_t n, int64_t c, int64_t hw) {
    int64_t C = sz[1], HW = sz[2] * sz[3];
    return cl ? (n * HW + hw) * C + c : (n * C + c) * HW + hw;
}

static uint64_t alloc(rs_device *dev, rs_stream *s, uint64_t bytes) {
    uint64_t a = 0;
    if (rs_alloc(dev, bytes, s, &a) != RS_OK) a = 0; /* the calls on it then fail */
    return a;
}

/* float32, both layouts: training forward (fused: float32 statistics),
 * evaluation forward, and both backwards, against double references */
TEST(batch_norm_float32_forward_and_backward) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 3, C = 4, H = 5, W = 7, E = N * C * H * W, HW = H * W };
    const int64_t sz[4] = {N, C, H, W};
    const double eps = 1e-5, mom = 0.1;
    static float x[E], g[E];
    const float w[C] = {0.5f, 2.0f, -1.0f, 1.5f}, bias[C] = {1.0f, -0.25f, 3.0f, 0.0f};
    const float rm0[C] = {0.1f, 0.2f, 0.3f, -0.4f}, rv0[C] = {1.0f, 2.0f, 0.5f, 0.25f};
    uint64_t dw = ctest_upload(dev, s, w, sizeof w), db = ctest_upload(dev, s, bias, sizeof bias);
    uint64_t dx = alloc(dev, s, sizeof x), dg = alloc(dev, s, sizeof g), dy = alloc(dev, s, sizeof x);
    uint64_t dgi = alloc(dev, s, sizeof x), drm = alloc(dev, s, 16), drv = alloc(dev, s, 16);
    uint64_t dsm = alloc(dev, s, 16), dsi = alloc(dev, s, 16), dgw = alloc(dev, s, 16), dgb = alloc(dev, s, 16);
    for (int cl = 0; cl < 2; ++cl)
        for (int training = 0; training < 2; ++training) {
            /* x and g by logical index, stored in the layout */
            for (int n = 0; n < N; ++n)
                for (int c = 0; c < C; ++c)
                    for (int h = 0; h < HW; ++h) {
                        int64_t li = (n * C + c) * HW + h, o = at_of(sz, cl, n, c, h);
                        x[o] = value(li, 2.0) + (float)c;
                        g[o] = value(li * 3 + 1, 1.0);
                    }
            CHECK_OK(rs_memcpy_htod(s, dx, x, sizeof x));
            CHECK_OK(rs_memcpy_htod(s, dg, g, sizeof g));
            CHECK_OK(rs_memcpy_htod(s, drm, rm0, sizeof rm0));
            CHECK_OK(rs_memcpy_htod(s, drv, rv0, sizeof rv0));
            rs_batch_norm p;
            memset(&p, 0, sizeof p);
            p.x = nchw(dx, RS_FLOAT32, sz, cl);
            p.weight = vec(dw, RS_FLOAT32, C), p.bias = vec(db, RS_FLOAT32, C);
            p.running_mean = vec(drm, RS_FLOAT32, C), p.running_var = vec(drv, RS_FLOAT32, C);
            p.training = training, p.momentum = mom, p.eps = eps;
            p.y = nchw(dy, RS_FLOAT32, sz, cl);
            p.save_mean = vec(dsm, RS_FLOAT32, C), p.save_invstd = vec(dsi, RS_FLOAT32, C);
            CHECK_OK(rs_batch_norm_forward(s, &p));
            p.grad_out = nchw(dg, RS_FLOAT32, sz, cl);
            p.grad_input = nchw(dgi, RS_FLOAT32, sz, cl);
            p.grad_weight = vec(dgw, RS_FLOAT32, C), p.grad_bias = vec(dgb, RS_FLOAT32, C);
            CHECK_OK(rs_batch_norm_backward(s, &p));
            static float y[E], gi[E];
            float sm[C], si[C], rm[C], rv[C], gw[C], gb[C];
            CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
            CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
            CHECK_OK(rs_memcpy_dtoh(s, sm, dsm, sizeof sm));
            CHECK_OK(rs_memcpy_dtoh(s, si, dsi, sizeof si));
            CHECK_OK(rs_memcpy_dtoh(s, rm, drm, sizeof rm));
            CHECK_OK(rs_memcpy_dtoh(s, rv, drv, sizeof rv));
            CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, sizeof gw));
            CHECK_OK(rs_memcpy_dtoh(s, gb, dgb, sizeof gb));
            CHECK_OK(rs_stream_synchronize(s));
            const double k = (double)N * HW;
            int bad = 0;
            for (int c = 0; c < C; ++c) {
                double sum = 0, sq = 0;
                for (int n = 0; n < N; ++n)
                    for (int h = 0; h < HW; ++h) sum += x[at_of(sz, cl, n, c, h)];
                double mean = sum / k;
                for (int n = 0; n < N; ++n)
                    for (int h = 0; h < HW; ++h) sq += pow(x[at_of(sz, cl, n, c, h)] - mean, 2);
                double var = sq / k;
                if (!training) mean = rm0[c], var = rv0[c];
                double inv = 1.0 / sqrt(var + eps), sg = 0, sgx = 0;
                for (int n = 0; n < N; ++n)
                    for (int h = 0; h < HW; ++h) {
                        int64_t o = at_of(sz, cl, n, c, h);
                        double xh = (x[o] - mean) * inv;
                        bad += !close_to(y[o], xh * w[c] + bias[c], 1e-5);
                        sg += g[o], sgx += g[o] * xh;
                    }
                CHECK(close_to(gb[c], sg, 1e-5));
                CHECK(close_to(gw[c], sgx, 1e-4));
                for (int n = 0; n < N; ++n)
                    for (int h = 0; h < HW; ++h) {
                        int64_t o = at_of(sz, cl, n, c, h);
                        double xh = (x[o] - mean) * inv;
                        double want = training ? (g[o] - sg / k - xh * sgx / k) * inv * w[c] : g[o] * inv * w[c];
                        bad += !close_to(gi[o], want, 1e-4);
                    }
                if (training) {
                    CHECK(close_to(sm[c], mean, 1e-6));
                    CHECK(close_to(si[c], inv, 1e-5));
                    CHECK(close_to(rm[c], (1 - mom) * rm0[c] + mom * mean, 1e-6));
                    CHECK(close_to(rv[c], (1 - mom) * rv0[c] + mom * sq / (k - 1), 1e-5));
                } else {
                    CHECK(rm[c] == rm0[c] && rv[c] == rv0[c]);
                }
            }
            CHECK(bad == 0);
        }
    uint64_t all[] = {dw, db, dx, dg, dy, dgi, drm, drv, dsm, dsi, dgw, dgb};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i) rs_free(dev, all[i]);
}

/* float16 and bfloat16 x without weights: the statistics are saved in x's
 * dtype, outside the fused kernel (bfloat16: CPU's bfloat16 arithmetic for
 * the running statistics); float16 running statistics */
TEST(batch_norm_reduced_statistics_path) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 4, C = 3, H = 6, W = 5, E = N * C * H * W, HW = H * W };
    const int64_t sz[4] = {N, C, H, W};
    const double eps = 1e-5, mom = 0.1;
    const rs_dtype dts[2] = {RS_FLOAT16, RS_BFLOAT16};
    static float xf[E];
    static uint16_t xh[E], yh[E];
    uint64_t dx = alloc(dev, s, sizeof xh), dy = alloc(dev, s, sizeof yh), drm = alloc(dev, s, 8),
             drv = alloc(dev, s, 8), dsm = alloc(dev, s, 8), dsi = alloc(dev, s, 8);
    for (int d = 0; d < 2; ++d) {
        const rs_dtype dt = dts[d];
        const double tol = dt == RS_FLOAT16 ? 2e-3 : 2e-2;
        for (int i = 0; i < E; ++i) {
            float v = value(i, 3.0) + (float)((i / HW) % C);
            xh[i] = dt == RS_FLOAT16 ? rs_f16_from_f32(v) : rs_bf16_from_f32(v);
            xf[i] = dt == RS_FLOAT16 ? rs_f16_to_f32(xh[i]) : rs_bf16_to_f32(xh[i]);
        }
        uint16_t rm0[C], rv0[C];
        for (int c = 0; c < C; ++c) {
            float m = 0.5f * (float)c, v = 1.0f + (float)c;
            rm0[c] = dt == RS_FLOAT16 ? rs_f16_from_f32(m) : rs_bf16_from_f32(m);
            rv0[c] = dt == RS_FLOAT16 ? rs_f16_from_f32(v) : rs_bf16_from_f32(v);
        }
        CHECK_OK(rs_memcpy_htod(s, dx, xh, sizeof xh));
        CHECK_OK(rs_memcpy_htod(s, drm, rm0, sizeof rm0));
        CHECK_OK(rs_memcpy_htod(s, drv, rv0, sizeof rv0));
        rs_batch_norm p;
        memset(&p, 0, sizeof p);
        p.x = nchw(dx, dt, sz, 0);
        p.running_mean = vec(drm, dt, C), p.running_var = vec(drv, dt, C);
        p.training = 1, p.momentum = mom, p.eps = eps;
        p.y = nchw(dy, dt, sz, 0);
        p.save_mean = vec(dsm, dt, C), p.save_invstd = vec(dsi, dt, C);
        CHECK_OK(rs_batch_norm_forward(s, &p));
        uint16_t sm[C], si[C], rm[C], rv[C];
        CHECK_OK(rs_memcpy_dtoh(s, yh, dy, sizeof yh));
        CHECK_OK(rs_memcpy_dtoh(s, sm, dsm, sizeof sm));
        CHECK_OK(rs_memcpy_dtoh(s, si, dsi, sizeof si));
        CHECK_OK(rs_memcpy_dtoh(s, rm, drm, sizeof rm));
        CHECK_OK(rs_memcpy_dtoh(s, rv, drv, sizeof rv));
        CHECK_OK(rs_stream_synchronize(s));
#define F(h) (dt == RS_FLOAT16 ? rs_f16_to_f32(h) : rs_bf16_to_f32(h))
        int bad = 0;
        for (int c = 0; c < C; ++c) {
            double sum = 0, sq = 0, k = (double)N * HW;
            for (int n = 0; n < N; ++n)
                for (int h = 0; h < HW; ++h) sum += xf[(n * C + c) * HW + h];
            double mean = sum / k;
            for (int n = 0; n < N; ++n)
                for (int h = 0; h < HW; ++h) sq += pow(xf[(n * C + c) * HW + h] - mean, 2);
            double inv = 1.0 / sqrt(sq / k + eps);
            CHECK(close_to(F(sm[c]), mean, tol));
            CHECK(close_to(F(si[c]), inv, tol));
            CHECK(close_to(F(rm[c]), (1 - mom) * F(rm0[c]) + mom * mean, tol));
            CHECK(close_to(F(rv[c]), (1 - mom) * F(rv0[c]) + mom * sq / (k - 1), tol));
            for (int n = 0; n < N; ++n)
                for (int h = 0; h < HW; ++h) {
                    int64_t o = (n * C + c) * HW + h;
                    bad += !close_to(F(yh[o]), (xf[o] - mean) * inv, 4 * tol);
                }
        }
#undef F
        CHECK(bad == 0);
    }
    uint64_t all[] = {dx, dy, drm, drv, dsm, dsi};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i) rs_free(dev, all[i]);
}

/* group norm, (N, C, HW) with G groups: forward (mean and rstd into
 * float32 (N, G)) and backward with and without weights */
TEST(group_norm_forward_and_backward) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 2, C = 6, HW = 9, G = 3, CPG = C / G, E = N * C * HW, K = CPG * HW };
    const int64_t sz[3] = {N, C, HW}, ssz[2] = {N, G};
    const double eps = 1e-5;
    static float x[E], g[E], y[E], gi[E];
    const float w[C] = {0.5f, 2.0f, -1.0f, 1.5f, 1.0f, -0.75f}, bias[C] = {1, -0.25f, 3, 0, 0.5f, 2};
    for (int i = 0; i < E; ++i) x[i] = value(i, 2.0) + (float)(i / K), g[i] = value(7 * i + 3, 1.0);
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dg = ctest_upload(dev, s, g, sizeof g);
    uint64_t dw = ctest_upload(dev, s, w, sizeof w), db = ctest_upload(dev, s, bias, sizeof bias);
    uint64_t dy = alloc(dev, s, sizeof y), dgi = alloc(dev, s, sizeof gi), dm = alloc(dev, s, N * G * 4),
             dr = alloc(dev, s, N * G * 4), dgw = alloc(dev, s, C * 4), dgb = alloc(dev, s, C * 4);
    for (int affine = 0; affine < 2; ++affine) {
        rs_group_norm p;
        memset(&p, 0, sizeof p);
        p.x = ctest_view(dx, RS_FLOAT32, 3, sz);
        p.groups = G, p.eps = eps;
        if (affine) p.weight = vec(dw, RS_FLOAT32, C), p.bias = vec(db, RS_FLOAT32, C);
        p.y = ctest_view(dy, RS_FLOAT32, 3, sz);
        p.mean = ctest_view(dm, RS_FLOAT32, 2, ssz), p.rstd = ctest_view(dr, RS_FLOAT32, 2, ssz);
        CHECK_OK(rs_group_norm_forward(s, &p));
        p.grad_out = ctest_view(dg, RS_FLOAT32, 3, sz);
        p.grad_input = ctest_view(dgi, RS_FLOAT32, 3, sz);
        p.grad_weight = vec(dgw, RS_FLOAT32, C), p.grad_bias = vec(dgb, RS_FLOAT32, C);
        CHECK_OK(rs_group_norm_backward(s, &p));
        float mean[N * G], rstd[N * G], gw[C], gb[C];
        CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
        CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
        CHECK_OK(rs_memcpy_dtoh(s, mean, dm, sizeof mean));
        CHECK_OK(rs_memcpy_dtoh(s, rstd, dr, sizeof rstd));
        CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, sizeof gw));
        CHECK_OK(rs_memcpy_dtoh(s, gb, dgb, sizeof gb));
        CHECK_OK(rs_stream_synchronize(s));
        double wgt[C], bs[C], rgw[C] = {0}, rgb[C] = {0};
        for (int c = 0; c < C; ++c) wgt[c] = affine ? w[c] : 1.0, bs[c] = affine ? bias[c] : 0.0;
        int bad = 0;
        for (int r = 0; r < N * G; ++r) {
            const float *xr = x + (int64_t)r * K, *gr = g + (int64_t)r * K;
            double sum = 0, sq = 0, s1 = 0, s2 = 0;
            for (int i = 0; i < K; ++i) sum += xr[i];
            double mu = sum / K;
            for (int i = 0; i < K; ++i) sq += (xr[i] - mu) * (xr[i] - mu);
            double rs = 1.0 / sqrt(sq / K + eps);
            CHECK(close_to(mean[r], mu, 1e-6));
            CHECK(close_to(rstd[r], rs, 1e-5));
            for (int i = 0; i < K; ++i) {
                int c = (r % G) * CPG + i / HW;
                double xh = (xr[i] - mu) * rs;
                bad += !close_to(y[(int64_t)r * K + i], xh * wgt[c] + bs[c], 1e-5);
                s1 += gr[i] * wgt[c], s2 += gr[i] * wgt[c] * xh;
                rgw[c] += gr[i] * xh, rgb[c] += gr[i];
            }
            for (int i = 0; i < K; ++i) {
                int c = (r % G) * CPG + i / HW;
                double xh = (xr[i] - mu) * rs;
                bad += !close_to(gi[(int64_t)r * K + i], rs * (gr[i] * wgt[c] - s1 / K - xh * s2 / K), 1e-4);
            }
        }
        CHECK(bad == 0);
        for (int c = 0; c < C; ++c) {
            CHECK(close_to(gw[c], rgw[c], 1e-4));
            CHECK(close_to(gb[c], rgb[c], 1e-5));
        }
    }
    uint64_t all[] = {dx, dg, dw, db, dy, dgi, dm, dr, dgw, dgb};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i) rs_free(dev, all[i]);
}

/* layer norm and RMS norm over (M, N) rows: with and without the affine
 * parameters, statistics in float32 and as a strided float64 view (cast
 * from the opmath type), grad_weight through a strided view, M = 0 (zero
 * gradients), N = 0 refused */
TEST(layer_norm_and_rms_norm_forward_and_backward) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { M = 5, N = 37, E = M * N };
    const int64_t sz[2] = {M, N};
    const double eps = 1e-5;
    static float x[E], g[E], y[E], gi[E], w[N], bias[N];
    for (int i = 0; i < E; ++i) x[i] = value(i, 2.0) + (float)(i / N), g[i] = value(5 * i + 1, 1.0);
    for (int c = 0; c < N; ++c) w[c] = value(3 * c, 1.0), bias[c] = value(11 * c + 2, 0.5);
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dg = ctest_upload(dev, s, g, sizeof g);
    uint64_t dw = ctest_upload(dev, s, w, sizeof w), db = ctest_upload(dev, s, bias, sizeof bias);
    uint64_t dy = alloc(dev, s, sizeof y), dgi = alloc(dev, s, sizeof gi), dm = alloc(dev, s, M * 8),
             dr = alloc(dev, s, 2 * M * 8), dgw = alloc(dev, s, 2 * N * 4), dgb = alloc(dev, s, N * 4);
    for (int rms = 0; rms < 2; ++rms)
        for (int affine = 0; affine < 2; ++affine) {
            rs_layer_norm p;
            memset(&p, 0, sizeof p);
            p.rms = rms, p.eps = eps;
            p.x = ctest_view(dx, RS_FLOAT32, 2, sz), p.y = ctest_view(dy, RS_FLOAT32, 2, sz);
            if (affine) p.weight = vec(dw, RS_FLOAT32, N);
            if (affine && !rms) p.bias = vec(db, RS_FLOAT32, N);
            if (!rms) p.mean = vec(dm, RS_FLOAT32, M);
            p.rstd = vec(dr, RS_FLOAT64, M); /* every other float64: converted from float32 */
            p.rstd.strides[0] = 2;
            CHECK_OK(rs_layer_norm_forward(s, &p));
            p.grad_out = ctest_view(dg, RS_FLOAT32, 2, sz), p.grad_input = ctest_view(dgi, RS_FLOAT32, 2, sz);
            if (affine) {
                p.grad_weight = vec(dgw, RS_FLOAT32, N);
                p.grad_weight.strides[0] = 2;
                if (!rms) p.grad_bias = vec(dgb, RS_FLOAT32, N);
            }
            CHECK_OK(rs_layer_norm_backward(s, &p));
            float mean[M], gw[2 * N], gb[N];
            double rstd[2 * M];
            CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
            CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
            CHECK_OK(rs_memcpy_dtoh(s, mean, dm, sizeof mean));
            CHECK_OK(rs_memcpy_dtoh(s, rstd, dr, sizeof rstd));
            CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, sizeof gw));
            CHECK_OK(rs_memcpy_dtoh(s, gb, dgb, sizeof gb));
            CHECK_OK(rs_stream_synchronize(s));
            double rgw[N] = {0}, rgb[N] = {0};
            int bad = 0;
            for (int r = 0; r < M; ++r) {
                const float *xr = x + r * N, *gr = g + r * N;
                double mu = 0, sq = 0, s1 = 0, s2 = 0;
                if (!rms) {
                    for (int i = 0; i < N; ++i) mu += xr[i];
                    mu /= N;
                }
                for (int i = 0; i < N; ++i) sq += (xr[i] - mu) * (xr[i] - mu);
                const double rs = 1.0 / sqrt(sq / N + eps);
                if (!rms) CHECK(close_to(mean[r], mu, 1e-6));
                CHECK(rstd[2 * r] == (double)(float)rstd[2 * r] && close_to(rstd[2 * r], rs, 1e-5));
                for (int i = 0; i < N; ++i) {
                    const double wc = affine ? w[i] : 1.0, bc = affine && !rms ? bias[i] : 0.0;
                    const double xh = (xr[i] - mu) * rs;
                    bad += !close_to(y[r * N + i], xh * wc + bc, 1e-5);
                    s1 += gr[i] * wc, s2 += gr[i] * wc * xh;
                    rgw[i] += gr[i] * xh, rgb[i] += gr[i];
                }
                for (int i = 0; i < N; ++i) {
                    const double wc = affine ? w[i] : 1.0, xh = (xr[i] - mu) * rs;
                    bad += !close_to(gi[r * N + i], rs * (gr[i] * wc - (rms ? 0.0 : s1 / N) - xh * s2 / N), 1e-4);
                }
            }
            CHECK(bad == 0);
            for (int c = 0; affine && c < N; ++c) {
                CHECK(close_to(gw[2 * c], rgw[c], 1e-4));
                if (!rms) CHECK(close_to(gb[c], rgb[c], 1e-5));
            }
        }
    /* no rows: the parameters' gradients are zeros */
    const int64_t none[2] = {0, N};
    rs_layer_norm p;
    memset(&p, 0, sizeof p);
    p.x = ctest_view(dx, RS_FLOAT32, 2, none), p.grad_out = p.x;
    p.weight = vec(dw, RS_FLOAT32, N), p.bias = vec(db, RS_FLOAT32, N);
    p.mean = vec(dm, RS_FLOAT32, 0), p.rstd = vec(dr, RS_FLOAT32, 0);
    p.grad_weight = vec(dgw, RS_FLOAT32, N), p.grad_bias = vec(dgb, RS_FLOAT32, N);
    CHECK_OK(rs_layer_norm_backward(s, &p));
    float gz[N];
    CHECK_OK(rs_memcpy_dtoh(s, gz, dgb, sizeof gz));
    CHECK_OK(rs_stream_synchronize(s));
    for (int c = 0; c < N; ++c) CHECK(gz[c] == 0.0f);
    /* refused: rows of no elements, a bias for RMS norm, a missing rstd, a y of other sizes */
    const int64_t empty_rows[2] = {M, 0}, other[2] = {M, N - 1};
    p.x = ctest_view(dx, RS_FLOAT32, 2, empty_rows), p.y = p.x;
    CHECK(rs_layer_norm_forward(s, &p) == RS_ERR_UNSUPPORTED);
    p.x = ctest_view(dx, RS_FLOAT32, 2, sz), p.y = ctest_view(dy, RS_FLOAT32, 2, sz);
    p.mean = vec(dm, RS_FLOAT32, M), p.rstd = vec(dr, RS_FLOAT32, M);
    p.rms = 1;
    CHECK(rs_layer_norm_forward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "bias"));
    p.rms = 0, p.rstd.address = 0;
    CHECK(rs_layer_norm_forward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "rstd"));
    p.rstd = vec(dr, RS_FLOAT32, M), p.y = ctest_view(dy, RS_FLOAT32, 2, other);
    CHECK(rs_layer_norm_forward(s, &p) == RS_ERR_INVALID);
    uint64_t all[] = {dx, dg, dw, db, dy, dgi, dm, dr, dgw, dgb};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i) rs_free(dev, all[i]);
}

/* bad arguments are errors with a message, before any work; what CPU
 * decides (empty batches, groups of no elements) is RS_ERR_UNSUPPORTED */
TEST(bad_arguments) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t sz[4] = {2, 3, 4, 5}, empty[4] = {0, 3, 4, 5};
    uint64_t d = alloc(dev, s, 2 * 3 * 4 * 5 * 4), v = alloc(dev, s, 64);
    rs_batch_norm p;
    memset(&p, 0, sizeof p);
    p.x = nchw(d, RS_FLOAT32, sz, 0);
    p.y = p.x;
    p.running_mean = vec(v, RS_FLOAT32, 3), p.running_var = vec(v, RS_FLOAT32, 3);
    p.weight = vec(v, RS_FLOAT32, 4); /* 4 of 3 channels */
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "weight") != NULL);
    p.weight = vec(v, RS_FLOAT32, 3);
    p.x.strides[3] = 2; /* not dense */
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_INVALID);
    p.x = nchw(d, RS_FLOAT32, sz, 0);
    p.y = nchw(d, RS_FLOAT32, sz, 1); /* y in another layout */
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_INVALID);
    p.y = p.x;
    p.running_var.address = 0; /* evaluation without running statistics */
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_INVALID);
    p.x = nchw(d, RS_FLOAT32, empty, 0), p.y = p.x;
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_UNSUPPORTED);
    p.x = nchw(d, RS_INT64, sz, 0), p.y = p.x;
    CHECK(rs_batch_norm_forward(s, &p) == RS_ERR_UNSUPPORTED);
    rs_group_norm q;
    memset(&q, 0, sizeof q);
    q.x = nchw(d, RS_FLOAT32, sz, 0), q.y = q.x;
    q.mean = vec(v, RS_FLOAT32, 2), q.rstd = q.mean;
    q.groups = 2; /* 3 channels */
    CHECK(rs_group_norm_forward(s, &q) == RS_ERR_INVALID);
    q.groups = 3;
    CHECK(rs_group_norm_forward(s, &q) == RS_ERR_INVALID); /* mean of 2, not 6 */
    q.x = nchw(d, RS_FLOAT32, empty, 0), q.y = q.x;
    CHECK(rs_group_norm_forward(s, &q) == RS_ERR_UNSUPPORTED);
    rs_free(dev, d), rs_free(dev, v);
}

int main(void) {
    RUN(batch_norm_float32_forward_and_backward);
    RUN(batch_norm_reduced_statistics_path);
    RUN(group_norm_forward_and_backward);
    RUN(layer_norm_and_rms_norm_forward_and_backward);
    RUN(bad_arguments);
    CTEST_END();
}
