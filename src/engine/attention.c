/* attention.c: scaled dot-product attention, forward and backward
 * (rs_attention_run; contract in russet/attention.h).
 *
 * The forward is one kernel (kernels/attention.comp, an online softmax;
 * for float16/bfloat16 on cooperative matrices attention_coopmat_khr.comp,
 * the same on the fragments, or blocks of scores as the backward's:
 * forward_path). The backward: blocks of scores through the GEMM engine and
 * kernels/attention_blocks.comp (run_blocks below), each gradient
 * summed in a fixed order: no atomics, the same bits every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/attention.h"
#include "params/attention_blocks.h"
#include "russet/gemm.h"

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

/* attention.comp's geometry: RL lanes a row, so that a lane keeps about 64
 * values of the row's vectors in registers (q and the output), at least 4
 * dims of each (a vec4); BK staged rows, the most of 16, 8, 4 that fit the
 * apple profile's 32 KiB of shared memory with the partial sums. */
enum { ATTN_NT = 128 };
static void geometry(uint32_t de, uint32_t dv, int accb, uint32_t *rl, uint32_t *bk) {
    uint32_t r = 1;
    while (r < 16 && (de + dv) / r > 64) r *= 2;
    while (de / r < 4 || dv / r < 4) r /= 2;
    *rl = r;
    uint32_t b = 16;
    while (b > 4 && (uint64_t)accb * (b * (de + dv) + (ATTN_NT / r) * (r * b + 1) + 2 * b) > 32768) b /= 2;
    *bk = b;
}

/* The dropout's parameter slots (russet/attention.h): the keep threshold
 * float (1 - p) as bits, ACC's 1 / (1 - p) as bits, the seed and offset */
static void dropout_params(const rs_attention *a, int64_t *keep, int64_t *scale, int64_t *seed, int64_t *offset) {
    const double k = 1.0 - a->dropout;
    *keep = (int64_t)rs_f32_bits((float)k);
    *scale = a->q.dtype == RS_FLOAT64 ? (int64_t)rs_f64_bits(1.0 / k) : (int64_t)rs_f32_bits((float)(1.0 / k));
    *seed = (int64_t)a->seed, *offset = (int64_t)a->offset;
}

/* ---------------------------------------------------------------- the backward
 * Blocks of scores through the GEMM engine (its tiles, split k and
 * cooperative matrices) and two row kernels (kernels/attention_blocks.comp).
 * A block is NZ (batch, key head) pairs z = b Hk + hk, LC query rows
 * i0.. of query head h = hk G + r, and the NK keys those rows see (all S,
 * or up to the block's last row when causal):
 *   sc = scale q k^T                      (GEMM, alpha = scale)
 *   p  = softmax(sc + mask)               (MODE 0, in place)
 *   dv += p^T dO                          (GEMM)
 *   dp = dO v^T                           (GEMM)
 *   ds = p (dp - rowsum(p dp))            (MODE 1, in place)
 *   dq = scale ds k,  dk += scale ds^T q  (GEMMs)
 * dk and dv start at 0 and sum over the query blocks and the G query heads
 * of their key head in a fixed order (the GEMM's beta = 1): no atomics, the
 * same bits every run. The probabilities are recomputed from the block's
 * own scores, not from the forward's lse (attention_blocks.comp says why),
 * so the backward reads q, k, v and dO only. Memory: two blocks of at most
 * BLOCK_BYTES (LC and NZ shrink to fit; a block holds whole rows, so one
 * query row of S keys is the floor). The products accumulate in ACC
 * (float32; float64 for float64). float16/bfloat16: the products read q,
 * k, v and dO as they are, and p and ds rounded to their dtype (a third
 * block, `low`, that the row kernels write), as CUDA's and CPU's fused
 * kernels do, and write float32 (the scores, dp, and dq, dk, dv in float32
 * copies: dk and dv are sums), so the GEMM engine runs them on cooperative
 * matrices where the device has them. Views that one batch stride cannot
 * walk are copied contiguous. Dropout (any dtype): `low` holds the dropped
 * p that the products read (dv, and out on the forward's blocks), MODE 1
 * scales dp by the same mask (attention_blocks.comp), so a third block
 * then for float32/float64 too. */
