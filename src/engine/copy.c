/* copy.c: rs_copy, strided dst <- strided src, any dtype pair
 * (kernels/copy.comp). */
#include <stdio.h>
#include <stdlib.h>

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

typedef struct copy_push { RS_COPY_PUSH } copy_push;

/* bytes from which a contiguous bit copy on a discrete GPU runs as
 * copy.comp's 16-byte words */
#define WORDS_MIN (64u << 10)

/* A contiguous bit copy. On a discrete GPU (memory the host does not map)
 * a large one runs as copy.comp's WORDS kernel: the H200 copied at 307
 * GB/s through vkCmdCopyBuffer, a fifth of CUDA's. Elsewhere (Apple's
 * unified memory, lavapipe) vkCmdCopyBuffer is the device's own blit. */
static rs_status copy_bytes(rs_stream *s, uint64_t dst, uint64_t src, uint64_t bytes) {
    /* RUSSET_COPY_WORDS=1 takes the words kernel wherever the addresses
     * allow (its C test on lavapipe), =0 never */
    const char *force = getenv("RUSSET_COPY_WORDS");
    int words_path = force && *force ? force[0] == '1' : !rs_stream_features(s)->unified_memory && bytes >= WORDS_MIN;
    if (!words_path || bytes < 16 || dst % 16 || src % 16) return rs_memcpy_dtod(s, dst, src, bytes);
    uint64_t words = bytes / 16;
    rs_kernel *k = NULL;
    char defines[80];
    snprintf(defines, sizeof defines, "SRC_DT=%d;DST_DT=%d;CONTIG=1;VEC4=0;RUN=1;WORDS=1", (int)RS_UINT8,
             (int)RS_UINT8);
    rs_status st = rs_kernel_get(rs_stream_device(s), "copy.comp", defines, &k);
    if (st != RS_OK) return st;
    copy_push pc = {dst, src, 0, words, 0, 0};
    rs_access acc[2] = {{src, words * 16, 0}, {dst, words * 16, 1}};
    if ((st = rs_launch(s, k, (words + 3) / 4, &pc, sizeof pc, acc, 2)) != RS_OK) return st;
    return bytes > words * 16 ? rs_memcpy_dtod(s, dst + words * 16, src + words * 16, bytes - words * 16) : RS_OK;
}

rs_status rs_copy(rs_stream *s, const rs_tensor *dst, const rs_tensor *src) {
    if (!s) return rs_error(RS_ERR_INVALID, "rs_copy: stream is NULL");
    rs_layout l;
    /* both views in dst's memory order: channels_last to channels_last is
     * one run, a contiguous copy */
    rs_tensor views[2] = {*dst, *src};
    rs_views_by_stride(views, 2);
    rs_status st = rs_layout_make(&views[0], &views[1], &l);
    if (st != RS_OK) return st;
    if (l.numel == 0) return RS_OK;

    rs_dtype sdt = src->dtype, ddt = dst->dtype;
    if ((sdt == RS_FLOAT4_E2M1FN_X2 || ddt == RS_FLOAT4_E2M1FN_X2) && sdt != ddt)  /* CPU's copy_kernel has no cast */
        return rs_error(RS_ERR_UNSUPPORTED, "\"copy_kernel\" not implemented for 'Float4_e2m1fn_x2'");
    if (is_bit_copy(ddt, sdt)) {
        if (l.ndim == 0) return copy_bytes(s, dst->address, src->address, (uint64_t)l.numel * rs_dtype_size(ddt));
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
    uint64_t strided_items = 0;
    int run = rs_layout_run(&l, &strided_items);
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
                   : l.ndim == 0 ? ((uint64_t)l.numel + 3) / 4 : strided_items;
    return rs_launch(s, k, items, &pc, sizeof pc, acc, 2);
}
