/* Pooling (rs_pool_run) without torch: max and average pooling, fixed and
 * adaptive windows, forward and backward, against a reference written here
 * the way CPU's kernels compute (window clipping, divisors, NaN and index
 * rules, the order of the backward sums); channels_last strides; bad
 * indices raise the device error; unsupported input fails clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

/* (N, C, D, H, W) problem; 1-d and 2-d pooling use unit D (and H) */
typedef struct geom {
    int n, c, in[3], out[3], k[3], st[3], pad[3], dil[3];
    int adaptive, incl_pad;
    int64_t divisor;
} geom;

static int64_t plane(const int v[3]) { return (int64_t)v[0] * v[1] * v[2]; }

/* window of output o along dim j: [lo, hi) step */
static void window(const geom *g, int j, int o, int *lo, int *hi, int *step) {
    if (g->adaptive) {
        *lo = (int)((int64_t)o * g->in[j] / g->out[j]);
        *hi = (int)(((int64_t)(o + 1) * g->in[j] + g->out[j] - 1) / g->out[j]);
        *step = 1;
        return;
    }
    int start = o * g->st[j] - g->pad[j];
    *step = g->dil[j];
    *lo = start;
    while (*lo < 0) *lo += *step;
    int last = start + (g->k[j] - 1) * *step;
    while (last >= g->in[j]) last -= *step;
    *hi = last + 1;
}

static double divisor(const geom *g, const int o[3], const int lo[3], const int hi[3]) {
    if (g->divisor) return (double)g->divisor;
    int64_t size = 1, clipped = 1;
    for (int j = 0; j < 3; ++j) {
        int start = o[j] * g->st[j] - g->pad[j];
        int end = start + g->k[j] < g->in[j] + g->pad[j] ? start + g->k[j] : g->in[j] + g->pad[j];
        size *= end - start;
        clipped *= hi[j] - lo[j];
    }
    return (double)(g->incl_pad ? size : clipped);
}

/* forward reference over contiguous NCDHW float arrays (CPU's rules:
 * float32 sums in order, the last NaN wins, adaptive avg divides per dim) */
static void reference(const geom *g, int is_max, const float *x, float *y, int64_t *idx) {
    int64_t ip = plane(g->in), op = plane(g->out);
    for (int64_t b = 0; b < (int64_t)g->n * g->c; ++b)
        for (int64_t e = 0; e < op; ++e) {
            int o[3] = {(int)(e / (g->out[1] * g->out[2])), (int)(e / g->out[2] % g->out[1]), (int)(e % g->out[2])};
            int lo[3], hi[3], sp[3];
            for (int j = 0; j < 3; ++j) window(g, j, o[j], &lo[j], &hi[j], &sp[j]);
            float m = -INFINITY, sum = 0;
            int64_t arg = ((int64_t)lo[0] * g->in[1] + lo[1]) * g->in[2] + lo[2];
            for (int d = lo[0]; d < hi[0]; d += sp[0])
                for (int h = lo[1]; h < hi[1]; h += sp[1])
                    for (int w = lo[2]; w < hi[2]; w += sp[2]) {
                        int64_t f = ((int64_t)d * g->in[1] + h) * g->in[2] + w;
                        float v = x[b * ip + f];
                        if (v > m || isnan(v)) m = v, arg = f;
                        sum += v;
                    }
            if (is_max) {
                y[b * op + e] = m;
                idx[b * op + e] = arg;
            } else if (g->adaptive) {
                for (int j = 0; j < 3; ++j) sum /= (float)(hi[j] - lo[j]);
                y[b * op + e] = sum;
            } else {
                y[b * op + e] = sum / (float)divisor(g, o, lo, hi);
            }
        }
}

