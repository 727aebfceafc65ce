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
 * Device-side checks (raised at the next sync, "index V is out of
 * bounds"): an index outside [0, N), an offset outside [0, L], and
 * offsets[0] != 0 (CPU requires the first bag to start at 0). */
typedef enum rs_ebag_mode { RS_EBAG_SUM = 0, RS_EBAG_MEAN = 1, RS_EBAG_MAX = 2 } rs_ebag_mode;

typedef struct rs_embedding_bag {
    rs_ebag_mode mode;
    rs_tensor weight, indices, offsets, per_sample_weights;
    int64_t padding_idx;  /* < 0: none */
    rs_tensor out, bag_size, max_indices;
} rs_embedding_bag;

RS_API rs_status rs_embedding_bag_run(rs_stream *s, const rs_embedding_bag *e);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_EMBEDDING_BAG_H */
