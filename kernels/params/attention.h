/* attention.comp's and attention_coopmat_khr.comp's parameters, written by src/engine/attention.c (README.md here). */
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
#define AP_DOS 29     /* the fused backward's (attention_bwd_coopmat_khr.comp): dO, dq, dk, dv */
#define AP_DQS 33
#define AP_DKS 37
#define AP_DVS 41
#define AP_DROP_KEEP 45  /* dropout (DROP): the bits of float (1 - p), the keep threshold */
#define AP_DROP_SCALE 46 /* the bits of ACC's 1 / (1 - p) */
#define AP_SEED 47
#define AP_OFFSET 48
#define AP_SLOTS 49

/* attention_bwd_coopmat_khr.comp: the forward's fields (o: its output, lse:
 * its logsumexp, read) and the gradients; an absent gradient's address is 0 */
#define RS_ATTENTION_BWD_PUSH \
    RS_ATTENTION_PUSH \
    uint64_t dout; \
    uint64_t dq; \
    uint64_t dk; \
    uint64_t dv; \
    uint64_t delta;   /* rowsum(dO o) per row (float32, (B, Hq, L)): MODE 0 writes it, MODE 1 reads */

#endif
