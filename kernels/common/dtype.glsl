// dtype.glsl: storage, codecs and conversions for every russet dtype.
//
// Dtype codes are c10::ScalarType numbers (rs_dtype in russet/runtime.h). This file
// holds what is shared; common/dtype_inst.glsl is a template that a kernel
// includes once per dtype it touches, with T_DT defined to that code:
//
//     #define T_DT SRC_DT
//     #include "common/dtype_inst.glsl"
//     #undef T_DT
//
// which defines, for T = T_DT, functions named with the code appended
// (RS_GET(T), RS_SET_F(T), ... below pick them by code).
//
// Every conversion follows PyTorch's CPU casts (c10/util/TypeCast.h, built
// with gcc on x86-64), and uses integer arithmetic only, so it is exact on
// any device, whatever its denormal or rounding modes:
// - fp16, bf16 and the fp8 formats are stored as bits; encoders round to
//   nearest even exactly as c10's converters (overflow, NaN, saturation).
// - float64 is carried as its bits (uint64_t) with software conversions, so
//   no kernel here needs shaderFloat64 (the apple profile has none).
// - float -> integer truncates as gcc's cvtt* instructions do: through int32
//   for int8/int16/int32/uint16, through int64 otherwise (uint8 as c10 says),
//   out of range and NaN give the "integer indefinite" 0x80000000(00000000).
// - complex -> real keeps the real part; anything -> bool is != 0.
#ifndef RS_DTYPE_GLSL
#define RS_DTYPE_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : enable

#define RS_CAT_(a, b) a##b
#define RS_CAT(a, b) RS_CAT_(a, b)

// Dtype classes, usable in #if.
#define RS_IS_BOOL(d) ((d) == 11)
#define RS_IS_INT(d) ((d) == 0 || (d) == 1 || (d) == 2 || (d) == 3 || (d) == 4 || \
                      (d) == 27 || (d) == 28 || (d) == 29)
#define RS_IS_FLT(d) ((d) == 5 || (d) == 6 || (d) == 15 || (d) == 23 || (d) == 24 || \
                      (d) == 25 || (d) == 26 || (d) == 44)
#define RS_IS_DBL(d) ((d) == 7)
#define RS_IS_CF(d) ((d) == 8 || (d) == 9)
#define RS_IS_CD(d) ((d) == 10)
#define RS_IS_COMPLEX(d) (RS_IS_CF(d) || RS_IS_CD(d))
#define RS_SIZE(d) (((d) == 0 || (d) == 1 || (d) == 11 || (d) == 23 || (d) == 24 || \
                     (d) == 25 || (d) == 26 || (d) == 44) ? 1 :                      \
                    ((d) == 2 || (d) == 5 || (d) == 15 || (d) == 27) ? 2 :           \
                    ((d) == 3 || (d) == 6 || (d) == 8 || (d) == 28) ? 4 :            \
                    ((d) == 10) ? 16 : 8)

// Accessors for the functions dtype_inst.glsl defines for dtype code d.
// RS_GET(d)(addr, off) gives the element in its natural form: uint64_t
// (int64 bits) for bool and integers, float for the float32 family,
// uint64_t bits for float64, vec2 for complex32/64, u64vec2 for complex128.
// The setters store a value of each form converted to d.
#define RS_GET(d) RS_CAT(rs_get_, d)
#define RS_SET_B(d) RS_CAT(rs_set_b_, d)    // bool
#define RS_SET_I(d) RS_CAT(rs_set_i_, d)    // int64 (as uint64_t bits)
#define RS_SET_U(d) RS_CAT(rs_set_u_, d)    // uint64
#define RS_SET_F(d) RS_CAT(rs_set_f_, d)    // float
#define RS_SET_D(d) RS_CAT(rs_set_d_, d)    // float64 bits
#define RS_SET_CF(d) RS_CAT(rs_set_cf_, d)  // complex64
#define RS_SET_CD(d) RS_CAT(rs_set_cd_, d)  // complex128 bits
#define RS_ROUND(d) RS_CAT(rs_round_, d)    // float -> nearest value of d (float family)

