// rng.comp: Philox4x32-10 random fills of a strided dst (see
// common/philox.glsl for the stream layout).
// Defines: DST_DT; DIST (params/rng.h): 0 uniform, 1 normal, 2 random
// (32-bit draws), 3 random (64-bit draws), from DIST_SAMPLE on the
// distributions of rs_rng_sample and rs_dropout (float32 uniforms mapped
// by kernels/common/ops_misc.glsl's transforms, the pointwise engine's);
// SRC_DT: src's dtype (BERNOULLI_TENSOR, DROPOUT); FP64: 1 to compute in
// double (float64 dst on a device with shaderFloat64), else 0; WORDS
// (DROPOUT): whole blocks as 16-byte words (below).
#version 460
#include "common/dtype.glsl"
#include "params/rng.h"
#include "common/index.glsl"
#include "common/philox.glsl"
#if FP64
#extension GL_ARB_gpu_shader_int64 : require
#include "common/math64.glsl"
#endif

layout(local_size_x = RS_WG) in;

// a, b, c: uniform: from, to - from, to; normal: mean, std; random: from, range.
// Floats travel as the bits of the compute type (float in the low word).
layout(push_constant) uniform Push { RS_RNG_PUSH } pc;

#define T_DT DST_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#if DIST >= DIST_SAMPLE
#include "common/opmath.glsl"
#if SRC_DT != DST_DT
#define T_DT SRC_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif
#if DIST == DIST_DROPOUT
#define T_DT DST_DT
#include "common/opmath_inst.glsl"
#undef T_DT
#define T_DT 11
#include "common/dtype_inst.glsl"
#undef T_DT
#endif
void rs_no_raise() {}
#define rs_raise(code, value) rs_no_raise()  // the transforms here never raise
#include "common/ops.glsl"
#endif

