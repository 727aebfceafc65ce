/* rng.comp's parameters, written by src/engine/rng.c (README.md here). */
#ifndef RS_PARAMS_RNG_H
#define RS_PARAMS_RNG_H

/* a, b, c: the distribution's parameters (double bits) */
#define RS_RNG_PUSH \
    uint64_t dst; \
    uint64_t params;  /* dst's sizes, strides (ndim > 0) */ \
    uint64_t numel; \
    uint64_t seed; \
    uint64_t offset;  /* Philox counter offset */ \
    uint64_t a; \
    uint64_t b; \
    uint64_t c; \
    uint32_t ndim; \
    uint32_t pad;

/* rng.comp's DIST */
#define DIST_UNIFORM 0
#define DIST_NORMAL 1
#define DIST_RANDOM32 2  /* integers from 32-bit draws */
#define DIST_RANDOM64 3  /* integers from 64-bit draws */

#endif
