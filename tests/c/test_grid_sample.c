/* Grid sampling (rs_grid_sample_run) without torch: forward against a
 * float64 reference of ATen's coordinate rules (every padding mode, both
 * corner conventions, 2-d and 3-d, nearest and bilinear, points outside),
 * the input's gradient as the exact adjoint of the forward
 * (<S x, g> = <x, S^T g>), the grid's gradient against finite differences,
 * a transposed (channels_last) input, and clear errors for bad input. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"
#include "russet/grid_sample.h"

static uint32_t seed = 4242u;
static float frand(void) {
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* ---- the reference: ATen's GridSampler.h in float64 */
static double clip_ref(double x, int64_t size) { return x <= 0 ? 0 : x >= (double)(size - 1) ? (double)(size - 1) : x; }
static double reflect_ref(double x, int64_t twice_lo, int64_t twice_hi) {
    if (twice_lo == twice_hi) return 0;
    double lo = twice_lo / 2.0, span = (twice_hi - twice_lo) / 2.0;
    x = fabs(x - lo);
    double extra = fmod(x, span);
    int flips = (int)floor(x / span);
    return flips % 2 == 0 ? extra + lo : span - extra + lo;
}
static double source_ref(double g, int64_t size, int pad, int ac) {
    double x = ac ? (g + 1) / 2 * (double)(size - 1) : ((g + 1) * (double)size - 1) / 2;
    if (pad == RS_GRID_BORDER) x = clip_ref(x, size);
    if (pad == RS_GRID_REFLECTION)
        x = clip_ref(ac ? reflect_ref(x, 0, 2 * (size - 1)) : reflect_ref(x, -1, 2 * size - 1), size);
    return x;
}

/* sizes: input (n, c, sp[0..dims)), grid points (pts[0..dims)); x is
 * (n, c, spatial) contiguous, grid (n, pts..., dims); y (n, c, pts...) */
static void forward_ref(int mode, int pad, int ac, int dims, int n, int c, const int64_t *sp, const int64_t *pts,
                        const float *x, const float *grid, double *y) {
    int64_t plane = 1, npts = 1;
    for (int j = 0; j < dims; ++j) plane *= sp[j], npts *= pts[j];
    for (int b = 0; b < n; ++b)
        for (int64_t l = 0; l < npts; ++l) {
            /* coordinate j (x first) addresses spatial dim dims - 1 - j */
            double pos[3];
            for (int j = 0; j < dims; ++j)
                pos[j] = source_ref(grid[(b * npts + l) * dims + j], sp[dims - 1 - j], pad, ac);
            for (int ch = 0; ch < c; ++ch) {
                const float *xp = x + (b * c + ch) * plane;
                double acc = 0;
                for (int q = 0; q < (mode == RS_GRID_NEAREST ? 1 : 1 << dims); ++q) {
                    double w = 1;
                    int64_t off = 0, stride = 1, ok = 1;
                    for (int j = 0; j < dims; ++j) {
                        int64_t size = sp[dims - 1 - j], i;
                        if (mode == RS_GRID_NEAREST) {
                            i = (int64_t)nearbyint(pos[j]);
                        } else {
                            double f = floor(pos[j]);
                            i = (int64_t)f + ((q >> j) & 1);
                            w *= (q >> j) & 1 ? pos[j] - f : 1 - (pos[j] - f);
                        }
                        ok = ok && i >= 0 && i < size;
                        off += i * stride;
                        stride *= size;
                    }
                    if (ok) acc += xp[off] * w;
                }
                y[(b * c + ch) * npts + l] = acc;
            }
        }
}

/* one forward (y) and one backward (gx, gg from g) on float32 data; cl: the
 * input (and grad_input) channels_last */
