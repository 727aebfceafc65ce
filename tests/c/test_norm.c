/* The normalization engine (rs_norm_run) without torch: row statistics
 * in one chunk and in many (merged partials), strided row sets (batch
 * norm's channels in NCHW and channels_last), a layer norm forward and
 * backward composed from the four blocks (as batch and group norm use
 * them), batch norm's training forward in the statistics kernel
 * (bn_train), and the whole-row kernels that layer norm and RMS norm use,
 * against double references. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static int close_to(double got, double want, double tol) { return fabs(got - want) <= tol * (1.0 + fabs(want)); }

static float value(int64_t i) { return (float)(sin((double)i * 0.61) * 3.0 + 5.0); } /* mean far from 0 */

/* batch-norm statistics of (N, C, HW) in NCHW and channels_last; rows of
 * 2 * 6000 elements are split into chunks (partials merged in pass 2) */
/* the statistics of (N, C, HW) rows, NCHW and channels_last: 3 channels
 * (element by element) and 8 (float32 words: 4 neighbouring elements of a
 * plane, or in channels_last the same element of 4 channels) */
static void check_strided_stats(rs_device *dev, rs_stream *s, int C) {
    enum { N = 2, HW = 6000 };
    const int E = N * C * HW;
    float *x = malloc((size_t)E * 4), m[8], v[8];
    CHECK(x && C <= 8);
    for (int i = 0; i < E; ++i) x[i] = value(i);
    uint64_t dx = ctest_upload(dev, s, x, (size_t)E * 4), dm = 0, dv = 0;
    CHECK_OK(rs_alloc(dev, C * 4, s, &dm));
    CHECK_OK(rs_alloc(dev, C * 4, s, &dv));
    for (int cl = 0; cl < 2; ++cl) {
        rs_norm p;
        memset(&p, 0, sizeof p);
        p.op = RS_NORM_STATS;
        p.dtype = RS_FLOAT32;
        p.x = dx;
        p.rows = C;
        if (cl) { /* (N, HW, C): element k of channel c at k * C + c */
            p.outer = N * HW, p.inner = 1, p.row_stride = 1, p.outer_stride = C;
        } else {
            p.outer = N, p.inner = HW, p.row_stride = HW, p.outer_stride = C * HW;
        }
        p.out1 = dm;
        p.out2 = dv;
        CHECK_OK(rs_norm_run(s, &p));
        CHECK_OK(rs_memcpy_dtoh(s, m, dm, C * 4));
        CHECK_OK(rs_memcpy_dtoh(s, v, dv, C * 4));
        CHECK_OK(rs_stream_synchronize(s));
        for (int c = 0; c < C; ++c) {
            double sum = 0, sq = 0;
            for (int nn = 0; nn < N; ++nn)
                for (int h = 0; h < HW; ++h) sum += x[cl ? (nn * HW + h) * C + c : (nn * C + c) * HW + h];
            double mean = sum / (N * HW);
            for (int nn = 0; nn < N; ++nn)
                for (int h = 0; h < HW; ++h) {
                    double d = x[cl ? (nn * HW + h) * C + c : (nn * C + c) * HW + h] - mean;
                    sq += d * d;
                }
            CHECK(close_to(m[c], mean, 1e-6));
            CHECK(close_to(v[c], sq / (N * HW), 1e-5));
        }
    }
    rs_free(dev, dx);
    rs_free(dev, dm);
    rs_free(dev, dv);
    free(x);
}

TEST(stats_of_strided_rows_in_chunks) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    check_strided_stats(dev, s, 3);
    check_strided_stats(dev, s, 8);
}

/* STATS with bn_train: invstd, the running statistics and alpha, beta per
 * channel, for rows of 2 x 6000 (chunks, pass 2 writes) and 2 x 20 (one
 * lane in order), with and without weight, bias and running statistics */
