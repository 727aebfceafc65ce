/* The regression losses (russet/loss.h: mse_loss, smooth_l1_loss,
 * huber_loss) without torch: every reduction forward and backward in
 * float32 against double references of CPU's formulas, a target read
 * through a transposed view, grad_out of one element and of the input's
 * sizes; float16 (mse rounds the difference to the dtype); beta 0; an
 * empty input (mean NaN, sum 0); bad arguments. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

enum { R = 6, C = 7, E = R * C };

static double ref_loss(rs_regression_loss_kind k, double a, double b, double p) {
    const double z = fabs(a - b);
    if (k == RS_LOSS_MSE) return (a - b) * (a - b);
    if (k == RS_LOSS_SMOOTH_L1) return p == 0 ? z : z < p ? 0.5 * z * z / p : z - 0.5 * p;
    return z < p ? 0.5 * z * z : p * (z - 0.5 * p);
}
static double ref_grad(rs_regression_loss_kind k, double a, double b, double g, double p, double norm) {
    const double x = a - b;
    if (k == RS_LOSS_MSE) return x * norm * g;
    if (k == RS_LOSS_SMOOTH_L1) return x <= -p ? -norm * g : x >= p ? norm * g : p == 0 ? 0 : x * norm * g / p;
    return x <= -p ? -norm * p * g : x >= p ? norm * p * g : x * norm * g;
}

static void loss_case(rs_regression_loss_kind k, double param, int reduction) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float a[E], bt[E], g[E], out[E], gi[E];
    for (int i = 0; i < E; ++i) {
        a[i] = (float)(sin(i * 0.7) * 2.0);
        bt[i] = (float)(cos(i * 1.3) * 1.5); /* target, stored transposed: (C, R) */
        g[i] = (float)(0.5 + 0.25 * sin(i * 0.3));
    }
    const int64_t sz[2] = {R, C}, tsz[2] = {C, R}, one = 1;
    uint64_t da = ctest_upload(dev, s, a, sizeof a), db = ctest_upload(dev, s, bt, sizeof bt);
    uint64_t dg = ctest_upload(dev, s, g, sizeof g), dout = 0, dgi = 0;
    CHECK_OK(rs_alloc(dev, sizeof out, s, &dout));
    CHECK_OK(rs_alloc(dev, sizeof gi, s, &dgi));
    rs_regression_loss p;
    memset(&p, 0, sizeof p);
    p.kind = k, p.reduction = reduction, p.param = param;
    p.input = ctest_view(da, RS_FLOAT32, 2, sz);
    p.target = ctest_view(db, RS_FLOAT32, 2, tsz);
    p.target.sizes[0] = R, p.target.sizes[1] = C, p.target.strides[0] = 1, p.target.strides[1] = R;
    p.out = reduction ? ctest_view(dout, RS_FLOAT32, 0, &one) : ctest_view(dout, RS_FLOAT32, 2, sz);
    CHECK_OK(rs_regression_loss_forward(s, &p));
    p.grad_out = reduction ? ctest_view(dg, RS_FLOAT32, 0, &one) : ctest_view(dg, RS_FLOAT32, 2, sz);
    p.grad_input = ctest_view(dgi, RS_FLOAT32, 2, sz);
    CHECK_OK(rs_regression_loss_backward(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, out, dout, sizeof out));
    CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
    CHECK_OK(rs_stream_synchronize(s));
    double total = 0;
    const double scale = k == RS_LOSS_MSE ? 2.0 : 1.0, norm = reduction == 1 ? scale / E : scale;
    int bad = 0;
    for (int i = 0; i < E; ++i) {
        const double b = bt[(i % C) * R + i / C], l = ref_loss(k, a[i], b, param);
        total += l;
        if (!reduction) bad += fabs(out[i] - l) > 1e-5 * (1 + fabs(l));
        const double want = ref_grad(k, a[i], b, reduction ? g[0] : g[i], param, norm);
        bad += fabs(gi[i] - want) > 1e-5 * (1 + fabs(want));
    }
    if (reduction) {
        const double want = reduction == 1 ? total / E : total;
        bad += fabs(out[0] - want) > 1e-5 * (1 + fabs(want));
    }
    if (bad) fprintf(stderr, "  loss %d param %g reduction %d: %d wrong\n", (int)k, param, reduction, bad);
    CHECK(bad == 0);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dg), rs_free(dev, dout), rs_free(dev, dgi);
}

