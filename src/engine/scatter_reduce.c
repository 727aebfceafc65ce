/* scatter_reduce.c: deterministic index reductions (scatter_add,
 * scatter_reduce, index_add, index_reduce, index_copy, embedding backward)
 * by sorted segments (kernels/scatter_reduce.comp).
 *
 * 1. The index becomes contiguous int64 keys [R, K]: K = index.size(dim),
 *    R = the number of slices (the index's other dims) or 1 when the index
 *    is shared by every slice (index_add's 1-D index).
 * 2. rs_sort sorts each row stably: sorted keys and the positions they came
 *    from, so equal keys keep increasing positions.
 * 3. One invocation per (slice, sorted position); the first position of each
 *    run of equal keys reduces the run in order into self's element, read
 *    once and written once. No atomics: the result does not depend on
 *    scheduling, and the order is CPU's. The sorted positions go in windows
 *    of SEG_WINDOW, a dispatch each: a run that crosses a window's end
 *    leaves its running value in a per-slice carry (after `perm`) for the
 *    next window's first invocation, so that no invocation loops more than
 *    SEG_WINDOW times (lavapipe silently ends a shader's loops after 65535
 *    iterations in all).
 * Short slices (k * dim_size <= DIRECT_MAX_WORK) skip 1 and 2: one
 * invocation per target scans its slice's index in order (same order, same
 * results, one launch and no scratch memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "params/scatter_reduce.h"

typedef struct ir_push { RS_SCATTER_REDUCE_PUSH } ir_push;

/* Shapes whose slices are short (k index entries, dim_size targets) take
 * the direct pass instead: one invocation per target scans the slice's
 * index in order (k * dim_size reads each, no sort, one launch). */
#define DIRECT_MAX_WORK 2048
/* sorted positions per dispatch of the segment pass (SEG_WINDOW in
 * scatter_reduce.comp) */
#define SEG_WINDOW 16384


static int supported(rs_dtype dt, rs_index_reduce_op op) {
    switch (dt) {
    case RS_BOOL: case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
    case RS_FLOAT16: case RS_BFLOAT16: case RS_FLOAT32: case RS_FLOAT64: case RS_COMPLEX64:
        return 1;
    case RS_COMPLEX32:
        return op == RS_IR_SUM;
    case RS_COMPLEX128:
        return op != RS_IR_AMAX && op != RS_IR_AMIN;
    default:
        return 0;
    }
}

/* COPY moves bits: any dtype of 1, 2, 4 or 8 bytes as that integer */
static rs_dtype kernel_dtype(rs_dtype dt, rs_index_reduce_op op) {
    if (op != RS_IR_COPY) return dt;
    switch (rs_dtype_size(dt)) {
    case 1: return RS_UINT8;
    case 2: return RS_INT16;
    case 4: return RS_INT32;
    case 8: return RS_INT64;
    default: return dt;
    }
}

/* what the kernels compute natively, their refusals of CPU's errors
 * (complex amax/amin, a mean of bools) included: those run on the host,
 * where CPU raises or computes them */
static int computes(rs_dtype kdt, rs_index_reduce_op op, int has_fp64) {
    if (!supported(kdt, op)) return 0;
    if ((op == RS_IR_AMAX || op == RS_IR_AMIN) && (kdt == RS_COMPLEX64 || kdt == RS_COMPLEX32)) return 0;
    if (op == RS_IR_MEAN && kdt == RS_BOOL) return 0;
    return !rs_dtype_needs_fp64(kdt) || has_fp64;
}

int rs_index_reduce_computes(rs_device *dev, rs_dtype dt, rs_index_reduce_op op) {
    if (!dev || (int)op < RS_IR_SUM || op > RS_IR_COPY) return 0;
    if (op == RS_IR_COPY) return 1; /* bits: a 16-byte dtype as two 8-byte halves (the caller's view) */
    return computes(dt, op, rs_device_features(dev)->has_fp64);
}

/* v without dim `dim`, with the sizes of `like` (its other dims) */
static rs_tensor drop_dim(const rs_tensor *v, const rs_tensor *like, int dim) {
    rs_tensor t = *v;
    int n = 0;
    for (int d = 0; d < v->ndim; ++d) {
        if (d == dim) continue;
        t.sizes[n] = like->sizes[d];
        t.strides[n] = v->strides[d];
        n++;
    }
    t.ndim = n;
    return t;
}

