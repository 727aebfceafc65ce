/* linalg.c: LAPACK's unblocked factorizations and the solves built on them,
 * and Jacobi's sweeps (contract in russet/linalg.h) on kernels/linalg.comp:
 * Cholesky, LU and QR a workgroup a matrix (MODE 0, 1, 4), the triangular
 * solve, the row interchanges and the Householder product an invocation a
 * result column (MODE 2, 3, 5), each one dispatch over the whole batch; a
 * Jacobi round a workgroup a (matrix, pair), one dispatch (MODE 6) or two
 * (MODE 7 then 8); determinants an invocation a matrix (MODE 9). And what
 * the ops build from those: the solves, singular values, Hermitian
 * eigenvalues, the LU factors unpacked, determinants, QR. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/linalg.h"
#include "russet/linalg.h"

typedef struct linalg_push { RS_LINALG_PUSH } linalg_push;

enum {
    MODE_CHOLESKY = 0, MODE_LU = 1, MODE_TRSM = 2, MODE_PERMUTE = 3, MODE_GEQRF = 4, MODE_ORGQR = 5,
    MODE_JACOBI_SVD = 6, MODE_JACOBI_COLS = 7, MODE_JACOBI_ROWS = 8, MODE_DET = 9
};
/* a factorization's workgroup, its columns dealt round-robin: 64
 * invocations, 256 for matrices wider than that (more columns at once) */
enum { NT_FACTOR = 64, NT_FACTOR_WIDE = 256 };

/* What one call dispatches: the sizes, the views' strides (LA_ slots) and
 * the push constants. */
typedef struct la_call {
    const char *op;
    rs_dtype dt;
    int64_t slots[LA_SLOTS];
    linalg_push pc;
    rs_kernel *kernel[MODE_DET + 1]; /* each mode's, fetched once (a Jacobi call dispatches many rounds) */
} la_call;

/* the dtypes linalg.comp computes */
static int linalg_dtype(rs_dtype dt) {
    return dt == RS_FLOAT32 || dt == RS_COMPLEX64 || dt == RS_FLOAT64 || dt == RS_COMPLEX128;
}

int rs_linalg_computes(rs_device *dev, rs_dtype dt) {
    return dev && linalg_dtype(dt) && (!rs_dtype_needs_fp64(dt) || rs_device_features(dev)->has_fp64);
}

static rs_status check_dtype(rs_stream *s, la_call *c, const rs_tensor *t) {
    rs_dtype dt = t->dtype;
    if (!linalg_dtype(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: the kernels compute float32, complex64, float64 and complex128 (got %s)",
                        c->op, rs_dtype_name(dt));
    if ((dt == RS_FLOAT64 || dt == RS_COMPLEX128) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs float64 arithmetic, which this device lacks", c->op,
                        rs_dtype_name(dt));
    c->dt = dt;
    return RS_OK;
}

/* a (P, rows, cols) view of the call's dtype; rows or cols < 0: any */
static rs_status check_matrices(const la_call *c, const char *what, const rs_tensor *t, int64_t p, int64_t rows,
                                int64_t cols) {
    if (!t || t->ndim != 3 || t->dtype != c->dt || t->sizes[0] != p || (rows >= 0 && t->sizes[1] != rows) ||
        (cols >= 0 && t->sizes[2] != cols))
        return rs_error(RS_ERR_INVALID, "%s: %s must be a 3-d view of %s, %lld matrices of %lld x %lld (-1: any)",
                        c->op, what, rs_dtype_name(c->dt), (long long)p, (long long)rows, (long long)cols);
    return RS_OK;
}

/* a (P, len) view of dt, or (P) for len < 0 */
static rs_status check_vector(const la_call *c, const char *what, const rs_tensor *t, rs_dtype dt, int64_t p,
                              int64_t len) {
    int ok = t && t->dtype == dt && t->ndim == (len < 0 ? 1 : 2) && t->sizes[0] == p && (len < 0 || t->sizes[1] == len);
    if (!ok)
        return rs_error(RS_ERR_INVALID, "%s: %s must be a %s view of %s with %lld rows%s", c->op, what,
                        len < 0 ? "1-d" : "2-d", rs_dtype_name(dt), (long long)p, len < 0 ? "" : " of the right length");
    return RS_OK;
}

static void put_strides(int64_t *slots, int at, const rs_tensor *t) {
    for (int d = 0; d < t->ndim; ++d) slots[at + d] = t->strides[d];
}

static rs_status dispatch(rs_stream *s, la_call *c, int mode, int64_t factor_rows, const rs_access *acc, int n_acc) {
    const int64_t p = c->slots[LA_P], k = c->slots[LA_K];
    const int jacobi = mode >= MODE_JACOBI_SVD && mode <= MODE_JACOBI_ROWS;
    if (p == 0 || (mode != MODE_CHOLESKY && mode != MODE_LU && mode != MODE_GEQRF && k == 0)) return RS_OK;
    rs_device *dev = rs_stream_device(s);
    int factor = mode == MODE_CHOLESKY || mode == MODE_LU || mode == MODE_GEQRF;
    /* the shared column: rows rounded up to a power of two from 64 (few kernel variants) */
    int64_t mmax = 64;
    while (factor && mmax < factor_rows) mmax *= 2;
    if (factor && (uint64_t)mmax * rs_dtype_size(c->dt) + 64 > rs_stream_features(s)->max_shared_memory)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: a matrix of %lld rows needs %lld bytes of shared memory, past the "
                        "device's %u", c->op, (long long)factor_rows,
                        (long long)(mmax * (int64_t)rs_dtype_size(c->dt)), rs_stream_features(s)->max_shared_memory);
    rs_status st = RS_OK;
    rs_kernel *kern = c->kernel[mode];
    if (!kern) {
        char defines[96];
        unsigned nt = jacobi ? NT_FACTOR : !factor ? RS_KERNEL_WG : c->slots[LA_N] > NT_FACTOR ? NT_FACTOR_WIDE : NT_FACTOR;
        snprintf(defines, sizeof defines, "DT=%d;MODE=%d;NT=%u;MMAX=%lld", (int)c->dt, mode, nt,
                 (long long)(factor ? mmax : 1));
        if ((st = rs_kernel_get(dev, "linalg.comp", defines, &kern)) != RS_OK) return st;
        c->kernel[mode] = kern;
    }
    /* the sizes and strides, in this dispatch's batch's arena (a block of an
     * earlier batch may be reused once that batch completes) */
    void *host = NULL;
    if ((st = rs_stream_arena(s, sizeof c->slots, &host, &c->pc.params)) != RS_OK) return st;
    memcpy(host, c->slots, sizeof c->slots);
    c->pc.err = rs_device_error_address(dev);
    c->pc.site = rs_device_error_site(dev, c->op);
    if (!factor && !jacobi) return rs_launch(s, kern, (uint64_t)(p * k), &c->pc, sizeof c->pc, acc, n_acc);
    /* a workgroup a matrix (factorizations) or a (matrix, pair) (a Jacobi round: K pairs) */
    const uint64_t items = (uint64_t)(jacobi ? p * k : p);
    uint32_t groups[3] = {rs_groups_capped(s, items, items), 1, 1};
    return rs_dispatch(s, kern, groups, &c->pc, sizeof c->pc, acc, n_acc);
}