enum { BLOCK_BYTES = 128 << 20, CAUSAL_ROWS = 128 };

/* The stride that walks z = b Hk + hk over a (B, Hk G, rows, dims) view, for
 * the heads hk G + r: 0 when no one stride does. */
static int z_stride(const rs_tensor *t, int64_t g, int64_t hk, int64_t *zs) {
    if (t->sizes[0] <= 1) return *zs = g * t->strides[1], 1;
    if (hk == 1) return *zs = t->strides[0], 1;
    *zs = g * t->strides[1];
    return t->strides[0] == hk * *zs;
}

/* The view the products read or write for t: t itself, or a contiguous
 * copy in dtype w (*tmp: its allocation, else 0; copied in when `in`). */
static rs_status work_view(rs_stream *s, const rs_tensor *t, rs_dtype w, int64_t g, int64_t hk, int in,
                           rs_tensor *out, uint64_t *tmp) {
    int64_t zs;
    *out = *t;
    *tmp = 0;
    if (t->dtype == w && z_stride(t, g, hk, &zs)) return RS_OK;
    out->dtype = w;
    int64_t step = 1;
    for (int d = 3; d >= 0; --d) out->strides[d] = step, step *= t->sizes[d];
    rs_status st = rs_alloc(rs_stream_device(s), (uint64_t)step * rs_dtype_size(w), s, tmp);
    if (st != RS_OK) return st;
    out->address = *tmp;
    return in ? rs_copy(s, out, t) : RS_OK;
}

/* A GEMM operand: rows row0.. of a working view, heads hk G + r, over z
 * from z0; transposed: (dims, rows). */
static rs_gemm_operand view_operand(const rs_tensor *t, int64_t g, int64_t hk, int64_t z0, int64_t r, int64_t row0,
                                    int transposed) {
    int64_t zs;
    z_stride(t, g, hk, &zs);
    rs_gemm_operand o;
    o.address = t->address + (uint64_t)((z0 * zs + r * t->strides[1] + row0 * t->strides[2]) *
                                        (int64_t)rs_dtype_size(t->dtype));
    o.stride[0] = zs;
    o.stride[1] = t->strides[transposed ? 3 : 2];
    o.stride[2] = t->strides[transposed ? 2 : 3];
    return o;
}

/* A contiguous (NZ, rows, cols) block at `address`; transposed: (cols, rows). */
static rs_gemm_operand block_operand(uint64_t address, int64_t rows, int64_t cols, int transposed) {
    rs_gemm_operand o = {address, {rows * cols, transposed ? 1 : cols, transposed ? cols : 1}};
    return o;
}

/* c (+)= alpha a @ b over nz batches, a and b of dtype w: `accumulate` adds
 * to what c holds; c is float32 with c32 (w float16/bfloat16), else w */
static rs_status block_gemm(rs_stream *s, rs_dtype w, int c32, int64_t nz, int64_t m, int64_t n, int64_t k,
                            rs_gemm_operand a, rs_gemm_operand b, rs_gemm_operand c, double alpha, int accumulate) {
    rs_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = w, d.batch = nz, d.m = m, d.n = n, d.k = k;
    d.a = a, d.b = b, d.c = c, d.cin = c;
    d.use_cin = accumulate;
    d.c_float32 = c32;
    if (w == RS_FLOAT64) d.alpha[0].d = alpha, d.beta[0].d = 1.0;
    else d.alpha[0].f = (float)alpha, d.beta[0].f = 1.0f;
    return rs_gemm(s, &d);
}

typedef struct blocks_ctx {
    rs_stream *s;
    const rs_attention *a;
    rs_kernel *kern[2];
    uint32_t rl;
    struct { RS_ATTENTION_BLOCKS_PUSH } pc;
    rs_access acc[6];
    int nacc;
} blocks_ctx;

