// pointwise.comp: the template of every kernel of the pointwise engine
// (src/engine/pointwise.c). out[i] = EXPR, over up to 4 inputs named
// a, b, c, d, each loaded in its dtype's opmath type (common/opmath.glsl),
// plus scalars s0..s3 in the opmath type of CT_DT.
//
// Defines: NIN, IN<k>_DT (dtype code), IN<k>_S (1: a scalar operand, its
// value in the push constants), IN<k>_L (its index in the layout; the output
// is 0), NT (tensors in the layout), VECW (the 16-byte path, below: elements
// per word; VQ words per invocation), OUT_DT, CT_DT (compute dtype), RT_DT
// (dtype whose opmath type the expression has), CM_DT (the op's common
// dtype, of which CT_DT is the opmath type), EXPR; SEGS (1: a list of
// contiguous tensors, one segment each: rs_pointwise_run_many); RUN (the
// strided path: elements of the last dim an invocation takes in a row).
#version 460
#include "common/dtype.glsl"
#include "params/pointwise.h"
#include "common/index.glsl"
#ifndef RUN
#define RUN 1
#endif
#include "common/opmath.glsl"

// PW_WG: the workgroup size (tuning, 16-byte path only; the host assumes RS_WG)
#ifndef PW_WG
#define PW_WG RS_WG
#endif
layout(local_size_x = PW_WG) in;

// elements per invocation on the contiguous path
#define RS_UNROLL 4

layout(push_constant) uniform Push { RS_POINTWISE_PUSH } pc;

// Raises the device error flag (read at the next sync): code 2 is an
// integer division by zero.
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsErr { uint site; uint code; int64_t value; };
void rs_raise(uint code, int64_t value) {
    RsErr e = RsErr(pc.err);
    if (atomicCompSwap(e.site, 0u, pc.site) == 0u) {
        e.code = code;
        e.value = value;
    }
}

// one instance of the dtype functions per distinct dtype
#define T_DT OUT_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#if NIN > 0 && IN0_DT != OUT_DT
#define T_DT IN0_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#if NIN > 1 && IN1_DT != OUT_DT && IN1_DT != IN0_DT
#define T_DT IN1_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#if NIN > 2 && IN2_DT != OUT_DT && IN2_DT != IN0_DT && IN2_DT != IN1_DT
#define T_DT IN2_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#if NIN > 3 && IN3_DT != OUT_DT && IN3_DT != IN0_DT && IN3_DT != IN1_DT && IN3_DT != IN2_DT
#define T_DT IN3_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif

// width in bits of the common dtype (shifts)
#define RS_CT_BITS (RS_SIZE(CM_DT) * 8)
#include "common/ops.glsl"

#if VECW
// The 16-byte path: every operand read from memory and the output have the
// common dtype (bool, an integer, float16/bfloat16/float32 or float64),
// contiguous and 16-byte aligned; VECW = 16 / its size elements per access.
// Lanes are taken from and put into the 16-byte words as bits.
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsV4 { uvec4 v; };
// VQ: words per invocation (the host passes it and sizes the launch by it)
#ifndef VQ
#define VQ 1
#endif
uint64_t rs_vlane(uvec4 q, int l) {
#if VECW == 16
    return uint64_t((q[l >> 2] >> uint((l & 3) * 8)) & 0xFFu);
#elif VECW == 8
    return uint64_t((q[l >> 1] >> uint((l & 1) * 16)) & 0xFFFFu);
#elif VECW == 4
    return uint64_t(q[l]);
#else
    return uint64_t(q[2 * l]) | (uint64_t(q[2 * l + 1]) << 32);
#endif
}
void rs_vput(inout uvec4 q, int l, uint64_t b) {
#if VECW == 16
    q[l >> 2] |= (uint(b) & 0xFFu) << uint((l & 3) * 8);
#elif VECW == 8
    q[l >> 1] |= (uint(b) & 0xFFFFu) << uint((l & 1) * 16);
#elif VECW == 4
    q[l] = uint(b);
#else
    q[2 * l] = uint(b);
    q[2 * l + 1] = uint(b >> 32);
#endif
}
// bits of the common dtype -> its opmath value, and back (as the loaders
// and the stores of common/dtype_inst.glsl do)
RS_OPMT(CM_DT) rs_vdec(uint64_t b) {
#if CM_DT == 11
    return b != 0UL;
#elif CM_DT == 0 || CM_DT == 27 || CM_DT == 28 || CM_DT == 4
    return int64_t(b);
#elif CM_DT == 1
    return int64_t(int(uint(b) << 24u) >> 24);
#elif CM_DT == 2
    return int64_t(int(uint(b) << 16u) >> 16);
#elif CM_DT == 3
    return int64_t(int(uint(b)));
#elif CM_DT == 29
    return b;
#elif CM_DT == 6
    return uintBitsToFloat(uint(b));
#elif CM_DT == 5
    return rs_f16_dec(uint(b));
#elif CM_DT == 15
    return rs_bf16_dec(uint(b));
#elif CM_DT == 7
    return uint64BitsToDouble(b);
#else
#error "VECW: dtype without a 16-byte path"
#endif
}
uint64_t rs_venc(RS_OPMT(CM_DT) r) {
#if CM_DT == 11
    return r ? 1UL : 0UL;
#elif CM_DT == 29
    return r;
#elif RS_IS_INT(CM_DT)
    return uint64_t(r);
#elif CM_DT == 6
    return uint64_t(floatBitsToUint(r));
#elif CM_DT == 5
    return uint64_t(rs_f16_enc(r));
#elif CM_DT == 15
    return uint64_t(rs_bf16_enc(r));
#else
    return doubleBitsToUint64(r);
#endif
}
#endif

