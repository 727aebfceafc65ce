/* russet/margin_loss.h: multi_margin_loss and multilabel_margin_loss
 * (nn.MultiMarginLoss, nn.MultiLabelMarginLoss; src/engine/margin_loss.c). */
#ifndef RUSSET_MARGIN_LOSS_H
#define RUSSET_MARGIN_LOSS_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU's kernels (LossMultiMargin.cpp, LossMultiLabelMargin.cpp), bit for
 * bit: a row an invocation, in CPU's order and the input's dtype; the
 * multilabel row sums (then rounded to it) and reduced totals are kept in
 * CPU's accumulate type (double; a float-float pair of about 48 bits on a
 * device without float64 arithmetic, which rounds to the same float32 but
 * where the double sum lies within 2^-48 of a rounding boundary).
 *
 * input (N, C) float32, or float64 on a device with float64 arithmetic;
 * any strides. target int64: (N) class indices for MULTI, (N, C) label
 * lists for MULTILABEL (a row's labels are its entries before its first
 * -1). reduction as ATen's: 0 none, 1 mean, 2 sum.
 *
 * rs_margin_loss_forward:
 *   MULTI: row i's loss = sum over d != t of h(margin - x[i, t] + x[i, d])
 *     where that is > 0, h(z) = z (p 1) or z * z (p 2), times weight[t]
 *     (where given), divided by C; t = target[i].
 *   MULTILABEL: is_target (N, C, input's dtype) = 1 at the row's labels,
 *     0 elsewhere; row i's loss = the sum over its labels t and the
 *     columns d that are not labels of 1 - x[i, t] + x[i, d] where > 0,
 *     divided by C.
 *   out: (N) the rows' losses (none), or 1 element: their sum, divided by
 *   N for a mean.
 * rs_margin_loss_backward: out = grad_input (N, C) from grad (grad_output:
 *   (N) per row, or one element for every row); MULTILABEL reads is_target
 *   (the forward's).
 * Bad targets raise the device error flag, reported at the next sync:
 * code 9 "target out of range" (MULTI, a target outside [0, C)), code 10
 * "argument #k 'target' is out of range" (MULTILABEL, an entry outside
 * [-1, C); k 2 forward, 3 backward) or "argument #5 'is_target'" (an
 * is_target outside [0, 1]); that row's results are not written. */
typedef enum rs_margin_kind { RS_MARGIN_MULTI = 0, RS_MARGIN_MULTILABEL = 1 } rs_margin_kind;

typedef struct rs_margin_loss {
    rs_margin_kind kind;
    int p;            /* MULTI: 1 or 2 */
    double margin;    /* MULTI */
    int reduction;    /* 0 none, 1 mean, 2 sum */
    rs_tensor input;  /* (N, C) */
    rs_tensor target; /* (N) MULTI, (N, C) MULTILABEL, int64 */
    rs_tensor weight; /* MULTI: (C) of input's dtype; address 0: none */
    rs_tensor is_target; /* MULTILABEL: (N, C) of input's dtype */
    rs_tensor grad;   /* backward: (N) or (1) */
    rs_tensor out;    /* forward: (N) or (1); backward: (N, C) */
} rs_margin_loss;

RS_API rs_status rs_margin_loss_forward(rs_stream *s, const rs_margin_loss *p);
RS_API rs_status rs_margin_loss_backward(rs_stream *s, const rs_margin_loss *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_MARGIN_LOSS_H */
