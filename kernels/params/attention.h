/* attention.comp's parameters, written by src/engine/attention.c (README.md here). */
#ifndef RS_PARAMS_ATTENTION_H
#define RS_PARAMS_ATTENTION_H

#define RS_ATTENTION_PUSH \
    uint64_t q; \
    uint64_t k; \
    uint64_t v; \
    uint64_t o; \
    uint64_t mask;    /* 0: none */ \
    uint64_t lse;     /* logsumexp per row (ACC), contiguous (B, Hq, L) */ \
    uint64_t params;  /* the parameter block: AP_ slots of int64 */

#define AP_B 0
#define AP_HQ 1
#define AP_HK 2
#define AP_L 3
#define AP_S 4
#define AP_E 5
#define AP_EV 6
#define AP_CAUSAL 7
#define AP_SCALE 8   /* the bits of ACC's scale */
#define AP_QS 9      /* 4 strides each (b, h, row, dim) of q, k, v, out, mask */
#define AP_KS 13
#define AP_VS 17
#define AP_OS 21
#define AP_MS 25
#define AP_SLOTS 29

#endif