// The expression over loaded values (scalars first, then the inputs).
RS_OPMT(RT_DT) rs_expr(RS_OPMT(CT_DT) s0, RS_OPMT(CT_DT) s1, RS_OPMT(CT_DT) s2, RS_OPMT(CT_DT) s3
#if NIN > 0
                       , RS_OPMT(IN0_DT) a
#endif
#if NIN > 1
                       , RS_OPMT(IN1_DT) b
#endif
#if NIN > 2
                       , RS_OPMT(IN2_DT) c
#endif
#if NIN > 3
                       , RS_OPMT(IN3_DT) d
#endif
) {
    RS_OPMT(RT_DT) r = EXPR;
#if RT_DT == CT_DT && OUT_DT != CM_DT
    r = rs_tocm(r);  // CPU computes into the common dtype, then casts to out
#endif
    return r;
}

#if NIN == 0
#define RS_ARGS(a, b, c, d)
#elif NIN == 1
#define RS_ARGS(a, b, c, d) , a
#elif NIN == 2
#define RS_ARGS(a, b, c, d) , a, b
#elif NIN == 3
#define RS_ARGS(a, b, c, d) , a, b, c
#else
#define RS_ARGS(a, b, c, d) , a, b, c, d
#endif

// One element: o[] holds the element offset of every view of the layout.
void rs_element(int64_t o[5], RS_OPMT(CT_DT) s0, RS_OPMT(CT_DT) s1, RS_OPMT(CT_DT) s2, RS_OPMT(CT_DT) s3) {
#if NIN > 0
#if IN0_S
    RS_OPMT(IN0_DT) a = RS_FROM_BITS(IN0_DT)(pc.in_[0]);
#else
    RS_OPMT(IN0_DT) a = RS_LDO(IN0_DT)(pc.in_[0], o[IN0_L]);
#endif
#endif
#if NIN > 1
#if IN1_S
    RS_OPMT(IN1_DT) b = RS_FROM_BITS(IN1_DT)(pc.in_[1]);
#else
    RS_OPMT(IN1_DT) b = RS_LDO(IN1_DT)(pc.in_[1], o[IN1_L]);
#endif
#endif
#if NIN > 2
#if IN2_S
    RS_OPMT(IN2_DT) c = RS_FROM_BITS(IN2_DT)(pc.in_[2]);
#else
    RS_OPMT(IN2_DT) c = RS_LDO(IN2_DT)(pc.in_[2], o[IN2_L]);
#endif
#endif
#if NIN > 3
#if IN3_S
    RS_OPMT(IN3_DT) d = RS_FROM_BITS(IN3_DT)(pc.in_[3]);
#else
    RS_OPMT(IN3_DT) d = RS_LDO(IN3_DT)(pc.in_[3], o[IN3_L]);
#endif
#endif
    RS_OPMT(RT_DT) r = rs_expr(s0, s1, s2, s3 RS_ARGS(a, b, c, d));
#if RS_IS_BOOL(RT_DT)
    RS_SET_B(OUT_DT)(pc.out_, o[0], r);
#elif RT_DT == 29
    RS_SET_U(OUT_DT)(pc.out_, o[0], r);
#elif RS_IS_INT(RT_DT)
    RS_SET_I(OUT_DT)(pc.out_, o[0], uint64_t(r));
#elif RS_IS_FLT(RT_DT)
    RS_SET_F(OUT_DT)(pc.out_, o[0], r);
#elif RS_IS_DBL(RT_DT)
    RS_SET_D(OUT_DT)(pc.out_, o[0], doubleBitsToUint64(r));
#elif RS_IS_CF(RT_DT)
    RS_SET_CF(OUT_DT)(pc.out_, o[0], r);
#else
    RS_SET_CD(OUT_DT)(pc.out_, o[0], u64vec2(doubleBitsToUint64(r.x), doubleBitsToUint64(r.y)));
#endif
}

