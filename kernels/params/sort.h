/* sort.comp's and sort_radix.comp's parameters, written by
 * src/engine/sort.c (README.md here). */
#ifndef RS_PARAMS_SORT_H
#define RS_PARAMS_SORT_H

/* the bitonic sort of rows padded to P = 2^logp */
#define RS_SORT_PUSH \
    uint64_t src;      /* input, contiguous [rows, n] */ \
    uint64_t keys;     /* scratch keys [rows * P] */ \
    uint64_t idx;      /* scratch uint32 indices [rows * P] */ \
    uint64_t values;   /* MODE 4/5 output values */ \
    uint64_t indices;  /* MODE 4/5 output int64 indices */ \
    uint32_t total;    /* rows * P */ \
    uint32_t logp;     /* log2(P) */ \
    uint32_t n;        /* row length */ \
    uint32_t k;        /* stage (MODE 2, 3); kout (MODE 4); k (MODE 5) */ \
    uint32_t j;        /* step (MODE 2) */ \
    uint32_t rows; \
    uint32_t rstride;  /* MODE 4, 5: row stride of the scratch pairs (P, or n after a radix sort) */ \
    uint32_t pad;

/* the radix sort's passes, 4 bits each */
#define RS_SORT_RADIX_PUSH \
    uint64_t src; \
    uint64_t keys;      /* in (not read in the first pass) */ \
    uint64_t idx;       /* in (not read in the first pass) */ \
    uint64_t keys_out; \
    uint64_t idx_out; \
    uint64_t hist;      /* uint32 [rows, 16, nb] */ \
    uint64_t incl;      /* int64 [rows, 16, nb], inclusive scan of hist per row */ \
    uint64_t values;    /* MODE 3, last pass of a full sort: the values [rows, n] (0: none) */ \
    uint64_t indices;   /* ... and the int64 indices [rows, n] (0: none) */ \
    uint64_t err;       /* the device error flag (rs_device_error_address) */ \
    uint32_t n; \
    uint32_t rows; \
    uint32_t nb; \
    uint32_t shift; \
    uint32_t site; \
    uint32_t pad;

#endif
