/* attention.c: scaled dot-product attention, forward and backward
 * (rs_attention_run; contract in russet/attention.h), on kernels/attention.comp.
 *
 * The forward is one kernel; the backward three: the row terms
 * D = rowsum(dO * out) into a scratch vector, then grad q (a workgroup per
 * 16 query rows) and grad k and v (a workgroup per 16 keys), each summing
 * its own elements in a fixed order: no atomics, the same bits every run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/attention.h"

#define ATTN_DIM_MAX 256 /* the most head dims a row may have */

static int acc_bytes(rs_dtype dt) { return dt == RS_FLOAT64 ? 8 : 4; }

static rs_status check_view(const char *what, const rs_tensor *t, rs_dtype dt) {
    if (t->ndim != 4)
        return rs_error(RS_ERR_INVALID, "attention: %s must have 4 dims (batch, heads, rows, dims), got %d", what,
                        t->ndim);
    if (t->dtype != dt)
        return rs_error(RS_ERR_INVALID, "attention: %s is %s, expected %s", what, rs_dtype_name(t->dtype),
                        rs_dtype_name(dt));
    for (int d = 0; d < 4; ++d)
        if (t->sizes[d] < 0 || t->strides[d] < 0)
            return rs_error(RS_ERR_INVALID, "attention: %s has a negative size or stride", what);
    return RS_OK;
}

static int same4(const rs_tensor *t, int64_t a, int64_t b, int64_t c, int64_t d) {
    return t->sizes[0] == a && t->sizes[1] == b && t->sizes[2] == c && t->sizes[3] == d;
}

static uint32_t dims_bucket(int64_t e) { return e <= 32 ? 32u : e <= 64 ? 64u : e <= 128 ? 128u : 256u; }

/* attention.comp's geometry for one mode: RL lanes a row, so that a lane
 * keeps about 64 values of the row's vectors in registers (MODE 0: q and
 * the output; 2: q, dO and dq; 3: k, v, dk and dv), at least 4 dims of each
 * (a vec4); BK staged rows, the most of 16, 8, 4 that fit the apple
 * profile's 32 KiB of shared memory with the partial sums. */
enum { ATTN_NT = 128 };
static void geometry(int mode, uint32_t de, uint32_t dv, int accb, uint32_t *rl, uint32_t *bk) {
    uint32_t regs = mode == 0 ? de + dv : mode == 2 ? 2 * de + dv : 2 * (de + dv);
    uint32_t r = 1;
    while (r < 16 && regs / r > 64) r *= 2;
    while (de / r < 4 || dv / r < 4) r /= 2;
    *rl = r;
    uint32_t parts = mode >= 2 ? 2 : 1, b = 16;
    while (b > 4 && (uint64_t)accb * (b * (de + dv) + parts * (ATTN_NT / r) * (r * b + 1) + 2 * b) > 32768) b /= 2;
    *bk = b;
}

