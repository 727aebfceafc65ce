/* The linear-algebra engine (russet/linalg.h) without torch, against
 * double-precision references on the host: Cholesky (lower, and the upper
 * triangle through a transposed conjugated view; a matrix that is not
 * positive definite), LU with partial pivoting (square, tall, wide, a zero
 * pivot; pivots as a double-precision getf2 picks them), the triangular
 * solves (both triangles, unit diagonal, conjugated), the row interchanges,
 * QR and the Householder product (Q R = A, Q^H Q = I), ormqr (op(Q) C and
 * C op(Q) against the full Q), the Jacobi sweeps
 * (a known spectrum, orthogonal columns or a diagonal left, the Frobenius
 * norm kept), and what the ops assemble from them: lu_unpack (P L U = A),
 * det and slogdet (a singular matrix: 0, sign 0, -inf), eigvalsh reading
 * one triangle only, QR reduced and complete from a transposed view.
 * Batches of 3 with
 * sizes past the factorization's 64 invocations (columns dealt round-robin),
 * in float32 and complex64, and float64/complex128 where the device has
 * float64 arithmetic. Bad arguments fail clearly; a pivot out of range
 * raises the device error. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "engine/engine.h"

typedef double complex cplx;
enum { B = 3 };

static int is_complex(rs_dtype dt) { return dt == RS_COMPLEX64 || dt == RS_COMPLEX128; }
static int is_double(rs_dtype dt) { return dt == RS_FLOAT64 || dt == RS_COMPLEX128; }
static double tol_of(rs_dtype dt) { return is_double(dt) ? 1e-10 : 2e-4; }

/* host values <-> device bytes of dt (count elements) */
static void encode(rs_dtype dt, const cplx *v, size_t count, void *out) {
    for (size_t i = 0; i < count; ++i) {
        switch (dt) {
        case RS_FLOAT32: ((float *)out)[i] = (float)creal(v[i]); break;
        case RS_FLOAT64: ((double *)out)[i] = creal(v[i]); break;
        case RS_COMPLEX64: ((float *)out)[2 * i] = (float)creal(v[i]), ((float *)out)[2 * i + 1] = (float)cimag(v[i]); break;
        default: ((double *)out)[2 * i] = creal(v[i]), ((double *)out)[2 * i + 1] = cimag(v[i]); break;
        }
    }
}
static void decode(rs_dtype dt, const void *in, size_t count, cplx *v) {
    for (size_t i = 0; i < count; ++i) {
        switch (dt) {
        case RS_FLOAT32: v[i] = ((const float *)in)[i]; break;
        case RS_FLOAT64: v[i] = ((const double *)in)[i]; break;
        case RS_COMPLEX64: v[i] = ((const float *)in)[2 * i] + I * ((const float *)in)[2 * i + 1]; break;
        default: v[i] = ((const double *)in)[2 * i] + I * ((const double *)in)[2 * i + 1]; break;
        }
    }
}

/* v rounded to dt, as the device holds it */
static cplx as_dtype(rs_dtype dt, cplx v) {
    double bytes[2];
    encode(dt, &v, 1, bytes);
    decode(dt, bytes, 1, &v);
    return v;
}

/* a device buffer holding v (count elements of dt) */
static uint64_t upload(rs_device *dev, rs_stream *s, rs_dtype dt, const cplx *v, size_t count) {
    size_t bytes = count * rs_dtype_size(dt);
    void *buf = malloc(bytes ? bytes : 1);
    encode(dt, v, count, buf);
    uint64_t a = ctest_upload(dev, s, buf, bytes);
    free(buf);
    return a;
}
static rs_status download(rs_stream *s, rs_dtype dt, uint64_t a, size_t count, cplx *v) {
    size_t bytes = count * rs_dtype_size(dt);
    void *buf = malloc(bytes ? bytes : 1);
    rs_status st = rs_memcpy_dtoh(s, buf, a, bytes);
    decode(dt, buf, count, v);
    free(buf);
    return st;
}

static double noise(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) & 0xFFFF) / 32768.0 - 1.0;
}
/* P random (rows, cols) matrices, imaginary parts for complex dtypes */
static cplx *random_matrices(rs_dtype dt, int64_t rows, int64_t cols, unsigned seed) {
    cplx *v = malloc(sizeof(cplx) * (size_t)(B * rows * cols) + 1);
    for (int64_t i = 0; i < B * rows * cols; ++i) {
        double re = noise(&seed), im = noise(&seed);
        v[i] = re + (is_complex(dt) ? im * I : 0);
    }
    return v;
}
static double max_abs(const cplx *v, size_t count) {
    double m = 0;
    for (size_t i = 0; i < count; ++i) m = fmax(m, cabs(v[i]));
    return m;
}
#define AT(m, p, i, j, rows, cols) (m)[((p) * (rows) + (i)) * (cols) + (j)]

/* a (P, r, c) view's transpose (P, c, r): its last two dims swapped */
static rs_tensor transposed_view(rs_tensor t) {
    int64_t v = t.sizes[1];
    t.sizes[1] = t.sizes[2], t.sizes[2] = v;
    v = t.strides[1];
    t.strides[1] = t.strides[2], t.strides[2] = v;
    return t;
}

/* ---- Cholesky */
static void cholesky_case(rs_dtype dt, int64_t n) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    /* A = G G^H + n I: Hermitian positive definite; matrix 2's last diagonal
     * entry is made negative enough that it fails at column n - 1 */
    cplx *g = random_matrices(dt, n, n, 7u + (unsigned)n), *a = calloc((size_t)(B * n * n), sizeof(cplx));
    for (int p = 0; p < B; ++p)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = i == j ? (double)n : 0;
                for (int64_t q = 0; q < n; ++q) sum += AT(g, p, i, q, n, n) * conj(AT(g, p, j, q, n, n));
                AT(a, p, i, j, n, n) = sum;
            }
    AT(a, 2, n - 1, n - 1, n, n) = -1e4;
    /* matrix 1 fails at column 5 (past LA_BLOCK, 64: in the blocked
     * driver's first block, and the later blocks keep its info) */
    const int blocked = n > 64, fails_early = n > 8;
    if (fails_early) AT(a, 1, 5, 5, n, n) = -1e4;
    int64_t sz[3] = {B, n, n}, isz = B;
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n)), dl, di;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n * n) * rs_dtype_size(dt), s, &dl));
    CHECK_OK(rs_alloc(dev, B * 4, s, &di));
    rs_tensor ta = ctest_view(da, dt, 3, sz), tl = ctest_view(dl, dt, 3, sz), ti = ctest_view(di, RS_INT32, 1, &isz);
    cplx *l = malloc(sizeof(cplx) * (size_t)(B * n * n));
    for (int upper = 0; upper < 2; ++upper) {
        /* upper: the lower factor of A^H read through the transposed view, conjugated */
        rs_tensor src = ta;
        if (upper) src.strides[1] = 1, src.strides[2] = n;
        CHECK_OK(rs_cholesky(s, &src, upper, &tl, &ti));
        int32_t info[B];
        CHECK_OK(download(s, dt, dl, (size_t)(B * n * n), l));
        CHECK_OK(rs_memcpy_dtoh(s, info, di, sizeof info));
        CHECK(info[0] == 0 && info[1] == (fails_early ? 6 : 0) && info[2] == n);
        for (int p = 0; p < (fails_early ? 1 : 2); ++p) { /* L L^H = A (the lower triangle read) */
            double err = 0, scale = max_abs(a + p * n * n, (size_t)(n * n));
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    cplx sum = 0;
                    for (int64_t q = 0; q < n; ++q) sum += AT(l, p, i, q, n, n) * conj(AT(l, p, j, q, n, n));
                    err = fmax(err, cabs(sum - AT(a, p, i, j, n, n))); /* A is Hermitian */
                    if (i < j) CHECK(AT(l, p, i, j, n, n) == 0);
                }
            if (err > tol_of(dt) * scale) fprintf(stderr, "  cholesky %s n %lld: |L L^H - A| %g\n", rs_dtype_name(dt), (long long)n, err);
            CHECK(err <= tol_of(dt) * scale);
        }
        /* matrix 2: potf2's state, d on the diagonal of the failed column, A's values in it */
        CHECK(creal(AT(l, 2, n - 1, n - 1, n, n)) < -1e3 && cimag(AT(l, 2, n - 1, n - 1, n, n)) == 0);
        if (fails_early && !blocked) { /* matrix 1 likewise: d_5, then A's values from column 5 on */
            CHECK(creal(AT(l, 1, 5, 5, n, n)) < -1e3 && cimag(AT(l, 1, 5, 5, n, n)) == 0);
            for (int64_t j = 5; j < n; ++j)
                for (int64_t i = j; i < n; ++i)
                    if (i > 5) CHECK(AT(l, 1, i, j, n, n) == as_dtype(dt, AT(a, 1, i, j, n, n)));
        }
    }
    free(g), free(a), free(l);
    rs_free(dev, da), rs_free(dev, dl), rs_free(dev, di);
}

/* ---- LU; the reference: getf2 in double precision */
static void getf2(cplx *a, int64_t m, int64_t n, int32_t *piv, int32_t *info) {
    int64_t k = m < n ? m : n;
    *info = 0;
    for (int64_t j = 0; j < k; ++j) {
        int64_t r = j;
        double best = fabs(creal(a[j * n + j])) + fabs(cimag(a[j * n + j]));
        for (int64_t i = j + 1; i < m; ++i) {
            double v = fabs(creal(a[i * n + j])) + fabs(cimag(a[i * n + j]));
            if (v > best) best = v, r = i;
        }
        piv[j] = (int32_t)(r + 1);
        for (int64_t c = 0; c < n; ++c) {
            cplx t = a[j * n + c];
            a[j * n + c] = a[r * n + c], a[r * n + c] = t;
        }
        cplx pv = a[j * n + j];
        if (pv == 0) {
            if (*info == 0) *info = (int32_t)(j + 1);
            continue;
        }
        for (int64_t i = j + 1; i < m; ++i) a[i * n + j] /= pv;
        for (int64_t i = j + 1; i < m; ++i)
            for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= a[i * n + j] * a[j * n + c];
    }
}

