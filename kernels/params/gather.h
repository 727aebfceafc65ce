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

#endif
