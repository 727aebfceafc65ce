// multinomial_check.comp: torch.multinomial's checks of its probabilities,
// on the device (src/engine/rng.c, contract in russet/tensor.h), in two
// launches, with no waiting: the error reaches the host at its next sync,
// as CUDA's device assert does.
// MODE 0, an invocation an element: atomicOr of the element's class into
//   flags[0] (bit 0 < 0 or NaN, bit 1 infinite) and, where it is > 0, into
//   flags[1 + row].
// MODE 1, one invocation: error code 11 with CPU's message of highest rank
//   (CPU checks the whole tensor a condition at a time: any element < 0 or
//   NaN, then any inf, then a row with no positive entry), so the message
//   does not depend on the order the elements were read in.
// Defines: MODE; DT (MODE 0: float32, float16, bfloat16; float64 as bits).
#version 460
#include "common/dtype.glsl"
#include "params/multinomial_check.h"
#include "common/index.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_MULTINOMIAL_CHECK_PUSH } pc;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer RsFlags { uint v[]; };

#if MODE == 0
#define T_DT DT
#include "common/dtype_inst.glsl"
#undef T_DT

// the element's class: bit 0 negative or NaN, bit 1 infinite, bit 2 > 0
uint classify(uint64_t base, int64_t off) {
#if RS_IS_DBL(DT)
    const uint64_t b = RS_GET(DT)(base, off);
    const uint64_t mag = b & 0x7FFFFFFFFFFFFFFFUL;
    const bool neg = (uint(b >> 32) & 0x80000000u) != 0u && mag != 0UL;
    const bool nan = mag > 0x7FF0000000000000UL, inf = mag == 0x7FF0000000000000UL;
    const bool pos = !neg && !nan && mag != 0UL;
#else
    const float v = RS_GET(DT)(base, off);
    const bool nan = isnan(v), neg = v < 0.0, inf = isinf(v), pos = v > 0.0;
#endif
    return (neg || nan ? 1u : 0u) | (inf ? 2u : 0u) | (pos ? 4u : 0u);
}

void main() {
    RsFlags f = RsFlags(pc.flags);
    const uint64_t cols = uint64_t(pc.cols);
    RS_FOR_EACH(i, uint64_t(pc.rows) * cols) {
        const int64_t r = int64_t(i / cols), c = int64_t(i % cols);
        const uint k = classify(pc.probs, r * pc.row_stride + c * pc.col_stride);
        if ((k & 3u) != 0u) atomicOr(f.v[0], k & 3u);
        const uint w = 1u + uint(r);  // rows < 2^31 (the engine checks)
        if ((k & 4u) != 0u && f.v[w] == 0u) atomicOr(f.v[w], 1u);
    }
}

#else  // MODE 1

void main() {
    if (gl_GlobalInvocationID.x != 0u) return;
    RsFlags f = RsFlags(pc.flags);
    const uint found = f.v[0];
    bool zero = false;
    const uint rows = uint(pc.rows);  // < 2^31 (the engine checks)
    for (uint r = 0u; r < rows && !zero; ++r) zero = f.v[1u + r] == 0u;
    int64_t which = -1;
    if (pc.replacement == 0u && found != 0u) which = int64_t(MN_BAD_ENTRY);
    else if ((found & 1u) != 0u) which = int64_t(MN_NEGATIVE);
    else if ((found & 2u) != 0u) which = int64_t(MN_NOT_FINITE);
    else if (zero) which = int64_t(MN_ZERO_SUM);
    if (which >= 0) rs_raise_at(pc.err, pc.site, 11u, which);
}
#endif
