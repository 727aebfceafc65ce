/* Scans and sorting in the C core (src/engine/scan.c, sort.c), against
 * host references. No torch. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

static rs_device *g_dev;
static rs_stream *g_s;

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

TEST(cumsum_int32_to_int64_and_float) {
    enum { R = 3, N = 9000 };  /* several chunks of 1024: the three-pass path */
    int32_t *x = malloc(sizeof(int32_t) * R * N);
    int64_t *y = malloc(sizeof(int64_t) * R * N);
    uint32_t seed = 1;
    for (int i = 0; i < R * N; ++i) x[i] = (int32_t)(lcg(&seed) >> 8) - (1 << 23);
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof(int32_t) * R * N), b = 0;
    CHECK(a != 0);
    CHECK_OK(rs_alloc(g_dev, sizeof(int64_t) * R * N, g_s, &b));
    rs_tensor src = rs_tensor_rows(a, RS_INT32, R, N), dst = rs_tensor_rows(b, RS_INT64, R, N);
    CHECK_OK(rs_scan(g_s, RS_SCAN_SUM, &src, &dst, NULL));
    CHECK_OK(rs_memcpy_dtoh(g_s, y, b, sizeof(int64_t) * R * N));
    for (int r = 0; r < R; ++r) {
        int64_t acc = 0;
        for (int j = 0; j < N; ++j) {
            acc += x[r * N + j];
            CHECK(y[r * N + j] == acc);
        }
    }
    /* float32: float-float accumulation matches a double reference closely */
    float *f = malloc(sizeof(float) * R * N), *g = malloc(sizeof(float) * R * N);
    for (int i = 0; i < R * N; ++i) f[i] = (float)((int)(lcg(&seed) >> 16) - 32768) / 1024.0f;
    uint64_t fa = ctest_upload(g_dev, g_s, f, sizeof(float) * R * N), fb_ = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof(float) * R * N, g_s, &fb_));
    rs_tensor fs = rs_tensor_rows(fa, RS_FLOAT32, R, N), fd = rs_tensor_rows(fb_, RS_FLOAT32, R, N);
    CHECK_OK(rs_scan(g_s, RS_SCAN_SUM, &fs, &fd, NULL));
    CHECK_OK(rs_memcpy_dtoh(g_s, g, fb_, sizeof(float) * R * N));
    for (int r = 0; r < R; ++r) {
        double acc = 0;
        for (int j = 0; j < N; ++j) {
            acc += f[r * N + j];
            CHECK(g[r * N + j] == (float)acc);
        }
    }
    rs_free(g_dev, a);
    rs_free(g_dev, b);
    rs_free(g_dev, fa);
    rs_free(g_dev, fb_);
    free(x); free(y); free(f); free(g);
}

/* complex64 logcumsumexp: c10's complex log-add-exp folded in order,
 * against the same fold in double complex (CPU's accumulate type). */
static double complex lae_ref(double complex x, double complex y) {
    double complex mn, mx;
    if (isnan(creal(y)) || isnan(cimag(y))) mn = mx = y;
    else if (isnan(creal(x)) || isnan(cimag(x))) mn = mx = x;
    else if (creal(x) < creal(y)) { mn = x; mx = y; }
    else { mn = y; mx = x; }
    if (isnan(creal(mn)) || isnan(cimag(mn))) return NAN + NAN * I;
    if (isinf(creal(mn)) && creal(mn) == creal(mx)) return creal(mn) < 0 ? mn : clog(cexp(mn) + cexp(mx));
    return clog(1.0 + cexp(mn - mx)) + mx;
}