/* one of attention_blocks.comp's row steps on the block at (z0, i0, r) */
static rs_status block_rows(blocks_ctx *x, int mode, int64_t z0, int64_t nz, int64_t i0, int64_t lc, int64_t nk,
                            int64_t r, int64_t g, int64_t hk) {
    void *host;
    rs_status st = rs_stream_arena(x->s, AB_SLOTS * sizeof(int64_t), &host, &x->pc.params);
    if (st != RS_OK) return st;
    int64_t *ab = host;
    const rs_attention *a = x->a;
    ab[AB_Z0] = z0, ab[AB_NZ] = nz, ab[AB_I0] = i0, ab[AB_LC] = lc, ab[AB_NK] = nk;
    ab[AB_R] = r, ab[AB_G] = g, ab[AB_HK] = hk, ab[AB_CAUSAL] = a->causal != 0, ab[AB_L] = a->q.sizes[2];
    ab[AB_S] = a->k.sizes[2];
    dropout_params(a, &ab[AB_DROP_KEEP], &ab[AB_DROP_SCALE], &ab[AB_SEED], &ab[AB_OFFSET]);
    for (int d = 0; d < 4; ++d) ab[AB_MS + d] = a->mask.ndim ? a->mask.strides[d] : 0;
    const uint64_t rows_a_group = 256 / x->rl;
    uint32_t groups[3] = {rs_groups_capped(x->s, ((uint64_t)(nz * lc) + rows_a_group - 1) / rows_a_group, 65535), 1, 1};
    return rs_dispatch(x->s, x->kern[mode], groups, &x->pc, sizeof x->pc, x->acc, x->nacc);
}

/* The forward on the same blocks (fwd; float16/bfloat16 where the device
 * has their cooperative matrices: forward_on_blocks):
 *   sc = scale q k^T                        (GEMM, float32 result)
 *   p = softmax(sc + mask) in dt, and lse   (MODE 0 with FWD)
 *   out = p v                               (GEMM, dt result)
 * Memory: a float32 block and its dt copy, as the backward's. */