static void begin(la_call *c, const char *op) {
    memset(c, 0, sizeof *c);
    c->op = op;
}

rs_status rs_cholesky(rs_stream *s, const rs_tensor *a, int conj_a, const rs_tensor *l, const rs_tensor *info) {
    la_call c;
    begin(&c, "linalg.cholesky");
    if (!s || !a || !l || !info) return rs_error(RS_ERR_INVALID, "rs_cholesky: missing arguments");
    rs_status st = check_dtype(s, &c, a);
    if (st != RS_OK) return st;
    if (a->ndim != 3 || a->sizes[1] != a->sizes[2])
        return rs_error(RS_ERR_INVALID, "%s: a must be a (P, n, n) view", c.op);
    const int64_t p = a->sizes[0], n = a->sizes[1];
    if ((st = check_matrices(&c, "l", l, p, n, n)) || (st = check_vector(&c, "info", info, RS_INT32, p, -1))) return st;
    c.slots[LA_P] = p, c.slots[LA_M] = n, c.slots[LA_N] = n, c.slots[LA_K] = n;
    put_strides(c.slots, LA_A_ST, a), put_strides(c.slots, LA_OUT_ST, l), put_strides(c.slots, LA_INFO_ST, info);
    c.pc.a = a->address, c.pc.res = l->address, c.pc.info = info->address;
    c.pc.flags = conj_a ? LA_F_CONJ : 0u;
    rs_access acc[3] = {rs_tensor_access(a, 0), rs_tensor_access(l, 1), rs_tensor_access(info, 1)};
    return dispatch(s, &c, MODE_CHOLESKY, n, acc, 3);
}

rs_status rs_lu_factor(rs_stream *s, const rs_tensor *a, const rs_tensor *piv, const rs_tensor *info) {
    la_call c;
    begin(&c, "linalg.lu_factor");
    if (!s || !a || !piv || !info) return rs_error(RS_ERR_INVALID, "rs_lu_factor: missing arguments");
    rs_status st = check_dtype(s, &c, a);
    if (st != RS_OK) return st;
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", c.op);
    const int64_t p = a->sizes[0], m = a->sizes[1], n = a->sizes[2], k = m < n ? m : n;
    if ((st = check_vector(&c, "piv", piv, RS_INT32, p, k)) || (st = check_vector(&c, "info", info, RS_INT32, p, -1)))
        return st;
    c.slots[LA_P] = p, c.slots[LA_M] = m, c.slots[LA_N] = n, c.slots[LA_K] = k;
    put_strides(c.slots, LA_A_ST, a), put_strides(c.slots, LA_PIV_ST, piv), put_strides(c.slots, LA_INFO_ST, info);
    c.pc.a = a->address, c.pc.piv = piv->address, c.pc.info = info->address;
    rs_access acc[3] = {rs_tensor_access(a, 1), rs_tensor_access(piv, 1), rs_tensor_access(info, 1)};
    return dispatch(s, &c, MODE_LU, m, acc, 3);
}