#if defined(SEGS) && SEGS
// slot c of the segment table's row t (rs_pointwise_run_many)
int64_t rs_seg(uint t, int c) { return RsI64(pc.params + 8UL * (uint64_t(t) * uint64_t(NT + 1) + uint64_t(c))).v; }
#endif

void main() {
#if defined(RS_IGAM_SHARED) && RS_IGAM_SHARED
    rs_igam_init();  // igamma's table into shared memory (ops_special.glsl)
#endif
    RS_OPMT(CT_DT) s0 = RS_FROM_BITS(CT_DT)(pc.s[0]);
    RS_OPMT(CT_DT) s1 = RS_FROM_BITS(CT_DT)(pc.s[1]);
    RS_OPMT(CT_DT) s2 = RS_FROM_BITS(CT_DT)(pc.s[2]);
    RS_OPMT(CT_DT) s3 = RS_FROM_BITS(CT_DT)(pc.s[3]);
#if VECW
    // VQ words per invocation, a workgroup apart (each access of a warp
    // contiguous; several loads in flight per invocation)
    uint64_t nv = pc.numel / uint64_t(VECW);  // whole words; the host runs the tail separately
    uint64_t lid = uint64_t(gl_LocalInvocationID.x);
    uint64_t nvi = (nv + uint64_t(VQ * PW_WG) - 1UL) / uint64_t(VQ * PW_WG) * uint64_t(PW_WG);
    for (uint64_t g = uint64_t(gl_GlobalInvocationID.x); g < nvi;
         g += uint64_t(gl_NumWorkGroups.x) * uint64_t(PW_WG)) {
        uint64_t q0 = (g - lid) * uint64_t(VQ) + lid;
#if NIN > 0 && !IN0_S
        uvec4 qa[VQ];
#endif
#if NIN > 1 && !IN1_S
        uvec4 qb[VQ];
#endif
#if NIN > 2 && !IN2_S
        uvec4 qc[VQ];
#endif
#if NIN > 3 && !IN3_S
        uvec4 qd[VQ];
#endif
        [[unroll]] for (int w = 0; w < VQ; ++w) {
            uint64_t q = q0 + uint64_t(w * PW_WG);
            if (q < nv) {
                uint64_t off = q * 16UL;
#if NIN > 0 && !IN0_S
                qa[w] = RsV4(pc.in_[0] + off).v;
#endif
#if NIN > 1 && !IN1_S
                qb[w] = RsV4(pc.in_[1] + off).v;
#endif
#if NIN > 2 && !IN2_S
                qc[w] = RsV4(pc.in_[2] + off).v;
#endif
#if NIN > 3 && !IN3_S
                qd[w] = RsV4(pc.in_[3] + off).v;
#endif
            }
        }
        [[unroll]] for (int w = 0; w < VQ; ++w) {
            uint64_t q = q0 + uint64_t(w * PW_WG);
            if (q >= nv) break;
#if NIN > 0
#if IN0_S
            RS_OPMT(IN0_DT) a = RS_FROM_BITS(IN0_DT)(pc.in_[0]);
#else
            RS_OPMT(IN0_DT) a;
#endif
#endif
#if NIN > 1
#if IN1_S
            RS_OPMT(IN1_DT) b = RS_FROM_BITS(IN1_DT)(pc.in_[1]);
#else
            RS_OPMT(IN1_DT) b;
#endif
#endif
#if NIN > 2
#if IN2_S
            RS_OPMT(IN2_DT) c = RS_FROM_BITS(IN2_DT)(pc.in_[2]);
#else
            RS_OPMT(IN2_DT) c;
#endif
#endif
#if NIN > 3
#if IN3_S
            RS_OPMT(IN3_DT) d = RS_FROM_BITS(IN3_DT)(pc.in_[3]);
#else
            RS_OPMT(IN3_DT) d;
#endif
#endif
            uvec4 qr = uvec4(0u);
            // not unrolled here: lavapipe then evaluated some float functions
            // (pow) differently from the scalar path; drivers still may
            [[dont_unroll]] for (int l = 0; l < VECW; ++l) {
#if NIN > 0 && !IN0_S
                a = rs_vdec(rs_vlane(qa[w], l));
#endif
#if NIN > 1 && !IN1_S
                b = rs_vdec(rs_vlane(qb[w], l));
#endif
#if NIN > 2 && !IN2_S
                c = rs_vdec(rs_vlane(qc[w], l));
#endif
#if NIN > 3 && !IN3_S
                d = rs_vdec(rs_vlane(qd[w], l));
#endif
                rs_vput(qr, l, rs_venc(rs_expr(s0, s1, s2, s3 RS_ARGS(a, b, c, d))));
            }
            RsV4(pc.out_ + q * 16UL).v = qr;
        }
    }
#elif defined(SEGS) && SEGS
    // a list of contiguous tensors (rs_pointwise_run_many, torch's _foreach_
    // ops): pc.ndim segments; row t of the table at pc.params is segment t's
    // first element in the list's flat order, then each view's element
    // offset from address 0 (the bases pc.out_ and pc.in_ are 0). Elements
    // as on the contiguous path, each invocation walking forward from the
    // segment of its first element.
    uint64_t n = pc.numel;
    const uint nseg = pc.ndim;
    uint64_t step = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG * RS_UNROLL);
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * uint64_t(RS_WG * RS_UNROLL) + uint64_t(gl_LocalInvocationID.x);
         base < n; base += step) {
        uint lo = 0u, hi = nseg - 1u;  // the last segment starting at or before base
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if (rs_seg(mid, 0) <= int64_t(base)) lo = mid;
            else hi = mid - 1u;
        }
        uint t = lo;
        [[dont_unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i >= n) break;
            while (t + 1u < nseg && rs_seg(t + 1u, 0) <= int64_t(i)) ++t;
            const int64_t e = int64_t(i) - rs_seg(t, 0);
            int64_t o[5];
            for (int v = 0; v < NT; ++v) o[v] = rs_seg(t, 1 + v) + e;
            rs_element(o, s0, s1, s2, s3);
        }
    }
