/* Interpolation (rs_interp_run) without torch: nearest against CPU's index
 * rule, bilinear against a direct float64 reference (both corner
 * conventions), every mode's backward as the exact adjoint of its forward
 * (<A x, g> = <x, A^T g> in 1, 2 and 3 dims), channels_last strides, a
 * uint8 nearest copy, and clear errors for bad input. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/interp.h"

static uint32_t seed = 12345u;
static float frand(void) {
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* (N, C, spatial...) view of `dims` spatial sizes; cl: channels_last */
static rs_tensor view(uint64_t a, rs_dtype dt, int n, int c, const int64_t *sp, int dims, int cl) {
    int64_t sizes[5] = {n, c, 1, 1, 1};
    for (int j = 0; j < dims; ++j) sizes[2 + j] = sp[j];
    rs_tensor t = ctest_view(a, dt, 2 + dims, sizes);
    if (cl) { /* channels fastest, then the spatial dims, then N */
        int64_t st = c;
        for (int j = dims - 1; j >= 0; --j) t.strides[2 + j] = st, st *= sp[j];
        t.strides[1] = 1;
        t.strides[0] = st;
    }
    return t;
}

static int64_t prod(const int64_t *v, int k) {
    int64_t p = 1;
    for (int j = 0; j < k; ++j) p *= v[j];
    return p;
}

/* runs one forward and one backward on float32 data; y (out numel) and gx
 * (in numel) come back contiguous NC... unless cl */
static int run(rs_interp_mode mode, int dims, int n, int c, const int64_t *in, const int64_t *out, int ac, int cl,
               const float *x, const float *g, float *y, float *gx) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    size_t ni = (size_t)(n * c * prod(in, dims)), no = (size_t)(n * c * prod(out, dims));
    uint64_t dx = ctest_upload(dev, s, x, ni * 4), dy = ctest_upload(dev, s, y, no * 4);
    uint64_t dg = ctest_upload(dev, s, g, no * 4), dgx = ctest_upload(dev, s, gx, ni * 4);
    rs_interp p;
    memset(&p, 0, sizeof p);
    p.mode = mode;
    p.dims = dims;
    p.align_corners = ac;
    p.input = view(dx, RS_FLOAT32, n, c, in, dims, cl);
    p.output = view(dy, RS_FLOAT32, n, c, out, dims, cl);
    int ok = rs_interp_run(s, &p) == RS_OK;
    p.backward = 1;
    p.input = view(dgx, RS_FLOAT32, n, c, in, dims, cl);
    p.output = view(dg, RS_FLOAT32, n, c, out, dims, cl);
    ok = ok && rs_interp_run(s, &p) == RS_OK;
    ok = ok && rs_memcpy_dtoh(s, y, dy, no * 4) == RS_OK && rs_memcpy_dtoh(s, gx, dgx, ni * 4) == RS_OK;
    ok = ok && rs_stream_synchronize(s) == RS_OK;
    if (!ok) fprintf(stderr, "  rs_interp: %s\n", rs_last_error());
    rs_free(dev, dx), rs_free(dev, dy), rs_free(dev, dg), rs_free(dev, dgx);
    return ok;
}

TEST(nearest_matches_cpus_index_rule) {
    int64_t in[2] = {5, 7}, out[2] = {8, 4};
    enum { N = 2, C = 3 };
    float x[N * C * 35], y[N * C * 32], g[N * C * 32] = {0}, gx[N * C * 35];
    for (int i = 0; i < N * C * 35; ++i) x[i] = frand();
    CHECK(run(RS_INTERP_NEAREST, 2, N, C, in, out, 0, 0, x, g, y, gx));
    for (int b = 0; b < N * C; ++b)
        for (int h = 0; h < 8; ++h)
            for (int w = 0; w < 4; ++w) {
                int sh = (int)floorf((float)h * (5.0f / 8.0f)), sw = (int)floorf((float)w * (7.0f / 4.0f));
                CHECK(y[b * 32 + h * 4 + w] == x[b * 35 + sh * 7 + sw]);
            }
}