rs_status rs_triangular_solve(rs_stream *s, const rs_tensor *a, int conj_a, int upper, int unit, const rs_tensor *x) {
    la_call c;
    begin(&c, "linalg.solve_triangular");
    if (!s || !a || !x) return rs_error(RS_ERR_INVALID, "rs_triangular_solve: missing arguments");
    rs_status st = check_dtype(s, &c, a);
    if (st != RS_OK) return st;
    if (a->ndim != 3 || a->sizes[1] != a->sizes[2])
        return rs_error(RS_ERR_INVALID, "%s: a must be a (P, n, n) view", c.op);
    const int64_t p = a->sizes[0], n = a->sizes[1];
    if ((st = check_matrices(&c, "x", x, p, n, -1)) != RS_OK) return st;
    c.slots[LA_P] = p, c.slots[LA_M] = n, c.slots[LA_N] = n, c.slots[LA_K] = x->sizes[2];
    put_strides(c.slots, LA_A_ST, a), put_strides(c.slots, LA_OUT_ST, x);
    c.pc.a = a->address, c.pc.res = x->address;
    c.pc.flags = (conj_a ? LA_F_CONJ : 0u) | (upper ? LA_F_UPPER : 0u) | (unit ? LA_F_UNIT : 0u);
    rs_access acc[2] = {rs_tensor_access(a, 0), rs_tensor_access(x, 1)};
    return dispatch(s, &c, MODE_TRSM, 0, acc, 2);
}

rs_status rs_lu_permute(rs_stream *s, const rs_tensor *piv, int inverse, const rs_tensor *x) {
    la_call c;
    begin(&c, "linalg.lu_solve");
    if (!s || !piv || !x) return rs_error(RS_ERR_INVALID, "rs_lu_permute: missing arguments");
    rs_status st = check_dtype(s, &c, x);
    if (st != RS_OK) return st;
    if (x->ndim != 3 || piv->ndim != 2) return rs_error(RS_ERR_INVALID, "%s: x must be (P, n, k), piv (P, K)", c.op);
    const int64_t p = x->sizes[0];
    if ((st = check_vector(&c, "piv", piv, RS_INT32, p, piv->sizes[1])) != RS_OK) return st;
    c.slots[LA_P] = p, c.slots[LA_M] = x->sizes[1], c.slots[LA_N] = piv->sizes[1], c.slots[LA_K] = x->sizes[2];
    put_strides(c.slots, LA_OUT_ST, x), put_strides(c.slots, LA_PIV_ST, piv);
    c.pc.res = x->address, c.pc.piv = piv->address;
    c.pc.flags = inverse ? LA_F_INVERSE : 0u;
    rs_access acc[2] = {rs_tensor_access(piv, 0), rs_tensor_access(x, 1)};
    return dispatch(s, &c, MODE_PERMUTE, 0, acc, 2);
}

rs_status rs_geqrf(rs_stream *s, const rs_tensor *a, const rs_tensor *tau) {
    la_call c;
    begin(&c, "geqrf");
    if (!s || !a || !tau) return rs_error(RS_ERR_INVALID, "rs_geqrf: missing arguments");
    rs_status st = check_dtype(s, &c, a);
    if (st != RS_OK) return st;
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", c.op);
    const int64_t p = a->sizes[0], m = a->sizes[1], n = a->sizes[2], k = m < n ? m : n;
    if ((st = check_vector(&c, "tau", tau, c.dt, p, k)) != RS_OK) return st;
    c.slots[LA_P] = p, c.slots[LA_M] = m, c.slots[LA_N] = n, c.slots[LA_K] = k;
    put_strides(c.slots, LA_A_ST, a), put_strides(c.slots, LA_TAU_ST, tau);
    c.pc.a = a->address, c.pc.tau = tau->address;
    rs_access acc[2] = {rs_tensor_access(a, 1), rs_tensor_access(tau, 1)};
    return dispatch(s, &c, MODE_GEQRF, m, acc, 2);
}