rs_status rs_attention_run(rs_stream *s, const rs_attention *a) {
    if (!s || !a) return rs_error(RS_ERR_INVALID, "attention: missing arguments");
    if ((int)a->op < 0 || a->op > RS_ATTN_BACKWARD) return rs_error(RS_ERR_INVALID, "attention: bad op");
    rs_dtype dt = a->q.dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "attention: no kernel for %s", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "attention: float64 needs float64 arithmetic, which this device lacks");
    rs_status st;
    if ((st = check_view("q", &a->q, dt)) || (st = check_view("k", &a->k, dt)) || (st = check_view("v", &a->v, dt)) ||
        (st = check_view("out", &a->out, dt)))
        return st;
    int64_t b = a->q.sizes[0], hq = a->q.sizes[1], l = a->q.sizes[2], e = a->q.sizes[3];
    int64_t hk = a->k.sizes[1], sl = a->k.sizes[2], ev = a->v.sizes[3];
    if (!same4(&a->k, b, hk, sl, e) || !same4(&a->v, b, hk, sl, ev) || !same4(&a->out, b, hq, l, ev))
        return rs_error(RS_ERR_INVALID, "attention: shapes do not match: q (%lld, %lld, %lld, %lld), k (%lld, %lld, "
                        "%lld, %lld), v (..., %lld), out (..., %lld)", (long long)b, (long long)hq, (long long)l,
                        (long long)e, (long long)a->k.sizes[0], (long long)hk, (long long)sl,
                        (long long)a->k.sizes[3], (long long)ev, (long long)a->out.sizes[3]);
    if (hk == 0 ? hq != 0 : hq % hk != 0)
        return rs_error(RS_ERR_INVALID, "attention: %lld query heads are not a multiple of %lld key heads",
                        (long long)hq, (long long)hk);
    if (e > ATTN_DIM_MAX || ev > ATTN_DIM_MAX)
        return rs_error(RS_ERR_UNSUPPORTED, "attention: head dims %lld and %lld (at most %d)", (long long)e,
                        (long long)ev, ATTN_DIM_MAX);
    int has_mask = a->mask.ndim != 0;
    if (has_mask && ((st = check_view("mask", &a->mask, dt)) || !same4(&a->mask, b, hq, l, sl)))
        return st ? st : rs_error(RS_ERR_INVALID, "attention: the mask must be a (B, Hq, L, S) view");
    int backward = a->op == RS_ATTN_BACKWARD;
    if (backward) {
        if ((st = check_view("grad_out", &a->grad_out, dt))) return st;
        if (!same4(&a->grad_out, b, hq, l, ev)) return rs_error(RS_ERR_INVALID, "attention: grad_out is not out's shape");
        const rs_tensor *g[3] = {&a->grad_q, &a->grad_k, &a->grad_v}, *like[3] = {&a->q, &a->k, &a->v};
        const char *names[3] = {"grad_q", "grad_k", "grad_v"};
        for (int i = 0; i < 3; ++i) {
            if (!g[i]->address) continue;
            if ((st = check_view(names[i], g[i], dt))) return st;
            if (!same4(g[i], like[i]->sizes[0], like[i]->sizes[1], like[i]->sizes[2], like[i]->sizes[3]))
                return rs_error(RS_ERR_INVALID, "attention: %s is not its input's shape", names[i]);
        }
    }
    if (!a->lse && b * hq * l > 0) return rs_error(RS_ERR_INVALID, "attention: missing lse");
    if (b * hq * l == 0 && (!backward || b * hk * sl == 0)) return RS_OK;

    uint64_t addr;
    void *host = NULL;
    if ((st = rs_stream_arena(s, AP_SLOTS * sizeof(int64_t), &host, &addr)) != RS_OK) return st;
    int64_t *ap = host;
    memset(ap, 0, AP_SLOTS * sizeof(int64_t));
    ap[AP_B] = b, ap[AP_HQ] = hq, ap[AP_HK] = hk, ap[AP_L] = l, ap[AP_S] = sl, ap[AP_E] = e, ap[AP_EV] = ev;
    ap[AP_CAUSAL] = a->causal != 0;
    ap[AP_SCALE] = dt == RS_FLOAT64 ? (int64_t)rs_f64_bits(a->scale) : (int64_t)rs_f32_bits((float)a->scale);
    const rs_tensor *views[9] = {&a->q, &a->k, &a->v, &a->out, has_mask ? &a->mask : NULL,
                                 backward ? &a->grad_out : NULL, backward ? &a->grad_q : NULL,
                                 backward ? &a->grad_k : NULL, backward ? &a->grad_v : NULL};
    for (int i = 0; i < 9; ++i)
        if (views[i] && views[i]->address)
            for (int d = 0; d < 4; ++d) ap[AP_QS + 4 * i + d] = views[i]->strides[d];

    struct { RS_ATTENTION_PUSH } pc;
    memset(&pc, 0, sizeof pc);
    pc.q = a->q.address, pc.k = a->k.address, pc.v = a->v.address, pc.o = a->out.address;
    pc.mask = has_mask ? a->mask.address : 0;
    pc.lse = a->lse;
    pc.params = addr;
    uint64_t lse_bytes = (uint64_t)(b * hq * l) * (uint64_t)acc_bytes(dt);
    rs_device *dev = rs_stream_device(s);
    char defines[128];
    uint32_t de = dims_bucket(e), dv = dims_bucket(ev);
    rs_kernel *k = NULL;
    rs_access acc[12];
    int n = 0;
    acc[n++] = rs_tensor_access(&a->q, 0);
    acc[n++] = rs_tensor_access(&a->k, 0);
    acc[n++] = rs_tensor_access(&a->v, 0);
    if (has_mask) acc[n++] = rs_tensor_access(&a->mask, 0);
    uint32_t rl, bk;
