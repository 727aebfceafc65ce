/* ctc.c: the CTC loss, forward and backward (rs_ctc_loss_*; contract in
 * russet/loss.h), on kernels/ctc.comp: the alpha recursion and the loss in
 * one launch (a workgroup per sample walks its frames), the backward in
 * three (beta likewise; every class's gradient; the target's classes). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/ctc.h"
#include "russet/loss.h"

typedef struct ctc_push { RS_CTC_PUSH } ctc_push;

enum { CTC_NT = 256 };

/* The problem's sizes, checked: T, N, C, Lmax, S, SMAX (the frame the
 * recursions keep in shared memory: the power of two from 256 up that holds
 * S positions; the kernel's registers and shared memory grow with it, and
 * most targets take one position an invocation), and the parameter block
 * (the CT_ slots and each sample's lengths and first label) in the arena. */
typedef struct ctc_plan {
    int64_t t, n, c, lmax, s, smax;
    uint64_t params;
} ctc_plan;

static rs_status check_vec(const char *name, const rs_tensor *v, int64_t n, rs_dtype dt) {
    if (v->ndim != 1 || v->sizes[0] != n || v->dtype != dt)
        return rs_error(RS_ERR_INVALID, "ctc_loss: %s must be a 1-d %s tensor of %lld elements", name,
                        rs_dtype_name(dt), (long long)n);
    return RS_OK;
}

