/* triangle.c: rs_triangle, a matrix triangle copied with the rest zeroed
 * or mirrored (tril, triu; the Hermitian matrices of eigvalsh and the
 * factors of lu_unpack and qr), one launch of kernels/triangle.comp over
 * any strided batch, as bits (contract in russet/tensor.h). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/triangle.h"

typedef struct triangle_push { RS_TRIANGLE_PUSH } triangle_push;

rs_status rs_triangle(rs_stream *s, const rs_tensor *src, int lower, int64_t diagonal, int hermitian,
                      const rs_tensor *dst) {
    static const char op[] = "triangle";
    if (!s) return rs_error(RS_ERR_INVALID, "%s: stream is NULL", op);
    rs_layout l;
    rs_status st = rs_layout_make(dst, src, &l); /* validates both views and their sizes */
    if (st != RS_OK) return st;
    if (src->dtype != dst->dtype)
        return rs_error(RS_ERR_INVALID, "%s: src is %s, dst %s (the values move as bits)", op,
                        rs_dtype_name(src->dtype), rs_dtype_name(dst->dtype));
    const int nd = dst->ndim;
    if (nd < 2) return rs_error(RS_ERR_INVALID, "%s: the views need 2 dims or more (matrices), not %d", op, nd);
    const int64_t rows = dst->sizes[nd - 2], cols = dst->sizes[nd - 1];
    if (hermitian && (rows != cols || diagonal != 0))
        return rs_error(RS_ERR_INVALID, "%s: a Hermitian matrix needs square matrices and diagonal 0", op);
    if (l.numel == 0) return RS_OK;
    /* the dims as they are, less the batch dims of size 1: the kernel needs
     * each element's row and column and the mirror's offset */
    rs_layout full;
    memset(&full, 0, sizeof full);
    for (int d = 0; d < nd; ++d) {
        if (dst->sizes[d] == 1 && d < nd - 2) continue;
        full.sizes[full.ndim] = dst->sizes[d];
        full.strides[0][full.ndim] = dst->strides[d];
        full.strides[1][full.ndim] = src->strides[d];
        full.ndim++;
    }
    full.numel = l.numel;
    const size_t esize = rs_dtype_size(dst->dtype);
    char defines[32];
    snprintf(defines, sizeof defines, "ESIZE=%zu;CPLX=%d", esize, rs_dtype_is_complex(dst->dtype));
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "triangle.comp", defines, &k)) != RS_OK) return st;
    triangle_push pc;
    memset(&pc, 0, sizeof pc);
    pc.dst = dst->address, pc.src = src->address;
    pc.numel = (uint64_t)l.numel;
    pc.rows = rows, pc.cols = cols, pc.diagonal = diagonal;
    pc.mirror = src->strides[nd - 2] - src->strides[nd - 1];
    pc.ndim = (uint32_t)full.ndim;
    pc.flags = (lower ? TRI_F_LOWER : 0u) | (hermitian ? TRI_F_HERMITIAN : 0u);
    if ((st = rs_layout_upload(s, &full, 2, &pc.params)) != RS_OK) return st;
    rs_access acc[2] = {rs_tensor_access(src, 0), rs_tensor_access(dst, 1)};
    return rs_launch(s, k, pc.numel, &pc, sizeof pc, acc, 2);
}
