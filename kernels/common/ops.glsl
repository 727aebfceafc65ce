// ops.glsl: the scalar functions of the pointwise engine, overloaded per
// opmath type (bool, int64_t, uint64_t, float, double, vec2 = complex64,
// dvec2 = complex128). Each follows PyTorch's CPU kernel for that op
// (aten/src/ATen/native/cpu/*Kernel.cpp, c10/util/complex*.h): NaN
// propagation, signed zeros, integer wrap-around and C's integer division.
// double overloads exist only with RS_HAS_FP64 (never under the apple
// profile: float64 runs on the host there).
#ifndef RS_OPS_GLSL
#define RS_OPS_GLSL

#define RS_NAN_F uintBitsToFloat(0x7FC00000u)
#define RS_INF_F uintBitsToFloat(0x7F800000u)

// ---------------------------------------------------------------- complex helpers
vec2 rs_cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// c10::complex operator/ (scaled, as c10 does it)
vec2 rs_cdiv(vec2 n, vec2 m) {
    float a = n.x, b = n.y, c = m.x, d = m.y;
    float ac = abs(c), ad = abs(d);
    if (ac >= ad) {
        if (ac == 0.0 && ad == 0.0) return vec2(a / ac, b / ad);
        float rat = d / c;
        float scl = 1.0 / (c + d * rat);
        return vec2((a + b * rat) * scl, (b - a * rat) * scl);
    }
    float rat = c / d;
    float scl = 1.0 / (d + c * rat);
    return vec2((a * rat + b) * scl, (b * rat - a) * scl);
}
#if RS_HAS_FP64
dvec2 rs_cmul(dvec2 a, dvec2 b) { return dvec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
dvec2 rs_cdiv(dvec2 n, dvec2 m) {
    double a = n.x, b = n.y, c = m.x, d = m.y;
    double ac = abs(c), ad = abs(d);
    if (ac >= ad) {
        if (ac == 0.0LF && ad == 0.0LF) return dvec2(a / ac, b / ad);
        double rat = d / c;
        double scl = 1.0LF / (c + d * rat);
        return dvec2((a + b * rat) * scl, (b - a * rat) * scl);
    }
    double rat = c / d;
    double scl = 1.0LF / (d + c * rat);
    return dvec2((a * rat + b) * scl, (b * rat - a) * scl);
}
#endif

// int64 comparisons that lavapipe miscompiles for sign-extended int32 values
// (`v < 0` is read from the high word instead; see the engine's notes)
bool rs_neg64(int64_t v) { return (uint(uint64_t(v) >> 32) & 0x80000000u) != 0u; }

// ---------------------------------------------------------------- the common dtype
// A float value rounded to the common dtype (identity for float32): CPU
// kernels that compute in the dtype itself round intermediate results.
float rs_rcm(float x) {
#if defined(CM_DT) && CM_DT == 5
    return rs_f16_dec(rs_f16_enc(x));
#elif defined(CM_DT) && CM_DT == 15
    return rs_bf16_dec(rs_bf16_enc(x));
#else
    return x;
#endif
}
// An int64 value wrapped to the common integer dtype (CPU computes in it).
int64_t rs_wcm(int64_t x) {
#if defined(CM_DT) && (CM_DT == 1 || CM_DT == 2 || CM_DT == 3)
    int sh = 64 - RS_SIZE(CM_DT) * 8;
    return (x << sh) >> sh;
#elif defined(CM_DT) && (CM_DT == 0 || CM_DT == 27 || CM_DT == 28)
    return int64_t(uint64_t(x) & ((1UL << uint64_t(RS_SIZE(CM_DT) * 8)) - 1UL));
#else
    return x;
#endif
}
bool rs_tocm(bool x) { return x; }
int64_t rs_tocm(int64_t x) { return rs_wcm(x); }
uint64_t rs_tocm(uint64_t x) { return x; }
float rs_tocm(float x) { return rs_rcm(x); }
vec2 rs_tocm(vec2 x) {
#if defined(CM_DT) && CM_DT == 8
    return vec2(rs_f16_dec(rs_f16_enc(x.x)), rs_f16_dec(rs_f16_enc(x.y)));
#else
    return x;
#endif
}
#if RS_HAS_FP64
double rs_tocm(double x) { return x; }
dvec2 rs_tocm(dvec2 x) { return x; }
#endif

// ---------------------------------------------------------------- add, sub, mul
bool rs_add(bool a, bool b, bool al) { return a || (b && al); }
int64_t rs_add(int64_t a, int64_t b, int64_t al) { return a + al * b; }
uint64_t rs_add(uint64_t a, uint64_t b, uint64_t al) { return a + al * b; }
float rs_add(float a, float b, float al) { return fma(al, b, a); }
// complex32 on CPU rounds alpha * b to complex32 before the add
vec2 rs_round_c32(vec2 z) { return vec2(rs_f16_dec(rs_f16_enc(z.x)), rs_f16_dec(rs_f16_enc(z.y))); }
#if defined(CM_DT) && CM_DT == 8
#define RS_ALPHA_PRODUCT(p) rs_round_c32(p)
#else
#define RS_ALPHA_PRODUCT(p) (p)
#endif
vec2 rs_add(vec2 a, vec2 b, vec2 al) { return a + RS_ALPHA_PRODUCT(rs_cmul(al, b)); }

bool rs_sub(bool a, bool b, bool al) { return a != (b && al); }
int64_t rs_sub(int64_t a, int64_t b, int64_t al) { return a - al * b; }
uint64_t rs_sub(uint64_t a, uint64_t b, uint64_t al) { return a - al * b; }
float rs_sub(float a, float b, float al) { return fma(-al, b, a); }
vec2 rs_sub(vec2 a, vec2 b, vec2 al) { return a - RS_ALPHA_PRODUCT(rs_cmul(al, b)); }

bool rs_mul(bool a, bool b) { return a && b; }
int64_t rs_mul(int64_t a, int64_t b) { return a * b; }
uint64_t rs_mul(uint64_t a, uint64_t b) { return a * b; }
float rs_mul(float a, float b) { return a * b; }
vec2 rs_mul(vec2 a, vec2 b) { return rs_cmul(a, b); }

#if RS_HAS_FP64
double rs_add(double a, double b, double al) { return fma(al, b, a); }
dvec2 rs_add(dvec2 a, dvec2 b, dvec2 al) { return a + rs_cmul(al, b); }
double rs_sub(double a, double b, double al) { return fma(-al, b, a); }
dvec2 rs_sub(dvec2 a, dvec2 b, dvec2 al) { return a - rs_cmul(al, b); }
double rs_mul(double a, double b) { return a * b; }
dvec2 rs_mul(dvec2 a, dvec2 b) { return rs_cmul(a, b); }
#endif

// ---------------------------------------------------------------- division
float rs_div(float a, float b) { return a / b; }
vec2 rs_div(vec2 a, vec2 b) { return rs_cdiv(a, b); }

// C's integer division truncates; by zero, CPU raises ZeroDivisionError
int64_t rs_div_trunc(int64_t a, int64_t b) {
    if (b == 0L) {
        rs_raise(2u, 0L);
        return 0L;
    }
    if (b == -1L) return -a;  // INT64_MIN / -1 wraps, as on CPU
    return a / b;
}
uint64_t rs_div_trunc(uint64_t a, uint64_t b) {
    if (b == 0UL) {
        rs_raise(2u, 0L);
        return 0UL;
    }
    return a / b;
}
// CPU: trunc of the quotient in the dtype (bf16/fp16 round it first)
float rs_div_trunc(float a, float b) { return trunc(rs_rcm(a / b)); }

// c10::div_floor_integer
int64_t rs_div_floor(int64_t a, int64_t b) {
    if (b == 0L) {
        rs_raise(2u, 0L);
        return 0L;
    }
    if (b == -1L) return -a;
    int64_t q = a / b;
    int64_t r = a - q * b;
    if (r != 0L && (rs_neg64(r) != rs_neg64(b))) q -= 1L;
    return q;
}
uint64_t rs_div_floor(uint64_t a, uint64_t b) { return rs_div_trunc(a, b); }

// C's fmodf, exact (musl's algorithm on the bits)
float rs_fmod(float x, float y) {
    uint ux = floatBitsToUint(x), uy = floatBitsToUint(y);
    int ex = int((ux >> 23) & 0xFFu), ey = int((uy >> 23) & 0xFFu);
    uint sx = ux & 0x80000000u;
    if ((uy << 1) == 0u || isnan(y) || ex == 0xFF) return (x * y) / (x * y);
    if ((ux << 1) <= (uy << 1)) {
        if ((ux << 1) == (uy << 1)) return uintBitsToFloat(sx);  // a signed zero (0.0 * x may fold to +0)
        return x;
    }
    if (ex == 0) {
        uint i = ux << 9;
        for (ex = 0; (i >> 31) == 0u; ex--) i <<= 1;
        ux <<= uint(-ex + 1);
    } else {
        ux &= 0x7FFFFFu;
        ux |= 0x800000u;
    }
    if (ey == 0) {
        uint i = uy << 9;
        for (ey = 0; (i >> 31) == 0u; ey--) i <<= 1;
        uy <<= uint(-ey + 1);
    } else {
        uy &= 0x7FFFFFu;
        uy |= 0x800000u;
    }
    for (; ex > ey; ex--) {
        uint i = ux - uy;
        if ((i >> 31) == 0u) {
            if (i == 0u) return uintBitsToFloat(sx);  // a signed zero (0.0 * x may fold to +0)
            ux = i;
        }
        ux <<= 1;
    }
    uint i = ux - uy;
    if ((i >> 31) == 0u) {
        if (i == 0u) return uintBitsToFloat(sx);  // a signed zero (0.0 * x may fold to +0)
        ux = i;
    }
    for (; (ux >> 23) == 0u; ux <<= 1, ex--) {}
    if (ex > 0) {
        ux -= 0x800000u;
        ux |= uint(ex) << 23;
    } else {
        ux >>= uint(-ex + 1);
    }
    return uintBitsToFloat(ux | sx);
}
int64_t rs_fmod(int64_t a, int64_t b) {
    if (b == 0L) {
        rs_raise(2u, 0L);
        return 0L;
    }
    if (b == -1L) return 0L;
    return a - (a / b) * b;
}
uint64_t rs_fmod(uint64_t a, uint64_t b) {
    if (b == 0UL) {
        rs_raise(2u, 0L);
        return 0UL;
    }
    return a % b;
}

// c10::div_floor_floating
float rs_div_floor(float a, float b) {
    if (b == 0.0) return a / b;
    float m = rs_fmod(a, b);
    float dv = (a - m) / b;
    if (m != 0.0 && (b < 0.0) != (m < 0.0)) dv -= 1.0;
    float fd;
    if (dv != 0.0) {
        fd = floor(dv);
        if (dv - fd > 0.5) fd += 1.0;
    } else {
        fd = uintBitsToFloat(floatBitsToUint(a / b) & 0x80000000u);  // copysign(0, a / b)
    }
    return fd;
}

// Python's %: the sign of the divisor
float rs_remainder(float a, float b) {
    float m = rs_fmod(a, b);
    if (m != 0.0 && (b < 0.0) != (m < 0.0)) m += b;
    return m;
}
int64_t rs_remainder(int64_t a, int64_t b) {
    int64_t r = rs_fmod(a, b);
    if (r != 0L && (rs_neg64(r) != rs_neg64(b))) r += b;
    return r;
}
uint64_t rs_remainder(uint64_t a, uint64_t b) { return rs_fmod(a, b); }

// ---------------------------------------------------------------- comparisons
#define RS_CMP(name, op)                                             \
    bool name(bool a, bool b) { return int(a) op int(b); }           \
    bool name(int64_t a, int64_t b) { return a op b; }               \
    bool name(uint64_t a, uint64_t b) { return a op b; }             \
    bool name(float a, float b) { return a op b; }
RS_CMP(rs_lt, <)
RS_CMP(rs_le, <=)
RS_CMP(rs_gt, >)
RS_CMP(rs_ge, >=)
RS_CMP(rs_eq, ==)
RS_CMP(rs_ne, !=)
bool rs_eq(vec2 a, vec2 b) { return a.x == b.x && a.y == b.y; }
bool rs_ne(vec2 a, vec2 b) { return !(a.x == b.x && a.y == b.y); }
#if RS_HAS_FP64
bool rs_lt(double a, double b) { return a < b; }
bool rs_le(double a, double b) { return a <= b; }
bool rs_gt(double a, double b) { return a > b; }
bool rs_ge(double a, double b) { return a >= b; }
bool rs_eq(double a, double b) { return a == b; }
bool rs_ne(double a, double b) { return a != b; }
bool rs_eq(dvec2 a, dvec2 b) { return a.x == b.x && a.y == b.y; }
bool rs_ne(dvec2 a, dvec2 b) { return !(a.x == b.x && a.y == b.y); }
#endif

// ---------------------------------------------------------------- truth, logical
bool rs_truth(bool a) { return a; }
bool rs_truth(int64_t a) { return a != 0L; }
bool rs_truth(uint64_t a) { return a != 0UL; }
bool rs_truth(float a) { return rs_f_nonzero(a); }  // NaN is true; on the bits (dtype_inst.glsl)
bool rs_truth(vec2 a) { return rs_truth(a.x) || rs_truth(a.y); }
#if RS_HAS_FP64
bool rs_truth(double a) { return a != 0.0LF; }
bool rs_truth(dvec2 a) { return a.x != 0.0LF || a.y != 0.0LF; }
#endif

// ---------------------------------------------------------------- bitwise
bool rs_band(bool a, bool b) { return a && b; }
bool rs_bor(bool a, bool b) { return a || b; }
bool rs_bxor(bool a, bool b) { return a != b; }
bool rs_bnot(bool a) { return !a; }
int64_t rs_band(int64_t a, int64_t b) { return a & b; }
int64_t rs_bor(int64_t a, int64_t b) { return a | b; }
int64_t rs_bxor(int64_t a, int64_t b) { return a ^ b; }
int64_t rs_bnot(int64_t a) { return ~a; }
uint64_t rs_band(uint64_t a, uint64_t b) { return a & b; }
uint64_t rs_bor(uint64_t a, uint64_t b) { return a | b; }
uint64_t rs_bxor(uint64_t a, uint64_t b) { return a ^ b; }
uint64_t rs_bnot(uint64_t a) { return ~a; }
// ATen: a shift by a negative amount or by >= the width of the dtype gives
// 0 (left) or the sign fill (right); `bits` is that width
int64_t rs_shl(int64_t a, int64_t b, int bits) {
    if (rs_neg64(b) || b >= int64_t(bits)) return 0L;
    return int64_t(uint64_t(a) << uint64_t(b));
}
uint64_t rs_shl(uint64_t a, uint64_t b, int bits) { return b >= uint64_t(bits) ? 0UL : a << b; }
int64_t rs_shr(int64_t a, int64_t b, int bits) {
    if (rs_neg64(b) || b >= int64_t(bits)) return rs_neg64(a) ? -1L : 0L;
    return a >> uint64_t(b);
}
uint64_t rs_shr(uint64_t a, uint64_t b, int bits) { return b >= uint64_t(bits) ? 0UL : a >> b; }

// ---------------------------------------------------------------- min, max, clamp
// maximum/minimum propagate NaN; fmax/fmin ignore it
bool rs_maximum(bool a, bool b) { return a || b; }
bool rs_minimum(bool a, bool b) { return a && b; }
int64_t rs_maximum(int64_t a, int64_t b) { return a > b ? a : b; }
int64_t rs_minimum(int64_t a, int64_t b) { return a < b ? a : b; }
uint64_t rs_maximum(uint64_t a, uint64_t b) { return a > b ? a : b; }
uint64_t rs_minimum(uint64_t a, uint64_t b) { return a < b ? a : b; }
float rs_maximum(float a, float b) { return isnan(a) || isnan(b) ? RS_NAN_F : (a > b ? a : b); }
float rs_minimum(float a, float b) { return isnan(a) || isnan(b) ? RS_NAN_F : (a < b ? a : b); }
float rs_fmax(float a, float b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
bool rs_fmax(bool a, bool b) { return a || b; }
bool rs_fmin(bool a, bool b) { return a && b; }
int64_t rs_fmax(int64_t a, int64_t b) { return rs_maximum(a, b); }
int64_t rs_fmin(int64_t a, int64_t b) { return rs_minimum(a, b); }
uint64_t rs_fmax(uint64_t a, uint64_t b) { return rs_maximum(a, b); }
uint64_t rs_fmin(uint64_t a, uint64_t b) { return rs_minimum(a, b); }
float rs_fmin(float a, float b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }
// clamp(x, lo, hi) = min(max(x, lo), hi), NaN in x propagates
int64_t rs_clamp(int64_t x, int64_t lo, int64_t hi) { return rs_minimum(rs_maximum(x, lo), hi); }
uint64_t rs_clamp(uint64_t x, uint64_t lo, uint64_t hi) { return rs_minimum(rs_maximum(x, lo), hi); }
float rs_clamp(float x, float lo, float hi) {
    if (isnan(x)) return x;
    return rs_minimum(rs_maximum(x, lo), hi);
}
int64_t rs_clamp_min(int64_t x, int64_t lo) { return rs_maximum(x, lo); }
uint64_t rs_clamp_min(uint64_t x, uint64_t lo) { return rs_maximum(x, lo); }
float rs_clamp_min(float x, float lo) { return isnan(x) ? x : rs_maximum(x, lo); }
int64_t rs_clamp_max(int64_t x, int64_t hi) { return rs_minimum(x, hi); }
uint64_t rs_clamp_max(uint64_t x, uint64_t hi) { return rs_minimum(x, hi); }
float rs_clamp_max(float x, float hi) { return isnan(x) ? x : rs_minimum(x, hi); }

// ---------------------------------------------------------------- sign, abs, neg
int64_t rs_neg(int64_t a) { return -a; }
uint64_t rs_neg(uint64_t a) { return -a; }
float rs_neg(float a) { return -a; }
vec2 rs_neg(vec2 a) { return -a; }
bool rs_abs(bool a) { return a; }
int64_t rs_abs(int64_t a) { return rs_neg64(a) ? -a : a; }
uint64_t rs_abs(uint64_t a) { return a; }
float rs_abs(float a) { return abs(a); }
// |z| without overflow (hypot)
float rs_cabs(vec2 z) {
    float x = abs(z.x), y = abs(z.y);
    if (isinf(x) || isinf(y)) return RS_INF_F;
    if (isnan(x) || isnan(y)) return RS_NAN_F;  // (GLSL's max drops NaN)
    float m = max(x, y), n = min(x, y);
    if (m == 0.0) return 0.0;
    float r = n / m;
    return m * sqrt(1.0 + r * r);
}
bool rs_sign(bool a) { return a; }
// from the two 32-bit words, without branches: the high word's sign bit
// spread (-1 or 0), or'ed with 1 where any bit is set. The form with two
// selects crashed NVIDIA's compiler ("NVVM compilation failed") into a
// strided int8/int16 output; a 64-bit `a < 0` is what lavapipe miscompiles
int64_t rs_sign(int64_t a) {
    const uint lo = uint(uint64_t(a)), hi = uint(uint64_t(a) >> 32);
    return int64_t((int(hi) >> 31) | int((lo | hi) != 0u));
}
uint64_t rs_sign(uint64_t a) { return a == 0UL ? 0UL : 1UL; }
float rs_sign(float a) { return isnan(a) ? 0.0 : (a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : 0.0)); }
vec2 rs_sgn(vec2 z) {
    float m = rs_cabs(z);
    return m == 0.0 ? vec2(0.0) : z / m;
}
bool rs_signbit(float a) { return (floatBitsToUint(a) & 0x80000000u) != 0u; }
bool rs_signbit(int64_t a) { return rs_neg64(a); }
bool rs_signbit(uint64_t a) { return false; }
bool rs_signbit(bool a) { return false; }

// ---------------------------------------------------------------- float classification
bool rs_isnan(float a) { return isnan(a); }
bool rs_isnan(vec2 a) { return isnan(a.x) || isnan(a.y); }
bool rs_isinf(float a) { return isinf(a); }
bool rs_isinf(vec2 a) { return isinf(a.x) || isinf(a.y); }
bool rs_isfinite(float a) { return !isnan(a) && !isinf(a); }
bool rs_isfinite(vec2 a) { return rs_isfinite(a.x) && rs_isfinite(a.y); }
bool rs_isposinf(float a) { return isinf(a) && a > 0.0; }
bool rs_isneginf(float a) { return isinf(a) && a < 0.0; }

// ---------------------------------------------------------------- rounding
float rs_round(float a) { return roundEven(a); }  // torch.round: half to even
float rs_frac(float a) { return a - trunc(a); }

// ---------------------------------------------------------------- powers, roots
float rs_reciprocal(float a) { return 1.0 / a; }
vec2 rs_reciprocal(vec2 a) { return rs_cdiv(vec2(1.0, 0.0), a); }
float rs_rsqrt(float a) { return 1.0 / sqrt(a); }
float rs_square(float a) { return a * a; }
int64_t rs_square(int64_t a) { return a * a; }

// ---------------------------------------------------------------- exp and log
float rs_expm1(float x) {
    // Kahan: accurate near 0 given an accurate exp
    float u = exp(x);
    if (u == 1.0) return x;
    float um1 = u - 1.0;
    if (um1 == -1.0) return -1.0;
    if (isinf(u)) return u;
    return um1 * x / log(u);
}
float rs_log1p(float x) {
    float u = 1.0 + x;
    if (u == 1.0) return x;
    if (isinf(u) || u <= 0.0) return log(u);
    return log(u) * x / (u - 1.0);
}
float rs_log10(float x) { return log2(x) * 0.30102999566398119521; }
float rs_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
float rs_logit(float x) { return log(x / (1.0 - x)); }
float rs_logit_eps(float x, float eps) {
    float z = x < eps ? eps : (x > 1.0 - eps ? 1.0 - eps : x);
    return log(z / (1.0 - z));
}

// ---------------------------------------------------------------- error function
// erf/erfc, float precision (Numerical Recipes' erfc Chebyshev fit, refined)
float rs_erfc_pos(float x) {
    float t = 1.0 / (1.0 + 0.5 * x);
    float y = t * exp(-x * x - 1.26551223 +
                      t * (1.00002368 +
                           t * (0.37409196 +
                                t * (0.09678418 +
                                     t * (-0.18628806 +
                                          t * (0.27886807 +
                                               t * (-1.13520398 +
                                                    t * (1.48851587 +
                                                         t * (-0.82215223 + t * 0.17087277)))))))));
    return y;
}
float rs_erf(float x) {
    float ax = abs(x);
    if (ax < 0.5) {
        // Maclaurin series: erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        float x2 = x * x;
        float s = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (1.0 / 10.0 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 + x2 * (-1.0 / 1320.0))))));
        return s * 1.12837916709551257390;
    }
    float r = 1.0 - rs_erfc_pos(ax);
    return x < 0.0 ? -r : r;
}
float rs_erfc(float x) {
    if (abs(x) < 0.5) return 1.0 - rs_erf(x);
    return x < 0.0 ? 2.0 - rs_erfc_pos(-x) : rs_erfc_pos(x);
}