/* backward reference: CPU's scatter in output order */
static void reference_backward(const geom *g, int is_max, const float *gy, const int64_t *idx, float *gx) {
    int64_t ip = plane(g->in), op = plane(g->out);
    memset(gx, 0, sizeof(float) * (size_t)(ip * g->n * g->c));
    for (int64_t b = 0; b < (int64_t)g->n * g->c; ++b)
        for (int64_t e = 0; e < op; ++e) {
            if (is_max) {
                gx[b * ip + idx[b * op + e]] += gy[b * op + e];
                continue;
            }
            int o[3] = {(int)(e / (g->out[1] * g->out[2])), (int)(e / g->out[2] % g->out[1]), (int)(e % g->out[2])};
            int lo[3], hi[3], sp[3];
            for (int j = 0; j < 3; ++j) window(g, j, o[j], &lo[j], &hi[j], &sp[j]);
            float delta = gy[b * op + e];
            if (g->adaptive)
                for (int j = 0; j < 3; ++j) delta /= (float)(hi[j] - lo[j]);
            else
                delta /= (float)divisor(g, o, lo, hi);
            for (int d = lo[0]; d < hi[0]; d += sp[0])
                for (int h = lo[1]; h < hi[1]; h += sp[1])
                    for (int w = lo[2]; w < hi[2]; w += sp[2])
                        gx[b * ip + ((int64_t)d * g->in[1] + h) * g->in[2] + w] += delta;
        }
}

/* a (N, C, spatial) view of `dims` spatial dims, contiguous or channels_last */
static rs_tensor view(uint64_t a, rs_dtype dt, const geom *g, const int sp[3], int dims, int cl) {
    int64_t sizes[5] = {g->n, g->c};
    for (int j = 0; j < dims; ++j) sizes[2 + j] = sp[3 - dims + j];
    rs_tensor t = ctest_view(a, dt, 2 + dims, sizes);
    if (cl) { /* strides of (N, spatial..., C) */
        int64_t s = g->c;
        t.strides[1] = 1;
        for (int d = 1 + dims; d >= 2; --d) t.strides[d] = s, s *= sizes[d];
        t.strides[0] = s;
    }
    return t;
}

/* runs forward and backward of one op on device, compares with the
 * reference; cl: input/output in channels_last */
