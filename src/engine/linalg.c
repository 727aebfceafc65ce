/* linalg.c: LAPACK's unblocked factorizations and the solves built on them,
 * and Jacobi's sweeps (contract in russet/linalg.h) on kernels/linalg.comp:
 * Cholesky, LU and QR a workgroup a matrix (MODE 0, 1, 4), the triangular
 * solve, the row interchanges and the Householder product an invocation a
 * result column (MODE 2, 3, 5), each one dispatch over the whole batch; a
 * Jacobi round a workgroup a (matrix, pair), one dispatch (MODE 6) or two
 * (MODE 7 then 8), accumulating the rotations into V where vectors are
 * asked for; determinants an invocation a matrix (MODE 9); the left
 * singular vectors' phases (MODE 10). And what the ops build from those:
 * the solves, the SVD, Hermitian eigenvalues and eigenvectors, the LU
 * factors unpacked, determinants, QR. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/linalg.h"
#include "russet/gather.h"
#include "russet/linalg.h"

typedef struct linalg_push { RS_LINALG_PUSH } linalg_push;

enum {
    MODE_CHOLESKY = 0, MODE_LU = 1, MODE_TRSM = 2, MODE_PERMUTE = 3, MODE_GEQRF = 4, MODE_ORGQR = 5,
    MODE_JACOBI_SVD = 6, MODE_JACOBI_COLS = 7, MODE_JACOBI_ROWS = 8, MODE_DET = 9, MODE_U_PHASE = 10, MODE_SCALE = 11,
    MODE_PANEL_LU = 12
};
/* a factorization's workgroup, its columns dealt round-robin: 64
 * invocations, 256 for matrices wider than that (more columns at once) */
enum { NT_FACTOR = 64, NT_FACTOR_WIDE = 256, NT_PANEL_TALL = 1024 };
/* the triangular solve's workgroup (MODE 2): an element of X an invocation,
 * its rows rounded up to a power of two by NT_TRSM / that many columns */
enum { NT_TRSM = 256 };

/* What one call dispatches: the sizes, the views' strides (LA_ slots) and
 * the push constants. */
typedef struct la_call {
    const char *op;
    rs_dtype dt;
    int64_t slots[LA_SLOTS];
    linalg_push pc;
    rs_kernel *kernel[MODE_PANEL_LU + 1]; /* each mode's, fetched once (a Jacobi call dispatches many rounds) */
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
    const int per_matrix = factor || mode == MODE_SCALE || mode == MODE_PANEL_LU || mode == MODE_TRSM; /* workgroups cooperate */
    /* the shared column: rows rounded up to a power of two from 64 (few
     * kernel variants); the Cholesky's triangle (n <= LA_BLOCK): 16, 32 or
     * 64, with 64, 128 or 256 invocations (3, 5 or 9 elements each) */
    int64_t mmax = mode == MODE_CHOLESKY ? 16 : 64;
    while (factor && mmax < factor_rows) mmax *= 2;
    if (factor && (uint64_t)mmax * rs_dtype_size(c->dt) + 64 > rs_stream_features(s)->max_shared_memory)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: a matrix of %lld rows needs %lld bytes of shared memory, past the "
                        "device's %u", c->op, (long long)factor_rows,
                        (long long)(mmax * (int64_t)rs_dtype_size(c->dt)), rs_stream_features(s)->max_shared_memory);
    rs_status st = RS_OK;
    rs_kernel *kern = c->kernel[mode];
    if (!kern) {
        char defines[96];
        /* an LU panel's rows are dealt out: 1024 invocations past 256 rows
         * (fewer rows each, fewer memory round trips a step) */
        unsigned nt = mode == MODE_CHOLESKY          ? (unsigned)(4 * mmax)
                      : jacobi || mode == MODE_SCALE ? NT_FACTOR
                      : mode == MODE_PANEL_LU        ? (factor_rows > NT_FACTOR_WIDE ? NT_PANEL_TALL : NT_FACTOR_WIDE)
                      : mode == MODE_TRSM            ? NT_TRSM
                      : !factor                      ? RS_KERNEL_WG
                      : c->slots[LA_N] > NT_FACTOR   ? NT_FACTOR_WIDE
                                                     : NT_FACTOR;
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
    if (!per_matrix && !jacobi) return rs_launch(s, kern, (uint64_t)(p * k), &c->pc, sizeof c->pc, acc, n_acc);
    /* a workgroup a matrix (factorizations), a (matrix, pair) (a Jacobi
     * round: K pairs) or a (matrix, block of columns) (the triangular solve:
     * NT_TRSM / RP columns, RP the rows rounded up to a power of two, as the
     * kernel deals them) */
    uint64_t items = (uint64_t)(jacobi ? p * k : p);
    if (mode == MODE_TRSM) {
        int64_t rp = 1;
        while (rp < c->slots[LA_M]) rp *= 2;
        const int64_t cols = NT_TRSM / rp;
        items = (uint64_t)(p * ((k + cols - 1) / cols));
    }
    uint32_t groups[3] = {rs_groups_capped(s, items, items), 1, 1};
    return rs_dispatch(s, kern, groups, &c->pc, sizeof c->pc, acc, n_acc);
}

