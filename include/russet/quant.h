/* russet/quant.h: weight-only quantized matrix products, the int8 and int4
 * linear layers of quantized language models (src/engine/quant.c;
 * docs/low-precision.md).
 *
 * Not in russet.h's umbrella: the adapter's quantized ops and the C tests
 * include it. */
#ifndef RUSSET_QUANT_H
#define RUSSET_QUANT_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out (M, N) = x (M, K) @ W^T, W (N, K) held quantized:
 *   bits 8: w (N, K) int8, scales (N); out[m, n] = (sum_k x[m, k] w[n, k])
 *           * scales[n] (PyTorch's _weight_int8pack_mm);
 *   bits 4: w (N, K / 2) uint8, two weights 0..15 a byte, the even k in
 *           the high nibble; scales (K / group, N, 2), a (scale, zero) pair
 *           per group of `group` weights along K; W[n, k] = (q - 8) * scale
 *           + zero (PyTorch's _weight_int4pack_mm, tinygemm's arithmetic).
 * x, scales and out share one dtype: float32, float16 or bfloat16; any
 * strides (out must not overlap the inputs). Sums in float32, rounded once
 * to out's dtype, each output element written by one invocation (no
 * atomics). A few rows of x read W once per 4 rows (decoding); more rows
 * dequantize W into a scratch (N, K) in x's dtype (bits 4: rounded there
 * once) and run the GEMM engine with float32 sums. bits 4 needs an even
 * group dividing K. */
typedef struct rs_weight_qmm {
    rs_tensor x, w, scales, out;
    int bits;       /* 8 or 4 */
    int64_t group;  /* bits 4 */
} rs_weight_qmm;
RS_API rs_status rs_weight_qmm_run(rs_stream *s, const rs_weight_qmm *q);

/* Affine quantization, as PyTorch's quantized tensors (quint8, qint8,
 * qint32) and CPU's quantizer compute it:
 *   rs_quantize:   q = clamp(round_half_even(x * (1 / scale) + zero_point))
 *                  in float32 (rounded once for uint8/int8, as fbgemm's
 *                  fused multiply-add; twice for int32), to q's integer
 *                  range, as torch 2.13's CPU; with zero_point_after_round,
 *                  q = clamp(round_half_even(x * (1 / scale)) + zero_point)
 *                  (x * (1 / scale) rounded to float32), as torch 2.15's.
 *                  NaN gives the top of an 8-bit range and the bottom of
 *                  int32's, as CPU;
 *   rs_dequantize: x = (q - zero_point) * scale, the difference in 32-bit
 *                  integers (wrapping for int32, as CPU's); per tensor in
 *                  float32, per channel the product with the float64 scale
 *                  rounded once (CPU computes it in double).
 * x: float32, float16 or bfloat16; q: uint8, int8 or int32 (the quantized
 * dtypes' integers), of x's sizes; any strides. Per tensor (scales NULL:
 * scale, zero_point) or per channel along `axis` (scales float64 and
 * zero_points int64, (sizes[axis]) contiguous). */
typedef struct rs_affine_quant {
    rs_tensor x, q;
    double scale;
    int64_t zero_point;
    const rs_tensor *scales, *zero_points;
    int axis;
    int zero_point_after_round; /* rs_quantize: torch 2.15's rule (above), else 2.13's */
} rs_affine_quant;
RS_API rs_status rs_quantize(rs_stream *s, const rs_affine_quant *a);
RS_API rs_status rs_dequantize(rs_stream *s, const rs_affine_quant *a);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_QUANT_H */
