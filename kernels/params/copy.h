/* copy.comp's parameters, written by src/engine/copy.c (README.md here). */
#ifndef RS_PARAMS_COPY_H
#define RS_PARAMS_COPY_H

#define RS_COPY_PUSH \
    uint64_t dst; \
    uint64_t src; \
    uint64_t params;  /* sizes, dst strides, src strides (ndim > 0) */ \
    uint64_t numel; \
    uint32_t ndim;    /* 0: both contiguous */ \
    uint32_t pad;

#endif
