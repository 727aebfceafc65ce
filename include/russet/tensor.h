/* russet/tensor.h: strided views of device memory (rs_tensor), scalar values, and the
 * simplest engines: copy, fill, matrix triangles, random fills, ranges
 * (src/engine/copy.c, fill.c, triangle.c, rng.c, range.c). */
#ifndef RUSSET_TENSOR_H
#define RUSSET_TENSOR_H

#include "russet/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- tensors */

#define RS_MAX_DIMS 25

/* A strided view of device memory. `address` points at element 0 (storage
 * offset already applied); strides are in elements and may be 0 or
 * negative. */
typedef struct rs_tensor {
    uint64_t address;
    rs_dtype dtype;
    int ndim;
    int64_t sizes[RS_MAX_DIMS];
    int64_t strides[RS_MAX_DIMS];
} rs_tensor;

RS_API int64_t rs_tensor_numel(const rs_tensor *t);
RS_API int rs_tensor_is_contiguous(const rs_tensor *t);
/* Byte range [*lo, *hi) that the view touches (for hazard tracking). */
RS_API void rs_tensor_extent(const rs_tensor *t, uint64_t *lo, uint64_t *hi);

/* dst[i] = (dst dtype) src[i]; same sizes, any dtypes and strides.
 * Conversions follow PyTorch's CPU casts. Fails with RS_ERR_UNSUPPORTED when
 * a conversion needs fp64 and the device lacks it (the caller then runs it on
 * the host). Overlap between dst and src is the caller's problem. */
RS_API rs_status rs_copy(rs_stream *s, const rs_tensor *dst, const rs_tensor *src);

/* Every element of dst = the element whose bytes are `value`
 * (rs_dtype_size(dst->dtype) bytes, already encoded by the caller). */
RS_API rs_status rs_fill(rs_stream *s, const rs_tensor *dst, const void *value);

/* dst = the lower (col - row <= diagonal) or upper (col - row >= diagonal)
 * triangle of src's matrices, the rest zero (tril, triu); or, with
 * hermitian (square matrices, diagonal 0), the rest the conjugate of the
 * element mirrored over the diagonal and the diagonal's imaginary part
 * zero: the Hermitian matrix a triangle stands for. The matrices are the
 * last two dims of views of 2 dims or more, same sizes and dtype, any
 * strides; dst may be src itself except with hermitian. Any dtype: values
 * move as bits (src/engine/triangle.c). */
RS_API rs_status rs_triangle(rs_stream *s, const rs_tensor *src, int lower, int64_t diagonal, int hermitian,
                             const rs_tensor *dst);

/* Floating and integer dtypes: dst[i] = start + i * step, computed as PyTorch
 * computes arange (in the dtype's accumulate type). */
RS_API rs_status rs_arange(rs_stream *s, const rs_tensor *dst, double start, double step);
/* dst[i] = linspace(start, end, n) as PyTorch's CPU computes it; with
 * log_base > 0, dst[i] = log_base ** that (logspace). */
RS_API rs_status rs_linspace(rs_stream *s, const rs_tensor *dst, double start, double end,
                             double log_base);


typedef union rs_scalar {
    uint64_t u;
    int64_t i;
    double d;
    float f;
    struct { float re, im; } cf;
} rs_scalar;

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_TENSOR_H */