// Storage: byte addresses; element offsets are 64-bit.
layout(buffer_reference, std430, buffer_reference_align = 1) buffer RsU8 { uint8_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer RsU16 { uint16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RsU32 { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsU64 { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsI64 { int64_t v; };

uint64_t rs_addr(uint64_t base, int64_t off, uint esize) {
    return base + uint64_t(off) * uint64_t(esize);
}

// ---------------------------------------------------------------- helpers

// Round-to-nearest-even of m / 2^s, for 1 <= s <= 31 and m < 2^31.
uint rs_rne_shift(uint m, uint s) {
    if (s >= 32u) return 0u;
    return (m + ((1u << (s - 1u)) - 1u) + ((m >> s) & 1u)) >> s;
}

// Rounds a positive float (bits a, below the format's normal range) to a
// multiple of 2^-(unit_exp): the fp8/fp16 subnormal encodings. c10 does this
// with a float add of a magic constant; this is the same rounding, exact.
uint rs_subnormal_bits(uint a, int unit_exp) {
    uint e = a >> 23;
    if (e == 0u) return 0u;  // fp32 denormals are far below every unit
    uint m = (a & 0x7FFFFFu) | 0x800000u;
    // value = m * 2^(e - 150); in units of 2^-unit_exp: m >> (150 - unit_exp - e)
    int s = 150 - unit_exp - int(e);
    if (s <= 0) return m << uint(-s);  // not reached for the callers' ranges
    if (s > 25) return 0u;
    return rs_rne_shift(m, uint(s));
}

// ---------------------------------------------------------------- fp16
// c10::detail::fp16_ieee_from_fp32_value: RNE, overflow -> inf, NaN -> 0x7E00.
uint rs_f16_enc_c10(float f) {
    uint w = floatBitsToUint(f);
    uint sign = (w >> 16) & 0x8000u;
    uint a = w & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return sign | 0x7E00u;
    if (a >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds to inf
    if (a >= 0x38800000u) {                       // normal half
        uint m = a - 0x38000000u;                 // rebias 127 -> 15
        return sign | ((m + 0xFFFu + ((m >> 13) & 1u)) >> 13);
    }
    return sign | rs_subnormal_bits(a, 24);
}

// c10::detail::fp16_ieee_to_fp32_bits.
float rs_f16_dec_c10(uint h) {
    uint w = h << 16;
    uint sign = w & 0x80000000u;
    uint nonsign = w & 0x7FFFFFFFu;
    if (nonsign == 0u) return uintBitsToFloat(sign);
    uint renorm = 31u - uint(findMSB(nonsign));
    renorm = renorm > 5u ? renorm - 5u : 0u;
    uint inf_nan = uint(int(nonsign + 0x04000000u) >> 8) & 0x7F800000u;
    return uintBitsToFloat(sign | ((((nonsign << renorm) >> 3) + ((0x70u - renorm) << 23)) | inf_nan));
}

// The device's own conversions (one instruction each on most GPUs), with
// NaNs made c10's: encode gives 0x7E00 with the sign, decode keeps the
// payload. Whether the rest rounds to nearest even and keeps subnormals
// as c10 does is checked once per device against the functions above
// (kernels/f16_check.comp, src/vk/f16_check.c), which then sets RS_HW_F16.
uint rs_f16_enc_dev(float f) {
    uint sign = (floatBitsToUint(f) >> 16) & 0x8000u;
    return isnan(f) ? (sign | 0x7E00u) : (packHalf2x16(vec2(f, 0.0)) & 0xFFFFu);
}
float rs_f16_dec_dev(uint h) {
    h &= 0xFFFFu;
    if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0u)
        return uintBitsToFloat(((h & 0x8000u) << 16) | 0x7F800000u | ((h & 0x3FFu) << 13));
    return unpackHalf2x16(h).x;
}

#if defined(RS_HW_F16) && RS_HW_F16
#define rs_f16_enc rs_f16_enc_dev
#define rs_f16_dec rs_f16_dec_dev
#else
#define rs_f16_enc rs_f16_enc_c10
#define rs_f16_dec rs_f16_dec_c10
#endif

// ---------------------------------------------------------------- bf16
// c10::detail::round_to_nearest_even: NaN -> 0x7FC0 (sign dropped).
uint rs_bf16_enc(float f) {
    uint w = floatBitsToUint(f);
    if ((w & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
    return (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16;
}
float rs_bf16_dec(uint b) { return uintBitsToFloat(b << 16); }

// ---------------------------------------------------------------- fp8 e4m3fn
// c10: >= 480 (and inf) saturate to 448 (0x7E), NaN -> 0x7F, sign kept.
uint rs_e4m3fn_enc(float f) {
    uint w = floatBitsToUint(f);
    uint sign = (w >> 24) & 0x80u;
    uint a = w & 0x7FFFFFFFu;
    uint r;
    if (a >= 0x43F00000u) {
        r = a > 0x7F800000u ? 0x7Fu : 0x7Eu;
    } else if (a < (121u << 23)) {
        r = rs_subnormal_bits(a, 9);
    } else {
        a += ((7u - 127u) << 23) + 0x7FFFFu + ((a >> 20) & 1u);
        r = (a >> 20) & 0xFFu;
        if (r == 0x7Fu) r = 0x7Eu;
    }
    return r | sign;
}
float rs_e4m3fn_dec(uint x) {
    uint w = x << 24;
    uint sign = w & 0x80000000u;
    uint nonsign = w & 0x7FFFFFFFu;
    if (nonsign == 0u) return uintBitsToFloat(sign);
    uint renorm = 31u - uint(findMSB(nonsign));
    renorm = renorm > 4u ? renorm - 4u : 0u;
    uint inf_nan = uint(int(nonsign + 0x01000000u) >> 8) & 0x7F800000u;
    return uintBitsToFloat(sign | ((((nonsign << renorm) >> 4) + ((0x78u - renorm) << 23)) | inf_nan));
}

// ---------------------------------------------------------------- fp8 e5m2
// c10: >= 65536 -> inf (0x7C), NaN -> 0x7F, sign kept; decodes through fp16.
uint rs_e5m2_enc(float f) {
    uint w = floatBitsToUint(f);
    uint sign = (w >> 24) & 0x80u;
    uint a = w & 0x7FFFFFFFu;
    uint r;
    if (a >= (143u << 23)) {
        r = a > 0x7F800000u ? 0x7Fu : 0x7Cu;
    } else if (a < (113u << 23)) {
        r = rs_subnormal_bits(a, 16);
    } else {
        a += ((15u - 127u) << 23) + 0xFFFFFu + ((a >> 21) & 1u);
        r = (a >> 21) & 0xFFu;
    }
    return r | sign;
}
float rs_e5m2_dec(uint x) { return rs_f16_dec(x << 8); }

// ---------------------------------------------------------------- fnuz
// c10: >= 2^8 (e4m3) / 2^16 (e5m2), inf and NaN -> 0x80 (the only NaN);
// a result of zero is +0 (there is no -0).
uint rs_fnuz_enc(float f, uint max_bits, uint denorm_lo, int unit_exp, uint rebias,
                 uint mshift) {
    uint w = floatBitsToUint(f);
    uint sign = (w >> 24) & 0x80u;
    uint a = w & 0x7FFFFFFFu;
    if (a >= max_bits) return 0x80u;
    uint r;
    if (a < denorm_lo) {
        r = rs_subnormal_bits(a, unit_exp);
        if (r == 0u) return 0u;
    } else {
        a += rebias + ((1u << (mshift - 1u)) - 1u) + ((a >> mshift) & 1u);
        r = (a >> mshift) & 0xFFu;
    }
    return r | sign;
}
uint rs_e4m3fnuz_enc(float f) {
    return rs_fnuz_enc(f, 0x87u << 23, 0x78u << 23, 10, (8u - 127u) << 23, 20u);
}
uint rs_e5m2fnuz_enc(float f) {
    return rs_fnuz_enc(f, 0x8Fu << 23, 0x70u << 23, 17, (16u - 127u) << 23, 21u);
}
// torch::headeronly::detail::fp8_fnuz_to_fp32_value<we, wm>.
float rs_fnuz_dec(uint x, uint we, uint wm) {
    if (x == 0u) return 0.0;
    if (x == 0x80u) return uintBitsToFloat(0x7F800001u);
    uint mant = x & ((1u << wm) - 1u);
    uint expo = (x & 0x7Fu) >> wm;
    if (expo == 0u) {
        uint renorm = 31u - uint(findMSB(mant));
        uint sh = 1u + renorm - (32u - wm);
        mant <<= sh;
        expo += 1u - sh;
        mant &= (1u << wm) - 1u;
    }
    uint cutoff = (1u << 7) - (1u << (we - 1u));
    expo += cutoff - 1u;
    mant <<= 23u - wm;
    return uintBitsToFloat(((x >> 7) << 31) | (expo << 23) | mant);
}

// ---------------------------------------------------------------- fp8 e8m0fnu
uint rs_e8m0_enc(float f) {
    uint w = floatBitsToUint(f);
    uint e = (w >> 23) & 0xFFu;
    if (e == 0xFFu) return 0xFFu;
    bool g = (w & 0x400000u) != 0u, r = (w & 0x200000u) != 0u, s = (w & 0x1FFFFFu) != 0u;
    if (g && (r || s || e > 0u)) e++;
    return e;
}
float rs_e8m0_dec(uint x) {
    if (x == 0u) return uintBitsToFloat(0x00400000u);
    if (x == 0xFFu) return uintBitsToFloat(0x7F800001u);
    return uintBitsToFloat(x << 23);
}

// ---------------------------------------------------------------- float64, in software
// x86-64 semantics: conversions quiet NaNs and keep their payload's top bits.

uint64_t rs_d_from_f(float f) {
    uint w = floatBitsToUint(f);
    uint64_t s = uint64_t(w >> 31) << 63;
    uint e = (w >> 23) & 0xFFu;
    uint m = w & 0x7FFFFFu;
    if (e == 0xFFu) {
        uint64_t q = m != 0u ? (uint64_t(1) << 51) : uint64_t(0);
        return s | 0x7FF0000000000000UL | q | (uint64_t(m) << 29);
    }
    if (e == 0u) {
        if (m == 0u) return s;
        uint p = uint(findMSB(m));  // value = 1.x * 2^(p - 149)
        m = (m << (23u - p)) & 0x7FFFFFu;
        return s | (uint64_t(p + 874u) << 52) | (uint64_t(m) << 29);
    }
    return s | (uint64_t(e + 896u) << 52) | (uint64_t(m) << 29);
}

// RNE of the 64-bit u / 2^s, 1 <= s <= 63.
uint64_t rs_rne_shift64(uint64_t u, uint s) {
    uint64_t q = u >> s;
    uint64_t rem = u & ((uint64_t(1) << s) - 1UL);
    uint64_t hw = uint64_t(1) << (s - 1u);
    if (rem > hw || (rem == hw && (q & 1UL) != 0UL)) q++;
    return q;
}

// The sign bit of a 64-bit word. Written on the high 32-bit half because
// lavapipe (Mesa 22-24) miscompiles int64_t(v) < 0 and (v >> 63) != 0 when v
// is a sign-extended 32-bit value.
bool rs_sign64(uint64_t v) { return (uint(v >> 32) & 0x80000000u) != 0u; }

int rs_msb64(uint64_t u) {
    uint hi = uint(u >> 32);
    return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(u));
}

float rs_f_from_d(uint64_t d) {
    uint s = uint(d >> 63) << 31;
    uint e = uint(d >> 52) & 0x7FFu;
    uint64_t m = d & 0xFFFFFFFFFFFFFUL;
    if (e == 0x7FFu) {
        uint nan = m != 0UL ? (0x400000u | uint(m >> 29)) : 0u;
        return uintBitsToFloat(s | 0x7F800000u | nan);
    }
    int ef = int(e) - 1023 + 127;
    if (ef >= 0xFF) return uintBitsToFloat(s | 0x7F800000u);
    if (ef >= 1) {
        // mantissa carry runs into the exponent, and 0xFF << 23 is inf
        uint64_t r = rs_rne_shift64(m, 29u);
        return uintBitsToFloat(s | uint((uint64_t(ef) << 23) + r));
    }
    if (e == 0u) return uintBitsToFloat(s);
    // float subnormal: M * 2^(e - 1075) in units of 2^-149
    uint sh = 926u - e;
    if (sh > 53u) return uintBitsToFloat(s);
    return uintBitsToFloat(s | uint(rs_rne_shift64(m | (uint64_t(1) << 52), sh)));
}

uint64_t rs_d_from_u64(uint64_t u) {
    if (u == 0UL) return 0UL;
    int p = rs_msb64(u);
    uint64_t mant;
    if (p <= 52) {
        mant = u << uint(52 - p);
    } else {
        mant = rs_rne_shift64(u, uint(p - 52));  // may reach 2^53: carries into the exponent
    }
    return (uint64_t(p + 1023) << 52) + (mant - (uint64_t(1) << 52));
}

uint64_t rs_d_from_i64(uint64_t v) {
    bool neg = rs_sign64(v);
    uint64_t d = rs_d_from_u64(neg ? (~v + 1UL) : v);
    return neg ? (d | 0x8000000000000000UL) : d;
}

// Truncation of |d| modulo 2^64 (valid below 2^64); *ok = false past that,
// for NaN and inf.
uint64_t rs_trunc_abs_d(uint64_t d, out bool ok) {
    uint e = uint(d >> 52) & 0x7FFu;
    ok = e < 1023u + 64u;
    if (!ok || e < 1023u) return 0UL;
    uint p = e - 1023u;
    uint64_t M = (d & 0xFFFFFFFFFFFFFUL) | (uint64_t(1) << 52);
    return p <= 52u ? (M >> (52u - p)) : (M << (p - 52u));
}

// (int64_t)d on x86-64.
uint64_t rs_i64_from_d(uint64_t d) {
    bool ok;
    uint64_t u = rs_trunc_abs_d(d, ok);
    bool neg = rs_sign64(d);
    if (!ok || u > (neg ? 0x8000000000000000UL : 0x7FFFFFFFFFFFFFFFUL)) return 0x8000000000000000UL;
    return neg ? uint64_t(-int64_t(u)) : u;
}
// (int32_t)d on x86-64.
uint64_t rs_i32_from_d(uint64_t d) {
    bool ok;
    uint64_t u = rs_trunc_abs_d(d, ok);
    bool neg = rs_sign64(d);
    if (!ok || u > (neg ? 0x80000000UL : 0x7FFFFFFFUL)) return 0x80000000UL;
    return neg ? uint64_t(-int64_t(u)) : u;
}
// (uint64_t)d on x86-64 (gcc: below 2^63 through int64, else subtract 2^63).
uint64_t rs_u64_from_d(uint64_t d) {
    bool ok;
    uint64_t u = rs_trunc_abs_d(d, ok);
    bool nan = (d & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL;
    bool big = !rs_sign64(d) && (uint(d >> 52) & 0x7FFu) >= 1023u + 63u && !nan;
    if (!big) return rs_i64_from_d(d);
    return ok ? u : 0UL;
}

// The same for float sources (GLSL's conversions are undefined out of range).
uint64_t rs_i64_from_f(float f) {
    return abs(f) < 9223372036854775808.0 ? uint64_t(int64_t(f)) : 0x8000000000000000UL;
}
uint64_t rs_i32_from_f(float f) {
    return abs(f) < 2147483648.0 ? uint64_t(int64_t(int(f))) : 0x80000000UL;
}
uint64_t rs_u64_from_f(float f) {
    if (f >= 9223372036854775808.0) return f < 18446744073709551616.0 ? uint64_t(f) : 0UL;
    return rs_i64_from_f(f);
}

bool rs_d_nonzero(uint64_t d) { return (d << 1) != 0UL; }

#endif  // RS_DTYPE_GLSL