static void begin(la_call *c, const char *op) {
    memset(c, 0, sizeof *c);
    c->op = op;
}

/* the blocked drivers (below), for matrices past LA_BLOCK */
static rs_status cholesky_blocked(rs_stream *s, la_call *c, const rs_tensor *a, int conj_a, const rs_tensor *l,
                                  const rs_tensor *info);
static rs_status lu_blocked(rs_stream *s, la_call *c, const rs_tensor *a, const rs_tensor *piv, const rs_tensor *info);
static rs_status trsm_blocked(rs_stream *s, const rs_tensor *a, int conj_a, int upper, int unit, const rs_tensor *x);

/* a (P, n, n) matrix's transposed view (its last two dims swapped) */
static rs_tensor transposed(const rs_tensor *a) {
    rs_tensor t = *a;
    t.sizes[1] = a->sizes[2], t.sizes[2] = a->sizes[1];
    t.strides[1] = a->strides[2], t.strides[2] = a->strides[1];
    return t;
}

/* dst = src, conjugated where the dtype is complex (a conjugate transpose:
 * src a transposed view) */
static rs_status copy_conj(rs_stream *s, const char *name, const rs_tensor *dst, const rs_tensor *src) {
    if (!rs_dtype_is_complex(src->dtype)) return rs_copy(s, dst, src);
    rs_pointwise p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.op = RS_PW_CONJ;
    p.common = p.compute = p.result = src->dtype;
    p.ninputs = 1;
    p.out = *dst;
    p.in[0] = *src;
    return rs_pointwise_run(s, &p);
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
    if (n > LA_BLOCK) return cholesky_blocked(s, &c, a, conj_a, l, info);
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
    if (m > LA_BLOCK || n > LA_BLOCK) return lu_blocked(s, &c, a, piv, info);
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
    if (n > LA_BLOCK) return trsm_blocked(s, a, conj_a, upper, unit, x);
    c.slots[LA_P] = p, c.slots[LA_M] = n, c.slots[LA_N] = n, c.slots[LA_K] = x->sizes[2];
    put_strides(c.slots, LA_A_ST, a), put_strides(c.slots, LA_OUT_ST, x);
    c.pc.a = a->address, c.pc.res = x->address;
    c.pc.flags = (conj_a ? LA_F_CONJ : 0u) | (upper ? LA_F_UPPER : 0u) | (unit ? LA_F_UNIT : 0u);
    rs_access acc[2] = {rs_tensor_access(a, 0), rs_tensor_access(x, 1)};
    return dispatch(s, &c, MODE_TRSM, 0, acc, 2);
}

/* rs_lu_permute of x by pivots counted from row j0 of the whole matrix
 * (a block's); later_blocks: the blocked LU's deferred interchanges of L's
 * columns (LA_F_LATER_BLOCKS) */
static rs_status lu_permute(rs_stream *s, const rs_tensor *piv, int64_t j0, int later_blocks, int inverse,
                            const rs_tensor *x) {
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
    c.slots[LA_J0] = j0;
    c.pc.flags = (inverse ? LA_F_INVERSE : 0u) | (later_blocks ? LA_F_LATER_BLOCKS : 0u);
    rs_access acc[2] = {rs_tensor_access(piv, 0), rs_tensor_access(x, 1)};
    return dispatch(s, &c, MODE_PERMUTE, 0, acc, 2);
}

