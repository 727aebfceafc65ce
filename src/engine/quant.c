/* quant.c: weight-only quantized matrix products (contract in
 * russet/quant.h) on kernels/quant.comp and the GEMM engine. Few rows of x
 * (a decoding step) take the GEMV kernel, which reads the quantized
 * weights once per tile of x's rows and dequantizes them in registers; more rows
 * dequantize W once into a scratch in x's dtype, multiply with rs_gemm
 * (float32 sums kept unrounded) and scale and round in one pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/quant.h"
#include "russet/gemm.h"
#include "russet/quant.h"

typedef struct quant_push { RS_QUANT_PUSH } quant_push;

/* rows of x from which the dequantize-and-GEMM path is taken: below it the
 * GEMV kernel reads W at most QM_GEMM_ROWS / MT times */
#define QM_GEMM_ROWS 16

static int is_float(rs_dtype dt) { return dt == RS_FLOAT32 || dt == RS_FLOAT16 || dt == RS_BFLOAT16; }

static rs_status check(const char *name, const rs_weight_qmm *q) {
    const rs_tensor *x = &q->x, *w = &q->w, *sc = &q->scales, *o = &q->out;
    if (q->bits != 8 && q->bits != 4) return rs_error(RS_ERR_INVALID, "%s: bits must be 8 or 4, got %d", name, q->bits);
    if (!is_float(x->dtype))
        return rs_error(RS_ERR_INVALID, "%s: x must be float32, float16 or bfloat16, got %s", name,
                        rs_dtype_name(x->dtype));
    if (sc->dtype != x->dtype || o->dtype != x->dtype)
        return rs_error(RS_ERR_INVALID, "%s: scales and out must have x's dtype %s", name, rs_dtype_name(x->dtype));
    if (x->ndim != 2 || w->ndim != 2 || o->ndim != 2)
        return rs_error(RS_ERR_INVALID, "%s: x, w and out must be 2-d", name);
    const int64_t M = x->sizes[0], K = x->sizes[1], N = w->sizes[0];
    if (o->sizes[0] != M || o->sizes[1] != N) return rs_error(RS_ERR_INVALID, "%s: out must be (M, N)", name);
    if (q->bits == 8) {
        if (w->dtype != RS_INT8 || w->sizes[1] != K)
            return rs_error(RS_ERR_INVALID, "%s: w must be int8 (N, K) with K = %lld", name, (long long)K);
        if (sc->ndim != 1 || sc->sizes[0] != N)
            return rs_error(RS_ERR_INVALID, "%s: scales must be (N) with N = %lld", name, (long long)N);
        return RS_OK;
    }
    if (w->dtype != RS_UINT8 || w->sizes[1] * 2 != K)
        return rs_error(RS_ERR_INVALID, "%s: w must be uint8 (N, K / 2) with K = %lld", name, (long long)K);
    if (q->group < 2 || q->group % 2 || K % q->group)
        return rs_error(RS_ERR_INVALID, "%s: the group size %lld must be even and divide K = %lld", name,
                        (long long)q->group, (long long)K);
    if (sc->ndim != 3 || sc->sizes[0] != K / q->group || sc->sizes[1] != N || sc->sizes[2] != 2)
        return rs_error(RS_ERR_INVALID, "%s: scales must be (K / group, N, 2) = (%lld, %lld, 2)", name,
                        (long long)(K / q->group), (long long)N);
    return RS_OK;
}

/* a zeroed parameter block in the stream's arena */
static rs_status params_begin(rs_stream *s, int64_t **p, uint64_t *addr) {
    rs_status st = rs_stream_arena(s, QM_SLOTS * sizeof(int64_t), (void **)p, addr);
    if (!st) memset(*p, 0, QM_SLOTS * sizeof(int64_t));
    return st;
}

/* the parameter block of the products' modes */
static rs_status params(rs_stream *s, const rs_weight_qmm *q, uint64_t *addr) {
    int64_t *p = NULL;
    rs_status st = params_begin(s, &p, addr);
    if (st) return st;
    p[QM_M] = q->x.sizes[0], p[QM_N] = q->w.sizes[0], p[QM_K] = q->x.sizes[1], p[QM_G] = q->group;
    p[QM_XS] = q->x.strides[0], p[QM_XS + 1] = q->x.strides[1];
    p[QM_WS] = q->w.strides[0], p[QM_WS + 1] = q->w.strides[1];
    for (int d = 0; d < q->scales.ndim; ++d) p[QM_SS + d] = q->scales.strides[d];
    p[QM_OS] = q->out.strides[0], p[QM_OS + 1] = q->out.strides[1];
    return RS_OK;
}