rs_status rs_index_reduce_run(rs_stream *s, const rs_index_reduce *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_index_reduce: missing arguments");
    const char *name = p->name ? p->name : "index_reduce";
    if ((int)p->op < RS_IR_SUM || p->op > RS_IR_COPY) return rs_error(RS_ERR_INVALID, "%s: bad op", name);
    rs_dtype dt = p->self.dtype;
    if (p->src.dtype != dt) return rs_error(RS_ERR_INVALID, "%s: self and src must have one dtype", name);
    dt = kernel_dtype(dt, p->op);
    if (!supported(dt, p->op))
        return rs_error(RS_ERR_UNSUPPORTED, "%s: dtype %s is not supported", name, rs_dtype_name(dt));
    if ((p->op == RS_IR_AMAX || p->op == RS_IR_AMIN) && (dt == RS_COMPLEX64 || dt == RS_COMPLEX32))
        return rs_error(RS_ERR_INVALID, "%s: amax/amin of complex numbers", name);
    if (p->op == RS_IR_MEAN && dt == RS_BOOL) return rs_error(RS_ERR_UNSUPPORTED, "%s: mean of bool", name);
    if ((dt == RS_FLOAT64 || dt == RS_COMPLEX128) && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: %s needs shaderFloat64", name, rs_dtype_name(dt));
    if (dt == RS_COMPLEX128 && p->has_alpha)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: complex128 with alpha", name);
    if (p->index.dtype != RS_INT64 && p->index.dtype != RS_INT32)
        return rs_error(RS_ERR_INVALID, "%s: the index must be int64 or int32", name);
    int nd = p->self.ndim;
    if (nd < 1 || p->src.ndim != nd) return rs_error(RS_ERR_INVALID, "%s: self and src need one ndim >= 1", name);
    if (p->dim < 0 || p->dim >= nd) return rs_error(RS_ERR_INVALID, "%s: bad dim %d", name, p->dim);
    int64_t K;
    const rs_tensor *shape; /* the slices' sizes */
    if (p->shared_index) {
        if (p->index.ndim != 1) return rs_error(RS_ERR_INVALID, "%s: the shared index must be 1-D", name);
        K = p->index.sizes[0];
        if (p->src.sizes[p->dim] != K)
            return rs_error(RS_ERR_INVALID, "%s: src.size(dim) must equal the index's length", name);
        for (int d = 0; d < nd; ++d)
            if (d != p->dim && p->src.sizes[d] != p->self.sizes[d])
                return rs_error(RS_ERR_INVALID, "%s: self and src slices differ at dim %d", name, d);
        shape = &p->self;
    } else {
        if (p->index.ndim != nd) return rs_error(RS_ERR_INVALID, "%s: index must have self's ndim", name);
        K = p->index.sizes[p->dim];
        for (int d = 0; d < nd; ++d) {
            if (d != p->dim && p->index.sizes[d] > p->self.sizes[d])
                return rs_error(RS_ERR_INVALID, "%s: index is larger than self at dim %d", name, d);
            if (p->src.sizes[d] < p->index.sizes[d])
                return rs_error(RS_ERR_INVALID, "%s: src does not cover the index at dim %d", name, d);
        }
        shape = &p->index;
    }
    int64_t slices = 1;
    for (int d = 0; d < nd; ++d)
        if (d != p->dim) slices *= shape->sizes[d];
    if (K == 0 || slices == 0) return RS_OK;
    int64_t R = p->shared_index ? 1 : slices;
    rs_device *dev = rs_stream_device(s);
    rs_status st;
    int opmath = p->acc_opmath && (dt == RS_FLOAT16 || dt == RS_BFLOAT16 || dt == RS_COMPLEX32);
    ir_push pc;
    memset(&pc, 0, sizeof pc);
    pc.self_ = p->self.address;
    pc.src = p->src.address;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    pc.dim_size = p->self.sizes[p->dim];
    pc.self_dim_stride = p->self.strides[p->dim];
    pc.src_dim_stride = p->src.strides[p->dim];
    pc.slices = (uint64_t)slices;
    pc.k = (uint64_t)K;
    pc.alpha = p->alpha.u;
    pc.skip = p->skip_index;
    pc.flags = (p->shared_index ? F_SHARED : 0) | (p->include_self ? F_INCLUDE_SELF : 0) |
               (p->has_skip ? F_SKIP : 0) | (p->scale_by_count ? F_SCALE : 0) | (p->has_alpha ? F_ALPHA : 0);
    char defines[128];

    /* RUSSET_INDEX_REDUCE=sort forces the sorted segments (for tests) */
    const char *force = getenv("RUSSET_INDEX_REDUCE");
    int direct = pc.dim_size > 0 && (uint64_t)K * (uint64_t)pc.dim_size <= DIRECT_MAX_WORK;
    if (force && strcmp(force, "sort") == 0) direct = 0;
    if (direct) {
        /* the direct pass: self, src and index slices coalesced together */
        rs_tensor vs = drop_dim(&p->self, shape, p->dim), vr = drop_dim(&p->src, shape, p->dim);
        rs_tensor vi = p->shared_index ? vs : drop_dim(&p->index, shape, p->dim);
        if (p->shared_index)
            for (int d = 0; d < vi.ndim; ++d) vi.strides[d] = 0;
        const rs_tensor *v3[3] = {&vs, &vr, &vi};
        const char *n3[3] = {"self", "src", "index"};
        rs_layout l3;
        if ((st = rs_layout_make_n(v3, n3, 3, &l3)) != RS_OK) return st;
        pc.keys = p->index.address;
        pc.index_dim_stride = p->shared_index ? p->index.strides[0] : p->index.strides[p->dim];
        pc.ndim = (uint32_t)l3.ndim;
        if ((st = rs_layout_upload(s, &l3, 3, &pc.params)) != RS_OK) return st;
        snprintf(defines, sizeof defines, "DT=%d;OP=%d;ACC_OPMATH=%d;DIRECT=1;IDX32=%d", (int)dt, (int)p->op, opmath,
                 p->index.dtype == RS_INT32);
        rs_kernel *k = NULL;
        if ((st = rs_kernel_get(dev, "scatter_reduce.comp", defines, &k)) != RS_OK) return st;
        rs_access acc[3] = {rs_tensor_access(&p->self, 1), rs_tensor_access(&p->src, 0),
                            rs_tensor_access(&p->index, 0)};
        return rs_launch(s, k, (uint64_t)slices * (uint64_t)pc.dim_size, &pc, sizeof pc, acc, 3);
    }

    /* the two slice views, coalesced */
    rs_tensor vself = drop_dim(&p->self, shape, p->dim), vsrc = drop_dim(&p->src, shape, p->dim);
    const rs_tensor *views[2] = {&vself, &vsrc};
    const char *vnames[2] = {"self", "src"};
    rs_layout l;
    if ((st = rs_layout_make_n(views, vnames, 2, &l)) != RS_OK) return st;
    uint64_t bytes = (uint64_t)R * (uint64_t)K * 8u;
    uint64_t carry_bytes = (uint64_t)slices * 16u; /* a running value per slice, after perm */
    uint64_t keys = 0, sorted = 0, perm = 0;
    if ((st = rs_alloc(dev, bytes, s, &keys)) != RS_OK) return st;
    if ((st = rs_alloc(dev, bytes, s, &sorted)) != RS_OK) goto done;
    if ((st = rs_alloc(dev, bytes + carry_bytes, s, &perm)) != RS_OK) goto done;
    {
        /* 1. keys: the index with dim last, as int64 */
        rs_tensor src_idx = p->index, dst_idx;
        if (!p->shared_index) {
            int n = 0;
            for (int d = 0; d < nd; ++d) {
                if (d == p->dim) continue;
                src_idx.sizes[n] = p->index.sizes[d];
                src_idx.strides[n] = p->index.strides[d];
                n++;
            }
            src_idx.sizes[n] = p->index.sizes[p->dim];
            src_idx.strides[n] = p->index.strides[p->dim];
        }
        dst_idx = src_idx;
        dst_idx.address = keys;
        dst_idx.dtype = RS_INT64;
        int64_t stride = 1;
        for (int d = dst_idx.ndim - 1; d >= 0; --d) {
            dst_idx.strides[d] = stride;
            stride *= dst_idx.sizes[d];
        }
        if ((st = rs_copy(s, &dst_idx, &src_idx)) != RS_OK) goto done;
        /* 2. stable sort of each row */
        rs_tensor kt = rs_tensor_rows(keys, RS_INT64, R, K), vt = rs_tensor_rows(sorted, RS_INT64, R, K),
                  it = rs_tensor_rows(perm, RS_INT64, R, K);
        if ((st = rs_sort(s, &kt, 0, K, &vt, &it)) != RS_OK) goto done;

        /* 3. the segments */
        pc.keys = sorted;
        pc.perm = perm;
        pc.ndim = (uint32_t)l.ndim;
        if ((st = rs_layout_upload(s, &l, 2, &pc.params)) != RS_OK) goto done;
        snprintf(defines, sizeof defines, "DT=%d;OP=%d;ACC_OPMATH=%d;DIRECT=0;IDX32=0", (int)dt, (int)p->op, opmath);
        rs_kernel *k = NULL;
        if ((st = rs_kernel_get(dev, "scatter_reduce.comp", defines, &k)) != RS_OK) goto done;
        rs_access acc[4] = {rs_tensor_access(&p->self, 1), rs_tensor_access(&p->src, 0), {sorted, bytes, 0},
                            {perm, bytes + carry_bytes, 1}};
        /* the windows; index_dim_stride (the direct pass's) holds the first */
        for (int64_t c0 = 0; c0 < K && st == RS_OK; c0 += SEG_WINDOW) {
            int64_t span = K - c0 < SEG_WINDOW ? K - c0 : SEG_WINDOW;
            pc.index_dim_stride = c0;
            st = rs_launch(s, k, (uint64_t)slices * (uint64_t)span, &pc, sizeof pc, acc, 4);
        }
    }
done:
    /* stream-ordered: the blocks are reused only after the work above */
    if (keys) rs_free(dev, keys);
    if (sorted) rs_free(dev, sorted);
    if (perm) rs_free(dev, perm);
    return st;
}
