/* rnn_cell.comp's parameters, written by src/engine/rnn.c (README.md here). */
#ifndef RS_PARAMS_RNN_H
#define RS_PARAMS_RNN_H

/* the tensors, in push-constant order */
#define T_IG 0
#define T_HG 1
#define T_IB 2
#define T_HB 3
#define T_STATE 4
#define T_HY 5
#define T_CY 6
#define T_WS 7
#define T_GHY 8
#define T_GCY 9
#define T_GG 10
#define T_GHG 11
#define T_GSTATE 12
#define NT 13

#define RS_RNN_PUSH \
    uint64_t t[NT];   /* addresses (0: absent) */ \
    uint64_t params;  /* int64: RP_ slots */ \
    uint64_t items;   /* B * H */

#define RP_B 0
#define RP_H 1
#define RP_ST 2       /* (row stride, column stride) of tensor k at RP_ST + 2 k */
#define RP_SLOTS (2 + 2 * NT)

#endif