TEST(logcumsumexp_complex64) {
    enum { R = 40, N = 300 };
    float *x = malloc(sizeof(float) * 2 * R * N), *y = malloc(sizeof(float) * 2 * R * N);
    uint32_t seed = 7;
    for (int i = 0; i < 2 * R * N; ++i) x[i] = (float)(lcg(&seed) >> 8) / (float)(1 << 24) * 18.0f - 9.0f;
    x[2 * (1 * N + 5)] = -INFINITY;   /* row 1: a -inf element */
    x[2 * (2 * N + 0)] = -INFINITY;   /* row 2 starts at -inf */
    x[2 * (3 * N + 9) + 1] = NAN;     /* row 3: NaN from element 9 on */
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof(float) * 2 * R * N), b = 0;
    CHECK(a != 0);
    CHECK_OK(rs_alloc(g_dev, sizeof(float) * 2 * R * N, g_s, &b));
    rs_tensor src = rs_tensor_rows(a, RS_COMPLEX64, R, N), dst = rs_tensor_rows(b, RS_COMPLEX64, R, N);
    CHECK_OK(rs_scan(g_s, RS_SCAN_LOGSUMEXP, &src, &dst, NULL));
    CHECK_OK(rs_memcpy_dtoh(g_s, y, b, sizeof(float) * 2 * R * N));
    double worst = 0;
    for (int r = 0; r < R; ++r) {
        double complex acc = -INFINITY + 0.0 * I;
        for (int j = 0; j < N; ++j) {
            int k = r * N + j;
            acc = lae_ref(x[2 * k] + x[2 * k + 1] * I, acc);
            double complex ref = (float)creal(acc) + (float)cimag(acc) * I;
            double gr = y[2 * k], gi = y[2 * k + 1];
            if (isnan(creal(ref)) || isnan(cimag(ref))) {
                CHECK(isnan(gr) && isnan(gi));
                continue;
            }
            if (isinf(creal(ref))) {
                CHECK(gr == creal(ref));
                continue;
            }
            double e = cabs((gr + gi * I) - ref);
            if (e > worst) worst = e;
        }
    }
    CHECK(worst < 2e-5);  /* the imaginary parts on CPU's branch, not 2*pi away */
    rs_free(g_dev, a);
    rs_free(g_dev, b);
    free(x); free(y);
}

TEST(cummax_ties_and_nan) {
    float x[8] = {1, 3, 3, 2, NAN, 5, NAN, 0};
    float ev[8] = {1, 3, 3, 3, NAN, NAN, NAN, NAN};
    int64_t ei[8] = {0, 1, 2, 2, 4, 4, 6, 6};
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof x), b = 0, c = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof x, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, sizeof ei, g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_FLOAT32, 1, 8), dst = rs_tensor_rows(b, RS_FLOAT32, 1, 8), idx = rs_tensor_rows(c, RS_INT64, 1, 8);
    CHECK_OK(rs_scan(g_s, RS_SCAN_MAX, &src, &dst, &idx));
    float v[8];
    int64_t i[8];
    CHECK_OK(rs_memcpy_dtoh(g_s, v, b, sizeof v));
    CHECK_OK(rs_memcpy_dtoh(g_s, i, c, sizeof i));
    for (int k = 0; k < 8; ++k) {
        CHECK(isnan(ev[k]) ? isnan(v[k]) : v[k] == ev[k]);
        CHECK(i[k] == ei[k]);
    }
    CHECK(rs_scan(g_s, RS_SCAN_MAX, &src, &dst, NULL) == RS_ERR_INVALID);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
}

/* float64: cummax compares bits (any device); cumsum needs fp64. */
TEST(float64_scans) {
    double x[6] = {1.5, -2.0, 7.25, 7.25, NAN, 3.0};
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof x), b = 0, c = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof x, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, 6 * sizeof(int64_t), g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_FLOAT64, 1, 6), dst = rs_tensor_rows(b, RS_FLOAT64, 1, 6), idx = rs_tensor_rows(c, RS_INT64, 1, 6);
    CHECK_OK(rs_scan(g_s, RS_SCAN_MAX, &src, &dst, &idx));
    double v[6];
    int64_t i[6];
    CHECK_OK(rs_memcpy_dtoh(g_s, v, b, sizeof v));
    CHECK_OK(rs_memcpy_dtoh(g_s, i, c, sizeof i));
    int64_t ei[6] = {0, 0, 2, 3, 4, 4};
    for (int k = 0; k < 6; ++k) CHECK(i[k] == ei[k]);
    CHECK(v[3] == 7.25 && isnan(v[5]));
    rs_status st = rs_scan(g_s, RS_SCAN_SUM, &src, &dst, NULL);
    if (rs_device_features(g_dev)->has_fp64) {
        CHECK(st == RS_OK);
        CHECK_OK(rs_memcpy_dtoh(g_s, v, b, sizeof v));
        CHECK(v[0] == 1.5 && v[1] == -0.5 && v[3] == 14.0 && isnan(v[4]));
    } else {
        CHECK(st == RS_ERR_UNSUPPORTED);
    }
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
}

