/* matrix_exp.c: rs_matrix_exp, the matrix exponential by scaling and
 * squaring (the contract is in russet/linalg.h): the batch's largest
 * 1-norm read back for the scaling s, Horner's rule for the Taylor
 * polynomial of 2^-s a (one GEMM a degree, the identity added as the
 * GEMM's Cin), then s squarings, ping-ponging between two scratch
 * matrices and the output. */
#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "russet/gemm.h"
#include "russet/linalg.h"
#include "russet/reduce.h"

static const char op_name[] = "linalg.matrix_exp";

static int is_wide(rs_dtype dt) { return dt == RS_FLOAT64 || dt == RS_COMPLEX128; }

/* c = alpha a b (+ cin) over the batch */
static rs_status product(rs_stream *s, const rs_tensor *a, const rs_tensor *b, const rs_tensor *c, double alpha,
                         const rs_tensor *cin) {
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = c->dtype;
    d.batch = c->sizes[0], d.m = d.n = d.k = c->sizes[1];
    d.a = rs_gemm_operand_of(a, 0), d.b = rs_gemm_operand_of(b, 0), d.c = rs_gemm_operand_of(c, 0);
    rs_gemm_scalar(c->dtype, alpha, d.alpha);
    if (cin) {
        d.use_cin = 1;
        d.cin = rs_gemm_operand_of(cin, 0);
        rs_gemm_scalar(c->dtype, 1.0, d.beta);
    }
    return rs_gemm(s, &d);
}

/* the largest 1-norm (column sums of |a|) of the batch, read back */
static rs_status largest_norm(rs_stream *s, rs_scratch *c, const rs_tensor *a, double *norm) {
    const rs_dtype real = is_wide(a->dtype) ? RS_FLOAT64 : RS_FLOAT32;
    const int64_t p = a->sizes[0], n = a->sizes[1];
    uint64_t cols, top;
    rs_status st;
    if ((st = rs_scratch_take(c, (uint64_t)(p * n) * 8u, &cols)) || (st = rs_scratch_take(c, 8u, &top))) return st;
    rs_tensor sums = rs_tensor_dense_like(a, cols, real); /* (P, 1, n) */
    sums.sizes[1] = 1, sums.strides[0] = n, sums.strides[1] = n;
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = op_name;
    r.op = RS_REDUCE_NORM;
    r.acc = is_wide(a->dtype) ? a->dtype : (rs_dtype_is_complex(a->dtype) ? RS_COMPLEX64 : RS_FLOAT32);
    r.p = 1.0;
    r.in = *a;
    r.out = sums;
    if ((st = rs_reduce_run(s, &r)) != RS_OK) return st;
    rs_tensor one = sums; /* (1, 1, 1) */
    one.address = top, one.sizes[0] = one.sizes[2] = 1;
    if ((st = rs_reduce_into(s, op_name, RS_REDUCE_MAX, real, &sums, &one)) != RS_OK) return st;
    if (real == RS_FLOAT64) return rs_memcpy_dtoh(s, norm, top, 8u);
    float f;
    st = rs_memcpy_dtoh(s, &f, top, 4u);
    *norm = f;
    return st;
}

/* t (P, n, n) = the identity in each matrix (the GEMM's Cin: batch stride 0 suffices) */
static rs_status fill_identity(rs_stream *s, const rs_tensor *t) {
    static const uint64_t zero[2] = {0, 0};
    const float f1 = 1.0f;
    uint64_t one[2] = {0, 0};
    rs_convert_host(one, t->dtype, &f1, RS_FLOAT32);
    rs_tensor d = *t;
    d.ndim = 2, d.sizes[1] = t->sizes[1], d.strides[1] = t->strides[1] + t->strides[2];
    rs_status st = rs_fill(s, t, zero);
    return st != RS_OK ? st : rs_fill(s, &d, one);
}

rs_status rs_matrix_exp(rs_stream *s, const rs_tensor *a, const rs_tensor *out) {
    if (!s || !a || !out) return rs_error(RS_ERR_INVALID, "rs_matrix_exp: missing arguments");
    const rs_dtype dt = a->dtype;
    if (a->ndim != 3 || a->sizes[1] != a->sizes[2] || out->ndim != 3 || out->dtype != dt ||
        memcmp(out->sizes, a->sizes, sizeof(int64_t) * 3) != 0)
        return rs_error(RS_ERR_INVALID, "%s: a and out must be (P, n, n) views of one dtype", op_name);
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_COMPLEX64 && !is_wide(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", op_name, rs_dtype_name(dt));
    if (is_wide(dt) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs fp64", op_name, rs_dtype_name(dt));
    const int64_t p = a->sizes[0], n = a->sizes[1];
    if (p == 0 || n == 0) return RS_OK;
    rs_scratch c = {s, {0}, 0};
    double norm = 0;
    rs_status st = largest_norm(s, &c, a, &norm);
    if (st != RS_OK) goto done;
    if (!isfinite(norm)) { /* NaN or inf in the batch */
        uint64_t nan[2] = {0, 0};
        const double qnan = NAN;
        const rs_dtype part = dt == RS_COMPLEX128 ? RS_FLOAT64 : dt == RS_COMPLEX64 ? RS_FLOAT32 : dt;
        const size_t half = rs_dtype_size(part);
        rs_convert_host(nan, part, &qnan, RS_FLOAT64); /* real part, and the imaginary one of a complex */
        if (rs_dtype_is_complex(dt)) rs_convert_host((char *)nan + half, part, &qnan, RS_FLOAT64);
        st = rs_fill(s, out, nan);
        goto done;
    }
    int squarings = 0;
    while (norm > 4.0 && squarings < 2000) norm *= 0.5, ++squarings;
    const int degree = is_wide(dt) ? 34 : 21;
    const uint64_t bytes = (uint64_t)(p * n * n) * rs_dtype_size(dt);
    uint64_t ai, a0, a1;
    if ((st = rs_scratch_take(&c, (uint64_t)(n * n) * rs_dtype_size(dt), &ai)) ||
        (st = rs_scratch_take(&c, bytes, &a0)) || (st = rs_scratch_take(&c, bytes, &a1)))
        goto done;
    rs_tensor eye = rs_tensor_dense_like(a, ai, dt);
    eye.sizes[0] = 1;
    if ((st = fill_identity(s, &eye)) != RS_OK) goto done;
    eye.sizes[0] = p, eye.strides[0] = 0;
    /* Horner: T = I + (2^-s / k) a T for k = degree .. 1, from T = I;
     * the last product (and the last squaring) lands in out */
    rs_tensor buf[2] = {rs_tensor_dense_like(a, a0, dt), rs_tensor_dense_like(a, a1, dt)};
    const double scale = ldexp(1.0, -squarings);
    const rs_tensor *t = &eye;
    int next = 0;
    for (int k = degree; k >= 1; --k) {
        const rs_tensor *dst = (k == 1 && squarings == 0) ? out : &buf[next];
        if ((st = product(s, a, t, dst, scale / k, &eye)) != RS_OK) goto done;
        t = dst, next ^= 1;
    }
    for (int i = 0; i < squarings; ++i) {
        const rs_tensor *dst = i + 1 == squarings ? out : &buf[next];
        if ((st = product(s, t, t, dst, 1.0, NULL)) != RS_OK) goto done;
        t = dst, next ^= 1;
    }
done:
    rs_scratch_release(&c);
    return st;
}