static rs_status run_blocks(rs_stream *s, const rs_attention *a, int fwd) {
    const rs_dtype dt = a->q.dtype, w = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    /* float16/bfloat16: the products' operands stay in dt (p and ds through
     * `low`, float32 results: half); dropout: the products read the dropped
     * p, so `low` holds it (in w for float32/float64) while sc keeps p */
    const int half = dt == RS_FLOAT16 || dt == RS_BFLOAT16, drop = a->dropout > 0.0, low = half || drop;
    const rs_dtype rd = half ? dt : w;
    const int64_t b = a->q.sizes[0], hq = a->q.sizes[1], l = a->q.sizes[2], e = a->q.sizes[3];
    const int64_t hk = a->k.sizes[1], sl = a->k.sizes[2], ev = a->v.sizes[3];
    const int64_t g = hk ? hq / hk : 1, nzt = b * hk;
    const int accb = acc_bytes(dt);
    const int want_q = !fwd && a->grad_q.address != 0, want_k = !fwd && a->grad_k.address != 0;
    const int want_v = !fwd && a->grad_v.address != 0, want_dp = want_q || want_k;
    rs_device *dev = rs_stream_device(s);
    rs_status st = RS_OK;

    /* the working views: [0..3] read (q, k, v, dO), [4..6] written (the
     * forward: out in [4], in dt) */
    const rs_tensor *src[7] = {&a->q, &a->k, &a->v, &a->grad_out, fwd ? &a->out : &a->grad_q, &a->grad_k,
                               &a->grad_v};
    const int64_t groups[7] = {g, 1, 1, g, g, 1, 1};
    const int want[7] = {1, 1, 1, !fwd, fwd || want_q, want_k, want_v};
    rs_tensor wv[7];
    memset(wv, 0, sizeof wv);
    uint64_t tmp[7] = {0};
    for (int i = 0; i < 7 && st == RS_OK; ++i)
        if (want[i]) st = work_view(s, src[i], i < 4 || fwd ? rd : w, groups[i], hk, i < 4, &wv[i], &tmp[i]);
    const rs_tensor *q = &wv[0], *k = &wv[1], *v = &wv[2], *dout = &wv[3], *dq = &wv[4], *dk = &wv[5], *dv = &wv[6];
    /* dk and dv are sums over blocks; dq too when there are no keys */
    const uint64_t zero[2] = {0, 0};
    if (st == RS_OK && want_k) st = rs_fill(s, dk, zero);
    if (st == RS_OK && want_v) st = rs_fill(s, dv, zero);
    if (st == RS_OK && want_q && sl == 0) st = rs_fill(s, dq, zero);

    /* the block: whole rows of S keys; causal blocks of CAUSAL_ROWS rows, so
     * that each sees only the keys up to its last row */
    int64_t nzc = nzt, lc = l;
    if (a->causal && lc > CAUSAL_ROWS) lc = CAUSAL_ROWS;
    /* RUSSET_ATTENTION_BLOCK_BYTES: a smaller budget, for tests of the splits */
    const char *env = getenv("RUSSET_ATTENTION_BLOCK_BYTES");
    const uint64_t budget = env && strtoull(env, NULL, 10) ? strtoull(env, NULL, 10) : BLOCK_BYTES;
    while ((uint64_t)(nzc * lc * sl) * (uint64_t)accb > budget && (lc > 1 || nzc > 1)) {
        if (lc > 1) lc = (lc + 1) / 2;
        else nzc = (nzc + 1) / 2;
    }
    const uint64_t block_bytes = (uint64_t)(nzc * lc * sl) * (uint64_t)accb;
    const uint64_t low_bytes = low ? (uint64_t)(nzc * lc * sl) * rs_dtype_size(rd) : 0;
    blocks_ctx x;
    memset(&x, 0, sizeof x);
    x.s = s, x.a = a;
    const int run = l > 0 && sl > 0 && nzt > 0 && (fwd || want_q || want_k || want_v);
    if (st == RS_OK && run) {
        st = rs_alloc(dev, block_bytes, s, &x.pc.sc);
        if (st == RS_OK && want_dp) st = rs_alloc(dev, block_bytes, s, &x.pc.dp);
        if (st == RS_OK && low) st = rs_alloc(dev, low_bytes, s, &x.pc.low);
        x.pc.mask = a->mask.ndim ? a->mask.address : 0;
        x.acc[x.nacc++] = (rs_access){x.pc.sc, block_bytes, 1};
        if (x.pc.dp) x.acc[x.nacc++] = (rs_access){x.pc.dp, block_bytes, 1};
        if (x.pc.low) x.acc[x.nacc++] = (rs_access){x.pc.low, low_bytes, 1};
        if (a->mask.ndim) x.acc[x.nacc++] = rs_tensor_access(&a->mask, 0);
        if (fwd) {
            x.pc.lse = a->lse;
            x.acc[x.nacc++] = (rs_access){a->lse, (uint64_t)(b * hq * l) * (uint64_t)accb, 1};
        }
        /* lanes a row: about 4 keys a lane, 32 to 256 */
        x.rl = 32;
        while (x.rl < 256 && (int64_t)x.rl * 4 < sl) x.rl *= 2;
        char defines[112];
        for (int mode = 0; mode < (want_dp ? 2 : 1) && st == RS_OK; ++mode) {
            snprintf(defines, sizeof defines, "DT=%d;MODE=%d;HAS_MASK=%d;ACCB=%d;RL=%uu;LOW=%d;FWD=%d;DROP=%d",
                     (int)dt, mode, a->mask.ndim != 0, accb, x.rl, low, fwd, drop);
            st = rs_kernel_get(dev, "attention_blocks.comp", defines, &x.kern[mode]);
        }
    }
    const double scale = a->scale;
    for (int64_t z0 = 0; st == RS_OK && run && z0 < nzt; z0 += nzc) {
        const int64_t nz = nzt - z0 < nzc ? nzt - z0 : nzc;
        for (int64_t r = 0; r < g && st == RS_OK; ++r)
            for (int64_t i0 = 0; i0 < l && st == RS_OK; i0 += lc) {
                const int64_t lb = l - i0 < lc ? l - i0 : lc;
                const int64_t nk = a->causal && i0 + lb < sl ? i0 + lb : sl; /* keys after the last row: hidden */
                const rs_gemm_operand sc = block_operand(x.pc.sc, lb, nk, 0), dp = block_operand(x.pc.dp, lb, nk, 0);
                /* what the products read of p and ds: sc and dp in place, or low */
                const uint64_t pb = low ? x.pc.low : x.pc.sc, dsb = low ? x.pc.low : x.pc.dp;
                const rs_gemm_operand p_t = block_operand(pb, lb, nk, 1), ds = block_operand(dsb, lb, nk, 0);
                const rs_gemm_operand ds_t = block_operand(dsb, lb, nk, 1);
                st = block_gemm(s, rd, half, nz, lb, nk, e, view_operand(q, g, hk, z0, r, i0, 0),
                                view_operand(k, 1, hk, z0, 0, 0, 1), sc, scale, 0);
                if (st == RS_OK) st = block_rows(&x, 0, z0, nz, i0, lb, nk, r, g, hk);
                if (st == RS_OK && fwd)
                    st = block_gemm(s, rd, 0, nz, lb, ev, nk, block_operand(x.pc.low, lb, nk, 0),
                                    view_operand(v, 1, hk, z0, 0, 0, 0), view_operand(dq, g, hk, z0, r, i0, 0), 1.0, 0);
                if (st == RS_OK && want_v)
                    st = block_gemm(s, rd, half, nz, nk, ev, lb, p_t, view_operand(dout, g, hk, z0, r, i0, 0),
                                    view_operand(dv, 1, hk, z0, 0, 0, 0), 1.0, 1);
                if (st != RS_OK || !want_dp) continue;
                st = block_gemm(s, rd, half, nz, lb, nk, ev, view_operand(dout, g, hk, z0, r, i0, 0),
                                view_operand(v, 1, hk, z0, 0, 0, 1), dp, 1.0, 0);
                if (st == RS_OK) st = block_rows(&x, 1, z0, nz, i0, lb, nk, r, g, hk);
                if (st == RS_OK && want_q)
                    st = block_gemm(s, rd, half, nz, lb, e, nk, ds, view_operand(k, 1, hk, z0, 0, 0, 0),
                                    view_operand(dq, g, hk, z0, r, i0, 0), scale, 0);
                if (st == RS_OK && want_k)
                    st = block_gemm(s, rd, half, nz, nk, e, lb, ds_t, view_operand(q, g, hk, z0, r, i0, 0),
                                    view_operand(dk, 1, hk, z0, 0, 0, 0), scale, 1);
            }
    }
    for (int i = 4; i < 7 && st == RS_OK; ++i)
        if (tmp[i]) st = rs_copy(s, src[i], &wv[i]);
    for (int i = 0; i < 7; ++i)
        if (tmp[i]) rs_free(dev, tmp[i]);
    if (x.pc.sc) rs_free(dev, x.pc.sc);
    if (x.pc.dp) rs_free(dev, x.pc.dp);
    if (x.pc.low) rs_free(dev, x.pc.low);
    return st;
}