rs_status rs_householder_product(rs_stream *s, const rs_tensor *v, const rs_tensor *tau, const rs_tensor *q) {
    la_call c;
    begin(&c, "linalg.householder_product");
    if (!s || !v || !tau || !q) return rs_error(RS_ERR_INVALID, "rs_householder_product: missing arguments");
    rs_status st = check_dtype(s, &c, v);
    if (st != RS_OK) return st;
    if (v->ndim != 3 || tau->ndim != 2) return rs_error(RS_ERR_INVALID, "%s: v must be (P, m, n), tau (P, r)", c.op);
    const int64_t p = v->sizes[0], m = v->sizes[1], r = tau->sizes[1];
    if (r > v->sizes[2] || r > m)
        return rs_error(RS_ERR_INVALID, "%s: %lld reflectors need as many columns and rows in v", c.op, (long long)r);
    if ((st = check_vector(&c, "tau", tau, c.dt, p, r)) || (st = check_matrices(&c, "q", q, p, m, -1))) return st;
    if (q->sizes[2] > m) return rs_error(RS_ERR_INVALID, "%s: q has more columns than rows", c.op);
    c.slots[LA_P] = p, c.slots[LA_M] = m, c.slots[LA_N] = v->sizes[2], c.slots[LA_K] = q->sizes[2];
    c.slots[LA_R] = r;
    put_strides(c.slots, LA_A_ST, v), put_strides(c.slots, LA_OUT_ST, q), put_strides(c.slots, LA_TAU_ST, tau);
    c.pc.a = v->address, c.pc.res = q->address, c.pc.tau = tau->address;
    rs_access acc[3] = {rs_tensor_access(v, 0), rs_tensor_access(tau, 0), rs_tensor_access(q, 1)};
    return dispatch(s, &c, MODE_ORGQR, 0, acc, 3);
}

/* The checks of both Jacobi functions: x (P, m, n) of the engine's dtypes, n even */
static rs_status jacobi_begin(rs_stream *s, la_call *c, const char *op, const rs_tensor *x, int square, int sweeps) {
    begin(c, op);
    if (!s || !x) return rs_error(RS_ERR_INVALID, "%s: missing arguments", op);
    rs_status st = check_dtype(s, c, x);
    if (st != RS_OK) return st;
    if (x->ndim != 3 || (x->sizes[2] & 1) || (square && x->sizes[1] != x->sizes[2]) || sweeps < 0)
        return rs_error(RS_ERR_INVALID, "%s: x must be a (P, m, n) view with n even%s, sweeps >= 0", op,
                        square ? " and m = n" : "");
    c->slots[LA_P] = x->sizes[0], c->slots[LA_M] = x->sizes[1], c->slots[LA_N] = x->sizes[2];
    c->slots[LA_K] = x->sizes[2] / 2; /* pairs a round */
    put_strides(c->slots, LA_A_ST, x);
    c->pc.a = x->address;
    return RS_OK;
}

rs_status rs_jacobi_svd_columns(rs_stream *s, const rs_tensor *w, int sweeps) {
    la_call c;
    rs_status st = jacobi_begin(s, &c, "linalg.svdvals", w, 0, sweeps);
    if (st != RS_OK) return st;
    const int64_t n = c.slots[LA_N];
    rs_access acc[1] = {rs_tensor_access(w, 1)};
    for (int sweep = 0; sweep < sweeps && st == RS_OK; ++sweep)
        for (int64_t r = 0; r + 1 < n && st == RS_OK; ++r) {
            c.pc.round = (uint32_t)r;
            st = dispatch(s, &c, MODE_JACOBI_SVD, 0, acc, 1);
        }
    return st;
}

rs_status rs_jacobi_eigh(rs_stream *s, const rs_tensor *h, int sweeps) {
    la_call c;
    rs_status st = jacobi_begin(s, &c, "linalg.eigvalsh", h, 1, sweeps);
    if (st != RS_OK || c.slots[LA_P] == 0 || c.slots[LA_N] == 0 || sweeps == 0) return st;
    const int64_t n = c.slots[LA_N];
    rs_device *dev = rs_stream_device(s);
    /* each pair's rotation, from the column step to the row step */
    size_t real = rs_dtype_size(c.dt) / (c.dt == RS_COMPLEX64 || c.dt == RS_COMPLEX128 ? 2 : 1);
    uint64_t bytes = (uint64_t)(c.slots[LA_P] * c.slots[LA_K]) * LA_ROT_SLOTS * real;
    if ((st = rs_alloc(dev, bytes, s, &c.pc.tau)) != RS_OK) return st;
    rs_access cols[2] = {rs_tensor_access(h, 1), {c.pc.tau, bytes, 1}};
    rs_access rows[2] = {rs_tensor_access(h, 1), {c.pc.tau, bytes, 0}};
    for (int sweep = 0; sweep < sweeps && st == RS_OK; ++sweep)
        for (int64_t r = 0; r + 1 < n && st == RS_OK; ++r) {
            c.pc.round = (uint32_t)r;
            st = dispatch(s, &c, MODE_JACOBI_COLS, 0, cols, 2);
            if (st == RS_OK) st = dispatch(s, &c, MODE_JACOBI_ROWS, 0, rows, 2);
        }
    rs_free(dev, c.pc.tau); /* reused only after this stream's work */
    return st;
}

