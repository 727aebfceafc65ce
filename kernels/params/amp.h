/* amp.comp's parameters, written by src/engine/amp.c (README.md here). */
#ifndef RS_PARAMS_AMP_H
#define RS_PARAMS_AMP_H

#define RS_AMP_PUSH \
    uint64_t g;           /* MODE 0: the gradient */ \
    uint64_t params;      /* MODE 0: its sizes and strides (ndim > 0) */ \
    uint64_t numel; \
    uint64_t found_inf;   /* float32 */ \
    uint64_t inv_scale;   /* MODE 0: float32 */ \
    uint64_t scale;       /* MODE 1: float32 */ \
    uint64_t tracker;     /* MODE 1: int32 */ \
    int64_t interval;     /* MODE 1: growth_interval */ \
    uint64_t factor[2];   /* MODE 1: growth, backoff: the doubles' bits */ \
    uint32_t ndim; \
    uint32_t pad_;

#endif
