/* The margin-loss engine (russet/margin_loss.h) without torch, against host
 * loops written from the contract (CPU's LossMultiMargin.cpp and
 * LossMultiLabelMargin.cpp loops): multi margin with p 1 and 2, a margin,
 * class weights; multilabel with label lists ended by -1, repeats and a
 * row of no labels; every reduction; forward and backward; a strided
 * input; NaN and ties; float32 (and float64 where the device has float64
 * arithmetic), compared bit for bit. Bad targets raise at the sync with
 * CPU's messages; bad arguments fail clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { N = 5, C = 7 };

static const int64_t TARGET[N] = {3, 0, 6, 2, 3};
/* label lists: repeats, a -1 ending, a first -1 (no labels), all columns */
static const int64_t LABELS[N][C] = {{3, 0, -1, 1, 2, 5, 6}, {1, 1, 4, -1, -1, -1, -1}, {-1, 2, 3, 0, 0, 0, 0},
                                     {0, 1, 2, 3, 4, 5, 6}, {6, 5, -1, 0, 0, 0, 0}};

/* The reference loops, for T float or double; sums of the accumulate type
 * (double) where CPU keeps them so. */
#define DEFINE_REF(T, SFX)                                                                                  \
    static void multi_fwd_##SFX(const T *x, const T *w, int p, T margin, T *rows) {                        \
        for (int i = 0; i < N; ++i) {                                                                        \
            const int64_t t = TARGET[i];                                                                     \
            T sum = 0;                                                                                       \
            for (int d = 0; d < C; ++d) {                                                                    \
                if (d == t) continue;                                                                        \
                const T z = margin - x[i * C + t] + x[i * C + d];                                           \
                if (z > 0) {                                                                                 \
                    T h = p == 1 ? z : z * z;                                                                \
                    if (w) h *= w[t];                                                                        \
                    sum += h;                                                                                \
                }                                                                                            \
            }                                                                                                \
            rows[i] = sum / (T)C;                                                                            \
        }                                                                                                    \
    }                                                                                                        \
    static void multi_bwd_##SFX(const T *x, const T *w, int p, T margin, T g, const T *go, int per_row, T *gi) { \
        for (int i = 0; i < N; ++i) {                                                                        \
            const int64_t t = TARGET[i];                                                                     \
            T gt = 0;                                                                                        \
            for (int d = 0; d < C; ++d) {                                                                    \
                if (d == t) continue;                                                                        \
                const T z = margin - x[i * C + t] + x[i * C + d];                                           \
                if (z > 0) {                                                                                 \
                    T h = p == 1 ? g : 2 * g * z;                                                            \
                    if (w) h *= w[t];                                                                        \
                    gt -= h;                                                                                 \
                    gi[i * C + d] = h;                                                                       \
                } else {                                                                                     \
                    gi[i * C + d] = 0;                                                                       \
                }                                                                                            \
            }                                                                                                \
            gi[i * C + t] = gt;                                                                              \
            for (int d = 0; d < C; ++d) gi[i * C + d] *= go[per_row ? i : 0];                               \
        }                                                                                                    \
    }                                                                                                        \
    static void label_fwd_##SFX(const T *x, T *is_target, double *sums) {                                    \
        memset(is_target, 0, sizeof(T) * N * C);                                                             \
        for (int i = 0; i < N; ++i) {                                                                        \
            for (int k = 0; k < C && LABELS[i][k] >= 0; ++k) is_target[i * C + LABELS[i][k]] = 1;           \
            double sum = 0;                                                                                  \
            for (int k = 0; k < C && LABELS[i][k] >= 0; ++k)                                                 \
                for (int d = 0; d < C; ++d) {                                                                \
                    if (is_target[i * C + d] != 0) continue;                                                 \
                    const T z = 1 - x[i * C + LABELS[i][k]] + x[i * C + d];                                  \
                    if (z > 0) sum += z;                                                                     \
                }                                                                                            \
            sums[i] = sum;                                                                                   \
        }                                                                                                    \
    }                                                                                                        \
    static void label_bwd_##SFX(const T *x, const T *is_target, T g, const T *go, int per_row, T *gi) {      \
        memset(gi, 0, sizeof(T) * N * C);                                                                    \
        for (int i = 0; i < N; ++i) {                                                                        \
            for (int k = 0; k < C && LABELS[i][k] >= 0; ++k)                                                 \
                for (int d = 0; d < C; ++d) {                                                                \
                    if (is_target[i * C + d] != 0) continue;                                                 \
                    const T z = 1 - x[i * C + LABELS[i][k]] + x[i * C + d];                                  \
                    if (z > 0) {                                                                             \
                        gi[i * C + LABELS[i][k]] -= g;                                                       \
                        gi[i * C + d] += g;                                                                  \
                    }                                                                                        \
                }                                                                                            \
            for (int d = 0; d < C; ++d) gi[i * C + d] *= go[per_row ? i : 0];                               \
        }                                                                                                    \
    }

