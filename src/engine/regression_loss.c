/* regression_loss.c: mse_loss, smooth_l1_loss and huber_loss, forward and
 * backward (contract in russet/loss.h): the per-element loss as a pointwise
 * table op (kernels/common/ops_loss.glsl), then, for mean and sum, the
 * reduction engine over the losses rounded to the dtype, as CPU reduces
 * them. */
#include <string.h>

#include "engine/engine.h"

static const char *const loss_names[3][2] = {
    {"mse_loss", "mse_loss_backward"},
    {"smooth_l1_loss", "smooth_l1_loss_backward"},
    {"huber_loss", "huber_loss_backward"},
};
static const rs_pw_op loss_ops[3][2] = {
    {RS_PW_MSE_LOSS, RS_PW_MSE_LOSS_BACKWARD},
    {RS_PW_SMOOTH_L1_LOSS, RS_PW_SMOOTH_L1_LOSS_BACKWARD},
    {RS_PW_HUBER_LOSS, RS_PW_HUBER_LOSS_BACKWARD},
};

static int same_sizes(const rs_tensor *a, const rs_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; ++d)
        if (a->sizes[d] != b->sizes[d]) return 0;
    return 1;
}

/* t as a view of like's sizes: itself, or its one element repeated (0
 * strides) */
static rs_status broadcast_one(const char *name, const char *what, const rs_tensor *t, const rs_tensor *like,
                               rs_tensor *out) {
    *out = *t;
    if (same_sizes(t, like)) return RS_OK;
    if (rs_tensor_numel(t) != 1)
        return rs_error(RS_ERR_INVALID, "%s: %s must have the input's sizes or one element", name, what);
    out->ndim = like->ndim;
    for (int d = 0; d < like->ndim; ++d) out->sizes[d] = like->sizes[d], out->strides[d] = 0;
    return RS_OK;
}

/* the checks both ways share; fills the pointwise description's common part */
static rs_status loss_begin(rs_stream *s, const rs_regression_loss *p, int backward, rs_pointwise *pw) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_regression_loss: missing arguments");
    if ((int)p->kind < 0 || p->kind > RS_LOSS_HUBER)
        return rs_error(RS_ERR_INVALID, "rs_regression_loss: unknown loss %d", (int)p->kind);
    const char *name = loss_names[p->kind][backward];
    const rs_dtype dt = p->input.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: no kernel for %s", name, rs_dtype_name(dt));
    if (p->target.dtype != dt || !same_sizes(&p->input, &p->target))
        return rs_error(RS_ERR_INVALID, "%s: target must have the input's dtype and sizes", name);
    if (p->reduction < 0 || p->reduction > 2) return rs_error(RS_ERR_INVALID, "%s: bad reduction %d", name, p->reduction);
    if ((p->kind == RS_LOSS_SMOOTH_L1 && !(p->param >= 0)) || (p->kind == RS_LOSS_HUBER && !(p->param > 0)))
        return rs_error(RS_ERR_INVALID, "%s: %s %g out of range", name, p->kind == RS_LOSS_HUBER ? "delta" : "beta",
                        p->param);
    memset(pw, 0, sizeof *pw);
    pw->name = name;
    pw->op = loss_ops[p->kind][backward];
    pw->common = dt;
    pw->compute = pw->result = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    pw->in[0] = p->input, pw->in[1] = p->target;
    pw->ninputs = 2;
    return RS_OK;
}

rs_status rs_regression_loss_forward(rs_stream *s, const rs_regression_loss *p) {
    rs_pointwise pw;
    rs_status st = loss_begin(s, p, 0, &pw);
    if (st != RS_OK) return st;
    const char *name = pw.name;
    if (p->out.dtype != p->input.dtype || (p->reduction == 0 ? !same_sizes(&p->out, &p->input) : rs_tensor_numel(&p->out) != 1))
        return rs_error(RS_ERR_INVALID, "%s: out must be of the input's dtype, and its sizes (reduction none) or one "
                        "element", name);
    if (p->kind != RS_LOSS_MSE) {
        /* beta (delta) and half of it, each a float32 of the double (the
         * adapter's scalar operands) */
        rs_opmath_scalar(pw.compute, p->param, pw.s[0]);
        rs_opmath_scalar(pw.compute, 0.5 * p->param, pw.s[1]);
        pw.nscalars = 2;
    }
    if (p->reduction == 0) {
        pw.out = p->out;
        return rs_pointwise_run(s, &pw);
    }
    /* the losses rounded to the dtype, then their sum or mean */
    const int64_t n = rs_tensor_numel(&p->input);
    const rs_dtype dt = p->input.dtype;
    rs_scratch sc = {s, {0}, 0};
    uint64_t la = 0;
    if ((st = rs_scratch_take(&sc, (uint64_t)(n ? n : 1) * rs_dtype_size(dt), &la)) != RS_OK) return st;
    /* the losses contiguous, in the input's sizes and as one row of n */
    pw.out = rs_tensor_dense_like(&p->input, la, dt);
    rs_tensor losses = rs_tensor_rows(la, dt, 1, n);
    losses.ndim = 1, losses.sizes[0] = n, losses.strides[0] = 1;
    if ((st = rs_pointwise_run(s, &pw)) == RS_OK) {
        rs_reduce r;
        memset(&r, 0, sizeof r);
        r.name = name;
        r.op = p->reduction == 1 ? RS_REDUCE_MEAN : RS_REDUCE_SUM;
        r.acc = pw.compute;
        r.in = losses;
        r.out = losses;
        r.out.address = p->out.address;
        r.out.sizes[0] = 1, r.out.strides[0] = 0;
        st = rs_reduce_run(s, &r);
    }
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_regression_loss_backward(rs_stream *s, const rs_regression_loss *p) {
    rs_pointwise pw;
    rs_status st = loss_begin(s, p, 1, &pw);
    if (st != RS_OK) return st;
    const char *name = pw.name;
    if (p->grad_out.dtype != p->input.dtype || p->grad_input.dtype != p->input.dtype ||
        !same_sizes(&p->grad_input, &p->input))
        return rs_error(RS_ERR_INVALID, "%s: grad_out and grad_input must be of the input's dtype, grad_input of "
                        "its sizes", name);
    if ((st = broadcast_one(name, "grad_out", &p->grad_out, &p->input, &pw.in[2])) != RS_OK) return st;
    pw.ninputs = 3;
    const int64_t n = rs_tensor_numel(&p->input);
    /* the reduction's factor: 1 / numel for mean (mse: 2 / numel), 1 (2) */
    const double scale = p->kind == RS_LOSS_MSE ? 2.0 : 1.0;
    const double norm = p->reduction == 1 ? scale / (double)n : scale;
    if (p->kind == RS_LOSS_MSE) {
        rs_opmath_scalar(pw.compute, norm, pw.s[0]);
        pw.nscalars = 1;
    } else {
        rs_opmath_scalar(pw.compute, p->param, pw.s[0]);
        rs_opmath_scalar(pw.compute, norm, pw.s[1]);
        rs_opmath_scalar(pw.compute, norm * p->param, pw.s[2]);
        pw.nscalars = 3;
    }
    pw.out = p->grad_input;
    return rs_pointwise_run(s, &pw);
}
