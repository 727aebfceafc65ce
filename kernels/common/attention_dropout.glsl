// common/attention_dropout.glsl: attention's dropout mask (rs_attention's
// contract, russet/attention.h): element (b, h, i, j), at flat index
// ((b Hq + h) L + i) S + j, is kept where its Philox uniform (the one
// rs_rng_uniform would write at that index: block flat / 4, word flat % 4)
// is below `keep` = (float)(1 - dropout). Forward and backward replay it.
#ifndef RS_ATTENTION_DROPOUT_GLSL
#define RS_ATTENTION_DROPOUT_GLSL
#include "common/philox.glsl"

bool rs_attn_kept(uint64_t seed, uint64_t offset, int64_t idx, float keep) {
    const uvec4 w = rs_philox_block(seed, offset, uint64_t(idx >> 2));
    return rs_u01(w[uint(idx & 3L)]) < keep;
}

#endif
