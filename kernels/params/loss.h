/* nll_loss.comp's parameters, written by src/engine/loss.c (README.md here). */
#ifndef RS_PARAMS_LOSS_H
#define RS_PARAMS_LOSS_H

#define RS_NLL_PUSH \
    uint64_t input_; \
    uint64_t target; \
    uint64_t weight; \
    uint64_t out_;          /* forward: the loss; backward: grad_input */ \
    uint64_t total_weight; \
    uint64_t grad_output; \
    uint64_t n; \
    uint64_t c; \
    uint64_t s;             /* spatial elements per sample */ \
    int64_t ignore_index; \
    uint64_t err; \
    uint32_t site; \
    uint32_t pad;

#endif
