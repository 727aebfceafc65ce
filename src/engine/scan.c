/* scan.c: inclusive scans along the last dim (kernels/scan.comp):
 * cumsum, cumprod, cummax/cummin with indices, logcumsumexp. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/scan.h"

typedef struct scan_push { RS_SCAN_PUSH } scan_push;

#define CHUNK 1024  /* RS_WG * ITEMS in scan.comp */
#define CLSE_CHUNK 16384  /* complex logcumsumexp: elements of a row per dispatch */

static rs_status dispatch_mode(rs_stream *s, const rs_tensor *src, const rs_tensor *dst, rs_scan_op op, int mode,
                               uint64_t groups, const scan_push *pc, const rs_access *acc, int nacc) {
    char defines[96];
    snprintf(defines, sizeof defines, "MODE=%d;IN_DT=%d;OUT_DT=%d;OP=%d", mode, (int)src->dtype, (int)dst->dtype,
             (int)op);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "scan.comp", defines, &k);
    if (st != RS_OK) return st;
    uint32_t g[3] = {rs_groups_capped(s, groups, 65535), 1, 1};
    return rs_dispatch(s, k, g, pc, sizeof *pc, acc, nacc);
}

static int row_shape(const rs_tensor *t, int64_t *rows, int64_t *n) {
    *n = t->ndim == 0 ? 1 : t->sizes[t->ndim - 1];
    int64_t numel = rs_tensor_numel(t);
    *rows = *n == 0 ? 0 : numel / *n;
    return rs_tensor_is_contiguous(t);
}

static int same_sizes(const rs_tensor *a, const rs_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; ++d)
        if (a->sizes[d] != b->sizes[d]) return 0;
    return 1;
}

static int scan_dtype_ok(rs_dtype dt) {
    switch (dt) {
    case RS_BOOL: case RS_UINT8: case RS_INT8: case RS_INT16: case RS_INT32: case RS_INT64:
    case RS_UINT16: case RS_UINT32: case RS_UINT64:
    case RS_FLOAT16: case RS_BFLOAT16: case RS_FLOAT32: case RS_COMPLEX64: case RS_FLOAT64:
        return 1;
    default:
        return 0;
    }
}

