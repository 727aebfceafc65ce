/* attention_blocks.comp's parameters, written by src/engine/attention.c (README.md here). */
#ifndef RS_PARAMS_ATTENTION_BLOCKS_H
#define RS_PARAMS_ATTENTION_BLOCKS_H

#define RS_ATTENTION_BLOCKS_PUSH \
    uint64_t sc;      /* the block's scores, then probabilities (ACC), contiguous (NZ, LC, NK) */ \
    uint64_t dp;      /* MODE 1: dO v^T, then the scores' gradients (ACC), like sc */ \
    uint64_t mask;    /* 0: none; else (B, Hq, L, S) of DT through AB_MS strides */ \
    uint64_t low;     /* LOW: the probabilities (MODE 0), then the scores' gradients (MODE 1), in DT, like sc */ \
    uint64_t lse;     /* FWD: (B, Hq, L) float32, contiguous: each row's log-sum-exp */ \
    uint64_t params;  /* the parameter block: AB_ slots of int64 */

#define AB_Z0 0      /* the block's first (batch, key head) pair z = b Hk + hk */
#define AB_NZ 1      /* pairs in the block */
#define AB_I0 2      /* first query row */
#define AB_LC 3      /* query rows */
#define AB_NK 4      /* keys (from key 0): a row's length */
#define AB_R 5       /* the query head within its group: h = hk G + r */
#define AB_G 6       /* query heads a key head (G = Hq / Hk) */
#define AB_HK 7
#define AB_CAUSAL 8
#define AB_MS 9      /* 4 strides (b, h, row, key) of the mask */
#define AB_L 13      /* query rows in all (FWD: lse's row stride) */
#define AB_S 14      /* keys in all (DROP: the mask's row stride) */
#define AB_DROP_KEEP 15  /* DROP: the bits of float (1 - p), the keep threshold */
#define AB_DROP_SCALE 16 /* DROP: the bits of ACC's 1 / (1 - p) */
#define AB_SEED 17
#define AB_OFFSET 18
#define AB_SLOTS 19

#endif
