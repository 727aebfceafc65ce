/* Pairwise distances (russet/distance.h) without torch, against double-
 * precision references on the host: every kind of p (0, 1, 2, inf, 0.5, 3),
 * x2 read through a transposed layout, a pair of equal rows (distance 0:
 * the gradient's zero case), float32 and, where the device has it,
 * float64; bad arguments fail clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { B = 2, N = 5, M = 6, C = 7 };

static double sgn(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

static double ref_dist(const double *a, const double *b, double p) {
    double agg = 0;
    for (int k = 0; k < C; ++k) {
        double d = fabs(a[k] - b[k]);
        if (p == 0) agg += d != 0;
        else if (isinf(p)) agg = fmax(agg, d);
        else agg += pow(d, p);
    }
    return p == 0 || isinf(p) ? agg : pow(agg, 1 / p);
}

static double ref_term(double diff, double dist, double p) {
    if (p == 0) return 0;
    if (p == 1) return sgn(diff);
    if (isinf(p)) return fabs(fabs(diff) - dist) == 0 ? sgn(diff) : 0;
    if (dist == 0 || (p < 1 && diff == 0)) return 0;
    if (p < 2) return sgn(diff) * pow(fabs(diff), p - 1) / pow(dist, p - 1);
    return diff * pow(fabs(diff), p - 2) / pow(dist, p - 1);
}

static void put(rs_dtype dt, void *buf, size_t i, double v) {
    if (dt == RS_FLOAT64) ((double *)buf)[i] = v;
    else ((float *)buf)[i] = (float)v;
}
static double get(rs_dtype dt, const void *buf, size_t i) {
    return dt == RS_FLOAT64 ? ((const double *)buf)[i] : ((const float *)buf)[i];
}

static void run(rs_dtype dt) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    if (dt == RS_FLOAT64 && !rs_device_features(dev)->has_fp64) return;
    size_t es = rs_dtype_size(dt);
    double x1[B][N][C], x2[B][M][C], g[B][N][M];
    unsigned seed = 5;
    for (int b = 0; b < B; ++b) {
        for (int i = 0; i < N; ++i)
            for (int k = 0; k < C; ++k) seed = seed * 1103515245u + 12345u, x1[b][i][k] = ((seed >> 8) % 2000) / 500.0 - 2;
        for (int j = 0; j < M; ++j)
            for (int k = 0; k < C; ++k) seed = seed * 1103515245u + 12345u, x2[b][j][k] = ((seed >> 8) % 2000) / 500.0 - 2;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < M; ++j) seed = seed * 1103515245u + 12345u, g[b][i][j] = ((seed >> 8) % 1000) / 500.0 - 1;
    }
    memcpy(x2[1][3], x1[1][2], sizeof x2[1][3]); /* equal rows: distance 0 */
    /* x1 contiguous; x2 stored (B, C, M) and read as (B, M, C) */
    void *h1 = malloc(B * N * C * es), *h2 = malloc(B * M * C * es), *hg = malloc(B * N * M * es);
    for (int b = 0; b < B; ++b) {
        for (int i = 0; i < N; ++i)
            for (int k = 0; k < C; ++k) put(dt, h1, (size_t)((b * N + i) * C + k), x1[b][i][k]);
        for (int j = 0; j < M; ++j)
            for (int k = 0; k < C; ++k) put(dt, h2, (size_t)((b * C + k) * M + j), x2[b][j][k]);
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < M; ++j) put(dt, hg, (size_t)((b * N + i) * M + j), g[b][i][j]);
    }
    uint64_t d1 = ctest_upload(dev, s, h1, B * N * C * es), d2 = ctest_upload(dev, s, h2, B * M * C * es);
    uint64_t dg = ctest_upload(dev, s, hg, B * N * M * es), dd, dr;
    CHECK_OK(rs_alloc(dev, B * N * M * es, s, &dd));
    CHECK_OK(rs_alloc(dev, B * N * C * es, s, &dr));
    int64_t s1[3] = {B, N, C}, s2[3] = {B, M, C}, sd[3] = {B, N, M};
    rs_tensor t1 = ctest_view(d1, dt, 3, s1), t2 = ctest_view(d2, dt, 3, s2), td = ctest_view(dd, dt, 3, sd);
    rs_tensor tg = ctest_view(dg, dt, 3, sd), tr = ctest_view(dr, dt, 3, s1);
    t2.strides[0] = C * M, t2.strides[1] = 1, t2.strides[2] = M;
    const double ps[6] = {0, 1, 2, INFINITY, 0.5, 3};
    const double tol = dt == RS_FLOAT64 ? 1e-12 : 2e-5;
    void *out = malloc(B * N * M * es), *gr = malloc(B * N * C * es);
    for (int q = 0; q < 6; ++q) {
        double p = ps[q];
        CHECK_OK(rs_cdist_forward(s, &t1, &t2, p, &td));
        CHECK_OK(rs_cdist_backward(s, &tg, &t1, &t2, p, &td, &tr));
        CHECK_OK(rs_memcpy_dtoh(s, out, dd, B * N * M * es));
        CHECK_OK(rs_memcpy_dtoh(s, gr, dr, B * N * C * es));
        for (int b = 0; b < B; ++b)
            for (int i = 0; i < N; ++i) {
                for (int j = 0; j < M; ++j) {
                    double want = ref_dist(x1[b][i], x2[b][j], p), got = get(dt, out, (size_t)((b * N + i) * M + j));
                    if (fabs(got - want) > tol * (1 + fabs(want)))
                        fprintf(stderr, "  p %g dist[%d,%d,%d] %.9g, want %.9g\n", p, b, i, j, got, want);
                    CHECK(fabs(got - want) <= tol * (1 + fabs(want)));
                }
                for (int k = 0; k < C; ++k) {
                    double want = 0;
                    for (int j = 0; j < M; ++j) {
                        double dist = get(dt, out, (size_t)((b * N + i) * M + j)); /* the device's, as CPU uses its own */
                        /* the difference in the dtype: p = inf picks the element equal to the distance */
                        double diff = dt == RS_FLOAT64 ? x1[b][i][k] - x2[b][j][k]
                                                       : (double)((float)x1[b][i][k] - (float)x2[b][j][k]);
                        want += ref_term(diff, dist, p) * g[b][i][j];
                    }
                    double got = get(dt, gr, (size_t)((b * N + i) * C + k));
                    if (fabs(got - want) > 20 * tol * (1 + fabs(want)))
                        fprintf(stderr, "  p %g grad[%d,%d,%d] %.9g, want %.9g\n", p, b, i, k, got, want);
                    CHECK(fabs(got - want) <= 20 * tol * (1 + fabs(want)));
                }
            }
    }
    /* bad arguments */
    CHECK(rs_cdist_forward(s, &t1, &t2, -1, &td) == RS_ERR_INVALID && strstr(rs_last_error(), "non-negative"));
    rs_tensor wrong = td;
    wrong.sizes[2] = M + 1;
    CHECK(rs_cdist_forward(s, &t1, &t2, 2, &wrong) == RS_ERR_INVALID && strstr(rs_last_error(), "dist"));
    rs_tensor half = t1;
    half.dtype = RS_FLOAT16;
    CHECK(rs_cdist_forward(s, &half, &t2, 2, &td) == RS_ERR_UNSUPPORTED);
    free(h1), free(h2), free(hg), free(out), free(gr);
    rs_free(dev, d1), rs_free(dev, d2), rs_free(dev, dg), rs_free(dev, dd), rs_free(dev, dr);
}

TEST(float32_every_p) { run(RS_FLOAT32); }
TEST(float64_every_p_where_the_device_has_it) { run(RS_FLOAT64); }

int main(void) {
    RUN(float32_every_p);
    RUN(float64_every_p_where_the_device_has_it);
    CTEST_END();
}