TEST(batch_norm_training_in_the_statistics_kernel) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 2, C = 3, HWMAX = 6000 };
    const double eps = 1e-3, mom = 0.25;
    static float x[N * C * HWMAX];
    const float w[C] = {0.5f, 2.0f, -1.0f}, bias[C] = {1.0f, -0.25f, 3.0f}, rm0[C] = {0.1f, 0.2f, 0.3f},
                rv0[C] = {1.0f, 2.0f, 0.5f};
    for (int i = 0; i < N * C * HWMAX; ++i) x[i] = value(i);
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dw = ctest_upload(dev, s, w, sizeof w);
    uint64_t db = ctest_upload(dev, s, bias, sizeof bias), drm = 0, drv = 0, out[4] = {0};
    CHECK_OK(rs_alloc(dev, C * 4, s, &drm));
    CHECK_OK(rs_alloc(dev, C * 4, s, &drv));
    for (int i = 0; i < 4; ++i) CHECK_OK(rs_alloc(dev, C * 4, s, &out[i]));
    for (int hw = 20; hw <= HWMAX; hw += HWMAX - 20)
        for (int affine = 0; affine < 2; ++affine) {
            CHECK_OK(rs_memcpy_htod(s, drm, rm0, sizeof rm0));
            CHECK_OK(rs_memcpy_htod(s, drv, rv0, sizeof rv0));
            rs_norm p;
            memset(&p, 0, sizeof p);
            p.op = RS_NORM_STATS;
            p.dtype = RS_FLOAT32;
            p.x = dx;
            p.rows = C, p.outer = N, p.inner = hw, p.row_stride = hw, p.outer_stride = C * hw;
            p.out1 = out[0], p.out2 = out[1], p.alpha = out[2], p.beta = out[3];
            p.bn_train = 1, p.eps = eps, p.momentum = mom;
            if (affine) p.w = dw, p.bias = db, p.run_mean = drm, p.run_var = drv;
            CHECK_OK(rs_norm_run(s, &p));
            float got[4][C], rm[C], rv[C];
            for (int i = 0; i < 4; ++i) CHECK_OK(rs_memcpy_dtoh(s, got[i], out[i], sizeof got[i]));
            CHECK_OK(rs_memcpy_dtoh(s, rm, drm, sizeof rm));
            CHECK_OK(rs_memcpy_dtoh(s, rv, drv, sizeof rv));
            CHECK_OK(rs_stream_synchronize(s));
            for (int c = 0; c < C; ++c) {
                double sum = 0, sq = 0, k = (double)N * hw;
                for (int nn = 0; nn < N; ++nn)
                    for (int h = 0; h < hw; ++h) sum += x[(nn * C + c) * hw + h];
                double mean = sum / k;
                for (int nn = 0; nn < N; ++nn)
                    for (int h = 0; h < hw; ++h) sq += (x[(nn * C + c) * hw + h] - mean) * (x[(nn * C + c) * hw + h] - mean);
                double invstd = 1.0 / sqrt(sq / k + eps), a = invstd * (affine ? w[c] : 1.0);
                CHECK(close_to(got[0][c], mean, 1e-6));
                CHECK(close_to(got[1][c], invstd, 1e-5));
                CHECK(close_to(got[2][c], a, 1e-5));
                CHECK(close_to(got[3][c], (affine ? bias[c] : 0.0) - mean * a, 1e-5));
                /* untouched without running statistics */
                CHECK(close_to(rm[c], affine ? (1 - mom) * rm0[c] + mom * mean : rm0[c], 1e-6));
                CHECK(close_to(rv[c], affine ? (1 - mom) * rv0[c] + mom * sq / (k - 1) : rv0[c], 1e-5));
            }
        }
    rs_norm bad;
    memset(&bad, 0, sizeof bad);
    bad.op = RS_NORM_STATS, bad.dtype = RS_FLOAT32, bad.x = dx, bad.rows = C, bad.outer = N, bad.inner = 20;
    bad.row_stride = 20, bad.outer_stride = C * 20, bad.out1 = out[0], bad.out2 = out[1], bad.bn_train = 1;
    CHECK(rs_norm_run(s, &bad) == RS_ERR_INVALID); /* no alpha, beta */
    rs_free(dev, dx), rs_free(dev, dw), rs_free(dev, db), rs_free(dev, drm), rs_free(dev, drv);
    for (int i = 0; i < 4; ++i) rs_free(dev, out[i]);
}