/* Which forward runs (RUSSET_ATTENTION_FORWARD=fused|blocks|kernel forces
 * one where it can run; tests and benchmarks):
 *   FWD_FUSED (float16/bfloat16, head dims up to 128, where the device has
 *     the dtype's cooperative matrices and 32-wide subgroups; never under
 *     the apple profile): kernels/attention_coopmat_khr.comp, flash
 *     attention on the fragments, scores and probabilities on chip. On an
 *     H100, causal (8, 12, T, 64) bfloat16 (thirty-seventh session): T 4096
 *     forward 5.0 ms against the blocks' 19.8, forward + backward 21.4
 *     against 66.9; T 512 0.136 / 0.620 ms against 0.498 / 1.890;
 *   FWD_BLOCKS (float16/bfloat16 with cooperative matrices, head dims
 *     beyond 128, and 4,096 keys or more): the backward's blocks (run_blocks)
 *     on the GEMM engine. On the H200, causal (8, 12, T, 64) bfloat16,
 *     T 4096: 19.9 ms against the row kernel's 23.6; T 512: 0.574 against
 *     0.470 (score traffic and launches; docs/attention.md);
 *   FWD_KERNEL elsewhere (the apple profile): kernels/attention.comp, the
 *     row kernel, memory O(L + S) and its scores on chip.
 * Dropout's mask is a function of (seed, offset, index) alone, so every
 * path draws the same one: the fused kernels' _drop modules, the row
 * kernel and the blocks, forward and backward. */
