// amp.comp: the gradient scaler (src/engine/amp.c, contract in
// russet/amp.h).
// MODE 0: g *= inv_scale over a strided gradient, found_inf = 1 where an
//   element was not finite (a plain store of 1.0: every writer writes the
//   same value, as CUDA's kernel does).
// MODE 1: one invocation updates the scale and the growth tracker; the
//   scale times a factor is float(double(s) * b) in integer arithmetic
//   (mul_as_double: exact, with no fp64).
// Defines: MODE; DT (MODE 0: the gradient's dtype).
#version 460
#include "common/dtype.glsl"
#include "params/amp.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_AMP_PUSH } pc;

float ld_f32(uint64_t a) { return uintBitsToFloat(RsU32(a).v); }
void st_f32(uint64_t a, float v) { RsU32(a).v = floatBitsToUint(v); }

#if MODE == 0
#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#if RS_IS_DBL(DT)
void store(int64_t off, ACC v) { RS_SET_D(DT)(pc.g, off, doubleBitsToUint64(v)); }
#else
void store(int64_t off, ACC v) { RS_SET_F(DT)(pc.g, off, v); }
#endif

void main() {
    const ACC inv = ACC(ld_f32(pc.inv_scale));
    bool bad = false;
    RS_FOR_EACH(i, pc.numel) {
        const int64_t o = pc.ndim == 0u ? int64_t(i) : rs_offset1(pc.params, pc.ndim, i);
        const ACC v = RS_LDO(DT)(pc.g, o);
        bad = bad || isnan(v) || isinf(v);
        store(o, v * inv);
    }
    if (bad) st_f32(pc.found_inf, 1.0);
}

#else  // MODE 1

// float(double(s) * b), b given as a double's bits, as CPU's and CUDA's
// float-times-double: the exact product of the two mantissas (24 by 53
// bits, in a 128-bit pair of words), rounded to nearest even to 53 bits
// (the double product), then to float (rs_f_from_d). Integer arithmetic
// only: no fp64, nothing a compiler can fuse. Zeros, infinities, NaNs and
// a b that is not a normal double (or a product outside the normal double
// range, never for a float scale and a factor of moderate size) take the
// float product s * float(b).
float mul_as_double(float s, uint64_t b) {
    const float fallback = s * rs_f_from_d(b);
    const uint w = floatBitsToUint(s);
    const uint fe = (w >> 23) & 0xFFu, be = uint(b >> 52) & 0x7FFu;
    if (fe == 0xFFu || (w & 0x7FFFFFFFu) == 0u || be == 0u || be == 0x7FFu) return fallback;
    // s = ms 2^es, b = mb 2^eb
    const uint64_t ms = uint64_t(fe != 0u ? (w & 0x7FFFFFu) | 0x800000u : w & 0x7FFFFFu);
    const int es = (fe != 0u ? int(fe) : 1) - 150;
    const uint64_t mb = (b & 0xFFFFFFFFFFFFFUL) | (1UL << 52);
    const int eb = int(be) - 1075;
    // P = ms mb = hi 2^64 + lo: mb = mh 2^32 + ml, ms ml < 2^56, ms mh < 2^45
    const uint64_t t1 = ms * (mb & 0xFFFFFFFFUL), t2 = ms * (mb >> 32);
    const uint64_t lo = t1 + (t2 << 32);
    const uint64_t hi = (t2 >> 32) + (lo < t1 ? 1UL : 0UL);
    const int nb = 1 + (hi != 0UL ? 64 + rs_msb64(hi) : rs_msb64(lo));  // P's bits, 53 to 77
    const uint sh = uint(max(nb - 53, 0));
    uint64_t m = lo;
    if (sh > 0u) {
        m = (lo >> sh) | (hi << (64u - sh));
        const uint64_t rem = lo & ((1UL << sh) - 1UL), hw = 1UL << (sh - 1u);
        if (rem > hw || (rem == hw && (m & 1UL) != 0UL)) m++;
    }
    int e = es + eb + int(sh);  // value = m 2^e, m in [2^52, 2^53]
    if (m == (1UL << 53)) {
        m >>= 1;
        e++;
    }
    const int de = e + 1075;  // the double's exponent field
    if (de < 1 || de > 2046) return fallback;
    const uint64_t d = (uint64_t(w >> 31) << 63) ^ (b & 0x8000000000000000UL) | (uint64_t(de) << 52) |
                       (m & 0xFFFFFFFFFFFFFUL);
    return rs_f_from_d(d);
}

void main() {
    if (gl_GlobalInvocationID.x != 0u) return;
    const float s = ld_f32(pc.scale);
    const int t = int(RsU32(pc.tracker).v);
    if (ld_f32(pc.found_inf) != 0.0) {
        st_f32(pc.scale, mul_as_double(s, pc.factor[1]));
        RsU32(pc.tracker).v = 0u;
        return;
    }
    const int succ = t + 1;
    if (int64_t(succ) == pc.interval) {
        const float grown = mul_as_double(s, pc.factor[0]);
        if (!isinf(grown) && !isnan(grown)) st_f32(pc.scale, grown);
        RsU32(pc.tracker).v = 0u;
    } else {
        RsU32(pc.tracker).v = uint(succ);
    }
}
#endif
