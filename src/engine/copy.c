/* copy.c: rs_copy, strided dst <- strided src, any dtype pair
 * (kernels/copy.comp). */
#include <stdio.h>

#include "engine/engine.h"
#include "params/copy.h"

/* A dtype of the same size whose copy is a plain bit copy (the kernels
 * move 1, 2, 4, 8 or 16-byte words through these). */
static rs_dtype raw_dtype(size_t size) {
    switch (size) {
    case 1: return RS_UINT8;
    case 2: return RS_INT16;
    case 4: return RS_INT32;
    case 8: return RS_INT64;
    default: return RS_COMPLEX128;
    }
}

/* 1 if converting src to dst copies the bits (same dtype, or integers of
 * one width that differ only in signedness). */
static int is_bit_copy(rs_dtype d, rs_dtype s) {
    if (d == s) return 1;
    static const rs_dtype pairs[4][2] = {{RS_UINT8, RS_INT8}, {RS_INT16, RS_UINT16},
                                         {RS_INT32, RS_UINT32}, {RS_INT64, RS_UINT64}};
    for (int i = 0; i < 4; ++i)
        if ((d == pairs[i][0] && s == pairs[i][1]) || (d == pairs[i][1] && s == pairs[i][0]))
            return 1;
    return 0;
}

/* quads of 4 elements per invocation on copy.comp's 16-byte path (its CQ) */
#define VEC4_QUADS 2
/* elements of the last dim per invocation on the strided path (its RUN) */
#define STRIDED_RUN 4

typedef struct copy_push { RS_COPY_PUSH } copy_push;

rs_status rs_copy(rs_stream *s, const rs_tensor *dst, const rs_tensor *src) {
    if (!s) return rs_error(RS_ERR_INVALID, "rs_copy: stream is NULL");
    rs_layout l;
    rs_status st = rs_layout_make(dst, src, &l);
    if (st != RS_OK) return st;
    if (l.numel == 0) return RS_OK;

    rs_dtype sdt = src->dtype, ddt = dst->dtype;
    if (is_bit_copy(ddt, sdt)) {
        if (l.ndim == 0)
            return rs_memcpy_dtod(s, dst->address, src->address,
                                  (uint64_t)l.numel * rs_dtype_size(ddt));
        sdt = ddt = raw_dtype(rs_dtype_size(ddt));
    }
    /* Every conversion runs in integer arithmetic (float64 as bits), so
     * none needs shaderFloat64. */
    /* float32 <-> float16/bfloat16 (AMP's casts) read and write whole quads;
     * the tail of fewer than 4 elements is a second, plain launch */
    int half_pair = (sdt == RS_FLOAT32 && (ddt == RS_FLOAT16 || ddt == RS_BFLOAT16)) ||
                    (ddt == RS_FLOAT32 && (sdt == RS_FLOAT16 || sdt == RS_BFLOAT16));
    int vec4 = half_pair && l.ndim == 0 && l.numel >= 4 && dst->address % 16 == 0 && src->address % 16 == 0;
    if (vec4 && l.numel % 4) {
        int64_t whole = l.numel / 4 * 4;
        rs_tensor d = *dst, v = *src;
        d.ndim = v.ndim = 1;
        d.strides[0] = v.strides[0] = 1;
        d.sizes[0] = v.sizes[0] = whole;
        if ((st = rs_copy(s, &d, &v)) != RS_OK) return st;
        d.address += (uint64_t)whole * rs_dtype_size(ddt);
        v.address += (uint64_t)whole * rs_dtype_size(sdt);
        d.sizes[0] = v.sizes[0] = l.numel - whole;
        return rs_copy(s, &d, &v);
    }
    /* strided: runs of STRIDED_RUN elements of the last dim an invocation
     * where that dim is long enough (one offset computation a run) */
    int64_t inner = l.ndim ? l.sizes[l.ndim - 1] : 0;
    int run = inner >= 2 * STRIDED_RUN ? STRIDED_RUN : 1;
    char defines[80];
    snprintf(defines, sizeof defines, "SRC_DT=%d;DST_DT=%d;CONTIG=%d;VEC4=%d;RUN=%d", (int)sdt, (int)ddt,
             l.ndim == 0, vec4, run);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "copy.comp", defines, &k)) != RS_OK) return st;

    copy_push pc = {dst->address, src->address, 0, (uint64_t)l.numel, (uint32_t)l.ndim, 0};
    if ((st = rs_layout_upload(s, &l, 2, &pc.params)) != RS_OK) return st;
    rs_access acc[2] = {rs_tensor_access(src, 0), rs_tensor_access(dst, 1)};
    /* the contiguous kernels take 4 elements per invocation, the 16-byte
     * path VEC4_QUADS quads of 4 (copy.comp's CQ) */
    uint64_t items = vec4 ? ((uint64_t)l.numel / 4 + VEC4_QUADS - 1) / VEC4_QUADS
                   : l.ndim == 0 ? ((uint64_t)l.numel + 3) / 4
                   : (uint64_t)(l.numel / inner) * (uint64_t)((inner + run - 1) / run);
    return rs_launch(s, k, items, &pc, sizeof pc, acc, 2);
}