static rs_status launch(rs_stream *s, const char *defines, uint64_t items, const quant_push *pc,
                        const rs_access *acc, int n_acc) {
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "quant.comp", defines, &k);
    return st ? st : rs_launch(s, k, items, pc, sizeof *pc, acc, n_acc);
}

/* a launch of a product's mode; vec: 0, 1 (16-byte reads of W) or 2 (of x
 * too); tile: the GEMV's shape as more defines, else "" */
static rs_status qmm_launch(rs_stream *s, const rs_weight_qmm *q, int mode, int vec, const char *tile, uint64_t items,
                            const quant_push *pc, const rs_access *acc, int n_acc) {
    char defines[112];
    snprintf(defines, sizeof defines, "MODE=%d;BITS=%d;DT=%d;VEC=%d;XVEC=%d%s", mode, q->bits, (int)q->x.dtype,
             vec > 0, vec > 1, tile);
    return launch(s, defines, items, pc, acc, n_acc);
}

/* 16-byte reads of W: each row 16-byte aligned and whole words of it, a
 * word within one group */
static int gemv_vec(const rs_weight_qmm *q) {
    const int64_t bytes = q->w.sizes[1];
    return q->w.strides[1] == 1 && q->w.address % 16 == 0 && q->w.strides[0] % 16 == 0 && bytes % 16 == 0 &&
           (q->bits == 8 || q->group % 32 == 0);
}

/* beside gemv_vec, 16-byte reads of x: its rows contiguous and 16-byte
 * aligned (a word of W covers 16 or 32 elements of a row, from a multiple
 * of them) */
static int gemv_xvec(const rs_weight_qmm *q) {
    const uint64_t es = rs_dtype_size(q->x.dtype);
    return q->x.strides[1] == 1 && q->x.address % 16 == 0 &&
           (q->x.sizes[0] == 1 || ((uint64_t)q->x.strides[0] * es) % 16 == 0);
}

/* the GEMV tile's shape: invocations along K a group (lanes), rows of W a
 * group (nr), rows of x a tile (mt), and whether W's words for the next
 * step along K are loaded during this one (pf; one row of x, 16-byte reads).
 * A decoding step (one row of x) reads its row of x once for nr rows of W:
 * int4 nr 4 where W has rows enough for 4 x 8 a workgroup to fill a large
 * GPU, else 2, without pf (pf took int4 11008 x 4096 from 25 to 29 us);
 * int8 nr 2 with pf (measured on an H100, docs/low-precision.md). RUSSET_QUANT_GEMV=
 * lanes,nr,mt[,pf] overrides it (for measurement) */
typedef struct gemv_shape { int lanes, nr, mt, pf; } gemv_shape;

static gemv_shape gemv_choose(const rs_weight_qmm *q, int xvec) {
    gemv_shape g = {QM_LANES, QM_NR, QM_MT, 0};
    if (q->x.sizes[0] == 1 && xvec)
        g = q->bits == 4 ? (gemv_shape){32, q->w.sizes[0] >= 8192 ? 4 : 2, 1, 0} : (gemv_shape){32, 2, 1, 1};
    const char *env = getenv("RUSSET_QUANT_GEMV");
    gemv_shape e = {0, 0, 0, g.pf};
    if (env && sscanf(env, "%d,%d,%d,%d", &e.lanes, &e.nr, &e.mt, &e.pf) >= 3 && e.lanes > 0 &&
        RS_KERNEL_WG % (unsigned)e.lanes == 0 && e.nr > 0 && e.mt > 0 && e.nr * e.mt <= 8)
        g = e;
    return g;
}

