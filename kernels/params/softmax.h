/* softmax.comp's parameters, written by src/engine/softmax.c (README.md here). */
#ifndef RS_PARAMS_SOFTMAX_H
#define RS_PARAMS_SOFTMAX_H

#define RS_SOFTMAX_PUSH \
    uint64_t a; \
    uint64_t b; \
    uint64_t out_; \
    uint64_t outer; \
    uint64_t n; \
    uint64_t inner; \
    uint64_t err;   /* the device error flag */ \
    uint32_t tpo;   /* invocations per row */ \
    uint32_t site;  /* this op's error site */

#endif
