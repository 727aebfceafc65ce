/* arange.comp's and linspace.comp's parameters, written by
 * src/engine/range.c (README.md here). */
#ifndef RS_PARAMS_RANGE_H
#define RS_PARAMS_RANGE_H

/* arange: dst[i] = a + i * b, a and b in the form MODE says */
#define RS_ARANGE_PUSH \
    uint64_t dst; \
    uint64_t params;  /* dst's sizes, strides (ndim > 0) */ \
    uint64_t numel; \
    uint64_t a;       /* start */ \
    uint64_t b;       /* step */ \
    uint32_t ndim; \
    uint32_t pad;

/* arange's MODE: how a and b are held, and the arithmetic */
#define AR_INT 0     /* int64 (integer dtypes: truncated on the host) */
#define AR_FLOAT 1   /* float bits (fp16, bf16, fp8: CPU accumulates in float) */
#define AR_DOUBLE 2  /* double bits, native fp64 */
#define AR_FLOAT2 3  /* double as a float pair (hi | lo << 32), no fp64 */

/* linspace and logspace: a start, b end, c step (int64, float or double
 * bits by MODE); d the logspace base, e its log (log2 for float, ln for
 * double) */
#define RS_LINSPACE_PUSH \
    uint64_t dst; \
    uint64_t params; \
    uint64_t numel; \
    uint64_t a; \
    uint64_t b; \
    uint64_t c; \
    uint64_t d; \
    uint64_t e; \
    uint32_t ndim; \
    uint32_t pad;

/* linspace's MODE */
#define LS_FLOAT 0   /* each operation rounded to the dtype (complex64 as float) */
#define LS_FLOAT_ONCE 1  /* float16/bfloat16 linspace in float, rounded once (torch 2.15's CPU) */
#define LS_DOUBLE 2  /* native fp64 */
#define LS_INT 4     /* int64: integer dtypes whose step is an integer (exact) */

#endif
