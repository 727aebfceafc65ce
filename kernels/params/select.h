/* select.comp's and select_count.comp's parameters, written by
 * src/engine/select.c (README.md here). */
#ifndef RS_PARAMS_SELECT_H
#define RS_PARAMS_SELECT_H

#define RS_SELECT_PUSH \
    uint64_t src;      /* MODE 1: values; MODE 2, 4: src (or mask) */ \
    uint64_t aux;      /* MODE 1: boundaries; MODE 4: masked_select values */ \
    uint64_t sorter;   /* MODE 1 */ \
    uint64_t dst; \
    uint64_t nz;       /* MODE 2-4: block counts / offsets */ \
    uint64_t params;   /* MODE 4: int64 sizes[ndim] (SCATTER: then dst's strides[ndim]) */ \
    uint64_t numel;    /* MODE 1: values; MODE 2, 4: src elements; MODE 3: blocks */ \
    uint64_t nv;       /* MODE 1: values per row */ \
    uint64_t m;        /* MODE 1: boundaries per row; MODE 4: rows to write at most (SCATTER: source's elements) */ \
    uint32_t brows;    /* MODE 1 */ \
    uint32_t ndim;     /* MODE 4 */ \
    uint64_t err;      /* MODE 4 SCATTER: the device error flag */ \
    uint32_t site; \
    uint32_t pad_;

#define RS_SELECT_COUNT_PUSH \
    uint64_t src; \
    uint64_t aux;      /* MODE 1, 2: partials; MODE 3: weights; MODE 4: edges */ \
    uint64_t counts;   /* MODE 3, 4: uint32 counts (or float32 sums) */ \
    uint64_t numel;    /* src elements (MODE 2: partials) */ \
    uint32_t bins;     /* MODE 4 */ \
    uint32_t pad;

#endif
