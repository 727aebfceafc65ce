/* russet/attention.h: the attention engine (src/engine/attention.c). */
#ifndef RUSSET_ATTENTION_H
#define RUSSET_ATTENTION_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The attention engine (src/engine/attention.c, kernels/attention.comp and
 * attention_blocks.comp): scaled dot-product attention.
 * q (B, Hq, L, E), k (B, Hk, S, E), v (B, Hk, S, Ev), out (B, Hq, L, Ev);
 * Hq a multiple of Hk (grouped-query attention: q head h reads k/v head
 * h / (Hq / Hk)). For each row i:
 *   s[j] = scale q[i] . k[j] + mask[i, j]   (-inf where causal and j > i)
 *   out[i] = sum_j softmax(s)[j] v[j],  lse[i] = log sum_j exp(s[j])
 * A row whose scores are all -inf gets out 0, lse -inf and gradients 0.
 * `mask` (ndim 0: none) is an additive (B, Hq, L, S) view of the dtype
 * (strides 0 where it broadcasts). Any strides for the other views.
 * float32, float16, bfloat16 (arithmetic in float32) and float64 (fp64
 * devices); lse is float32 (float64 for float64), contiguous (B, Hq, L).
 *   RS_ATTN_FORWARD: writes out and lse with an online softmax over blocks
 *     of keys: memory O(L + S), never O(L S). float16 and bfloat16 where the
 *     device has their cooperative matrices and 32-wide subgroups: one
 *     fused kernel on the matrices (head dims up to 128); beyond 128 dims,
 *     with 4,096 keys or more, the backward's blocks of whole score rows
 *     (at most 128 MiB) on the GEMM engine.
 *     RUSSET_ATTENTION_FORWARD=blocks|kernel forces another path.
 *   RS_ATTN_BACKWARD: from q, k, v and grad_out, writes grad_q, grad_k,
 *     grad_v (each like its input; an absent one, address 0, is not
 *     computed). float16/bfloat16 where the forward is the fused kernel,
 *     given lse (the forward's, contiguous float32; 0: none): two fused
 *     kernels that read out and lse (flash attention's backward). Otherwise
 *     out and lse are not read: the probabilities are recomputed, in blocks
 *     of whole score rows of at most 128 MiB on the GEMM engine.
 *     Deterministic: fixed summation orders, no atomics. */
typedef enum rs_attn_op { RS_ATTN_FORWARD = 0, RS_ATTN_BACKWARD = 1 } rs_attn_op;

typedef struct rs_attention {
    rs_attn_op op;
    rs_tensor q, k, v, out, mask;
    uint64_t lse;
    int causal;
    double scale;
    rs_tensor grad_out, grad_q, grad_k, grad_v; /* backward */
    /* Dropout on the probabilities (0 <= dropout < 1; 0: none): element
     * (b, h, i, j) is kept, and scaled by 1 / (1 - dropout), where u <
     * (float)(1 - dropout), u the float32 uniform that rs_rng_uniform(dst,
     * 0, 1, seed, offset) writes at flat index ((b Hq + h) L + i) S + j of a
     * contiguous (B, Hq, L, S) dst; the backward replays the same mask from
     * the same seed and offset. A forward consumes
     * rs_rng_offset_increment(B Hq L S) offsets. lse stays the undropped
     * probabilities' (as CUDA's kernels). */
    double dropout;
    uint64_t seed, offset;
} rs_attention;

RS_API rs_status rs_attention_run(rs_stream *s, const rs_attention *a);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_ATTENTION_H */
