/* pool.comp's parameters, written by src/engine/pool.c (README.md here). */
#ifndef RS_PARAMS_POOL_H
#define RS_PARAMS_POOL_H

#define RS_POOL_PUSH \
    uint64_t src;     /* forward: input; backward: grad_output */ \
    uint64_t dst;     /* forward: output; backward: grad_input */ \
    uint64_t idx;     /* max: indices (int64) */ \
    uint64_t params;  /* the parameter block: PP_ slots of int64 */ \
    uint64_t items;   /* dst's elements */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t cl;      /* 1: items run channels fastest (dst is channels_last) */

#define PP_N 0
#define PP_C 1
#define PP_IN 2        /* 3 slots each: d, h, w */
#define PP_OUT 5
#define PP_KERNEL 8
#define PP_STRIDE 11
#define PP_PAD 14
#define PP_DIL 17
#define PP_DIVISOR 20  /* divisor_override, 0 for none */
#define PP_INCL_PAD 21
#define PP_SRC_ST 22   /* 5 slots each: n, c, d, h, w */
#define PP_DST_ST 27
#define PP_IDX_ST 32
#define PP_STR_MAGIC 37 /* 3 slots: the strides' rs_fastdiv magic pairs */
#define PP_SZ_MAGIC 40  /* 5 slots: the magic pairs of the item space's sizes (n, c, d, h, w) */
/* fractional windows (ADAPTIVE 2) */
#define PP_FR_SAMPLES 45 /* the samples' address: (N, C, dims) of DT */
#define PP_FR_ST 46      /* 3 slots: their strides (n, c, k) */
#define PP_FR_MAP 49     /* 3 slots: spatial dim d, h, w -> its sample k, -1 for none */
#define PP_FR_ALPHA 52   /* 3 slots: alpha per dim, DT's value as float (double for float64) bits */
#define PP_SLOTS 55

#endif
