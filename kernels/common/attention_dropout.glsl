// common/attention_dropout.glsl: attention's dropout mask (rs_attention's
// contract, russet/attention.h): element (b, h, i, j), at flat index
// ((b Hq + h) L + i) S + j, is kept where its Philox uniform (the one
// rs_rng_uniform would write at that index: block flat / 4, word flat % 4)
// is below `keep` = (float)(1 - dropout). Forward and backward replay it.
#ifndef RS_ATTENTION_DROPOUT_GLSL
#define RS_ATTENTION_DROPOUT_GLSL
#include "common/philox.glsl"

// the words of idx's Philox block (four consecutive indices share one)
uvec4 rs_attn_words(uint64_t seed, uint64_t offset, int64_t idx) {
    return rs_philox_block(seed, offset, uint64_t(idx >> 2));
}
// whether idx is kept, from the words of its block
bool rs_attn_kept_in(uvec4 w, int64_t idx, float keep) { return rs_u01(w[uint(idx & 3L)]) < keep; }

// the kept flags of n (at most 32) consecutive indices from flat0 as bits:
// bit c for flat0 + c. The fused kernels' lanes take a row's run of keys
// this way, one Philox block per four indices (n / 4 + 1 at most).
uint rs_attn_keep_bits(uint64_t seed, uint64_t offset, int64_t flat0, int n, float keep) {
    uint bits = 0u;
    const int64_t blk0 = flat0 >> 2;
    const int nb = int(((flat0 + int64_t(n) - 1L) >> 2) - blk0) + 1;
    for (int i = 0; i < nb; ++i) {
        const uvec4 w = rs_attn_words(seed, offset, (blk0 + int64_t(i)) << 2);
        const int c0 = int(((blk0 + int64_t(i)) << 2) - flat0);  // word 0's place, -3 .. n - 1
        [[unroll]] for (int e = 0; e < 4; ++e)
            if (c0 + e >= 0 && c0 + e < n && rs_u01(w[e]) < keep) bits |= 1u << uint(c0 + e);
    }
    return bits;
}

#endif
