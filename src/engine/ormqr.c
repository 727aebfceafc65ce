/* ormqr.c: rs_ormqr, a product with the Q of Householder reflectors (the
 * contract is in russet/linalg.h), as LAPACK's ormqr / unmqr compute it:
 * Q = H_0 H_1 ... H_{r-1} formed whole (mq x mq) by rs_householder_product
 * into a scratch, then one product on the GEMM engine with Q, its
 * transpose or its conjugate transpose read in place. LAPACK applies the
 * reflectors one by one (O(mq r n) work, Q never formed); forming Q costs
 * O(mq^2 r) more, which the GEMM engine's speed repays for the sizes
 * PyTorch users pass (the Q of a QR, applied to a block of vectors). */
#include <string.h>

#include "engine/engine.h"
#include "russet/gemm.h"
#include "russet/linalg.h"

static const char op_name[] = "ormqr";

rs_status rs_ormqr(rs_stream *s, const rs_tensor *v, const rs_tensor *tau, const rs_tensor *c, int left,
                   int transpose, const rs_tensor *out) {
    if (!s || !v || !tau || !c || !out) return rs_error(RS_ERR_INVALID, "%s: missing arguments", op_name);
    if (v->ndim != 3 || tau->ndim != 2 || c->ndim != 3 || out->ndim != 3)
        return rs_error(RS_ERR_INVALID, "%s: v, c and out must be (P, rows, cols), tau (P, r)", op_name);
    const rs_dtype dt = c->dtype;
    if (v->dtype != dt || tau->dtype != dt || out->dtype != dt)
        return rs_error(RS_ERR_INVALID, "%s: v, tau, c and out must have one dtype", op_name);
    const int64_t p = c->sizes[0], m = c->sizes[1], n = c->sizes[2], mq = left ? m : n;
    if (v->sizes[0] != p || tau->sizes[0] != p || out->sizes[0] != p || out->sizes[1] != m || out->sizes[2] != n)
        return rs_error(RS_ERR_INVALID, "%s: v, tau and out must have c's batch, out c's shape", op_name);
    if (v->sizes[1] != mq)
        return rs_error(RS_ERR_INVALID, "%s: v must have %lld rows (c's %s), got %lld", op_name, (long long)mq,
                        left ? "rows" : "columns", (long long)v->sizes[1]);
    if (tau->sizes[1] > v->sizes[2] || tau->sizes[1] > mq)
        return rs_error(RS_ERR_INVALID, "%s: %lld reflectors need as many columns and rows in v", op_name,
                        (long long)tau->sizes[1]);
    if (p == 0 || m == 0 || n == 0) return RS_OK;
    rs_scratch sc = {s, {0}, 0};
    uint64_t qa = 0;
    rs_status st = rs_scratch_take(&sc, (uint64_t)(p * mq * mq) * rs_dtype_size(dt), &qa);
    const rs_tensor q = rs_tensor_dense_like(&(rs_tensor){.ndim = 3, .sizes = {p, mq, mq}}, qa, dt);
    if (st == RS_OK) st = rs_householder_product(s, v, tau, &q);
    if (st == RS_OK) {
        /* left: out = op(Q) c; right: out = c op(Q); op(Q) = Q^H read as
         * Q's transpose, conjugated by the GEMM */
        const int conj = transpose && rs_dtype_is_complex(dt);
        rs_gemm_desc d;
        memset(&d, 0, sizeof d);
        d.dtype = dt;
        d.batch = p, d.m = m, d.n = n, d.k = mq;
        d.a = left ? rs_gemm_operand_of(&q, transpose) : rs_gemm_operand_of(c, 0);
        d.b = left ? rs_gemm_operand_of(c, 0) : rs_gemm_operand_of(&q, transpose);
        d.conj_a = left && conj, d.conj_b = !left && conj;
        d.c = rs_gemm_operand_of(out, 0);
        rs_gemm_scalar(dt, 1.0, d.alpha);
        st = rs_gemm(s, &d);
    }
    rs_scratch_release(&sc);
    return st;
}
