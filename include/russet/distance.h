/* russet/distance.h: pairwise p-norm distances, torch.cdist's and
 * torch.pdist's kernels (src/engine/distance.c, kernels/distance.comp), in
 * the cases and formulas of ATen's CPU kernels. float32, and float64 where
 * the device has float64 arithmetic (RS_ERR_UNSUPPORTED otherwise). Views
 * of any strides; nothing waits. */
#ifndef RUSSET_DISTANCE_H
#define RUSSET_DISTANCE_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dist (B, n, m) = the p-norm of x1[b, i, :] - x2[b, j, :] for x1 (B, n, c),
 * x2 (B, m, c): p = 0 counts the nonzero differences, p = inf takes the
 * largest; p >= 0. */
RS_API rs_status rs_cdist_forward(rs_stream *s, const rs_tensor *x1, const rs_tensor *x2, double p,
                                  const rs_tensor *dist);
/* grad_x1 (B, n, c) = sum over j of grad[b, i, j] times the derivative of
 * dist[b, i, j] (rs_cdist_forward's result) by x1[b, i, k], CPU's formula
 * for each p (0 where the distance is 0; p = 0 gives zeros). */
RS_API rs_status rs_cdist_backward(rs_stream *s, const rs_tensor *grad, const rs_tensor *x1, const rs_tensor *x2,
                                   double p, const rs_tensor *dist, const rs_tensor *grad_x1);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_DISTANCE_H */