/* where element e of row-major (B, m, n) matrices lies column by column */
static int64_t col_major_at(int64_t e, int64_t m, int64_t n) {
    const int64_t p = e / (m * n), i = e % (m * n) / n, j = e % n;
    return p * m * n + j * m + i;
}

/* col_major: a held column by column (strides (m n, 1, m), as LAPACK and
 * torch's LU hold it) */
static void lu_case_in(rs_dtype dt, int64_t m, int64_t n, int col_major) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n;
    cplx *a = random_matrices(dt, m, n, 11u + (unsigned)(m * 31 + n));
    /* matrix 2's column 0 is all zeros: a zero pivot at step 0 (info 1);
     * past 100 columns matrix 1's column 100 too (info 101, found by a later
     * block of the blocked driver) */
    for (int64_t i = 0; i < m; ++i) AT(a, 2, i, 0, m, n) = 0;
    if (k > 100)
        for (int64_t i = 0; i < m; ++i) AT(a, 1, i, 100, m, n) = 0;
    int64_t sz[3] = {B, m, n}, psz[2] = {B, k}, isz = B;
    cplx *lu = malloc(sizeof(cplx) * (size_t)(B * m * n)); /* a as uploaded, then the result */
    for (int64_t e = 0; e < B * m * n; ++e) lu[col_major ? col_major_at(e, m, n) : e] = a[e];
    uint64_t da = upload(dev, s, dt, lu, (size_t)(B * m * n)), dp, di;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * 4 + 4, s, &dp));
    CHECK_OK(rs_alloc(dev, B * 4, s, &di));
    rs_tensor ta = ctest_view(da, dt, 3, sz), tp = ctest_view(dp, RS_INT32, 2, psz), ti = ctest_view(di, RS_INT32, 1, &isz);
    if (col_major) ta.strides[1] = 1, ta.strides[2] = m;
    CHECK_OK(rs_lu_factor(s, &ta, &tp, &ti));
    int32_t *piv = malloc(sizeof(int32_t) * (size_t)(B * k) + 4), info[B];
    cplx *got = malloc(sizeof(cplx) * (size_t)(B * m * n));
    CHECK_OK(download(s, dt, da, (size_t)(B * m * n), got));
    for (int64_t e = 0; e < B * m * n; ++e) lu[e] = got[col_major ? col_major_at(e, m, n) : e];
    free(got);
    CHECK_OK(rs_memcpy_dtoh(s, piv, dp, (size_t)(B * k) * 4));
    CHECK_OK(rs_memcpy_dtoh(s, info, di, sizeof info));
    for (int p = 0; p < B; ++p) {
        cplx *ref = malloc(sizeof(cplx) * (size_t)(m * n));
        int32_t rpiv[256], rinfo;
        memcpy(ref, a + p * m * n, sizeof(cplx) * (size_t)(m * n));
        getf2(ref, m, n, rpiv, &rinfo);
        CHECK(info[p] == rinfo);
        for (int64_t j = 0; j < k; ++j) {
            if (piv[p * k + j] != rpiv[j]) fprintf(stderr, "  lu %s: matrix %d pivot %lld: %d, want %d\n", rs_dtype_name(dt), p, (long long)j, piv[p * k + j], rpiv[j]);
            CHECK(piv[p * k + j] == rpiv[j]);
        }
        double err = 0;
        for (int64_t i = 0; i < m * n; ++i) err = fmax(err, cabs(lu[p * m * n + i] - ref[i]));
        if (err > tol_of(dt) * 10) fprintf(stderr, "  lu %s %lldx%lld matrix %d: |LU - ref| %g\n", rs_dtype_name(dt), (long long)m, (long long)n, p, err);
        CHECK(err <= tol_of(dt) * 10);
        free(ref);
    }
    CHECK(info[2] == 1);
    if (k > 100) CHECK(info[1] == 101);

    /* the interchanges of matrix 0..2 applied to the identity's columns (P^T I), then undone */
    if (m == n) {
        int64_t xs[3] = {B, m, 2};
        cplx *x = calloc((size_t)(B * m * 2), sizeof(cplx)), *y = malloc(sizeof(cplx) * (size_t)(B * m * 2));
        for (int p = 0; p < B; ++p)
            for (int64_t i = 0; i < m; ++i) AT(x, p, i, 0, m, 2) = (double)i, AT(x, p, i, 1, m, 2) = -(double)i;
        uint64_t dx = upload(dev, s, dt, x, (size_t)(B * m * 2));
        rs_tensor tx = ctest_view(dx, dt, 3, xs);
        CHECK_OK(rs_lu_permute(s, &tp, 0, &tx));
        CHECK_OK(download(s, dt, dx, (size_t)(B * m * 2), y));
        for (int p = 0; p < B; ++p) {
            double want[256];
            for (int64_t i = 0; i < m; ++i) want[i] = (double)i;
            for (int64_t j = 0; j < k; ++j) {
                double t = want[j];
                want[j] = want[piv[p * k + j] - 1], want[piv[p * k + j] - 1] = t;
            }
            for (int64_t i = 0; i < m; ++i) CHECK(AT(y, p, i, 0, m, 2) == want[i] && AT(y, p, i, 1, m, 2) == -want[i]);
        }
        CHECK_OK(rs_lu_permute(s, &tp, 1, &tx));
        CHECK_OK(download(s, dt, dx, (size_t)(B * m * 2), y));
        for (int64_t i = 0; i < B * m * 2; ++i) CHECK(y[i] == x[i]);
        /* a pivot out of range: the device error at the sync */
        int32_t bad = (int32_t)m + 1;
        CHECK_OK(rs_memcpy_htod(s, dp, &bad, 4));
        CHECK_OK(rs_lu_permute(s, &tp, 0, &tx));
        CHECK(rs_stream_synchronize(s) == RS_ERR_DEVICE_ASSERT && strstr(rs_last_error(), "out of bounds"));
        free(x), free(y);
        rs_free(dev, dx);
    }
    free(a), free(lu), free(piv);
    rs_free(dev, da), rs_free(dev, dp), rs_free(dev, di);
}
static void lu_case(rs_dtype dt, int64_t m, int64_t n) { lu_case_in(dt, m, n, 0); }

/* ---- triangular solves: A X = B for every triangle and flag, A read through a transposed view */
static void trsm_case(rs_dtype dt, int64_t n, int64_t k) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    cplx *a = random_matrices(dt, n, n, 5u), *b = random_matrices(dt, n, k, 9u);
    /* well conditioned with a unit diagonal too: off-diagonal entries of order 1 / n */
    for (int p = 0; p < B; ++p)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) AT(a, p, i, j, n, n) = i == j ? AT(a, p, i, j, n, n) + 4.0 : AT(a, p, i, j, n, n) / (double)n;
    int64_t as[3] = {B, n, n}, bs[3] = {B, n, k};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n));
    cplx *x = malloc(sizeof(cplx) * (size_t)(B * n * k));
    for (int variant = 0; variant < 8; ++variant) {
        int upper = variant & 1, unit = (variant >> 1) & 1, transposed = (variant >> 2) & 1;
        uint64_t dx = upload(dev, s, dt, b, (size_t)(B * n * k));
        rs_tensor ta = ctest_view(da, dt, 3, as), tx = ctest_view(dx, dt, 3, bs);
        if (transposed) ta.strides[1] = 1, ta.strides[2] = n; /* op(A) = A^H with conj */
        CHECK_OK(rs_triangular_solve(s, &ta, transposed, upper, unit, &tx));
        CHECK_OK(download(s, dt, dx, (size_t)(B * n * k), x));
        for (int p = 0; p < B; ++p) {
            double err = 0;
            for (int64_t i = 0; i < n; ++i)
                for (int64_t c = 0; c < k; ++c) {
                    cplx sum = 0;
                    for (int64_t q = 0; q < n; ++q) {
                        if (upper ? q < i : q > i) continue;
                        cplx aiq = transposed ? conj(AT(a, p, q, i, n, n)) : AT(a, p, i, q, n, n);
                        if (q == i && unit) aiq = 1;
                        sum += aiq * AT(x, p, q, c, n, k);
                    }
                    err = fmax(err, cabs(sum - AT(b, p, i, c, n, k)));
                }
            if (err > tol_of(dt) * 10) fprintf(stderr, "  trsm %s variant %d: residual %g\n", rs_dtype_name(dt), variant, err);
            CHECK(err <= tol_of(dt) * 10);
        }
        rs_free(dev, dx);
    }
    free(a), free(b), free(x);
    rs_free(dev, da);
}

