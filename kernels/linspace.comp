// linspace.comp: linspace / logspace as PyTorch's CPU computes them
// (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp): with
// step = (end - start) / (steps - 1) (computed on the host),
//     v[i] = i < steps / 2 ? start + step * i : end - step * (steps - i - 1)
// (float32 with fused multiply-adds, as CPU's build contracts them)
// and, for logspace, dst[i] = base ** v[i].
// Defines: DST_DT; MODE: 0 float (each operation rounded to the dtype, as
// c10's Half/BFloat16 arithmetic does; complex64 as float), 1 float
// rounded to the dtype once (torch 2.15's float16/bfloat16), 2 double
// (native fp64), 4 int64 (integer dtypes whose step is an integer: exact);
// LOG: 0 linspace, 1 logspace.
#version 460
#include "common/dtype.glsl"
#include "params/range.h"
#include "common/index.glsl"
#if MODE == LS_DOUBLE
#extension GL_ARB_gpu_shader_int64 : require
#include "common/math64.glsl"
#endif

layout(local_size_x = RS_WG) in;

// (params/range.h: the fields, the MODE names)
layout(push_constant) uniform Push { RS_LINSPACE_PUSH } pc;

#define T_DT DST_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#if MODE == LS_FLOAT && RS_IS_FLT(DST_DT)
#define R(x) RS_ROUND(DST_DT)(x)
#else
#define R(x) (x)
#endif

#if MODE == LS_FLOAT && LOG
// base ** x: exact products for integral exponents, else exp2(x log2 base).
float rs_pow_f(float base, float lb, float x) {
    if (x == floor(x) && abs(x) <= 64.0) {
        float r = 1.0, b = base;
        uint n = uint(abs(x));
        while (n != 0u) {
            if ((n & 1u) != 0u) r *= b;
            b *= b;
            n >>= 1;
        }
        return x < 0.0 ? 1.0 / r : r;
    }
    return exp2(x * lb);
}
#endif
#if MODE == LS_DOUBLE && LOG
double rs_pow_d(double base, double lnb, double x) {
    if (x == floor(x) && abs(x) <= 64.0LF) {
        double r = 1.0LF, b = base;
        uint n = uint(abs(x));
        while (n != 0u) {
            if ((n & 1u) != 0u) r *= b;
            b *= b;
            n >>= 1;
        }
        return x < 0.0LF ? 1.0LF / r : r;
    }
    return rs_exp_d(x * lnb);
}
#endif

#if MODE == LS_FLOAT && DST_DT == 6 && !LOG
// a * b + c rounded once, without relying on the device's fma() being fused
// (lavapipe's is not): Dekker's exact product, a two-sum, the low parts
// added with rounding to odd, one final rounding
float ls_fma(float a, float b, float c) {
    precise float p = a * b;
    if (isinf(p) || isnan(p) || abs(a) > 1e30 || abs(b) > 1e30) return p + c;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    precise float s = p + c;
    precise float bb = s - p;
    precise float t = (p - (s - bb)) + (c - bb);
    // t + e rounded to odd, so that the last rounding sees a tie as broken
    precise float u = t + e;
    precise float ub_ = u - t;
    precise float v = (t - (u - ub_)) + (e - ub_);
    uint bits = floatBitsToUint(u);
    if (v != 0.0) {
        if ((v < 0.0) != (u < 0.0)) bits -= 1u;  // the exact sum is nearer zero than u
        bits |= 1u;
    }
    precise float r = s + uintBitsToFloat(bits);
    return r;
}
#endif

void main() {
    int64_t steps = int64_t(pc.numel);
    int64_t halfway = steps / 2L;
    RS_FOR_EACH(i, pc.numel) {
        int64_t o = pc.ndim == 0u ? int64_t(i) : rs_offset1(pc.params, pc.ndim, i);
        int64_t ii = int64_t(i);
#if MODE == LS_FLOAT || MODE == LS_FLOAT_ONCE
        float s = uintBitsToFloat(uint(pc.a)), e = uintBitsToFloat(uint(pc.b));
        float st = uintBitsToFloat(uint(pc.c));
#if DST_DT == 6 && !LOG
        // float32: CPU's kernel is compiled with multiply-add contraction
        // (x86 AVX2/AVX-512 and arm64 builds), one rounding per element
        precise float v = ii < halfway ? ls_fma(st, float(ii), s) : ls_fma(-st, float(steps - ii - 1L), e);
#else
        precise float v = ii < halfway ? R(s + R(st * R(float(ii))))
                                       : R(e - R(st * R(float(steps - ii - 1L))));
#endif
#if LOG
        v = rs_pow_f(uintBitsToFloat(uint(pc.d)), uintBitsToFloat(uint(pc.e)), v);
#endif
        RS_SET_F(DST_DT)(pc.dst, o, v);
#elif MODE == LS_DOUBLE
        double s = uint64BitsToDouble(pc.a), e = uint64BitsToDouble(pc.b);
        double st = uint64BitsToDouble(pc.c);
        precise double v = ii < halfway ? s + st * double(ii) : e - st * double(steps - ii - 1L);
#if LOG
        v = rs_pow_d(uint64BitsToDouble(pc.d), uint64BitsToDouble(pc.e), v);
#endif
        RS_SET_D(DST_DT)(pc.dst, o, doubleBitsToUint64(v));
#else
        int64_t s = int64_t(pc.a), e = int64_t(pc.b), st = int64_t(pc.c);
        int64_t v = ii < halfway ? s + st * ii : e - st * (steps - ii - 1L);
        RS_SET_I(DST_DT)(pc.dst, o, uint64_t(v));
#endif
    }
}
