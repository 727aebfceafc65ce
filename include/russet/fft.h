/* russet/fft.h: power-of-two discrete Fourier transforms (src/engine/fft.c). */
#ifndef RUSSET_FFT_H
#define RUSSET_FFT_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rs_fft: in-order discrete Fourier transforms of `rows` contiguous rows of
 * n complex64 or complex128 values each (`dtype`; complex128 only with the
 * device's fp64, RS_ERR_UNSUPPORTED otherwise), n a power of two (1 to 2^30):
 * out[r, k] = sum_j in[r, j] e^(-2 pi i j k / n), with +2 pi i for inverse
 * (no scaling). out must not be in. Radix-2 Stockham passes
 * (kernels/fft.comp); twiddles computed on the host in double. */
typedef struct rs_fft_desc {
    uint64_t in, out;
    int64_t rows, n;
    int inverse;
    rs_dtype dtype; /* RS_COMPLEX64 or RS_COMPLEX128 */
} rs_fft_desc;
RS_API rs_status rs_fft(rs_stream *s, const rs_fft_desc *d);

/* rs_fft_nd: the transforms every torch.fft function reduces to (ATen's
 * _fft_c2c, _fft_r2c, _fft_c2r; src/engine/fft_nd.c), over `ndims` dims
 * of `in` in turn, each a 1-D transform of its lines: the dim made last
 * and contiguous in scratch; power-of-two lengths by rs_fft, other lengths
 * up to 512 by a product with the DFT matrix (complex64: W = W_hi + W_lo,
 * two float32 parts, so W is carried to ~2^-48) on the GEMM engine, longer ones by
 * Bluestein's chirp-z transform (two power-of-two transforms of length M
 * >= 2n - 1 and complex products). The DFT matrices and chirps are made on
 * the host in double (jk mod n, j^2 mod 2n) once per device, length and
 * direction (rs_device_table). Then the scaling: normalization 0 none, 1
 * by 1 / sqrt(N), 2 by 1 / N, N the product of the transformed lengths.
 * complex64 and float32 as below, or, only with the device's fp64
 * (RS_ERR_UNSUPPORTED otherwise), complex128 and float64 in their places.
 *   RS_FFT_C2C: in and out complex64 of one shape; inverse: e^(+2 pi i ..).
 *     No dims: out = in.
 *   RS_FFT_R2C: in float32, out complex64 of in's shape or, onesided, with
 *     the last transformed dim cut to n / 2 + 1 (forward).
 *   RS_FFT_C2R: in complex64, out float32: the dims but the last inverse-
 *     transformed, then the last extended to out's length L from its first
 *     L / 2 + 1 values (zero-padded where in has fewer) by Hermitian
 *     symmetry (X[L - k] = conj(X[k])), inverse-transformed, and its real
 *     part (the imaginary parts of X[0] and X[L / 2] drop out, as in CPU's
 *     pocketfft); N counts L.
 * in and out: any strides; out must not overlap in. dims: distinct, in
 * [0, ndim). */
typedef enum rs_fft_kind { RS_FFT_C2C = 0, RS_FFT_R2C = 1, RS_FFT_C2R = 2 } rs_fft_kind;

typedef struct rs_fft_nd_desc {
    rs_fft_kind kind;
    rs_tensor in, out;
    int ndims;
    int dims[RS_MAX_DIMS];
    int inverse;        /* C2C */
    int normalization;  /* 0, 1, 2 */
    int onesided;       /* R2C */
} rs_fft_nd_desc;
RS_API rs_status rs_fft_nd(rs_stream *s, const rs_fft_nd_desc *d);

/* rs_fft_nd_layout: the strides (elements) that CPU's MKL path and cuFFT
 * give the result of the transform `d` describes (from d's kind, dims,
 * in's sizes and strides, out's sizes; out's strides unread): the dims not
 * transformed outermost, by in's strides, then the transformed ones, dense.
 * torch.fft's results on russet take them, so their strides match CPU's. */
RS_API void rs_fft_nd_layout(const rs_fft_nd_desc *d, int64_t *strides);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_FFT_H */