enum { FORWARD_BLOCKS_KEYS = 4096, FUSED_DIMS_MAX = 128 };
enum fwd_path { FWD_KERNEL, FWD_BLOCKS, FWD_FUSED };

static int fused_dims(int64_t e, int64_t ev) { return (e > ev ? e : ev) <= 64 ? 64 : 128; }

/* attention_coopmat_khr.comp's shared memory: k and v blocks of BC rows of
 * D / 8 + 1 uvec4, four score areas of 16 rows of BC / 4 + 1, four 16 x 16
 * float matrices (the module's SM_SIZE) */
static uint64_t fused_shared(int d) {
    const uint64_t bc = d == 64 ? 64 : 32;
    return 16 * (2 * bc * (uint64_t)(d / 8 + 1) + 64 * (bc / 4 + 1) + 256);
}

static enum fwd_path forward_path(rs_stream *s, rs_dtype dt, int64_t e, int64_t ev, int64_t keys) {
    if (dt != RS_FLOAT16 && dt != RS_BFLOAT16) return FWD_KERNEL;
    const int khr = rs_device_coopmat_khr(rs_stream_device(s));
    const int coop = (dt == RS_FLOAT16 ? khr & RS_COOPMAT_KHR_F16 : khr & RS_COOPMAT_KHR_BF16) != 0;
    const rs_features *f = rs_stream_features(s);
    const int fused = coop && e <= FUSED_DIMS_MAX && ev <= FUSED_DIMS_MAX && f->subgroup_size == 32 &&
                      f->max_workgroup_invocations >= 128 && f->max_shared_memory >= fused_shared(fused_dims(e, ev));
    const char *env = getenv("RUSSET_ATTENTION_FORWARD");
    if (env && strcmp(env, "kernel") == 0) return FWD_KERNEL;
    if (env && strcmp(env, "blocks") == 0) return FWD_BLOCKS;
    if (fused) return FWD_FUSED;
    return coop && keys >= FORWARD_BLOCKS_KEYS ? FWD_BLOCKS : FWD_KERNEL;
}

/* The parameter block of attention.comp and the fused kernels (AP_ slots
 * of params/attention.h) into the stream's arena */