static rs_status plan(rs_stream *s, const rs_ctc_loss *p, int backward, ctc_plan *q) {
    const rs_tensor *lp = &p->log_probs;
    rs_dtype dt = lp->dtype;
    if (lp->ndim != 3) return rs_error(RS_ERR_INVALID, "ctc_loss: log_probs must be a 3-d tensor (T, N, C)");
    if (dt != RS_FLOAT32 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "ctc_loss: the kernel computes float32 and float64 (got %s)",
                        rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "ctc_loss: float64 needs float64 arithmetic, which this device lacks");
    q->t = lp->sizes[0], q->n = lp->sizes[1], q->c = lp->sizes[2];
    if (p->blank < 0 || p->blank >= q->c) return rs_error(RS_ERR_INVALID, "blank must be in label range");
    if (q->n > 0 && (!p->input_lengths || !p->target_lengths))
        return rs_error(RS_ERR_INVALID, "ctc_loss: missing input or target lengths");
    q->lmax = 0;
    int64_t total = 0;
    for (int64_t i = 0; i < q->n; ++i) {
        if (p->input_lengths[i] < 0 || p->input_lengths[i] > q->t)
            return rs_error(RS_ERR_INVALID, "Expected input_lengths to have value at most %lld, but got value %lld",
                            (long long)q->t, (long long)p->input_lengths[i]);
        if (p->target_lengths[i] < 0)
            return rs_error(RS_ERR_INVALID, "Expected target_lengths to have value at least 0, but got value %lld",
                            (long long)p->target_lengths[i]);
        if (p->target_lengths[i] > q->lmax) q->lmax = p->target_lengths[i];
        total += p->target_lengths[i];
    }
    const rs_tensor *tg = &p->targets;
    if (tg->dtype != RS_INT32 && tg->dtype != RS_INT64)
        return rs_error(RS_ERR_INVALID, "ctc_loss: targets must be int32 or int64 (got %s)", rs_dtype_name(tg->dtype));
    if (tg->ndim == 2) {
        if (tg->sizes[0] != q->n)
            return rs_error(RS_ERR_INVALID, "Expected tensor to have size %lld at dimension 0, but got size %lld for "
                            "argument #2 'targets'", (long long)q->n, (long long)tg->sizes[0]);
        if (tg->sizes[1] < q->lmax)
            return rs_error(RS_ERR_INVALID, "Expected tensor to have size at least %lld at dimension 1, but got size "
                            "%lld for argument #2 'targets'", (long long)q->lmax, (long long)tg->sizes[1]);
    } else if (tg->ndim == 1) {
        if (tg->sizes[0] < total)
            return rs_error(RS_ERR_INVALID, "Expected tensor to have size at least %lld at dimension 0, but got size "
                            "%lld for argument #2 'targets'", (long long)total, (long long)tg->sizes[0]);
    } else {
        return rs_error(RS_ERR_INVALID, "ctc_loss: targets must be 1-d or 2-d");
    }
    q->s = 2 * q->lmax + 1;
    for (q->smax = CTC_NT; q->smax < q->s;) q->smax *= 2;
    if ((uint64_t)q->smax * rs_dtype_size(dt) > rs_stream_features(s)->max_shared_memory)
        return rs_error(RS_ERR_UNSUPPORTED,
                        "ctc_loss: a target of %lld labels needs a frame of %lld bytes, past the device's %u of "
                        "shared memory",
                        (long long)q->lmax, (long long)(q->smax * (int64_t)rs_dtype_size(dt)),
                        rs_stream_features(s)->max_shared_memory);
    const rs_tensor *al = &p->log_alpha;
    if (al->ndim != 3 || al->sizes[0] != q->n || al->sizes[1] != q->t || al->sizes[2] != q->s || al->dtype != dt)
        return rs_error(RS_ERR_INVALID, "ctc_loss: log_alpha must be (%lld, %lld, %lld) of %s", (long long)q->n,
                        (long long)q->t, (long long)q->s, rs_dtype_name(dt));
    rs_status st;
    if ((st = check_vec("nll", &p->nll, q->n, dt)) != RS_OK) return st;
    if (backward) {
        if ((st = check_vec("grad_out", &p->grad_out, q->n, dt)) != RS_OK) return st;
        const rs_tensor *g = &p->grad;
        if (g->ndim != 3 || g->sizes[0] != q->t || g->sizes[1] != q->n || g->sizes[2] != q->c || g->dtype != dt)
            return rs_error(RS_ERR_INVALID, "ctc_loss: grad must have log_probs' sizes and dtype");
    }

    void *host = NULL;
    size_t slots = CT_SLOTS + CT_PER_SAMPLE * (size_t)q->n;
    if ((st = rs_stream_arena(s, slots * sizeof(int64_t), &host, &q->params)) != RS_OK) return st;
    int64_t *cp = host;
    memset(cp, 0, slots * sizeof(int64_t));
    cp[CT_T] = q->t, cp[CT_N] = q->n, cp[CT_C] = q->c, cp[CT_S] = q->s, cp[CT_LMAX] = q->lmax;
    cp[CT_BLANK] = p->blank;
    cp[CT_ZERO_INF] = backward && p->zero_infinity;
    memcpy(cp + CT_LP_ST, lp->strides, 3 * sizeof(int64_t));
    if (backward) memcpy(cp + CT_GRAD_ST, p->grad.strides, 3 * sizeof(int64_t));
    memcpy(cp + CT_ALPHA_ST, al->strides, 3 * sizeof(int64_t));
    cp[CT_NLL_ST] = p->nll.strides[0];
    if (backward) cp[CT_GO_ST] = p->grad_out.strides[0];
    cp[CT_TG_ST] = tg->strides[tg->ndim - 1];
    int64_t start = 0;
    for (int64_t i = 0; i < q->n; ++i) {
        int64_t *e = cp + CT_SLOTS + CT_PER_SAMPLE * i;
        e[CT_IN_LEN] = p->input_lengths[i];
        e[CT_TG_LEN] = p->target_lengths[i];
        /* 2-d: row i; 1-d: after the labels of the samples before */
        e[CT_TG_START] = tg->ndim == 2 ? i * tg->strides[0] : start * tg->strides[0];
        start += p->target_lengths[i];
    }
    return RS_OK;
}

/* MODE 0 and 1 hold a frame of SMAX positions in shared memory; the other
 * modes take none. */
static rs_status kernel(rs_stream *s, const rs_ctc_loss *p, const ctc_plan *q, int mode, rs_kernel **k) {
    char defines[96];
    snprintf(defines, sizeof defines, "DT=%d;TG_DT=%d;MODE=%d;SMAX=%d", (int)p->log_probs.dtype,
             (int)p->targets.dtype, mode, mode <= 1 ? (int)q->smax : 0);
    return rs_kernel_get(rs_stream_device(s), "ctc.comp", defines, k);
}