/* ---- QR: Q R = A and Q^H Q = I from geqrf and the Householder product */
static void qr_case(rs_dtype dt, int64_t m, int64_t n) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n;
    cplx *a = random_matrices(dt, m, n, 3u + (unsigned)m);
    int64_t sz[3] = {B, m, n}, ts[2] = {B, k}, qs[3] = {B, m, k};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * m * n)), dt_, dq;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * rs_dtype_size(dt), s, &dt_));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * k) * rs_dtype_size(dt), s, &dq));
    rs_tensor ta = ctest_view(da, dt, 3, sz), tt = ctest_view(dt_, dt, 2, ts), tq = ctest_view(dq, dt, 3, qs);
    CHECK_OK(rs_geqrf(s, &ta, &tt));
    CHECK_OK(rs_householder_product(s, &ta, &tt, &tq));
    cplx *r = malloc(sizeof(cplx) * (size_t)(B * m * n)), *q = malloc(sizeof(cplx) * (size_t)(B * m * k));
    CHECK_OK(download(s, dt, da, (size_t)(B * m * n), r));
    CHECK_OK(download(s, dt, dq, (size_t)(B * m * k), q));
    for (int p = 0; p < B; ++p) {
        double err = 0, orth = 0;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < k && c <= j; ++c) sum += AT(q, p, i, c, m, k) * AT(r, p, c, j, m, n);
                err = fmax(err, cabs(sum - AT(a, p, i, j, m, n)));
            }
        for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < k; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < m; ++c) sum += conj(AT(q, p, c, i, m, k)) * AT(q, p, c, j, m, k);
                orth = fmax(orth, cabs(sum - (i == j ? 1.0 : 0.0)));
            }
        if (err > tol_of(dt) * 10 || orth > tol_of(dt) * 10)
            fprintf(stderr, "  qr %s %lldx%lld: |QR - A| %g, |Q^H Q - I| %g\n", rs_dtype_name(dt), (long long)m, (long long)n, err, orth);
        CHECK(err <= tol_of(dt) * 10 && orth <= tol_of(dt) * 10);
    }
    free(a), free(r), free(q);
    rs_free(dev, da), rs_free(dev, dt_), rs_free(dev, dq);
}

/* rs_ormqr against op(Q) C or C op(Q) formed on the host from the full Q
 * (rs_householder_product with mq columns) of geqrf's reflectors of a
 * (B, mq, k) matrix; `other` is C's other dim */
static void ormqr_case(rs_dtype dt, int64_t mq, int64_t k, int64_t other, int left, int transpose) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t r = mq < k ? mq : k, m = left ? mq : other, n = left ? other : mq;
    const size_t es = rs_dtype_size(dt);
    cplx *a = random_matrices(dt, mq, k, 5u + (unsigned)mq), *c = random_matrices(dt, m, n, 9u + (unsigned)n);
    int64_t sa[3] = {B, mq, k}, st[2] = {B, r}, sq[3] = {B, mq, mq}, sc[3] = {B, m, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * mq * k)), dc = upload(dev, s, dt, c, (size_t)(B * m * n));
    uint64_t dtau, dq, dout;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * (r ? r : 1)) * es, s, &dtau));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * mq * mq) * es, s, &dq));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * n) * es, s, &dout));
    rs_tensor ta = ctest_view(da, dt, 3, sa), tt = ctest_view(dtau, dt, 2, st), tq = ctest_view(dq, dt, 3, sq);
    rs_tensor tc = ctest_view(dc, dt, 3, sc), to = ctest_view(dout, dt, 3, sc);
    CHECK_OK(rs_geqrf(s, &ta, &tt));
    CHECK_OK(rs_householder_product(s, &ta, &tt, &tq));
    CHECK_OK(rs_ormqr(s, &ta, &tt, &tc, left, transpose, &to));
    cplx *q = malloc(sizeof(cplx) * (size_t)(B * mq * mq)), *got = malloc(sizeof(cplx) * (size_t)(B * m * n));
    CHECK_OK(download(s, dt, dq, (size_t)(B * mq * mq), q));
    CHECK_OK(download(s, dt, dout, (size_t)(B * m * n), got));
    double err = 0;
    for (int p = 0; p < B; ++p)
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t l = 0; l < mq; ++l) {
                    /* op(Q)[x][y]: Q[x][y], or conj(Q[y][x]) transposed */
                    const int64_t x = left ? i : l, y = left ? l : j;
                    const cplx qv = transpose ? conj(AT(q, p, y, x, mq, mq)) : AT(q, p, x, y, mq, mq);
                    sum += left ? qv * AT(c, p, l, j, m, n) : AT(c, p, i, l, m, n) * qv;
                }
                err = fmax(err, cabs(sum - AT(got, p, i, j, m, n)));
            }
    if (err > tol_of(dt) * 10)
        fprintf(stderr, "  ormqr %s mq %lld k %lld left %d transpose %d: |err| %g\n", rs_dtype_name(dt),
                (long long)mq, (long long)k, left, transpose, err);
    CHECK(err <= tol_of(dt) * 10);
    /* out must have c's shape; v's rows must be c's rows (left) or columns */
    int64_t bad[3] = {B, m + 1, n};
    rs_tensor tb = ctest_view(dout, dt, 3, bad);
    CHECK(rs_ormqr(s, &ta, &tt, &tc, left, transpose, &tb) == RS_ERR_INVALID);
    free(a), free(c), free(q), free(got);
    rs_free(dev, da), rs_free(dev, dc), rs_free(dev, dtau), rs_free(dev, dq), rs_free(dev, dout);
}

/* ---- Jacobi: matrices of known spectrum, Q diag(lambda) V^H with Q, V
 * orthonormalized (Gram-Schmidt in double) from random matrices */
static void orthonormal(cplx *q, int64_t n, unsigned seed, int complex_) {
    for (int64_t i = 0; i < n * n; ++i) q[i] = noise(&seed) + (complex_ ? I * noise(&seed) * 0.5 : 0);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t k = 0; k < j; ++k) {
            cplx d = 0;
            for (int64_t i = 0; i < n; ++i) d += conj(q[i * n + k]) * q[i * n + j];
            for (int64_t i = 0; i < n; ++i) q[i * n + j] -= d * q[i * n + k];
        }
        double nrm = 0;
        for (int64_t i = 0; i < n; ++i) nrm += creal(q[i * n + j] * conj(q[i * n + j]));
        for (int64_t i = 0; i < n; ++i) q[i * n + j] /= sqrt(nrm);
    }
}
static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void jacobi_case(rs_dtype dt, int64_t n, int hermitian) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    cplx *q = malloc(sizeof(cplx) * (size_t)(n * n)), *v = malloc(sizeof(cplx) * (size_t)(n * n));
    cplx *a = malloc(sizeof(cplx) * (size_t)(B * n * n)), *out = malloc(sizeof(cplx) * (size_t)(B * n * n));
    double *want = malloc(sizeof(double) * (size_t)(B * n)), got[128];
    for (int p = 0; p < B; ++p) {
        orthonormal(q, n, 21u + (unsigned)p, is_complex(dt));
        orthonormal(v, n, 41u + (unsigned)p, is_complex(dt));
        for (int64_t k = 0; k < n; ++k) /* eigenvalues of both signs; singular values >= 0 */
            want[p * n + k] = hermitian ? (double)(k - n / 3) * 0.75 + 0.1 * p : (double)(k + 1) / n + p;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t k = 0; k < n; ++k)
                    sum += q[i * n + k] * want[p * n + k] * conj((hermitian ? q : v)[j * n + k]);
                AT(a, p, i, j, n, n) = sum;
            }
    }
    int64_t sz[3] = {B, n, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n));
    rs_tensor ta = ctest_view(da, dt, 3, sz);
    int sweeps = rs_jacobi_sweeps(n);
    CHECK(sweeps == 6 + (n == 6 ? 3 : 6)); /* 6 + ceil(log2 n) */
    CHECK_OK(hermitian ? rs_jacobi_eigh(s, &ta, NULL, sweeps) : rs_jacobi_svd_columns(s, &ta, NULL, sweeps));
    CHECK_OK(download(s, dt, da, (size_t)(B * n * n), out));
    for (int p = 0; p < B; ++p) {
        double fro = 0, off = 0, scale = 0;
        for (int64_t k = 0; k < n; ++k) {
            if (hermitian) {
                got[k] = creal(AT(out, p, k, k, n, n));
                for (int64_t j = 0; j < n; ++j)
                    if (j != k) off = fmax(off, cabs(AT(out, p, k, j, n, n)));
            } else {
                double nrm = 0;
                for (int64_t i = 0; i < n; ++i) nrm += creal(AT(out, p, i, k, n, n) * conj(AT(out, p, i, k, n, n)));
                got[k] = sqrt(nrm);
                for (int64_t j = k + 1; j < n; ++j) { /* the columns are orthogonal */
                    cplx d = 0;
                    for (int64_t i = 0; i < n; ++i) d += conj(AT(out, p, i, k, n, n)) * AT(out, p, i, j, n, n);
                    off = fmax(off, cabs(d));
                }
            }
        }
        for (int64_t i = 0; i < n * n; ++i) fro += creal(a[p * n * n + i] * conj(a[p * n * n + i]));
        qsort(got, (size_t)n, sizeof(double), by_value);
        scale = sqrt(fro);
        double err = 0, sum_sq = 0;
        for (int64_t k = 0; k < n; ++k) sum_sq += got[k] * got[k];
        for (int64_t k = 0; k < n; ++k) err = fmax(err, fabs(got[k] - want[p * n + k]));
        /* the Frobenius norm is kept (sum of lambda^2 or sigma^2) and the couplings are rotated
         * away, down to the threshold that leaves one alone (2^-26 relative: its effect on the
         * spectrum is of order 2^-52) */
        double tol = tol_of(dt) * 5, off_tol = fmax(tol, 1e-7);
        if (err > tol * scale || fabs(sum_sq - fro) > tol * fro || off > off_tol * fro)
            fprintf(stderr, "  jacobi %s %s n %lld: spectrum %g, |F|^2 %g vs %g, off %g\n", hermitian ? "eigh" : "svd",
                    rs_dtype_name(dt), (long long)n, err, sum_sq, fro, off);
        CHECK(err <= tol * scale && fabs(sum_sq - fro) <= tol * fro && off <= off_tol * fro);
    }
    /* an odd n or a non-square h: refused */
    int64_t odd[3] = {B, n, n - 1};
    rs_tensor bad = ctest_view(da, dt, 3, odd);
    CHECK(rs_jacobi_svd_columns(s, &bad, NULL, 1) == RS_ERR_INVALID && rs_jacobi_eigh(s, &bad, NULL, 1) == RS_ERR_INVALID);
    free(q), free(v), free(a), free(out), free(want);
    rs_free(dev, da);
}

