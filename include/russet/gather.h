/* russet/gather.h: gather and scatter along a dim (src/engine/gather.c). */
#ifndef RUSSET_GATHER_H
#define RUSSET_GATHER_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- gather and scatter */
/* (src/engine/gather.c) For every element i of `index` (int64 or int32, the ndim of
 * `self`):
 *   RS_GATHER:        other[i] = self[i with dim := index[i]]  (other: out, index's shape)
 *   RS_SCATTER:       self[i with dim := index[i]] = other[i]  (other: src, at least index's shape)
 *   RS_SCATTER_VALUE: self[i with dim := index[i]] = value     (value: the element's bytes)
 * Elements move as bytes (self and other have one dtype: any dtype, float64
 * included without fp64). An index outside [0, self.size(dim)) raises the
 * device error flag (reported at the next sync). Scatter with repeated
 * indices writes one of the candidates (which one is not defined, as on
 * CUDA). */
typedef enum rs_gather_mode { RS_GATHER = 0, RS_SCATTER = 1, RS_SCATTER_VALUE = 2 } rs_gather_mode;

typedef struct rs_gather {
    rs_gather_mode mode;
    int dim;
    rs_tensor self, index, other;
    uint8_t value[16];
} rs_gather;

RS_API rs_status rs_gather_run(rs_stream *s, const rs_gather *g);

/* Advanced indexing's linear index (x[i0, i1, ...] over `count` adjacent
 * dims of sizes sizes[0..count)): out[e] = the sum over k of
 * wrap(indices[k][e], sizes[k]) times the product of sizes[k + 1..count),
 * where wrap(i, n) is i + n for i in [-n, 0), else i. An index outside
 * [-n, n) makes out[e] that index's value when count is 1, else -1: outside
 * [0, product of sizes), so that the gather or index reduction that
 * follows raises it (naming the index, as CPU does, where there is one).
 * out is int64, contiguous; each index tensor int64 or int32 with out's
 * sizes and any strides (0 where broadcast). */
RS_API rs_status rs_index_linearize(rs_stream *s, int count, const rs_tensor *indices, const int64_t *sizes,
                                    const rs_tensor *out);

/* torch.take: out[e] = self's element at row-major position
 * wrap(index[e], numel(self)) (wrap as rs_index_linearize's). self any
 * dtype and strides, not empty (unless index is); index int64 or int32,
 * any strides; out self's dtype with index's sizes, any strides. One
 * gather from the flat self (a strided self is copied dense first, a
 * strided out written through a dense copy). An index outside [-n, n)
 * raises at the next sync, naming it. */
RS_API rs_status rs_take(rs_stream *s, const rs_tensor *self, const rs_tensor *index, const rs_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_GATHER_H */