DEFINE_REF(float, f)
DEFINE_REF(double, d)

static int same_bits(const void *a, const void *b, int dbl) {
    if (dbl) {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (isnan(x) && isnan(y)) || memcmp(a, b, 8) == 0;
    }
    float x, y;
    memcpy(&x, a, 4), memcpy(&y, b, 4);
    return (isnan(x) && isnan(y)) || memcmp(a, b, 4) == 0;
}

/* input (N, C) stored transposed: strides (1, N) */
static rs_tensor strided_input(uint64_t a, rs_dtype dt) {
    const int64_t sz[2] = {N, C};
    rs_tensor t = ctest_view(a, dt, 2, sz);
    t.strides[0] = 1, t.strides[1] = N;
    return t;
}

static void check_kind(rs_margin_kind kind, rs_dtype dt) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int dbl = dt == RS_FLOAT64;
    const size_t es = dbl ? 8 : 4;
    double xv[N * C], wv[C], gov[N];
    uint64_t seed = 12345;
    for (int e = 0; e < N * C; ++e) { /* values in [-2, 2) on a grid of 1/8: ties and exact zeros */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        xv[e] = (double)((int)(seed >> 59) - 16) / 8.0 + ((e % 5 == 1) ? 0.3 : 0.0);
    }
    xv[2 * C + 4] = NAN;
    for (int d = 0; d < C; ++d) wv[d] = 0.5 + 0.25 * d;
    for (int i = 0; i < N; ++i) gov[i] = 0.75 - 0.5 * i;
    float xf[N * C], xtf[N * C], wf[C], gof[N];
    double xtd[N * C];
    for (int e = 0; e < N * C; ++e) xf[e] = (float)xv[e];
    for (int i = 0; i < N; ++i)
        for (int d = 0; d < C; ++d) xtf[d * N + i] = xf[i * C + d], xtd[d * N + i] = xv[i * C + d];
    for (int d = 0; d < C; ++d) wf[d] = (float)wv[d];
    for (int i = 0; i < N; ++i) gof[i] = (float)gov[i];
    const void *xt = dbl ? (const void *)xtd : (const void *)xtf;
    uint64_t dx = ctest_upload(dev, s, xt, es * N * C);
    uint64_t dw = ctest_upload(dev, s, dbl ? (const void *)wv : (const void *)wf, es * C);
    uint64_t dg = ctest_upload(dev, s, dbl ? (const void *)gov : (const void *)gof, es * N);
    uint64_t dt_ = kind == RS_MARGIN_MULTI ? ctest_upload(dev, s, TARGET, sizeof TARGET)
                                          : ctest_upload(dev, s, LABELS, sizeof LABELS);
    uint64_t dout, dis, dgi;
    CHECK_OK(rs_alloc(dev, es * N, s, &dout));
    CHECK_OK(rs_alloc(dev, es * N * C, s, &dis));
    CHECK_OK(rs_alloc(dev, es * N * C, s, &dgi));
    const int64_t nsz[1] = {N}, one[1] = {1}, csz[1] = {C}, ncsz[2] = {N, C};
    for (int p = 1; p <= (kind == RS_MARGIN_MULTI ? 2 : 1); ++p)
        for (int weighted = 0; weighted <= (kind == RS_MARGIN_MULTI); ++weighted)
            for (int red = 0; red < 3; ++red) {
                rs_margin_loss q;
                memset(&q, 0, sizeof q);
                q.kind = kind, q.p = p, q.margin = 0.7, q.reduction = red;
                q.input = strided_input(dx, dt);
                q.target = kind == RS_MARGIN_MULTI ? ctest_view(dt_, RS_INT64, 1, nsz)
                                                   : ctest_view(dt_, RS_INT64, 2, ncsz);
                if (weighted) q.weight = ctest_view(dw, dt, 1, csz);
                q.is_target = ctest_view(dis, dt, 2, ncsz);
                q.out = ctest_view(dout, dt, 1, red ? one : nsz);
                CHECK_OK(rs_margin_loss_forward(s, &q));
                unsigned char got[8 * N], want[8 * N];
                CHECK_OK(rs_memcpy_dtoh(s, got, dout, es * (red ? 1 : N)));
                /* the reference */
                double sums[N], total = 0;
                union {
                    float f[N * C];
                    double d[N * C];
                } ist, gi_ref, gi_got;
                if (kind == RS_MARGIN_MULTI) {
                    float rf[N];
                    double rd[N];
                    if (dbl) multi_fwd_d(xv, weighted ? wv : NULL, p, 0.7, rd);
                    else multi_fwd_f(xf, weighted ? wf : NULL, p, (float)0.7, rf);
                    for (int i = 0; i < N; ++i) sums[i] = dbl ? rd[i] : rf[i];
                    for (int i = 0; i < N; ++i) total += sums[i];
                    if (!red) {
                        if (dbl) memcpy(want, rd, 8 * N);
                        else memcpy(want, rf, 4 * N);
                    }
                } else {
                    if (dbl) label_fwd_d(xv, ist.d, sums);
                    else label_fwd_f(xf, ist.f, sums);
                    /* a row's sum is rounded to the dtype (CPU's inner sum returns scalar_t) */
                    for (int i = 0; i < N; ++i) total += dbl ? sums[i] : (double)(float)sums[i];
                    total /= C;
                    for (int i = 0; !red && i < N; ++i) {
                        if (dbl) ((double *)want)[i] = sums[i] / (double)C;
                        else ((float *)want)[i] = (float)sums[i] / (float)C;
                    }
                    unsigned char isg[8 * N * C];
                    CHECK_OK(rs_memcpy_dtoh(s, isg, dis, es * N * C));
                    CHECK(memcmp(isg, &ist, es * N * C) == 0);
                }
                if (red == 1) total /= N;
                if (red) {
                    if (dbl) memcpy(want, &total, 8);
                    else {
                        float f = (float)total;
                        memcpy(want, &f, 4);
                    }
                }
                for (int i = 0; i < (red ? 1 : N); ++i) {
                    if (!same_bits(got + es * i, want + es * i, dbl))
                        fprintf(stderr, "  kind %d p %d w %d red %d row %d\n", kind, p, weighted, red, i);
                    CHECK(same_bits(got + es * i, want + es * i, dbl));
                }
                /* backward: grad_output per row (none) or one value */
                q.grad = ctest_view(dg, dt, 1, red ? one : nsz);
                q.out = ctest_view(dgi, dt, 2, ncsz);
                CHECK_OK(rs_margin_loss_backward(s, &q));
                CHECK_OK(rs_memcpy_dtoh(s, &gi_got, dgi, es * N * C));
                const double g = red == 1 ? 1.0 / ((double)N * C) : 1.0 / C;
                if (kind == RS_MARGIN_MULTI) {
                    if (dbl) multi_bwd_d(xv, weighted ? wv : NULL, p, 0.7, g, gov, !red, gi_ref.d);
                    else multi_bwd_f(xf, weighted ? wf : NULL, p, (float)0.7, (float)g, gof, !red, gi_ref.f);
                } else {
                    if (dbl) label_bwd_d(xv, ist.d, g, gov, !red, gi_ref.d);
                    else label_bwd_f(xf, ist.f, (float)g, gof, !red, gi_ref.f);
                }
                for (int e = 0; e < N * C; ++e)
                    CHECK(same_bits((char *)&gi_got + es * e, (char *)&gi_ref + es * e, dbl));
            }
    rs_free(dev, dx), rs_free(dev, dw), rs_free(dev, dg), rs_free(dev, dt_);
    rs_free(dev, dout), rs_free(dev, dis), rs_free(dev, dgi);
}

