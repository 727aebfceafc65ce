/* pointwise.comp's parameters, written by src/engine/pointwise.c (README.md here). */
#ifndef RS_PARAMS_POINTWISE_H
#define RS_PARAMS_POINTWISE_H

#define RS_POINTWISE_PUSH \
    uint64_t out_; \
    uint64_t in_[4];   /* addresses, or scalar bits for scalar inputs (RS_PW_MAX_INPUTS) */ \
    uint64_t params;   /* sizes + strides of the views (ndim > 0) */ \
    uint64_t numel; \
    uint64_t s[4];     /* scalar bits, in the opmath type of CT_DT */ \
    uint64_t err;      /* the device error flag */ \
    uint32_t ndim;     /* 0: every view contiguous */ \
    uint32_t site;     /* this op's error site */

#endif