/* bilinear, both corner conventions, against float64 arithmetic */
TEST(bilinear_matches_a_direct_reference) {
    int64_t in[2] = {4, 6}, out[2] = {7, 9};
    enum { N = 1, C = 2 };
    float x[N * C * 24], y[N * C * 63], g[N * C * 63] = {0}, gx[N * C * 24];
    for (int i = 0; i < N * C * 24; ++i) x[i] = frand();
    for (int ac = 0; ac < 2; ++ac) {
        CHECK(run(RS_INTERP_LINEAR, 2, N, C, in, out, ac, 0, x, g, y, gx));
        for (int b = 0; b < N * C; ++b)
            for (int h = 0; h < 7; ++h)
                for (int w = 0; w < 9; ++w) {
                    double src[2], o[2] = {h, w};
                    for (int j = 0; j < 2; ++j) {
                        double sc = ac ? (double)(in[j] - 1) / (double)(out[j] - 1) : (double)in[j] / (double)out[j];
                        src[j] = ac ? sc * o[j] : fmax(sc * (o[j] + 0.5) - 0.5, 0.0);
                    }
                    int h0 = (int)src[0], w0 = (int)src[1];
                    int h1 = h0 < 3 ? h0 + 1 : h0, w1 = w0 < 5 ? w0 + 1 : w0;
                    double lh = src[0] - h0, lw = src[1] - w0;
                    const float *p = x + b * 24;
                    double want = (1 - lh) * ((1 - lw) * p[h0 * 6 + w0] + lw * p[h0 * 6 + w1]) +
                                  lh * ((1 - lw) * p[h1 * 6 + w0] + lw * p[h1 * 6 + w1]);
                    CHECK(fabs(y[b * 63 + h * 9 + w] - want) < 1e-5);
                }
    }
}

/* <A x, g> = <x, A^T g> for every mode, dims 1-3, growing and shrinking */
TEST(backward_is_the_adjoint_of_forward) {
    static const struct {
        rs_interp_mode mode;
        int dims, ac, cl;
        int64_t in[3], out[3];
    } cases[] = {
        {RS_INTERP_NEAREST, 1, 0, 0, {7}, {12}},         {RS_INTERP_NEAREST_EXACT, 2, 0, 1, {5, 9}, {8, 4}},
        {RS_INTERP_LINEAR, 1, 1, 0, {6}, {11}},          {RS_INTERP_LINEAR, 2, 0, 1, {9, 5}, {4, 13}},
        {RS_INTERP_LINEAR, 3, 0, 0, {3, 4, 5}, {5, 4, 2}}, {RS_INTERP_CUBIC, 2, 0, 0, {6, 7}, {11, 3}},
        {RS_INTERP_CUBIC, 2, 1, 1, {5, 5}, {9, 8}},      {RS_INTERP_LINEAR_AA, 2, 0, 0, {12, 9}, {5, 9}},
        {RS_INTERP_CUBIC_AA, 2, 0, 1, {10, 7}, {3, 12}},
    };
    enum { N = 2, C = 3, MAX = 2 * 3 * 13 * 13 * 5 };
    static float x[MAX], y[MAX], g[MAX], gx[MAX];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        int d = cases[k].dims, cl = cases[k].cl;
        int64_t ni = N * C * prod(cases[k].in, d), no = N * C * prod(cases[k].out, d);
        for (int64_t i = 0; i < ni; ++i) x[i] = frand();
        for (int64_t i = 0; i < no; ++i) g[i] = frand();
        CHECK(run(cases[k].mode, d, N, C, cases[k].in, cases[k].out, cases[k].ac, cl, x, g, y, gx));
        /* the same element order on both sides (cl permutes both alike) */
        double lhs = 0, rhs = 0, mag = 0;
        for (int64_t i = 0; i < no; ++i) lhs += (double)y[i] * g[i], mag += fabs((double)y[i] * g[i]);
        for (int64_t i = 0; i < ni; ++i) rhs += (double)x[i] * gx[i];
        if (fabs(lhs - rhs) > 1e-5 * (mag + 1)) fprintf(stderr, "  case %zu: %g vs %g\n", k, lhs, rhs);
        CHECK(fabs(lhs - rhs) <= 1e-5 * (mag + 1));
    }
}

TEST(uint8_nearest_is_a_copy) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint8_t x[2 * 3] = {1, 2, 3, 250, 251, 252}, y[2 * 6];
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dy = ctest_upload(dev, s, y, sizeof y);
    int64_t in[1] = {3}, out[1] = {6};
    rs_interp p;
    memset(&p, 0, sizeof p);
    p.mode = RS_INTERP_NEAREST;
    p.dims = 1;
    p.input = view(dx, RS_UINT8, 1, 2, in, 1, 0);
    p.output = view(dy, RS_UINT8, 1, 2, out, 1, 0);
    CHECK_OK(rs_interp_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
    CHECK_OK(rs_stream_synchronize(s));
    static const uint8_t want[12] = {1, 1, 2, 2, 3, 3, 250, 250, 251, 251, 252, 252};
    CHECK(memcmp(y, want, sizeof want) == 0);
    rs_free(dev, dx), rs_free(dev, dy);
}