static rs_status write_params(rs_stream *s, const rs_attention *a, uint64_t *addr) {
    void *host = NULL;
    rs_status st = rs_stream_arena(s, AP_SLOTS * sizeof(int64_t), &host, addr);
    if (st != RS_OK) return st;
    int64_t *ap = host;
    memset(ap, 0, AP_SLOTS * sizeof(int64_t));
    ap[AP_B] = a->q.sizes[0], ap[AP_HQ] = a->q.sizes[1], ap[AP_HK] = a->k.sizes[1], ap[AP_L] = a->q.sizes[2];
    ap[AP_S] = a->k.sizes[2], ap[AP_E] = a->q.sizes[3], ap[AP_EV] = a->v.sizes[3];
    ap[AP_CAUSAL] = a->causal != 0;
    ap[AP_SCALE] = a->q.dtype == RS_FLOAT64 ? (int64_t)rs_f64_bits(a->scale) : (int64_t)rs_f32_bits((float)a->scale);
    const int bwd = a->op == RS_ATTN_BACKWARD;
    const rs_tensor *views[9] = {&a->q, &a->k, &a->v, &a->out, a->mask.ndim ? &a->mask : NULL,
                                 bwd ? &a->grad_out : NULL, bwd ? &a->grad_q : NULL, bwd ? &a->grad_k : NULL,
                                 bwd ? &a->grad_v : NULL};
    const int slot[9] = {AP_QS, AP_KS, AP_VS, AP_OS, AP_MS, AP_DOS, AP_DQS, AP_DKS, AP_DVS};
    for (int i = 0; i < 9; ++i)
        if (views[i] && views[i]->address)
            for (int d = 0; d < 4; ++d) ap[slot[i] + d] = views[i]->strides[d];
    dropout_params(a, &ap[AP_DROP_KEEP], &ap[AP_DROP_SCALE], &ap[AP_SEED], &ap[AP_OFFSET]);
    return RS_OK;
}

/* The fused backward (kernels/attention_bwd_coopmat_khr.comp; forward_path
 * chose the fused forward, so lse is its logsumexp): MODE 0, a workgroup
 * per 64 query rows, writes grad_q and delta = rowsum(dO out) (a float32
 * (B, Hq, L) scratch); MODE 1, a workgroup per 64 keys, reads delta and
 * writes grad_k and grad_v. */