static ctc_push push_for(rs_stream *s, const rs_ctc_loss *p, const ctc_plan *q, const char *name) {
    rs_device *dev = rs_stream_device(s);
    ctc_push pc;
    memset(&pc, 0, sizeof pc);
    pc.lp = p->log_probs.address;
    pc.targets = p->targets.address;
    pc.alpha = p->log_alpha.address;
    pc.nll = p->nll.address;
    pc.grad_out = p->grad_out.address;
    pc.grad = p->grad.address;
    pc.params = q->params;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    return pc;
}

/* a workgroup per sample (MODE 0 and 1) */
static rs_status per_sample(rs_stream *s, rs_kernel *k, const ctc_push *pc, const ctc_plan *q, const rs_access *acc,
                            int n) {
    uint32_t groups[3] = {rs_groups_capped(s, (uint64_t)q->n, (uint64_t)q->n), 1, 1};
    return rs_dispatch(s, k, groups, pc, sizeof *pc, acc, n);
}

rs_status rs_ctc_loss_forward(rs_stream *s, const rs_ctc_loss *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_ctc_loss_forward: missing arguments");
    ctc_plan q;
    rs_status st = plan(s, p, 0, &q);
    if (st != RS_OK || q.n == 0) return st;
    rs_kernel *k = NULL;
    if ((st = kernel(s, p, &q, 0, &k)) != RS_OK) return st;
    ctc_push pc = push_for(s, p, &q, "ctc_loss");
    rs_access acc[4] = {rs_tensor_access(&p->log_probs, 0), rs_tensor_access(&p->targets, 0),
                        rs_tensor_access(&p->log_alpha, 1), rs_tensor_access(&p->nll, 1)};
    return per_sample(s, k, &pc, &q, acc, 4);
}

rs_status rs_ctc_loss_backward(rs_stream *s, const rs_ctc_loss *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_ctc_loss_backward: missing arguments");
    ctc_plan q;
    rs_status st = plan(s, p, 1, &q);
    if (st != RS_OK || q.n == 0 || q.t == 0 || q.c == 0) return st;
    rs_device *dev = rs_stream_device(s);
    rs_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    if ((st = kernel(s, p, &q, 1, &k1)) || (st = kernel(s, p, &q, 2, &k2)) || (st = kernel(s, p, &q, 3, &k3)))
        return st;
    ctc_push pc = push_for(s, p, &q, "ctc_loss_backward");
    uint64_t beta_bytes = (uint64_t)(q.n * q.t * q.s) * rs_dtype_size(p->log_probs.dtype);
    if ((st = rs_alloc(dev, beta_bytes, s, &pc.beta)) != RS_OK) return st;
    rs_access lp = rs_tensor_access(&p->log_probs, 0), tg = rs_tensor_access(&p->targets, 0);
    rs_access beta_w = {pc.beta, beta_bytes, 1}, beta_r = {pc.beta, beta_bytes, 0};
    rs_access nll = rs_tensor_access(&p->nll, 0), go = rs_tensor_access(&p->grad_out, 0);
    rs_access grad = rs_tensor_access(&p->grad, 1), alpha = rs_tensor_access(&p->log_alpha, 0);
    rs_access a1[3] = {lp, tg, beta_w};
    st = per_sample(s, k1, &pc, &q, a1, 3);
    if (st == RS_OK) {
        rs_access a2[4] = {lp, nll, go, grad};
        pc.items = (uint64_t)(q.t * q.n * q.c);
        st = rs_launch(s, k2, pc.items, &pc, sizeof pc, a2, 4);
    }
    if (st == RS_OK) {
        rs_access a3[7] = {lp, tg, alpha, beta_r, nll, go, grad};
        pc.items = (uint64_t)(q.t * q.n * (q.lmax + 1));
        st = rs_launch(s, k3, pc.items, &pc, sizeof pc, a3, 7);
    }
    rs_free(dev, pc.beta); /* reused only after this stream's work */
    return st;
}
