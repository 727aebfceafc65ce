/* russet/segment_reduce.h: reductions over segments along an axis
 * (torch.segment_reduce; src/engine/segment_reduce.c). */
#ifndef RUSSET_SEGMENT_REDUCE_H
#define RUSSET_SEGMENT_REDUCE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The data is (outer, L, inner): the dims before the axis merged, the axis,
 * the dims after it merged. Each outer row o has S segments along the axis:
 *   lengths (offsets = 0): bounds (outer, S), segment s is
 *     [sum of bounds[o, :s], that + bounds[o, s]);
 *   offsets (offsets = 1): bounds (outer, S + 1), segment s is
 *     [bounds[o, s], bounds[o, s + 1]).
 * Positions outside [0, L) are not read (CPU reads past the data there).
 * bounds are int32 or int64, any strides.
 *
 * rs_segment_reduce_run: out (outer, S, inner) = each segment's reduction
 * of data[o, j, i] over its positions j in increasing order, starting from
 * `initial` (has_initial) or the op's identity (0, 1, -inf, +inf), each step
 * rounded to the dtype: CPU's loop (SegmentReduce.cpp), bit for bit. MAX
 * and MIN take a NaN element (and keep it); MEAN divides the sum by the
 * length (rounded to the dtype) where the length is > 0 and the sum not
 * NaN, and gives NaN for an empty segment without an initial value.
 *
 * rs_segment_reduce_backward_run: out (outer, L, inner) = the gradient of
 * data from grad and output (both (outer, S, inner), output the forward's
 * result), CPU's formulas: SUM grad; MEAN grad / length; MAX, MIN grad at
 * the positions equal to the output or NaN, divided by their count where
 * there are several and the gradient is positive; PROD grad * output / x,
 * or at a zero or NaN x grad times the product of the segment's other
 * elements in order (from initial). Positions in no segment get 0.
 *
 * data, out, grad and output share a dtype: float16, bfloat16, float32, or
 * float64 (on fp64 devices). Any strides. A negative segment length raises
 * the device error flag (code 5, reported at the next sync), as CPU raises. */
typedef enum rs_segment_op {
    RS_SEG_SUM = 0,
    RS_SEG_MEAN = 1,
    RS_SEG_MAX = 2,
    RS_SEG_MIN = 3,
    RS_SEG_PROD = 4
} rs_segment_op;

typedef struct rs_segment_reduce {
    rs_segment_op op;
    rs_tensor data;   /* (outer, L, inner) */
    rs_tensor bounds; /* (outer, S) lengths or (outer, S + 1) offsets */
    int offsets;
    int has_initial;
    double initial;
    rs_tensor grad, output; /* backward: (outer, S, inner) */
    rs_tensor out;          /* forward (outer, S, inner); backward (outer, L, inner) */
} rs_segment_reduce;

RS_API rs_status rs_segment_reduce_run(rs_stream *s, const rs_segment_reduce *p);
RS_API rs_status rs_segment_reduce_backward_run(rs_stream *s, const rs_segment_reduce *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_SEGMENT_REDUCE_H */