static int cmp_key(const void *pa, const void *pb) {
    const float *a = pa, *b = pb;
    int na = isnan(a[0]), nb = isnan(b[0]);
    if (na != nb) return na - nb;
    if (!na && a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];  /* stable: by original index */
}

/* Short rows (shared memory only) and a long row (global merge steps). */
static void sort_case(int64_t rows, int64_t n, int desc) {
    size_t cnt = (size_t)(rows * n);
    float *x = malloc(sizeof(float) * cnt + 4), *v = malloc(sizeof(float) * cnt + 4);
    int64_t *ix = malloc(sizeof(int64_t) * cnt + 8);
    float *ref = malloc(sizeof(float) * 2 * (size_t)n + 8);
    uint32_t seed = 7;
    for (size_t i = 0; i < cnt; ++i) {
        uint32_t r = lcg(&seed) >> 20;
        x[i] = r == 5 ? NAN : (float)((int)(r % 97) - 48) * 0.5f;  /* many ties */
    }
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof(float) * cnt), b = 0, c = 0;
    CHECK(a != 0);
    CHECK_OK(rs_alloc(g_dev, sizeof(float) * cnt, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, sizeof(int64_t) * cnt, g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_FLOAT32, rows, n), vt = rs_tensor_rows(b, RS_FLOAT32, rows, n), it = rs_tensor_rows(c, RS_INT64, rows, n);
    CHECK_OK(rs_sort(g_s, &src, desc, n, &vt, &it));
    CHECK_OK(rs_memcpy_dtoh(g_s, v, b, sizeof(float) * cnt));
    CHECK_OK(rs_memcpy_dtoh(g_s, ix, c, sizeof(int64_t) * cnt));
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < n; ++j) {
            float val = x[r * n + j];
            ref[2 * j] = desc && !isnan(val) ? -val : val;  /* descending: NaN still first */
            ref[2 * j + 1] = (float)j;
        }
        if (desc) {
            /* NaN first, then the largest; stable among ties */
            for (int64_t j = 0; j < n; ++j) if (isnan(ref[2 * j])) ref[2 * j] = -INFINITY, ref[2 * j + 1] -= 1000000.0f;
        }
        qsort(ref, (size_t)n, 2 * sizeof(float), cmp_key);
        for (int64_t j = 0; j < n; ++j) {
            int64_t want = desc && ref[2 * j + 1] < 0 ? (int64_t)(ref[2 * j + 1] + 1000000.0f) : (int64_t)ref[2 * j + 1];
            CHECK(ix[r * n + j] == want);
            float got = v[r * n + j], exp = x[r * n + want];
            CHECK(isnan(exp) ? isnan(got) : got == exp);
        }
    }
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    free(x); free(v); free(ix); free(ref);
}

TEST(sort_short_rows) { sort_case(5, 300, 0); }
TEST(sort_short_rows_descending) { sort_case(3, 77, 1); }
TEST(sort_long_row) { sort_case(1, 20000, 0); }  /* radix */
TEST(sort_long_rows_descending) { sort_case(3, 5000, 1); }
TEST(sort_long_row_bitonic) {
    setenv("RUSSET_SORT", "bitonic", 1);
    sort_case(2, 9000, 0);
    unsetenv("RUSSET_SORT");
}

/* values alone and indices alone (the last radix pass writes the
 * outputs it is given), and topk's first k (the pairs, then a gather) */
