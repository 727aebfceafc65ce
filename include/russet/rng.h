/* russet/rng.h: random numbers on the device (src/engine/rng.c,
 * src/engine/multinomial.c; kernels/rng.comp): Philox4x32-10 draws keyed by
 * (seed, offset) as PyTorch's philox generators are. The random fills, the
 * distributions sampled in one kernel (a draw and its transformation, no
 * buffer of uniforms between them), dropout, and multinomial sampling. */
#ifndef RUSSET_RNG_H
#define RUSSET_RNG_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Philox4x32-10 random fills; (seed, offset) as in PyTorch's philox
 * generators. Each call consumes rs_rng_offset_increment(numel) offsets. */
RS_API uint64_t rs_rng_offset_increment(int64_t numel);
/* Floating dtypes: uniform in [from, to). */
RS_API rs_status rs_rng_uniform(rs_stream *s, const rs_tensor *dst, double from, double to,
                                uint64_t seed, uint64_t offset);
/* Floating dtypes: normal(mean, std). */
RS_API rs_status rs_rng_normal(rs_stream *s, const rs_tensor *dst, double mean, double std,
                               uint64_t seed, uint64_t offset);

/* torch.multinomial's checks of probs (rows, categories; float32, float16,
 * bfloat16, float64 as bits; any strides), on the device: error code 11
 * at the next sync, with CPU's message of highest rank over the whole
 * tensor (any entry < 0 or NaN, then any inf, then a row with no positive
 * entry; without replacement the first two are one message). Two
 * launches (every element's class into flags, then the verdict); nothing
 * waits. */
RS_API rs_status rs_multinomial_check(rs_stream *s, const rs_tensor *probs, int replacement);
/* torch.multinomial (src/engine/multinomial.c): n_sample category indices
 * for each row of probs (rows, categories; float32, float16, bfloat16, and
 * float64 where the device has fp64, else RS_ERR_UNSUPPORTED; any strides)
 * into out (int64, (rows, n_sample), any strides), after
 * rs_multinomial_check. Without replacement, or one sample: the indices of
 * the n_sample largest p / e, e ~ Exp(1) drawn in p's dtype (ATen's Gumbel
 * trick); with replacement: for each sample the first index whose float32
 * cumulative probability, normalized by the row's total, reaches u, u
 * uniform in (0, 1]. One draw: consumes rs_rng_offset_increment(1)
 * offsets. Nothing waits. */
RS_API rs_status rs_multinomial(rs_stream *s, const rs_tensor *probs, int64_t n_sample, int replacement,
                                uint64_t seed, uint64_t offset, const rs_tensor *out);
/* Integers in [from, from + range); range == 0 means the full 64-bit range.
 * Any dtype (bool gets 0/1 when range is 2). */
RS_API rs_status rs_rng_random(rs_stream *s, const rs_tensor *dst, int64_t from, uint64_t range,
                               uint64_t seed, uint64_t offset);
/* The distributions rs_rng_sample draws. Each element takes the float32
 * uniform u in [0, 1) (LOG_NORMAL: the float32 normal) that rs_rng_uniform
 * (rs_rng_normal) would write at its logical index for the same (seed,
 * offset), and maps it in float32 arithmetic as ATen's
 * core/TransformationHelper.h does; the result is converted to dst's dtype
 * (c10's casts). */
typedef enum rs_rng_dist {
    RS_RNG_BERNOULLI = 0,        /* u < a: 1 or 0; any real dtype but complex */
    RS_RNG_BERNOULLI_TENSOR = 1, /* u < src[i]: src (floating, dst's sizes, any strides) */
    RS_RNG_EXPONENTIAL = 2,      /* -1 / a * log1p(-u), a = lambda > 0; floating dst */
    RS_RNG_GEOMETRIC = 3,        /* max(ceil(log(1 - u) / log1p(-a)), 1), 0 < a < 1; real dst */
    RS_RNG_CAUCHY = 4,           /* a + b * tan(pi * (u - 1/2)); floating dst */
    RS_RNG_LOG_NORMAL = 5,       /* exp(normal(a, b)); floating dst */
} rs_rng_dist;

/* dst (any strides) = samples of `dist` with parameters a, b (and src for
 * BERNOULLI_TENSOR). float64 dst (or src) on a device without fp64:
 * RS_ERR_UNSUPPORTED (the adapter samples on the host); complex dst:
 * RS_ERR_INVALID. Consumes rs_rng_offset_increment(numel) offsets. One
 * launch; nothing waits. */
RS_API rs_status rs_rng_sample(rs_stream *s, rs_rng_dist dist, const rs_tensor *dst, const rs_tensor *src,
                               double a, double b, uint64_t seed, uint64_t offset);

/* native_dropout in one launch: mask[i] = u < (float)(1 - p) (u as
 * rs_rng_sample's BERNOULLI draws it), out[i] = (x[i] * mask[i]) * scale,
 * scale = 1 / (1 - p) (0 when p == 1), computed in float (double for
 * float64 x). x and out: one floating dtype, same sizes, any strides; mask:
 * bool, x's sizes. float64 on a device without fp64 and complex x:
 * RS_ERR_UNSUPPORTED (the adapter composes the mask and a product). */
RS_API rs_status rs_dropout(rs_stream *s, const rs_tensor *x, double p, uint64_t seed, uint64_t offset,
                            const rs_tensor *out, const rs_tensor *mask);

#ifdef __cplusplus
}
#endif

#endif
