// arange.comp: dst[i] = start + i * step, computed as PyTorch's CPU does
// (in the dtype's accumulate type), for a strided dst.
// Defines: DST_DT; MODE: 0 int64 (integer dtypes: start and step already
// truncated to int64), 1 float (fp16, bf16, fp8: CPU accumulates in float),
// 2 double (native fp64), 3 double emulated with float pairs (float32 on a
// device without fp64: the double result, rounded to float, except in rare
// near-ties).
#version 460
#include "common/dtype.glsl"
#include "params/range.h"
#include "common/index.glsl"
#if MODE == AR_DOUBLE
#extension GL_ARB_gpu_shader_int64 : require
#endif

layout(local_size_x = RS_WG) in;

// (params/range.h: the fields, the MODE names)
layout(push_constant) uniform Push { RS_ARANGE_PUSH } pc;

#define T_DT DST_DT
#include "common/dtype_inst.glsl"
#undef T_DT

#if MODE == AR_FLOAT2
// Exact a*b = p + e (Dekker), without fma (GLSL may or may not fuse it).
void rs_two_prod(float a, float b, out float p, out float e) {
    precise float pp = a * b;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float err = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = err;
}
#endif

void main() {
    RS_FOR_EACH(i, pc.numel) {
        int64_t o = pc.ndim == 0u ? int64_t(i) : rs_offset1(pc.params, pc.ndim, i);
#if MODE == AR_INT
        RS_SET_I(DST_DT)(pc.dst, o, pc.a + pc.b * i);
#elif MODE == AR_FLOAT
        precise float v = uintBitsToFloat(uint(pc.a)) + uintBitsToFloat(uint(pc.b)) * float(int64_t(i));
        RS_SET_F(DST_DT)(pc.dst, o, v);
#elif MODE == AR_DOUBLE
        precise double v = uint64BitsToDouble(pc.a) + uint64BitsToDouble(pc.b) * double(int64_t(i));
        RS_SET_D(DST_DT)(pc.dst, o, doubleBitsToUint64(v));
#else
        vec2 s = uintBitsToFloat(unpack32(pc.a));
        vec2 t = uintBitsToFloat(unpack32(pc.b));
        float ih = float(int64_t(i));
        float il = float(int64_t(i) - int64_t(ih));
        float p, pe;
        rs_two_prod(t.x, ih, p, pe);
        precise float h = s.x + p;  // two-sum of s.x and p
        precise float bb = h - s.x;
        precise float l = (s.x - (h - bb)) + (p - bb);
        precise float rest = l + (s.y + (pe + (t.x * il + t.y * ih)));
        precise float v = h + rest;
        RS_SET_F(DST_DT)(pc.dst, o, v);
#endif
    }
}
