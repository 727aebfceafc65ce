/* margin_loss.c: multi_margin_loss and multilabel_margin_loss (contract in
 * russet/margin_loss.h) on kernels/margin_loss.comp: one launch for the
 * rows, and for a reduced forward one more that sums them in order. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/margin_loss.h"

typedef struct margin_loss_push { RS_MARGIN_LOSS_PUSH } margin_loss_push;

/* t is `ndim` dims of dtype dt and sizes (d0) or (d0, d1) */
static rs_status check_view(const char *name, const char *what, const rs_tensor *t, int ndim, rs_dtype dt,
                            int64_t d0, int64_t d1) {
    if (t->ndim != ndim || t->dtype != dt || t->sizes[0] != d0 || (ndim == 2 && t->sizes[1] != d1)) {
        char shape[64];
        if (ndim == 2) snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)d0, (long long)d1);
        else snprintf(shape, sizeof shape, "(%lld)", (long long)d0);
        return rs_error(RS_ERR_INVALID, "%s: %s must be %s %s", name, what, rs_dtype_name(dt), shape);
    }
    return RS_OK;
}

static rs_status check_args(const char *name, rs_stream *s, const rs_margin_loss *p, int backward) {
    if (p->kind != RS_MARGIN_MULTI && p->kind != RS_MARGIN_MULTILABEL)
        return rs_error(RS_ERR_INVALID, "%s: bad kind", name);
    if (p->kind == RS_MARGIN_MULTI && p->p != 1 && p->p != 2)
        return rs_error(RS_ERR_INVALID, "%s: only p == 1 and p == 2 supported", name);
    if (p->reduction < 0 || p->reduction > 2) return rs_error(RS_ERR_INVALID, "%s: bad reduction", name);
    const rs_dtype dt = p->input.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "%s: no kernel for %s input", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs float64 arithmetic, which this device (or profile) "
                        "lacks", name);
    if (p->input.ndim != 2) return rs_error(RS_ERR_INVALID, "%s: input must be (N, C)", name);
    const int64_t n = p->input.sizes[0], c = p->input.sizes[1];
    if (c < 1) return rs_error(RS_ERR_INVALID, "%s: input must have at least one class", name);
    rs_status st;
    if (p->kind == RS_MARGIN_MULTI) {
        if ((st = check_view(name, "target", &p->target, 1, RS_INT64, n, 0))) return st;
        if (p->weight.address && (st = check_view(name, "weight", &p->weight, 1, dt, c, 0))) return st;
    } else {
        if ((st = check_view(name, "target", &p->target, 2, RS_INT64, n, c)) ||
            (st = check_view(name, "is_target", &p->is_target, 2, dt, n, c)))
            return st;
    }
    if (!backward) return check_view(name, "out", &p->out, 1, dt, p->reduction ? 1 : n, 0);
    if (p->grad.ndim != 1 || p->grad.dtype != dt || (p->grad.sizes[0] != n && p->grad.sizes[0] != 1))
        return rs_error(RS_ERR_INVALID, "%s: grad must be %s of (N) or (1)", name, rs_dtype_name(dt));
    return check_view(name, "grad_input", &p->out, 2, dt, n, c);
}