#if DIST == DIST_DROPOUT
#define NVIEWS 3  // dst (out), src (x), dst2 (the mask)
#ifndef WORDS
#define WORDS 0
#endif
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RngW4 { vec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RngU32 { uint v; };
#elif DIST == DIST_BERNOULLI_TENSOR
#define NVIEWS 2  // dst, src (p)
#else
#define NVIEWS 1
#endif

#if DIST == DIST_RANDOM32 || (DIST <= DIST_NORMAL && !FP64) || DIST >= DIST_SAMPLE
#define K 4u
#else
#define K 2u
#endif

void main() {
    uint64_t nblocks = (pc.numel + uint64_t(K - 1u)) / uint64_t(K);
    RS_FOR_EACH(blk, nblocks) {
        uvec4 w = rs_philox_block(pc.seed, pc.offset, blk);
#if DIST == DIST_UNIFORM && !FP64
        float from = uintBitsToFloat(uint(pc.a)), range = uintBitsToFloat(uint(pc.b));
        float to_r = RS_ROUND(DST_DT)(uintBitsToFloat(uint(pc.c)));
        float v[4];
        for (int k = 0; k < 4; ++k) {
            precise float x = rs_u01(w[k]) * range + from;
            v[k] = RS_ROUND(DST_DT)(x) == to_r ? from : x;  // [from, to), as CUDA
        }
#elif DIST == DIST_UNIFORM
        double from = uint64BitsToDouble(pc.a), range = uint64BitsToDouble(pc.b);
        double to = uint64BitsToDouble(pc.c);
        double v[2];
        for (int k = 0; k < 2; ++k) {
            uint64_t r = pack64(uvec2(w[2 * k], w[2 * k + 1])) >> 11;
            precise double x = double(r) * (1.0LF / 9007199254740992.0LF) * range + from;
            v[k] = x == to ? from : x;
        }
#elif (DIST == DIST_NORMAL && !FP64) || DIST == DIST_LOG_NORMAL
        float mean = uintBitsToFloat(uint(pc.a)), stdv = uintBitsToFloat(uint(pc.b));
        float v[4];
        for (int k = 0; k < 4; k += 2) {
            // Box-Muller; the angle lies in [-pi, pi) where cos/sin are accurate
            float r = sqrt(-2.0 * log(rs_u01_open0(w[k])));
            float t = 6.2831853071795864769 * rs_u01(w[k + 1]) - 3.1415926535897932385;
            v[k] = mean + stdv * (r * cos(t));
            v[k + 1] = mean + stdv * (r * sin(t));
        }
#elif DIST == DIST_NORMAL
        double mean = uint64BitsToDouble(pc.a), stdv = uint64BitsToDouble(pc.b);
        double u1 = (double(pack64(w.xy) >> 11) + 1.0LF) * (1.0LF / 9007199254740992.0LF);
        double u2 = double(pack64(w.zw) >> 11) * (1.0LF / 9007199254740992.0LF);
        double r = sqrt(-2.0LF * rs_log_d(u1));
        double sn, cs;
        rs_sincos_d(6.28318530717958647692LF * u2 - 3.14159265358979323846LF, sn, cs);
        double v[2] = double[2](mean + stdv * (r * cs), mean + stdv * (r * sn));
#elif DIST >= DIST_SAMPLE
        // u in [0, 1): the float32 uniform rs_rng_uniform(0, 1) writes here
        float v[4];
        for (int k = 0; k < 4; ++k) v[k] = rs_u01(w[k]);
#elif DIST == DIST_RANDOM32
        uint r32 = uint(pc.b);
        uint64_t v[4];
        for (int k = 0; k < 4; ++k) v[k] = pc.a + uint64_t(w[k] % r32);
#else
        uint64_t v[2];
        for (int k = 0; k < 2; ++k) {
            uint64_t r = pack64(uvec2(w[2 * k], w[2 * k + 1]));
            v[k] = pc.a + (pc.b == 0UL ? r : r % pc.b);
        }
#endif
#if DIST == DIST_DROPOUT && WORDS
        // contiguous float32 views, out and x 16-byte aligned, the mask 4
        // (rng.c): a whole block's 4 elements as one 16-byte load and
        // store, its 4 mask bytes as one 32-bit store (element-wise, the
        // lanes' accesses lay 16 bytes apart: a quarter of each used)
        if ((blk + 1UL) * uint64_t(K) <= pc.numel) {
            const vec4 x4 = RngW4(pc.src + blk * 16UL).v;
            const float keep_p = uintBitsToFloat(uint(pc.a)), scale = uintBitsToFloat(uint(pc.b));
            vec4 y4;
            uint m4 = 0u;
            [[unroll]] for (int k = 0; k < 4; ++k) {
                const bool kept = rs_mx_bernoulli(v[k], keep_p);
                m4 |= (kept ? 1u : 0u) << (8 * k);
                y4[k] = rs_mx_dropout(x4[k], kept, scale);
            }
            RngW4(pc.dst + blk * 16UL).v = y4;
            RngU32(pc.dst2 + blk * 4UL).v = m4;
            continue;
        }
#endif
#if DIST == DIST_DROPOUT
        // the block's x loaded before any store, so that its loads are in
        // flight together (a store between them would hold the next load
        // back: the compiler cannot tell that out does not alias x)
        RS_OPMT(DST_DT) xs[K];
        int64_t out_o[K], mask_o[K];
        [[unroll]] for (uint k = 0u; k < K; ++k) {
            uint64_t e = blk * uint64_t(K) + uint64_t(k);
            if (e >= pc.numel) break;
            int64_t os[5];
            if (pc.ndim == 0u) os[0] = os[1] = os[2] = int64_t(e);
            else rs_offsetn(pc.params, pc.ndim, NVIEWS, e, os);
            out_o[k] = os[0], mask_o[k] = os[2];
            xs[k] = RS_LDO(DST_DT)(pc.src, os[1]);
        }
#endif
        for (uint k = 0u; k < K; ++k) {
            uint64_t e = blk * uint64_t(K) + uint64_t(k);
            if (e >= pc.numel) break;
#if DIST == DIST_DROPOUT
            int64_t o = out_o[k];
#elif NVIEWS == 1
            int64_t o = pc.ndim == 0u ? int64_t(e) : rs_offset1(pc.params, pc.ndim, e);
#else
            int64_t os[5];
            if (pc.ndim == 0u) os[0] = os[1] = os[2] = int64_t(e);
            else rs_offsetn(pc.params, pc.ndim, NVIEWS, e, os);
            int64_t o = os[0];
#endif
#if DIST == DIST_BERNOULLI
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_bernoulli(v[k], uintBitsToFloat(uint(pc.a))) ? 1.0 : 0.0);
#elif DIST == DIST_BERNOULLI_TENSOR
#if RS_IS_DBL(SRC_DT)
            float p = rs_f_from_d(RS_GET(SRC_DT)(pc.src, os[1]));
#else
            float p = RS_GET(SRC_DT)(pc.src, os[1]);
#endif
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_bernoulli(v[k], p) ? 1.0 : 0.0);
#elif DIST == DIST_EXPONENTIAL
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_exponential(v[k], uintBitsToFloat(uint(pc.a))));
#elif DIST == DIST_GEOMETRIC
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_geometric(v[k], uintBitsToFloat(uint(pc.a))));
#elif DIST == DIST_CAUCHY
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_cauchy(v[k], uintBitsToFloat(uint(pc.a)), uintBitsToFloat(uint(pc.b))));
#elif DIST == DIST_LOG_NORMAL
            RS_SET_F(DST_DT)(pc.dst, o, rs_exp(v[k]));
#elif DIST == DIST_DROPOUT
            // native_dropout: the mask and (x * mask) * scale
            bool keep = rs_mx_bernoulli(v[k], uintBitsToFloat(uint(pc.a)));
            RS_SET_B(11)(pc.dst2, mask_o[k], keep);
#if FP64
            precise double t = xs[k] * (keep ? 1.0LF : 0.0LF);
            precise double r = t * uint64BitsToDouble(pc.b);
            RS_SET_D(DST_DT)(pc.dst, o, doubleBitsToUint64(r));
#else
            RS_SET_F(DST_DT)(pc.dst, o, rs_mx_dropout(xs[k], keep, uintBitsToFloat(uint(pc.b))));
#endif
#elif DIST >= DIST_RANDOM32
            RS_SET_I(DST_DT)(pc.dst, o, v[k]);
#elif FP64
            RS_SET_D(DST_DT)(pc.dst, o, doubleBitsToUint64(v[k]));
#else
            RS_SET_F(DST_DT)(pc.dst, o, v[k]);
#endif
        }
    }
}
