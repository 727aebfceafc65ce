/* russet/index_reduce.h: index reductions: scatter_reduce, index_reduce, index_add
 * (src/engine/scatter_reduce.c). */
#ifndef RUSSET_INDEX_REDUCE_H
#define RUSSET_INDEX_REDUCE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- index reductions */
/* (src/engine/scatter_reduce.c) Reduces src's elements into self along `dim`,
 * in place, deterministically:
 *   shared_index = 0 (scatter_add, scatter_reduce): index has self's ndim and
 *     src covers it; element i of index sends src[i] to self[i with dim :=
 *     index[i]];
 *   shared_index = 1 (index_add, index_reduce, index_copy, embedding
 *     backward): index is 1-D (src.size(dim) elements) and src has self's
 *     sizes except at dim; src's slice k along dim goes to self's slice
 *     index[k].
 * The positions that meet at one element of self are reduced in increasing
 * position order (a stable sort of the index, then one sequential pass per
 * segment), which is CPU's order, so results are bit-equal to CPU's where
 * CPU rounds the same way: each step rounds to self's dtype (integers wrap)
 * unless acc_opmath (float16/bfloat16/complex32 then accumulate in float and round
 * once). include_self = 0 starts from the op's identity (0, 1, -inf/lowest,
 * +inf/highest). MEAN divides by the count (+1 with include_self), flooring
 * for integers; COPY keeps the last. SUM with has_alpha adds alpha * src
 * (alpha in the opmath type's slot as rs_pointwise's scalars). skip: index
 * entries equal to skip_index are ignored (embedding's padding_idx);
 * scale_by_count multiplies each src by 1 / (its segment's length)
 * (scale_grad_by_freq). An index outside [0, self.size(dim)) raises the
 * device error flag (the adapter wraps negative indices where PyTorch does).
 * Dtypes: bool, uint8, int8/16/32/64, float16, bfloat16, float32,
 * complex64 (no AMAX/AMIN), complex32 (SUM only); float64 and complex128 (no alpha) only with fp64 (RS_ERR_UNSUPPORTED
 * otherwise). COPY moves bits: every dtype of 1 to 8 bytes. */
typedef enum rs_index_reduce_op {
    RS_IR_SUM = 0, RS_IR_PROD = 1, RS_IR_MEAN = 2, RS_IR_AMAX = 3, RS_IR_AMIN = 4, RS_IR_COPY = 5
} rs_index_reduce_op;

typedef struct rs_index_reduce {
    const char *name;       /* the op, for errors */
    rs_index_reduce_op op;
    int dim;
    int shared_index;
    int include_self;
    int acc_opmath;
    int has_alpha;
    int has_skip;
    int scale_by_count;
    int64_t skip_index;
    rs_scalar alpha;
    rs_tensor self, index, src;
} rs_index_reduce;

RS_API rs_status rs_index_reduce_run(rs_stream *s, const rs_index_reduce *p);
/* 1 where rs_index_reduce_run computes op on dtype dt on this device, else
 * 0 (no kernel; a refusal that is CPU's error, as amax of complex numbers
 * or a mean of bools; float64 arithmetic the device lacks): the adapter's
 * choice of host execution, made before it writes anything. COPY: always 1
 * (bits; a 16-byte dtype the caller passes as two 8-byte halves). */
RS_API int rs_index_reduce_computes(rs_device *dev, rs_dtype dt, rs_index_reduce_op op);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_INDEX_REDUCE_H */
