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

#endif
