/* lstsq.c: rs_lstsq, least squares by the SVD (the contract is in
 * russet/linalg.h): U, S, V^H from rs_svd, the cut reciprocals of S, then
 * x = V^H^H (S+ (U^H b)) by two products on the GEMM engine; the rank, the
 * residuals and gels's full-rank flag from the same values. */
#include <string.h>

#include "engine/engine.h"
#include "russet/gemm.h"
#include "russet/linalg.h"
#include "russet/pointwise.h"
#include "russet/reduce.h"

static const char op_name[] = "linalg.lstsq";

/* c = alpha op(a) op(b) (+ beta cin): (P, rows, inner) by (P, inner, cols) */
static rs_status product(rs_stream *s, rs_dtype dt, int64_t p, int64_t rows, int64_t cols, int64_t inner,
                         rs_gemm_operand a, int conj_a, rs_gemm_operand b, const rs_tensor *c, const rs_tensor *cin) {
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt;
    d.batch = p, d.m = rows, d.n = cols, d.k = inner;
    d.a = a, d.b = b;
    d.conj_a = conj_a;
    d.c = rs_gemm_operand_of(c, 0);
    rs_gemm_scalar(dt, 1.0, d.alpha);
    if (cin) { /* c = a b - cin */
        d.use_cin = 1;
        d.cin = rs_gemm_operand_of(cin, 0);
        rs_gemm_scalar(dt, -1.0, d.beta);
    }
    return rs_gemm(s, &d);
}

/* out = expr(in0, in1) over out's shape (engine expressions, kernels/common/ops*.glsl) */
static rs_status apply(rs_stream *s, const char *name, const char *expr, rs_dtype compute, const rs_tensor *out,
                       const rs_tensor *in0, const rs_tensor *in1, double s0) {
    rs_pointwise q;
    memset(&q, 0, sizeof q);
    q.name = name;
    q.expr = expr;
    q.common = q.compute = q.result = compute;
    q.ninputs = in1 ? 2 : 1;
    q.out = *out;
    q.in[0] = *in0;
    if (in1) q.in[1] = *in1;
    q.nscalars = 1;
    rs_opmath_scalar(compute, s0, q.s[0]);
    if (compute == RS_INT64) q.s[0][0].i = (int64_t)s0;
    return rs_pointwise_run(s, &q);
}

static int is_3d(const rs_tensor *t, int64_t p, int64_t rows, int64_t cols) {
    return t->ndim == 3 && t->sizes[0] == p && t->sizes[1] == rows && t->sizes[2] == cols;
}