static rs_status gemv(rs_stream *s, const rs_weight_qmm *q, uint64_t par) {
    const int64_t M = q->x.sizes[0], N = q->w.sizes[0];
    /* RUSSET_QUANT_VEC=0 reads W and x an element at a time, =1 only W as
     * words (for tests and measurement); by default both where they allow */
    const char *cap = getenv("RUSSET_QUANT_VEC");
    int vec = gemv_vec(q) ? 1 + gemv_xvec(q) : 0;
    if (cap && *cap >= '0' && *cap < '0' + vec) vec = *cap - '0';
    const gemv_shape g = gemv_choose(q, vec > 1);
    const int64_t cols = (int64_t)(RS_KERNEL_WG / (unsigned)g.lanes) * g.nr;
    const int64_t tiles = ((N + cols - 1) / cols) * ((M + g.mt - 1) / g.mt);
    quant_push pc = {.x = q->x.address, .w = q->w.address, .scales = q->scales.address, .out_ = q->out.address,
                     .params = par};
    rs_access acc[4] = {rs_tensor_access(&q->x, 0), rs_tensor_access(&q->w, 0), rs_tensor_access(&q->scales, 0),
                        rs_tensor_access(&q->out, 1)};
    char tile[48];
    snprintf(tile, sizeof tile, ";LANES=%d;NR=%d;MT=%d;PF=%d", g.lanes, g.nr, g.mt, g.pf != 0);
    return qmm_launch(s, q, QM_GEMV, vec, tile, (uint64_t)tiles * RS_KERNEL_WG, &pc, acc, 4);
}

/* W dequantized into a scratch (N, K), x @ W^T into a float32 scratch
 * (M, N), then scaled and rounded into out */
static rs_status dequant_gemm(rs_stream *s, const rs_weight_qmm *q, uint64_t par) {
    const int64_t M = q->x.sizes[0], K = q->x.sizes[1], N = q->w.sizes[0];
    rs_scratch sc = {s, {0}, 0};
    uint64_t wd = 0, c = 0;
    rs_status st = rs_scratch_take(&sc, (uint64_t)(N * K) * rs_dtype_size(q->x.dtype), &wd);
    if (!st) st = rs_scratch_take(&sc, (uint64_t)(M * N) * 4u, &c);
    const rs_tensor wdense = rs_tensor_rows(wd, q->x.dtype, N, K), cf = rs_tensor_rows(c, RS_FLOAT32, M, N);
    if (!st) {
        quant_push pc = {.w = q->w.address, .scales = q->scales.address, .out_ = wd, .params = par};
        rs_access acc[3] = {rs_tensor_access(&q->w, 0), rs_tensor_access(&q->scales, 0),
                            rs_tensor_access(&wdense, 1)};
        st = qmm_launch(s, q, QM_DEQUANT, 0, "", (uint64_t)(N * q->w.sizes[1]), &pc, acc, 3);
    }
    if (!st) {
        rs_gemm_desc g;
        memset(&g, 0, sizeof g);
        g.dtype = q->x.dtype;
        g.batch = 1, g.m = M, g.n = N, g.k = K;
        g.a = (rs_gemm_operand){q->x.address, {0, q->x.strides[0], q->x.strides[1]}};
        g.b = (rs_gemm_operand){wd, {0, 1, K}};  /* W^T: (K, N) over W's rows */
        g.c = (rs_gemm_operand){c, {0, N, 1}};
        g.alpha[0].f = 1.0f;
        g.c_float32 = q->x.dtype != RS_FLOAT32;
        st = rs_gemm(s, &g);
    }
    if (!st) {
        quant_push pc = {.scales = q->scales.address, .out_ = q->out.address, .c = c, .params = par};
        rs_access acc[3] = {rs_tensor_access(&cf, 0), rs_tensor_access(&q->scales, 0), rs_tensor_access(&q->out, 1)};
        st = qmm_launch(s, q, QM_SCALE, 0, "", (uint64_t)(M * N), &pc, acc, 3);
    }
    rs_scratch_release(&sc);
    return st;
}

rs_status rs_weight_qmm_run(rs_stream *s, const rs_weight_qmm *q) {
    static const char *name = "weight_qmm";
    if (!s || !q) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    rs_status st = check(name, q);
    if (st) return st;
    const int64_t M = q->x.sizes[0], K = q->x.sizes[1], N = q->w.sizes[0];
    if (M == 0 || N == 0) return RS_OK;
    uint64_t par = 0;
    if ((st = params(s, q, &par))) return st;
    return M >= QM_GEMM_ROWS && K > 0 ? dequant_gemm(s, q, par) : gemv(s, q, par);
}

/* ---------------------------------------------------------------- affine quantization */