static int run_case(const geom *g0, int dims, int is_max, int cl) {
    geom g = *g0;
    int64_t ni = plane(g.in) * g.n * g.c, no = plane(g.out) * g.n * g.c;
    float *x = malloc(sizeof(float) * (size_t)ni), *y = malloc(sizeof(float) * (size_t)no);
    float *yr = malloc(sizeof(float) * (size_t)no), *gy = malloc(sizeof(float) * (size_t)no);
    float *gx = malloc(sizeof(float) * (size_t)ni), *gxr = malloc(sizeof(float) * (size_t)ni);
    int64_t *ix = malloc(sizeof(int64_t) * (size_t)no), *ixr = malloc(sizeof(int64_t) * (size_t)no);
    /* logical NCDHW values, with ties, a NaN pair and -inf */
    float *xl = malloc(sizeof(float) * (size_t)ni), *yl = malloc(sizeof(float) * (size_t)no);
    for (int64_t i = 0; i < ni; ++i) xl[i] = (float)((i * 37) % 11) * 0.37f - 1.9f; /* ties, inexact sums */
    if (ni > 9) xl[3] = NAN, xl[5] = NAN, xl[8] = -INFINITY;
    for (int64_t i = 0; i < no; ++i) gy[i] = (float)sin((double)i * 0.77);
    reference(&g, is_max, xl, yr, ixr);
    reference_backward(&g, is_max, gy, ixr, gxr);

    /* the device buffers in the chosen layout: permute (b, e) <-> memory */
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int64_t ip = plane(g.in), op = plane(g.out);
    for (int64_t b = 0; b < g.n * (int64_t)g.c; ++b)
        for (int64_t e = 0; e < ip; ++e)
            x[cl ? ((b / g.c) * ip + e) * g.c + b % g.c : b * ip + e] = xl[b * ip + e];
    float *gyl = malloc(sizeof(float) * (size_t)no);
    int64_t *ixm = malloc(sizeof(int64_t) * (size_t)no);
    for (int64_t b = 0; b < g.n * (int64_t)g.c; ++b)
        for (int64_t e = 0; e < op; ++e) {
            int64_t m = cl ? ((b / g.c) * op + e) * g.c + b % g.c : b * op + e;
            gyl[m] = gy[b * op + e];
        }
    uint64_t dx = ctest_upload(dev, s, x, sizeof(float) * (size_t)ni);
    uint64_t dy = ctest_upload(dev, s, yr, sizeof(float) * (size_t)no);
    uint64_t di = ctest_upload(dev, s, ixr, sizeof(int64_t) * (size_t)no);
    uint64_t dgy = ctest_upload(dev, s, gyl, sizeof(float) * (size_t)no);
    uint64_t dgx = ctest_upload(dev, s, gxr, sizeof(float) * (size_t)ni);
    rs_pool p;
    memset(&p, 0, sizeof p);
    p.op = is_max ? RS_POOL_MAX : RS_POOL_AVG;
    p.dims = dims;
    p.adaptive = g.adaptive;
    p.input = view(dx, RS_FLOAT32, &g, g.in, dims, cl);
    p.output = view(dy, RS_FLOAT32, &g, g.out, dims, cl);
    p.indices = view(di, RS_INT64, &g, g.out, dims, cl);
    for (int j = 0; j < dims; ++j) {
        p.kernel[j] = g.k[3 - dims + j];
        p.stride[j] = g.st[3 - dims + j];
        p.pad[j] = g.pad[3 - dims + j];
        p.dil[j] = g.dil[3 - dims + j];
    }
    p.count_include_pad = g.incl_pad;
    p.divisor_override = g.divisor;
    int ok = rs_pool_run(s, &p) == RS_OK;
    p.op = is_max ? RS_POOL_MAX_BACKWARD : RS_POOL_AVG_BACKWARD;
    p.output = view(dgy, RS_FLOAT32, &g, g.out, dims, cl);
    p.grad_input = view(dgx, RS_FLOAT32, &g, g.in, dims, cl);
    ok = ok && rs_pool_run(s, &p) == RS_OK;
    ok = ok && rs_memcpy_dtoh(s, y, dy, sizeof(float) * (size_t)no) == RS_OK;
    ok = ok && rs_memcpy_dtoh(s, ixm, di, sizeof(int64_t) * (size_t)no) == RS_OK;
    ok = ok && rs_memcpy_dtoh(s, gx, dgx, sizeof(float) * (size_t)ni) == RS_OK;
    ok = ok && rs_stream_synchronize(s) == RS_OK;
    if (!ok) fprintf(stderr, "  rs_pool: %s\n", rs_last_error());
    for (int64_t b = 0; ok && b < g.n * (int64_t)g.c; ++b) {
        for (int64_t e = 0; e < op; ++e) {
            int64_t m = cl ? ((b / g.c) * op + e) * g.c + b % g.c : b * op + e, r = b * op + e;
            int same = (isnan(y[m]) && isnan(yr[r])) || y[m] == yr[r];
            if (!same || (is_max && ixm[m] != ixr[r])) {
                fprintf(stderr, "  forward (%lld, %lld): %g [%lld], want %g [%lld]\n", (long long)b, (long long)e,
                        y[m], (long long)(is_max ? ixm[m] : 0), yr[r], (long long)(is_max ? ixr[r] : 0));
                ok = 0;
                break;
            }
        }
        for (int64_t e = 0; ok && e < ip; ++e) {
            int64_t m = cl ? ((b / g.c) * ip + e) * g.c + b % g.c : b * ip + e;
            if (gx[m] != gxr[b * ip + e]) {
                fprintf(stderr, "  backward (%lld, %lld): %g, want %g\n", (long long)b, (long long)e, gx[m],
                        gxr[b * ip + e]);
                ok = 0;
            }
        }
    }
    rs_free(dev, dx);
    rs_free(dev, dy);
    rs_free(dev, di);
    rs_free(dev, dgy);
    rs_free(dev, dgx);
    free(x), free(y), free(yr), free(gy), free(gx), free(gxr), free(ix), free(ixr), free(xl), free(yl), free(gyl),
        free(ixm);
    return ok;
}

