// fill.comp: every element of a strided dst = the same ESIZE bytes.
// Defines: ESIZE (1, 2, 4, 8 or 16).
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push {
    uint64_t dst;
    uint64_t params;  // sizes, strides (ndim > 0)
    uint64_t numel;
    uint ndim;        // 0: contiguous
    uint pad;
    uvec4 value;      // the element's bytes, little-endian words
} pc;

void main() {
    RS_FOR_EACH(i, pc.numel) {
        int64_t o = pc.ndim == 0u ? int64_t(i) : rs_offset1(pc.params, pc.ndim, i);
        uint64_t p = rs_addr(pc.dst, o, uint(ESIZE));
#if ESIZE == 1
        RsU8(p).v = uint8_t(pc.value.x & 0xFFu);
#elif ESIZE == 2
        RsU16(p).v = uint16_t(pc.value.x & 0xFFFFu);
#elif ESIZE == 4
        RsU32(p).v = pc.value.x;
#elif ESIZE == 8
        RsU64(p).v = pack64(pc.value.xy);
#else
        RsU64(p).v = pack64(pc.value.xy);
        RsU64(p + 8UL).v = pack64(pc.value.zw);
#endif
    }
}
