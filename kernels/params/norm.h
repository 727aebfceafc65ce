/* norm.comp's parameters, written by src/engine/norm.c (README.md here). */
#ifndef RS_PARAMS_NORM_H
#define RS_PARAMS_NORM_H

#define RS_NORM_PUSH \
    uint64_t x; \
    uint64_t g; \
    uint64_t y; \
    uint64_t a; \
    uint64_t b; \
    uint64_t w; \
    uint64_t bias;    /* APPLY's bias, GRAD's scale */ \
    uint64_t s1;      /* GRAD's inputs; SUMS/STATS: the outputs */ \
    uint64_t s2; \
    uint64_t part;    /* partials, chunks per row */ \
    uint64_t params;  /* the parameter block: NP_ slots of int64 */ \
    uint32_t zero;    /* 0, unknown to the compiler: rs_rounded */ \
    uint32_t pad_;

#define NP_ROWS 0
#define NP_OUTER 1
#define NP_INNER 2
#define NP_ROW_STRIDE 3
#define NP_OUTER_STRIDE 4
#define NP_CHUNKS 5     /* reductions: chunks per row */
#define NP_CHUNK 6      /* elements per chunk */
#define NP_STAT_OUTER 7
#define NP_NUMEL 8      /* elementwise */
#define NP_ROW_DIV 9
#define NP_COL_DIV 10
#define NP_COLS 11
#define NP_INV_K 12     /* 1 / K: double bits for float64, else float bits */
#define NP_CENTRED 13   /* ROW_FWD, ROW_BWD: subtract the mean (layer norm) or not (RMS norm) */
#define NP_EPS 14       /* ROW_FWD, STATS with NP_BN: double bits for float64, else float bits */
#define NP_BN 15        /* STATS: batch norm's training forward (rs_norm.bn_train); BN_PARAMS: b is a variance */
#define NP_MOMENTUM 16  /* NP_BN: momentum and 1 - momentum, as NP_EPS */
#define NP_KEEP 17
#define NP_RUN_MEAN 18  /* NP_BN: addresses of the running statistics (or 0) and of alpha, beta */
#define NP_RUN_VAR 19
#define NP_ALPHA 20
#define NP_BETA 21
#define NP_MG_ROW_DIV 22 /* FASTDIV: the rs_fastdiv magic pairs of row_div, rows, col_div, cols */
#define NP_MG_ROWS 23
#define NP_MG_COL_DIV 24
#define NP_MG_COLS 25
#define NP_MG_INNER 26   /* STATS, SUMS with FASTDIV: inner's magic pair */
#define NP_SLOTS 27

/* STATS: rows of at most this many elements, in one chunk, are summed by
 * one lane in order (CPU's bits) */
#define RS_NORM_SEQ_MAX 64

#endif