static geom fixed2d(int n, int c, int h, int w, int k, int st, int pad, int dil, int oh, int ow) {
    geom g = {n, c, {1, h, w}, {1, oh, ow}, {1, k, k}, {1, st, st}, {0, pad, pad}, {1, dil, dil}, 0, 1, 0};
    return g;
}

TEST(max_pool_windows_indices_nan_and_backward) {
    /* 3x3 stride 2 pad 1 (ResNet's), dilation 2, a window clipped on both
     * sides, in NCHW and channels_last */
    geom a = fixed2d(2, 3, 7, 6, 3, 2, 1, 1, 4, 3);
    geom b = fixed2d(1, 2, 9, 9, 3, 1, 2, 2, 9, 9);
    for (int cl = 0; cl < 2; ++cl) {
        CHECK(run_case(&a, 2, 1, cl));
        CHECK(run_case(&b, 2, 1, cl));
    }
    /* 1-d and 3-d */
    geom c1 = {2, 2, {1, 1, 10}, {1, 1, 5}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, 0, 1, 0};
    CHECK(run_case(&c1, 1, 1, 0));
    geom c3 = {1, 2, {5, 4, 6}, {3, 2, 3}, {3, 2, 2}, {2, 2, 2}, {1, 0, 0}, {1, 1, 1}, 0, 1, 0};
    CHECK(run_case(&c3, 3, 1, 0));
    CHECK(run_case(&c3, 3, 1, 1));
}

TEST(avg_pool_divisors_and_backward) {
    geom a = fixed2d(2, 3, 7, 6, 3, 2, 1, 1, 4, 3);
    CHECK(run_case(&a, 2, 0, 0));
    a.incl_pad = 0; /* count_include_pad=False */
    CHECK(run_case(&a, 2, 0, 1));
    a.divisor = 5;
    CHECK(run_case(&a, 2, 0, 0));
    /* ceil_mode: the last window passes the padded input (2 x 2 on 5 x 5,
     * stride 2 -> 3 outputs) */
    geom c = fixed2d(1, 2, 5, 5, 2, 2, 0, 1, 3, 3);
    CHECK(run_case(&c, 2, 0, 0));
    geom c3 = {1, 2, {5, 4, 6}, {3, 2, 3}, {3, 2, 2}, {2, 2, 2}, {1, 0, 0}, {1, 1, 1}, 0, 0, 0};
    CHECK(run_case(&c3, 3, 0, 0));
}