/* BN_PARAMS: alpha = invstd w, beta = bias - mean alpha per channel, from
 * a given invstd (each product rounded on its own: exact) or a variance
 * (1 / sqrt(var + eps): within an ulp or two, the device's sqrt); without
 * weight alpha is invstd, without bias beta is -(mean alpha) */
TEST(batch_norm_parameters_per_channel) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { C = 5 };
    const float mean[C] = {0.1f, -2.5f, 3.0f, 0.0f, 7.25f}, var[C] = {1.0f, 0.3f, 2.0f, 0.0f, 5.5f};
    const float w[C] = {0.5f, 2.0f, -1.0f, 1.5f, 0.3f}, bias[C] = {1.0f, -0.25f, 3.0f, 0.0f, 0.1f};
    const double eps = 1e-5;
    uint64_t dm = ctest_upload(dev, s, mean, sizeof mean), dv = ctest_upload(dev, s, var, sizeof var);
    uint64_t dw = ctest_upload(dev, s, w, sizeof w), db = ctest_upload(dev, s, bias, sizeof bias), da, dbeta;
    CHECK_OK(rs_alloc(dev, sizeof mean, s, &da));
    CHECK_OK(rs_alloc(dev, sizeof mean, s, &dbeta));
    for (int v = 0; v < 2; ++v)
        for (int affine = 0; affine < 2; ++affine) {
            rs_norm p;
            memset(&p, 0, sizeof p);
            p.op = RS_NORM_BN_PARAMS, p.dtype = RS_FLOAT32, p.rows = C;
            p.a = dm, p.b = dv, p.bn_var = v, p.eps = eps, p.out1 = da, p.out2 = dbeta;
            if (affine) p.w = dw, p.bias = db;
            CHECK_OK(rs_norm_run(s, &p));
            float alpha[C], beta[C];
            CHECK_OK(rs_memcpy_dtoh(s, alpha, da, sizeof alpha));
            CHECK_OK(rs_memcpy_dtoh(s, beta, dbeta, sizeof beta));
            for (int c = 0; c < C; ++c) {
                const float inv = v ? 1.0f / sqrtf(var[c] + (float)eps) : var[c];
                const float a = affine ? inv * w[c] : inv, ma = mean[c] * a;
                const float want_b = affine ? bias[c] - ma : -ma;
                if (v) {
                    CHECK(close_to(alpha[c], a, 1e-6) && close_to(beta[c], want_b, 1e-6));
                } else {
                    CHECK(memcmp(&alpha[c], &a, 4) == 0 && memcmp(&beta[c], &want_b, 4) == 0);
                }
            }
        }
    rs_norm bad;
    memset(&bad, 0, sizeof bad);
    bad.op = RS_NORM_BN_PARAMS, bad.dtype = RS_FLOAT32, bad.rows = C, bad.b = dv;
    CHECK(rs_norm_run(s, &bad) == RS_ERR_INVALID && strstr(rs_last_error(), "missing vectors"));
    rs_free(dev, dm), rs_free(dev, dv), rs_free(dev, dw), rs_free(dev, db), rs_free(dev, da), rs_free(dev, dbeta);
}

/* layer norm over (M, K) rows with weight and bias, and its backward:
 * STATS -> rstd (host, tiny) -> APPLY; SUMS (rows) -> GRAD; SUMS over the
 * columns (stat_of_outer) for the weight and bias gradients */
