/* quant.comp's parameters, written by src/engine/quant.c (README.md here). */
#ifndef RS_PARAMS_QUANT_H
#define RS_PARAMS_QUANT_H

#define RS_QUANT_PUSH \
    uint64_t x;          /* (M, K) activations */ \
    uint64_t w;          /* bits 8: (N, K) int8; bits 4: (N, K / 2) bytes */ \
    uint64_t scales;     /* bits 8: (N); bits 4: (K / G, N, 2) scale and zero */ \
    uint64_t out_;       /* GEMV, SCALE: (M, N); DEQUANT: (N, K) contiguous */ \
    uint64_t c;          /* SCALE: the float32 product (M, N), contiguous */ \
    uint64_t params;     /* QM_ slots of int64 */

/* modes */
#define QM_GEMV 0        /* out = x @ dequant(w).T, a workgroup a tile of MT rows and (RS_WG / LANES) * NR columns */
#define QM_DEQUANT 1     /* out (N, K) = dequant(w) in x's dtype (bits 8: the integers, unscaled) */
#define QM_SCALE 2       /* out = round(c * scales[n]) (bits 8) or round(c) (bits 4) */
#define QM_QUANTIZE 3    /* out_ (integers) = quantized x, per tensor or per channel */
#define QM_DEQUANTIZE 4  /* out_ (floats) = dequantized w */

/* the GEMV tile's default shape (quant.c passes the chosen one to the
 * kernel as the defines LANES, NR and MT): a workgroup's RS_WG invocations
 * in groups of LANES along K, each group NR rows of W (output columns), the
 * tile MT rows of x */
#define QM_LANES 32
#define QM_NR 1
#define QM_MT 4

#define QM_M 0
#define QM_N 1
#define QM_K 2
#define QM_G 3           /* bits 4: weights per (scale, zero) along K */
#define QM_XS 4          /* x's 2 strides */
#define QM_WS 6          /* w's 2 strides (bytes for bits 4: row, 1) */
#define QM_SS 8          /* scales' strides: bits 8 one, bits 4 three */
#define QM_OS 11         /* out's 2 strides */
/* QUANTIZE / DEQUANTIZE: x (floats) and w (integers) elementwise, of one
 * shape; per channel, scales (float64) and c (int64 zero points) along
 * QM_AXIS */
#define QM_ND 13         /* dims */
#define QM_AXIS 14       /* the channel dim, -1 per tensor */
#define QM_ZP 15         /* per tensor: the zero point */
#define QM_INV 16        /* per tensor: float32 bits of 1 / scale (quantize), of scale (dequantize) */
#define QM_QMIN 17       /* the integer type's range */
#define QM_QMAX 18
#define QM_MAXD 25       /* RS_MAX_DIMS */
#define QM_SIZES 19      /* QM_ND sizes, then x's strides, then w's, QM_MAXD apart */
#define QM_SLOTS (QM_SIZES + 3 * QM_MAXD)

#endif