TEST(adaptive_pool_windows_and_backward) {
    /* 7 -> 3 and 8 -> 3 (overlapping windows of 3 and 4: sum / 3 / 3
     * differs from sum / 9), 5 -> 8 (more outputs than inputs), 6 -> 1 */
    geom a = {2, 3, {1, 7, 8}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, 0, 0};
    geom up = {1, 3, {1, 5, 7}, {1, 8, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, 0, 0};
    for (int cl = 0; cl < 2; ++cl) {
        CHECK(run_case(&a, 2, 1, cl));
        CHECK(run_case(&a, 2, 0, cl));
        CHECK(run_case(&up, 2, 1, cl));
        CHECK(run_case(&up, 2, 0, cl));
    }
    geom b = {1, 2, {6, 3, 4}, {1, 2, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, 0, 0};
    CHECK(run_case(&b, 3, 1, 0));
    CHECK(run_case(&b, 3, 0, 0));
}

/* CPU's generate_intervals in float: window starts along one dim */
static int frac_start(float u, int in, int out, int k, int o) {
    if (o == out - 1) return in - k;
    float alpha = (float)(in - k) / (float)(out - 1);
    return (int)(((float)o + u) * alpha) - (int)(u * alpha);
}

TEST(fractional_max_pool_windows_from_the_samples) {
    /* (1, 2, 9, 10) float32, windows 3 x 2, 4 x 5 outputs; samples
     * (1, 2, 2): [.., 0] places W's windows, [.., 1] H's (CPU's order) */
    enum { C = 2, H = 9, W = 10, KH = 3, KW = 2, OH = 4, OW = 5 };
    float x[C * H * W], u[C * 2] = {0.21f, 0.83f, 0.67f, 0.05f}, y[C * OH * OW], yr[C * OH * OW];
    int64_t ix[C * OH * OW], ixr[C * OH * OW];
    for (int i = 0; i < C * H * W; ++i) x[i] = (float)((i * 37) % 23) * 0.5f - 3.0f; /* ties */
    x[17] = NAN;
    for (int c = 0; c < C; ++c)
        for (int oh = 0; oh < OH; ++oh)
            for (int ow = 0; ow < OW; ++ow) {
                int h0 = frac_start(u[c * 2 + 1], H, OH, KH, oh), w0 = frac_start(u[c * 2], W, OW, KW, ow);
                float m = -INFINITY;
                int64_t arg = (int64_t)h0 * W + w0;
                for (int h = h0; h < h0 + KH; ++h)
                    for (int w = w0; w < w0 + KW; ++w) {
                        float v = x[(c * H + h) * W + w];
                        if (v > m || isnan(v)) m = v, arg = (int64_t)h * W + w;
                    }
                yr[(c * OH + oh) * OW + ow] = m;
                ixr[(c * OH + oh) * OW + ow] = arg;
            }
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint64_t dx = ctest_upload(dev, s, x, sizeof x), dy = ctest_upload(dev, s, y, sizeof y);
    uint64_t di = ctest_upload(dev, s, ix, sizeof ix), du = ctest_upload(dev, s, u, sizeof u);
    int64_t xs[4] = {1, C, H, W}, ys[4] = {1, C, OH, OW}, us[3] = {1, C, 2};
    rs_pool p;
    memset(&p, 0, sizeof p);
    p.op = RS_POOL_MAX;
    p.dims = 2;
    p.adaptive = RS_POOL_FRACTIONAL;
    p.input = ctest_view(dx, RS_FLOAT32, 4, xs);
    p.output = ctest_view(dy, RS_FLOAT32, 4, ys);
    p.indices = ctest_view(di, RS_INT64, 4, ys);
    p.samples = ctest_view(du, RS_FLOAT32, 3, us);
    p.kernel[0] = KH, p.kernel[1] = KW;
    CHECK_OK(rs_pool_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, y, dy, sizeof y));
    CHECK_OK(rs_memcpy_dtoh(s, ix, di, sizeof ix));
    CHECK_OK(rs_stream_synchronize(s));
    for (int i = 0; i < C * OH * OW; ++i) {
        CHECK((isnan(y[i]) && isnan(yr[i])) || y[i] == yr[i]);
        CHECK(ix[i] == ixr[i]);
    }
    /* windows past the input, samples of another shape, a fractional backward */
    p.kernel[0] = 7;
    CHECK(rs_pool_run(s, &p) == RS_ERR_INVALID);
    p.kernel[0] = KH;
    int64_t bad[3] = {1, C, 3};
    p.samples = ctest_view(du, RS_FLOAT32, 3, bad);
    CHECK(rs_pool_run(s, &p) == RS_ERR_INVALID);
    p.samples = ctest_view(du, RS_FLOAT32, 3, us);
    p.op = RS_POOL_MAX_BACKWARD;
    CHECK(rs_pool_run(s, &p) == RS_ERR_INVALID);
    rs_free(dev, dx), rs_free(dev, dy), rs_free(dev, di), rs_free(dev, du);
}

TEST(bad_indices_raise_and_bad_arguments_fail) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* a 4x4 plane, 2x2 windows: output (0, 0)'s index names (3, 3) */
    float gy[4] = {1, 2, 3, 4};
    int64_t ix[4] = {15, 2, 8, 15};
    uint64_t dgy = ctest_upload(dev, s, gy, sizeof gy), di = ctest_upload(dev, s, ix, sizeof ix), dgx = 0;
    CHECK_OK(rs_alloc(dev, 16 * sizeof(float), s, &dgx));
    int64_t in_sz[4] = {1, 1, 4, 4}, out_sz[4] = {1, 1, 2, 2};
    rs_pool p;
    memset(&p, 0, sizeof p);
    p.op = RS_POOL_MAX_BACKWARD;
    p.dims = 2;
    p.output = ctest_view(dgy, RS_FLOAT32, 4, out_sz);
    p.indices = ctest_view(di, RS_INT64, 4, out_sz);
    p.grad_input = ctest_view(dgx, RS_FLOAT32, 4, in_sz);
    p.kernel[0] = p.kernel[1] = p.stride[0] = p.stride[1] = 2;
    p.dil[0] = p.dil[1] = 1;
    CHECK_OK(rs_pool_run(s, &p));
    rs_status st = rs_stream_synchronize(s);
    CHECK(st == RS_ERR_DEVICE_ASSERT);
    CHECK(strstr(rs_last_error(), "max_pool_backward") != NULL);
    /* unsupported dtype, a window outside the input, bad dims */
    p.output.dtype = p.grad_input.dtype = RS_COMPLEX64;
    CHECK(rs_pool_run(s, &p) == RS_ERR_UNSUPPORTED);
    p.output.dtype = p.grad_input.dtype = RS_FLOAT32;
    p.pad[0] = 2;
    CHECK(rs_pool_run(s, &p) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "window") != NULL);
    p.pad[0] = 0;
    p.dims = 4;
    CHECK(rs_pool_run(s, &p) == RS_ERR_INVALID);
    rs_free(dev, dgy);
    rs_free(dev, di);
    rs_free(dev, dgx);
}

