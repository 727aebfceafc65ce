/* softmax/log_softmax (forward and backward) and nll_loss without torch,
 * against values computed here in double; a bad target raises the device
 * error at the next sync; unsupported dtypes fail clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static int close_to(double got, double want, double tol) { return fabs(got - want) <= tol * (1.0 + fabs(want)); }

/* softmax of (outer=3, n=70, inner=2) along n, checked element by element */
TEST(softmax_middle_dim_and_log_softmax_backward) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { O = 3, N = 70, I = 2, E = O * N * I };
    static float x[E], y[E], g[E], gi[E];
    for (int i = 0; i < E; i++) x[i] = (float)sin(i * 0.71) * 4.0f, g[i] = (float)cos(i * 0.3);
    uint64_t dx, dy, dg, dgi;
    CHECK_OK(rs_alloc(dev, sizeof x, s, &dx));
    CHECK_OK(rs_alloc(dev, sizeof y, s, &dy));
    CHECK_OK(rs_alloc(dev, sizeof g, s, &dg));
    CHECK_OK(rs_alloc(dev, sizeof gi, s, &dgi));
    CHECK_OK(rs_memcpy_htod(s, dx, x, sizeof x));
    CHECK_OK(rs_memcpy_htod(s, dg, g, sizeof g));
    rs_softmax p;
    memset(&p, 0, sizeof p);
    p.op = RS_LOG_SOFTMAX;
    p.a = dx;
    p.out = dy;
    p.a_dtype = p.b_dtype = p.out_dtype = RS_FLOAT32;
    p.outer = O;
    p.n = N;
    p.inner = I;
    CHECK_OK(rs_softmax_run(s, &p));
    p.op = RS_LOG_SOFTMAX_BACKWARD;
    p.a = dg;
    p.b = dy;
    p.out = dgi;
    CHECK_OK(rs_softmax_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
    CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
    for (int o = 0; o < O; o++)
        for (int in = 0; in < I; in++) {
            double m = -INFINITY, sum = 0, gsum = 0;
            for (int j = 0; j < N; j++) m = fmax(m, x[(o * N + j) * I + in]);
            for (int j = 0; j < N; j++) sum += exp(x[(o * N + j) * I + in] - m);
            for (int j = 0; j < N; j++) gsum += g[(o * N + j) * I + in];
            for (int j = 0; j < N; j++) {
                int e = (o * N + j) * I + in;
                double ly = x[e] - m - log(sum);
                CHECK(close_to(y[e], ly, 1e-5));
                CHECK(close_to(gi[e], g[e] - exp(y[e]) * gsum, 1e-4));
            }
        }
    rs_free(dev, dx);
    rs_free(dev, dy);
    rs_free(dev, dg);
    rs_free(dev, dgi);
}

TEST(nll_loss_mean_with_weights_ignore_index_and_backward) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    enum { N = 9, C = 4 };
    float x[N * C], w[C] = {0.5f, 1.0f, 2.0f, 0.25f}, out, tw, go = 1.5f, gi[N * C];
    int64_t t[N] = {0, 3, 2, -100, 1, 1, 3, 0, 2};
    for (int i = 0; i < N * C; i++) x[i] = -(float)(i % 7) * 0.3f;
    uint64_t dx, dt, dw, dout, dtw, dgo, dgi;
    CHECK_OK(rs_alloc(dev, sizeof x, s, &dx));
    CHECK_OK(rs_alloc(dev, sizeof t, s, &dt));
    CHECK_OK(rs_alloc(dev, sizeof w, s, &dw));
    CHECK_OK(rs_alloc(dev, 4, s, &dout));
    CHECK_OK(rs_alloc(dev, 4, s, &dtw));
    CHECK_OK(rs_alloc(dev, 4, s, &dgo));
    CHECK_OK(rs_alloc(dev, sizeof gi, s, &dgi));
    CHECK_OK(rs_memcpy_htod(s, dx, x, sizeof x));
    CHECK_OK(rs_memcpy_htod(s, dt, t, sizeof t));
    CHECK_OK(rs_memcpy_htod(s, dw, w, sizeof w));
    CHECK_OK(rs_memcpy_htod(s, dgo, &go, 4));
    uint32_t zero = 0;
    rs_tensor gview;
    memset(&gview, 0, sizeof gview);
    gview.address = dgi;
    gview.dtype = RS_FLOAT32;
    gview.ndim = 1;
    gview.sizes[0] = N * C;
    gview.strides[0] = 1;
    CHECK_OK(rs_fill(s, &gview, &zero));
    rs_nll_loss p;
    memset(&p, 0, sizeof p);
    p.input = dx;
    p.target = dt;
    p.weight = dw;
    p.out = dout;
    p.total_weight = dtw;
    p.grad_output = dgo;
    p.grad_input = dgi;
    p.dtype = RS_FLOAT32;
    p.target_dtype = RS_INT64;
    p.n = N;
    p.c = C;
    p.s = 1;
    p.reduction = 1;
    p.ignore_index = -100;
    CHECK_OK(rs_nll_loss_forward(s, &p));
    CHECK_OK(rs_nll_loss_backward(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, &out, dout, 4));
    CHECK_OK(rs_memcpy_dtoh(s, &tw, dtw, 4));
    CHECK_OK(rs_memcpy_dtoh(s, gi, dgi, sizeof gi));
    double loss = 0, wsum = 0;
    for (int i = 0; i < N; i++) {
        if (t[i] == -100) continue;
        loss -= x[i * C + t[i]] * w[t[i]];
        wsum += w[t[i]];
    }
    CHECK(close_to(tw, wsum, 1e-6));
    CHECK(close_to(out, loss / wsum, 1e-5));
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++) {
            double want = (t[i] != -100 && t[i] == c) ? -w[c] * go / wsum : 0.0;
            CHECK(close_to(gi[i * C + c], want, 1e-5));
        }
    /* a target out of range: the device error flag, raised at the sync */
    int64_t bad[N] = {0, 1, 2, 3, 4, 0, 1, 2, 3};
    CHECK_OK(rs_memcpy_htod(s, dt, bad, sizeof bad));
    CHECK_OK(rs_nll_loss_forward(s, &p));
    CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "out of bounds") != NULL);
    /* float64 needs the device's fp64 (the apple profile: the host path;
     * under native the kernel computes in double: test_pointwise_fp64.py) */
    p.dtype = RS_FLOAT64;
    if (!rs_device_features(dev)->has_fp64) {
        CHECK(rs_nll_loss_forward(s, &p) == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "fp64"));
    }
    rs_free(dev, dx);
    rs_free(dev, dt);
    rs_free(dev, dw);
    rs_free(dev, dout);
    rs_free(dev, dtw);
    rs_free(dev, dgo);
    rs_free(dev, dgi);
}

int main(void) {
    RUN(softmax_middle_dim_and_log_softmax_backward);
    RUN(nll_loss_mean_with_weights_ignore_index_and_backward);
    CTEST_END();
}
