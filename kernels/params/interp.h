/* interp.comp's parameters, written by src/engine/interp.c (README.md here). */
#ifndef RS_PARAMS_INTERP_H
#define RS_PARAMS_INTERP_H

#define RS_INTERP_PUSH \
    uint64_t src; \
    uint64_t dst; \
    uint64_t params;  /* the parameter block: IP_ slots of int64 */ \
    uint64_t rows;    /* int32 row_ptr, n_dest + 1 */ \
    uint64_t cols;    /* int32 source positions */ \
    uint64_t wts;     /* W_DT weights */ \
    uint64_t items;   /* dst's elements */

#define IP_DST 0      /* dst sizes (5) */
#define IP_SRC_ST 5   /* src strides (5) */
#define IP_DST_ST 10  /* dst strides (5) */
#define IP_DIM 15     /* the dim interpolated (2..4) */
#define IP_PREC 16    /* U8: the weights' fractional bits */
#define IP_SLOTS 17

#endif
