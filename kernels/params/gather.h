/* gather.comp's parameters, written by src/engine/gather.c (README.md here). */
#ifndef RS_PARAMS_GATHER_H
#define RS_PARAMS_GATHER_H

#define RS_GATHER_PUSH \
    uint64_t self_; \
    uint64_t other;     /* out (gather) or src (scatter) */ \
    uint64_t index; \
    uint64_t params;    /* sizes + strides of the three views (ndim > 0) */ \
    uint64_t numel; \
    int64_t dim_size; \
    int64_t dim_stride; \
    uint64_t err; \
    uint32_t value[4];  /* MODE 2: the element's bytes, little-endian words */ \
    uint32_t ndim; \
    uint32_t site;

/* index_linear.comp (rs_index_linearize): the int64 block at `params`
 * holds IL_* slots, out's sizes, then per index tensor IL_K_* slots and
 * its strides */
#define RS_INDEX_LINEAR_PUSH \
    uint64_t params; \
    uint64_t out_; \
    uint64_t numel;

#define IL_NDIM 0    /* out's dims */
#define IL_COUNT 1   /* index tensors */
#define IL_SIZES 2   /* out's sizes (IL_NDIM slots) */
#define IL_K_ADDR 0  /* per index tensor, from its block's start: address */
#define IL_K_I32 1   /* 1: int32 */
#define IL_K_N 2     /* the indexed dim's size */
#define IL_K_P 3     /* the product of the later indexed dims' sizes */
#define IL_K_STRIDES 4
#define IL_K_SLOTS(ndim) (4 + (ndim))

#endif