static void outputs_case(void) {
    enum { N = 9000, K = 100 };
    float *x = malloc(sizeof(float) * N), *v1 = malloc(sizeof(float) * N), *v2 = malloc(sizeof(float) * N);
    int64_t *i1 = malloc(sizeof(int64_t) * N), *i2 = malloc(sizeof(int64_t) * N);
    uint32_t seed = 3;
    for (int j = 0; j < N; ++j) x[j] = (float)((int)(lcg(&seed) >> 20) % 50) - 25.0f;
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof(float) * N), b = 0, c = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof(float) * N, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, sizeof(int64_t) * N, g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_FLOAT32, 1, N), vt = rs_tensor_rows(b, RS_FLOAT32, 1, N), it = rs_tensor_rows(c, RS_INT64, 1, N);
    CHECK_OK(rs_sort(g_s, &src, 1, N, &vt, &it));
    CHECK_OK(rs_memcpy_dtoh(g_s, v1, b, sizeof(float) * N));
    CHECK_OK(rs_memcpy_dtoh(g_s, i1, c, sizeof(int64_t) * N));
    for (int j = 1; j < N; ++j) CHECK(v1[j - 1] > v1[j] || (v1[j - 1] == v1[j] && i1[j - 1] < i1[j]));
    for (int j = 0; j < N; ++j) CHECK(x[i1[j]] == v1[j]);
    memset(v2, 0, sizeof(float) * N);
    memset(i2, 0, sizeof(int64_t) * N);
    CHECK_OK(rs_memcpy_htod(g_s, b, v2, sizeof(float) * N));  /* clear the outputs */
    CHECK_OK(rs_memcpy_htod(g_s, c, i2, sizeof(int64_t) * N));
    CHECK_OK(rs_sort(g_s, &src, 1, N, &vt, NULL));
    CHECK_OK(rs_sort(g_s, &src, 1, N, NULL, &it));
    CHECK_OK(rs_memcpy_dtoh(g_s, v2, b, sizeof(float) * N));
    CHECK_OK(rs_memcpy_dtoh(g_s, i2, c, sizeof(int64_t) * N));
    CHECK(memcmp(v1, v2, sizeof(float) * N) == 0 && memcmp(i1, i2, sizeof(int64_t) * N) == 0);
    rs_tensor vk = rs_tensor_rows(b, RS_FLOAT32, 1, K), ik = rs_tensor_rows(c, RS_INT64, 1, K);
    CHECK_OK(rs_sort(g_s, &src, 1, K, &vk, &ik));
    CHECK_OK(rs_memcpy_dtoh(g_s, v2, b, sizeof(float) * K));
    CHECK_OK(rs_memcpy_dtoh(g_s, i2, c, sizeof(int64_t) * K));
    CHECK(memcmp(v1, v2, sizeof(float) * K) == 0 && memcmp(i1, i2, sizeof(int64_t) * K) == 0);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
    free(x); free(v1); free(v2); free(i1); free(i2);
}

/* The radix scatter's two rankings (RUSSET_SORT_RANK; the subgroup one with
 * 4 and 8 elements per invocation), on rows that are not multiples of a
 * block, with ties and NaNs, both directions. */
TEST(sort_long_rows_rankings) {
    static const char *ranks[3][2] = {{"shared", "4"}, {"subgroup", "4"}, {"subgroup", "8"}};
    for (int r = 0; r < 3; ++r) {
        setenv("RUSSET_SORT_RANK", ranks[r][0], 1);
        setenv("RUSSET_SORT_ITEMS", ranks[r][1], 1);
        sort_case(1, 4097, 0);
        sort_case(2, 20000, 1);
        sort_case(3, 6145, 0);
        outputs_case();
    }
    setenv("RUSSET_SORT_RANK", "warp", 1);
    float x[5000] = {0};
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof x), b = 0, c = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof x, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, 5000 * sizeof(int64_t), g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_FLOAT32, 1, 5000), vt = rs_tensor_rows(b, RS_FLOAT32, 1, 5000), it = rs_tensor_rows(c, RS_INT64, 1, 5000);
    CHECK(rs_sort(g_s, &src, 0, 5000, &vt, &it) == RS_ERR_INVALID);
    CHECK(strstr(rs_last_error(), "RUSSET_SORT_RANK") != NULL);
    unsetenv("RUSSET_SORT_RANK");
    unsetenv("RUSSET_SORT_ITEMS");
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
}