TEST(layer_norm_forward_and_backward_from_the_blocks) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { M = 5, K = 300, E = M * K };
    const double eps = 1e-5;
    static float x[E], g[E], y[E], gi[E], w[K], b[K];
    for (int i = 0; i < E; ++i) x[i] = value(i), g[i] = (float)cos(i * 0.37);
    for (int j = 0; j < K; ++j) w[j] = 1.0f + 0.01f * (float)j, b[j] = 0.5f - 0.002f * (float)j;
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dg = ctest_upload(dev, s, g, sizeof g);
    uint64_t dw = ctest_upload(dev, s, w, sizeof w), db = ctest_upload(dev, s, b, sizeof b);
    uint64_t dy = 0, dgi = 0, dm = 0, dv = 0, ds1 = 0, ds2 = 0, dgw = 0, dgb = 0;
    CHECK_OK(rs_alloc(dev, sizeof y, s, &dy));
    CHECK_OK(rs_alloc(dev, sizeof gi, s, &dgi));
    CHECK_OK(rs_alloc(dev, M * 4, s, &dm));
    CHECK_OK(rs_alloc(dev, M * 4, s, &dv));
    CHECK_OK(rs_alloc(dev, M * 4, s, &ds1));
    CHECK_OK(rs_alloc(dev, M * 4, s, &ds2));
    CHECK_OK(rs_alloc(dev, K * 4, s, &dgw));
    CHECK_OK(rs_alloc(dev, K * 4, s, &dgb));
    rs_norm p;
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_STATS;
    p.dtype = RS_FLOAT32;
    p.x = dx;
    p.rows = M, p.outer = 1, p.inner = K, p.row_stride = K;
    p.out1 = dm, p.out2 = dv;
    CHECK_OK(rs_norm_run(s, &p));
    float mean[M], var[M], rstd[M];
    CHECK_OK(rs_memcpy_dtoh(s, mean, dm, sizeof mean));
    CHECK_OK(rs_memcpy_dtoh(s, var, dv, sizeof var));
    CHECK_OK(rs_stream_synchronize(s));
    for (int r = 0; r < M; ++r) rstd[r] = (float)(1.0 / sqrt(var[r] + eps));
    CHECK_OK(rs_memcpy_htod(s, dv, rstd, sizeof rstd)); /* dv holds rstd from here */

    memset(&p, 0, sizeof p);
    p.op = RS_NORM_APPLY;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.y = dy;
    p.numel = E, p.row_div = K, p.rows = M, p.col_div = 1, p.cols = K;
    p.a = dm, p.b = dv, p.w = dw, p.bias = db;
    CHECK_OK(rs_norm_run(s, &p));

    memset(&p, 0, sizeof p);
    p.op = RS_NORM_SUMS;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.g = dg;
    p.rows = M, p.outer = 1, p.inner = K, p.row_stride = K;
    p.a = dm, p.b = dv, p.w = dw;
    p.out1 = ds1, p.out2 = ds2;
    CHECK_OK(rs_norm_run(s, &p));
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_GRAD;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.g = dg, p.y = dgi;
    p.numel = E, p.row_div = K, p.rows = M, p.col_div = 1, p.cols = K;
    p.a = dm, p.b = dv, p.w = dw, p.s1 = ds1, p.s2 = ds2, p.inv_k = 1.0 / K;
    CHECK_OK(rs_norm_run(s, &p));
    /* columns: row j's elements are x[r][j], r = 0..M-1; stats by r */
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_SUMS;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.g = dg;
    p.rows = K, p.outer = M, p.inner = 1, p.row_stride = 1, p.outer_stride = K;
    p.a = dm, p.b = dv, p.stat_of_outer = 1;
    p.out1 = dgb, p.out2 = dgw;
    CHECK_OK(rs_norm_run(s, &p));
    float gw[K], gb[K];
    CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
    CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
    CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, sizeof gw));
    CHECK_OK(rs_memcpy_dtoh(s, gb, dgb, sizeof gb));
    CHECK_OK(rs_stream_synchronize(s));

    static double gwr[K], gbr[K];
    memset(gwr, 0, sizeof gwr);
    memset(gbr, 0, sizeof gbr);
    for (int r = 0; r < M; ++r) {
        double su = 0, sq = 0;
        for (int j = 0; j < K; ++j) su += x[r * K + j];
        double mu = su / K;
        for (int j = 0; j < K; ++j) sq += (x[r * K + j] - mu) * (x[r * K + j] - mu);
        double rs = 1.0 / sqrt(sq / K + eps), s1 = 0, s2 = 0;
        CHECK(close_to(mean[r], mu, 1e-6));
        for (int j = 0; j < K; ++j) {
            double xh = (x[r * K + j] - mu) * rs;
            CHECK(close_to(y[r * K + j], xh * w[j] + b[j], 1e-5));
            s1 += g[r * K + j] * w[j];
            s2 += g[r * K + j] * w[j] * xh;
            gwr[j] += g[r * K + j] * xh;
            gbr[j] += g[r * K + j];
        }
        for (int j = 0; j < K; ++j) {
            double xh = (x[r * K + j] - mu) * rs;
            double want = rs * (g[r * K + j] * w[j] - s1 / K - xh * s2 / K);
            CHECK(close_to(gi[r * K + j], want, 1e-4));
        }
    }
    for (int j = 0; j < K; ++j) {
        CHECK(close_to(gw[j], gwr[j], 1e-4));
        CHECK(close_to(gb[j], gbr[j], 1e-5));
    }
    uint64_t bufs[] = {dx, dg, dw, db, dy, dgi, dm, dv, ds1, ds2, dgw, dgb};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) rs_free(dev, bufs[i]);
}

