/* russet/norm_layers.h: batch norm, group norm, layer norm and RMS norm,
 * forward and backward (src/engine/norm_layers.c), each one call composed
 * of the normalization engine's passes (russet/norm.h) in CPU's order and
 * dtypes. */
#ifndef RUSSET_NORM_LAYERS_H
#define RUSSET_NORM_LAYERS_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Common rules. x is float32, float16, bfloat16 or float64 (float64 needs
 * the device's fp64 arithmetic: RS_ERR_UNSUPPORTED without it, and for
 * what the engine leaves to the host: see each function). Statistics and
 * arithmetic are in x's opmath type (float32 for float16/bfloat16). The
 * per-channel vectors (weight, bias, running statistics) are 1-D views of
 * C elements, any stride, of x's dtype or, beside a float16/bfloat16 x,
 * float32 (CPU's "mixed" parameters); address 0: absent. An output of
 * address 0 is not wanted. Vectors the engine needs in the opmath type are
 * converted into scratch memory freed in stream order. */

/* Batch norm over x (N, C, *): the channels are C; x, y, grad_out and
 * grad_input share one dense layout, NCHW-contiguous or channels-last
 * (C stride 1).
 *
 * rs_batch_norm_forward: y = x alpha + beta per channel.
 *   training: mean and biased variance of each channel (at least 2
 *     elements a channel); save_mean = the mean and save_invstd =
 *     1 / sqrt(var + eps), both rounded to their dtype (the parameters'
 *     dtype, weight's or x's); alpha = invstd weight, beta = bias - mean
 *     alpha from those rounded values; running_mean and running_var become
 *     (1 - momentum) run + momentum stat (the variance unbiased, K / (K -
 *     1)), rounded once to their dtype. For bfloat16 statistics CPU's
 *     bfloat16 kernel is followed: the sum of squares and the variance
 *     rounded to bfloat16, the update in bfloat16 arithmetic.
 *   evaluation: alpha and beta from running_mean and running_var (both
 *     required), invstd = 1 / sqrt(running_var + eps); save_* not written.
 * rs_batch_norm_backward: from grad_out, and the statistics save_mean and
 *   save_invstd (training) or running_mean and running_var (evaluation):
 *   grad_input = (g - mean(g) - xhat mean(g xhat)) invstd weight
 *   (training) or g invstd weight; grad_weight = sum of g xhat, grad_bias =
 *   sum of g, over each channel, rounded to their dtype.
 * An empty x is RS_ERR_UNSUPPORTED (CPU's rules for empty batches). */
typedef struct rs_batch_norm {
    rs_tensor x;                           /* (N, C, *) */
    rs_tensor weight, bias;                /* (C) */
    rs_tensor running_mean, running_var;   /* (C) */
    int training;
    double momentum, eps;
    rs_tensor y;                           /* forward */
    rs_tensor save_mean, save_invstd;      /* (C): forward output (training), backward input */
    rs_tensor grad_out;                    /* backward */
    rs_tensor grad_input, grad_weight, grad_bias;
} rs_batch_norm;

RS_API rs_status rs_batch_norm_forward(rs_stream *s, const rs_batch_norm *p);
RS_API rs_status rs_batch_norm_backward(rs_stream *s, const rs_batch_norm *p);

/* Group norm over contiguous x (N, C, *) with `groups` groups of C /
 * groups channels: statistics over each (n, group), K = C / groups * HxW
 * elements.
 * rs_group_norm_forward: y = ((x - mean) rstd) weight + bias, rounded once
 *   (CPU's kernel); mean and rstd = 1 / sqrt(var + eps) (biased variance)
 *   into (N, groups) views of x's dtype or, with mixed parameters,
 *   float32.
 * rs_group_norm_backward: from grad_out (contiguous, as x) and the
 *   forward's mean and rstd: grad_input = rstd (g w - mean(g w) - xhat
 *   mean(g w xhat)) over each group, grad_weight = sum over N and HxW of
 *   g xhat, grad_bias = sum of g, per channel.
 * Groups of no elements (K = 0) are RS_ERR_UNSUPPORTED (CPU's rules). */
typedef struct rs_group_norm {
    rs_tensor x;                           /* (N, C, *), contiguous */
    int64_t groups;
    double eps;
    rs_tensor weight, bias;                /* (C) */
    rs_tensor y;                           /* forward */
    rs_tensor mean, rstd;                  /* (N, groups): forward output, backward input */
    rs_tensor grad_out;                    /* backward */
    rs_tensor grad_input, grad_weight, grad_bias;
} rs_group_norm;

RS_API rs_status rs_group_norm_forward(rs_stream *s, const rs_group_norm *p);
RS_API rs_status rs_group_norm_backward(rs_stream *s, const rs_group_norm *p);

/* Layer norm (centred) and RMS norm (rms: uncentred, no bias) over the
 * rows of contiguous x (M, N): the normalized dims flattened into N.
 * rs_layer_norm_forward: y = ((x - mean) rstd) weight + bias, a row at a
 *   time (mean 0 for RMS norm), rstd = 1 / sqrt(var + eps) (biased
 *   variance; RMS norm: the mean of x^2); mean (layer norm) and rstd into
 *   (M) vectors of any floating dtype, rounded from the opmath type.
 * rs_layer_norm_backward: from grad_out and the forward's mean (layer
 *   norm) and rstd: grad_input = rstd (g w - mean(g w) [centred] - xhat
 *   mean(g w xhat)) a row, grad_weight = the column sums of g xhat,
 *   grad_bias = those of g (zeros for M = 0), each optional.
 * weight, bias and the gradients of them are N-element vectors (any one
 * stride). Rows of no elements (N = 0) are RS_ERR_UNSUPPORTED (CPU's
 * statistics of nothing). */
typedef struct rs_layer_norm {
    rs_tensor x;                           /* (M, N), contiguous */
    int rms;
    double eps;
    rs_tensor weight, bias;                /* (N) */
    rs_tensor y;                           /* forward: (M, N), contiguous */
    rs_tensor mean, rstd;                  /* (M): forward outputs, backward inputs */
    rs_tensor grad_out;                    /* backward: (M, N), contiguous */
    rs_tensor grad_input, grad_weight, grad_bias;
} rs_layer_norm;

RS_API rs_status rs_layer_norm_forward(rs_stream *s, const rs_layer_norm *p);
RS_API rs_status rs_layer_norm_backward(rs_stream *s, const rs_layer_norm *p);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_NORM_LAYERS_H */
