/* The fused recurrent cells (rs_rnn_cell_run) without torch: LSTM and GRU
 * forward and backward against float64 formulas (ATen's RNN.cu), with and
 * without biases, a transposed (strided) gate tensor, an absent grad_cy,
 * and clear errors for bad input. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/rnn.h"

static uint32_t seed = 777u;
static float frand(void) {
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 8) & 0xffff) / 16384.0f - 2.0f;
}
static double sig(double x) { return 1 / (1 + exp(-x)); }

enum { B = 3, H = 5 };

static rs_tensor mat(uint64_t a, int64_t rows, int64_t cols) {
    int64_t sz[2] = {rows, cols};
    return ctest_view(a, RS_FLOAT32, 2, sz);
}
static rs_tensor vec(uint64_t a, int64_t n) { return ctest_view(a, RS_FLOAT32, 1, &n); }

/* an output buffer (no upload) */
static uint64_t out_buf(rs_device *dev, rs_stream *s, size_t bytes) {
    uint64_t a = 0;
    return rs_alloc(dev, bytes, s, &a) == RS_OK ? a : 0;
}

/* device results back into host arrays, then a sync */
typedef struct fetch {
    void *host;
    uint64_t dev;
    size_t bytes;
} fetch;
static int fetch_all(rs_stream *s, const fetch *f, int n) {
    for (int k = 0; k < n; ++k)
        if (rs_memcpy_dtoh(s, f[k].host, f[k].dev, f[k].bytes) != RS_OK) return 0;
    return rs_stream_synchronize(s) == RS_OK;
}

static double worst;
static void near(float got, double want) { worst = fmax(worst, fabs(got - want) / (1 + fabs(want))); }

/* LSTM forward then backward; transposed: the input gates stored (4H, B)
 * and described transposed */
