/* triangle.comp's parameters, written by src/engine/triangle.c (README.md here). */
#ifndef RS_PARAMS_TRIANGLE_H
#define RS_PARAMS_TRIANGLE_H

#define RS_TRIANGLE_PUSH \
    uint64_t dst; \
    uint64_t src; \
    uint64_t params;    /* sizes, dst strides, src strides (ndim of each, uncoalesced) */ \
    uint64_t numel; \
    int64_t rows;       /* the matrices' sizes: the last two dims */ \
    int64_t cols; \
    int64_t diagonal;   /* kept: col - row <= diagonal (lower) or >= diagonal (upper) */ \
    int64_t mirror;     /* TRI_F_HERMITIAN: src's row stride minus its column stride */ \
    uint32_t ndim; \
    uint32_t flags;     /* TRI_F_ bits */

#define TRI_F_LOWER 1u     /* keep the lower triangle (else the upper) */
#define TRI_F_HERMITIAN 2u /* the rest: the conjugated mirror image; the diagonal real */

#endif
