// rng.comp: Philox4x32-10 random fills of a strided dst (see
// common/philox.glsl for the stream layout).
// Defines: DST_DT; DIST: 0 uniform, 1 normal, 2 random (32-bit draws),
// 3 random (64-bit draws); FP64: 1 to compute in double (float64 dst on a
// device with shaderFloat64), else 0.
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

#if DIST == DIST_RANDOM32 || (DIST <= DIST_NORMAL && !FP64)
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
#elif DIST == DIST_NORMAL && !FP64
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
        for (uint k = 0u; k < K; ++k) {
            uint64_t e = blk * uint64_t(K) + uint64_t(k);
            if (e >= pc.numel) break;
            int64_t o = pc.ndim == 0u ? int64_t(e) : rs_offset1(pc.params, pc.ndim, e);
#if DIST >= DIST_RANDOM32
            RS_SET_I(DST_DT)(pc.dst, o, v[k]);
#elif FP64
            RS_SET_D(DST_DT)(pc.dst, o, doubleBitsToUint64(v[k]));
#else
            RS_SET_F(DST_DT)(pc.dst, o, v[k]);
#endif
        }
    }
}