/* every variant of pool.comp compiles, the 64-bit-index ones (IDX32=0:
 * views past 2^31 elements, which no test here can allocate) included */
TEST(every_kernel_variant_compiles) {
    rs_device *dev = ctest_device();
    char defines[64];
    for (int mode = 0; mode < 4; ++mode)
        for (int adaptive = 0; adaptive < 2; ++adaptive)
            for (int idx32 = 0; idx32 < 2; ++idx32) {
                /* float32, and the integer opmath of max and avg (int64) */
                const int dts[2] = {RS_FLOAT32, RS_INT64};
                for (int k = 0; k < (mode < 2 ? 2 : 1); ++k) {
                    rs_kernel *kern = NULL;
                    snprintf(defines, sizeof defines, "MODE=%d;ADAPTIVE=%d;DT=%d;IDX32=%d", mode, adaptive, dts[k],
                             idx32);
                    CHECK_OK(rs_kernel_get(dev, "pool.comp", defines, &kern));
                }
            }
    /* fractional windows (max forward): float16 and bfloat16 round alpha's steps */
    const int frac_dts[3] = {RS_FLOAT32, RS_FLOAT16, RS_BFLOAT16};
    for (int k = 0; k < 3; ++k)
        for (int idx32 = 0; idx32 < 2; ++idx32) {
            rs_kernel *kern = NULL;
            snprintf(defines, sizeof defines, "MODE=0;ADAPTIVE=2;DT=%d;IDX32=%d", frac_dts[k], idx32);
            CHECK_OK(rs_kernel_get(dev, "pool.comp", defines, &kern));
        }
}

int main(void) {
    RUN(max_pool_windows_indices_nan_and_backward);
    RUN(avg_pool_divisors_and_backward);
    RUN(adaptive_pool_windows_and_backward);
    RUN(fractional_max_pool_windows_from_the_samples);
    RUN(bad_indices_raise_and_bad_arguments_fail);
    RUN(every_kernel_variant_compiles);
    CTEST_END();
}
