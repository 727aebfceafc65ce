// dtype_inst.glsl: the per-dtype template of common/dtype.glsl. Include it
// once per dtype code, with T_DT defined to that code (see dtype.glsl).
// Defines rs_get_<T>, rs_set_{b,i,u,f,d,cf,cd}_<T>, and rs_round_<T> for the
// float32 family. Functions a kernel does not call are not compiled into
// its SPIR-V, so unused conversions cost nothing.
#ifndef T_DT
#error "define T_DT before including common/dtype_inst.glsl"
#endif

#define T_FN(n) RS_CAT(n, T_DT)

#ifndef RS_F_NONZERO
#define RS_F_NONZERO
// x != 0 on the bits: a device that flushes float32 denormals (NVIDIA
// without DenormPreserve) compares a denormal equal to 0, and CPU does not.
// (Here, not in dtype.glsl: the precompiled SPIR-V is built from that one.)
bool rs_f_nonzero(float f) { return (floatBitsToUint(f) << 1) != 0u; }
#endif

// ---------------------------------------------------------------- bool and integers
#if RS_IS_BOOL(T_DT) || RS_IS_INT(T_DT)

#if T_DT == 11 || T_DT == 0 || T_DT == 1
#define T_SZ 1
#elif T_DT == 2 || T_DT == 27
#define T_SZ 2
#elif T_DT == 3 || T_DT == 28
#define T_SZ 4
#else
#define T_SZ 8
#endif

uint64_t T_FN(rs_get_)(uint64_t a, int64_t o) {
    uint64_t p = rs_addr(a, o, uint(T_SZ));
#if T_DT == 11
    return RsU8(p).v != uint8_t(0) ? 1UL : 0UL;
#elif T_DT == 0
    return uint64_t(uint(RsU8(p).v));
#elif T_DT == 1
    return uint64_t(int64_t(int(int8_t(RsU8(p).v))));
#elif T_DT == 2
    return uint64_t(int64_t(int(int16_t(RsU16(p).v))));
#elif T_DT == 27
    return uint64_t(uint(RsU16(p).v));
#elif T_DT == 3
    return uint64_t(int64_t(int(RsU32(p).v)));
#elif T_DT == 28
    return uint64_t(RsU32(p).v);
#else
    return RsU64(p).v;
#endif
}

// Stores the low bits (C's integer conversions are modulo 2^n).
void T_FN(rs_set_i_)(uint64_t a, int64_t o, uint64_t v) {
    uint64_t p = rs_addr(a, o, uint(T_SZ));
#if T_DT == 11
    RsU8(p).v = uint8_t(v != 0UL ? 1u : 0u);
#elif T_SZ == 1
    RsU8(p).v = uint8_t(uint(v) & 0xFFu);
#elif T_SZ == 2
    RsU16(p).v = uint16_t(uint(v) & 0xFFFFu);
#elif T_SZ == 4
    RsU32(p).v = uint(v);
#else
    RsU64(p).v = v;
#endif
}
void T_FN(rs_set_u_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_i_)(a, o, v); }
void T_FN(rs_set_b_)(uint64_t a, int64_t o, bool v) { T_FN(rs_set_i_)(a, o, v ? 1UL : 0UL); }

void T_FN(rs_set_f_)(uint64_t a, int64_t o, float f) {
#if T_DT == 11
    T_FN(rs_set_i_)(a, o, rs_f_nonzero(f) ? 1UL : 0UL);  // NaN is true
#elif T_DT == 1 || T_DT == 2 || T_DT == 3 || T_DT == 27
    T_FN(rs_set_i_)(a, o, rs_i32_from_f(f));
#elif T_DT == 29
    T_FN(rs_set_i_)(a, o, rs_u64_from_f(f));
#else
    T_FN(rs_set_i_)(a, o, rs_i64_from_f(f));
#endif
}
void T_FN(rs_set_d_)(uint64_t a, int64_t o, uint64_t d) {
#if T_DT == 11
    T_FN(rs_set_i_)(a, o, rs_d_nonzero(d) ? 1UL : 0UL);
#elif T_DT == 1 || T_DT == 2 || T_DT == 3 || T_DT == 27
    T_FN(rs_set_i_)(a, o, rs_i32_from_d(d));
#elif T_DT == 29
    T_FN(rs_set_i_)(a, o, rs_u64_from_d(d));
#else
    T_FN(rs_set_i_)(a, o, rs_i64_from_d(d));
#endif
}
void T_FN(rs_set_cf_)(uint64_t a, int64_t o, vec2 c) {
#if T_DT == 11
    T_FN(rs_set_i_)(a, o, (rs_f_nonzero(c.x) || rs_f_nonzero(c.y)) ? 1UL : 0UL);
#else
    T_FN(rs_set_f_)(a, o, c.x);
#endif
}
void T_FN(rs_set_cd_)(uint64_t a, int64_t o, u64vec2 c) {
#if T_DT == 11
    T_FN(rs_set_i_)(a, o, (rs_d_nonzero(c.x) || rs_d_nonzero(c.y)) ? 1UL : 0UL);
#else
    T_FN(rs_set_d_)(a, o, c.x);
#endif
}
#undef T_SZ

