/* fused_adam.comp's and fused_adagrad.comp's parameters, written by
 * src/engine/optim.c (README.md here). */
#ifndef RS_PARAMS_OPTIM_H
#define RS_PARAMS_OPTIM_H

#define RS_ADAM_PUSH \
    uint64_t p; \
    uint64_t g; \
    uint64_t m; \
    uint64_t v; \
    uint64_t vmax; \
    uint64_t step; \
    uint64_t scale;  /* grad_scale (SCALE) */ \
    uint64_t found;  /* found_inf (FOUND) */ \
    uint64_t numel; \
    uint64_t err; \
    float lr; \
    float c1;        /* 1 - beta1 */ \
    float beta2; \
    float c2;        /* 1 - beta2 */ \
    float wd; \
    float eps; \
    float lb1;       /* log(beta1), for the bias corrections */ \
    float lb2; \
    float decay;     /* AdamW: 1 - lr * weight_decay */ \
    uint32_t site;

#define RS_ADAGRAD_PUSH \
    uint64_t p; \
    uint64_t g; \
    uint64_t sum; \
    uint64_t step; \
    uint64_t scale; \
    uint64_t found; \
    uint64_t numel; \
    uint64_t err; \
    float lr; \
    float lr_decay; \
    float wd;        /* wd and eps already rounded to DT (host) */ \
    float eps; \
    uint32_t site;

#endif