/* ---- the solves from the factors: rs_lu_solve (A X = B and A^H X = B)
 * after rs_lu_factor, rs_cholesky_solve from the lower factor and from the
 * upper one (U = L^H), checked by their residuals */
static double residual(const cplx *a, const cplx *x, const cplx *b, int p, int64_t n, int64_t k, int adjoint) {
    double err = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < k; ++c) {
            cplx sum = 0;
            for (int64_t q = 0; q < n; ++q)
                sum += (adjoint ? conj(AT(a, p, q, i, n, n)) : AT(a, p, i, q, n, n)) * AT(x, p, q, c, n, k);
            err = fmax(err, cabs(sum - AT(b, p, i, c, n, k)));
        }
    return err;
}

static void solve_case(rs_dtype dt, int64_t n, int64_t k) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const size_t nn = (size_t)(B * n * n), nk = (size_t)(B * n * k);
    cplx *a = random_matrices(dt, n, n, 13u + (unsigned)n), *b = random_matrices(dt, n, k, 17u);
    cplx *spd = calloc(nn, sizeof(cplx)), *f = malloc(sizeof(cplx) * nn), *x = malloc(sizeof(cplx) * nk);
    for (int p = 0; p < B; ++p) /* spd = a a^H + n I (Hermitian positive definite) */
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = i == j ? (double)n : 0;
                for (int64_t q = 0; q < n; ++q) sum += AT(a, p, i, q, n, n) * conj(AT(a, p, j, q, n, n));
                AT(spd, p, i, j, n, n) = sum;
            }
    int64_t as[3] = {B, n, n}, bs[3] = {B, n, k}, ps[2] = {B, n}, is = B;
    uint64_t dlu = upload(dev, s, dt, a, nn), dp, di, dx;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n) * 4, s, &dp));
    CHECK_OK(rs_alloc(dev, B * 4, s, &di));
    rs_tensor tlu = ctest_view(dlu, dt, 3, as), tp = ctest_view(dp, RS_INT32, 2, ps), ti = ctest_view(di, RS_INT32, 1, &is);
    CHECK_OK(rs_lu_factor(s, &tlu, &tp, &ti));
    const double tol = tol_of(dt) * 10 * n;
    for (int adjoint = 0; adjoint < 2; ++adjoint) {
        dx = upload(dev, s, dt, b, nk);
        rs_tensor tx = ctest_view(dx, dt, 3, bs);
        CHECK_OK(rs_lu_solve(s, &tlu, &tp, adjoint, &tx));
        CHECK_OK(download(s, dt, dx, nk, x));
        for (int p = 0; p < B; ++p) {
            double err = residual(a, x, b, p, n, k, adjoint);
            if (err > tol) fprintf(stderr, "  lu_solve %s adjoint %d: residual %g\n", rs_dtype_name(dt), adjoint, err);
            CHECK(err <= tol);
        }
        rs_free(dev, dx);
    }
    /* Cholesky: the lower factor, then U = L^H made on the host */
    uint64_t da = upload(dev, s, dt, spd, nn), dl, du;
    CHECK_OK(rs_alloc(dev, nn * rs_dtype_size(dt), s, &dl));
    rs_tensor ta = ctest_view(da, dt, 3, as), tl = ctest_view(dl, dt, 3, as);
    CHECK_OK(rs_cholesky(s, &ta, 0, &tl, &ti));
    CHECK_OK(download(s, dt, dl, nn, f));
    for (int p = 0; p < B; ++p)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < i; ++j) { /* f <- f^H */
                cplx t = AT(f, p, i, j, n, n);
                AT(f, p, i, j, n, n) = conj(AT(f, p, j, i, n, n)), AT(f, p, j, i, n, n) = conj(t);
            }
    for (int p = 0; p < B; ++p)
        for (int64_t i = 0; i < n; ++i) AT(f, p, i, i, n, n) = conj(AT(f, p, i, i, n, n));
    du = upload(dev, s, dt, f, nn);
    for (int upper = 0; upper < 2; ++upper) {
        dx = upload(dev, s, dt, b, nk);
        rs_tensor tx = ctest_view(dx, dt, 3, bs), tf = ctest_view(upper ? du : dl, dt, 3, as);
        CHECK_OK(rs_cholesky_solve(s, &tf, upper, &tx));
        CHECK_OK(download(s, dt, dx, nk, x));
        for (int p = 0; p < B; ++p) {
            double err = residual(spd, x, b, p, n, k, 0) / n;
            if (err > tol) fprintf(stderr, "  cholesky_solve %s upper %d: residual %g\n", rs_dtype_name(dt), upper, err);
            CHECK(err <= tol);
        }
        rs_free(dev, dx);
    }
    free(a), free(b), free(spd), free(f), free(x);
    rs_free(dev, dlu), rs_free(dev, dp), rs_free(dev, di), rs_free(dev, da), rs_free(dev, dl), rs_free(dev, du);
}

/* ---- rs_svdvals: A = Q diag(sigma) V^H with known sigma, tall, wide
 * (through the transposed view) and odd; descending values */
static void svdvals_case(rs_dtype dt, int64_t m, int64_t n) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n;
    cplx *q = malloc(sizeof(cplx) * (size_t)(m * m)), *v = malloc(sizeof(cplx) * (size_t)(n * n));
    cplx *a = malloc(sizeof(cplx) * (size_t)(B * m * n));
    double sigma[B][64];
    for (int p = 0; p < B; ++p) {
        orthonormal(q, m, 51u + (unsigned)p, is_complex(dt));
        orthonormal(v, n, 61u + (unsigned)p, is_complex(dt));
        for (int64_t j = 0; j < k; ++j) sigma[p][j] = 3.0 - 2.5 * (double)j / (double)k + 0.25 * p; /* descending */
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < k; ++c) sum += q[i * m + c] * sigma[p][c] * conj(v[j * n + c]);
                AT(a, p, i, j, m, n) = sum;
            }
    }
    int64_t as[3] = {B, m, n}, os[2] = {B, k};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * m * n)), dout;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * 4, s, &dout));
    rs_tensor ta = ctest_view(da, dt, 3, as), to = ctest_view(dout, RS_FLOAT32, 2, os);
    CHECK_OK(rs_svdvals(s, &ta, &to));
    float got[B * 64];
    CHECK_OK(rs_memcpy_dtoh(s, got, dout, (size_t)(B * k) * 4));
    CHECK_OK(rs_stream_synchronize(s));
    double err = 0;
    for (int p = 0; p < B; ++p)
        for (int64_t j = 0; j < k; ++j) err = fmax(err, fabs(got[p * k + j] - sigma[p][j]));
    if (err > 1e-5 * 4) fprintf(stderr, "  svdvals %s %lldx%lld: error %g\n", rs_dtype_name(dt), (long long)m, (long long)n, err);
    CHECK(err <= 1e-5 * 4);
    /* refused: float64, an output of the wrong shape */
    rs_tensor bad = to;
    bad.sizes[1] = k + 1;
    CHECK(rs_svdvals(s, &ta, &bad) == RS_ERR_INVALID);
    free(q), free(v), free(a);
    rs_free(dev, da), rs_free(dev, dout);
}

/* ---- what the ops assemble: lu_unpack (P L U = A), det and slogdet,
 * eigvalsh from one triangle, QR (reduced and complete) */