// ---------------------------------------------------------------- the float32 family
#elif RS_IS_FLT(T_DT)

#if T_DT == 6
#define T_ENC(f) floatBitsToUint(f)
#define T_DEC(b) uintBitsToFloat(b)
#elif T_DT == 5
#define T_ENC(f) rs_f16_enc(f)
#define T_DEC(b) rs_f16_dec(b)
#elif T_DT == 15
#define T_ENC(f) rs_bf16_enc(f)
#define T_DEC(b) rs_bf16_dec(b)
#elif T_DT == 23
#define T_ENC(f) rs_e5m2_enc(f)
#define T_DEC(b) rs_e5m2_dec(b)
#elif T_DT == 24
#define T_ENC(f) rs_e4m3fn_enc(f)
#define T_DEC(b) rs_e4m3fn_dec(b)
#elif T_DT == 25
#define T_ENC(f) rs_e5m2fnuz_enc(f)
#define T_DEC(b) rs_fnuz_dec(b, 5u, 2u)
#elif T_DT == 26
#define T_ENC(f) rs_e4m3fnuz_enc(f)
#define T_DEC(b) rs_fnuz_dec(b, 4u, 3u)
#else  // 44: e8m0fnu
#define T_ENC(f) rs_e8m0_enc(f)
#define T_DEC(b) rs_e8m0_dec(b)
#endif

float T_FN(rs_get_)(uint64_t a, int64_t o) {
#if T_DT == 6
    return uintBitsToFloat(RsU32(rs_addr(a, o, 4u)).v);
#elif T_DT == 5 || T_DT == 15
    return T_DEC(uint(RsU16(rs_addr(a, o, 2u)).v));
#else
    return T_DEC(uint(RsU8(rs_addr(a, o, 1u)).v));
#endif
}
void T_FN(rs_set_f_)(uint64_t a, int64_t o, float f) {
#if T_DT == 6
    RsU32(rs_addr(a, o, 4u)).v = floatBitsToUint(f);
#elif T_DT == 5 || T_DT == 15
    RsU16(rs_addr(a, o, 2u)).v = uint16_t(T_ENC(f));
#else
    RsU8(rs_addr(a, o, 1u)).v = uint8_t(T_ENC(f));
#endif
}
float T_FN(rs_round_)(float f) { return T_DEC(T_ENC(f)); }
void T_FN(rs_set_b_)(uint64_t a, int64_t o, bool v) { T_FN(rs_set_f_)(a, o, v ? 1.0 : 0.0); }
void T_FN(rs_set_i_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_f_)(a, o, float(int64_t(v))); }
void T_FN(rs_set_u_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_f_)(a, o, float(v)); }
void T_FN(rs_set_d_)(uint64_t a, int64_t o, uint64_t d) { T_FN(rs_set_f_)(a, o, rs_f_from_d(d)); }
void T_FN(rs_set_cf_)(uint64_t a, int64_t o, vec2 c) { T_FN(rs_set_f_)(a, o, c.x); }
void T_FN(rs_set_cd_)(uint64_t a, int64_t o, u64vec2 c) { T_FN(rs_set_d_)(a, o, c.x); }
#undef T_ENC
#undef T_DEC

// ---------------------------------------------------------------- float64 (as bits)
#elif RS_IS_DBL(T_DT)

