/* reduce.comp's parameters, written by src/engine/reduce.c (README.md here). */
#ifndef RS_PARAMS_REDUCE_H
#define RS_PARAMS_REDUCE_H

#define RS_REDUCE_PUSH \
    uint64_t in_; \
    uint64_t out_; \
    uint64_t out2_;    /* the second output (indices, or mean beside var) */ \
    uint64_t tmp;      /* nsplit > 1: the chunks' states */ \
    uint64_t kparams;  /* kept layout: sizes, strides of in, out, out2 */ \
    uint64_t rparams;  /* reduced layout: sizes, strides of in */ \
    uint64_t nout; \
    uint64_t nred; \
    uint64_t chunk; \
    uint64_t p;        /* norm order: float bits (double bits with a double state) */ \
    uint64_t corr;     /* correction, likewise */ \
    uint64_t err; \
    uint32_t kndim; \
    uint32_t rndim; \
    uint32_t tpo;      /* invocations per output */ \
    uint32_t nsplit; \
    uint32_t site;

#endif