static rs_status affine(rs_stream *s, const rs_affine_quant *a, int mode, const char *name) {
    if (!s || !a) return rs_error(RS_ERR_INVALID, "%s: NULL argument", name);
    const rs_tensor *x = &a->x, *q = &a->q;
    if (!is_float(x->dtype))
        return rs_error(RS_ERR_INVALID, "%s: x must be float32, float16 or bfloat16, got %s", name,
                        rs_dtype_name(x->dtype));
    if (q->dtype != RS_UINT8 && q->dtype != RS_INT8 && q->dtype != RS_INT32)
        return rs_error(RS_ERR_INVALID, "%s: q must be uint8, int8 or int32, got %s", name, rs_dtype_name(q->dtype));
    if (x->ndim > QM_MAXD) return rs_error(RS_ERR_INVALID, "%s: more than %d dims", name, QM_MAXD);
    if (x->ndim != q->ndim || memcmp(x->sizes, q->sizes, sizeof(int64_t) * (size_t)x->ndim))
        return rs_error(RS_ERR_INVALID, "%s: x and q must have one shape", name);
    const int per_channel = a->scales != NULL;
    if (per_channel) {
        const rs_tensor *sc = a->scales, *zp = a->zero_points;
        if (a->axis < 0 || a->axis >= x->ndim)
            return rs_error(RS_ERR_INVALID, "%s: axis %d out of range for %d dims", name, a->axis, x->ndim);
        const int64_t c = x->sizes[a->axis];
        if (!zp || sc->dtype != RS_FLOAT64 || zp->dtype != RS_INT64 || rs_tensor_numel(sc) != c ||
            rs_tensor_numel(zp) != c || !rs_tensor_is_contiguous(sc) || !rs_tensor_is_contiguous(zp))
            return rs_error(RS_ERR_INVALID, "%s: per channel, scales (float64) and zero_points (int64) must be "
                            "contiguous with %lld elements", name, (long long)c);
    }
    if (rs_tensor_numel(x) == 0) return RS_OK;
    int64_t *p = NULL;
    uint64_t par = 0;
    rs_status st = params_begin(s, &p, &par);
    if (st) return st;
    p[QM_ND] = x->ndim;
    p[QM_AXIS] = per_channel ? a->axis : -1;
    p[QM_ZP] = a->zero_point;
    /* CPU's quantizer multiplies by 1.0f / (float)scale; its dequantizer by (float)scale */
    const float f = mode == QM_QUANTIZE ? 1.0f / (float)a->scale : (float)a->scale;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    p[QM_INV] = bits;
    p[QM_QMIN] = q->dtype == RS_UINT8 ? 0 : q->dtype == RS_INT8 ? -128 : -2147483648LL;
    p[QM_QMAX] = q->dtype == RS_UINT8 ? 255 : q->dtype == RS_INT8 ? 127 : 2147483647LL;
    for (int d = 0; d < x->ndim; ++d) {
        p[QM_SIZES + d] = x->sizes[d];
        p[QM_SIZES + QM_MAXD + d] = x->strides[d];
        p[QM_SIZES + 2 * QM_MAXD + d] = q->strides[d];
    }
    quant_push pc = {.x = x->address, .w = q->address, .params = par};
    rs_access acc[4] = {rs_tensor_access(x, mode == QM_DEQUANTIZE), rs_tensor_access(q, mode == QM_QUANTIZE)};
    int n_acc = 2;
    if (per_channel) {
        pc.scales = a->scales->address, pc.c = a->zero_points->address;
        acc[2] = rs_tensor_access(a->scales, 0), acc[3] = rs_tensor_access(a->zero_points, 0);
        n_acc = 4;
    }
    char defines[96];
    snprintf(defines, sizeof defines, "MODE=%d;BITS=8;DT=%d;VEC=0;QT=%d;PER_CHANNEL=%d;ZP_AFTER=%d", mode,
             (int)x->dtype, (int)q->dtype, per_channel, mode == QM_QUANTIZE && a->zero_point_after_round);
    return launch(s, defines, (uint64_t)rs_tensor_numel(x), &pc, acc, n_acc);
}

rs_status rs_quantize(rs_stream *s, const rs_affine_quant *a) { return affine(s, a, QM_QUANTIZE, "quantize"); }
rs_status rs_dequantize(rs_stream *s, const rs_affine_quant *a) { return affine(s, a, QM_DEQUANTIZE, "dequantize"); }
