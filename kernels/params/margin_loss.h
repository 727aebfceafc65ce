/* margin_loss.comp's parameters, written by src/engine/margin_loss.c (README.md here). */
#ifndef RS_PARAMS_MARGIN_LOSS_H
#define RS_PARAMS_MARGIN_LOSS_H

#define RS_MARGIN_LOSS_PUSH \
    uint64_t input_; \
    uint64_t target; \
    uint64_t weight;     /* multi margin's class weights, 0: none */ \
    uint64_t out_;       /* forward: the loss; backward: grad_input */ \
    uint64_t is_target;  /* multilabel: forward writes it, backward reads it */ \
    uint64_t grad;       /* backward: grad_output */ \
    uint64_t partial;    /* reduced forward: a row's sum, 8 bytes a row */ \
    uint64_t params;     /* ML_ slots of int64 */ \
    uint64_t err; \
    uint32_t site; \
    uint32_t zero;       /* 0, unknown to the compiler: rs_rounded */

#define ML_N 0
#define ML_C 1
#define ML_XS 2       /* input's 2 strides */
#define ML_TS 4       /* target's 2 strides (multi margin: the first) */
#define ML_WS 6       /* weight's stride */
#define ML_OS 7       /* forward out's stride; backward: grad_input's 2 */
#define ML_IS 9       /* is_target's 2 strides */
#define ML_GS 11      /* grad_output's stride (0: one value for every row) */
#define ML_MARGIN 12  /* the margin's bits in the input's dtype (float64's, else float32's) */
#define ML_G 13       /* backward: 1 / (C N) (mean) or 1 / C, bits likewise */
#define ML_SLOTS 14

#endif
