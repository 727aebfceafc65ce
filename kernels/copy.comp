// copy.comp: dst[i] = (DST_DT) src[i] for strided views, any dtype pair
// (conversions as PyTorch's CPU casts; see common/dtype.glsl).
// Defines: SRC_DT, DST_DT (dtype codes), CONTIG (1: both contiguous), RUN
// (strided: elements of the last dim an invocation takes in a row), WORDS
// (1: a bit copy of 16-byte words, numel of them), VEC4
// (the 16-byte path for float32 <-> float16/bfloat16; CQ and CSPLIT below
// shape it, for tuning: the host assumes their defaults).
#version 460
#include "common/dtype.glsl"
#include "params/copy.h"
#include "common/index.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_COPY_PUSH } pc;

#define T_DT SRC_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#if DST_DT != SRC_DT
#define T_DT DST_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif

void rs_copy_one(int64_t od, int64_t os) {
#if RS_IS_BOOL(SRC_DT) || (RS_IS_INT(SRC_DT) && SRC_DT != 29)
    RS_SET_I(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif SRC_DT == 29
    RS_SET_U(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_FLT(SRC_DT)
    RS_SET_F(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_DBL(SRC_DT)
    RS_SET_D(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#elif RS_IS_CF(SRC_DT)
    RS_SET_CF(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#else
    RS_SET_CD(DST_DT)(pc.dst, od, RS_GET(SRC_DT)(pc.src, os));
#endif
}

// elements per invocation on the contiguous path (see pointwise.comp)
#define RS_UNROLL 4
#ifndef RUN
#define RUN 1
#endif
#ifndef WORDS
#define WORDS 0
#endif
#if WORDS
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsW4 { uvec4 v; };
#endif

#if VEC4
// float32 <-> float16/bfloat16, contiguous and 16-byte aligned: whole quads
// of 4 elements (16 bytes of float32, 8 of the 16-bit side), CQ quads per
// invocation. CSPLIT 0: an invocation's quads are adjacent (CQ = 2: one
// 16-byte access on the 16-bit side, two on the float32 side); 1: they are
// a workgroup apart (every access of a warp contiguous). The tail of fewer
// than 4 elements runs as a second, plain launch (src/engine/copy.c).
#ifndef CQ
#define CQ 2
#endif
#ifndef CSPLIT
#define CSPLIT 0
#endif
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsQ4 { uvec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsQ2 { uvec2 v; };
#if SRC_DT == 6 && DST_DT == 5
uint rs_enc16(float f) { return rs_f16_enc(f); }
#elif SRC_DT == 6 && DST_DT == 15
uint rs_enc16(float f) { return rs_bf16_enc(f); }
#elif SRC_DT == 5
float rs_dec16(uint h) { return rs_f16_dec(h); }
#else
float rs_dec16(uint h) { return rs_bf16_dec(h); }
#endif
#if SRC_DT == 6
// a quad: float32 bits -> packed 16-bit values
uvec2 rs_cvt4(uvec4 w) {
    return uvec2(rs_enc16(uintBitsToFloat(w.x)) | (rs_enc16(uintBitsToFloat(w.y)) << 16),
                 rs_enc16(uintBitsToFloat(w.z)) | (rs_enc16(uintBitsToFloat(w.w)) << 16));
}
#define RS_QIN uvec4
#define RS_QOUT uvec2
#define RS_LDQ(q) RsQ4(pc.src + (q) * 16UL).v
#define RS_STQ(q, val) RsQ2(pc.dst + (q) * 8UL).v = (val)
#else
uvec4 rs_cvt4(uvec2 h) {
    return uvec4(floatBitsToUint(rs_dec16(h.x & 0xFFFFu)), floatBitsToUint(rs_dec16(h.x >> 16)),
                 floatBitsToUint(rs_dec16(h.y & 0xFFFFu)), floatBitsToUint(rs_dec16(h.y >> 16)));
}
#define RS_QIN uvec2
#define RS_QOUT uvec4
#define RS_LDQ(q) RsQ2(pc.src + (q) * 8UL).v
#define RS_STQ(q, val) RsQ4(pc.dst + (q) * 16UL).v = (val)
#endif
#endif

void main() {
#if VEC4
    uint64_t nq = pc.numel / 4UL;
    uint64_t stride = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG);
#if CSPLIT
    // invocation g (lane l) takes quads (g - l) CQ + l + c RS_WG
    uint64_t lid = uint64_t(gl_LocalInvocationID.x);
    uint64_t nv = (nq + uint64_t(CQ * RS_WG) - 1UL) / uint64_t(CQ * RS_WG) * uint64_t(RS_WG);
    for (uint64_t g = uint64_t(gl_GlobalInvocationID.x); g < nv; g += stride) {
        uint64_t q0 = (g - lid) * uint64_t(CQ) + lid;
        RS_QIN w[CQ];
        [[unroll]] for (int c = 0; c < CQ; ++c) {
            uint64_t q = q0 + uint64_t(c * RS_WG);
            if (q < nq) w[c] = RS_LDQ(q);
        }
        [[unroll]] for (int c = 0; c < CQ; ++c) {
            uint64_t q = q0 + uint64_t(c * RS_WG);
            if (q < nq) RS_STQ(q, rs_cvt4(w[c]));
        }
    }
#elif CQ == 2
    // quads 2g and 2g + 1: one 16-byte access on the 16-bit side
    uint64_t nv = (nq + 1UL) / 2UL;
    for (uint64_t g = uint64_t(gl_GlobalInvocationID.x); g < nv; g += stride) {
        uint64_t q = 2UL * g;
        if (q + 1UL < nq) {
#if SRC_DT == 6
            uvec4 w0 = RS_LDQ(q), w1 = RS_LDQ(q + 1UL);
            RsQ4(pc.dst + q * 8UL).v = uvec4(rs_cvt4(w0), rs_cvt4(w1));
#else
            uvec4 h = RsQ4(pc.src + q * 8UL).v;
            RS_STQ(q, rs_cvt4(h.xy));
            RS_STQ(q + 1UL, rs_cvt4(h.zw));
#endif
        } else {
            RS_STQ(q, rs_cvt4(RS_LDQ(q)));
        }
    }
#else
#error "copy.comp: CQ > 2 needs CSPLIT"
#endif
#elif WORDS
    // a bit copy of contiguous 16-byte words (rs_copy's large copies on a
    // discrete GPU, where vkCmdCopyBuffer reached a fifth of the H200's
    // bandwidth): RS_UNROLL words an invocation, a workgroup apart
    uint64_t n = pc.numel;
    uint64_t step = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG * RS_UNROLL);
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * uint64_t(RS_WG * RS_UNROLL) + uint64_t(gl_LocalInvocationID.x);
         base < n; base += step) {
        uvec4 w[RS_UNROLL];
        [[unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i < n) w[u] = RsW4(pc.src + i * 16UL).v;
        }
        [[unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i < n) RsW4(pc.dst + i * 16UL).v = w[u];
        }
    }
#elif CONTIG
    uint64_t n = pc.numel;
    uint64_t step = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG * RS_UNROLL);
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * uint64_t(RS_WG * RS_UNROLL) + uint64_t(gl_LocalInvocationID.x);
         base < n; base += step) {
        [[unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i < n) rs_copy_one(int64_t(i), int64_t(i));
        }
    }
#elif RUN > 1
    // runs of RUN elements along the last dim: one offset computation (a
    // division per dim) a run, the run's elements by the last strides
    const uint nd = pc.ndim;
    const uint64_t inner = uint64_t(RsI64(pc.params + 8UL * uint64_t(nd - 1u)).v);
    const int64_t dstep = RsI64(pc.params + 8UL * uint64_t(2u * nd - 1u)).v;
    const int64_t sstep = RsI64(pc.params + 8UL * uint64_t(3u * nd - 1u)).v;
    const uint64_t per_row = (inner + uint64_t(RUN - 1)) / uint64_t(RUN);
    RS_FOR_EACH(t, (pc.numel / inner) * per_row) {
        uint64_t row = t, j;
        rs_divmod(row, per_row, j);
        j *= uint64_t(RUN);
        int64_t od, os;
        rs_offset2(pc.params, nd, row * inner + j, od, os);
        [[unroll]] for (int u = 0; u < RUN; ++u)
            if (j + uint64_t(u) < inner) rs_copy_one(od + int64_t(u) * dstep, os + int64_t(u) * sstep);
    }
#else
    RS_FOR_EACH(i, pc.numel) {
        int64_t od, os;
        rs_offset2(pc.params, pc.ndim, i, od, os);
        rs_copy_one(od, os);
    }
#endif
}
