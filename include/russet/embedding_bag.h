/* russet/embedding_bag.h: bags of embedding rows (src/engine/embedding_bag.c). */
#ifndef RUSSET_EMBEDDING_BAG_H
#define RUSSET_EMBEDDING_BAG_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rs_embedding_bag_run: the forward of F.embedding_bag, one kernel
 * (kernels/embedding_bag.comp), an invocation per (bag, column).
 * Bag b holds the positions [offsets[b], end) of `indices`, end being
 * offsets[b + 1], or for the last bag the length L of indices unless
 * offsets holds one more entry than there are bags (include_last_offset:
 * offsets (B + 1)); an end before its start is an empty bag. A position
 * whose index equals padding_idx (>= 0) is left out and not counted.
 *   RS_EBAG_SUM:  out[b] = sum of weight[idx] (times per_sample_weights[p]
 *                 when given: ndim 1; else ndim 0), in position order
 *   RS_EBAG_MEAN: that sum rounded to the dtype, divided by the bag's
 *                 count (at least 1) rounded to the dtype
 *   RS_EBAG_MAX:  the first row of the bag, then a later value where it is
 *                 greater (so a NaN counts only first); max_indices the
 *                 index of the row that gave each maximum; an empty bag
 *                 gives 0 and index 0
 * The order and roundings are CPU's. weight (N, D) is float16, bfloat16,
 * float32 or float64 (fp64 devices), summed in float32 (float64); out (B,
 * D) and per_sample_weights (L) have its dtype; indices (L) and offsets are
 * int32 or int64 alike, as are bag_size (B: the bag's count; address 0:
 * not written; written also when D is 0) and max_indices (B, D;
 * RS_EBAG_MAX only). Any strides.
 * offset2bag (L, the indices' dtype; address 0: not written): each
 * position's bag, CPU's make_offset2bag: the number of bags starting at
 * or before it, minus one (positions past the last bag's end, with
 * include_last_offset, belong to the last bag).
 * Device-side checks (raised at the next sync): an index outside [0, N),
 * an offset outside [0, L], and offsets[0] != 0 (CPU requires the first
 * bag to start at 0) ("index V is out of bounds"); offsets that decrease
 * ("offsets must be non-decreasing": CPU's sum and mean raise there). */
typedef enum rs_ebag_mode { RS_EBAG_SUM = 0, RS_EBAG_MEAN = 1, RS_EBAG_MAX = 2 } rs_ebag_mode;

typedef struct rs_embedding_bag {
    rs_ebag_mode mode;
    rs_tensor weight, indices, offsets, per_sample_weights;
    int64_t padding_idx;  /* < 0: none */
    rs_tensor out, bag_size, max_indices, offset2bag;
} rs_embedding_bag;

RS_API rs_status rs_embedding_bag_run(rs_stream *s, const rs_embedding_bag *e);

/* The backward of rs_embedding_bag_run, as CPU's _embedding_bag_dense_backward
 * and _embedding_bag_per_sample_weights_backward compute it. Each position
 * p's bag is offset2bag[p] where given (ndim 1), else the last bag whose
 * offset is <= p (offsets as in the forward; B = grad.sizes[0]).
 *
 * rs_embedding_bag_backward_run: out (N, D), the weight's gradient,
 * written whole.
 *   sum, mean: each position's row is grad[bag] times a scale (CPU's,
 *     in float32; float64 for float64): per_sample_weights[p] (sum), over
 *     its index's count among all positions (scale_grad_by_freq), over
 *     max(bag_size[bag], 1) (mean); the scale rounded to the dtype, the
 *     product rounded to it; then the rows summed into out[index] in
 *     position order, positions whose index is padding_idx left out
 *     (embedding_dense_backward's order: rs_index_reduce_run).
 *   max: each bag's gradient to the rows its maxima came from
 *     (max_indices (B, D)), bags with bag_size 0 sending nothing; in bag
 *     order.
 * rs_embedding_bag_psw_backward_run (mode sum): out (L), the gradient of
 * per_sample_weights: grad[bag] . weight[index] summed in float32 (float64)
 * over the columns in order, rounded once; 0 where the index is
 * padding_idx.
 * grad, weight and out have one float dtype (float64 on fp64 devices);
 * indices, offset2bag, offsets, bag_size and max_indices int32 or int64
 * alike. Any strides. Device-side checks: a bag outside [0, B), an index
 * outside [0, N) ("index V is out of bounds"). */
typedef struct rs_embedding_bag_grad {
    rs_ebag_mode mode;
    rs_tensor grad;                      /* (B, D): the output's gradient */
    rs_tensor indices;                   /* (L) */
    rs_tensor offset2bag;                /* (L), or ndim 0: from offsets */
    rs_tensor offsets;                   /* (B) or (B + 1) when offset2bag is absent */
    rs_tensor bag_size;                  /* (B): mean, max */
    rs_tensor max_indices;               /* (B, D): max */
    rs_tensor per_sample_weights;        /* (L): sum; ndim 0: none */
    rs_tensor weight;                    /* (N, D): the psw backward's table */
    int64_t padding_idx;                 /* < 0: none */
    int scale_grad_by_freq;
    rs_tensor out;
} rs_embedding_bag_grad;

RS_API rs_status rs_embedding_bag_backward_run(rs_stream *s, const rs_embedding_bag_grad *g);
RS_API rs_status rs_embedding_bag_psw_backward_run(rs_stream *s, const rs_embedding_bag_grad *g);

/* rs_embedding_renorm: nn.Embedding(max_norm=...)'s embedding_renorm_,
 * as CPU's: for each distinct value i of `indices` (int32 or int64, any
 * shape and strides) the row weight[i] (i in [-N, N), a negative one
 * wrapped, so a row named as i - N and as i takes two passes, one after
 * the other) is scaled in place by max_norm / (norm + 1e-7) where its
 * norm_type-norm exceeds max_norm: the norm accumulated in float32
 * (float64) and rounded to the dtype, the scale computed in float32
 * (float64) and rounded to the dtype, each product rounded once (CPU's
 * row.norm().item() and row *= scale). Weight (N, D) float32, float16,
 * bfloat16 (float64 with fp64 arithmetic); norms 0, 1, 2, inf and, but for
 * float64, any p > 0 (RS_ERR_UNSUPPORTED otherwise). Nothing waits: the
 * indices are sorted on the device, and a workgroup takes each first
 * occurrence. An index outside [-N, N) raises "index V is out of bounds"
 * at the next sync. */
RS_API rs_status rs_embedding_renorm(rs_stream *s, const rs_tensor *weight, const rs_tensor *indices, double max_norm,
                                     double norm_type);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_EMBEDDING_BAG_H */
