/* The histogram engine (russet/histogram.h) without torch, against host
 * loops written from the contract (CPU's histogramdd kernel): evenly spaced
 * edges (CPU's linear estimate and local search) and uneven ones (upper
 * bound), points on edges, on the last edge, outside, NaN; weights;
 * density; two dimensions with a strided input; no points; float32 and
 * float16 (each step rounded), compared bit for bit. Bad arguments fail
 * clearly. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

typedef float (*round_fn)(float);
static float same(float x) { return x; }
static float half(float x) { return rs_f16_to_f32(rs_f16_from_f32(x)); }

/* the bin of x among ne edges (contract), -1 where skipped */
static int64_t ref_bin(const float *e, int64_t ne, float x, int linear, round_fn r) {
    const float lo = e[0], hi = e[ne - 1];
    if (!(x >= lo && x <= hi)) return -1;
    int64_t pos;
    if (linear) {
        const float est = r(r(r(x - lo) * r((float)(ne - 1))) / r(hi - lo));
        const int64_t ei = isnan(est) ? 0 : (int64_t)est;
        const int64_t start = ei - 1 > 0 ? ei - 1 : 0, end = ei + 2 < ne ? ei + 2 : ne;
        int64_t cnt = 0;
        for (int64_t k = start; k < end; ++k) cnt += e[k] <= x;
        pos = start + cnt - 1;
    } else { /* std::upper_bound - 1 */
        int64_t a = 0, b = ne;
        while (a < b) {
            const int64_t mid = a + (b - a) / 2;
            if (x < e[mid]) b = mid;
            else a = mid + 1;
        }
        pos = a - 1;
    }
    return pos < 0 ? 0 : pos > ne - 2 ? ne - 2 : pos;
}

static void put(void *buf, int i, float v, rs_dtype dt) {
    if (dt == RS_FLOAT32) ((float *)buf)[i] = v;
    else ((uint16_t *)buf)[i] = rs_f16_from_f32(v);
}
static float get(const void *buf, int i, rs_dtype dt) {
    return dt == RS_FLOAT32 ? ((const float *)buf)[i] : rs_f16_to_f32(((const uint16_t *)buf)[i]);
}

enum { M = 23 };

/* points (M, 2), stored transposed (strides 1, M); dimension 0 evenly
 * spaced edges [-1, 2] in 6 bins (linear) or uneven ones; dimension 1
 * uneven edges */
