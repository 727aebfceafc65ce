/* fill.c: rs_fill, every element of a strided dst = the given bytes
 * (kernels/fill.comp). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/fill.h"

typedef struct fill_push { RS_FILL_PUSH } fill_push;

static rs_status fill_launch(rs_stream *s, uint64_t address, const rs_layout *l, size_t esize,
                             const uint8_t *value, rs_access acc, int wide) {
    char defines[32];
    snprintf(defines, sizeof defines, "ESIZE=%zu;WIDE=%d", esize, wide);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "fill.comp", defines, &k);
    if (st != RS_OK) return st;
    fill_push pc;
    memset(&pc, 0, sizeof pc);
    pc.dst = address;
    pc.numel = (uint64_t)l->numel;
    pc.ndim = (uint32_t)l->ndim;
    memcpy(pc.value, value, esize);
    if ((st = rs_layout_upload(s, l, 1, &pc.params)) != RS_OK) return st;
    return rs_launch(s, k, pc.numel, &pc, sizeof pc, &acc, 1);
}

rs_status rs_fill(rs_stream *s, const rs_tensor *dst, const void *value) {
    if (!s) return rs_error(RS_ERR_INVALID, "rs_fill: stream is NULL");
    if (!value) return rs_error(RS_ERR_INVALID, "rs_fill: value is NULL");
    rs_layout l;
    rs_tensor d = *dst; /* in its memory's order: a channels_last tensor is one run */
    rs_views_by_stride(&d, 1);
    rs_status st = rs_layout_make(&d, NULL, &l);
    if (st != RS_OK) return st;
    if (l.numel == 0) return RS_OK;
    size_t es = rs_dtype_size(dst->dtype);
    rs_access acc = rs_tensor_access(dst, 1);
    uint64_t nbytes = (uint64_t)l.numel * es;

    /* Contiguous fills from 16-byte aligned addresses write 16-byte words
     * of the repeated pattern (one store an invocation: the H100 filled a
     * 64 MiB float32 tensor at half CUDA's speed an element an
     * invocation), then the tail of fewer than 16 bytes element by element */
    if (l.ndim == 0 && dst->address % 16 == 0 && nbytes >= 16 && 16 % es == 0) {
        uint8_t word[16];
        for (int i = 0; i < 16; ++i) word[i] = ((const uint8_t *)value)[i % es];
        rs_layout wl = l;
        wl.numel = (int64_t)(nbytes / 16);
        rs_access wacc = {dst->address, (uint64_t)wl.numel * 16, 1};
        st = fill_launch(s, dst->address, &wl, 16, word, wacc, 1);
        uint64_t done = (uint64_t)wl.numel * 16;
        if (st != RS_OK || done == nbytes) return st;
        rs_layout tl = l;
        tl.numel = (int64_t)((nbytes - done) / es);
        rs_access tacc = {dst->address + done, nbytes - done, 1};
        return fill_launch(s, dst->address + done, &tl, es, value, tacc, 0);
    }
    /* 1- and 2-byte fills otherwise write whole 32-bit words where the
     * range allows it */
    if (l.ndim == 0 && es < 4 && dst->address % 4 == 0 && nbytes % 4 == 0) {
        uint8_t word[4];
        for (int i = 0; i < 4; ++i) word[i] = ((const uint8_t *)value)[i % es];
        rs_layout wl = l;
        wl.numel = (int64_t)(nbytes / 4);
        return fill_launch(s, dst->address, &wl, 4, word, acc, 0);
    }
    return fill_launch(s, dst->address, &l, es, value, acc, 0);
}