// (activations: common/ops_activation.glsl)

// ---------------------------------------------------------------- real-only wrappers
// GLSL's builtins apply componentwise to vec2; these take float (and double)
// only, so a complex operand fails to compile instead of computing nonsense.
float rs_exp(float a) { return exp(a); }
float rs_exp2(float a) { return exp2(a); }
float rs_log(float a) { return log(a); }
float rs_log2(float a) { return log2(a); }
float rs_sin(float a) { return sin(a); }
float rs_cos(float a) { return cos(a); }
float rs_tan(float a) { return tan(a); }
float rs_asin(float a) { return asin(a); }
float rs_acos(float a) { return acos(a); }
float rs_atan(float a) { return atan(a); }
float rs_sinh(float a) { return sinh(a); }
float rs_cosh(float a) { return cosh(a); }
float rs_tanh(float a) { return tanh(a); }
float rs_asinh(float a) { return asinh(a); }
float rs_acosh(float a) { return acosh(a); }
float rs_atanh(float a) { return atanh(a); }
float rs_sqrt(float a) { return sqrt(a); }
float rs_floor(float a) { return floor(a); }
float rs_ceil(float a) { return ceil(a); }
float rs_trunc(float a) { return trunc(a); }
float rs_op_atan(float x);  // ops_math.glsl
// C's atan2, with its special cases (GLSL leaves atan(0, 0) undefined)
float rs_atan2(float y, float x) {
    const float pi = 3.14159265358979323846;
    if (isnan(x) || isnan(y)) return RS_NAN_F;
    float sy = rs_signbit(y) ? -1.0 : 1.0;
    if (y == 0.0) return rs_signbit(x) ? sy * pi : y;
    if (isinf(x)) {
        if (isinf(y)) return sy * (x > 0.0 ? pi / 4.0 : 3.0 * pi / 4.0);
        return x > 0.0 ? sy * 0.0 : sy * pi;
    }
    if (x == 0.0 || isinf(y)) return sy * pi / 2.0;
    // GLSL's atan(y, x) is off by up to 2e-5 relative on lavapipe: the
    // ratio of the smaller to the larger magnitude through rs_op_atan
    // (ops_math.glsl), then pi/2 - a and pi - a with two-part constants
    float ax = abs(x), ay = abs(y);
    bool swap = ay > ax;
    float a = rs_op_atan(swap ? ax / ay : ay / ax);
    if (swap) a = (1.57079625129699707031 - a) + 7.54978995489188216e-8;
    if (x < 0.0) a = (3.14159250259399414062 - a) + 1.50995799097837643e-7;
    return sy * a;
}
#if RS_HAS_FP64
double rs_sqrt(double a) { return sqrt(a); }
double rs_floor(double a) { return floor(a); }
double rs_ceil(double a) { return ceil(a); }
double rs_trunc(double a) { return trunc(a); }
#endif

// ---------------------------------------------------------------- families kept apart
// (one file per op family; each may use everything above)
#include "common/ops_math.glsl"
#include "common/ops_special.glsl"
#include "common/ops_activation.glsl"
#include "common/ops_misc.glsl"
#include "common/ops_math64.glsl"  // float64/complex128 transcendentals (fp64 devices)
#include "common/ops_loss.glsl"

#endif