/* the whole-row kernels (layer norm and RMS norm, forward and backward,
 * and the column sums) over row lengths that give 1, 128 and 256 lanes a
 * row, row counts that leave a workgroup's last rows empty, and column
 * sums in one chunk and in several (partials) */
static void check_rows(rs_device *dev, rs_stream *s, int M, int K, int centred) {
    const double eps = 1e-5;
    int E = M * K;
    float *x = malloc(E * 4), *g = malloc(E * 4), *y = malloc(E * 4), *gi = malloc(E * 4);
    float *w = malloc(K * 4), *b = malloc(K * 4), *gw = malloc(K * 4), *gb = malloc(K * 4);
    float *mean = malloc(M * 4), *rstd = malloc(M * 4);
    double *gwr = calloc(K, 8), *gbr = calloc(K, 8);
    CHECK(x && g && y && gi && w && b && gw && gb && mean && rstd && gwr && gbr);
    for (int i = 0; i < E; ++i) x[i] = value(i), g[i] = (float)cos(i * 0.37);
    for (int j = 0; j < K; ++j) w[j] = 1.0f + 0.01f * (float)(j % 50), b[j] = 0.5f - 0.002f * (float)(j % 70);
    uint64_t dx = ctest_upload(dev, s, x, E * 4), dg = ctest_upload(dev, s, g, E * 4);
    uint64_t dw = ctest_upload(dev, s, w, K * 4), db = ctest_upload(dev, s, b, K * 4);
    uint64_t dy = 0, dgi = 0, dm = 0, dr = 0, dgw = 0, dgb = 0;
    CHECK_OK(rs_alloc(dev, E * 4, s, &dy));
    CHECK_OK(rs_alloc(dev, E * 4, s, &dgi));
    CHECK_OK(rs_alloc(dev, M * 4, s, &dm));
    CHECK_OK(rs_alloc(dev, M * 4, s, &dr));
    CHECK_OK(rs_alloc(dev, K * 4, s, &dgw));
    CHECK_OK(rs_alloc(dev, K * 4, s, &dgb));
    rs_norm p;
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_ROW_FWD;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.y = dy, p.rows = M, p.inner = K, p.w = dw, p.bias = centred ? db : 0, p.eps = eps;
    p.out1 = centred ? dm : 0, p.out2 = dr;
    CHECK_OK(rs_norm_run(s, &p));
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_ROW_BWD;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.g = dg, p.y = dgi, p.rows = M, p.inner = K, p.w = dw, p.a = centred ? dm : 0, p.b = dr;
    CHECK_OK(rs_norm_run(s, &p));
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_COL_SUMS;
    p.dtype = RS_FLOAT32;
    p.x = dx, p.g = dg, p.rows = M, p.inner = K, p.a = centred ? dm : 0, p.b = dr;
    p.out1 = dgb, p.out2 = dgw;
    CHECK_OK(rs_norm_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, y, dy, E * 4));
    CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, E * 4));
    CHECK_OK(rs_memcpy_dtoh(s, rstd, dr, M * 4));
    if (centred) CHECK_OK(rs_memcpy_dtoh(s, mean, dm, M * 4));
    CHECK_OK(rs_memcpy_dtoh(s, gw, dgw, K * 4));
    CHECK_OK(rs_memcpy_dtoh(s, gb, dgb, K * 4));
    CHECK_OK(rs_stream_synchronize(s));
    int bad = 0;
    for (int r = 0; r < M; ++r) {
        const float *xr = x + (size_t)r * K, *gr = g + (size_t)r * K;
        double mu = 0, sq = 0, s1 = 0, s2 = 0;
        if (centred) {
            for (int j = 0; j < K; ++j) mu += xr[j];
            mu /= K;
        }
        for (int j = 0; j < K; ++j) sq += (xr[j] - mu) * (xr[j] - mu);
        double rs = 1.0 / sqrt(sq / K + eps);
        bad += !close_to(rstd[r], rs, 1e-5) || (centred && !close_to(mean[r], mu, 1e-6));
        for (int j = 0; j < K; ++j) {
            double xh = (xr[j] - mu) * rs;
            bad += !close_to(y[(size_t)r * K + j], xh * w[j] + (centred ? b[j] : 0.0), 1e-5);
            s1 += gr[j] * w[j];
            s2 += gr[j] * w[j] * xh;
            gwr[j] += gr[j] * xh;
            gbr[j] += gr[j];
        }
        if (!centred) s1 = 0;
        for (int j = 0; j < K; ++j) {
            double xh = (xr[j] - mu) * rs;
            bad += !close_to(gi[(size_t)r * K + j], rs * (gr[j] * w[j] - s1 / K - xh * s2 / K), 1e-4);
        }
    }
    for (int j = 0; j < K; ++j) bad += !close_to(gw[j], gwr[j], 1e-4) || !close_to(gb[j], gbr[j], 1e-4);
    if (bad) printf("    rows %d x %d, centred %d: %d values off\n", M, K, centred, bad);
    CHECK(bad == 0);
    uint64_t bufs[] = {dx, dg, dw, db, dy, dgi, dm, dr, dgw, dgb};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) rs_free(dev, bufs[i]);
    free(x), free(g), free(y), free(gi), free(w), free(b), free(gw), free(gb), free(mean), free(rstd), free(gwr),
        free(gbr);
}