static int run(int mode, int pad, int ac, int dims, int n, int c, const int64_t *sp, const int64_t *pts, int cl,
               const float *x, const float *grid, const float *g, float *y, float *gx, float *gg) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int64_t plane = 1, npts = 1;
    for (int j = 0; j < dims; ++j) plane *= sp[j], npts *= pts[j];
    size_t nx = (size_t)(n * c * plane), ny = (size_t)(n * c * npts), ng = (size_t)(n * npts * dims);
    uint64_t dx = 0, dgrid = ctest_upload(dev, s, grid, ng * 4), dy = ctest_upload(dev, s, y, ny * 4);
    uint64_t dg = ctest_upload(dev, s, g, ny * 4), dgx = ctest_upload(dev, s, gx, nx * 4),
             dgg = ctest_upload(dev, s, gg, ng * 4);
    int64_t xs[5] = {n, c}, ys[5] = {n, c}, gs[5] = {n};
    for (int j = 0; j < dims; ++j) xs[2 + j] = sp[j], ys[2 + j] = pts[j], gs[1 + j] = pts[j];
    gs[1 + dims] = dims;
    rs_tensor xv = ctest_view(0, RS_FLOAT32, 2 + dims, xs);
    if (cl) { /* channels fastest: upload x transposed */
        float *t = malloc(nx * sizeof *t);
        for (int b = 0; b < n; ++b)
            for (int ch = 0; ch < c; ++ch)
                for (int64_t i = 0; i < plane; ++i) t[(b * plane + i) * c + ch] = x[(b * c + ch) * plane + i];
        dx = ctest_upload(dev, s, t, nx * 4);
        free(t);
        int64_t st = c;
        for (int j = dims - 1; j >= 0; --j) xv.strides[2 + j] = st, st *= sp[j];
        xv.strides[1] = 1;
        xv.strides[0] = st;
    } else {
        dx = ctest_upload(dev, s, x, nx * 4);
    }
    xv.address = dx;
    rs_grid_sample p;
    memset(&p, 0, sizeof p);
    p.mode = (rs_grid_mode)mode;
    p.padding = (rs_grid_padding)pad;
    p.align_corners = ac;
    p.dims = dims;
    p.input = xv;
    p.grid = ctest_view(dgrid, RS_FLOAT32, 2 + dims, gs);
    p.output = ctest_view(dy, RS_FLOAT32, 2 + dims, ys);
    int ok = rs_grid_sample_run(s, &p) == RS_OK;
    p.backward = 1;
    p.output = ctest_view(dg, RS_FLOAT32, 2 + dims, ys);
    p.grad_input = ctest_view(dgx, RS_FLOAT32, 2 + dims, xs); /* contiguous */
    p.grad_grid = ctest_view(dgg, RS_FLOAT32, 2 + dims, gs);
    ok = ok && rs_grid_sample_run(s, &p) == RS_OK;
    ok = ok && rs_memcpy_dtoh(s, y, dy, ny * 4) == RS_OK && rs_memcpy_dtoh(s, gx, dgx, nx * 4) == RS_OK &&
         rs_memcpy_dtoh(s, gg, dgg, ng * 4) == RS_OK;
    ok = ok && rs_stream_synchronize(s) == RS_OK;
    if (!ok) fprintf(stderr, "  rs_grid_sample: %s\n", rs_last_error());
    rs_free(dev, dx), rs_free(dev, dgrid), rs_free(dev, dy), rs_free(dev, dg), rs_free(dev, dgx), rs_free(dev, dgg);
    return ok;
}

enum { MAXV = 2 * 3 * 4 * 5 * 6 };

/* every mode, padding and convention, 2-d and 3-d: values against the
 * reference, the input's gradient as the forward's adjoint */
TEST(values_and_input_gradients) {
    static const struct {
        int dims, cl;
        int64_t sp[3], pts[3];
    } shapes[] = {{2, 0, {5, 7}, {4, 6}}, {2, 1, {3, 4}, {5, 2}}, {3, 0, {3, 4, 5}, {2, 3, 4}}};
    static float x[MAXV], grid[MAXV * 3], g[MAXV], y[MAXV], gx[MAXV], gg[MAXV * 3];
    static double want[MAXV];
    enum { N = 2, C = 3 };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
        for (int mode = 0; mode < 2; ++mode)
            for (int pad = 0; pad < 3; ++pad)
                for (int ac = 0; ac < 2; ++ac) {
                    int dims = shapes[k].dims;
                    int64_t plane = 1, npts = 1;
                    for (int j = 0; j < dims; ++j) plane *= shapes[k].sp[j], npts *= shapes[k].pts[j];
                    for (int64_t i = 0; i < N * C * plane; ++i) x[i] = frand();
                    for (int64_t i = 0; i < N * npts * dims; ++i) grid[i] = 1.3f * frand(); /* some outside */
                    for (int64_t i = 0; i < N * C * npts; ++i) g[i] = frand();
                    CHECK(run(mode, pad, ac, dims, N, C, shapes[k].sp, shapes[k].pts, shapes[k].cl, x, grid, g, y,
                              gx, gg));
                    forward_ref(mode, pad, ac, dims, N, C, shapes[k].sp, shapes[k].pts, x, grid, want);
                    double worst = 0, lhs = 0, rhs = 0, mag = 0;
                    for (int64_t i = 0; i < N * C * npts; ++i) {
                        worst = fmax(worst, fabs(y[i] - want[i]));
                        lhs += (double)y[i] * g[i], mag += fabs((double)y[i] * g[i]);
                    }
                    for (int64_t i = 0; i < N * C * plane; ++i) rhs += (double)x[i] * gx[i];
                    if (worst > 1e-5 || fabs(lhs - rhs) > 1e-5 * (mag + 1))
                        fprintf(stderr, "  shape %zu mode %d pad %d ac %d: worst %g, <Sx,g> %g <x,S'g> %g\n", k, mode,
                                pad, ac, worst, lhs, rhs);
                    CHECK(worst <= 1e-5);
                    CHECK(fabs(lhs - rhs) <= 1e-5 * (mag + 1));
                }
}

