/* russet/pool.h: the pooling engine (src/engine/pool.c). */
#ifndef RUSSET_POOL_H
#define RUSSET_POOL_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Max and average pooling over the last `dims` (1 to 3) dims of
 * (N, C, spatial...) views with any strides (contiguous, channels_last or
 * other), forward and backward, with fixed windows (kernel, stride, pad,
 * dilation) or adaptive ones (dim of size in -> out: window o is
 * [floor(o in / out), ceil((o + 1) in / out))). src/engine/pool.c,
 * kernels/pool.comp: one thread per result element, no atomics; the
 * backward kernels gather, for each input element, the outputs whose
 * windows hold it, in the order CPU's kernels add them.
 *   RS_POOL_MAX: output = each window's maximum (NaN wins: the last NaN, as
 *     CPU), indices = its flat position in the input's spatial plane (the
 *     first maximum; an all -inf window gives its first position inside
 *     the input). Float32 family, float64, all integers but bool.
 *   RS_POOL_AVG: output = window sum / divisor: divisor_override when not 0,
 *     else the window's size clipped to the padded input (count_include_pad)
 *     or to the input; adaptive windows divide by each dim's extent in turn
 *     (CPU's sum / kh / kw). Float32 family, float64, int64 (the quotient
 *     truncated, as CPU).
 *   RS_POOL_MAX_BACKWARD: grad_input = the sum of grad_output over the
 *     outputs whose index names that element. An index outside its window
 *     raises the device error flag (index out of range).
 *   RS_POOL_AVG_BACKWARD: grad_input = the sum of grad_output / divisor
 *     over the windows holding the element.
 * Backward: `output` is grad_output (the output's sizes) and `grad_input`
 * has the input's sizes; `input` is not used. Float32 family (accumulated in
 * float32) and float64. Float64 needs the device's fp64 arithmetic
 * (RS_ERR_UNSUPPORTED without it). */
typedef enum rs_pool_op {
    RS_POOL_MAX = 0,
    RS_POOL_AVG = 1,
    RS_POOL_MAX_BACKWARD = 2,
    RS_POOL_AVG_BACKWARD = 3
} rs_pool_op;

/* rs_pool.adaptive: fractional max pooling (F.fractional_max_pool2d/3d):
 * along each dim, `kernel` positions from CPU's generate_intervals(u, in,
 * out, kernel): int((o + u) alpha) - int(u alpha) with alpha = (in -
 * kernel) / (out - 1), the last window at in - kernel, in the dtype's
 * arithmetic (float16/bfloat16: each operation rounded, as CPU's scalar_t).
 * u is the plane's sample: `samples` (N or more, C, dims) of the input's dtype,
 * 2-d samples[.., 0] for W and [.., 1] for H (CPU's order), 3-d [.., 0..2]
 * for T, H, W. RS_POOL_MAX only (its backward names no samples: the
 * caller scatters grad_output by the indices), 2 or 3 dims; kernel only
 * (stride, pad, dil unused); out + kernel - 1 <= in. */
#define RS_POOL_FRACTIONAL 2

typedef struct rs_pool {
    rs_pool_op op;
    int dims;                       /* spatial dims: 1, 2 or 3 */
    int adaptive;                   /* 1: adaptive windows (kernel..dil unused); RS_POOL_FRACTIONAL */
    rs_tensor samples;              /* RS_POOL_FRACTIONAL: (N or more, C, dims), the input's dtype */
    rs_tensor input;                /* forward: (N, C, spatial...) */
    rs_tensor output;               /* forward: the result; backward: grad_output */
    rs_tensor indices;              /* max: int64, the output's sizes */
    rs_tensor grad_input;           /* backward: the input's sizes */
    int64_t kernel[3], stride[3], pad[3], dil[3];
    int count_include_pad;          /* avg */
    int64_t divisor_override;       /* avg: 0 for none (CPU divides by a negative one too) */
} rs_pool;

RS_API rs_status rs_pool_run(rs_stream *s, const rs_pool *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_POOL_H */