#elif CONTIG
    // every view contiguous: each invocation takes RS_UNROLL elements, one
    // workgroup-width apart, so the loads of a warp stay coalesced and each
    // thread has several in flight
    uint64_t n = pc.numel;
    uint64_t step = uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG * RS_UNROLL);
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * uint64_t(RS_WG * RS_UNROLL) + uint64_t(gl_LocalInvocationID.x);
         base < n; base += step) {
        // not unrolled: shaderc dropped `precise` (NoContraction) in the
        // unrolled copies, and drivers unroll a constant trip count anyway
        [[dont_unroll]] for (int u = 0; u < RS_UNROLL; ++u) {
            uint64_t i = base + uint64_t(u * RS_WG);
            if (i < n) {
                int64_t o[5] = int64_t[5](int64_t(i), int64_t(i), int64_t(i), int64_t(i), int64_t(i));
                rs_element(o, s0, s1, s2, s3);
            }
        }
    }
#elif RUN > 1
    // strided, runs of RUN elements along the last dim (rs_layout_run):
    // one offset computation (a division per dim) a run, then each view's
    // last stride
    const uint nd = pc.ndim;
    const uint64_t inner = uint64_t(RsI64(pc.params + 8UL * uint64_t(nd - 1u)).v);
    int64_t step[5];
    for (int v = 0; v < NT; ++v) step[v] = RsI64(pc.params + 8UL * uint64_t(uint(v + 2) * nd - 1u)).v;
    const uint64_t per_row = (inner + uint64_t(RUN - 1)) / uint64_t(RUN);
    RS_FOR_EACH(t, (pc.numel / inner) * per_row) {
        uint64_t row = t, j;
        rs_divmod(row, per_row, j);
        j *= uint64_t(RUN);
        int64_t o[5];
        rs_offsetn(pc.params, nd, NT, row * inner + j, o);
        // not unrolled: see the contiguous path
        [[dont_unroll]] for (int u = 0; u < RUN; ++u) {
            if (j + uint64_t(u) >= inner) break;
            rs_element(o, s0, s1, s2, s3);
            for (int v = 0; v < NT; ++v) o[v] += step[v];
        }
    }
#else
    RS_FOR_EACH(i, pc.numel) {
        int64_t o[5];
        rs_offsetn(pc.params, pc.ndim, NT, i, o);
        rs_element(o, s0, s1, s2, s3);
    }
#endif
}