TEST(sort_int64_and_median) {
    int64_t x[7] = {5, -3, 9, -3, 0, 100, -70};
    uint64_t a = ctest_upload(g_dev, g_s, x, sizeof x), b = 0, c = 0;
    CHECK_OK(rs_alloc(g_dev, sizeof x, g_s, &b));
    CHECK_OK(rs_alloc(g_dev, sizeof x, g_s, &c));
    rs_tensor src = rs_tensor_rows(a, RS_INT64, 1, 7), vt = rs_tensor_rows(b, RS_INT64, 1, 7), it = rs_tensor_rows(c, RS_INT64, 1, 7);
    CHECK_OK(rs_sort(g_s, &src, 0, 7, &vt, &it));
    int64_t v[7], i[7];
    CHECK_OK(rs_memcpy_dtoh(g_s, v, b, sizeof v));
    CHECK_OK(rs_memcpy_dtoh(g_s, i, c, sizeof i));
    int64_t ev[7] = {-70, -3, -3, 0, 5, 9, 100}, ei[7] = {6, 1, 3, 4, 0, 2, 5};
    for (int k = 0; k < 7; ++k) CHECK(v[k] == ev[k] && i[k] == ei[k]);
    rs_tensor v1 = rs_tensor_rows(b, RS_INT64, 1, 1), i1 = rs_tensor_rows(c, RS_INT64, 1, 1);
    CHECK_OK(rs_sort_pick(g_s, &src, RS_PICK_MEDIAN, 0, &v1, &i1));
    CHECK_OK(rs_memcpy_dtoh(g_s, v, b, 8));
    CHECK_OK(rs_memcpy_dtoh(g_s, i, c, 8));
    CHECK(v[0] == 0 && i[0] == 4);
    CHECK(rs_sort_pick(g_s, &src, RS_PICK_KTH, 7, &v1, &i1) == RS_ERR_INVALID);
    rs_free(g_dev, a); rs_free(g_dev, b); rs_free(g_dev, c);
}

/* masked_scatter: a strided self (a transposed (40, 60) float32 matrix)
 * with a broadcast mask (one row of 60 repeated, stride 0) over several
 * rank blocks; then too short a source raises at the sync */
TEST(masked_scatter_strided_broadcast) {
    enum { R = 60, C = 40 }; /* self (R, C) viewed from a (C, R) buffer */
    float self[R * C], src[R * C];
    uint8_t row[C];
    uint32_t seed = 11;
    for (int i = 0; i < R * C; ++i) self[i] = (float)i, src[i] = -1.0f - (float)i;
    for (int c = 0; c < C; ++c) row[c] = (lcg(&seed) >> 16) % 3 != 0;
    uint64_t ds = ctest_upload(g_dev, g_s, self, sizeof self), dsrc = ctest_upload(g_dev, g_s, src, sizeof src),
             dm = ctest_upload(g_dev, g_s, row, sizeof row);
    const int64_t sz[2] = {R, C}, n[1] = {R * C};
    rs_tensor vs = ctest_view(ds, RS_FLOAT32, 2, sz), vm = ctest_view(dm, RS_BOOL, 2, sz),
              vsrc = ctest_view(dsrc, RS_FLOAT32, 1, n);
    vs.strides[0] = 1, vs.strides[1] = R;
    vm.strides[0] = 0, vm.strides[1] = 1;
    CHECK_OK(rs_masked_scatter(g_s, &vs, &vm, &vsrc));
    float got[R * C];
    CHECK_OK(rs_memcpy_dtoh(g_s, got, ds, sizeof got));
    int k = 0, bad = 0;
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
            const int at = c * R + r; /* (r, c) in the buffer */
            const float want = row[c] ? src[k++] : self[at];
            bad += got[at] != want;
        }
    CHECK(bad == 0);
    vsrc.sizes[0] = k - 1; /* one short */
    CHECK_OK(rs_masked_scatter(g_s, &vs, &vm, &vsrc));
    CHECK(rs_stream_synchronize(g_s) == RS_ERR_DEVICE_ASSERT &&
          strstr(rs_last_error(), "Number of elements of source < number of ones in mask"));
    vm.dtype = RS_UINT8;
    CHECK(rs_masked_scatter(g_s, &vs, &vm, &vsrc) == RS_ERR_INVALID && strstr(rs_last_error(), "bool"));
    rs_free(g_dev, ds); rs_free(g_dev, dsrc); rs_free(g_dev, dm);
}

