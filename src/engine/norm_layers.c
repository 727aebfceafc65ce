/* norm_layers.c: batch norm and group norm, forward and backward (the
 * contract is russet/norm_layers.h), composed of the normalization
 * engine's passes (rs_norm_run: statistics, sums, the elementwise forward
 * and backward transforms, batch norm's per-channel transform) and, for
 * what is per channel and small, the pointwise, copy and reduction
 * engines, in the order and dtypes of CPU's kernels. Vectors are kept in
 * the opmath type (float32, or float64 for float64 inputs); conversions go
 * through scratch memory that each call frees in stream order. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"

/* ---------------------------------------------------------------- helpers */

/* n elements of dt in the call's scratch (at least one) */
static rs_status scratch_take(rs_scratch *sc, rs_dtype dt, int64_t n, uint64_t *address) {
    return rs_scratch_take(sc, (uint64_t)(n > 0 ? n : 1) * rs_dtype_size(dt), address);
}

/* t (numel n) read as a 1-D view: its elements in order, when one stride
 * walks them (a vector or a reshaped one); 0 when it cannot */
static int as_vector(const rs_tensor *t, int64_t n, rs_tensor *out) {
    int64_t stride = 1;
    int seen = 0;
    for (int d = 0; d < t->ndim; ++d) {
        if (t->sizes[d] == 1) continue;
        if (seen) return 0; /* two dims of size > 1: not one stride */
        stride = t->strides[d];
        seen = 1;
    }
    *out = rs_tensor_vec(t->address, t->dtype, n);
    out->strides[0] = stride;
    return 1;
}

/* checks a per-channel vector (absent: fine) */
static rs_status check_vec(const char *name, const char *what, const rs_tensor *t, int64_t n) {
    if (!t->address) return RS_OK;
    if (rs_tensor_numel(t) != n)
        return rs_error(RS_ERR_INVALID, "%s: %s has %lld elements, expected %lld", name, what,
                        (long long)rs_tensor_numel(t), (long long)n);
    rs_tensor v;
    if (!as_vector(t, n, &v)) return rs_error(RS_ERR_INVALID, "%s: %s is not a vector", name, what);
    if (!rs_dtype_is_nn_float(t->dtype))
        return rs_error(RS_ERR_INVALID, "%s: %s of dtype %s", name, what, rs_dtype_name(t->dtype));
    return RS_OK;
}

/* t (a checked vector of n) is already a contiguous vector of acc */
static int dense_vec(const rs_tensor *t, rs_dtype acc, int64_t n) {
    rs_tensor v;
    return t->dtype == acc && as_vector(t, n, &v) && (v.strides[0] == 1 || n <= 1);
}

/* The address of t's n elements as a contiguous vector of `acc`: t itself
 * where it is one, else a converted copy in scratch; 0 for an absent t */
static rs_status opmath_vec(rs_scratch *sc, const rs_tensor *t, rs_dtype acc, int64_t n, uint64_t *address) {
    *address = 0;
    if (!t->address) return RS_OK;
    if (dense_vec(t, acc, n)) {
        *address = t->address;
        return RS_OK;
    }
    rs_tensor v;
    as_vector(t, n, &v); /* checked by check_vec */
    rs_status st = scratch_take(sc, acc, n, address);
    if (st != RS_OK) return st;
    rs_tensor dst = rs_tensor_vec(*address, acc, n);
    return rs_copy(sc->s, &dst, &v);
}

/* dst (any vector view, n elements) = the contiguous vector of dt at src */
static rs_status store_vec(rs_stream *s, const rs_tensor *dst, uint64_t src, rs_dtype dt, int64_t n) {
    if (!dst->address || src == dst->address) return RS_OK;
    rs_tensor d, from = rs_tensor_vec(src, dt, n);
    as_vector(dst, n, &d);
    return rs_copy(s, &d, &from);
}

/* out = a (op) b over vectors of n, the table op in the opmath type of
 * `common` (as the adapter runs at::mul/div/add on such tensors): b a
 * tensor, or with b NULL the number b_value (a CPU scalar's reading); s0
 * the op's scalar (add's alpha) */
static rs_status vec_op(rs_stream *s, rs_pw_op op, const char *name, rs_dtype common, const rs_tensor *out,
                        const rs_tensor *a, const rs_tensor *b, double b_value, double s0) {
    if (op == RS_PW_MUL_SCALAR) return rs_table_op(s, op, name, common, out, 1, a, 0, NULL, 0, 1, b_value);
    return rs_table_op(s, op, name, common, out, 2, a, 0, b, b_value, op == RS_PW_ADD, s0);
}

static rs_dtype opmath_of(rs_dtype dt) { return dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32; }

static int reduced(rs_dtype dt) { return dt == RS_FLOAT16 || dt == RS_BFLOAT16; }

/* out = a * v, v a Python number, as the adapter's mul runs it: a
 * float16/bfloat16 tensor computes in float with v read in float
 * (MUL_SCALAR), others take v as a CPU-scalar operand of a's dtype */
static rs_status mul_number(rs_stream *s, const char *name, const rs_tensor *out, const rs_tensor *a, double v) {
    return vec_op(s, reduced(a->dtype) ? RS_PW_MUL_SCALAR : RS_PW_MUL, name, a->dtype, out, a, NULL, v, 0);
}

/* the promoted dtype of two floating dtypes (at::promote_types) */
static rs_dtype promoted(rs_dtype a, rs_dtype b) {
    if (a == b) return a;
    if (a == RS_FLOAT64 || b == RS_FLOAT64) return RS_FLOAT64;
    return RS_FLOAT32; /* float32 with anything, float16 with bfloat16 */
}