static void lstm(int bias, int transposed, int with_gcy) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    float ig[B * 4 * H], igt[4 * H * B], hg[B * 4 * H], ib[4 * H], hb[4 * H], cx[B * H], ghy[B * H], gcy[B * H];
    for (int i = 0; i < B * 4 * H; ++i) ig[i] = frand(), hg[i] = frand();
    for (int i = 0; i < 4 * H; ++i) ib[i] = frand(), hb[i] = frand();
    for (int i = 0; i < B * H; ++i) cx[i] = frand(), ghy[i] = frand(), gcy[i] = frand();
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < 4 * H; ++j) igt[j * B + b] = ig[b * 4 * H + j];
    uint64_t dig = ctest_upload(dev, s, transposed ? igt : ig, sizeof ig), dhg = ctest_upload(dev, s, hg, sizeof hg);
    uint64_t dib = ctest_upload(dev, s, ib, sizeof ib), dhb = ctest_upload(dev, s, hb, sizeof hb);
    uint64_t dcx = ctest_upload(dev, s, cx, sizeof cx), dghy = ctest_upload(dev, s, ghy, sizeof ghy);
    uint64_t dgcy = ctest_upload(dev, s, gcy, sizeof gcy);
    uint64_t dhy = out_buf(dev, s, 4 * B * H), dcy = out_buf(dev, s, 4 * B * H);
    uint64_t dws = out_buf(dev, s, 4 * B * 4 * H), dgg = out_buf(dev, s, 4 * B * 4 * H);
    uint64_t dgcx = out_buf(dev, s, 4 * B * H);
    rs_rnn_cell p = {.op = RS_LSTM_CELL, .input_gates = mat(dig, B, 4 * H), .hidden_gates = mat(dhg, B, 4 * H),
                     .state = mat(dcx, B, H), .hy = mat(dhy, B, H), .cy = mat(dcy, B, H),
                     .workspace = mat(dws, B, 4 * H)};
    if (transposed) p.input_gates.strides[0] = 1, p.input_gates.strides[1] = B;
    if (bias) p.input_bias = vec(dib, 4 * H), p.hidden_bias = vec(dhb, 4 * H);
    CHECK_OK(rs_rnn_cell_run(s, &p));
    rs_rnn_cell q = {.op = RS_LSTM_CELL_BACKWARD, .state = p.state, .cy = p.cy, .workspace = p.workspace,
                     .grad_hy = mat(dghy, B, H), .grad_gates = mat(dgg, B, 4 * H), .grad_state = mat(dgcx, B, H)};
    if (with_gcy) q.grad_cy = mat(dgcy, B, H);
    CHECK_OK(rs_rnn_cell_run(s, &q));
    float hy[B * H], cy[B * H], ws[B * 4 * H], gg[B * 4 * H], gcx[B * H];
    const fetch f[] = {{hy, dhy, sizeof hy}, {cy, dcy, sizeof cy}, {ws, dws, sizeof ws}, {gg, dgg, sizeof gg},
                       {gcx, dgcx, sizeof gcx}};
    CHECK(fetch_all(s, f, 5));
    worst = 0;
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            double g[4];
            for (int k = 0; k < 4; ++k) {
                int c = k * H + h;
                g[k] = (double)ig[b * 4 * H + c] + hg[b * 4 * H + c] + (bias ? (double)ib[c] + hb[c] : 0);
            }
            double i = sig(g[0]), f = sig(g[1]), c = tanh(g[2]), o = sig(g[3]);
            double c1 = f * cx[b * H + h] + i * c, h1 = o * tanh(c1);
            near(hy[b * H + h], h1), near(cy[b * H + h], c1);
            near(ws[b * 4 * H + h], i), near(ws[b * 4 * H + H + h], f);
            near(ws[b * 4 * H + 2 * H + h], c), near(ws[b * 4 * H + 3 * H + h], o);
            double tc = tanh(c1), gh = ghy[b * H + h];
            double gc = gh * o * (1 - tc * tc) + (with_gcy ? gcy[b * H + h] : 0);
            near(gg[b * 4 * H + h], gc * c * i * (1 - i));
            near(gg[b * 4 * H + H + h], gc * cx[b * H + h] * f * (1 - f));
            near(gg[b * 4 * H + 2 * H + h], gc * i * (1 - c * c));
            near(gg[b * 4 * H + 3 * H + h], gh * tc * o * (1 - o));
            near(gcx[b * H + h], gc * f);
        }
    if (worst > 1e-5) fprintf(stderr, "  lstm bias %d transposed %d: worst %g\n", bias, transposed, worst);
    CHECK(worst <= 1e-5);
    uint64_t all[] = {dig, dhg, dib, dhb, dcx, dghy, dgcy, dhy, dcy, dws, dgg, dgcx};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) rs_free(dev, all[k]);
}

TEST(lstm_matches_a_float64_reference) {
    lstm(1, 0, 1);
    lstm(0, 1, 0);
}