/* ---- solves from the factors (linalg.lu_solve and linalg.solve, inv,
 * cholesky_solve and cholesky_inverse): each a few of the dispatches
 * above on x in place */

/* a (P, n, n) matrix's transposed view (its last two dims swapped) */
static rs_tensor transposed(const rs_tensor *a) {
    rs_tensor t = *a;
    t.sizes[1] = a->sizes[2], t.sizes[2] = a->sizes[1];
    t.strides[1] = a->strides[2], t.strides[2] = a->strides[1];
    return t;
}

rs_status rs_lu_solve(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, int adjoint, const rs_tensor *x) {
    if (!s || !lu || !piv || !x) return rs_error(RS_ERR_INVALID, "rs_lu_solve: missing arguments");
    if (lu->ndim != 3) return rs_error(RS_ERR_INVALID, "linalg.lu_solve: lu must be a (P, n, n) view");
    rs_status st;
    if (!adjoint) {
        /* A = P L U: X = U^-1 L^-1 P^T B */
        if ((st = rs_lu_permute(s, piv, 0, x)) != RS_OK || (st = rs_triangular_solve(s, lu, 0, 0, 1, x)) != RS_OK)
            return st;
        return rs_triangular_solve(s, lu, 0, 1, 0, x);
    }
    /* A^H = U^H L^H P^T: X = P L^-H U^-H B (lu^H: the transposed view read
     * conjugated) */
    const rs_tensor lt = transposed(lu);
    const int cj = rs_dtype_is_complex(lu->dtype);
    if ((st = rs_triangular_solve(s, &lt, cj, 0, 0, x)) != RS_OK || (st = rs_triangular_solve(s, &lt, cj, 1, 1, x)))
        return st;
    return rs_lu_permute(s, piv, 1, x);
}

rs_status rs_cholesky_solve(rs_stream *s, const rs_tensor *f, int upper, const rs_tensor *x) {
    if (!s || !f || !x) return rs_error(RS_ERR_INVALID, "rs_cholesky_solve: missing arguments");
    if (f->ndim != 3) return rs_error(RS_ERR_INVALID, "cholesky_solve: the factor must be a (P, n, n) view");
    const rs_tensor ft = transposed(f);
    const int cj = rs_dtype_is_complex(f->dtype);
    rs_status st;
    /* A = U^H U: U^H Y = B, then U X = Y; A = L L^H: L Y = B, then L^H X = Y
     * (F^H: F's transposed view read conjugated) */
    if (upper) {
        if ((st = rs_triangular_solve(s, &ft, cj, 0, 0, x)) != RS_OK) return st;
        return rs_triangular_solve(s, f, 0, 1, 0, x);
    }
    if ((st = rs_triangular_solve(s, f, 0, 0, 0, x)) != RS_OK) return st;
    return rs_triangular_solve(s, &ft, cj, 1, 0, x);
}

/* a contiguous (p, rows, cols) batch of dt in the call's scratch, zeroed
 * when cols (the even count Jacobi needs) exceeds n, the columns filled */
static rs_status padded_batch(rs_scratch *sc, rs_dtype dt, int64_t p, int64_t rows, int64_t cols, int64_t n,
                              rs_tensor *out) {
    uint64_t a = 0;
    rs_status st = rs_scratch_take(sc, (uint64_t)(p * rows * cols) * rs_dtype_size(dt), &a);
    *out = rs_tensor_rows(a, dt, p * rows, cols);
    out->ndim = 3, out->sizes[0] = p, out->sizes[1] = rows, out->sizes[2] = cols;
    out->strides[0] = rows * cols, out->strides[1] = cols, out->strides[2] = 1;
    if (st == RS_OK && cols != n) {
        static const uint64_t zero[2] = {0, 0};
        st = rs_fill(sc->s, out, zero);
    }
    return st;
}

/* ---- singular values (linalg.svdvals; matrix_norm 'nuc'/2/-2, cond and
 * matrix_rank through _linalg_svd without U and V) */

int rs_jacobi_sweeps(int64_t np) {
    int sweeps = 6;
    for (int64_t w = 1; w < np; w *= 2) ++sweeps;
    return sweeps;
}

#define SVDVALS_MAX_N 128

/* The Jacobi drivers' (svdvals, eigvalsh) checks: a's dtype (the kernels'
 * thresholds are float32's) */
static rs_status jacobi_dtype(const char *op, const rs_tensor *a) {
    if (a->dtype != RS_FLOAT32 && a->dtype != RS_COMPLEX64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: Jacobi's thresholds are float32's: no kernel for %s", op,
                        rs_dtype_name(a->dtype));
    return RS_OK;
}

/* ... and out, a float32 (P, n) view (`shape` names it in the message),
 * and n against the kernels' limit (`what`: the matrices' rows or columns) */