rs_status rs_lstsq(rs_stream *s, const rs_tensor *a, const rs_tensor *b, double rcond, const rs_tensor *x,
                   const rs_tensor *rank, const rs_tensor *sv, const rs_tensor *resid, const rs_tensor *info) {
    if (!s || !a || !b || !x) return rs_error(RS_ERR_INVALID, "rs_lstsq: missing arguments");
    const rs_dtype dt = a->dtype;
    if (dt != RS_FLOAT32 && dt != RS_COMPLEX64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", op_name, rs_dtype_name(dt));
    if (a->ndim != 3) return rs_error(RS_ERR_INVALID, "%s: a must be a (P, m, n) view", op_name);
    const int64_t p = a->sizes[0], m = a->sizes[1], n = a->sizes[2], kk = m < n ? m : n;
    const int64_t k = b->ndim == 3 ? b->sizes[2] : -1;
    if (b->dtype != dt || x->dtype != dt || !is_3d(b, p, m, k) || !is_3d(x, p, n, k) ||
        (rank && (rank->dtype != RS_INT64 || rs_tensor_numel(rank) != p || !rs_tensor_is_contiguous(rank))) ||
        (sv && (sv->dtype != RS_FLOAT32 || rs_tensor_numel(sv) != p * kk || !rs_tensor_is_contiguous(sv))) ||
        (resid && (resid->dtype != RS_FLOAT32 || rs_tensor_numel(resid) != p * k || !rs_tensor_is_contiguous(resid))) ||
        (info && (info->dtype != RS_INT32 || rs_tensor_numel(info) != p || !rs_tensor_is_contiguous(info))))
        return rs_error(RS_ERR_INVALID, "%s: b (P, m, k) and x (P, n, k) of a's dtype; rank (P) int64, sv (P, "
                        "min(m, n)) and resid (P, k) real, info (P) int32, contiguous", op_name);
    if (kk < 1) return rs_error(RS_ERR_UNSUPPORTED, "%s: empty matrices are the caller's", op_name);
    if (p == 0 || k == 0) return RS_OK;
    const size_t es = rs_dtype_size(dt);
    rs_scratch c = {s, {0}, 0};
    uint64_t au, as, ah, ai, ac, ax = x->address;
    rs_status st;
    if ((st = rs_scratch_take(&c, (uint64_t)(p * m * kk) * es, &au)) ||
        (st = rs_scratch_take(&c, (uint64_t)(p * kk) * 4u, &as)) ||
        (st = rs_scratch_take(&c, (uint64_t)(p * kk * n) * es, &ah)) ||
        (st = rs_scratch_take(&c, (uint64_t)(p * kk) * 4u, &ai)) ||
        (st = rs_scratch_take(&c, (uint64_t)(p * kk * k) * es, &ac)) ||
        (resid && (st = rs_scratch_take(&c, (uint64_t)(p * n * k) * es, &ax))))
        goto done;
    const rs_tensor u = rs_tensor_dense_like(&(rs_tensor){.ndim = 3, .sizes = {p, m, kk}}, au, dt);
    const rs_tensor vh = rs_tensor_dense_like(&(rs_tensor){.ndim = 3, .sizes = {p, kk, n}}, ah, dt);
    const rs_tensor sval = rs_tensor_rows(as, RS_FLOAT32, p, kk), inv = rs_tensor_rows(ai, RS_FLOAT32, p, kk);
    if ((st = rs_svd(s, a, 0, &sval, &u, &vh)) != RS_OK) goto done;
    /* S+: 1 / s where s > rcond * the matrix's largest, else 0 */
    rs_tensor largest = sval;
    largest.strides[1] = 0;
    if ((st = apply(s, "lstsq_cut", "(a > s0 * b ? 1.0 / a : 0.0)", RS_FLOAT32, &inv, &sval, &largest, rcond)))
        goto done;
    if (rank) {
        const rs_tensor r = rs_tensor_rows(rank->address, RS_INT64, p, 1);
        if ((st = rs_reduce_into(s, op_name, RS_REDUCE_COUNT_NONZERO, RS_FLOAT32, &inv, &r)) != RS_OK) goto done;
    }
    if (sv) {
        const rs_tensor to = rs_tensor_rows(sv->address, RS_FLOAT32, p, kk);
        if ((st = rs_copy(s, &to, &sval)) != RS_OK) goto done;
    }
    if (info) { /* gels: 0 where a has full rank, else its nonzero values' count + 1 */
        uint64_t an;
        if ((st = rs_scratch_take(&c, (uint64_t)p * 8u, &an)) != RS_OK) goto done;
        const rs_tensor count = rs_tensor_rows(an, RS_INT64, p, 1), flag = rs_tensor_rows(info->address, RS_INT32, p, 1);
        if ((st = rs_reduce_into(s, op_name, RS_REDUCE_COUNT_NONZERO, RS_FLOAT32, &sval, &count)) != RS_OK) goto done;
        if ((st = apply(s, "lstsq_full_rank", "(a < s0 ? a + int64_t(1) : int64_t(0))", RS_INT64, &flag, &count,
                        NULL, (double)kk)))
            goto done;
    }
    /* c = S+ (U^H b), then x = (V^H)^H c */
    const rs_tensor cm = rs_tensor_dense_like(&(rs_tensor){.ndim = 3, .sizes = {p, kk, k}}, ac, dt);
    if ((st = product(s, dt, p, kk, k, m, rs_gemm_operand_of(&u, 1), dt == RS_COMPLEX64, rs_gemm_operand_of(b, 0),
                      &cm, NULL)))
        goto done;
    rs_tensor scale = rs_tensor_dense_like(&cm, ai, RS_FLOAT32); /* inv (P, kk) along each row */
    scale.strides[0] = kk, scale.strides[1] = 1, scale.strides[2] = 0;
    if ((st = apply(s, "lstsq_scale", "(a * b)", dt, &cm, &cm, &scale, 0.0)) != RS_OK) goto done;
    rs_tensor xs = *x;
    if (resid) xs = rs_tensor_dense_like(x, ax, dt);
    if ((st = product(s, dt, p, n, k, kk, rs_gemm_operand_of(&vh, 1), dt == RS_COMPLEX64, rs_gemm_operand_of(&cm, 0),
                      &xs, NULL)))
        goto done;
    if (resid) { /* |a x - b|^2 over each column; then x */
        uint64_t ar, aq;
        if ((st = rs_scratch_take(&c, (uint64_t)(p * m * k) * es, &ar)) ||
            (st = rs_scratch_take(&c, (uint64_t)(p * m * k) * 4u, &aq)))
            goto done;
        const rs_tensor r = rs_tensor_dense_like(&(rs_tensor){.ndim = 3, .sizes = {p, m, k}}, ar, dt);
        const rs_tensor q = rs_tensor_dense_like(&r, aq, RS_FLOAT32);
        if ((st = product(s, dt, p, m, k, n, rs_gemm_operand_of(a, 0), 0, rs_gemm_operand_of(&xs, 0), &r, b)) != RS_OK)
            goto done;
        if ((st = apply(s, "lstsq_square", dt == RS_COMPLEX64 ? "dot(a, a)" : "(a * a)", RS_FLOAT32, &q, &r, NULL,
                        0.0)))
            goto done;
        rs_tensor to = *resid;
        to.ndim = 3, to.sizes[0] = p, to.sizes[1] = 1, to.sizes[2] = k;
        to.strides[0] = k, to.strides[1] = k, to.strides[2] = 1;
        if ((st = rs_reduce_into(s, op_name, RS_REDUCE_SUM, RS_FLOAT32, &q, &to)) != RS_OK) goto done;
        if ((st = rs_copy(s, x, &xs)) != RS_OK) goto done;
    }
done:
    rs_scratch_release(&c);
    return st;
}
