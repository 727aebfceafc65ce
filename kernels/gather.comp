// gather.comp: gather and scatter along one dim, element moves by size
// (src/engine/gather.c). For every element i of `index` (int64):
//   gather:  out[i]                      = self[i with dim := index[i]]
//   scatter: self[i with dim := index[i]] = src[i]   (or the value)
// Three views share index's shape (the host coalesces them): 0 the index,
// 1 out (gather) or src (scatter), 2 self with its `dim` stride zeroed, so
// self's element is base(i) + index[i] * dim_stride.
// Defines: MODE (0 gather, 1 scatter from src, 2 scatter a value), ESIZE,
// IDX32 (the index is int32, else int64).
// An index outside [0, dim_size) raises the device error flag (code 1).
#version 460
#include "common/dtype.glsl"
#include "params/gather.h"
#include "common/index.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_GATHER_PUSH } pc;

// moves one element of ESIZE bytes
void ga_move(uint64_t dst, uint64_t src) {
#if ESIZE == 1
    RsU8(dst).v = RsU8(src).v;
#elif ESIZE == 2
    RsU16(dst).v = RsU16(src).v;
#elif ESIZE == 4
    RsU32(dst).v = RsU32(src).v;
#elif ESIZE == 8
    RsU64(dst).v = RsU64(src).v;
#else
    RsU64(dst).v = RsU64(src).v;
    RsU64(dst + 8UL).v = RsU64(src + 8UL).v;
#endif
}

void ga_store_value(uint64_t dst) {
#if ESIZE == 1
    RsU8(dst).v = uint8_t(pc.value[0] & 0xFFu);
#elif ESIZE == 2
    RsU16(dst).v = uint16_t(pc.value[0] & 0xFFFFu);
#elif ESIZE == 4
    RsU32(dst).v = pc.value[0];
#elif ESIZE == 8
    RsU64(dst).v = pack64(uvec2(pc.value[0], pc.value[1]));
#else
    RsU64(dst).v = pack64(uvec2(pc.value[0], pc.value[1]));
    RsU64(dst + 8UL).v = pack64(uvec2(pc.value[2], pc.value[3]));
#endif
}

void main() {
    RS_FOR_EACH(i, pc.numel) {
        int64_t o[5] = int64_t[5](int64_t(i), int64_t(i), int64_t(i), 0L, 0L);
        if (pc.ndim != 0u) rs_offsetn(pc.params, pc.ndim, 3, i, o);
#if IDX32
        int64_t idx = int64_t(int(RsU32(pc.index + 4UL * uint64_t(o[0])).v));
#else
        int64_t idx = RsI64(pc.index + 8UL * uint64_t(o[0])).v;
#endif
        // negative indices too, as unsigned
        if (uint64_t(idx) >= uint64_t(pc.dim_size)) {
            rs_raise_at(pc.err, pc.site, 1u, idx);
            continue;
        }
        uint64_t self_el = rs_addr(pc.self_, o[2] + idx * pc.dim_stride, uint(ESIZE));
#if MODE == 0
        ga_move(rs_addr(pc.other, o[1], uint(ESIZE)), self_el);
#elif MODE == 1
        ga_move(self_el, rs_addr(pc.other, o[1], uint(ESIZE)));
#else
        ga_store_value(self_el);
#endif
    }
}