static rs_status jacobi_out(const char *op, const rs_tensor *out, int64_t p, int64_t n, const char *shape,
                            const char *what, int max_n) {
    if (out->ndim != 2 || out->dtype != RS_FLOAT32 || out->sizes[0] != p || out->sizes[1] != n)
        return rs_error(RS_ERR_INVALID, "%s: out must be a float32 %s view", op, shape);
    if (n > max_n)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %lld %s, more than Jacobi's %d", op, (long long)n, what, max_n);
    return RS_OK;
}

rs_status rs_svdvals(rs_stream *s, const rs_tensor *a, const rs_tensor *out) {
    static const char op[] = "linalg.svdvals";
    if (!s || !a || !out) return rs_error(RS_ERR_INVALID, "rs_svdvals: missing arguments");
    rs_status st;
    if ((st = jacobi_dtype(op, a)) != RS_OK) return st;
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", op);
    /* a matrix with more columns than rows: its transpose (the values of
     * a^T and a^H are the same) */
    const rs_tensor w0 = a->sizes[1] < a->sizes[2] ? transposed(a) : *a;
    const int64_t p = w0.sizes[0], m = w0.sizes[1], n = w0.sizes[2], np = n + n % 2;
    if ((st = jacobi_out(op, out, p, n, "(P, min(m, n))", "columns", SVDVALS_MAX_N)) != RS_OK) return st;
    if (p == 0 || n == 0) return RS_OK;
    rs_scratch sc = {s, {0}, 0};
    uint64_t na = 0, sa = 0;
    /* W: a's columns, and a zero column for odd n */
    rs_tensor w;
    st = padded_batch(&sc, a->dtype, p, m, np, n, &w);
    if (st == RS_OK) st = rs_scratch_take(&sc, (uint64_t)(p * np) * 4u, &na);
    if (st == RS_OK) st = rs_scratch_take(&sc, (uint64_t)(p * n) * 4u, &sa);
    rs_tensor wn = w;
    wn.sizes[2] = n;
    if (st == RS_OK) st = rs_copy(s, &wn, &w0);
    if (st == RS_OK) st = rs_jacobi_svd_columns(s, &w, rs_jacobi_sweeps(np));
    /* the columns' norms (P, 1, np), sorted descending; the padding's 0
     * sorts last */
    rs_tensor norms = w;
    norms.address = na, norms.dtype = RS_FLOAT32;
    norms.sizes[1] = 1, norms.strides[0] = np, norms.strides[1] = 0;
    if (st == RS_OK) {
        rs_reduce r;
        memset(&r, 0, sizeof r);
        r.name = op;
        r.op = RS_REDUCE_NORM;
        r.acc = a->dtype;
        r.in = w;
        r.out = norms;
        r.p = 2;
        st = rs_reduce_run(s, &r);
    }
    const rs_tensor rows = rs_tensor_rows(na, RS_FLOAT32, p, np), sorted = rs_tensor_rows(sa, RS_FLOAT32, p, n);
    if (st == RS_OK) st = rs_sort(s, &rows, 1, n, &sorted, NULL);
    if (st == RS_OK) st = rs_copy(s, out, &sorted);
    rs_scratch_release(&sc);
    return st;
}

/* ---- what linalg's ops assemble from the factorizations */

/* a (P, n) view of the diagonals of a (P, n, n) */
static rs_tensor diagonal_of(const rs_tensor *a) {
    rs_tensor d = *a;
    d.ndim = 2;
    d.sizes[1] = a->sizes[1] < a->sizes[2] ? a->sizes[1] : a->sizes[2];
    d.strides[1] = a->strides[1] + a->strides[2];
    return d;
}

/* a's rows [0, rows) and columns [0, cols) */
static rs_tensor top_left(const rs_tensor *a, int64_t rows, int64_t cols) {
    rs_tensor t = *a;
    t.sizes[1] = rows, t.sizes[2] = cols;
    return t;
}

/* the real dtype of dt's values' magnitudes */
static rs_dtype real_of(rs_dtype dt) {
    return dt == RS_COMPLEX64 ? RS_FLOAT32 : dt == RS_COMPLEX128 ? RS_FLOAT64 : dt;
}

/* the bytes of 1 in dt (a float or complex dtype of the engine) */
static void one_of(rs_dtype dt, uint64_t v[2]) {
    v[0] = v[1] = 0;
    if (dt == RS_FLOAT32 || dt == RS_COMPLEX64) {
        const float f = 1.0f;
        memcpy(v, &f, sizeof f);
    } else {
        const double d = 1.0;
        memcpy(v, &d, sizeof d);
    }
}

/* t (P, rows, cols) = the identity's first rows and columns */
static rs_status fill_identity(rs_stream *s, const rs_tensor *t) {
    static const uint64_t zero[2] = {0, 0};
    uint64_t one[2];
    one_of(t->dtype, one);
    const rs_tensor d = diagonal_of(t);
    rs_status st = rs_fill(s, t, zero);
    return st != RS_OK ? st : rs_fill(s, &d, one);
}

