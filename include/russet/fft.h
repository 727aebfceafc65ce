/* russet/fft.h: power-of-two discrete Fourier transforms (src/engine/fft.c). */
#ifndef RUSSET_FFT_H
#define RUSSET_FFT_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rs_fft: in-order discrete Fourier transforms of `rows` contiguous rows of
 * n complex64 values each, n a power of two (1 to 2^30):
 * out[r, k] = sum_j in[r, j] e^(-2 pi i j k / n), with +2 pi i for inverse
 * (no scaling). out must not be in. Radix-2 Stockham passes
 * (kernels/fft.comp); twiddles computed on the host in double. */
typedef struct rs_fft_desc {
    uint64_t in, out;
    int64_t rows, n;
    int inverse;
} rs_fft_desc;
RS_API rs_status rs_fft(rs_stream *s, const rs_fft_desc *d);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_FFT_H */
