/* rng.comp's parameters, written by src/engine/rng.c (README.md here). */
#ifndef RS_PARAMS_RNG_H
#define RS_PARAMS_RNG_H

/* a, b, c: the distribution's parameters (double bits, or float bits in
 * the low word where the kernel computes in float) */
#define RS_RNG_PUSH \
    uint64_t dst; \
    uint64_t src;     /* BERNOULLI_TENSOR: p; DROPOUT: x */ \
    uint64_t dst2;    /* DROPOUT: the mask */ \
    uint64_t params;  /* sizes, then the strides of dst (src, dst2) (ndim > 0) */ \
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
/* rs_rng_sample's distributions: DIST_SAMPLE + rs_rng_dist (russet/rng.h),
 * float32 uniforms (normals) mapped in float */
#define DIST_SAMPLE 4
#define DIST_BERNOULLI 4
#define DIST_BERNOULLI_TENSOR 5
#define DIST_EXPONENTIAL 6
#define DIST_GEOMETRIC 7
#define DIST_CAUCHY 8
#define DIST_LOG_NORMAL 9
#define DIST_DROPOUT 10  /* rs_dropout: out and mask from x */

#endif
