// fill.comp: every element of a strided dst = the same ESIZE bytes.
// Defines: ESIZE (1, 2, 4, 8 or 16); WIDE (ESIZE 16 only: contiguous,
// 16-byte aligned words, each one 16-byte store).
#version 460
#include "common/dtype.glsl"
#include "params/fill.h"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_FILL_PUSH } pc;

#if WIDE
layout(buffer_reference, std430, buffer_reference_align = 16) buffer FillV4 { uvec4 v; };
#endif

void main() {
#if WIDE
    const uvec4 word = uvec4(pc.value[0], pc.value[1], pc.value[2], pc.value[3]);
    RS_FOR_EACH(i, pc.numel) FillV4(pc.dst + 16UL * i).v = word;
    return;
#endif
    RS_FOR_EACH(i, pc.numel) {
        int64_t o = pc.ndim == 0u ? int64_t(i) : rs_offset1(pc.params, pc.ndim, i);
        uint64_t p = rs_addr(pc.dst, o, uint(ESIZE));
#if ESIZE == 1
        RsU8(p).v = uint8_t(pc.value[0] & 0xFFu);
#elif ESIZE == 2
        RsU16(p).v = uint16_t(pc.value[0] & 0xFFFFu);
#elif ESIZE == 4
        RsU32(p).v = pc.value[0];
#elif ESIZE == 8
        RsU64(p).v = pack64(uvec2(pc.value[0], pc.value[1]));
#else
        RsU64(p).v = pack64(uvec2(pc.value[0], pc.value[1]));
        RsU64(p + 8UL).v = pack64(uvec2(pc.value[2], pc.value[3]));
#endif
    }
}