/* checks x's dtype and the device's arithmetic for it */
static rs_status check_x(rs_stream *s, const char *name, const rs_tensor *x) {
    rs_dtype dt = x->dtype;
    if (!rs_dtype_is_nn_float(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs the device's fp64 arithmetic", name);
    if (x->ndim < 2) return rs_error(RS_ERR_INVALID, "%s: expected x of at least 2 dims, got %d", name, x->ndim);
    for (int d = 0; d < x->ndim; ++d)
        if (x->sizes[d] < 0) return rs_error(RS_ERR_INVALID, "%s: negative size", name);
    return RS_OK;
}

/* t has x's sizes and dtype (an absent t: fine) */
static rs_status check_like(const char *name, const char *what, const rs_tensor *t, const rs_tensor *x) {
    if (!t->address) return RS_OK;
    if (t->dtype != x->dtype || t->ndim != x->ndim)
        return rs_error(RS_ERR_INVALID, "%s: %s differs from x in dtype or dims", name, what);
    for (int d = 0; d < x->ndim; ++d)
        if (t->sizes[d] != x->sizes[d]) return rs_error(RS_ERR_INVALID, "%s: %s differs from x in size", name, what);
    return RS_OK;
}

static rs_status run(rs_stream *s, rs_norm p, rs_dtype dt) {
    p.dtype = dt;
    return rs_norm_run(s, &p);
}

/* batch norm's per-channel transform (BN_PARAMS) into out1 and out2:
 * alpha = invstd w, beta = bias - mean alpha, invstd = v or, with is_var,
 * 1 / sqrt(v + eps) */
static rs_status bn_params(rs_stream *s, rs_dtype dt, int64_t c, uint64_t mean, uint64_t v, int is_var, double eps,
                           uint64_t w, uint64_t bias, uint64_t out1, uint64_t out2) {
    rs_norm p;
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_BN_PARAMS;
    p.rows = c;
    p.a = mean, p.b = v, p.bn_var = is_var, p.eps = eps, p.w = w, p.bias = bias;
    p.out1 = out1, p.out2 = out2;
    return run(s, p, dt);
}

/* ---------------------------------------------------------------- batch norm */

/* x's channels as the engine's rows: NCHW-contiguous or channels-last
 * (C stride 1), dense (size-1 dims may have any stride) */
typedef struct channels {
    int64_t n, c, hw;
    int cl;
} channels;

static int dense_as(const rs_tensor *t, int cl) {
    int64_t want = 1;
    if (cl) {
        if (t->sizes[1] != 1 && t->strides[1] != 1) return 0;
        want = t->sizes[1];
        for (int d = t->ndim - 1; d >= 2; --d) {
            if (t->sizes[d] != 1 && t->strides[d] != want) return 0;
            want *= t->sizes[d];
        }
        return t->sizes[0] == 1 || t->strides[0] == want;
    }
    for (int d = t->ndim - 1; d >= 0; --d) {
        if (t->sizes[d] != 1 && t->strides[d] != want) return 0;
        want *= t->sizes[d];
    }
    return 1;
}

static rs_status channels_of(const char *name, const rs_tensor *x, channels *ch) {
    ch->n = x->sizes[0];
    ch->c = x->sizes[1];
    ch->hw = 1;
    for (int d = 2; d < x->ndim; ++d) ch->hw *= x->sizes[d];
    if (dense_as(x, 0)) ch->cl = 0;
    else if (dense_as(x, 1)) ch->cl = 1;
    else return rs_error(RS_ERR_INVALID, "%s: x is neither contiguous nor channels-last dense", name);
    return RS_OK;
}

/* t (of x's sizes) in ch's layout */
static rs_status check_layout(const char *name, const char *what, const rs_tensor *t, const rs_tensor *x,
                              const channels *ch) {
    rs_status st = check_like(name, what, t, x);
    if (st == RS_OK && t->address && !dense_as(t, ch->cl))
        st = rs_error(RS_ERR_INVALID, "%s: %s is not laid out as x", name, what);
    return st;
}

/* the reductions' row set: channel c's elements */
static void channel_rows(const channels *ch, rs_norm *p) {
    p->rows = ch->c;
    if (ch->cl) p->outer = ch->n * ch->hw, p->inner = 1, p->row_stride = 1, p->outer_stride = ch->c;
    else p->outer = ch->n, p->inner = ch->hw, p->row_stride = ch->hw, p->outer_stride = ch->c * ch->hw;
}

/* y = x alpha[c] + beta[c] (APPLY), over x's dense layout */
static rs_status channel_apply(rs_stream *s, rs_dtype dt, const channels *ch, uint64_t x, uint64_t alpha,
                               uint64_t beta, uint64_t y) {
    rs_norm p;
    memset(&p, 0, sizeof p);
    p.op = RS_NORM_APPLY;
    p.x = x, p.y = y, p.b = alpha, p.bias = beta;
    p.numel = ch->n * ch->c * ch->hw;
    p.row_div = p.col_div = ch->cl ? 1 : ch->hw;
    p.rows = p.cols = ch->c;
    return run(s, p, dt);
}

/* run = keep * run + momentum * stat, as the adapter composed it with
 * ATen's ops: (run.to(opmath) * (1 - momentum)).add_(stat, momentum),
 * rounded once to run's dtype */
static rs_status running_update(rs_scratch *sc, rs_dtype acc, int64_t c, const rs_tensor *run, uint64_t stat,
                                double momentum) {
    if (!run->address) return RS_OK;
    rs_tensor rv, t;
    as_vector(run, c, &rv);
    uint64_t ta;
    rs_status st = scratch_take(sc, acc, c, &ta);
    if (st != RS_OK) return st;
    t = rs_tensor_vec(ta, acc, c);
    rs_tensor sv = rs_tensor_vec(stat, acc, c);
    /* run.to(opmath) * (1 - momentum): a product in the opmath type */
    if ((st = vec_op(sc->s, RS_PW_MUL, "batch_norm_keep", acc, &t, &rv, NULL, 1 - momentum, 0)) != RS_OK) return st;
    if ((st = vec_op(sc->s, RS_PW_ADD, "batch_norm_update", acc, &t, &t, &sv, 0, momentum)) != RS_OK) return st;
    return rs_copy(sc->s, &rv, &t);
}

/* v rounded through dtype rd and back (t.to(rd).to(opmath)), in place */
static rs_status round_through(rs_scratch *sc, rs_dtype rd, rs_dtype acc, int64_t c, uint64_t v) {
    uint64_t r;
    rs_status st = scratch_take(sc, rd, c, &r);
    if (st != RS_OK) return st;
    rs_tensor tv = rs_tensor_vec(v, acc, c), tr = rs_tensor_vec(r, rd, c);
    if ((st = rs_copy(sc->s, &tr, &tv)) != RS_OK) return st;
    return rs_copy(sc->s, &tv, &tr);
}

/* bfloat16 statistics: CPU's bfloat16 kernel updates the running
 * statistics in bfloat16 arithmetic: momentum and 1 - momentum rounded to
 * bfloat16, each product and the mean's sum rounded; the variance's
 * products summed in float. mean_bf: the saved mean (bfloat16); var_sum:
 * the sum of squares (already rounded through bfloat16) */
static rs_status running_update_bf16(rs_scratch *sc, const rs_batch_norm *p, int64_t c, double dn, uint64_t var_sum) {
    const rs_dtype acc = RS_FLOAT32;
    double m = (double)rs_bf16_to_f32(rs_bf16_from_f32((float)p->momentum));
    double om = (double)rs_bf16_to_f32(rs_bf16_from_f32((float)(1 - m)));
    rs_status st = RS_OK;
    /* run * om, in run's dtype (a float16/bfloat16 one computes in float with
     * the number read in float: mul's scalar rule) */
    rs_tensor mean_bf;
    as_vector(&p->save_mean, c, &mean_bf);
    if (p->running_mean.address) {
        rs_tensor run, t1, t2;
        as_vector(&p->running_mean, c, &run);
        uint64_t a1, a2;
        if ((st = scratch_take(sc, RS_BFLOAT16, c, &a1)) || (st = scratch_take(sc, run.dtype, c, &a2))) return st;
        t1 = rs_tensor_vec(a1, RS_BFLOAT16, c);
        t2 = rs_tensor_vec(a2, run.dtype, c);
        if ((st = mul_number(sc->s, "batch_norm_mean_m", &t1, &mean_bf, m)) ||
            (st = mul_number(sc->s, "batch_norm_run_om", &t2, &run, om)))
            return st;
        if ((st = vec_op(sc->s, RS_PW_ADD, "batch_norm_update", promoted(RS_BFLOAT16, run.dtype), &t1, &t1, &t2, 0, 1)))
            return st;
        if ((st = rs_copy(sc->s, &run, &t1))) return st;
    }
    if (p->running_var.address) {
        rs_tensor run, u, t2, t2f;
        as_vector(&p->running_var, c, &run);
        uint64_t au, a2, a2f;
        if ((st = scratch_take(sc, acc, c, &au)) || (st = scratch_take(sc, run.dtype, c, &a2)) ||
            (st = scratch_take(sc, acc, c, &a2f)))
            return st;
        u = rs_tensor_vec(au, acc, c);
        t2 = rs_tensor_vec(a2, run.dtype, c);
        t2f = rs_tensor_vec(a2f, acc, c);
        rs_tensor vs = rs_tensor_vec(var_sum, acc, c);
        /* unbiased = var_sum / (n - 1), through bfloat16; times m */
        if ((st = vec_op(sc->s, RS_PW_DIV, "batch_norm_unbiased", acc, &u, &vs, NULL, dn - 1, 0)) ||
            (st = round_through(sc, RS_BFLOAT16, acc, c, au)) ||
            (st = mul_number(sc->s, "batch_norm_var_m", &u, &u, m)) ||
            (st = mul_number(sc->s, "batch_norm_run_om", &t2, &run, om)) || (st = rs_copy(sc->s, &t2f, &t2)) ||
            (st = vec_op(sc->s, RS_PW_ADD, "batch_norm_update", acc, &u, &u, &t2f, 0, 1)))
            return st;
        if ((st = rs_copy(sc->s, &run, &u))) return st;
    }
    return st;
}

/* training statistics outside the fused kernel: save_mean, save_invstd and
 * the running statistics, in CPU's dtypes and order */
static rs_status bn_train_stats(rs_scratch *sc, const rs_batch_norm *p, const channels *ch, uint64_t x) {
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt), sdt = p->save_mean.dtype;
    const int64_t c = ch->c;
    const double dn = (double)(ch->n * ch->hw);
    uint64_t mu, var, var_sum, v, inv, beta;
    rs_status st;
    if ((st = scratch_take(sc, acc, c, &mu)) || (st = scratch_take(sc, acc, c, &var)) ||
        (st = scratch_take(sc, acc, c, &var_sum)) || (st = scratch_take(sc, acc, c, &inv)) ||
        (st = scratch_take(sc, acc, c, &beta)))
        return st;
    rs_norm q;
    memset(&q, 0, sizeof q);
    q.op = RS_NORM_STATS;
    q.x = x;
    channel_rows(ch, &q);
    q.out1 = mu, q.out2 = var;
    if ((st = run(sc->s, q, dt)) != RS_OK) return st;
    rs_tensor tvar = rs_tensor_vec(var, acc, c), tsum = rs_tensor_vec(var_sum, acc, c);
    if ((st = mul_number(sc->s, "batch_norm_var_sum", &tsum, &tvar, dn)) != RS_OK) return st;
    v = var;
    if (sdt == RS_BFLOAT16) {
        /* CPU's bfloat16 kernel keeps the sum of squares and the variance in
         * bfloat16 (its float16 kernel does not) */
        if ((st = round_through(sc, RS_BFLOAT16, acc, c, var_sum)) ||
            (st = vec_op(sc->s, RS_PW_DIV, "batch_norm_var", acc, &tvar, &tsum, NULL, dn, 0)) ||
            (st = round_through(sc, RS_BFLOAT16, acc, c, var)))
            return st;
    }
    if ((st = store_vec(sc->s, &p->save_mean, mu, acc, c)) != RS_OK) return st;
    if ((st = bn_params(sc->s, dt, c, 0, v, 1, p->eps, 0, 0, inv, beta)) != RS_OK) return st;
    if ((st = store_vec(sc->s, &p->save_invstd, inv, acc, c)) != RS_OK) return st;
    if (sdt == RS_BFLOAT16) return running_update_bf16(sc, p, c, dn, var_sum);
    if ((st = running_update(sc, acc, c, &p->running_mean, mu, p->momentum)) != RS_OK) return st;
    if (!p->running_var.address) return RS_OK;
    uint64_t unb;
    if ((st = scratch_take(sc, acc, c, &unb)) != RS_OK) return st;
    rs_tensor tu = rs_tensor_vec(unb, acc, c);
    if ((st = vec_op(sc->s, RS_PW_DIV, "batch_norm_unbiased", acc, &tu, &tsum, NULL, dn - 1, 0)) != RS_OK) return st;
    return running_update(sc, acc, c, &p->running_var, unb, p->momentum);
}

/* a vector fusable into the statistics kernel: absent, or dense of acc */
static int fusable(const rs_tensor *t, rs_dtype acc, int64_t c) { return !t->address || dense_vec(t, acc, c); }

static rs_status batch_norm_checks(rs_stream *s, const char *name, const rs_batch_norm *p, channels *ch) {
    rs_status st = check_x(s, name, &p->x);
    if (st == RS_OK) st = channels_of(name, &p->x, ch);
    if (st != RS_OK) return st;
    if (ch->n * ch->c * ch->hw == 0) return rs_error(RS_ERR_UNSUPPORTED, "%s: an empty batch", name);
    const rs_tensor *vecs[6] = {&p->weight, &p->bias, &p->running_mean, &p->running_var, &p->save_mean,
                                &p->save_invstd};
    static const char *const what[6] = {"weight", "bias", "running_mean", "running_var", "save_mean", "save_invstd"};
    for (int i = 0; i < 6 && st == RS_OK; ++i) st = check_vec(name, what[i], vecs[i], ch->c);
    return st;
}

rs_status rs_batch_norm_forward(rs_stream *s, const rs_batch_norm *p) {
    static const char name[] = "batch_norm";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    channels ch;
    rs_status st = batch_norm_checks(s, name, p, &ch);
    if (st == RS_OK) st = check_layout(name, "y", &p->y, &p->x, &ch);
    if (st != RS_OK) return st;
    if (!p->y.address) return rs_error(RS_ERR_INVALID, "%s: missing y", name);
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    const int64_t c = ch.c;
    if (p->training) {
        if (ch.n * ch.hw < 2)
            return rs_error(RS_ERR_INVALID, "%s: expected more than 1 value per channel when training", name);
        if (!p->save_mean.address || !p->save_invstd.address)
            return rs_error(RS_ERR_INVALID, "%s: training needs save_mean and save_invstd", name);
    } else if (!p->running_mean.address || !p->running_var.address) {
        return rs_error(RS_ERR_INVALID, "%s: running_mean and running_var must be defined in evaluation mode", name);
    }
    rs_scratch sc = {s, {0}, 0};
    uint64_t w, b, alpha, beta;
    if ((st = opmath_vec(&sc, &p->weight, acc, c, &w)) || (st = opmath_vec(&sc, &p->bias, acc, c, &b)) ||
        (st = scratch_take(&sc, acc, c, &alpha)) || (st = scratch_take(&sc, acc, c, &beta)))
        goto done;
    if (p->training && p->save_mean.dtype == acc && fusable(&p->running_mean, acc, c) &&
        fusable(&p->running_var, acc, c)) {
        /* statistics, running statistics and the transform in the
         * statistics kernel itself (bn_train) */
        uint64_t mu, inv;
        if ((st = opmath_vec(&sc, &p->save_mean, acc, c, &mu)) || (st = opmath_vec(&sc, &p->save_invstd, acc, c, &inv)))
            goto done;
        rs_norm q;
        memset(&q, 0, sizeof q);
        q.op = RS_NORM_STATS;
        q.x = p->x.address;
        channel_rows(&ch, &q);
        q.out1 = mu, q.out2 = inv;
        q.bn_train = 1;
        q.eps = p->eps;
        q.momentum = p->momentum;
        q.w = w, q.bias = b;
        q.run_mean = p->running_mean.address, q.run_var = p->running_var.address;
        q.alpha = alpha, q.beta = beta;
        if ((st = run(s, q, dt)) || (st = store_vec(s, &p->save_mean, mu, acc, c)) ||
            (st = store_vec(s, &p->save_invstd, inv, acc, c)))
            goto done;
    } else {
        uint64_t mean, v;
        if (p->training) {
            /* the transform from the saved (rounded) statistics */
            if ((st = bn_train_stats(&sc, p, &ch, p->x.address)) ||
                (st = opmath_vec(&sc, &p->save_mean, acc, c, &mean)) ||
                (st = opmath_vec(&sc, &p->save_invstd, acc, c, &v)))
                goto done;
        } else if ((st = opmath_vec(&sc, &p->running_mean, acc, c, &mean)) ||
                   (st = opmath_vec(&sc, &p->running_var, acc, c, &v))) {
            goto done;
        }
        if ((st = bn_params(s, dt, c, mean, v, !p->training, p->eps, w, b, alpha, beta))) goto done;
    }
    st = channel_apply(s, dt, &ch, p->x.address, alpha, beta, p->y.address);
done:
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_batch_norm_backward(rs_stream *s, const rs_batch_norm *p) {
    static const char name[] = "batch_norm_backward";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    channels ch;
    rs_status st = batch_norm_checks(s, name, p, &ch);
    if (st == RS_OK) st = check_layout(name, "grad_out", &p->grad_out, &p->x, &ch);
    if (st == RS_OK) st = check_layout(name, "grad_input", &p->grad_input, &p->x, &ch);
    if (st == RS_OK) st = check_vec(name, "grad_weight", &p->grad_weight, ch.c);
    if (st == RS_OK) st = check_vec(name, "grad_bias", &p->grad_bias, ch.c);
    if (st != RS_OK) return st;
    if (!p->grad_out.address) return rs_error(RS_ERR_INVALID, "%s: missing grad_out", name);
    const rs_tensor *m = p->training ? &p->save_mean : &p->running_mean;
    const rs_tensor *v = p->training ? &p->save_invstd : &p->running_var;
    if (!m->address || !v->address) return rs_error(RS_ERR_INVALID, "%s: missing statistics", name);
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    const int64_t c = ch.c;
    rs_scratch sc = {s, {0}, 0};
    uint64_t mean, invstd, w, gsum = 0, gxsum = 0;
    if ((st = opmath_vec(&sc, m, acc, c, &mean)) || (st = opmath_vec(&sc, v, acc, c, &invstd)) ||
        (st = opmath_vec(&sc, &p->weight, acc, c, &w)))
        goto done;
    if (!p->training) {
        /* invstd = 1 / sqrt(running_var + eps) */
        uint64_t inv, spare;
        if ((st = scratch_take(&sc, acc, c, &inv)) || (st = scratch_take(&sc, acc, c, &spare)) ||
            (st = bn_params(s, dt, c, 0, invstd, 1, p->eps, 0, 0, inv, spare)))
            goto done;
        invstd = inv;
    }
    rs_norm base;
    memset(&base, 0, sizeof base);
    base.x = p->x.address, base.g = p->grad_out.address, base.a = mean, base.b = invstd;
    if (p->grad_weight.address || p->grad_bias.address || (p->grad_input.address && p->training)) {
        /* per channel: the sums of g and of g xhat */
        if ((st = scratch_take(&sc, acc, c, &gsum)) || (st = scratch_take(&sc, acc, c, &gxsum))) goto done;
        rs_norm q = base;
        q.op = RS_NORM_SUMS;
        channel_rows(&ch, &q);
        q.out1 = gsum, q.out2 = gxsum;
        if ((st = run(s, q, dt))) goto done;
    }
    if (p->grad_input.address) {
        if (p->training) {
            /* (g - mean(g) - xhat mean(g xhat)) invstd w */
            rs_norm q = base;
            q.op = RS_NORM_GRAD;
            q.y = p->grad_input.address;
            q.numel = ch.n * ch.c * ch.hw;
            q.row_div = q.col_div = ch.cl ? 1 : ch.hw;
            q.rows = q.cols = c;
            q.s1 = gsum, q.s2 = gxsum, q.scale = w;
            q.inv_k = 1.0 / (double)(ch.n * ch.hw);
            st = run(s, q, dt);
        } else {
            /* g invstd w: the scale invstd w rounded, as CPU's product */
            uint64_t scale = invstd;
            if (w) {
                uint64_t spare;
                if ((st = scratch_take(&sc, acc, c, &scale)) || (st = scratch_take(&sc, acc, c, &spare)) ||
                    (st = bn_params(s, dt, c, 0, invstd, 0, 0.0, w, 0, scale, spare)))
                    goto done;
            }
            st = channel_apply(s, dt, &ch, p->grad_out.address, scale, 0, p->grad_input.address);
        }
        if (st) goto done;
    }
    if ((st = store_vec(s, &p->grad_weight, gxsum, acc, c)) == RS_OK)
        st = store_vec(s, &p->grad_bias, gsum, acc, c);
done:
    rs_scratch_release(&sc);
    return st;
}

/* ---------------------------------------------------------------- group norm */

typedef struct groups {
    int64_t n, c, hw, g, cpg, k;
} groups;

static rs_status group_norm_checks(rs_stream *s, const char *name, const rs_group_norm *p, groups *gr) {
    rs_status st = check_x(s, name, &p->x);
    if (st != RS_OK) return st;
    if (!rs_tensor_is_contiguous(&p->x)) return rs_error(RS_ERR_INVALID, "%s: x is not contiguous", name);
    gr->n = p->x.sizes[0], gr->c = p->x.sizes[1], gr->hw = 1, gr->g = p->groups;
    for (int d = 2; d < p->x.ndim; ++d) gr->hw *= p->x.sizes[d];
    if (gr->g <= 0 || gr->c % gr->g != 0)
        return rs_error(RS_ERR_INVALID, "%s: %lld channels in %lld groups", name, (long long)gr->c, (long long)gr->g);
    gr->cpg = gr->c / gr->g;
    gr->k = gr->cpg * gr->hw;
    if (gr->k == 0 || gr->n == 0) return rs_error(RS_ERR_UNSUPPORTED, "%s: groups of no elements", name);
    if ((st = check_vec(name, "weight", &p->weight, gr->c)) || (st = check_vec(name, "bias", &p->bias, gr->c)))
        return st;
    const rs_tensor *stats[2] = {&p->mean, &p->rstd};
    for (int i = 0; i < 2; ++i)
        if (!stats[i]->address || rs_tensor_numel(stats[i]) != gr->n * gr->g)
            return rs_error(RS_ERR_INVALID, "%s: %s must hold (N, groups) = %lld elements", name,
                            i ? "rstd" : "mean", (long long)(gr->n * gr->g));
    return RS_OK;
}

/* mean or rstd as given ((N, groups)), or as a 1-D view where one stride
 * walks it (the opmath side is then a vector too) */
static rs_tensor stat_view(const rs_tensor *t, int64_t ng) {
    rs_tensor v;
    return as_vector(t, ng, &v) ? v : *t;
}

rs_status rs_group_norm_forward(rs_stream *s, const rs_group_norm *p) {
    static const char name[] = "group_norm";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    groups gr;
    rs_status st = group_norm_checks(s, name, p, &gr);
    if (st == RS_OK) st = check_like(name, "y", &p->y, &p->x);
    if (st == RS_OK && (!p->y.address || !rs_tensor_is_contiguous(&p->y)))
        st = rs_error(RS_ERR_INVALID, "%s: y must be contiguous", name);
    if (st != RS_OK) return st;
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    const int64_t ng = gr.n * gr.g;
    rs_scratch sc = {s, {0}, 0};
    uint64_t mu, var, rstd, spare, w, b;
    if ((st = scratch_take(&sc, acc, ng, &mu)) || (st = scratch_take(&sc, acc, ng, &var)) ||
        (st = scratch_take(&sc, acc, ng, &rstd)) || (st = scratch_take(&sc, acc, ng, &spare)) || (st = opmath_vec(&sc, &p->weight, acc, gr.c, &w)) ||
        (st = opmath_vec(&sc, &p->bias, acc, gr.c, &b)))
        goto done;
    /* rows (n, group) of the contiguous x: mean and biased variance */
    rs_norm q;
    memset(&q, 0, sizeof q);
    q.op = RS_NORM_STATS;
    q.x = p->x.address;
    q.rows = ng, q.outer = 1, q.inner = gr.k, q.row_stride = gr.k;
    q.out1 = mu, q.out2 = var;
    if ((st = run(s, q, dt))) goto done;
    /* rstd = 1 / sqrt(var + eps): BN_PARAMS' invstd */
    if ((st = bn_params(s, dt, ng, 0, var, 1, p->eps, 0, 0, rstd, spare))) goto done;
    /* y = ((x - mean) rstd) w + b, row (e / k) % ng, channel (e / hw) % c */
    memset(&q, 0, sizeof q);
    q.op = RS_NORM_APPLY;
    q.x = p->x.address, q.y = p->y.address;
    q.numel = gr.n * gr.c * gr.hw;
    q.row_div = gr.k, q.rows = ng, q.col_div = gr.hw, q.cols = gr.c;
    q.a = mu, q.b = rstd, q.w = w, q.bias = b;
    if ((st = run(s, q, dt))) goto done;
    const rs_tensor *stats[2] = {&p->mean, &p->rstd};
    const uint64_t vals[2] = {mu, rstd};
    for (int i = 0; i < 2 && st == RS_OK; ++i) {
        rs_tensor to = stat_view(stats[i], ng);
        rs_tensor from = to.ndim == 1 ? rs_tensor_vec(vals[i], acc, ng) : rs_tensor_rows(vals[i], acc, gr.n, gr.g);
        st = rs_copy(s, &to, &from);
    }
done:
    rs_scratch_release(&sc);
    return st;
}

/* out (keepdim view of `rows` sums of `len` elements each) = the sums of
 * in's rows, in acc */
static rs_status row_sums(rs_stream *s, const char *name, rs_dtype acc, rs_tensor in, rs_tensor out) {
    return rs_reduce_into(s, name, RS_REDUCE_SUM, acc, &in, &out);
}

rs_status rs_group_norm_backward(rs_stream *s, const rs_group_norm *p) {
    static const char name[] = "group_norm_backward";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    groups gr;
    rs_status st = group_norm_checks(s, name, p, &gr);
    if (st == RS_OK) st = check_like(name, "grad_out", &p->grad_out, &p->x);
    if (st == RS_OK) st = check_like(name, "grad_input", &p->grad_input, &p->x);
    if (st == RS_OK && (!p->grad_out.address || !rs_tensor_is_contiguous(&p->grad_out) ||
                        (p->grad_input.address && !rs_tensor_is_contiguous(&p->grad_input))))
        st = rs_error(RS_ERR_INVALID, "%s: grad_out and grad_input must be contiguous", name);
    if (st == RS_OK) st = check_vec(name, "grad_weight", &p->grad_weight, gr.c);
    if (st == RS_OK) st = check_vec(name, "grad_bias", &p->grad_bias, gr.c);
    if (st != RS_OK) return st;
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    const int64_t n = gr.n, c = gr.c, g = gr.g, cpg = gr.cpg, ng = n * g, nc = n * c;
    rs_scratch sc = {s, {0}, 0};
    uint64_t mu, rs, mu_c, rs_c, s1, s2, w;
    if ((st = scratch_take(&sc, acc, ng, &mu)) || (st = scratch_take(&sc, acc, ng, &rs)) ||
        (st = scratch_take(&sc, acc, nc, &mu_c)) || (st = scratch_take(&sc, acc, nc, &rs_c)) ||
        (st = scratch_take(&sc, acc, nc, &s1)) || (st = scratch_take(&sc, acc, nc, &s2)) ||
        (st = opmath_vec(&sc, &p->weight, acc, c, &w)))
        goto done;
    /* the statistics in the opmath type, and repeated over each group's
     * channels (a stride-0 view copied) */
    const rs_tensor *stats[2] = {&p->mean, &p->rstd};
    const uint64_t flat[2] = {mu, rs}, per_c[2] = {mu_c, rs_c};
    for (int i = 0; i < 2; ++i) {
        rs_tensor from = stat_view(stats[i], ng);
        rs_tensor to = from.ndim == 1 ? rs_tensor_vec(flat[i], acc, ng) : rs_tensor_rows(flat[i], acc, n, g);
        if ((st = rs_copy(s, &to, &from))) goto done;
        rs_tensor rep = rs_tensor_rows(flat[i], acc, ng, cpg), dst = rs_tensor_rows(per_c[i], acc, ng, cpg);
        rep.strides[0] = 1, rep.strides[1] = 0;
        if ((st = rs_copy(s, &dst, &rep))) goto done;
    }
    /* one pass: per (n, c), sum(g) and sum(g xhat) over HxW */
    rs_norm q;
    memset(&q, 0, sizeof q);
    q.op = RS_NORM_SUMS;
    q.x = p->x.address, q.g = p->grad_out.address;
    q.rows = nc, q.outer = 1, q.inner = gr.hw, q.row_stride = gr.hw;
    q.a = mu_c, q.b = rs_c;
    q.out1 = s1, q.out2 = s2;
    if ((st = run(s, q, dt))) goto done;
    if (p->grad_input.address) {
        /* rstd (g w - mean(g w) - xhat mean(g w xhat)) over each group: the
         * group's sums are the (n, c) sums weighted by the channels' w,
         * summed over its channels */
        uint64_t ws1 = s1, ws2 = s2, db, ds;
        if ((st = scratch_take(&sc, acc, ng, &db)) || (st = scratch_take(&sc, acc, ng, &ds))) goto done;
        if (w) {
            if ((st = scratch_take(&sc, acc, nc, &ws1)) || (st = scratch_take(&sc, acc, nc, &ws2))) goto done;
            rs_tensor wv = rs_tensor_rows(w, acc, n, c);
            wv.strides[0] = 0;
            const uint64_t from[2] = {s1, s2}, to[2] = {ws1, ws2};
            for (int i = 0; i < 2; ++i) {
                rs_tensor a = rs_tensor_rows(from[i], acc, n, c), o = rs_tensor_rows(to[i], acc, n, c);
                if ((st = vec_op(s, RS_PW_MUL, "group_norm_weighted", acc, &o, &a, &wv, 0, 0))) goto done;
            }
        }
        const uint64_t sums[2] = {ws1, ws2}, red[2] = {db, ds};
        for (int i = 0; i < 2; ++i) {
            rs_tensor in = rs_tensor_rows(sums[i], acc, ng, cpg), out = rs_tensor_rows(red[i], acc, ng, 1);
            if ((st = row_sums(s, name, acc, in, out))) goto done;
        }
        memset(&q, 0, sizeof q);
        q.op = RS_NORM_GRAD;
        q.x = p->x.address, q.g = p->grad_out.address, q.y = p->grad_input.address;
        q.numel = nc * gr.hw, q.row_div = gr.k, q.rows = ng, q.col_div = gr.hw, q.cols = c;
        q.a = mu, q.b = rs, q.w = w, q.s1 = db, q.s2 = ds;
        q.inv_k = 1.0 / (double)gr.k;
        if ((st = run(s, q, dt))) goto done;
    }
    /* the parameters' gradients: the (n, c) sums summed over n */
    const rs_tensor *grads[2] = {&p->grad_weight, &p->grad_bias};
    const uint64_t per_nc[2] = {s2, s1};
    for (int i = 0; i < 2; ++i) {
        if (!grads[i]->address) continue;
        rs_tensor gv;
        as_vector(grads[i], c, &gv);
        rs_tensor out = rs_tensor_rows(gv.address, gv.dtype, 1, c);
        out.strides[0] = 0, out.strides[1] = gv.strides[0];
        if ((st = row_sums(s, name, acc, rs_tensor_rows(per_nc[i], acc, n, c), out))) goto done;
    }
done:
    rs_scratch_release(&sc);
    return st;
}

/* ---------------------------------------------------------------- layer norm, RMS norm */

static rs_status row_norm_checks(rs_stream *s, const char *name, const rs_layer_norm *p, int64_t *m, int64_t *n) {
    rs_status st = check_x(s, name, &p->x);
    if (st != RS_OK) return st;
    if (p->x.ndim != 2 || !rs_tensor_is_contiguous(&p->x))
        return rs_error(RS_ERR_INVALID, "%s: x must be contiguous (M, N) rows", name);
    *m = p->x.sizes[0], *n = p->x.sizes[1];
    if (*n == 0) return rs_error(RS_ERR_UNSUPPORTED, "%s: rows of no elements", name);
    if ((st = check_vec(name, "weight", &p->weight, *n)) || (st = check_vec(name, "bias", &p->bias, *n))) return st;
    if (p->rms && p->bias.address) return rs_error(RS_ERR_INVALID, "%s: RMS norm has no bias", name);
    const rs_tensor *stats[2] = {&p->mean, &p->rstd};
    for (int i = p->rms; i < 2; ++i)
        if ((st = check_vec(name, i ? "rstd" : "mean", stats[i], *m)) || (!stats[i]->address && *m > 0))
            return st ? st : rs_error(RS_ERR_INVALID, "%s: %s is required", name, i ? "rstd" : "mean");
    return RS_OK;
}

/* a contiguous (M, N) view like x, or absent */
static rs_status check_rows_like(const char *name, const char *what, const rs_tensor *t, const rs_tensor *x) {
    rs_status st = check_like(name, what, t, x);
    if (st == RS_OK && t->address && !rs_tensor_is_contiguous(t))
        st = rs_error(RS_ERR_INVALID, "%s: %s must be contiguous", name, what);
    return st;
}

rs_status rs_layer_norm_forward(rs_stream *s, const rs_layer_norm *p) {
    const char *name = p && p->rms ? "rms_norm" : "layer_norm";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    int64_t m, n;
    rs_status st = row_norm_checks(s, name, p, &m, &n);
    if (st == RS_OK) st = check_rows_like(name, "y", &p->y, &p->x);
    if (st == RS_OK && !p->y.address && m > 0) st = rs_error(RS_ERR_INVALID, "%s: y is required", name);
    if (st != RS_OK || m == 0) return st;
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    rs_scratch sc = {s, {0}, 0};
    uint64_t w, b, mean = 0, rstd;
    if ((st = opmath_vec(&sc, &p->weight, acc, n, &w)) || (st = opmath_vec(&sc, &p->bias, acc, n, &b))) goto done;
    /* the statistics straight into mean and rstd where they are dense
     * vectors of the opmath type, else into scratch and converted */
    if (!p->rms) {
        if (dense_vec(&p->mean, acc, m)) mean = p->mean.address;
        else if ((st = scratch_take(&sc, acc, m, &mean))) goto done;
    }
    if (dense_vec(&p->rstd, acc, m)) rstd = p->rstd.address;
    else if ((st = scratch_take(&sc, acc, m, &rstd))) goto done;
    rs_norm q;
    memset(&q, 0, sizeof q);
    q.op = RS_NORM_ROW_FWD;
    q.x = p->x.address, q.y = p->y.address;
    q.rows = m, q.inner = n;
    q.w = w, q.bias = b;
    q.out1 = mean, q.out2 = rstd;
    q.eps = p->eps;
    if ((st = run(s, q, dt))) goto done;
    if (!p->rms && (st = store_vec(s, &p->mean, mean, acc, m))) goto done;
    st = store_vec(s, &p->rstd, rstd, acc, m);
done:
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_layer_norm_backward(rs_stream *s, const rs_layer_norm *p) {
    const char *name = p && p->rms ? "rms_norm_backward" : "layer_norm_backward";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    int64_t m, n;
    rs_status st = row_norm_checks(s, name, p, &m, &n);
    if (st == RS_OK) st = check_rows_like(name, "grad_out", &p->grad_out, &p->x);
    if (st == RS_OK && !p->grad_out.address && m > 0)
        st = rs_error(RS_ERR_INVALID, "%s: grad_out is required", name);
    if (st == RS_OK) st = check_rows_like(name, "grad_input", &p->grad_input, &p->x);
    if (st == RS_OK) st = check_vec(name, "grad_weight", &p->grad_weight, n);
    if (st == RS_OK) st = check_vec(name, "grad_bias", &p->grad_bias, n);
    if (st == RS_OK && p->rms && p->grad_bias.address) st = rs_error(RS_ERR_INVALID, "%s: RMS norm has no bias", name);
    if (st != RS_OK) return st;
    const rs_dtype dt = p->x.dtype, acc = opmath_of(dt);
    rs_scratch sc = {s, {0}, 0};
    uint64_t mean = 0, rstd, w;
    if ((!p->rms && (st = opmath_vec(&sc, &p->mean, acc, m, &mean))) || (st = opmath_vec(&sc, &p->rstd, acc, m, &rstd)) ||
        (st = opmath_vec(&sc, &p->weight, acc, n, &w)))
        goto done;
    rs_norm q;
    memset(&q, 0, sizeof q);
    q.x = p->x.address, q.g = p->grad_out.address;
    q.a = mean, q.b = rstd; /* no mean: RMS norm's uncentred rows */
    q.rows = m, q.inner = n;
    if (p->grad_input.address && m > 0) {
        /* grad_input = rstd (g w - mean(g w) [centred] - xhat mean(g w xhat)) a row */
        q.op = RS_NORM_ROW_BWD;
        q.y = p->grad_input.address;
        q.w = w;
        if ((st = run(s, q, dt))) goto done;
    }
    if (p->grad_weight.address || p->grad_bias.address) {
        /* the column sums: sum of g (grad_bias), sum of g xhat (grad_weight) */
        uint64_t c1, c2;
        if ((st = scratch_take(&sc, acc, n, &c1)) || (st = scratch_take(&sc, acc, n, &c2))) goto done;
        if (m == 0) {
            static const uint64_t zero[2] = {0, 0};
            rs_tensor z1 = rs_tensor_vec(c1, acc, n), z2 = rs_tensor_vec(c2, acc, n);
            if ((st = rs_fill(s, &z1, zero)) || (st = rs_fill(s, &z2, zero))) goto done;
        } else {
            q.op = RS_NORM_COL_SUMS;
            q.y = 0, q.w = 0;
            q.out1 = c1, q.out2 = c2;
            if ((st = run(s, q, dt))) goto done;
        }
        if ((st = store_vec(s, &p->grad_bias, c1, acc, n))) goto done;
        st = store_vec(s, &p->grad_weight, c2, acc, n);
    }
done:
    rs_scratch_release(&sc);
    return st;
}
