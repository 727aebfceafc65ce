/* fill.comp's parameters, written by src/engine/fill.c (README.md here). */
#ifndef RS_PARAMS_FILL_H
#define RS_PARAMS_FILL_H

#define RS_FILL_PUSH \
    uint64_t dst; \
    uint64_t params;    /* sizes, strides (ndim > 0) */ \
    uint64_t numel; \
    uint32_t ndim;      /* 0: contiguous */ \
    uint32_t pad; \
    uint32_t value[4];  /* the element's bytes, little-endian words */

#endif