rs_status rs_det(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, const rs_tensor *det, const rs_tensor *sign,
                 const rs_tensor *logabsdet) {
    la_call c;
    const int log = det == NULL;
    begin(&c, log ? "linalg.slogdet" : "linalg.det");
    if (!s || !lu || !piv || (log ? !sign || !logabsdet : sign || logabsdet))
        return rs_error(RS_ERR_INVALID, "rs_det: lu, piv and det, or lu, piv, sign and logabsdet");
    rs_status st = check_dtype(s, &c, lu);
    if (st != RS_OK) return st;
    if (lu->ndim != 3 || lu->sizes[1] != lu->sizes[2])
        return rs_error(RS_ERR_INVALID, "%s: lu must be a (P, n, n) view", c.op);
    const int64_t p = lu->sizes[0], n = lu->sizes[1];
    const rs_tensor *res = log ? sign : det;
    if ((st = check_vector(&c, "piv", piv, RS_INT32, p, n)) || (st = check_vector(&c, log ? "sign" : "det", res, c.dt, p, -1)))
        return st;
    if (log && (st = check_vector(&c, "logabsdet", logabsdet, real_of(c.dt), p, -1))) return st;
    c.slots[LA_P] = p, c.slots[LA_M] = n, c.slots[LA_N] = n, c.slots[LA_K] = 1;
    put_strides(c.slots, LA_A_ST, lu), put_strides(c.slots, LA_PIV_ST, piv), put_strides(c.slots, LA_OUT_ST, res);
    c.pc.a = lu->address, c.pc.piv = piv->address, c.pc.res = res->address;
    if (log) {
        put_strides(c.slots, LA_TAU_ST, logabsdet);
        c.pc.tau = logabsdet->address;
        c.pc.flags = LA_F_LOG;
    }
    rs_access acc[4] = {rs_tensor_access(lu, 0), rs_tensor_access(piv, 0), rs_tensor_access(res, 1),
                        log ? rs_tensor_access(logabsdet, 1) : rs_tensor_access(res, 1)};
    return dispatch(s, &c, MODE_DET, 0, acc, 4);
}

