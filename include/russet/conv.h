/* russet/conv.h: the convolution engine (src/engine/conv.c). */
#ifndef RUSSET_CONV_H
#define RUSSET_CONV_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The convolution engine (src/engine/conv.c, kernels/conv.comp): an
 * implicit GEMM that gathers its operands from the tensors (no im2col
 * buffer). With x (N, C, I...), w (O, C/groups, K...) and y (N, O, P...),
 * for output channel o of group g (input channels g C/groups onwards):
 *   RS_CONV_FORWARD:      y[n, o, p] = bias[o] + sum_{c, r} x[n, c, p s - pad + r dil] w[o, c, r]
 *   RS_CONV_GRAD_INPUT:   x = dL/dx for dy in y: x[n, c, i] = sum over (o, r, p) with
 *                         p s - pad + r dil = i of y[n, o, p] w[o, c, r]
 *   RS_CONV_GRAD_WEIGHT:  w = dL/dw for dy in y: w[o, c, r] = sum_{n, p} y[n, o, p] x[n, c, p s - pad + r dil]
 * (x outside its sizes reads as 0: zero padding). The sizes need not
 * follow the usual output-size formula: the sums run over what exists, so
 * a transposed convolution is GRAD_INPUT with its input in `output`, and
 * its backward is FORWARD and GRAD_WEIGHT with the roles swapped. 1 to 3
 * spatial dims; any non-negative strides (channels_last included: the
 * written view keeps its layout). One dtype for every tensor: float32,
 * float16, bfloat16 (accumulated in float32, rounded once), float64 (fp64
 * devices) and the integer dtypes (wrapping, in 64 bits). Deterministic:
 * the sums have one order, no atomics. */
typedef enum rs_conv_op {
    RS_CONV_FORWARD = 0,
    RS_CONV_GRAD_INPUT = 1,
    RS_CONV_GRAD_WEIGHT = 2
} rs_conv_op;

typedef struct rs_conv {
    rs_conv_op op;
    int dims;                       /* spatial dims: 1, 2 or 3 */
    int64_t groups;
    rs_tensor input;                /* x; GRAD_INPUT writes it */
    rs_tensor weight;               /* w; GRAD_WEIGHT writes it */
    rs_tensor output;               /* y; FORWARD writes it, the gradients read dy there */
    uint64_t bias;                  /* FORWARD: O contiguous elements of the dtype, or 0 */
    int64_t stride[3], pad[3], dil[3];
} rs_conv;

RS_API rs_status rs_conv_run(rs_stream *s, const rs_conv *c);
/* 1 where rs_conv_run computes dtype dt on this device (no kernel for it,
 * or float64 arithmetic the device lacks: 0); the adapter's choice of host
 * execution, made before it writes anything. */
RS_API int rs_conv_computes(rs_device *dev, rs_dtype dt);
/* The kernel rs_conv_run would use ("conv-forward-128x64-k16", ...), or
 * "invalid"; for tests and benchmarks. */
RS_API const char *rs_conv_kernel_name(rs_stream *s, const rs_conv *c);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_CONV_H */