static void check(rs_dtype dt, int linear, int weighted, int density, int ndims) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const round_fn r = dt == RS_FLOAT32 ? same : half;
    const size_t es = rs_dtype_size(dt);
    float e0[7], e1[4] = {-3.0f, -0.5f, 0.25f, 4.0f};
    for (int k = 0; k < 7; ++k) e0[k] = linear ? r(-1.0f + 0.5f * k) : r(-1.0f + 0.5f * k + (k % 2 ? 0.125f : 0.0f));
    if (!linear) e0[6] = 2.0f;
    float x[M][2], w[M];
    for (int m = 0; m < M; ++m) {
        x[m][0] = r(-1.25f + 0.15f * m);
        x[m][1] = r(-3.5f + 0.37f * m);
        w[m] = 0.25f * (m % 5) + 0.5f;
    }
    x[3][0] = e0[2];          /* on an edge */
    x[4][0] = e0[6];          /* the last edge: the last bin */
    x[5][0] = NAN;            /* skipped */
    x[6][1] = e1[3];
    x[7][1] = NAN;
    unsigned char hx[M * 2 * 4], he0[7 * 4], he1[4 * 4], hw[M * 4];
    for (int m = 0; m < M; ++m)
        for (int d = 0; d < 2; ++d) put(hx, d * M + m, x[m][d], dt);
    for (int k = 0; k < 7; ++k) put(he0, k, e0[k], dt);
    for (int k = 0; k < 4; ++k) put(he1, k, e1[k], dt);
    for (int m = 0; m < M; ++m) put(hw, m, w[m], dt);
    uint64_t dx = ctest_upload(dev, s, hx, es * M * 2), de0 = ctest_upload(dev, s, he0, es * 7);
    uint64_t de1 = ctest_upload(dev, s, he1, es * 4), dw = ctest_upload(dev, s, hw, es * M), dh;
    const int64_t total = ndims == 2 ? 6 * 3 : 6;
    CHECK_OK(rs_alloc(dev, es * total, s, &dh));
    rs_tensor edges[2];
    const int64_t n0[1] = {7}, n1[1] = {4}, xsz[2] = {M, ndims}, hsz[1] = {total}, wsz[1] = {M};
    edges[0] = ctest_view(de0, dt, 1, n0);
    edges[1] = ctest_view(de1, dt, 1, n1);
    rs_histogram p;
    memset(&p, 0, sizeof p);
    p.input = ctest_view(dx, dt, 2, xsz);
    p.input.strides[0] = 1, p.input.strides[1] = M;
    p.n_edges = ndims, p.edges = edges, p.linear = linear, p.density = density;
    if (weighted) p.weight = ctest_view(dw, dt, 1, wsz);
    p.hist = ctest_view(dh, dt, 1, hsz);
    CHECK_OK(rs_histogram_run(s, &p));
    unsigned char got[18 * 4];
    CHECK_OK(rs_memcpy_dtoh(s, got, dh, es * total));
    /* the reference */
    float want[18] = {0};
    for (int m = 0; m < M; ++m) {
        const int64_t b0 = ref_bin(e0, 7, x[m][0], linear, r);
        const int64_t b1 = ndims == 2 ? ref_bin(e1, 4, x[m][1], 0, r) : 0;
        if (b0 < 0 || b1 < 0) continue;
        const int64_t b = ndims == 2 ? b0 * 3 + b1 : b0;
        want[b] = weighted ? r(want[b] + w[m]) : want[b] + 1.0f;
    }
    for (int b = 0; b < total; ++b) want[b] = r(want[b]);
    if (density) {
        float sum = 0;
        for (int b = 0; b < total; ++b) sum += want[b]; /* exact: quarters */
        sum = r(sum);
        for (int b = 0; b < total; ++b) {
            float v = r(want[b] / sum);
            v = r(v / r(e0[ndims == 2 ? b / 3 + 1 : b + 1] - e0[ndims == 2 ? b / 3 : b]));
            if (ndims == 2) v = r(v / r(e1[b % 3 + 1] - e1[b % 3]));
            want[b] = v;
        }
    }
    for (int b = 0; b < total; ++b) {
        const float g = get(got, b, dt);
        if (!(g == want[b] || (isnan(g) && isnan(want[b]))))
            fprintf(stderr, "  dt %d linear %d w %d density %d ndims %d: bin %d got %g want %g\n", (int)dt, linear,
                    weighted, density, ndims, b, g, want[b]);
        CHECK(g == want[b] || (isnan(g) && isnan(want[b])));
    }
    /* no points: zeros (density: 0 / 0) */
    p.input.sizes[0] = 0;
    p.weight.sizes[0] = 0;
    CHECK_OK(rs_histogram_run(s, &p));
    CHECK_OK(rs_memcpy_dtoh(s, got, dh, es * total));
    for (int b = 0; b < total; ++b) CHECK(density ? isnan(get(got, b, dt)) : get(got, b, dt) == 0.0f);
    rs_free(dev, dx), rs_free(dev, de0), rs_free(dev, de1), rs_free(dev, dw), rs_free(dev, dh);
}

TEST(histograms_against_the_contract) {
    const rs_dtype dts[2] = {RS_FLOAT32, RS_FLOAT16};
    for (int d = 0; d < 2; ++d)
        for (int linear = 0; linear < 2; ++linear)
            for (int weighted = 0; weighted < 2; ++weighted)
                for (int density = 0; density < 2; ++density)
                    for (int nd = 1; nd <= 2; ++nd) check(dts[d], linear, weighted, density, nd);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    rs_tensor edges[1];
    const int64_t ne[1] = {3}, xsz[2] = {4, 1}, hsz[1] = {2}, bad[1] = {3};
    edges[0] = ctest_view(0, RS_FLOAT32, 1, ne);
    rs_histogram p;
    memset(&p, 0, sizeof p);
    p.input = ctest_view(0, RS_INT32, 2, xsz);
    p.n_edges = 1, p.edges = edges;
    p.hist = ctest_view(0, RS_FLOAT32, 1, hsz);
    CHECK(rs_histogram_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "int32 input"));
    p.input.dtype = RS_FLOAT32;
    p.hist = ctest_view(0, RS_FLOAT32, 1, bad);
    CHECK(rs_histogram_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "2 elements"));
    p.hist = ctest_view(0, RS_FLOAT32, 1, hsz);
    p.n_edges = 2;
    CHECK(rs_histogram_run(s, &p) == RS_ERR_INVALID && strstr(rs_last_error(), "(M, N)"));
}

int main(void) {
    RUN(histograms_against_the_contract);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