TEST(float32_every_loss_and_reduction) {
    const struct { rs_regression_loss_kind k; double p; } cases[] = {
        {RS_LOSS_MSE, 0}, {RS_LOSS_SMOOTH_L1, 1.0}, {RS_LOSS_SMOOTH_L1, 0.0}, {RS_LOSS_SMOOTH_L1, 0.3},
        {RS_LOSS_HUBER, 1.0}, {RS_LOSS_HUBER, 0.4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int r = 0; r < 3; ++r) loss_case(cases[c].k, cases[c].p, r);
}

/* float16: mse rounds the difference to float16 before squaring it */
TEST(float16_mse_rounds_the_difference) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* 1 + 2^-10 and 2^-12: the difference rounds to 1 in float16, so the loss is exactly 1 */
    const uint16_t a[2] = {0x3C01, 0x3C00}, b[2] = {0x0C00, 0x0000};
    uint64_t da = ctest_upload(dev, s, a, sizeof a), db = ctest_upload(dev, s, b, sizeof b), dout = 0;
    CHECK_OK(rs_alloc(dev, 8, s, &dout));
    const int64_t n = 2;
    rs_regression_loss p;
    memset(&p, 0, sizeof p);
    p.kind = RS_LOSS_MSE;
    p.input = ctest_view(da, RS_FLOAT16, 1, &n), p.target = ctest_view(db, RS_FLOAT16, 1, &n);
    p.out = ctest_view(dout, RS_FLOAT16, 1, &n);
    CHECK_OK(rs_regression_loss_forward(s, &p));
    uint16_t got[2];
    CHECK_OK(rs_memcpy_dtoh(s, got, dout, sizeof got));
    CHECK_OK(rs_stream_synchronize(s));
    /* (1 + 2^-10 - 2^-12) rounds to 1 + 2^-10 (0x3C01); squared: 1 + 2^-9 (0x3C02) */
    if (got[0] != 0x3C02 || got[1] != 0x3C00) fprintf(stderr, "  got %04x %04x\n", got[0], got[1]);
    CHECK(got[0] == 0x3C02 && got[1] == 0x3C00);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dout);
}

TEST(empty_input_and_bad_arguments) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t d = 0;
    CHECK_OK(rs_alloc(dev, 64, s, &d));
    const int64_t none = 0, one = 1, four = 4, five = 5;
    rs_regression_loss p;
    memset(&p, 0, sizeof p);
    p.kind = RS_LOSS_MSE, p.reduction = 1;
    p.input = ctest_view(d, RS_FLOAT32, 1, &none), p.target = p.input;
    p.out = ctest_view(d, RS_FLOAT32, 0, &one);
    CHECK_OK(rs_regression_loss_forward(s, &p));
    float got;
    CHECK_OK(rs_memcpy_dtoh(s, &got, d, 4));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(isnan(got)); /* the mean of nothing */
    p.reduction = 2;
    CHECK_OK(rs_regression_loss_forward(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, &got, d, 4));
    CHECK_OK(rs_stream_synchronize(s));
    CHECK(got == 0.0f);
    p.input = ctest_view(d, RS_FLOAT32, 1, &four), p.target = ctest_view(d, RS_FLOAT32, 1, &five);
    CHECK(rs_regression_loss_forward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "target"));
    p.target = p.input;
    p.kind = RS_LOSS_HUBER, p.param = 0;
    CHECK(rs_regression_loss_forward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "delta"));
    p.kind = RS_LOSS_SMOOTH_L1, p.param = -1;
    CHECK(rs_regression_loss_forward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "beta"));
    p.param = 1;
    p.input.dtype = p.target.dtype = RS_INT64;
    CHECK(rs_regression_loss_forward(s, &p) == RS_ERR_UNSUPPORTED);
    p.input.dtype = p.target.dtype = RS_FLOAT32;
    p.grad_out = ctest_view(d, RS_FLOAT32, 1, &five), p.grad_input = p.input; /* grad_out of neither size */
    CHECK(rs_regression_loss_backward(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "grad_out"));
    p.kind = (rs_regression_loss_kind)7;
    CHECK(rs_regression_loss_forward(s, &p) == RS_ERR_INVALID);
    rs_free(dev, d);
}

int main(void) {
    RUN(float32_every_loss_and_reduction);
    RUN(float16_mse_rounds_the_difference);
    RUN(empty_input_and_bad_arguments);
    CTEST_END();
}
