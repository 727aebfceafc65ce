/* russet/norm.h: the normalization engine (src/engine/norm.c). */
#ifndef RUSSET_NORM_H
#define RUSSET_NORM_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The normalization engine (src/engine/norm.c, kernels/norm.comp): four
 * building blocks from which the adapter composes layer_norm and
 * batch_norm, forward and backward, reading each tensor once per block.
 * Tensors (x, g, y) are float32, float16, bfloat16 or float64 (`dtype`);
 * the vectors (a, b, w, bias, s1, s2, out1, out2) and the arithmetic are in
 * the dtype's opmath type (float32, or float64 for float64, which needs
 * the device's fp64). An absent vector (address 0) reads as 0 (a, bias)
 * or 1 (b, w, scale).
 *
 * Reductions (STATS, SUMS) run over `rows` rows of K = outer * inner
 * elements of x (and g): element k of row r is at element offset
 * (k / inner) * outer_stride + r * row_stride + k % inner. Deterministic:
 * a fixed partition of each row into chunks, a fixed tree per chunk, the
 * chunks merged in order, no atomics.
 *   RS_NORM_STATS: out1[r] = mean, out2[r] = biased variance (Welford's
 *     updates, Chan's merges). With bn_train (batch norm's training
 *     forward, in the same kernel): out2[r] = invstd = 1 / sqrt(var + eps);
 *     run_mean[r] = keep run_mean[r] + momentum mean and run_var[r] = keep
 *     run_var[r] + momentum var K / (K - 1) (each where given; keep = 1 -
 *     momentum); alpha[r] = invstd w[r], beta[r] = bias[r] - mean alpha[r]
 *     (w, bias absent: 1, 0), APPLY's b and bias for y = x alpha + beta.
 *   RS_NORM_SUMS: out1[r] = sum of g w, out2[r] = sum of g w (x - a) b,
 *     where w is indexed by the element's k % inner, and a, b by r or, with
 *     stat_of_outer, by the element's k / inner.
 * Elementwise (APPLY, GRAD) over `numel` contiguous elements of x (g) into
 * y, with r = (e / row_div) % rows and c = (e / col_div) % cols:
 *   RS_NORM_APPLY: y = ((x - a[r]) * b[r]) * w[c] + bias[c]
 *   RS_NORM_GRAD:  y = (g w[c] - s1[r] inv_k - (x - a[r]) b[r] s2[r] inv_k)
 *                      * b[r] * scale[c]
 * Whole rows (layer norm and RMS norm), over `rows` contiguous rows of
 * `inner` elements, one kernel each; w and bias are indexed by the column:
 *   RS_NORM_ROW_FWD: with out1 given (layer norm), mean = the row's mean
 *     into out1[r], else (RMS norm) mean = 0; var = mean of (x - mean)^2;
 *     out2[r] = rstd = 1 / sqrt(var + eps);
 *     y = ((x - mean) * rstd) * w + bias.
 *   RS_NORM_ROW_BWD: with a (the mean) given, centred (layer norm), else
 *     not (RMS norm); b = rstd; xhat = (x - a) b; over the row
 *     s1 = sum g w (0 when not centred), s2 = sum g w xhat;
 *     y = (g w - s1 / K - xhat s2 / K) b, K = inner.
 *   RS_NORM_COL_SUMS: out1[c] = sum over rows of g, out2[c] = sum of
 *     g (x - a[r]) b[r] (the weight and bias gradients). */
/* Per channel, over `rows` channels:
 *   RS_NORM_BN_PARAMS: batch norm's transform for APPLY: invstd = b[r], or
 *     with bn_var (b holds the variance) 1 / sqrt(b[r] + eps); out1[r] =
 *     alpha = invstd w[r], out2[r] = beta = bias[r] - a[r] alpha (without
 *     bias: -(a[r] alpha)), each product rounded on its own. */
typedef enum rs_norm_op {
    RS_NORM_STATS = 0,
    RS_NORM_APPLY = 1,
    RS_NORM_SUMS = 2,
    RS_NORM_GRAD = 3,
    RS_NORM_ROW_FWD = 4,
    RS_NORM_ROW_BWD = 5,
    RS_NORM_COL_SUMS = 6,
    RS_NORM_BN_PARAMS = 7
} rs_norm_op;

typedef struct rs_norm {
    rs_norm_op op;
    rs_dtype dtype;
    uint64_t x, g, y;
    int64_t rows, outer, inner, row_stride, outer_stride;  /* reductions */
    int stat_of_outer;                                      /* SUMS */
    int64_t numel, row_div, col_div, cols;                  /* elementwise (rows too) */
    uint64_t a, b, w, bias, scale, s1, s2;                  /* vectors */
    double inv_k;                                           /* GRAD */
    double eps;                                             /* ROW_FWD, STATS with bn_train */
    uint64_t out1, out2;                                    /* reductions' results */
    int bn_train;                                           /* STATS: batch norm's training forward */
    double momentum;
    uint64_t run_mean, run_var, alpha, beta;                /* bn_train: vectors of `rows` */
    int bn_var;                                             /* BN_PARAMS: b is a variance */
} rs_norm;

RS_API rs_status rs_norm_run(rs_stream *s, const rs_norm *p);
/* 1 where the normalization engines (rs_norm, norm_layers.h) compute dtype
 * dt on this device (float16, bfloat16, float32; float64 with fp64), else
 * 0: the adapter's choice of host execution, made before it writes
 * anything. */
RS_API int rs_norm_computes(rs_device *dev, rs_dtype dt);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_NORM_H */