/* unique: host reference for int32 values with many repeats (sorted:
 * values ascending, each element's run, the run lengths) and for
 * unique_consecutive over float32 with NaNs (never equal) and -0 == +0;
 * then a mismatched output is refused and frees the scratch */
static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

TEST(unique_sorted_and_consecutive) {
    enum { N = 5000 };
    int32_t *x = malloc(sizeof(int32_t) * N), *sx = malloc(sizeof(int32_t) * N);
    int64_t *inv = malloc(8 * N), *cnt = malloc(8 * N);
    int32_t *vals = malloc(sizeof(int32_t) * N);
    uint32_t seed = 5;
    for (int i = 0; i < N; ++i) x[i] = (int32_t)((lcg(&seed) >> 16) % 300) - 150;
    memcpy(sx, x, sizeof(int32_t) * N);
    qsort(sx, N, sizeof(int32_t), cmp_i32);
    int64_t k_ref = 0;
    for (int i = 0; i < N; ++i) k_ref += i == 0 || sx[i] != sx[i - 1];
    uint64_t dx = ctest_upload(g_dev, g_s, x, sizeof(int32_t) * N), dv = 0, di = 0, dc = 0;
    rs_tensor src = rs_tensor_rows(dx, RS_INT32, 1, N);
    rs_unique u;
    CHECK_OK(rs_unique_count(g_s, &src, 1, &u));
    CHECK(u.count == k_ref);
    CHECK_OK(rs_alloc(g_dev, sizeof(int32_t) * (uint64_t)u.count, g_s, &dv));
    CHECK_OK(rs_alloc(g_dev, 8u * N, g_s, &di));
    CHECK_OK(rs_alloc(g_dev, 8u * (uint64_t)u.count, g_s, &dc));
    rs_tensor tv = rs_tensor_rows(dv, RS_INT32, 1, u.count), ti = rs_tensor_rows(di, RS_INT64, 1, N),
              tc = rs_tensor_rows(dc, RS_INT64, 1, u.count);
    const int64_t k = u.count;
    CHECK_OK(rs_unique_write(g_s, &u, &tv, &ti, &tc));
    CHECK_OK(rs_memcpy_dtoh(g_s, vals, dv, sizeof(int32_t) * (uint64_t)k));
    CHECK_OK(rs_memcpy_dtoh(g_s, inv, di, 8u * N));
    CHECK_OK(rs_memcpy_dtoh(g_s, cnt, dc, 8u * (uint64_t)k));
    int bad = 0;
    int64_t total = 0;
    for (int64_t j = 0; j < k; ++j) bad += j > 0 && vals[j] <= vals[j - 1], total += cnt[j];
    for (int i = 0; i < N; ++i) bad += inv[i] < 0 || inv[i] >= k || vals[inv[i]] != x[i];
    for (int64_t j = 0, i = 0; j < k; i += cnt[j], ++j) bad += cnt[j] < 1 || sx[i] != vals[j];
    CHECK(bad == 0 && total == N);

    /* consecutive runs of float32 with NaNs and signed zeros */
    const float nan = 0.0f / 0.0f;
    float f[12] = {1.0f, 1.0f, nan, nan, -0.0f, 0.0f, 2.0f, 2.0f, 2.0f, 1.0f, nan, 1.0f};
    const float want_v[8] = {1.0f, nan, nan, -0.0f, 2.0f, 1.0f, nan, 1.0f};
    const int64_t want_c[8] = {2, 1, 1, 2, 3, 1, 1, 1}, want_i[12] = {0, 0, 1, 2, 3, 3, 4, 4, 4, 5, 6, 7};
    uint64_t df = ctest_upload(g_dev, g_s, f, sizeof f);
    rs_tensor fs = rs_tensor_rows(df, RS_FLOAT32, 1, 12);
    CHECK_OK(rs_unique_count(g_s, &fs, 0, &u));
    CHECK(u.count == 8);
    rs_tensor fv = rs_tensor_rows(dv, RS_FLOAT32, 1, 8), fi = rs_tensor_rows(di, RS_INT64, 1, 12),
              fc = rs_tensor_rows(dc, RS_INT64, 1, 8);
    CHECK_OK(rs_unique_write(g_s, &u, &fv, &fi, &fc));
    float gv[8];
    CHECK_OK(rs_memcpy_dtoh(g_s, gv, dv, sizeof gv));
    CHECK_OK(rs_memcpy_dtoh(g_s, inv, di, 8u * 12));
    CHECK_OK(rs_memcpy_dtoh(g_s, cnt, dc, 8u * 8));
    bad = 0;
    for (int j = 0; j < 8; ++j)
        bad += (memcmp(&gv[j], &want_v[j], 4) != 0 && !(gv[j] != gv[j] && want_v[j] != want_v[j])) +
               (cnt[j] != want_c[j]);
    for (int i = 0; i < 12; ++i) bad += inv[i] != want_i[i];
    CHECK(bad == 0);

    /* values of the wrong size: refused, and the scratch freed (ASan's leak
     * check); only the values wanted (no inverse, no counts) */
    CHECK_OK(rs_unique_count(g_s, &src, 1, &u));
    rs_tensor short_v = rs_tensor_rows(dv, RS_INT32, 1, u.count - 1);
    CHECK(rs_unique_write(g_s, &u, &short_v, NULL, NULL) == RS_ERR_INVALID);
    CHECK_OK(rs_unique_count(g_s, &fs, 1, &u));
    CHECK(u.count == 6); /* -0 (== 0), 1, 2 and each of three NaNs (never equal) */
    rs_tensor fv6 = rs_tensor_rows(dv, RS_FLOAT32, 1, 6);
    CHECK_OK(rs_unique_write(g_s, &u, &fv6, NULL, NULL));
    free(x); free(sx); free(inv); free(cnt); free(vals);
    rs_free(g_dev, dx); rs_free(g_dev, dv); rs_free(g_dev, di); rs_free(g_dev, dc); rs_free(g_dev, df);
}