static void unpack_det_case(rs_dtype dt, int64_t m, int64_t n) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n;
    cplx *a = random_matrices(dt, m, n, 71u + (unsigned)(m * 7 + n));
    for (int64_t i = 0; i < m; ++i) AT(a, 2, i, 0, m, n) = 0; /* matrix 2 singular */
    int64_t sz[3] = {B, m, n}, psz[2] = {B, k}, isz = B, ls[3] = {B, m, k}, us[3] = {B, k, n}, ps[3] = {B, m, m};
    const size_t es = rs_dtype_size(dt);
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * m * n)), dp, di, dl, du, dpm;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * 4 + 4, s, &dp));
    CHECK_OK(rs_alloc(dev, B * 4, s, &di));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * k) * es + 1, s, &dl));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k * n) * es + 1, s, &du));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * m) * es + 1, s, &dpm));
    rs_tensor ta = ctest_view(da, dt, 3, sz), tp = ctest_view(dp, RS_INT32, 2, psz), ti = ctest_view(di, RS_INT32, 1, &isz);
    rs_tensor tl = ctest_view(dl, dt, 3, ls), tu = ctest_view(du, dt, 3, us), tpm = ctest_view(dpm, dt, 3, ps);
    CHECK_OK(rs_lu_factor(s, &ta, &tp, &ti));
    CHECK_OK(rs_lu_unpack(s, &ta, &tp, &tpm, &tl, &tu));
    cplx *l = malloc(sizeof(cplx) * (size_t)(B * m * k) + 1), *u = malloc(sizeof(cplx) * (size_t)(B * k * n) + 1);
    cplx *pm = malloc(sizeof(cplx) * (size_t)(B * m * m) + 1);
    CHECK_OK(download(s, dt, dl, (size_t)(B * m * k), l));
    CHECK_OK(download(s, dt, du, (size_t)(B * k * n), u));
    CHECK_OK(download(s, dt, dpm, (size_t)(B * m * m), pm));
    for (int p = 0; p < B; ++p) {
        double err = 0;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < k; ++j) {
                cplx v = AT(l, p, i, j, m, k);
                CHECK(i > j || v == (i == j ? 1.0 : 0.0)); /* unit lower */
            }
        for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < i && j < n; ++j) CHECK(AT(u, p, i, j, k, n) == 0.0);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t r = 0; r < m; ++r) {
                    if (AT(pm, p, i, r, m, m) == 0.0) continue;
                    for (int64_t c = 0; c < k; ++c) sum += AT(pm, p, i, r, m, m) * AT(l, p, r, c, m, k) * AT(u, p, c, j, k, n);
                }
                err = fmax(err, cabs(sum - AT(a, p, i, j, m, n)));
            }
        if (err > tol_of(dt) * 10) fprintf(stderr, "  lu_unpack %s %lldx%lld matrix %d: |PLU - A| %g\n", rs_dtype_name(dt), (long long)m, (long long)n, p, err);
        CHECK(err <= tol_of(dt) * 10);
    }
    if (m == n) {
        /* det and slogdet against the host's getf2 */
        const rs_dtype rdt = is_complex(dt) ? (is_double(dt) ? RS_FLOAT64 : RS_FLOAT32) : dt;
        int64_t bs = B;
        uint64_t dd, dsg, dla;
        CHECK_OK(rs_alloc(dev, B * es, s, &dd));
        CHECK_OK(rs_alloc(dev, B * es, s, &dsg));
        CHECK_OK(rs_alloc(dev, B * rs_dtype_size(rdt), s, &dla));
        rs_tensor td = ctest_view(dd, dt, 1, &bs), tsg = ctest_view(dsg, dt, 1, &bs), tla = ctest_view(dla, rdt, 1, &bs);
        CHECK_OK(rs_det(s, &ta, &tp, &td, NULL, NULL));
        CHECK_OK(rs_det(s, &ta, &tp, NULL, &tsg, &tla));
        cplx det[B], sign[B], logabs[B];
        CHECK_OK(download(s, dt, dd, B, det));
        CHECK_OK(download(s, dt, dsg, B, sign));
        CHECK_OK(download(s, rdt, dla, B, logabs));
        for (int p = 0; p < B; ++p) {
            cplx *ref = malloc(sizeof(cplx) * (size_t)(n * n));
            int32_t rpiv[256], rinfo;
            memcpy(ref, a + p * n * n, sizeof(cplx) * (size_t)(n * n));
            getf2(ref, n, n, rpiv, &rinfo);
            cplx want = 1;
            for (int64_t j = 0; j < n; ++j) want *= ref[j * n + j] * (rpiv[j] != j + 1 ? -1.0 : 1.0);
            const double mag = cabs(want);
            if (p == 2) {
                CHECK(det[p] == 0.0 && sign[p] == 0.0 && isinf(creal(logabs[p])) && creal(logabs[p]) < 0);
            } else {
                const double tol = tol_of(dt) * 10;
                if (cabs(det[p] - want) > tol * mag || cabs(sign[p] - want / mag) > tol || fabs(creal(logabs[p]) - log(mag)) > tol)
                    fprintf(stderr, "  det %s n %lld matrix %d: det %g%+gi want %g%+gi, logabs %g want %g\n", rs_dtype_name(dt),
                            (long long)n, p, creal(det[p]), cimag(det[p]), creal(want), cimag(want), creal(logabs[p]), log(mag));
                CHECK(cabs(det[p] - want) <= tol * mag && cabs(sign[p] - want / mag) <= tol &&
                      fabs(creal(logabs[p]) - log(mag)) <= tol);
            }
            free(ref);
        }
        /* refused: a det of another dtype, sign without logabsdet */
        rs_tensor bad = td;
        bad.dtype = RS_INT32;
        CHECK(rs_det(s, &ta, &tp, &bad, NULL, NULL) == RS_ERR_INVALID);
        CHECK(rs_det(s, &ta, &tp, NULL, &tsg, NULL) == RS_ERR_INVALID);
        rs_free(dev, dd), rs_free(dev, dsg), rs_free(dev, dla);
    }
    free(a), free(l), free(u), free(pm);
    rs_free(dev, da), rs_free(dev, dp), rs_free(dev, di), rs_free(dev, dl), rs_free(dev, du), rs_free(dev, dpm);
}

/* eigvalsh: the Hermitian matrices of a known spectrum, the other triangle
 * and the diagonal's imaginary parts filled with garbage (never read) */
static void eigvalsh_case(rs_dtype dt, int64_t n, int upper) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    cplx *q = malloc(sizeof(cplx) * (size_t)(n * n)), *a = malloc(sizeof(cplx) * (size_t)(B * n * n));
    double *want = malloc(sizeof(double) * (size_t)(B * n));
    unsigned seed = 5u;
    for (int p = 0; p < B; ++p) {
        orthonormal(q, n, 81u + (unsigned)p, is_complex(dt));
        for (int64_t k = 0; k < n; ++k) want[p * n + k] = (double)(k - n / 2) * 0.5 + 0.05 * p; /* ascending */
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t k = 0; k < n; ++k) sum += q[i * n + k] * want[p * n + k] * conj(q[j * n + k]);
                const int read = upper ? j >= i : j <= i;
                AT(a, p, i, j, n, n) = read ? sum : 9.0 * noise(&seed);
                if (i == j && is_complex(dt)) AT(a, p, i, j, n, n) += 7.0 * I;
            }
    }
    int64_t sz[3] = {B, n, n}, os[2] = {B, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n)), dout;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n) * 4, s, &dout));
    rs_tensor ta = ctest_view(da, dt, 3, sz), to = ctest_view(dout, RS_FLOAT32, 2, os);
    CHECK_OK(rs_eigvalsh(s, &ta, upper, &to));
    float got[B * 64];
    CHECK_OK(rs_memcpy_dtoh(s, got, dout, (size_t)(B * n) * 4));
    CHECK_OK(rs_stream_synchronize(s));
    double err = 0;
    for (int64_t i = 0; i < B * n; ++i) err = fmax(err, fabs(got[i] - want[i]));
    if (err > 1e-4) fprintf(stderr, "  eigvalsh %s n %lld upper %d: error %g\n", rs_dtype_name(dt), (long long)n, upper, err);
    CHECK(err <= 1e-4);
    rs_tensor bad = to;
    bad.sizes[1] = n + 1;
    CHECK(rs_eigvalsh(s, &ta, upper, &bad) == RS_ERR_INVALID);
    free(q), free(a), free(want);
    rs_free(dev, da), rs_free(dev, dout);
}

/* max |X^H X - I| over X's k columns (rows x cols row-major, matrix p) */
static double orthonormality(const cplx *x, int p, int64_t rows, int64_t cols, int64_t k) {
    double err = 0;
    for (int64_t a = 0; a < k; ++a)
        for (int64_t b = 0; b < k; ++b) {
            cplx d = 0;
            for (int64_t i = 0; i < rows; ++i) d += conj(AT(x, p, i, a, rows, cols)) * AT(x, p, i, b, rows, cols);
            err = fmax(err, cabs(d - (a == b ? 1.0 : 0.0)));
        }
    return err;
}

/* rs_svd with vectors: A = Q diag(sigma) V^H of known sigma (the last
 * `zeros` of them 0: rank deficient), reduced and full, tall, wide and
 * odd: S as sigma, U S V^H = A, U's and V's columns orthonormal (all of
 * them: the full basis, and where sigma is 0) */
