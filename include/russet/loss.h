/* russet/loss.h: the negative log-likelihood loss (src/engine/loss.c), the
 * CTC loss (src/engine/ctc.c) and the regression losses
 * (src/engine/regression_loss.c). */
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
 * Dtypes: float32, float16, bfloat16 (input, weight and outputs alike),
 * computed in float32; or float64, computed in double, on a device with
 * fp64 (RS_ERR_UNSUPPORTED otherwise). */
typedef struct rs_nll_loss {
    uint64_t input, target, weight, out, total_weight, grad_output, grad_input;
    rs_dtype dtype, target_dtype;
    int64_t n, c, s;
    int reduction;                  /* 0 none, 1 mean, 2 sum */
    int64_t ignore_index;
} rs_nll_loss;

RS_API rs_status rs_nll_loss_forward(rs_stream *s, const rs_nll_loss *p);
RS_API rs_status rs_nll_loss_backward(rs_stream *s, const rs_nll_loss *p);

/* The CTC loss (ATen's _ctc_loss and _ctc_loss_backward, which
 * F.ctc_loss calls), in the log-space recursions and operation order of
 * ATen's CPU kernel: per sample n, the extended target l' (a blank before,
 * between and after its labels, S_n = 2 L_n + 1 positions), alpha over its
 * input_lengths[n] frames, nll[n] = -log p(target | input); backward, beta
 * and grad = d(loss) / d(log_probs), scaled by grad_out[n]. Views with any
 * strides. Refuses with RS_ERR_UNSUPPORTED: dtypes other than float32 and
 * float64, float64 without fp64, and a target whose frame does not fit
 * the device's shared memory (the recursion keeps 2 Lmax + 1 positions,
 * rounded up to a power of two: past 4095 labels in 32 KiB, 2047 in
 * float64). */
typedef struct rs_ctc_loss {
    rs_tensor log_probs;   /* (T, N, C), float32 or float64 */
    rs_tensor targets;     /* int32 or int64: (N, >= Lmax), or 1-d: every sample's labels in turn */
    const int64_t *input_lengths;  /* N frame counts, host memory, each in [0, T] */
    const int64_t *target_lengths; /* N label counts, host memory; Lmax is the largest */
    int64_t blank;         /* in [0, C) */
    rs_tensor log_alpha;   /* (N, T, 2 Lmax + 1), log_probs' dtype: forward writes, backward reads */
    rs_tensor nll;         /* (N): forward writes, backward reads */
    rs_tensor grad_out;    /* backward: (N) */
    rs_tensor grad;        /* backward: (T, N, C), written */
    int zero_infinity;     /* backward: a sample of infinite loss gets a zero gradient */
} rs_ctc_loss;

RS_API rs_status rs_ctc_loss_forward(rs_stream *s, const rs_ctc_loss *p);
RS_API rs_status rs_ctc_loss_backward(rs_stream *s, const rs_ctc_loss *p);

/* The regression losses (src/engine/regression_loss.c): mse_loss,
 * smooth_l1_loss (param: beta >= 0), huber_loss (param: delta > 0), as the
 * pointwise table's per-element losses in CPU's order of operations (mse
 * in the dtype; smooth_l1 and huber in the opmath type, rounded once),
 * then for mean and sum the reduction engine over the losses rounded to
 * the dtype. input and target share dtype (float32, float16, bfloat16;
 * float64 with the device's fp64: RS_ERR_UNSUPPORTED otherwise and for
 * other dtypes) and sizes (the caller broadcasts), any strides.
 * Forward: out has the input's sizes (reduction none) or one element.
 * Backward: grad_input (the input's sizes) = the loss's derivative times
 *   grad_out (the input's sizes, or one element for mean and sum) times
 *   the reduction's factor (1 / numel for mean; mse: 2, 2 / numel). */
typedef enum rs_regression_loss_kind {
    RS_LOSS_MSE = 0,
    RS_LOSS_SMOOTH_L1 = 1,
    RS_LOSS_HUBER = 2
} rs_regression_loss_kind;

typedef struct rs_regression_loss {
    rs_regression_loss_kind kind;
    int reduction;         /* 0 none, 1 mean, 2 sum */
    double param;          /* smooth_l1's beta, huber's delta */
    rs_tensor input, target;
    rs_tensor out;         /* forward */
    rs_tensor grad_out;    /* backward */
    rs_tensor grad_input;
} rs_regression_loss;

RS_API rs_status rs_regression_loss_forward(rs_stream *s, const rs_regression_loss *p);
RS_API rs_status rs_regression_loss_backward(rs_stream *s, const rs_regression_loss *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_LOSS_H */
