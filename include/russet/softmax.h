/* russet/softmax.h: softmax and log_softmax (src/engine/softmax.c). */
#ifndef RUSSET_SOFTMAX_H
#define RUSSET_SOFTMAX_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Softmax along the middle dim of contiguous (outer, n, inner) tensors:
 * out = softmax(a) or log_softmax(a); backward: a = grad_output, b = the
 * forward's output, out = grad_input. Dtypes: float32, float16, bfloat16
 * (any mix, e.g. half in, float out), computed in float32; or float64
 * alone, computed in double, on a device with fp64 (RS_ERR_UNSUPPORTED
 * otherwise). */
typedef enum rs_softmax_op {
    RS_SOFTMAX = 0,
    RS_LOG_SOFTMAX = 1,
    RS_SOFTMAX_BACKWARD = 2,
    RS_LOG_SOFTMAX_BACKWARD = 3
} rs_softmax_op;

typedef struct rs_softmax {
    rs_softmax_op op;
    uint64_t a, b, out;             /* b: backward only */
    rs_dtype a_dtype, b_dtype, out_dtype;
    int64_t outer, n, inner;
} rs_softmax;

RS_API rs_status rs_softmax_run(rs_stream *s, const rs_softmax *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_SOFTMAX_H */