static void svd_case(rs_dtype dt, int64_t m, int64_t n, int full, int zeros) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
    cplx *q = malloc(sizeof(cplx) * (size_t)(m * m)), *v = malloc(sizeof(cplx) * (size_t)(n * n));
    cplx *a = malloc(sizeof(cplx) * (size_t)(B * m * n));
    double sigma[B][64];
    for (int p = 0; p < B; ++p) {
        orthonormal(q, m, 151u + (unsigned)p, is_complex(dt));
        orthonormal(v, n, 161u + (unsigned)p, is_complex(dt));
        for (int64_t j = 0; j < k; ++j) sigma[p][j] = j >= k - zeros ? 0.0 : 3.0 - 2.5 * (double)j / (double)k + 0.25 * p;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < k; ++c) sum += q[i * m + c] * sigma[p][c] * conj(v[j * n + c]);
                AT(a, p, i, j, m, n) = sum;
            }
    }
    const size_t es = rs_dtype_size(dt);
    int64_t as[3] = {B, m, n}, ss[2] = {B, k}, us[3] = {B, m, uc}, vs[3] = {B, vr, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * m * n)), dsv, du, dvh;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * 4 + 4, s, &dsv));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * uc) * es + 4, s, &du));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * vr * n) * es + 4, s, &dvh));
    rs_tensor ta = ctest_view(da, dt, 3, as), tsv = ctest_view(dsv, RS_FLOAT32, 2, ss);
    rs_tensor tu = ctest_view(du, dt, 3, us), tvh = ctest_view(dvh, dt, 3, vs);
    CHECK_OK(rs_svd(s, &ta, full, &tsv, &tu, &tvh));
    float sv[B * 64];
    cplx *u = malloc(sizeof(cplx) * (size_t)(B * m * uc) + 1), *vh = malloc(sizeof(cplx) * (size_t)(B * vr * n) + 1);
    CHECK_OK(rs_memcpy_dtoh(s, sv, dsv, (size_t)(B * k) * 4));
    CHECK_OK(download(s, dt, du, (size_t)(B * m * uc), u));
    CHECK_OK(download(s, dt, dvh, (size_t)(B * vr * n), vh));
    double e_s = 0, e_a = 0, e_u = 0, e_v = 0;
    cplx *vt = malloc(sizeof(cplx) * (size_t)(B * n * vr) + 1); /* V = Vh^H, n x vr */
    for (int p = 0; p < B; ++p) {
        for (int64_t j = 0; j < k; ++j) e_s = fmax(e_s, fabs(sv[p * k + j] - sigma[p][j]));
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < k; ++c) sum += AT(u, p, i, c, m, uc) * sv[p * k + c] * AT(vh, p, c, j, vr, n);
                e_a = fmax(e_a, cabs(sum - AT(a, p, i, j, m, n)));
            }
        for (int64_t i = 0; i < vr; ++i)
            for (int64_t j = 0; j < n; ++j) AT(vt, p, j, i, n, vr) = conj(AT(vh, p, i, j, vr, n));
        e_u = fmax(e_u, orthonormality(u, p, m, uc, uc));
        e_v = fmax(e_v, orthonormality(vt, p, n, vr, vr));
    }
    const double tol = 1e-5 * 4 * (double)(m > n ? m : n);
    if (e_s > 4e-5 || e_a > tol || e_u > tol || e_v > tol)
        fprintf(stderr, "  svd %s %lldx%lld full %d zeros %d: S %g, U S V^H %g, U %g, V %g\n", rs_dtype_name(dt),
                (long long)m, (long long)n, full, zeros, e_s, e_a, e_u, e_v);
    CHECK(e_s <= 4e-5 && e_a <= tol && e_u <= tol && e_v <= tol);
    /* refused: u without vh, a u of the wrong width */
    CHECK(rs_svd(s, &ta, full, &tsv, &tu, NULL) == RS_ERR_INVALID);
    rs_tensor bad = tu;
    bad.sizes[2] = uc + 1;
    CHECK(rs_svd(s, &ta, full, &tsv, &bad, &tvh) == RS_ERR_INVALID);
    free(q), free(v), free(a), free(u), free(vh), free(vt);
    rs_free(dev, da), rs_free(dev, dsv), rs_free(dev, du), rs_free(dev, dvh);
}

/* rs_eigh with vectors: A V = V diag(w), V^H V = I, w as the known
 * spectrum, from one triangle (the other garbage) */
static void eigh_case(rs_dtype dt, int64_t n, int upper) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    cplx *q = malloc(sizeof(cplx) * (size_t)(n * n)), *a = malloc(sizeof(cplx) * (size_t)(B * n * n));
    cplx *full_a = malloc(sizeof(cplx) * (size_t)(B * n * n)), *v = malloc(sizeof(cplx) * (size_t)(B * n * n));
    double *want = malloc(sizeof(double) * (size_t)(B * n));
    unsigned seed = 9u;
    for (int p = 0; p < B; ++p) {
        orthonormal(q, n, 181u + (unsigned)p, is_complex(dt));
        for (int64_t k = 0; k < n; ++k) want[p * n + k] = (double)(k - n / 2) * 0.5 + 0.05 * p;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t k = 0; k < n; ++k) sum += q[i * n + k] * want[p * n + k] * conj(q[j * n + k]);
                AT(full_a, p, i, j, n, n) = sum;
                AT(a, p, i, j, n, n) = (upper ? j >= i : j <= i) ? sum : 9.0 * noise(&seed);
            }
    }
    int64_t sz[3] = {B, n, n}, os[2] = {B, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n)), dw, dv;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n) * 4, s, &dw));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n * n) * rs_dtype_size(dt), s, &dv));
    rs_tensor ta = ctest_view(da, dt, 3, sz), tw = ctest_view(dw, RS_FLOAT32, 2, os), tv = ctest_view(dv, dt, 3, sz);
    CHECK_OK(rs_eigh(s, &ta, upper, &tw, &tv));
    float w[B * 64];
    CHECK_OK(rs_memcpy_dtoh(s, w, dw, (size_t)(B * n) * 4));
    CHECK_OK(download(s, dt, dv, (size_t)(B * n * n), v));
    double e_w = 0, e_r = 0, e_o = 0;
    for (int p = 0; p < B; ++p) {
        for (int64_t k = 0; k < n; ++k) e_w = fmax(e_w, fabs(w[p * n + k] - want[p * n + k]));
        for (int64_t i = 0; i < n; ++i)
            for (int64_t k = 0; k < n; ++k) {
                cplx sum = 0;
                for (int64_t j = 0; j < n; ++j) sum += AT(full_a, p, i, j, n, n) * AT(v, p, j, k, n, n);
                e_r = fmax(e_r, cabs(sum - AT(v, p, i, k, n, n) * w[p * n + k]));
            }
        e_o = fmax(e_o, orthonormality(v, p, n, n, n));
    }
    const double tol = 1e-5 * 4 * (double)n;
    if (e_w > 1e-4 || e_r > tol || e_o > tol)
        fprintf(stderr, "  eigh %s n %lld upper %d: w %g, A V - V w %g, V^H V - I %g\n", rs_dtype_name(dt), (long long)n,
                upper, e_w, e_r, e_o);
    CHECK(e_w <= 1e-4 && e_r <= tol && e_o <= tol);
    rs_tensor bad = tv;
    bad.sizes[2] = n + 1;
    CHECK(rs_eigh(s, &ta, upper, &tw, &bad) == RS_ERR_INVALID);
    free(q), free(a), free(full_a), free(v), free(want);
    rs_free(dev, da), rs_free(dev, dw), rs_free(dev, dv);
}

/* rs_qr of a transposed (column-major) view: Q R = A, R upper, Q^H Q = I */
static void qr_assembly_case(rs_dtype dt, int64_t m, int64_t n, int complete) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t k = m < n ? m : n, rr = complete ? m : k, qc = complete ? m : k;
    cplx *at = random_matrices(dt, n, m, 91u + (unsigned)(m + n)); /* A^T, row-major */
    int64_t tsz[3] = {B, n, m}, rs_[3] = {B, rr, n}, qs[3] = {B, m, qc};
    uint64_t da = upload(dev, s, dt, at, (size_t)(B * m * n)), dq, dr;
    const size_t es = rs_dtype_size(dt);
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * m * qc) * es + 1, s, &dq));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * rr * n) * es + 1, s, &dr));
    rs_tensor ta = transposed_view(ctest_view(da, dt, 3, tsz)), tq = ctest_view(dq, dt, 3, qs), tr = ctest_view(dr, dt, 3, rs_);
    CHECK_OK(rs_qr(s, &ta, &tq, &tr));
    cplx *q = malloc(sizeof(cplx) * (size_t)(B * m * qc) + 1), *r = malloc(sizeof(cplx) * (size_t)(B * rr * n) + 1);
    CHECK_OK(download(s, dt, dq, (size_t)(B * m * qc), q));
    CHECK_OK(download(s, dt, dr, (size_t)(B * rr * n), r));
    for (int p = 0; p < B; ++p) {
        double err = 0, orth = 0;
        for (int64_t i = 0; i < rr; ++i)
            for (int64_t j = 0; j < i && j < n; ++j) CHECK(AT(r, p, i, j, rr, n) == 0.0);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < rr; ++c) sum += AT(q, p, i, c, m, qc) * AT(r, p, c, j, rr, n);
                err = fmax(err, cabs(sum - AT(at, p, j, i, n, m)));
            }
        for (int64_t i = 0; i < qc; ++i)
            for (int64_t j = 0; j < qc; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < m; ++c) sum += conj(AT(q, p, c, i, m, qc)) * AT(q, p, c, j, m, qc);
                orth = fmax(orth, cabs(sum - (i == j ? 1.0 : 0.0)));
            }
        if (err > tol_of(dt) * 10 || orth > tol_of(dt) * 10)
            fprintf(stderr, "  rs_qr %s %lldx%lld complete %d: |QR - A| %g, |Q^H Q - I| %g\n", rs_dtype_name(dt),
                    (long long)m, (long long)n, complete, err, orth);
        CHECK(err <= tol_of(dt) * 10 && orth <= tol_of(dt) * 10);
    }
    /* R alone; a q of neither width refused */
    CHECK_OK(rs_qr(s, &ta, NULL, &tr));
    rs_tensor bad = tq;
    bad.sizes[2] = qc + 1;
    CHECK(rs_qr(s, &ta, &bad, NULL) == RS_ERR_INVALID);
    CHECK_OK(rs_stream_synchronize(s));
    free(at), free(q), free(r);
    rs_free(dev, da), rs_free(dev, dq), rs_free(dev, dr);
}

/* every case for one dtype; float64 kinds only where the device computes them */
/* rs_lstsq: a = Q diag(sigma) V^H with `zeros` zero values; the
 * minimum-norm x = V diag(1 / sigma) Q^H b (zeros cut), its rank, the
 * values, |a x - b|^2 per column and gels's full-rank flag, against the
 * same computed here in double */
