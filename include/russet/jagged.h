/* russet/jagged.h: a jagged (nested) tensor's packed values to and from a
 * padded dense tensor (torch's _jagged_to_padded_dense_forward and
 * _padded_dense_to_jagged_forward, which nested tensors of layout
 * torch.jagged use for reductions, softmax and padding;
 * src/engine/jagged.c). */
#ifndef RUSSET_JAGGED_H
#define RUSSET_JAGGED_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* values (total, ...) holds B items one after another, item b its rows
 * offsets[b] .. offsets[b + 1] - 1; padded (B, L, ...) holds item b's rows
 * from its row 0. Both contiguous, of one dtype (any: the elements move as
 * bits), with the same trailing sizes; offsets (B + 1) int64, contiguous.
 *
 * RS_JAGGED_TO_PADDED: padded[b, p] = values[offsets[b] + p] for p below
 * min(length of b, L) (a longer item is cut at L, as CPU's and CUDA's
 * kernels do); the rest of padded is left as it is (the caller fills the
 * padding first).
 *
 * RS_JAGGED_FROM_PADDED: values[r] = padded[b, r - offsets[b]] for every
 * row r, b the item that holds r. An item longer than L raises the device
 * error flag (code 12, value: its length), and so does offsets[B] != total
 * (code 13, value: offsets[B]), as CPU's checks raise; both are reported at
 * the next sync. */
typedef enum rs_jagged_direction { RS_JAGGED_TO_PADDED = 0, RS_JAGGED_FROM_PADDED = 1 } rs_jagged_direction;

typedef struct rs_jagged_copy {
    rs_jagged_direction direction;
    rs_tensor values;  /* (total, ...) */
    rs_tensor padded;  /* (B, L, ...) */
    rs_tensor offsets; /* (B + 1) int64 */
} rs_jagged_copy;

RS_API rs_status rs_jagged_copy_run(rs_stream *s, const rs_jagged_copy *p);

#ifdef __cplusplus
}
#endif

#endif /* RUSSET_JAGGED_H */