/* uint8 bilinear/bicubic: CPU's fixed point (int16 weights, a uint8 result
 * after each dim); the wanted bytes are torch 2.13 CPU's for this input */
TEST(uint8_weighted_modes_are_cpus_bytes) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint8_t x[6] = {0, 100, 255, 50, 200, 7}, y[15];
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dy = ctest_upload(dev, s, y, sizeof y);
    static const struct {
        rs_interp_mode mode;
        int64_t out[2];
        uint8_t want[15];
    } cases[] = {
        {RS_INTERP_LINEAR, {3, 5}, {0, 40, 100, 193, 255, 25, 75, 150, 139, 131, 50, 110, 200, 84, 7}},
        {RS_INTERP_CUBIC_AA, {1, 2}, {70, 143}},
        {RS_INTERP_CUBIC, {4, 2}, {9, 241, 34, 185, 74, 94, 99, 38}},
    };
    int64_t in[2] = {2, 3};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        rs_interp p;
        memset(&p, 0, sizeof p);
        p.mode = cases[k].mode;
        p.dims = 2;
        p.input = view(dx, RS_UINT8, 1, 1, in, 2, 0);
        p.output = view(dy, RS_UINT8, 1, 1, cases[k].out, 2, 0);
        CHECK_OK(rs_interp_run(s, &p));
        size_t n = (size_t)(cases[k].out[0] * cases[k].out[1]);
        CHECK_OK(rs_memcpy_dtoh(s, y, dy, n));
        CHECK_OK(rs_stream_synchronize(s));
        CHECK(memcmp(y, cases[k].want, n) == 0);
    }
    /* no uint8 kernel on CPU for 1-d linear, none for a backward */
    int64_t in1[1] = {3}, out1[1] = {5};
    rs_interp p;
    memset(&p, 0, sizeof p);
    p.mode = RS_INTERP_LINEAR;
    p.dims = 1;
    p.input = view(dx, RS_UINT8, 1, 2, in1, 1, 0);
    p.output = view(dy, RS_UINT8, 1, 2, out1, 1, 0);
    CHECK(rs_interp_run(s, &p) == RS_ERR_UNSUPPORTED);
    p.dims = 2;
    p.backward = 1;
    p.input = view(dx, RS_UINT8, 1, 1, in, 2, 0);
    p.output = view(dy, RS_UINT8, 1, 1, cases[0].out, 2, 0);
    CHECK(rs_interp_run(s, &p) == RS_ERR_UNSUPPORTED);
    rs_free(dev, dx), rs_free(dev, dy);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint8_t zeros[256] = {0};
    uint64_t a = ctest_upload(dev, s, zeros, sizeof zeros);
    int64_t in[3] = {2, 2, 2}, out[3] = {4, 4, 4};
    rs_interp p;
    memset(&p, 0, sizeof p);
    p.mode = RS_INTERP_LINEAR;
    p.dims = 4;
    CHECK(rs_interp_run(s, &p) == RS_ERR_INVALID);
    p.dims = 1;
    p.input = view(a, RS_INT32, 1, 1, in, 1, 0);
    p.output = view(a, RS_INT32, 1, 1, out, 1, 0);
    CHECK(rs_interp_run(s, &p) == RS_ERR_UNSUPPORTED); /* linear on integers */
    CHECK(strstr(rs_last_error(), "int32") != NULL);
    p.input = view(a, RS_FLOAT32, 1, 2, in, 1, 0);
    p.output = view(a, RS_FLOAT32, 1, 1, out, 1, 0);
    CHECK(rs_interp_run(s, &p) == RS_ERR_INVALID); /* C differs */
    p.output = view(a, RS_FLOAT16, 1, 2, out, 1, 0);
    CHECK(rs_interp_run(s, &p) == RS_ERR_INVALID); /* dtypes differ */
    p.mode = (rs_interp_mode)9;
    CHECK(rs_interp_run(s, &p) == RS_ERR_INVALID);
    rs_free(dev, a);
}

int main(void) {
    RUN(nearest_matches_cpus_index_rule);
    RUN(bilinear_matches_a_direct_reference);
    RUN(backward_is_the_adjoint_of_forward);
    RUN(uint8_nearest_is_a_copy);
    RUN(uint8_weighted_modes_are_cpus_bytes);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