static void lstsq_case(rs_dtype dt, int64_t m, int64_t n, int64_t k, int zeros) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const int64_t kk = m < n ? m : n;
    cplx *q = malloc(sizeof(cplx) * (size_t)(m * m)), *v = malloc(sizeof(cplx) * (size_t)(n * n));
    cplx *a = malloc(sizeof(cplx) * (size_t)(B * m * n)), *want = calloc((size_t)(B * n * k), sizeof(cplx));
    cplx *b = random_matrices(dt, m, k, 97u);
    double sigma[B][64], want_res[B][8];
    for (int p = 0; p < B; ++p) {
        orthonormal(q, m, 171u + (unsigned)p, is_complex(dt));
        orthonormal(v, n, 181u + (unsigned)p, is_complex(dt));
        for (int64_t j = 0; j < kk; ++j) sigma[p][j] = j >= kk - zeros ? 0.0 : 4.0 - 3.0 * (double)j / (double)kk;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sum = 0;
                for (int64_t c = 0; c < kk; ++c) sum += q[i * m + c] * sigma[p][c] * conj(v[j * n + c]);
                AT(a, p, i, j, m, n) = as_dtype(dt, sum);
            }
        for (int64_t c = 0; c < kk - zeros; ++c) /* x += v_c (q_c^H b) / sigma_c */
            for (int64_t r = 0; r < k; ++r) {
                cplx t = 0;
                for (int64_t i = 0; i < m; ++i) t += conj(q[i * m + c]) * AT(b, p, i, r, m, k);
                for (int64_t j = 0; j < n; ++j) AT(want, p, j, r, n, k) += v[j * n + c] * t / sigma[p][c];
            }
        for (int64_t r = 0; r < k; ++r) {
            double sq = 0;
            for (int64_t i = 0; i < m; ++i) {
                cplx e = -AT(b, p, i, r, m, k);
                for (int64_t j = 0; j < n; ++j) e += AT(a, p, i, j, m, n) * AT(want, p, j, r, n, k);
                sq += creal(e * conj(e));
            }
            want_res[p][r] = sq;
        }
    }
    const size_t es = rs_dtype_size(dt);
    int64_t as[3] = {B, m, n}, bs[3] = {B, m, k}, xs[3] = {B, n, k}, ps[1] = {B}, ss[2] = {B, kk}, rs[2] = {B, k};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * m * n)), db = upload(dev, s, dt, b, (size_t)(B * m * k));
    uint64_t dx, drank, dsv, dres, dinfo;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n * k) * es, s, &dx));
    CHECK_OK(rs_alloc(dev, B * 8u, s, &drank));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * kk) * 4u, s, &dsv));
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * k) * 4u, s, &dres));
    CHECK_OK(rs_alloc(dev, B * 4u, s, &dinfo));
    rs_tensor ta = ctest_view(da, dt, 3, as), tb = ctest_view(db, dt, 3, bs), tx = ctest_view(dx, dt, 3, xs);
    rs_tensor trank = ctest_view(drank, RS_INT64, 1, ps), tsv = ctest_view(dsv, RS_FLOAT32, 2, ss);
    rs_tensor tres = ctest_view(dres, RS_FLOAT32, 2, rs), tinfo = ctest_view(dinfo, RS_INT32, 1, ps);
    CHECK_OK(rs_lstsq(s, &ta, &tb, 1e-5, &tx, &trank, &tsv, m > n ? &tres : NULL, &tinfo));
    cplx *x = malloc(sizeof(cplx) * (size_t)(B * n * k));
    int64_t rank[B];
    int32_t info[B];
    float sv[B * 64], res[B * 8];
    CHECK_OK(download(s, dt, dx, (size_t)(B * n * k), x));
    CHECK_OK(rs_memcpy_dtoh(s, rank, drank, sizeof rank));
    CHECK_OK(rs_memcpy_dtoh(s, info, dinfo, sizeof info));
    CHECK_OK(rs_memcpy_dtoh(s, sv, dsv, (size_t)(B * kk) * 4u));
    CHECK_OK(rs_memcpy_dtoh(s, res, dres, (size_t)(B * k) * 4u));
    double e_x = 0, e_s = 0, e_r = 0;
    int bad = 0;
    for (int p = 0; p < B; ++p) {
        for (int64_t i = 0; i < n * k; ++i) e_x = fmax(e_x, cabs(x[p * n * k + i] - want[p * n * k + i]));
        for (int64_t j = 0; j < kk; ++j) e_s = fmax(e_s, fabs(sv[p * kk + j] - sigma[p][j]));
        for (int64_t r = 0; m > n && r < k; ++r) e_r = fmax(e_r, fabs(res[p * k + r] - want_res[p][r]) / (1 + want_res[p][r]));
        /* values of about 1e-7 where sigma is 0 (a rounded to the dtype):
         * below rcond's cut, but not exactly zero, so gels's flag stays 0 */
        bad += rank[p] != kk - zeros || info[p] != 0;
    }
    if (e_x > 1e-4 || e_s > 4e-5 || e_r > 1e-4 || bad)
        fprintf(stderr, "  lstsq %s %lldx%lld k %lld zeros %d: x %g, S %g, residuals %g, rank/info wrong %d\n",
                rs_dtype_name(dt), (long long)m, (long long)n, (long long)k, zeros, e_x, e_s, e_r, bad);
    CHECK(e_x <= 1e-4 && e_s <= 4e-5 && e_r <= 1e-4 && !bad);
    /* an exactly zero column of a tall a: an exactly zero value, which gels
     * flags (1-based: kk) */
    for (int p = 0; p < B && m >= n; ++p)
        for (int64_t i = 0; i < m; ++i) AT(a, p, i, 0, m, n) = 0;
    uint64_t dz = upload(dev, s, dt, a, (size_t)(B * m * n));
    rs_tensor tz = ctest_view(dz, dt, 3, as);
    CHECK_OK(rs_lstsq(s, &tz, &tb, 0.0, &tx, NULL, NULL, NULL, &tinfo));
    CHECK_OK(rs_memcpy_dtoh(s, info, dinfo, sizeof info));
    rs_free(dev, dz);
    const int32_t flag = m >= n ? (int32_t)kk : 0;
    CHECK(info[0] == flag && info[1] == flag && info[2] == flag);
    /* refused: x of the wrong shape; float64 (Jacobi's thresholds are float32's) */
    rs_tensor bad_x = tx;
    bad_x.sizes[1] = n + 1;
    CHECK(rs_lstsq(s, &ta, &tb, 1e-5, &bad_x, NULL, NULL, NULL, NULL) == RS_ERR_INVALID);
    rs_tensor da64 = ta, db64 = tb, dx64 = tx;
    da64.dtype = db64.dtype = dx64.dtype = RS_FLOAT64;
    CHECK(rs_lstsq(s, &da64, &db64, 1e-5, &dx64, NULL, NULL, NULL, NULL) == RS_ERR_UNSUPPORTED);
    free(q), free(v), free(a), free(want), free(b), free(x);
    rs_free(dev, da), rs_free(dev, db), rs_free(dev, dx), rs_free(dev, drank), rs_free(dev, dsv), rs_free(dev, dres),
        rs_free(dev, dinfo);
}

/* rs_matrix_exp: a = Q diag(lambda) Q^H, exp(a) = Q diag(e^lambda) Q^H,
 * for norms that take no squaring, a few and many; and NaN in */
static void matrix_exp_case(rs_dtype dt, int64_t n, double spread) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    cplx *q = malloc(sizeof(cplx) * (size_t)(n * n));
    cplx *a = malloc(sizeof(cplx) * (size_t)(B * n * n)), *want = malloc(sizeof(cplx) * (size_t)(B * n * n));
    double big = 0;
    for (int p = 0; p < B; ++p) {
        orthonormal(q, n, 191u + (unsigned)p, is_complex(dt));
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                cplx sa = 0, se = 0;
                for (int64_t c = 0; c < n; ++c) {
                    const double lambda = spread * (2.0 * (double)c / (double)n - 0.6) + 0.1 * p;
                    sa += q[i * n + c] * lambda * conj(q[j * n + c]);
                    se += q[i * n + c] * exp(lambda) * conj(q[j * n + c]);
                }
                AT(a, p, i, j, n, n) = as_dtype(dt, sa);
                AT(want, p, i, j, n, n) = se;
                big = fmax(big, cabs(se));
            }
    }
    const size_t es = rs_dtype_size(dt);
    int64_t as[3] = {B, n, n};
    uint64_t da = upload(dev, s, dt, a, (size_t)(B * n * n)), dout;
    CHECK_OK(rs_alloc(dev, (uint64_t)(B * n * n) * es, s, &dout));
    rs_tensor ta = ctest_view(da, dt, 3, as), tout = ctest_view(dout, dt, 3, as);
    CHECK_OK(rs_matrix_exp(s, &ta, &tout));
    cplx *got = malloc(sizeof(cplx) * (size_t)(B * n * n));
    CHECK_OK(download(s, dt, dout, (size_t)(B * n * n), got));
    double e = 0;
    for (int64_t i = 0; i < B * n * n; ++i) e = fmax(e, cabs(got[i] - want[i]));
    /* a's rounding to the dtype moves exp(a) by about |a| eps |exp(a)| */
    const double tol = (is_double(dt) ? 1e-12 : 4e-6) * (1 + spread) * big;
    if (e > tol) fprintf(stderr, "  matrix_exp %s n %lld spread %g: error %g (largest %g)\n", rs_dtype_name(dt), (long long)n,
                         spread, e, big);
    CHECK(e <= tol);
    /* NaN anywhere: NaN everywhere, as CPU */
    a[1] = NAN;
    uint64_t dn = upload(dev, s, dt, a, (size_t)(B * n * n));
    rs_tensor tn = ctest_view(dn, dt, 3, as);
    CHECK_OK(rs_matrix_exp(s, &tn, &tout));
    CHECK_OK(download(s, dt, dout, (size_t)(B * n * n), got));
    CHECK(isnan(creal(got[0])) && isnan(creal(got[B * n * n - 1])));
    /* refused: not square */
    rs_tensor wide = ta;
    wide.sizes[2] = n - 1;
    CHECK(rs_matrix_exp(s, &wide, &tout) == RS_ERR_INVALID);
    free(q), free(a), free(want), free(got);
    rs_free(dev, da), rs_free(dev, dn), rs_free(dev, dout);
}

