/* The GEMM parameter block (common/gemm_params.glsl declares it for the
 * kernels), written by src/engine/gemm.c and bench/gemm_probe.c into the
 * stream arena: it is larger than push constants (README.md here). */
#ifndef RS_PARAMS_GEMM_H
#define RS_PARAMS_GEMM_H

/* C = alpha * op(A) @ op(B) + beta * Cin, batched */
#define RS_GEMM_PARAMS \
    uint64_t a; \
    uint64_t b; \
    uint64_t c; \
    uint64_t cin;       /* GF_USE_CIN */ \
    int64_t m; \
    int64_t n; \
    int64_t k; \
    int64_t batch; \
    int64_t sa[3];      /* strides: batch, row, column */ \
    int64_t sb[3]; \
    int64_t sc[3]; \
    int64_t sci[3]; \
    uint64_t alpha[2];  /* the scalars' bits in the accumulate type (complex: two) */ \
    uint64_t beta[2]; \
    uint32_t flags;     /* GF_ below */ \
    uint32_t pad; \
    int64_t tiles_m; \
    int64_t tiles_n;

#define GF_USE_CIN 1u
#define GF_CONJ_A 2u
#define GF_CONJ_B 4u
#define GF_REDUCE 8u   /* one C: the batch's products added (reduce_batch) */

#endif