TEST(whole_row_kernels_for_layer_norm_and_rms_norm) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    for (int centred = 0; centred < 2; ++centred) {
        check_rows(dev, s, 300, 3, centred);  /* 1 lane a row, 256 rows a workgroup; column sums in chunks */
        check_rows(dev, s, 5, 300, centred);  /* 128 lanes a row, the workgroup's second row empty at the end */
        check_rows(dev, s, 3, 5000, centred); /* 256 lanes, 20 elements a lane (float32: 16-byte words, the
                                                 row read three times) */
        check_rows(dev, s, 7, 768, centred);  /* 16-byte words kept in registers, the second workgroup's last
                                                 row empty */
    }
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_norm p;
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_STATS;
    p.dtype = RS_INT32;
    p.x = 64;
    CHECK(rs_norm_run(s, &p) == RS_ERR_UNSUPPORTED);
    p.dtype = RS_FLOAT32;
    p.rows = 2, p.outer = 1, p.inner = 0;
    CHECK(rs_norm_run(s, &p) == RS_ERR_INVALID);
    p.op = RS_NORM_APPLY;
    p.numel = 4, p.y = 64, p.row_div = 0;
    CHECK(rs_norm_run(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "mapping") != NULL);
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_ROW_BWD;
    p.dtype = RS_FLOAT32;
    p.x = 64, p.g = 64, p.y = 64, p.rows = 2, p.inner = 4; /* no rstd */
    CHECK(rs_norm_run(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "statistics") != NULL);
    p.op = (rs_norm_op)7;
    CHECK(rs_norm_run(s, &p) == RS_ERR_INVALID);
}

int main(void) {
    RUN(stats_of_strided_rows_in_chunks);
    RUN(batch_norm_training_in_the_statistics_kernel);
    RUN(batch_norm_parameters_per_channel);
    RUN(layer_norm_forward_and_backward_from_the_blocks);
    RUN(whole_row_kernels_for_layer_norm_and_rms_norm);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