rs_status rs_lu_permute(rs_stream *s, const rs_tensor *piv, int inverse, const rs_tensor *x) {
    return lu_permute(s, piv, 0, 0, inverse, x);
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

/* a (P, n) view of the diagonals of a (P, n, n) */
static rs_tensor diagonal_of(const rs_tensor *a) {
    rs_tensor d = *a;
    d.ndim = 2;
    d.sizes[1] = a->sizes[1] < a->sizes[2] ? a->sizes[1] : a->sizes[2];
    d.strides[1] = a->strides[1] + a->strides[2];
    return d;
}

/* rows r0.. and columns c0.. of a (P, rows, cols) view */
static rs_tensor block_of(const rs_tensor *t, int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
    rs_tensor b = *t;
    b.address += (uint64_t)((r0 * t->strides[1] + c0 * t->strides[2]) * (int64_t)rs_dtype_size(t->dtype));
    b.sizes[1] = rows, b.sizes[2] = cols;
    return b;
}

/* entries i0.. of a (P, len) view */
static rs_tensor entries_of(const rs_tensor *t, int64_t i0, int64_t len) {
    rs_tensor b = *t;
    b.address += (uint64_t)(i0 * t->strides[1] * (int64_t)rs_dtype_size(t->dtype));
    b.sizes[1] = len;
    return b;
}

/* a's rows [0, rows) and columns [0, cols) */
static rs_tensor top_left(const rs_tensor *a, int64_t rows, int64_t cols) { return block_of(a, 0, rows, 0, cols); }

/* the real dtype of dt's values' magnitudes */
static rs_dtype real_of(rs_dtype dt) {
    return dt == RS_COMPLEX64 ? RS_FLOAT32 : dt == RS_COMPLEX128 ? RS_FLOAT64 : dt;
}

/* the real parts of the diagonals of a (P, n, n), a (P, n) view (a complex
 * view read as real pairs) */
static rs_tensor real_diagonal(const rs_tensor *a) {
    rs_tensor d = diagonal_of(a);
    if (rs_dtype_is_complex(a->dtype)) {
        d.dtype = real_of(a->dtype);
        d.strides[0] *= 2, d.strides[1] *= 2;
    }
    return d;
}

/* The checks of both Jacobi functions: x (P, m, n) of the engine's dtypes, n
 * even; v NULL or (P, n, n) of x's dtype, the matrices the rotations also
 * turn (LA_F_VECS) */
static rs_status jacobi_begin(rs_stream *s, la_call *c, const char *op, const rs_tensor *x, const rs_tensor *v,
                              int square, int sweeps) {
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
    if (v) {
        if ((st = check_matrices(c, "v", v, x->sizes[0], x->sizes[2], x->sizes[2])) != RS_OK) return st;
        put_strides(c->slots, LA_OUT_ST, v);
        c->pc.res = v->address;
        c->pc.flags |= LA_F_VECS;
    }
    return RS_OK;
}

rs_status rs_jacobi_svd_columns(rs_stream *s, const rs_tensor *w, const rs_tensor *v, int sweeps) {
    la_call c;
    rs_status st = jacobi_begin(s, &c, "linalg.svd", w, v, 0, sweeps);
    if (st != RS_OK) return st;
    const int64_t n = c.slots[LA_N];
    rs_access acc[2] = {rs_tensor_access(w, 1), {0}};
    if (v) acc[1] = rs_tensor_access(v, 1);
    for (int sweep = 0; sweep < sweeps && st == RS_OK; ++sweep)
        for (int64_t r = 0; r + 1 < n && st == RS_OK; ++r) {
            c.pc.round = (uint32_t)r;
            st = dispatch(s, &c, MODE_JACOBI_SVD, 0, acc, v ? 2 : 1);
        }
    return st;
}

rs_status rs_jacobi_eigh(rs_stream *s, const rs_tensor *h, const rs_tensor *v, int sweeps) {
    la_call c;
    rs_status st = jacobi_begin(s, &c, "linalg.eigh", h, v, 1, sweeps);
    if (st != RS_OK || c.slots[LA_P] == 0 || c.slots[LA_N] == 0 || sweeps == 0) return st;
    const int64_t n = c.slots[LA_N];
    rs_device *dev = rs_stream_device(s);
    /* each pair's rotation, from the column step to the row step; and the
     * diagonal as (base, correction) pairs, from h's real diagonal and 0 */
    const int64_t p = c.slots[LA_P];
    const rs_dtype real_dt = real_of(c.dt);
    const size_t real = rs_dtype_size(real_dt);
    const uint64_t bytes = (uint64_t)(p * c.slots[LA_K]) * LA_ROT_SLOTS * real, dbytes = (uint64_t)(p * n) * 2 * real;
    if ((st = rs_alloc(dev, bytes, s, &c.pc.tau)) != RS_OK) return st;
    if ((st = rs_alloc(dev, dbytes, s, &c.pc.info)) != RS_OK) {
        rs_free(dev, c.pc.tau);
        return st;
    }
    const rs_tensor diag = real_diagonal(h);
    rs_tensor base = rs_tensor_rows(c.pc.info, real_dt, p, n), corr;
    base.strides[0] = 2 * n, base.strides[1] = 2;
    corr = base;
    corr.address += real;
    static const uint64_t zero[2] = {0, 0};
    st = rs_copy(s, &base, &diag);
    if (st == RS_OK) st = rs_fill(s, &corr, zero);
    rs_access cols[3] = {rs_tensor_access(h, 1), {c.pc.tau, bytes, 1}, {0}};
    rs_access rows[3] = {rs_tensor_access(h, 1), {c.pc.tau, bytes, 0}, {c.pc.info, dbytes, 1}};
    if (v) cols[2] = rs_tensor_access(v, 1);
    for (int sweep = 0; sweep < sweeps && st == RS_OK; ++sweep)
        for (int64_t r = 0; r + 1 < n && st == RS_OK; ++r) {
            c.pc.round = (uint32_t)r;
            st = dispatch(s, &c, MODE_JACOBI_COLS, 0, cols, v ? 3 : 2);
            if (st == RS_OK) st = dispatch(s, &c, MODE_JACOBI_ROWS, 0, rows, 3);
        }
    rs_free(dev, c.pc.tau); /* reused only after this stream's work */
    rs_free(dev, c.pc.info);
    return st;
}

/* ---- the blocked drivers, for matrices past LA_BLOCK rows or columns (the
 * unblocked kernels run a matrix on one workgroup: a 1024 x 1024 Cholesky
 * took 467 ms on an H100 that way, cuSOLVER 0.43 ms; MODE 0 and 2 hold
 * their block in registers and take at most LA_BLOCK rows): LAPACK's
 * right-looking potrf and getrf and a blocked trsm, LA_BLOCK columns a
 * step, each step a factorization of the block (MODE 0, or MODE 12 for an
 * LU panel), a triangular solve of the block row or column (MODE 2) and the
 * trailing update as one GEMM (the GEMM engine's tiles). The batch runs
 * together: each dispatch covers every matrix. Rounding differs from the
 * unblocked kernels' as LAPACK's blocked potrf/getrf differ from
 * potf2/getf2 (the GEMM's products are fused); CPU's LAPACK is blocked at
 * these sizes too. */

/* c -= op(a) @ op(b) in place, op the conjugate where asked */
static rs_status gemm_subtract(rs_stream *s, const rs_tensor *a, int conj_a, const rs_tensor *b, int conj_b,
                               const rs_tensor *c) {
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = c->dtype, d.batch = c->sizes[0], d.m = c->sizes[1], d.n = c->sizes[2], d.k = a->sizes[2];
    d.a = rs_gemm_operand_of(a, 0), d.b = rs_gemm_operand_of(b, 0), d.c = d.cin = rs_gemm_operand_of(c, 0);
    d.use_cin = 1, d.conj_a = conj_a, d.conj_b = conj_b;
    rs_gemm_scalar(c->dtype, -1.0, d.alpha);
    rs_gemm_scalar(c->dtype, 1.0, d.beta);
    return rs_gemm(s, &d);
}

/* one block's factorization by MODE 0 (Cholesky, in place on the diagonal
 * block d) or MODE 12 (the LU panel d, its pivots into piv's view):
 * info and pivots offset by j0, an earlier block's info kept */
static rs_status factor_block(rs_stream *s, la_call *c, int mode, const rs_tensor *d, const rs_tensor *piv,
                              const rs_tensor *info, int64_t j0) {
    const int64_t m = d->sizes[1], n = d->sizes[2];
    memset(c->slots, 0, sizeof c->slots);
    memset(&c->pc, 0, sizeof c->pc);
    c->slots[LA_P] = d->sizes[0], c->slots[LA_M] = m, c->slots[LA_N] = n, c->slots[LA_K] = m < n ? m : n;
    c->slots[LA_J0] = j0;
    put_strides(c->slots, LA_A_ST, d), put_strides(c->slots, LA_OUT_ST, d), put_strides(c->slots, LA_INFO_ST, info);
    c->pc.a = c->pc.res = d->address, c->pc.info = info->address;
    c->pc.flags = j0 > 0 ? LA_F_INFO_KEEP : 0u;
    rs_access acc[3] = {rs_tensor_access(d, 1), rs_tensor_access(info, 1), {0, 0, 0}};
    if (piv) {
        put_strides(c->slots, LA_PIV_ST, piv);
        c->pc.piv = piv->address;
        acc[2] = rs_tensor_access(piv, 1);
    }
    return dispatch(s, c, mode, m, acc, piv ? 3 : 2);
}

static rs_status cholesky_blocked(rs_stream *s, la_call *c, const rs_tensor *a, int conj_a, const rs_tensor *l,
                                  const rs_tensor *info) {
    const int64_t n = a->sizes[1];
    const int cj = rs_dtype_is_complex(a->dtype);
    /* l = a (conjugated with conj_a), factored in place: for each block
     * column, the diagonal block's factor, the block column below it
     * solved against it (B L11^-H, as L11-bar Y = B^T on B's transposed
     * view), and A22 -= B B^H; then zeros above the diagonal */
    rs_status st = conj_a ? copy_conj(s, c->op, l, a) : rs_copy(s, l, a);
    for (int64_t j0 = 0; j0 < n && st == RS_OK; j0 += LA_BLOCK) {
        const int64_t jb = n - j0 < LA_BLOCK ? n - j0 : LA_BLOCK, r = n - j0 - jb;
        const rs_tensor d = block_of(l, j0, jb, j0, jb);
        st = factor_block(s, c, MODE_CHOLESKY, &d, NULL, info, j0);
        if (st != RS_OK || r == 0) continue;
        const rs_tensor b = block_of(l, j0 + jb, r, j0, jb), bt = transposed(&b),
                        a22 = block_of(l, j0 + jb, r, j0 + jb, r);
        st = rs_triangular_solve(s, &d, cj, 0, 0, &bt);
        if (st == RS_OK) st = gemm_subtract(s, &b, 0, &bt, cj, &a22);
    }
    return st != RS_OK ? st : rs_triangle(s, l, 1, 0, 0, l);
}

static rs_status lu_blocked(rs_stream *s, la_call *c, const rs_tensor *a, const rs_tensor *piv, const rs_tensor *info) {
    const int64_t m = a->sizes[1], n = a->sizes[2], k = m < n ? m : n;
    rs_status st = RS_OK;
    /* a panel whose rows are not adjacent in memory is factored in a
     * column-major copy: MODE 12 deals rows to invocations, and only there
     * do neighbouring invocations read neighbouring addresses (a row-major
     * 1024 x 1024 LU's panels took 3.2 ms each on an H100, every load its
     * own memory transaction) */
    rs_device *dev = rs_stream_device(s);
    uint64_t scratch = 0;
    if (a->strides[1] != 1 &&
        (st = rs_alloc(dev, (uint64_t)(a->sizes[0] * m * LA_BLOCK) * rs_dtype_size(a->dtype), s, &scratch)) != RS_OK)
        return st;
    /* for each panel (rows j0.., columns j0..j0 + jb): getf2 on it (MODE
     * 12), its interchanges applied to the columns right of it, U12 =
     * L11^-1 A12 (unit lower), A22 -= L21 U12; the interchanges of L's
     * columns (left of each panel) at the end, in one dispatch */
    for (int64_t j0 = 0; j0 < k && st == RS_OK; j0 += LA_BLOCK) {
        const int64_t jb = k - j0 < LA_BLOCK ? k - j0 : LA_BLOCK, right = n - j0 - jb, below = m - j0 - jb;
        const rs_tensor panel = block_of(a, j0, m - j0, j0, jb), pv = entries_of(piv, j0, jb);
        rs_tensor work = panel;
        if (scratch) {
            work.address = scratch;
            work.strides[0] = (m - j0) * jb, work.strides[1] = 1, work.strides[2] = m - j0;
            st = rs_copy(s, &work, &panel);
        }
        if (st == RS_OK) st = factor_block(s, c, MODE_PANEL_LU, &work, &pv, info, j0);
        if (st == RS_OK && scratch) st = rs_copy(s, &panel, &work);
        if (st != RS_OK || right == 0) continue;
        const rs_tensor rows = block_of(a, j0, m - j0, j0 + jb, right), l11 = block_of(a, j0, jb, j0, jb),
                        u12 = block_of(a, j0, jb, j0 + jb, right);
        st = lu_permute(s, &pv, j0, 0, 0, &rows);
        if (st == RS_OK) st = rs_triangular_solve(s, &l11, 0, 0, 1, &u12);
        if (st == RS_OK && below > 0) {
            const rs_tensor l21 = block_of(a, j0 + jb, below, j0, jb), a22 = block_of(a, j0 + jb, below, j0 + jb, right);
            st = gemm_subtract(s, &l21, 0, &u12, 0, &a22);
        }
    }
    if (scratch) rs_free(dev, scratch); /* reused only after this stream's work */
    if (st != RS_OK || k <= LA_BLOCK) return st;
    const rs_tensor left = block_of(a, 0, m, 0, k);
    return lu_permute(s, piv, 0, 1, 0, &left);
}

static rs_status trsm_blocked(rs_stream *s, const rs_tensor *a, int conj_a, int upper, int unit, const rs_tensor *x) {
    const int64_t n = a->sizes[1], k = x->sizes[2], blocks = (n + LA_BLOCK - 1) / LA_BLOCK;
    rs_status st = RS_OK;
    /* block b of X from its diagonal block, then the rows not yet solved
     * (below it for lower A, above for upper) less A's block column times it */
    for (int64_t b = 0; b < blocks && st == RS_OK; ++b) {
        const int64_t i0 = (upper ? blocks - 1 - b : b) * LA_BLOCK, ib = n - i0 < LA_BLOCK ? n - i0 : LA_BLOCK;
        const rs_tensor d = block_of(a, i0, ib, i0, ib), xb = block_of(x, i0, ib, 0, k);
        st = rs_triangular_solve(s, &d, conj_a, upper, unit, &xb);
        const int64_t r0 = upper ? 0 : i0 + ib, rows = upper ? i0 : n - i0 - ib;
        if (st != RS_OK || rows == 0) continue;
        const rs_tensor ab = block_of(a, r0, rows, i0, ib), xr = block_of(x, r0, rows, 0, k);
        st = gemm_subtract(s, &ab, conj_a, &xb, 0, &xr);
    }
    return st;
}

/* ---- solves from the factors (linalg.lu_solve and linalg.solve, inv,
 * cholesky_solve and cholesky_inverse): each a few of the dispatches
 * above on x in place */

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

int rs_jacobi_sweeps(int64_t np) {
    int sweeps = 6;
    for (int64_t w = 1; w < np; w *= 2) ++sweeps;
    return sweeps;
}

#define SVD_MAX_N 128

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

/* ---- what linalg's ops assemble from the factorizations */

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

/* ---- the SVD (linalg.svd, svdvals; matrix_norm 'nuc'/2/-2, cond,
 * matrix_rank, pinv through _linalg_svd) by one-sided Jacobi */

/* out[p, r, c] = x[p, r, idx[p, c]]: x's columns in the order idx (P, k)
 * gives, out (P, rows, k) (the rows share each matrix's index row) */
static rs_status gather_columns(rs_stream *s, const rs_tensor *x, const rs_tensor *idx, const rs_tensor *out) {
    rs_gather g;
    memset(&g, 0, sizeof g);
    g.mode = RS_GATHER;
    g.dim = 2;
    g.self = *x;
    g.other = *out;
    g.index = *out;
    g.index.address = idx->address, g.index.dtype = RS_INT64;
    g.index.strides[0] = idx->strides[0], g.index.strides[1] = 0, g.index.strides[2] = idx->strides[1];
    return rs_gather_run(s, &g);
}

/* u_c = q_c r_cc / |r_cc| (1 for 0) for the first k columns of q (P, m, >= k),
 * r as rs_geqrf leaves it (MODE 10) */
static rs_status u_phases(rs_stream *s, const rs_tensor *r, const rs_tensor *q, int64_t k) {
    la_call c;
    begin(&c, "linalg.svd");
    rs_status st = check_dtype(s, &c, r);
    if (st != RS_OK) return st;
    c.slots[LA_P] = q->sizes[0], c.slots[LA_M] = q->sizes[1], c.slots[LA_K] = k;
    put_strides(c.slots, LA_A_ST, r), put_strides(c.slots, LA_OUT_ST, q);
    c.pc.a = r->address, c.pc.res = q->address;
    rs_access acc[2] = {rs_tensor_access(r, 0), rs_tensor_access(q, 1)};
    return dispatch(s, &c, MODE_U_PHASE, 0, acc, 2);
}

/* out = the orthonormal basis of x's columns (P, m, n), n <= m, from their
 * QR: q_c r_cc / |r_cc| for c < n (x's c-th column normalized, where x's
 * columns are orthogonal already), Q's further columns past n where out
 * (P, m, n..m) has them. x: a contiguous scratch copy, which geqrf
 * overwrites. The Jacobi vectors go through it: a rotation's c^2 + s^2 is
 * 1 only to float32's rounding, and V's column norms drift by that over
 * the sweeps' thousands of rotations (1e-5 at n = 64), while Householder's
 * Q is orthonormal to its rounding (4e-7, as LAPACK's vectors). */
static rs_status orthonormal_basis(rs_scratch *sc, const rs_tensor *x, const rs_tensor *out) {
    const int64_t p = x->sizes[0], n = x->sizes[2];
    uint64_t ta = 0;
    rs_status st = rs_scratch_take(sc, (uint64_t)(p * n) * rs_dtype_size(x->dtype), &ta);
    const rs_tensor tau = rs_tensor_rows(ta, x->dtype, p, n);
    if (st == RS_OK) st = rs_geqrf(sc->s, x, &tau);
    if (st == RS_OK) st = rs_householder_product(sc->s, x, &tau, out);
    if (st == RS_OK) st = u_phases(sc->s, x, out, n);
    return st;
}

/* x (P, m, n) times a power of two a matrix, each largest |element| into
 * [0.5, 1), the factors into f (P) float32 (MODE 11). The Jacobi drivers
 * scale first: squared norms of a matrix near 1e-16 underflowed float32
 * (singular values 33% off), near 1e19 overflowed, and couplings below
 * the rotations' absolute floor (1e-30) were left alone */
static rs_status scale_matrices(rs_stream *s, const char *op, const rs_tensor *x, uint64_t f) {
    la_call c;
    begin(&c, op);
    rs_status st = check_dtype(s, &c, x);
    if (st != RS_OK) return st;
    c.slots[LA_P] = x->sizes[0], c.slots[LA_M] = x->sizes[1], c.slots[LA_N] = x->sizes[2], c.slots[LA_K] = 1;
    put_strides(c.slots, LA_A_ST, x);
    c.pc.a = x->address, c.pc.tau = f;
    const uint64_t bytes = (uint64_t)x->sizes[0] * rs_dtype_size(real_of(c.dt));
    rs_access acc[2] = {rs_tensor_access(x, 1), {f, bytes, 1}};
    return dispatch(s, &c, MODE_SCALE, 0, acc, 2);
}

/* out (P, n) = values (P, n) / f[p], f as scale_matrices leaves it */
static rs_status unscale_values(rs_stream *s, const char *op, const rs_tensor *values, uint64_t f,
                                const rs_tensor *out) {
    rs_tensor fv = rs_tensor_rows(f, RS_FLOAT32, values->sizes[0], 1);
    fv.sizes[1] = values->sizes[1], fv.strides[1] = 0; /* a matrix's factor for each of its values */
    return rs_table_op(s, RS_PW_DIV, op, RS_FLOAT32, out, 2, values, 0, &fv, 0, 0, 0);
}

/* out = the orthonormal basis (orthonormal_basis) of x's columns in the
 * order idx (P, n) gives: x (P, rows, >= n), out (P, rows, n or more) */
static rs_status sorted_basis(rs_scratch *sc, const rs_tensor *x, const rs_tensor *idx, const rs_tensor *out) {
    rs_tensor xs;
    const int64_t n = idx->sizes[1];
    rs_status st = padded_batch(sc, x->dtype, x->sizes[0], out->sizes[1], n, n, &xs);
    if (st == RS_OK) st = gather_columns(sc->s, x, idx, &xs);
    if (st == RS_OK) st = orthonormal_basis(sc, &xs, out);
    return st;
}

/* The Jacobi drivers' scratch: x (P, rows, np) zero past its first n
 * columns (the padding to an even count), V (P, np, np) the identity when
 * vecs, the values' rows (P, nv) float32, their sorted first n and, when
 * vecs, the sort's indices (P, n); f the matrices' scale factors (P
 * float32, scale_matrices) */
typedef struct jacobi_work {
    rs_tensor x, v, vals, sorted, idx;
    uint64_t f;
} jacobi_work;

static rs_status jacobi_work_take(rs_scratch *sc, rs_dtype dt, int64_t p, int64_t rows, int64_t n, int64_t nv,
                                  int vecs, jacobi_work *j) {
    const int64_t np = n + n % 2;
    uint64_t va = 0, sa = 0, ia = 0;
    memset(j, 0, sizeof *j);
    rs_status st = padded_batch(sc, dt, p, rows, np, n, &j->x);
    if (st == RS_OK && vecs) st = padded_batch(sc, dt, p, np, np, np, &j->v);
    if (st == RS_OK && vecs) st = fill_identity(sc->s, &j->v);
    if (st == RS_OK) st = rs_scratch_take(sc, (uint64_t)(p * nv) * 4u, &va);
    if (st == RS_OK) st = rs_scratch_take(sc, (uint64_t)(p * n) * 4u, &sa);
    if (st == RS_OK && vecs) st = rs_scratch_take(sc, (uint64_t)(p * n) * 8u, &ia);
    if (st == RS_OK) st = rs_scratch_take(sc, (uint64_t)p * 4u, &j->f);
    j->vals = rs_tensor_rows(va, RS_FLOAT32, p, nv);
    j->sorted = rs_tensor_rows(sa, RS_FLOAT32, p, n);
    j->idx = rs_tensor_rows(ia, RS_INT64, p, n);
    return st;
}

rs_status rs_svd(rs_stream *s, const rs_tensor *a, int full, const rs_tensor *sv, const rs_tensor *u,
                 const rs_tensor *vh) {
    static const char op[] = "linalg.svd";
    if (!s || !a || !sv || !u != !vh) return rs_error(RS_ERR_INVALID, "rs_svd: missing arguments");
    rs_status st;
    if ((st = jacobi_dtype(op, a)) != RS_OK) return st;
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", op);
    /* B = a, or a^H for a wide a (a = V_B S U_B^H then): m >= n */
    const int wide = a->sizes[1] < a->sizes[2];
    const rs_tensor b = wide ? transposed(a) : *a;
    const int64_t p = b.sizes[0], m = b.sizes[1], n = b.sizes[2], np = n + n % 2;
    if ((st = jacobi_out(op, sv, p, n, "(P, min(m, n))", "columns", SVD_MAX_N)) != RS_OK) return st;
    const int vecs = u != NULL;
    if (vecs) {
        const int64_t rows = a->sizes[1], cols = a->sizes[2];
        if (u->ndim != 3 || vh->ndim != 3 || u->dtype != a->dtype || vh->dtype != a->dtype || u->sizes[0] != p ||
            vh->sizes[0] != p || u->sizes[1] != rows || u->sizes[2] != (full ? rows : n) ||
            vh->sizes[1] != (full ? cols : n) || vh->sizes[2] != cols)
            return rs_error(RS_ERR_INVALID, "%s: u must be (P, m, %s) and vh (P, %s, n) of a's dtype", op,
                            full ? "m" : "min(m, n)", full ? "n" : "min(m, n)");
    }
    if (p == 0) return RS_OK;
    if (n == 0) /* no values; the full bases of an empty matrix are identities */
        return !vecs || !full ? RS_OK : (st = fill_identity(s, u)) != RS_OK ? st : fill_identity(s, vh);
    rs_scratch sc = {s, {0}, 0};
    /* W: B's columns, and a zero column for odd n; V from the identity */
    jacobi_work j;
    st = jacobi_work_take(&sc, a->dtype, p, m, n, np, vecs, &j);
    const rs_tensor wn = top_left(&j.x, m, n);
    if (st == RS_OK) st = wide ? copy_conj(s, op, &wn, &b) : rs_copy(s, &wn, &b);
    /* each matrix scaled by a power of two (exact; scale_matrices), the
     * values divided by it at the end */
    if (st == RS_OK) st = scale_matrices(s, op, &wn, j.f);
    if (st == RS_OK) st = rs_jacobi_svd_columns(s, &j.x, vecs ? &j.v : NULL, rs_jacobi_sweeps(np));
    /* the columns' norms (P, 1, np), sorted descending (stable: the
     * padding's 0 sorts after every column's) */
    rs_tensor norms = j.x;
    norms.address = j.vals.address, norms.dtype = RS_FLOAT32;
    norms.sizes[1] = 1, norms.strides[0] = np, norms.strides[1] = 0;
    if (st == RS_OK) {
        rs_reduce r;
        memset(&r, 0, sizeof r);
        r.name = op;
        r.op = RS_REDUCE_NORM;
        r.acc = a->dtype;
        r.in = j.x;
        r.out = norms;
        r.p = 2;
        st = rs_reduce_run(s, &r);
    }
    if (st == RS_OK) st = rs_sort(s, &j.vals, 1, n, &j.sorted, vecs ? &j.idx : NULL);
    if (st == RS_OK) st = unscale_values(s, op, &j.sorted, j.f, sv);
    if (st == RS_OK && vecs) {
        /* B = U_B S V_B^H: U_B the orthonormal basis of W's sorted columns
         * (u_c = w_c / s_c, which also completes U_B where B is rank
         * deficient, a zero column, and past n), V_B V's sorted columns'.
         * a tall: U = U_B, V^H = V_B^H; a wide: U = V_B, V^H = U_B^H (each
         * formed in place where it is not transposed) */
        rs_tensor ub, vb;
        const int64_t qc = full ? m : n;
        if (wide) {
            vb = *u;
            st = padded_batch(&sc, a->dtype, p, m, qc, qc, &ub);
        } else {
            ub = *u;
            st = padded_batch(&sc, a->dtype, p, n, n, n, &vb);
        }
        if (st == RS_OK) st = sorted_basis(&sc, &j.x, &j.idx, &ub);
        if (st == RS_OK) st = sorted_basis(&sc, &j.v, &j.idx, &vb);
        const rs_tensor t = transposed(wide ? &ub : &vb);
        if (st == RS_OK) st = copy_conj(s, op, vh, &t);
    }
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_svdvals(rs_stream *s, const rs_tensor *a, const rs_tensor *out) {
    return rs_svd(s, a, 0, out, NULL, NULL);
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

#define EIGH_MAX_N 128

rs_status rs_eigh(rs_stream *s, const rs_tensor *a, int upper, const rs_tensor *out, const rs_tensor *vectors) {
    static const char op[] = "linalg.eigh";
    if (!s || !a || !out) return rs_error(RS_ERR_INVALID, "rs_eigh: missing arguments");
    rs_status st;
    if ((st = jacobi_dtype(op, a)) != RS_OK) return st;
    if (a->ndim != 3 || a->sizes[1] != a->sizes[2])
        return rs_error(RS_ERR_INVALID, "%s: a must be a (P, n, n) view", op);
    const int64_t p = a->sizes[0], n = a->sizes[1], np = n + n % 2;
    if ((st = jacobi_out(op, out, p, n, "(P, n)", "rows", EIGH_MAX_N)) != RS_OK) return st;
    if (vectors && (vectors->ndim != 3 || vectors->dtype != a->dtype || vectors->sizes[0] != p ||
                    vectors->sizes[1] != n || vectors->sizes[2] != n))
        return rs_error(RS_ERR_INVALID, "%s: vectors must be (P, n, n) of a's dtype", op);
    if (p == 0 || n == 0) return RS_OK;
    rs_scratch sc = {s, {0}, 0};
    /* H: the Hermitian matrix a's triangle stands for, and a zero row and
     * column for odd n (they stay apart: their couplings are 0, so V's
     * padding column stays e_n); V from the identity */
    jacobi_work j;
    st = jacobi_work_take(&sc, a->dtype, p, np, n, n, vectors != NULL, &j);
    const rs_tensor hn = top_left(&j.x, n, n);
    if (st == RS_OK) st = rs_triangle(s, a, !upper, 0, 1, &hn);
    /* scaled by a power of two (scale_matrices), the values divided by it */
    if (st == RS_OK) st = scale_matrices(s, op, &hn, j.f);
    if (st == RS_OK) st = rs_jacobi_eigh(s, &j.x, vectors ? &j.v : NULL, rs_jacobi_sweeps(np));
    /* the diagonal's real parts, ascending */
    const rs_tensor diag = real_diagonal(&hn);
    if (st == RS_OK) st = rs_copy(s, &j.vals, &diag);
    if (st == RS_OK) st = rs_sort(s, &j.vals, 0, n, &j.sorted, vectors ? &j.idx : NULL);
    if (st == RS_OK) st = unscale_values(s, op, &j.sorted, j.f, out);
    /* the eigenvectors: V's columns in the values' order, made orthonormal
     * to Householder's rounding */
    if (st == RS_OK && vectors) st = sorted_basis(&sc, &j.v, &j.idx, vectors);
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_eigvalsh(rs_stream *s, const rs_tensor *a, int upper, const rs_tensor *out) {
    return rs_eigh(s, a, upper, out, NULL);
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