TEST(losses_against_the_contract) {
    rs_device *dev = ctest_device();
    rs_device_info info;
    CHECK_OK(rs_device_info_get(0, &info));
    check_kind(RS_MARGIN_MULTI, RS_FLOAT32);
    check_kind(RS_MARGIN_MULTILABEL, RS_FLOAT32);
    if (rs_stream_features(ctest_stream(dev))->has_fp64) {
        check_kind(RS_MARGIN_MULTI, RS_FLOAT64);
        check_kind(RS_MARGIN_MULTILABEL, RS_FLOAT64);
    }
}

/* bad targets raise at the sync with CPU's messages */
TEST(bad_targets_raise) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const float x[2 * 3] = {1, 2, 3, 4, 5, 6};
    const int64_t t[2] = {1, 3}, labels[2 * 3] = {0, -1, 0, 2, -2, 0};
    const float bad_is[2 * 3] = {0, 2, 0, 0, 0, 0};
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dt = ctest_upload(dev, s, t, sizeof t);
    uint64_t dl = ctest_upload(dev, s, labels, sizeof labels), dis = ctest_upload(dev, s, bad_is, sizeof bad_is);
    uint64_t dy, dgi;
    CHECK_OK(rs_alloc(dev, 8, s, &dy));
    CHECK_OK(rs_alloc(dev, 4 * 6, s, &dgi));
    const int64_t xsz[2] = {2, 3}, tsz[1] = {2}, one[1] = {1};
    rs_margin_loss q;
    memset(&q, 0, sizeof q);
    q.kind = RS_MARGIN_MULTI, q.p = 1, q.margin = 1, q.reduction = 2;
    q.input = ctest_view(dx, RS_FLOAT32, 2, xsz);
    q.target = ctest_view(dt, RS_INT64, 1, tsz);
    q.out = ctest_view(dy, RS_FLOAT32, 1, one);
    CHECK_OK(rs_margin_loss_forward(s, &q));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "target out of range"));
    q.kind = RS_MARGIN_MULTILABEL;
    q.target = ctest_view(dl, RS_INT64, 2, xsz);
    q.is_target = ctest_view(dis, RS_FLOAT32, 2, xsz);
    CHECK_OK(rs_margin_loss_forward(s, &q));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT &&
          strstr(rs_last_error(), "argument #2 'target' is out of range"));
    /* the backward: the same target (#3), then a good target with a bad is_target (#5) */
    q.grad = ctest_view(dy, RS_FLOAT32, 1, one);
    q.out = ctest_view(dgi, RS_FLOAT32, 2, xsz);
    CHECK_OK(rs_margin_loss_backward(s, &q));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT &&
          strstr(rs_last_error(), "argument #3 'target' is out of range"));
    const int64_t good[2 * 3] = {0, -1, 0, 2, -1, 0};
    CHECK_OK(rs_memcpy_htod(s, dl, good, sizeof good));
    CHECK_OK(rs_memcpy_htod(s, dis, bad_is, sizeof bad_is)); /* the forward above wrote row 0's */
    CHECK_OK(rs_margin_loss_backward(s, &q));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT &&
          strstr(rs_last_error(), "argument #5 'is_target' is out of range"));
    rs_free(dev, dx), rs_free(dev, dt), rs_free(dev, dl), rs_free(dev, dis), rs_free(dev, dy), rs_free(dev, dgi);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_margin_loss q;
    memset(&q, 0, sizeof q);
    const int64_t xsz[2] = {2, 3}, tsz[1] = {2}, one[1] = {1};
    q.kind = RS_MARGIN_MULTI, q.p = 3;
    q.input = ctest_view(0, RS_FLOAT32, 2, xsz);
    q.target = ctest_view(0, RS_INT64, 1, tsz);
    q.out = ctest_view(0, RS_FLOAT32, 1, tsz);
    CHECK(rs_margin_loss_forward(s, &q) == RS_ERR_INVALID && strstr(rs_last_error(), "only p == 1 and p == 2"));
    q.p = 1;
    q.input.dtype = RS_INT32;
    CHECK(rs_margin_loss_forward(s, &q) == RS_ERR_INVALID && strstr(rs_last_error(), "int32 input"));
    q.input.dtype = RS_FLOAT32;
    q.target.dtype = RS_INT32;
    CHECK(rs_margin_loss_forward(s, &q) == RS_ERR_INVALID && strstr(rs_last_error(), "target must be int64 (2)"));
    q.target.dtype = RS_INT64;
    q.reduction = 1; /* a reduced loss is one element */
    CHECK(rs_margin_loss_forward(s, &q) == RS_ERR_INVALID && strstr(rs_last_error(), "out must be float32 (1)"));
    q.out = ctest_view(0, RS_FLOAT32, 1, one);
    q.grad = ctest_view(0, RS_FLOAT32, 1, one);
    CHECK(rs_margin_loss_backward(s, &q) == RS_ERR_INVALID && strstr(rs_last_error(), "grad_input must be"));
}

int main(void) {
    RUN(losses_against_the_contract);
    RUN(bad_targets_raise);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
