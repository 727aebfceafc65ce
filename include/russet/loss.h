/* russet/loss.h: the negative log-likelihood loss (src/engine/loss.c). */
#ifndef RUSSET_LOSS_H
#define RUSSET_LOSS_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Negative log-likelihood over contiguous (n, c, s) log-probabilities
 * `input` with (n, s) class targets (int64 or uint8), optional weight (c),
 * ignore_index; s = 1 for nll_loss, h * w for nll_loss2d. Forward: `out` is
 * (n, s) for reduction 0 (none), else one element, and `total_weight` one
 * element. Backward: `grad_input` (n, c, s) must be zeroed by the caller;
 * grad_output is (n, s) for reduction none, else one element. A target
 * outside [0, c) raises the device error flag (reported at the next sync).
 * Dtypes: float32, float16, bfloat16 (input, weight and outputs alike). */
typedef struct rs_nll_loss {
    uint64_t input, target, weight, out, total_weight, grad_output, grad_input;
    rs_dtype dtype, target_dtype;
    int64_t n, c, s;
    int reduction;                  /* 0 none, 1 mean, 2 sum */
    int64_t ignore_index;
} rs_nll_loss;

RS_API rs_status rs_nll_loss_forward(rs_stream *s, const rs_nll_loss *p);
RS_API rs_status rs_nll_loss_backward(rs_stream *s, const rs_nll_loss *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_LOSS_H */