/* d <S(grid) x, g> / d grid against central differences, at points whose
 * positions sit away from the integer kinks */
TEST(grid_gradient_matches_finite_differences) {
    enum { N = 1, C = 2, H = 4, W = 5, HO = 2, WO = 3 };
    int64_t sp[2] = {H, W}, pts[2] = {HO, WO};
    float x[N * C * H * W], grid[N * HO * WO * 2], g[N * C * HO * WO], y[N * C * HO * WO], gx[N * C * H * W],
        gg[N * HO * WO * 2], gg0[N * HO * WO * 2];
    for (int i = 0; i < N * C * H * W; ++i) x[i] = frand();
    for (int i = 0; i < N * C * HO * WO; ++i) g[i] = frand();
    for (int pad = 0; pad < 3; ++pad) {
        /* align_corners: position = (g + 1) / 2 * (size - 1); pick positions k + 0.3 */
        for (int l = 0; l < HO * WO; ++l) {
            double px = (l % WO) + 0.3, py = (l / WO) + 0.4;
            grid[l * 2] = (float)(px / (W - 1) * 2 - 1);
            grid[l * 2 + 1] = (float)(py / (H - 1) * 2 - 1);
        }
        CHECK(run(RS_GRID_BILINEAR, pad, 1, 2, N, C, sp, pts, 0, x, grid, g, y, gx, gg0));
        for (int i = 0; i < N * HO * WO * 2; ++i) {
            const float h = 1e-2f, keep = grid[i];
            double f[2];
            for (int side = 0; side < 2; ++side) {
                grid[i] = keep + (side ? h : -h);
                CHECK(run(RS_GRID_BILINEAR, pad, 1, 2, N, C, sp, pts, 0, x, grid, g, y, gx, gg));
                f[side] = 0;
                for (int k = 0; k < N * C * HO * WO; ++k) f[side] += (double)y[k] * g[k];
            }
            grid[i] = keep;
            double fd = (f[1] - f[0]) / (2 * (double)h);
            if (fabs(fd - gg0[i]) > 2e-3 * (1 + fabs(fd)))
                fprintf(stderr, "  pad %d grid[%d]: analytic %g, differences %g\n", pad, i, gg0[i], fd);
            CHECK(fabs(fd - gg0[i]) <= 2e-3 * (1 + fabs(fd)));
        }
    }
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    uint8_t zeros[1024] = {0};
    uint64_t a = ctest_upload(dev, s, zeros, sizeof zeros);
    int64_t xs[4] = {1, 2, 3, 3}, gs[4] = {1, 2, 2, 2}, ys[4] = {1, 2, 2, 2};
    rs_grid_sample p;
    memset(&p, 0, sizeof p);
    p.dims = 4;
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_INVALID);
    p.dims = 2;
    p.input = ctest_view(a, RS_INT32, 4, xs);
    p.grid = ctest_view(a, RS_INT32, 4, gs);
    p.output = ctest_view(a, RS_INT32, 4, ys);
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_UNSUPPORTED); /* integers */
    CHECK(strstr(rs_last_error(), "int32") != NULL);
    p.input = ctest_view(a, RS_FLOAT32, 4, xs);
    p.output = ctest_view(a, RS_FLOAT32, 4, ys);
    p.grid = ctest_view(a, RS_FLOAT16, 4, gs);
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_INVALID); /* grid's dtype */
    int64_t gbad[4] = {1, 2, 3, 2};
    p.grid = ctest_view(a, RS_FLOAT32, 4, gbad);
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_INVALID); /* grid's points differ from the output's */
    CHECK(strstr(rs_last_error(), "grid") != NULL);
    p.grid = ctest_view(a, RS_FLOAT32, 4, gs);
    int64_t xempty[4] = {1, 2, 0, 3};
    p.input = ctest_view(a, RS_FLOAT32, 4, xempty);
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_INVALID); /* empty spatial dim */
    p.input = ctest_view(a, RS_FLOAT32, 4, xs);
    p.mode = (rs_grid_mode)2; /* bicubic: not here */
    CHECK(rs_grid_sample_run(s, &p) == RS_ERR_INVALID);
    p.mode = RS_GRID_BILINEAR;
    CHECK_OK(rs_grid_sample_run(s, &p));
    CHECK_OK(rs_stream_synchronize(s));
    rs_free(dev, a);
}

int main(void) {
    RUN(values_and_input_gradients);
    RUN(grid_gradient_matches_finite_differences);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