static rs_status run(rs_stream *s, const rs_margin_loss *p, int backward) {
    const char *name = !p ? "margin_loss"
                       : p->kind == RS_MARGIN_MULTILABEL ? (backward ? "multilabel_margin_loss_backward"
                                                                     : "multilabel_margin_loss")
                                                         : (backward ? "multi_margin_loss_backward" : "multi_margin_loss");
    if (!s || !p) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    rs_status st;
    if ((st = check_args(name, s, p, backward))) return st;
    const rs_dtype dt = p->input.dtype;
    const int64_t n = p->input.sizes[0], c = p->input.sizes[1];
    const int reduced = !backward && p->reduction != 0;
    rs_device *dev = rs_stream_device(s);
    if (n == 0) { /* no rows: a reduced loss sums nothing (a mean: 0 / 0) */
        if (!reduced) return RS_OK;
        double v = p->reduction == 1 ? 0.0 / 0.0 : 0.0;
        uint64_t bits = (uint64_t)rs_opmath_slot_bits(dt, v);
        return rs_fill(s, &p->out, &bits);
    }
    uint64_t partial = 0;
    if (reduced && (st = rs_alloc(dev, 8 * (uint64_t)n, s, &partial))) return st;
    void *host = NULL;
    uint64_t addr = 0;
    if ((st = rs_stream_arena(s, ML_SLOTS * sizeof(int64_t), &host, &addr))) goto done;
    int64_t *q = host;
    memset(q, 0, ML_SLOTS * sizeof(int64_t));
    q[ML_N] = n, q[ML_C] = c;
    q[ML_XS] = p->input.strides[0], q[ML_XS + 1] = p->input.strides[1];
    q[ML_TS] = p->target.strides[0];
    if (p->kind == RS_MARGIN_MULTILABEL) {
        q[ML_TS + 1] = p->target.strides[1];
        q[ML_IS] = p->is_target.strides[0], q[ML_IS + 1] = p->is_target.strides[1];
    }
    if (p->weight.address) q[ML_WS] = p->weight.strides[0];
    q[ML_OS] = p->out.strides[0];
    if (backward) {
        q[ML_OS + 1] = p->out.strides[1];
        q[ML_GS] = p->grad.sizes[0] == n ? p->grad.strides[0] : 0;
        /* CPU: g = 1 / (N C) for a mean, else 1 / C, computed in double */
        q[ML_G] = rs_opmath_slot_bits(dt, p->reduction == 1 ? 1.0 / ((double)n * (double)c) : 1.0 / (double)c);
    }
    q[ML_MARGIN] = rs_opmath_slot_bits(dt, p->margin);

    margin_loss_push pc;
    memset(&pc, 0, sizeof pc);
    pc.input_ = p->input.address;
    pc.target = p->target.address;
    pc.weight = p->kind == RS_MARGIN_MULTI ? p->weight.address : 0;
    pc.out_ = p->out.address;
    pc.is_target = p->kind == RS_MARGIN_MULTILABEL ? p->is_target.address : 0;
    pc.grad = backward ? p->grad.address : 0;
    pc.partial = partial;
    pc.params = addr;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.zero = 0;
    rs_access acc[6];
    int na = 0;
    acc[na++] = rs_tensor_access(&p->input, 0);
    acc[na++] = rs_tensor_access(&p->target, 0);
    if (pc.weight) acc[na++] = rs_tensor_access(&p->weight, 0);
    if (pc.is_target) acc[na++] = rs_tensor_access(&p->is_target, !backward);
    if (backward) acc[na++] = rs_tensor_access(&p->grad, 0);
    acc[na++] = reduced ? (rs_access){partial, 8 * (uint64_t)n, 1} : rs_tensor_access(&p->out, 1);
    char defines[128];
    snprintf(defines, sizeof defines, "DT=%d;KIND=%d;MODE=%d;P=%d;WEIGHTED=%d;REDUCED=%d;MEAN=%d", (int)dt,
             (int)p->kind, backward ? 2 : 0, p->kind == RS_MARGIN_MULTI ? p->p : 1, pc.weight != 0, reduced,
             p->reduction == 1);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(dev, "margin_loss.comp", defines, &k)) ||
        (st = rs_launch(s, k, (uint64_t)n, &pc, sizeof pc, acc, na)) || !reduced)
        goto done;
    /* the rows' sums, in order, into the one-element out */
    snprintf(defines, sizeof defines, "DT=%d;KIND=%d;MODE=1;P=1;WEIGHTED=0;REDUCED=1;MEAN=%d", (int)dt,
             (int)p->kind, p->reduction == 1);
    rs_access tacc[2] = {{partial, 8 * (uint64_t)n, 0}, rs_tensor_access(&p->out, 1)};
    if (!(st = rs_kernel_get(dev, "margin_loss.comp", defines, &k))) st = rs_launch(s, k, 1, &pc, sizeof pc, tacc, 2);
done:
    if (partial) rs_free(dev, partial); /* reused only after this stream's work */
    return st;
}

rs_status rs_margin_loss_forward(rs_stream *s, const rs_margin_loss *p) { return run(s, p, 0); }

rs_status rs_margin_loss_backward(rs_stream *s, const rs_margin_loss *p) { return run(s, p, 1); }