uint64_t T_FN(rs_get_)(uint64_t a, int64_t o) { return RsU64(rs_addr(a, o, 8u)).v; }
void T_FN(rs_set_d_)(uint64_t a, int64_t o, uint64_t d) { RsU64(rs_addr(a, o, 8u)).v = d; }
void T_FN(rs_set_b_)(uint64_t a, int64_t o, bool v) {
    T_FN(rs_set_d_)(a, o, v ? 0x3FF0000000000000UL : 0UL);
}
void T_FN(rs_set_i_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_d_)(a, o, rs_d_from_i64(v)); }
void T_FN(rs_set_u_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_d_)(a, o, rs_d_from_u64(v)); }
void T_FN(rs_set_f_)(uint64_t a, int64_t o, float f) { T_FN(rs_set_d_)(a, o, rs_d_from_f(f)); }
void T_FN(rs_set_cf_)(uint64_t a, int64_t o, vec2 c) { T_FN(rs_set_f_)(a, o, c.x); }
void T_FN(rs_set_cd_)(uint64_t a, int64_t o, u64vec2 c) { T_FN(rs_set_d_)(a, o, c.x); }

// ---------------------------------------------------------------- complex32, complex64
#elif RS_IS_CF(T_DT)

vec2 T_FN(rs_get_)(uint64_t a, int64_t o) {
#if T_DT == 8
    uint w = RsU32(rs_addr(a, o, 4u)).v;
    return vec2(rs_f16_dec(w & 0xFFFFu), rs_f16_dec(w >> 16));
#else
    uint64_t p = rs_addr(a, o, 8u);
    return vec2(uintBitsToFloat(RsU32(p).v), uintBitsToFloat(RsU32(p + 4UL).v));
#endif
}
void T_FN(rs_set_cf_)(uint64_t a, int64_t o, vec2 c) {
#if T_DT == 8
    RsU32(rs_addr(a, o, 4u)).v = rs_f16_enc(c.x) | (rs_f16_enc(c.y) << 16);
#else
    uint64_t p = rs_addr(a, o, 8u);
    RsU32(p).v = floatBitsToUint(c.x);
    RsU32(p + 4UL).v = floatBitsToUint(c.y);
#endif
}
void T_FN(rs_set_f_)(uint64_t a, int64_t o, float f) { T_FN(rs_set_cf_)(a, o, vec2(f, 0.0)); }
void T_FN(rs_set_b_)(uint64_t a, int64_t o, bool v) { T_FN(rs_set_f_)(a, o, v ? 1.0 : 0.0); }
void T_FN(rs_set_i_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_f_)(a, o, float(int64_t(v))); }
void T_FN(rs_set_u_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_f_)(a, o, float(v)); }
void T_FN(rs_set_d_)(uint64_t a, int64_t o, uint64_t d) { T_FN(rs_set_f_)(a, o, rs_f_from_d(d)); }
void T_FN(rs_set_cd_)(uint64_t a, int64_t o, u64vec2 c) {
    T_FN(rs_set_cf_)(a, o, vec2(rs_f_from_d(c.x), rs_f_from_d(c.y)));
}

// ---------------------------------------------------------------- complex128 (as bits)
#elif RS_IS_CD(T_DT)

u64vec2 T_FN(rs_get_)(uint64_t a, int64_t o) {
    uint64_t p = rs_addr(a, o, 16u);
    return u64vec2(RsU64(p).v, RsU64(p + 8UL).v);
}
void T_FN(rs_set_cd_)(uint64_t a, int64_t o, u64vec2 c) {
    uint64_t p = rs_addr(a, o, 16u);
    RsU64(p).v = c.x;
    RsU64(p + 8UL).v = c.y;
}
void T_FN(rs_set_d_)(uint64_t a, int64_t o, uint64_t d) { T_FN(rs_set_cd_)(a, o, u64vec2(d, 0UL)); }
void T_FN(rs_set_b_)(uint64_t a, int64_t o, bool v) {
    T_FN(rs_set_d_)(a, o, v ? 0x3FF0000000000000UL : 0UL);
}
void T_FN(rs_set_i_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_d_)(a, o, rs_d_from_i64(v)); }
void T_FN(rs_set_u_)(uint64_t a, int64_t o, uint64_t v) { T_FN(rs_set_d_)(a, o, rs_d_from_u64(v)); }
void T_FN(rs_set_f_)(uint64_t a, int64_t o, float f) { T_FN(rs_set_d_)(a, o, rs_d_from_f(f)); }
void T_FN(rs_set_cf_)(uint64_t a, int64_t o, vec2 c) {
    T_FN(rs_set_cd_)(a, o, u64vec2(rs_d_from_f(c.x), rs_d_from_f(c.y)));
}

#else
#error "unknown dtype code in T_DT"
#endif

#undef T_FN
