/* multinomial_check.comp's parameters, written by src/engine/rng.c (README.md here). */
#ifndef RS_PARAMS_MULTINOMIAL_CHECK_H
#define RS_PARAMS_MULTINOMIAL_CHECK_H

#define RS_MULTINOMIAL_CHECK_PUSH \
    uint64_t probs; \
    uint64_t flags;        /* scratch, zeroed: uint32 [1 + rows] */ \
    uint64_t err; \
    int64_t rows; \
    int64_t cols; \
    int64_t row_stride; \
    int64_t col_stride; \
    uint32_t site; \
    uint32_t replacement;  /* CPU's messages with replacement (and more than one sample) */

/* the value raised with error code 11: which of CPU's messages */
#define MN_BAD_ENTRY 0u        /* `inf`, `nan` or element < 0 (without replacement) */
#define MN_NEGATIVE 1u         /* entry < 0 (NaN too: CPU's >= 0 check fails first) */
#define MN_NOT_FINITE 2u       /* entry = infinity or NaN */
#define MN_ZERO_SUM 3u         /* sum of probabilities <= 0 */

#endif