static int skip_dtype(rs_dtype dt) {
    if (!is_double(dt) || rs_device_features(ctest_device())->has_fp64) return 0;
    int64_t sz[3] = {1, 2, 2}, isz = 1;
    rs_tensor a = ctest_view(0, dt, 3, sz), info = ctest_view(0, RS_INT32, 1, &isz);
    rs_status st = rs_cholesky(ctest_stream(ctest_device()), &a, 0, &a, &info);
    if (st != RS_ERR_UNSUPPORTED) fprintf(stderr, "  %s without fp64: %s\n", rs_dtype_name(dt), rs_status_name(st));
    return st == RS_ERR_UNSUPPORTED ? 1 : -1;
}

static void all_cases(rs_dtype dt) {
    int skip = skip_dtype(dt);
    CHECK(skip >= 0);
    if (skip) return;
    cholesky_case(dt, 5);
    cholesky_case(dt, 16); /* the triangle's kernels: 16, 32 and 64 rows (3, 5 and 9 elements an invocation) */
    cholesky_case(dt, 27);
    cholesky_case(dt, 64);
    cholesky_case(dt, 70);
    lu_case(dt, 6, 6);
    lu_case(dt, 7, 4);
    lu_case(dt, 4, 7);
    lu_case(dt, 70, 70);
    trsm_case(dt, 9, 3);
    trsm_case(dt, 33, 70);
    /* past LA_BLOCK (64): the blocked drivers (a last block narrower
     * than LA_BLOCK; tall and wide LU) */
    cholesky_case(dt, 150);
    lu_case(dt, 150, 150);
    lu_case(dt, 200, 110);
    lu_case_in(dt, 150, 150, 1); /* panels factored where they lie (row-major ones go through a column-major copy) */
    lu_case_in(dt, 200, 110, 1);
    lu_case(dt, 110, 200);
    lu_case(dt, 10000, 3); /* a column past the apple profile's 32 KiB of shared memory */
    trsm_case(dt, 150, 5);
    solve_case(dt, 150, 3);
    qr_case(dt, 6, 4);
    qr_case(dt, 4, 6);
    qr_case(dt, 70, 66);
    for (int left = 0; left < 2; ++left)
        for (int transpose = 0; transpose < 2; ++transpose) {
            ormqr_case(dt, 6, 4, 3, left, transpose); /* 4 reflectors in a 6 x 6 Q */
            ormqr_case(dt, 5, 7, 2, left, transpose); /* more columns than rows: 5 reflectors */
        }
    ormqr_case(dt, 70, 66, 9, 1, 1);
    jacobi_case(dt, 6, 0);
    jacobi_case(dt, 6, 1);
    jacobi_case(dt, 40, 0);
    jacobi_case(dt, 40, 1);
    solve_case(dt, 6, 3);
    solve_case(dt, 40, 5);
    unpack_det_case(dt, 6, 6);
    unpack_det_case(dt, 7, 4);
    unpack_det_case(dt, 4, 7);
    unpack_det_case(dt, 40, 40);
    qr_assembly_case(dt, 7, 4, 0);
    qr_assembly_case(dt, 7, 4, 1);
    qr_assembly_case(dt, 4, 7, 1);
    matrix_exp_case(dt, 5, 0.5); /* no squaring */
    matrix_exp_case(dt, 6, 4.0);
    matrix_exp_case(dt, 8, 12.0);
    if (dt == RS_FLOAT32 || dt == RS_COMPLEX64) {
        eigvalsh_case(dt, 5, 0);
        eigvalsh_case(dt, 6, 1);
        eigvalsh_case(dt, 33, 1);
        svdvals_case(dt, 7, 4);
        svdvals_case(dt, 4, 7);
        svdvals_case(dt, 9, 9);
        svdvals_case(dt, 30, 17);
        eigh_case(dt, 5, 0);
        eigh_case(dt, 6, 1);
        eigh_case(dt, 33, 0);
        svd_case(dt, 7, 4, 0, 0);
        svd_case(dt, 7, 4, 1, 0);
        svd_case(dt, 4, 7, 0, 0);
        svd_case(dt, 4, 7, 1, 1);
        svd_case(dt, 9, 9, 0, 2);
        svd_case(dt, 30, 17, 1, 0);
        lstsq_case(dt, 7, 4, 3, 0); /* tall: residuals */
        lstsq_case(dt, 4, 7, 2, 0); /* wide: the minimum-norm solution */
        lstsq_case(dt, 9, 6, 2, 2); /* rank deficient: values cut, gels's flag */
    }
}

TEST(float32) { all_cases(RS_FLOAT32); }
TEST(complex64) { all_cases(RS_COMPLEX64); }
TEST(float64_where_the_device_has_it) { all_cases(RS_FLOAT64); }
TEST(complex128_where_the_device_has_it) { all_cases(RS_COMPLEX128); }

/* A singular matrix whose zero pivot comes from an exact cancellation
 * (2 - 6 * fl(1/3) is 0 with the product rounded, -2^-24 as one fma): info
 * and the zero must be LAPACK's. On lavapipe, which does not fuse, this
 * always passes; on a GPU whose compiler fuses a * b - c it checks rnd() in
 * linalg.comp (torch.linalg.det of a singular matrix is then exactly 0). */
TEST(an_exact_cancellation_gives_the_zero_pivot) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    const float a[9] = {1, 2, 1, 2, 4, 0, 3, 6, 1};
    int64_t sz[3] = {1, 3, 3}, psz[2] = {1, 3}, isz = 1;
    uint64_t da = ctest_upload(dev, s, a, sizeof a), dp, di;
    CHECK_OK(rs_alloc(dev, 12, s, &dp));
    CHECK_OK(rs_alloc(dev, 4, s, &di));
    rs_tensor ta = ctest_view(da, RS_FLOAT32, 3, sz), tp = ctest_view(dp, RS_INT32, 2, psz);
    rs_tensor ti = ctest_view(di, RS_INT32, 1, &isz);
    CHECK_OK(rs_lu_factor(s, &ta, &tp, &ti));
    float lu[9];
    int32_t piv[3], info;
    CHECK_OK(rs_memcpy_dtoh(s, lu, da, sizeof lu));
    CHECK_OK(rs_memcpy_dtoh(s, piv, dp, sizeof piv));
    CHECK_OK(rs_memcpy_dtoh(s, &info, di, sizeof info));
    if (info != 2 || lu[4] != 0.0f) fprintf(stderr, "  info %d, u_11 %g (want 2 and 0)\n", info, lu[4]);
    CHECK(piv[0] == 3 && info == 2 && lu[4] == 0.0f);
    rs_free(dev, da), rs_free(dev, dp), rs_free(dev, di);
}

TEST(bad_arguments_fail_clearly) {
    rs_device *dev = ctest_device();
    rs_stream *s = ctest_stream(dev);
    int64_t sz[3] = {2, 3, 3}, wide[3] = {2, 3, 4}, tall[3] = {2, 4, 3}, isz = 2, psz[2] = {2, 3};
    rs_tensor a = ctest_view(64, RS_FLOAT32, 3, sz), info = ctest_view(64, RS_INT32, 1, &isz);
    rs_tensor piv = ctest_view(64, RS_INT32, 2, psz), w = ctest_view(64, RS_FLOAT32, 3, wide);
    rs_tensor half = a;
    half.dtype = RS_FLOAT16;
    CHECK(rs_cholesky(s, &half, 0, &half, &info) == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "float16"));
    CHECK(rs_cholesky(s, &w, 0, &w, &info) == RS_ERR_INVALID);
    CHECK(rs_cholesky(s, &a, 0, &a, &piv) == RS_ERR_INVALID && strstr(rs_last_error(), "info"));
    CHECK(rs_lu_factor(s, &a, &info, &info) == RS_ERR_INVALID && strstr(rs_last_error(), "piv"));
    CHECK(rs_triangular_solve(s, &w, 0, 0, 0, &a) == RS_ERR_INVALID);
    rs_tensor t = ctest_view(64, RS_FLOAT32, 3, tall);
    CHECK(rs_triangular_solve(s, &a, 0, 0, 0, &t) == RS_ERR_INVALID);
    CHECK(rs_householder_product(s, &a, &piv, &a) == RS_ERR_INVALID);
    CHECK(rs_lu_factor(NULL, &a, &piv, &info) == RS_ERR_INVALID);
    /* a QR whose column does not fit shared memory: UNSUPPORTED (the caller
     * goes elsewhere; LU's blocked panels take any rows: lu_case 10000 x 3) */
    int64_t huge[3] = {1, 1 << 20, 2}, hp[2] = {1, 2};
    rs_tensor h = ctest_view(64, RS_FLOAT32, 3, huge), htau = ctest_view(64, RS_FLOAT32, 2, hp);
    CHECK(rs_geqrf(s, &h, &htau) == RS_ERR_UNSUPPORTED && strstr(rs_last_error(), "shared memory"));
}

int main(void) {
    RUN(float32);
    RUN(complex64);
    RUN(float64_where_the_device_has_it);
    RUN(complex128_where_the_device_has_it);
    RUN(an_exact_cancellation_gives_the_zero_pivot);
    RUN(bad_arguments_fail_clearly);
    CTEST_END();
}