rs_status rs_scan(rs_stream *s, rs_scan_op op, const rs_tensor *src, const rs_tensor *dst,
                  const rs_tensor *indices) {
    if (!s || !src || !dst) return rs_error(RS_ERR_INVALID, "rs_scan: NULL argument");
    if (op < RS_SCAN_SUM || op > RS_SCAN_LOGSUMEXP) return rs_error(RS_ERR_INVALID, "rs_scan: bad op %d", (int)op);
    int minmax = op == RS_SCAN_MAX || op == RS_SCAN_MIN;
    if (minmax && (!indices || indices->dtype != RS_INT64))
        return rs_error(RS_ERR_INVALID, "rs_scan: cummax/cummin need int64 indices");
    if (!same_sizes(src, dst) || (minmax && !same_sizes(src, indices)))
        return rs_error(RS_ERR_INVALID, "rs_scan: src, dst and indices must have the same sizes");
    int64_t rows, n;
    if (!row_shape(src, &rows, &n) || !rs_tensor_is_contiguous(dst) ||
        (minmax && !rs_tensor_is_contiguous(indices)))
        return rs_error(RS_ERR_INVALID, "rs_scan: tensors must be contiguous (scan along the last dim)");
    /* float64: cummax/cummin compare bits (no fp64 needed); sum and prod
     * need shaderFloat64; logcumsumexp (GLSL has no double exp/log) never */
    if (rs_dtype_needs_fp64(src->dtype) || rs_dtype_needs_fp64(dst->dtype)) {
        int f64 = src->dtype == RS_FLOAT64 && dst->dtype == RS_FLOAT64;
        int ok = f64 && (minmax || ((op == RS_SCAN_SUM || op == RS_SCAN_PROD) && rs_stream_features(s)->has_fp64));
        if (!ok) return rs_error(RS_ERR_UNSUPPORTED, "rs_scan: this float64 scan runs on the host");
    }
    if (!scan_dtype_ok(src->dtype) || !scan_dtype_ok(dst->dtype))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_scan: no scan kernel for %s -> %s", rs_dtype_name(src->dtype),
                        rs_dtype_name(dst->dtype));
    int flt = src->dtype == RS_FLOAT16 || src->dtype == RS_BFLOAT16 || src->dtype == RS_FLOAT32;
    int cplx = src->dtype == RS_COMPLEX64 || dst->dtype == RS_COMPLEX64;
    if (cplx && (src->dtype != dst->dtype || minmax))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_scan: complex64 only for cumsum/cumprod/logcumsumexp into complex64");
    if (op == RS_SCAN_LOGSUMEXP && !flt && !cplx)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_scan: logcumsumexp needs a floating dtype");
    if (rows == 0 || n == 0) return RS_OK;

    scan_push pc = {src->address, dst->address, minmax ? indices->address : 0, (uint64_t)rows, (uint64_t)n, 0, 0};
    rs_access acc[4] = {rs_tensor_access(src, 0), rs_tensor_access(dst, 1), {0, 0, 1}, {0, 0, 1}};
    int nacc = 2;
    if (minmax) acc[nacc++] = rs_tensor_access(indices, 1);
    /* complex64 logcumsumexp: an invocation per row, folding in order (its
     * combination is not associative in the imaginary part) */
    if (cplx && op == RS_SCAN_LOGSUMEXP) {
        /* rows longer than CLSE_CHUNK fold in several dispatches, the
         * running values in scratch (lavapipe stops a shader's loops after
         * 65535 iterations in all) */
        uint64_t groups = ((uint64_t)rows + 63) / 64;
        pc.idx = CLSE_CHUNK;
        if (n <= CLSE_CHUNK) return dispatch_mode(s, src, dst, op, 0, groups, &pc, acc, nacc);
        rs_device *dev = rs_stream_device(s);
        uint64_t ssize = (uint64_t)rows * 16;
        rs_status st = rs_alloc(dev, ssize, s, &pc.scratch);
        if (st != RS_OK) return st;
        acc[nacc] = (rs_access){pc.scratch, ssize, 1};
        for (int64_t c0 = 0; c0 < n && st == RS_OK; c0 += CLSE_CHUNK) {
            pc.nb = (uint64_t)c0;
            st = dispatch_mode(s, src, dst, op, 0, groups, &pc, acc, nacc + 1);
        }
        rs_free(dev, pc.scratch);  /* reused only after this stream's work */
        return st;
    }
    /* Few long rows: three passes over blocks, so that every compute unit
     * works (a workgroup per row would leave the GPU idle). */
    uint64_t nb = ((uint64_t)n + CHUNK - 1) / CHUNK;
    if (nb < 4 || rows >= 256) return dispatch_mode(s, src, dst, op, 0, (uint64_t)rows, &pc, acc, nacc);
    rs_device *dev = rs_stream_device(s);
    uint64_t ssize = (uint64_t)rows * nb * 16;
    rs_status st = rs_alloc(dev, ssize, s, &pc.scratch);
    if (st != RS_OK) return st;
    pc.nb = nb;
    acc[nacc++] = (rs_access){pc.scratch, ssize, 1};
    rs_access first[2] = {acc[0], acc[nacc - 1]};
    st = dispatch_mode(s, src, dst, op, 1, (uint64_t)rows * nb, &pc, first, 2);
    if (st == RS_OK) st = dispatch_mode(s, src, dst, op, 2, (uint64_t)rows, &pc, first + 1, 1);
    if (st == RS_OK) st = dispatch_mode(s, src, dst, op, 3, (uint64_t)rows * nb, &pc, acc, nacc);
    rs_free(dev, pc.scratch);  /* reused only after this stream's work */
    return st;
}
