/* embedding_renorm.comp's parameters, written by src/engine/embedding_bag.c (README.md here). */
#ifndef RS_PARAMS_EMBEDDING_RENORM_H
#define RS_PARAMS_EMBEDDING_RENORM_H

#define RS_EMBEDDING_RENORM_PUSH \
    uint64_t weight; \
    uint64_t sorted;      /* the indices, wrapped and sorted (int64) */ \
    uint64_t err; \
    int64_t count;        /* indices */ \
    int64_t rows;         /* the weight's rows (N) and columns (D) */ \
    int64_t cols; \
    int64_t row_stride; \
    int64_t col_stride; \
    float max_norm; \
    float p;              /* the norm's order (RN_P_GENERAL) */ \
    uint64_t max_norm64;  /* float64 weights: the double's bits (no fp64 in the block) */ \
    uint32_t site; \
    uint32_t kind;        /* RN_P_ */

#define RN_P_GENERAL 0u  /* (sum |x|^p)^(1/p) */
#define RN_P_ONE 1u
#define RN_P_TWO 2u
#define RN_P_INF 3u      /* max |x| */
#define RN_P_ZERO 4u     /* the count of non-zeros */

#endif