/* rows of 3 int32 values, compared lexicographically */
enum { UM = 3 };
static int cmp_row3(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    for (int j = 0; j < UM; ++j)
        if (x[j] != y[j]) return (x[j] > y[j]) - (x[j] < y[j]);
    return 0;
}

TEST(unique_rows) {
    enum { N = 700 };
    int32_t *x = malloc(sizeof(int32_t) * N * UM), *sx = malloc(sizeof(int32_t) * N * UM);
    int32_t *vals = malloc(sizeof(int32_t) * N * UM);
    int64_t *inv = malloc(8 * N), *cnt = malloc(8 * N);
    uint32_t seed = 11;
    for (int i = 0; i < N * UM; ++i) x[i] = (int32_t)((lcg(&seed) >> 16) % 4) - 2; /* many equal rows */
    memcpy(sx, x, sizeof(int32_t) * N * UM);
    qsort(sx, N, sizeof(int32_t) * UM, cmp_row3);
    int64_t k_ref = 0;
    for (int i = 0; i < N; ++i) k_ref += i == 0 || cmp_row3(sx + i * UM, sx + (i - 1) * UM) != 0;
    uint64_t dx = ctest_upload(g_dev, g_s, x, sizeof(int32_t) * N * UM), dv = 0, di = 0, dc = 0;
    rs_tensor src = rs_tensor_rows(dx, RS_INT32, N, UM);
    rs_unique u;
    CHECK_OK(rs_unique_rows_count(g_s, &src, 1, &u));
    CHECK(u.count == k_ref);
    const int64_t k = u.count;
    CHECK_OK(rs_alloc(g_dev, sizeof(int32_t) * UM * (uint64_t)k, g_s, &dv));
    CHECK_OK(rs_alloc(g_dev, 8u * N, g_s, &di));
    CHECK_OK(rs_alloc(g_dev, 8u * (uint64_t)k, g_s, &dc));
    rs_tensor tv = rs_tensor_rows(dv, RS_INT32, k, UM), ti = rs_tensor_vec(di, RS_INT64, N),
              tc = rs_tensor_vec(dc, RS_INT64, k);
    CHECK_OK(rs_unique_rows_write(g_s, &u, &tv, &ti, &tc));
    CHECK_OK(rs_memcpy_dtoh(g_s, vals, dv, sizeof(int32_t) * UM * (uint64_t)k));
    CHECK_OK(rs_memcpy_dtoh(g_s, inv, di, 8u * N));
    CHECK_OK(rs_memcpy_dtoh(g_s, cnt, dc, 8u * (uint64_t)k));
    int bad = 0;
    int64_t total = 0;
    for (int64_t j = 0; j < k; ++j) bad += j > 0 && cmp_row3(vals + j * UM, vals + (j - 1) * UM) <= 0, total += cnt[j];
    for (int i = 0; i < N; ++i) bad += inv[i] < 0 || inv[i] >= k || cmp_row3(vals + inv[i] * UM, x + i * UM) != 0;
    for (int64_t j = 0, i = 0; j < k; i += cnt[j], ++j) bad += cnt[j] < 1 || cmp_row3(sx + i * UM, vals + j * UM) != 0;
    CHECK(bad == 0 && total == N);

    /* consecutive runs of rows of 2 float32: NaN never equal, -0 == +0 */
    const float nan = 0.0f / 0.0f;
    const float f[12] = {1, 2, 1, 2, -0.0f, 5, 0.0f, 5, nan, 1, nan, 1};
    const int64_t want_c[4] = {2, 2, 1, 1}, want_i[6] = {0, 0, 1, 1, 2, 3};
    uint64_t df = ctest_upload(g_dev, g_s, f, sizeof f);
    rs_tensor fs = rs_tensor_rows(df, RS_FLOAT32, 6, 2);
    CHECK_OK(rs_unique_rows_count(g_s, &fs, 0, &u));
    CHECK(u.count == 4);
    rs_tensor fv = rs_tensor_rows(dv, RS_FLOAT32, 4, 2);
    ti = rs_tensor_vec(di, RS_INT64, 6), tc = rs_tensor_vec(dc, RS_INT64, 4);
    CHECK_OK(rs_unique_rows_write(g_s, &u, &fv, &ti, &tc));
    float gv[8];
    CHECK_OK(rs_memcpy_dtoh(g_s, gv, dv, sizeof gv));
    CHECK_OK(rs_memcpy_dtoh(g_s, inv, di, 8u * 6));
    CHECK_OK(rs_memcpy_dtoh(g_s, cnt, dc, 8u * 4));
    CHECK(memcmp(inv, want_i, sizeof want_i) == 0 && memcmp(cnt, want_c, sizeof want_c) == 0);
    CHECK(gv[0] == 1 && gv[1] == 2 && gv[2] == 0 && gv[3] == 5 && gv[4] != gv[4] && gv[7] == 1);

    /* not a matrix; a dtype without a sort key */
    rs_tensor flat = rs_tensor_vec(dx, RS_INT32, 8);
    CHECK(rs_unique_rows_count(g_s, &flat, 1, &u) == RS_ERR_INVALID);
    rs_tensor cx = rs_tensor_rows(dx, RS_COMPLEX64, 2, 2);
    CHECK(rs_unique_rows_count(g_s, &cx, 1, &u) == RS_ERR_UNSUPPORTED);
    rs_free(g_dev, dv), rs_free(g_dev, di), rs_free(g_dev, dc), rs_free(g_dev, dx), rs_free(g_dev, df);
    free(x), free(sx), free(vals), free(inv), free(cnt);
}

int main(void) {
    g_dev = ctest_device();
    if (rs_stream_get(g_dev, 0, &g_s) != RS_OK) {
        fprintf(stderr, "no stream: %s\n", rs_last_error());
        return 1;
    }
    RUN(cumsum_int32_to_int64_and_float);
    RUN(logcumsumexp_complex64);
    RUN(cummax_ties_and_nan);
    RUN(float64_scans);
    RUN(sort_short_rows);
    RUN(sort_short_rows_descending);
    RUN(sort_long_row);
    RUN(sort_long_rows_descending);
    RUN(sort_long_row_bitonic);
    RUN(sort_long_rows_rankings);
    RUN(sort_int64_and_median);
    RUN(masked_scatter_strided_broadcast);
    RUN(unique_sorted_and_consecutive);
    RUN(unique_rows);
    CTEST_END();
}