static rs_status run_fused_backward(rs_stream *s, const rs_attention *a) {
    const int64_t b = a->q.sizes[0], hq = a->q.sizes[1], l = a->q.sizes[2], hk = a->k.sizes[1], sl = a->k.sizes[2];
    const int d = fused_dims(a->q.sizes[3], a->v.sizes[3]);
    rs_device *dev = rs_stream_device(s);
    struct { RS_ATTENTION_BWD_PUSH } pc;
    memset(&pc, 0, sizeof pc);
    rs_status st = write_params(s, a, &pc.params);
    const uint64_t rows_bytes = (uint64_t)(b * hq * l) * 4;
    if (st == RS_OK && rows_bytes) st = rs_alloc(dev, rows_bytes, s, &pc.delta);
    pc.q = a->q.address, pc.k = a->k.address, pc.v = a->v.address, pc.o = a->out.address;
    pc.mask = a->mask.ndim ? a->mask.address : 0;
    pc.lse = a->lse, pc.dout = a->grad_out.address;
    pc.dq = a->grad_q.address, pc.dk = a->grad_k.address, pc.dv = a->grad_v.address;
    for (int mode = 0; mode < 2 && st == RS_OK; ++mode) {
        /* a workgroup per 64 query rows (MODE 0) or keys (MODE 1) */
        const int64_t groups = mode == 0 ? b * hq * ((l + 63) / 64) : b * hk * ((sl + 63) / 64);
        if (groups == 0 || (mode == 1 && !pc.dk && !pc.dv)) continue;
        rs_access acc[11];
        int n = 0;
        acc[n++] = rs_tensor_access(&a->q, 0);
        acc[n++] = rs_tensor_access(&a->k, 0);
        acc[n++] = rs_tensor_access(&a->v, 0);
        acc[n++] = rs_tensor_access(&a->grad_out, 0);
        if (rows_bytes) {
            acc[n++] = (rs_access){a->lse, rows_bytes, 0};
            acc[n++] = (rs_access){pc.delta, rows_bytes, mode == 0};
        }
        if (a->mask.ndim) acc[n++] = rs_tensor_access(&a->mask, 0);
        if (mode == 0) {
            acc[n++] = rs_tensor_access(&a->out, 0);
            if (pc.dq) acc[n++] = rs_tensor_access(&a->grad_q, 1);
        } else {
            if (pc.dk) acc[n++] = rs_tensor_access(&a->grad_k, 1);
            if (pc.dv) acc[n++] = rs_tensor_access(&a->grad_v, 1);
        }
        char module[64];
        snprintf(module, sizeof module, "attention_bwd_coopmat_khr_%sm%d_d%d%s",
                 a->q.dtype == RS_BFLOAT16 ? "bf16_" : "", mode, d, a->dropout > 0.0 ? "_drop" : "");
        rs_kernel *k = NULL;
        st = rs_kernel_spirv(dev, module, &k);
        uint32_t g[3] = {rs_groups_capped(s, (uint64_t)groups, 65535), 1, 1};
        if (st == RS_OK) st = rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
    }
    if (pc.delta) rs_free(dev, pc.delta);
    return st;
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
    if (!(a->dropout >= 0.0 && a->dropout < 1.0))
        return rs_error(RS_ERR_INVALID, "attention: dropout probability %g is not in [0, 1)", a->dropout);
    const int drop = a->dropout > 0.0;
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
    if (backward) {
        if (b * hk * sl == 0 && b * hq * l == 0) return RS_OK;
        const int fused = a->lse && a->out.address && forward_path(s, dt, e, ev, sl) == FWD_FUSED;
        return fused ? run_fused_backward(s, a) : run_blocks(s, a, 0);
    }
    if (!a->lse && b * hq * l > 0) return rs_error(RS_ERR_INVALID, "attention: missing lse");
    if (b * hq * l == 0) return RS_OK;
    const enum fwd_path path = forward_path(s, dt, e, ev, sl);
    if (sl > 0 && path == FWD_BLOCKS) return run_blocks(s, a, 1);

    /* the forward: one kernel */
    uint64_t addr;
    if ((st = write_params(s, a, &addr)) != RS_OK) return st;
    struct { RS_ATTENTION_PUSH } pc;
    memset(&pc, 0, sizeof pc);
    pc.q = a->q.address, pc.k = a->k.address, pc.v = a->v.address, pc.o = a->out.address;
    pc.mask = has_mask ? a->mask.address : 0;
    pc.lse = a->lse;
    pc.params = addr;
    const uint64_t lse_bytes = (uint64_t)(b * hq * l) * (uint64_t)acc_bytes(dt);
    rs_access acc[6];
    int n = 0;
    acc[n++] = rs_tensor_access(&a->q, 0);
    acc[n++] = rs_tensor_access(&a->k, 0);
    acc[n++] = rs_tensor_access(&a->v, 0);
    if (has_mask) acc[n++] = rs_tensor_access(&a->mask, 0);
    acc[n++] = rs_tensor_access(&a->out, 1);
    acc[n++] = (rs_access){a->lse, lse_bytes, 1};
    rs_kernel *k = NULL;
    uint64_t rows_a_group;
    if (path == FWD_FUSED) {
        /* 64 query rows a workgroup */
        char module[64];
        snprintf(module, sizeof module, "attention_coopmat_khr_%sd%d%s", dt == RS_BFLOAT16 ? "bf16_" : "",
                 fused_dims(e, ev), drop ? "_drop" : "");
        if ((st = rs_kernel_spirv(rs_stream_device(s), module, &k)) != RS_OK) return st;
        rows_a_group = 64;
    } else {
        uint32_t de = dims_bucket(e), dv = dims_bucket(ev), rl, bk;
        geometry(de, dv, acc_bytes(dt), &rl, &bk);
        char defines[128];
        snprintf(defines, sizeof defines, "DT=%d;HAS_MASK=%d;DE=%uu;DV=%uu;ACCB=%d;RL=%uu;BK=%uu;DROP=%d", (int)dt,
                 has_mask, de, dv, acc_bytes(dt), rl, bk, drop);
        if ((st = rs_kernel_get(rs_stream_device(s), "attention.comp", defines, &k)) != RS_OK) return st;
        rows_a_group = ATTN_NT / rl; /* RL lanes a row */
    }
    uint32_t g[3] = {rs_groups_capped(s, (uint64_t)(b * hq) * (((uint64_t)l + rows_a_group - 1) / rows_a_group), 65535),
                     1, 1};
    return rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
}