#define DEFINES(mode)                                                                                          \
    geometry(mode, de, dv, acc_bytes(dt), &rl, &bk),                                                           \
        snprintf(defines, sizeof defines, "DT=%d;MODE=%d;HAS_MASK=%d;DE=%uu;DV=%uu;ACCB=%d;RL=%uu;BK=%uu", (int)dt, \
                 mode, has_mask, de, dv, acc_bytes(dt), rl, bk)
    /* workgroups: one per ATTN_NT / rl rows (query rows, or keys in MODE 3) */
#define GROUPS(heads, rows) \
    rs_groups_capped(s, (uint64_t)(heads) * (uint64_t)(((rows) + ATTN_NT / rl - 1) / (ATTN_NT / rl)), 65535)
    if (!backward) {
        acc[n++] = rs_tensor_access(&a->out, 1);
        acc[n++] = (rs_access){a->lse, lse_bytes, 1};
        DEFINES(0);
        if ((st = rs_kernel_get(dev, "attention.comp", defines, &k)) != RS_OK) return st;
        uint32_t g[3] = {GROUPS(b * hq, l), 1, 1};
        return rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
    }

    pc.dout = a->grad_out.address;
    pc.dq = a->grad_q.address, pc.dk = a->grad_k.address, pc.dv = a->grad_v.address;
    acc[n++] = rs_tensor_access(&a->out, 0);
    acc[n++] = rs_tensor_access(&a->grad_out, 0);
    acc[n++] = (rs_access){a->lse, lse_bytes, 0};
    if (lse_bytes && (st = rs_alloc(dev, lse_bytes, s, &pc.drow)) != RS_OK) return st;
    rs_access dacc = {pc.drow, lse_bytes, 1};
    if (lse_bytes) {
        /* D = rowsum(dO * out) */
        acc[n] = dacc;
        DEFINES(1);
        if ((st = rs_kernel_get(dev, "attention.comp", defines, &k)) == RS_OK) {
            uint32_t g[3] = {rs_groups_capped(s, (uint64_t)(b * hq * l + ATTN_NT - 1) / ATTN_NT, 65535), 1, 1};
            st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, n + 1);
        }
    }
    dacc.write = 0;
    acc[n++] = dacc;
    if (st == RS_OK && pc.dq && lse_bytes) {
        acc[n] = rs_tensor_access(&a->grad_q, 1);
        DEFINES(2);
        if ((st = rs_kernel_get(dev, "attention.comp", defines, &k)) == RS_OK) {
            uint32_t g[3] = {GROUPS(b * hq, l), 1, 1};
            st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, n + 1);
        }
    }
    if (st == RS_OK && (pc.dk || pc.dv) && b * hk * sl > 0) {
        int m = n;
        if (pc.dk) acc[m++] = rs_tensor_access(&a->grad_k, 1);
        if (pc.dv) acc[m++] = rs_tensor_access(&a->grad_v, 1);
        DEFINES(3);
        if ((st = rs_kernel_get(dev, "attention.comp", defines, &k)) == RS_OK) {
            uint32_t g[3] = {GROUPS(b * hk, sl), 1, 1};
            st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, m);
        }
    }
#undef DEFINES
#undef GROUPS
    if (pc.drow) rs_free(dev, pc.drow);
    return st;
}