TEST(gru_matches_a_float64_reference) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    for (int bias = 0; bias < 2; ++bias) {
        float ig[B * 3 * H], hg[B * 3 * H], ib[3 * H], hb[3 * H], hx[B * H], ghy[B * H];
        for (int i = 0; i < B * 3 * H; ++i) ig[i] = frand(), hg[i] = frand();
        for (int i = 0; i < 3 * H; ++i) ib[i] = frand(), hb[i] = frand();
        for (int i = 0; i < B * H; ++i) hx[i] = frand(), ghy[i] = frand();
        uint64_t dig = ctest_upload(dev, s, ig, sizeof ig), dhg = ctest_upload(dev, s, hg, sizeof hg);
        uint64_t dib = ctest_upload(dev, s, ib, sizeof ib), dhb = ctest_upload(dev, s, hb, sizeof hb);
        uint64_t dhx = ctest_upload(dev, s, hx, sizeof hx), dghy = ctest_upload(dev, s, ghy, sizeof ghy);
        uint64_t dhy = out_buf(dev, s, 4 * B * H), dws = out_buf(dev, s, 4 * B * 5 * H);
        uint64_t dgi = out_buf(dev, s, 4 * B * 3 * H), dgh = out_buf(dev, s, 4 * B * 3 * H);
        uint64_t dghx = out_buf(dev, s, 4 * B * H);
        rs_rnn_cell p = {.op = RS_GRU_CELL, .input_gates = mat(dig, B, 3 * H), .hidden_gates = mat(dhg, B, 3 * H),
                         .state = mat(dhx, B, H), .hy = mat(dhy, B, H), .workspace = mat(dws, B, 5 * H)};
        if (bias) p.input_bias = vec(dib, 3 * H), p.hidden_bias = vec(dhb, 3 * H);
        CHECK_OK(rs_rnn_cell_run(s, &p));
        rs_rnn_cell q = {.op = RS_GRU_CELL_BACKWARD, .workspace = p.workspace, .grad_hy = mat(dghy, B, H),
                         .grad_gates = mat(dgi, B, 3 * H), .grad_hidden_gates = mat(dgh, B, 3 * H),
                         .grad_state = mat(dghx, B, H)};
        CHECK_OK(rs_rnn_cell_run(s, &q));
        float hy[B * H], ws[B * 5 * H], gi[B * 3 * H], gh[B * 3 * H], ghx[B * H];
        const fetch f[] = {{hy, dhy, sizeof hy}, {ws, dws, sizeof ws}, {gi, dgi, sizeof gi}, {gh, dgh, sizeof gh},
                           {ghx, dghx, sizeof ghx}};
        CHECK(fetch_all(s, f, 5));
        worst = 0;
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h) {
                double a[3], hh[3];
                for (int k = 0; k < 3; ++k) {
                    int c = k * H + h;
                    a[k] = ig[b * 3 * H + c] + (bias ? (double)ib[c] : 0);
                    hh[k] = hg[b * 3 * H + c] + (bias ? (double)hb[c] : 0);
                }
                double r = sig(a[0] + hh[0]), z = sig(a[1] + hh[1]), n = tanh(a[2] + r * hh[2]);
                double x = hx[b * H + h], go = ghy[b * H + h];
                near(hy[b * H + h], n + z * (x - n));
                const double w[5] = {r, z, n, x, hh[2]};
                for (int k = 0; k < 5; ++k) near(ws[b * 5 * H + k * H + h], w[k]);
                double gz = go * (x - n) * z * (1 - z), gn = go * (1 - z) * (1 - n * n), gr = gn * hh[2] * r * (1 - r);
                near(gi[b * 3 * H + h], gr), near(gi[b * 3 * H + H + h], gz), near(gi[b * 3 * H + 2 * H + h], gn);
                near(gh[b * 3 * H + h], gr), near(gh[b * 3 * H + H + h], gz);
                near(gh[b * 3 * H + 2 * H + h], gn * r);
                near(ghx[b * H + h], go * z);
            }
        if (worst > 1e-5) fprintf(stderr, "  gru bias %d: worst %g\n", bias, worst);
        CHECK(worst <= 1e-5);
        uint64_t all[] = {dig, dhg, dib, dhb, dhx, dghy, dhy, dws, dgi, dgh, dghx};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) rs_free(dev, all[k]);
    }
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint8_t zeros[4096] = {0};
    uint64_t a = ctest_upload(dev, s, zeros, sizeof zeros);
    rs_rnn_cell p;
    memset(&p, 0, sizeof p);
    p.op = (rs_rnn_cell_op)7;
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID);
    p.op = RS_LSTM_CELL;
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID); /* no hy */
    p.input_gates = mat(a, B, 4 * H);
    p.hidden_gates = mat(a, B, 4 * H);
    p.state = mat(a, B, H);
    p.hy = mat(a, B, H);
    p.cy = mat(a, B, H);
    p.workspace = mat(a, B, 3 * H); /* LSTM's is 4H wide */
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "workspace") != NULL);
    p.workspace = mat(a, B, 4 * H);
    p.input_bias = vec(a, 3 * H);
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "input_bias") != NULL);
    p.input_bias = vec(a, 4 * H);
    p.hidden_gates.dtype = RS_FLOAT16;
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID); /* dtypes differ */
    p.hidden_gates.dtype = RS_FLOAT32;
    p.state.address = 0;
    CHECK(rs_rnn_cell_run(s, &p) == RS_ERR_INVALID); /* cx missing */
    CHECK(strstr(rs_last_error(), "state") != NULL);
    p.state = mat(a, B, H);
    CHECK_OK(rs_rnn_cell_run(s, &p));
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, a);
}

int main(void) {
    RUN(lstm_matches_a_float64_reference);
    RUN(gru_matches_a_float64_reference);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
