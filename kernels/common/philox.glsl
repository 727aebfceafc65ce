// philox.glsl: Philox4x32-10 (Salmon et al., Random123), as in curand and
// PyTorch's philox generators.
//
// russet's stream layout: a call with (seed, offset) draws, for block b,
//     philox(counter = (lo(offset/4), hi(offset/4), lo(b), hi(b)),
//            key = (lo(seed), hi(seed)))
// i.e. block b plays the role of CUDA's subsequence (thread) and offset/4
// of its counter. Element e of the output lives in block e / K, where K is
// the number of elements one 128-bit block feeds (4 for 32-bit draws, 2 for
// 64-bit draws and for double Box-Muller pairs). Every call uses one block
// per K elements, so the generator's offset advances by 4 per call
// (rs_rng_offset_increment), and the same (seed, offset) gives the same bits
// on every device and for every launch shape.
#ifndef RS_PHILOX_GLSL
#define RS_PHILOX_GLSL

uvec4 rs_philox(uvec4 ctr, uvec2 key) {
    for (int r = 0; r < 10; ++r) {
        uint hi0, lo0, hi1, lo1;
        umulExtended(0xD2511F53u, ctr.x, hi0, lo0);
        umulExtended(0xCD9E8D57u, ctr.z, hi1, lo1);
        ctr = uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
        key += uvec2(0x9E3779B9u, 0xBB67AE85u);
    }
    return ctr;
}

uvec4 rs_philox_block(uint64_t seed, uint64_t offset, uint64_t block) {
    uint64_t c = offset >> 2;
    return rs_philox(uvec4(uint(c), uint(c >> 32), uint(block), uint(block >> 32)),
                     uvec2(uint(seed), uint(seed >> 32)));
}

// Uniform floats from 32-bit words: [0, 1) and (0, 1], 24 bits.
float rs_u01(uint w) { return float(w >> 8) * (1.0 / 16777216.0); }
float rs_u01_open0(uint w) { return (float(w >> 8) + 1.0) * (1.0 / 16777216.0); }

#endif
