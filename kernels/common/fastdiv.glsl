// fastdiv.glsl: division by a divisor fixed for the whole dispatch, as a
// multiplication (pool.comp, norm.comp). Its own file: the committed
// SPIR-V (kernels/spirv/) records the hashes of what its kernels include.
#ifndef RS_FASTDIV_GLSL
#define RS_FASTDIV_GLSL

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31, with d given as its magic
// pair (m | s << 32, rs_fastdiv_magic in src/engine/tensor.c): (umulhi(n,
// m) + n) >> s. A few instructions where a 32-bit division takes about
// twenty on GPUs without an integer divider (NVIDIA's, Apple's).
uint rs_fastdiv(uint n, uint64_t magic) {
    uint hi, lo;
    umulExtended(n, uint(magic), hi, lo);
    return (hi + n) >> uint(magic >> 32);
}

#endif