rs_status rs_lu_unpack(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, const rs_tensor *p, const rs_tensor *l,
                       const rs_tensor *u) {
    static const char op[] = "lu_unpack";
    la_call c;
    begin(&c, op);
    if (!s || !lu || (p && !piv)) return rs_error(RS_ERR_INVALID, "rs_lu_unpack: missing arguments");
    rs_status st = check_dtype(s, &c, lu);
    if (st != RS_OK) return st;
    if (lu->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: lu must be a (P, m, n) view", op);
    const int64_t nb = lu->sizes[0], m = lu->sizes[1], n = lu->sizes[2], k = m < n ? m : n;
    if (l) {
        /* L: the strict lower triangle of lu's first k columns, ones on the diagonal */
        if (l->ndim != 3 || l->sizes[0] != nb || l->sizes[1] != m || l->sizes[2] != k)
            return rs_error(RS_ERR_INVALID, "%s: l must be (P, m, min(m, n))", op);
        uint64_t one[2];
        one_of(lu->dtype, one);
        const rs_tensor lk = top_left(lu, m, k), dl = diagonal_of(l);
        if ((st = rs_triangle(s, &lk, 1, -1, 0, l)) != RS_OK || (st = rs_fill(s, &dl, one)) != RS_OK) return st;
    }
    if (u) {
        if (u->ndim != 3 || u->sizes[0] != nb || u->sizes[1] != k || u->sizes[2] != n)
            return rs_error(RS_ERR_INVALID, "%s: u must be (P, min(m, n), n)", op);
        const rs_tensor uk = top_left(lu, k, n);
        if ((st = rs_triangle(s, &uk, 0, 0, 0, u)) != RS_OK) return st;
    }
    if (p) {
        /* P: the identity's columns swapped as the pivots say (the rows of
         * its transposed view: P^T = the interchanges applied to I) */
        if (p->ndim != 3 || p->sizes[0] != nb || p->sizes[1] != m || p->sizes[2] != m || p->dtype != lu->dtype)
            return rs_error(RS_ERR_INVALID, "%s: p must be (P, m, m) of lu's dtype", op);
        const rs_tensor pt = transposed(p);
        if ((st = fill_identity(s, p)) != RS_OK) return st;
        if (piv->ndim == 2 && piv->sizes[1] == 0) return RS_OK;
        return rs_lu_permute(s, piv, 0, &pt);
    }
    return RS_OK;
}

#define EIGVALSH_MAX_N 128

rs_status rs_eigvalsh(rs_stream *s, const rs_tensor *a, int upper, const rs_tensor *out) {
    static const char op[] = "linalg.eigvalsh";
    if (!s || !a || !out) return rs_error(RS_ERR_INVALID, "rs_eigvalsh: missing arguments");
    rs_status st;
    if ((st = jacobi_dtype(op, a)) != RS_OK) return st;
    if (a->ndim != 3 || a->sizes[1] != a->sizes[2])
        return rs_error(RS_ERR_INVALID, "%s: a must be a (P, n, n) view", op);
    const int64_t p = a->sizes[0], n = a->sizes[1], np = n + n % 2;
    if ((st = jacobi_out(op, out, p, n, "(P, n)", "rows", EIGVALSH_MAX_N)) != RS_OK) return st;
    if (p == 0 || n == 0) return RS_OK;
    rs_scratch sc = {s, {0}, 0};
    uint64_t da = 0, sa = 0;
    /* H: the Hermitian matrix a's triangle stands for, and a zero row and
     * column for odd n (they stay apart: their couplings are 0) */
    rs_tensor h;
    st = padded_batch(&sc, a->dtype, p, np, np, n, &h);
    if (st == RS_OK) st = rs_scratch_take(&sc, (uint64_t)(p * n) * 4u, &da);
    if (st == RS_OK) st = rs_scratch_take(&sc, (uint64_t)(p * n) * 4u, &sa);
    const rs_tensor hn = top_left(&h, n, n);
    if (st == RS_OK) st = rs_triangle(s, a, !upper, 0, 1, &hn);
    if (st == RS_OK) st = rs_jacobi_eigh(s, &h, rs_jacobi_sweeps(np));
    /* the diagonal's real parts (a complex view read as float32 pairs), ascending */
    rs_tensor diag = diagonal_of(&hn);
    if (a->dtype == RS_COMPLEX64) {
        diag.dtype = RS_FLOAT32;
        diag.strides[0] *= 2, diag.strides[1] *= 2;
    }
    const rs_tensor rows = rs_tensor_rows(da, RS_FLOAT32, p, n), sorted = rs_tensor_rows(sa, RS_FLOAT32, p, n);
    if (st == RS_OK) st = rs_copy(s, &rows, &diag);
    if (st == RS_OK) st = rs_sort(s, &rows, 0, n, &sorted, NULL);
    if (st == RS_OK) st = rs_copy(s, out, &sorted);
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_qr(rs_stream *s, const rs_tensor *a, const rs_tensor *q, const rs_tensor *r) {
    la_call c;
    begin(&c, "linalg.qr");
    if (!s || !a) return rs_error(RS_ERR_INVALID, "rs_qr: missing arguments");
    rs_status st = check_dtype(s, &c, a);
    if (st != RS_OK) return st;
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", c.op);
    const int64_t p = a->sizes[0], m = a->sizes[1], n = a->sizes[2], k = m < n ? m : n;
    if (r && (st = check_matrices(&c, "r", r, p, -1, n)) != RS_OK) return st;
    if (r && r->sizes[1] != k && r->sizes[1] != m)
        return rs_error(RS_ERR_INVALID, "%s: r must have min(m, n) or m rows", c.op);
    if (q && (st = check_matrices(&c, "q", q, p, m, -1)) != RS_OK) return st;
    if (q && q->sizes[2] != k && q->sizes[2] != m)
        return rs_error(RS_ERR_INVALID, "%s: q must have min(m, n) or m columns", c.op);
    if (!q && !r) return RS_OK;
    if (p == 0 || m == 0 || n == 0) {
        /* no reflectors: R is zero and Q the identity's first columns */
        static const uint64_t zero[2] = {0, 0};
        if (r && (st = rs_fill(s, r, zero)) != RS_OK) return st;
        return q ? fill_identity(s, q) : RS_OK;
    }
    /* geqr2 on a contiguous copy, then R from its upper triangle and Q from
     * its reflectors */
    rs_scratch sc = {s, {0}, 0};
    uint64_t wa = 0, ta = 0;
    const size_t es = rs_dtype_size(c.dt);
    if ((st = rs_scratch_take(&sc, (uint64_t)(p * m * n) * es, &wa)) == RS_OK)
        st = rs_scratch_take(&sc, (uint64_t)(p * k) * es, &ta);
    rs_tensor w = rs_tensor_rows(wa, c.dt, p * m, n);
    w.ndim = 3, w.sizes[0] = p, w.sizes[1] = m, w.sizes[2] = n;
    w.strides[0] = m * n, w.strides[1] = n, w.strides[2] = 1;
    const rs_tensor tau = rs_tensor_rows(ta, c.dt, p, k);
    if (st == RS_OK) st = rs_copy(s, &w, a);
    if (st == RS_OK) st = rs_geqrf(s, &w, &tau);
    if (st == RS_OK && r) {
        const rs_tensor wr = top_left(&w, r->sizes[1], n);
        st = rs_triangle(s, &wr, 0, 0, 0, r);
    }
    if (st == RS_OK && q) st = rs_householder_product(s, &w, &tau, q);
    rs_scratch_release(&sc);
    return st;
}
