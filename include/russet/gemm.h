/* russet/gemm.h: matrix products and the cross product (src/engine/gemm.c). */
#ifndef RUSSET_GEMM_H
#define RUSSET_GEMM_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- matrix products */
/* (src/engine/gemm.c)
 *
 * rs_gemm: for each output batch z,
 *     C[z] = beta * Cin[z] + alpha * sum_r op(A[z|r]) @ op(B[z|r])
 * A is (batch, m, k), B (batch, k, n), C and Cin (batch, m, n): every operand
 * is given by its address and three strides in elements (batch, row, column),
 * any of which may be 0 (broadcast) or arbitrary, so transposed, strided and
 * expanded operands are read in place. op() is the complex conjugate where
 * conj_a / conj_b is set (PyTorch's conj views, vdot). With reduce_batch the
 * batch dimension is summed (addbmm): C is one (m, n) matrix and its batch
 * stride is ignored. With beta == 0 (use_cin = 0) Cin is not read, so NaN
 * in it does not propagate (PyTorch's rule).
 * All four operands have one dtype, except that with c_float32 the
 * float16/bfloat16 product's C and Cin are float32 (its float32
 * accumulator stored unrounded: attention's score blocks). Accumulation: float32 for
 * float32/float16/bfloat16, int64 (wrapping) for integers (the result is then
 * the same bits as CPU's wrapping arithmetic in the dtype), and/or for bool,
 * complex64 for complex64, float64/complex128 (only with has_fp64:
 * RS_ERR_UNSUPPORTED otherwise). alpha and beta are scalars in that
 * accumulation type (rs_scalar as in the pointwise engine: .f for the
 * float32 family, .i for integers and bool, .d for float64, .cf for
 * complex64; complex128 uses [0].d and [1].d).
 * Kernels (kernels/gemm.comp): a shared-memory tiled kernel with tile sizes
 * per shape class, a one-workgroup-per-output kernel for matrix-vector and
 * dot shapes, and, where the device has cooperative matrices (never under
 * the apple profile), a cooperative-matrix kernel for float16
 * (kernels/gemm_coopmat.comp). */
typedef struct rs_gemm_operand {
    uint64_t address;
    int64_t stride[3];   /* batch, row, column; in elements */
} rs_gemm_operand;

typedef struct rs_gemm_desc {
    rs_dtype dtype;
    int64_t batch, m, n, k;
    rs_gemm_operand a, b, c, cin;
    rs_scalar alpha[2], beta[2];
    int use_cin;         /* 0: C = alpha * A @ B (Cin ignored) */
    int conj_a, conj_b;
    int reduce_batch;    /* sum over the batch into one (m, n) C */
    int c_float32;       /* float16/bfloat16 A and B only: C and Cin are float32 */
} rs_gemm_desc;

RS_API rs_status rs_gemm(rs_stream *s, const rs_gemm_desc *d);
/* Which kernel rs_gemm would pick ("tiled-128x128", "dot", "coopmat", ...),
 * for tests and benchmarks. */
RS_API const char *rs_gemm_kernel_name(rs_stream *s, const rs_gemm_desc *d);

/* out = cross(a, b) along `dim` (of size 3); a, b and out have one shape
 * (broadcasting applied as 0 strides) and one dtype. Built on the pointwise
 * engine: one launch per component. */
RS_API rs_status rs_cross(rs_stream *s, const rs_tensor *out, const rs_tensor *a,
                          const rs_tensor *b, int dim);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_GEMM_H */
