// ops_misc.glsl: ternary and miscellaneous pointwise ops: clamp (bool), pow,
// lerp, addcmul/addcdiv, hypot, copysign, nextafter, xlogy, logaddexp,
// heaviside, gcd/lcm, frexp, hash_tensor's bits, nan_to_num, the random-distribution transforms, dropout and the
// fused optimizer steps. Included by common/ops.glsl; overload per opmath
// type as ops.glsl explains. Formulas follow ATen's CPU kernels
// (BinaryOpsKernel.cpp, Math.h, PointwiseOpsKernel.cpp, PowKernel.cpp,
// LerpKernel.cpp, UnaryOpsKernel.cpp, FusedAdamKernel.cpp, FusedSGDKernel.cpp,
// core/TransformationHelper.h). Names carry the rs_mx_ prefix.
#ifndef RS_OPS_MISC_GLSL
#define RS_OPS_MISC_GLSL

#define RS_MX_NEG0 uintBitsToFloat(0x80000000u)

// ---------------------------------------------------------------- clamp for bool
bool rs_clamp_min(bool x, bool lo) { return x || lo; }
bool rs_clamp_max(bool x, bool hi) { return x && hi; }
bool rs_clamp(bool x, bool lo, bool hi) { return (x || lo) && hi; }

// ---------------------------------------------------------------- segment_reduce
// a segment's length, checked as CPU's kernel does (device error code 5)
int64_t rs_mx_segment_length(int64_t n) {
    if (rs_neg64(n)) rs_raise(5u, n);
    return n;
}

// ---------------------------------------------------------------- pow
// native::powi: integer powers in the dtype (wrap-around), negative
// exponents give 0 except for bases 1 and -1
int64_t rs_mx_pow(int64_t a, int64_t b) {
    if (rs_neg64(b)) {
        if (a == 1L) return 1L;
        if (a == -1L) return ((-b) & 1L) != 0L ? -1L : 1L;
        return 0L;
    }
    int64_t r = 1L;
    while (b != 0L) {
        if ((b & 1L) != 0L) r *= a;
        b = b >> 1;  // b >= 0: b / 2
        a *= a;
    }
    return r;
}
uint64_t rs_mx_pow(uint64_t a, uint64_t b) {
    uint64_t r = 1UL;
    while (b != 0UL) {
        if ((b & 1UL) != 0UL) r *= a;
        b = b >> 1;
        a *= a;
    }
    return r;
}

// double-float helpers (hi + lo), for a pow accurate to ~1 ulp
void rs_mx_two_sum(float a, float b, out float s, out float e) {
    precise float ss = a + b;
    precise float bb = ss - a;
    precise float ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}
// log(x) for finite x > 0, as hi + lo (about 2^-40 relative)
void rs_mx_log_df(float x, out float hi, out float lo) {
    int e = 0;
    if (x < 1.17549435e-38) {  // subnormal: scale into the normal range
        x *= 16777216.0;
        e = -24;
    }
    int k;
    float m = frexp(x, k);  // [0.5, 1)
    e += k;
    if (m < 0.70710678118654752) {
        m *= 2.0;
        e -= 1;
    }
    // log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716
    precise float f = m - 1.0;  // exact
    float d, dlo;
    rs_mx_two_sum(m, 1.0, d, dlo);
    precise float s_hi = f / d;
    precise float r = fma(-s_hi, d, f);
    r = r - s_hi * dlo;
    precise float s_lo = r / d;
    float t = s_hi * s_hi;
    float tail = s_hi * t * (0.66666666666666667 + t * (0.4 + t * (0.28571428571428571 + t * (0.22222222222222222 + t * (0.18181818181818182 + t * 0.15384615384615385)))));
    const float ln2_hi = 0.693145751953125;       // 15 significant bits: e * ln2_hi is exact
    const float ln2_lo = 1.42860682030941723212e-6;
    float fe = float(e);
    float h, h1;
    rs_mx_two_sum(fe * ln2_hi, 2.0 * s_hi, h, h1);
    precise float l = h1 + (fe * ln2_lo + (2.0 * s_lo + tail));
    precise float sh = h + l;
    hi = sh;
    lo = l - (sh - h);
}
// exp(zh + zl), |zl| << |zh|
float rs_mx_exp_df(float zh, float zl) {
    if (zh > 88.8) return RS_INF_F;
    if (zh < -104.0) return 0.0;
    const float ln2_hi = 0.693145751953125;
    const float ln2_lo = 1.42860682030941723212e-6;
    float n = floor(zh * 1.44269504088896340736 + 0.5);
    precise float r = (zh - n * ln2_hi) - n * ln2_lo;
    r = r + zl;
    // exp(r), |r| < 0.35: Taylor to r^9
    float p = 1.0 + r * (1.0 + r * (0.5 + r * (0.16666666666666667 + r * (0.041666666666666667 + r * (0.0083333333333333333 + r * (0.0013888888888888889 + r * (1.9841269841269841e-4 + r * (2.4801587301587302e-5 + r * 2.7557319223985891e-6))))))));
    int ni = int(n);
    // 2^n in two steps so that neither factor overflows
    int n1 = ni / 2;
    return p * exp2(float(n1)) * exp2(float(ni - n1));
}
// C's powf (Annex F special cases), accurate to about 1 ulp
float rs_mx_pow(float x, float y) {
    if (y == 0.0) return 1.0;
    if (x == 1.0) return 1.0;
    if (isnan(x) || isnan(y)) return x + y;
    float ax = abs(x), ay = abs(y);
    if (isinf(y)) {
        if (ax == 1.0) return 1.0;
        return (y > 0.0) == (ax > 1.0) ? RS_INF_F : 0.0;
    }
    bool yint = trunc(y) == y;
    bool yodd = yint && ay < 16777216.0 && mod(ay, 2.0) == 1.0;
    bool xneg = (floatBitsToUint(x) & 0x80000000u) != 0u;
    if (x == 0.0) {
        if (y < 0.0) return (yodd && xneg) ? -RS_INF_F : RS_INF_F;
        return (yodd && xneg) ? RS_MX_NEG0 : 0.0;
    }
    if (isinf(x)) {
        if (y < 0.0) return (yodd && xneg) ? RS_MX_NEG0 : 0.0;
        return (yodd && xneg) ? -RS_INF_F : RS_INF_F;
    }
    if (xneg && !yint) return RS_NAN_F;
    float lh, ll;
    rs_mx_log_df(ax, lh, ll);
    precise float zh = y * lh;
    precise float zl = fma(y, lh, -zh) + y * ll;
    float r = rs_mx_exp_df(zh, zl);
    return (xneg && yodd) ? -r : r;
}
// complex pow: std::pow(complex, complex) is glibc's cpow, cexp(y clog(x)),
// which CPU computes closely (about 5e-7 relative). In float, rounding
// y log(x) (parts up to ~30) costs up to 2e-6 of the angle and 4e-5 of the
// result, so y log(x) is formed as hi + lo (Dekker products: lavapipe's fma
// is not fused) and exp/sin/cos take the lo part as a first-order term.
void rs_mx_two_prod(float a, float b, out float p, out float e) {
    precise float pp = a * b;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = (isinf(ca) || isinf(cb) || isinf(pp)) ? 0.0 : ee;
}
// u1 v1 + u2 v2 + u3, as hi + lo
void rs_mx_dot2(float u1, float v1, float u2, float v2, float u3, out float hi, out float lo) {
    float p1, e1, p2, e2, s, t;
    rs_mx_two_prod(u1, v1, p1, e1);
    rs_mx_two_prod(u2, v2, p2, e2);
    rs_mx_two_sum(p1, p2, s, t);
    precise float l = t + (e1 + e2 + u3);
    precise float h = s + l;
    hi = h;
    lo = l - (h - s);
}
// C's complex multiply (Annex G, libgcc's __mulsc3): a NaN + NaN i product
// of infinite operands is recomputed as an infinity
vec2 rs_mx_cmul_g(vec2 z, vec2 w) {
    float a = z.x, b = z.y, c = w.x, d = w.y;
    float ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    float x = ac - bd, y = ad + bc;
    if (isnan(x) && isnan(y)) {
        bool recalc = false;
        if (isinf(a) || isinf(b)) {
            a = rs_m_copysign(isinf(a) ? 1.0 : 0.0, a);
            b = rs_m_copysign(isinf(b) ? 1.0 : 0.0, b);
            if (isnan(c)) c = rs_m_copysign(0.0, c);
            if (isnan(d)) d = rs_m_copysign(0.0, d);
            recalc = true;
        }
        if (isinf(c) || isinf(d)) {
            c = rs_m_copysign(isinf(c) ? 1.0 : 0.0, c);
            d = rs_m_copysign(isinf(d) ? 1.0 : 0.0, d);
            if (isnan(a)) a = rs_m_copysign(0.0, a);
            if (isnan(b)) b = rs_m_copysign(0.0, b);
            recalc = true;
        }
        if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
            if (isnan(a)) a = rs_m_copysign(0.0, a);
            if (isnan(b)) b = rs_m_copysign(0.0, b);
            if (isnan(c)) c = rs_m_copysign(0.0, c);
            if (isnan(d)) d = rs_m_copysign(0.0, d);
            recalc = true;
        }
        if (recalc) {
            x = RS_INF_F * (a * c - b * d);
            y = RS_INF_F * (a * d + b * c);
        }
    }
    return vec2(x, y);
}
vec2 rs_mx_pow(vec2 x, vec2 y) {
    float m = max(abs(x.x), abs(x.y)), n = min(abs(x.x), abs(x.y));
    bool plain = !(m > 0.0) || isinf(m) || isnan(n) || isinf(y.x) || isinf(y.y) || isnan(y.x) || isnan(y.y);
    if (plain) {
        vec2 lg = rs_op_log(x);
        // log|x| of 1 + tiny is a denormal (glibc: log1p(m^2 + n^2 - 1) / 2)
        // that a device without denormals makes 0, and an infinite y.x
        // times 0 is NaN where CPU has 0 or infinity: keep its sign
        if (lg.x == 0.0 && isinf(y.x) && m > 0.0 && !isinf(m) && !(m == 1.0 && n == 0.0))
            lg.x = m >= 1.0 ? uintBitsToFloat(0x00800000u) : -uintBitsToFloat(0x00800000u);
        return rs_op_exp(rs_mx_cmul_g(y, lg));
    }
    // log|x| = log(m) + log1p((n/m)^2) / 2, log(m) as lh + ll
    float lh, ll;
    rs_mx_log_df(m, lh, ll);
    float r = n / m;
    ll += 0.5 * rs_op_log1p(r * r);
    float t = rs_atan2(x.y, x.x);
    // y log(x) = (y.x L - y.y t) + i (y.x t + y.y L), L = lh + ll
    float zrh, zrl, zih, zil;
    rs_mx_dot2(y.x, lh, -y.y, t, y.x * ll, zrh, zrl);
    rs_mx_dot2(y.x, t, y.y, lh, y.y * ll, zih, zil);
    if (isinf(zrh) || isnan(zrh) || isinf(zih) || isnan(zih) || zrh > 176.0)
        return rs_op_exp(rs_mx_cmul_g(y, rs_op_log(x)));
    // exp(re) may overflow where exp(re) cos(im) does not (cexp scales too)
    bool big = zrh > 80.0;
    float e = rs_mx_exp_df(big ? zrh - 80.0 : zrh, zrl);
    float c = rs_op_cos(zih), sn = rs_op_sin(zih);
    vec2 res = vec2(e * (c - zil * sn), e * (sn + zil * c));
    if (big) res *= 5.54062238439350636e34;  // exp(80)
    return res;
}

// pow_tensor_scalar_optimized_kernel's special exponents 3 and -2
float rs_mx_cube(float a) {
    precise float t = a * a;
    return t * a;
}
vec2 rs_mx_cube(vec2 a) { return rs_cmul(rs_cmul(a, a), a); }
float rs_mx_inv_sq(float a) {
    precise float t = a * a;
    return 1.0 / t;
}
vec2 rs_mx_inv_sq(vec2 a) { return rs_cdiv(vec2(1.0, 0.0), rs_cmul(a, a)); }

// ---------------------------------------------------------------- lerp
// lerp_vec: fmadd(small ? w : w - 1, end - self, small ? self : end)
float rs_mx_lerp(float s, float e, float w) {
    bool small = abs(w) < 0.5;
    return fma(small ? w : w - 1.0, e - s, small ? s : e);
}
vec2 rs_mx_lerp(vec2 s, vec2 e, vec2 w) {
    bool small = rs_cabs(w) < 0.5;
    vec2 coeff = small ? w : w - vec2(1.0, 0.0);
    return rs_cmul(coeff, e - s) + (small ? s : e);
}

// ---------------------------------------------------------------- addcmul, addcdiv
// self + value * t1 * t2, evaluated ((value * t1) * t2) + self
float rs_mx_addcmul(float s, float t1, float t2, float v) {
    precise float p = v * t1;
    p = p * t2;
    return s + p;
}
int64_t rs_mx_addcmul(int64_t s, int64_t t1, int64_t t2, int64_t v) { return s + v * t1 * t2; }
uint64_t rs_mx_addcmul(uint64_t s, uint64_t t1, uint64_t t2, uint64_t v) { return s + v * t1 * t2; }
bool rs_mx_addcmul(bool s, bool t1, bool t2, bool v) { return s || (v && t1 && t2); }
vec2 rs_mx_addcmul(vec2 s, vec2 t1, vec2 t2, vec2 v) { return s + rs_cmul(rs_cmul(v, t1), t2); }
// self + value * t1 / t2
float rs_mx_addcdiv(float s, float t1, float t2, float v) {
    precise float p = v * t1;
    p = p / t2;
    return s + p;
}
vec2 rs_mx_addcdiv(vec2 s, vec2 t1, vec2 t2, vec2 v) { return s + rs_cdiv(rs_cmul(v, t1), t2); }

// ---------------------------------------------------------------- hypot, copysign, nextafter
float rs_mx_hypot(float a, float b) {
    float x = abs(a), y = abs(b);
    if (isinf(x) || isinf(y)) return RS_INF_F;
    if (isnan(x) || isnan(y)) return RS_NAN_F;
    float m = max(x, y), n = min(x, y);
    if (m == 0.0) return 0.0;
    float r = n / m;
    return m * sqrt(1.0 + r * r);
}
float rs_mx_copysign(float a, float b) {
    return uintBitsToFloat((floatBitsToUint(a) & 0x7FFFFFFFu) | (floatBitsToUint(b) & 0x80000000u));
}
// musl's nextafter on the bits of a `signmask`-wide float
uint rs_mx_nextafter_bits(uint ux, uint uy, uint signmask) {
    if (ux == uy) return uy;
    uint ax = ux & ~signmask, ay = uy & ~signmask;
    if (ax == 0u) {
        if (ay == 0u) return uy;
        return (uy & signmask) | 1u;
    }
    if (ax > ay || ((ux ^ uy) & signmask) != 0u) return ux - 1u;
    return ux + 1u;
}
// in the common dtype's own format (c10::nextafter for Half and BFloat16)
float rs_mx_nextafter(float x, float y) {
    if (isnan(x) || isnan(y)) return x + y;
#if defined(CM_DT) && CM_DT == 5
    return rs_f16_dec(rs_mx_nextafter_bits(rs_f16_enc(x), rs_f16_enc(y), 0x8000u));
#elif defined(CM_DT) && CM_DT == 15
    return rs_bf16_dec(rs_mx_nextafter_bits(rs_bf16_enc(x), rs_bf16_enc(y), 0x8000u));
#else
    return uintBitsToFloat(rs_mx_nextafter_bits(floatBitsToUint(x), floatBitsToUint(y), 0x80000000u));
#endif
}

// ---------------------------------------------------------------- xlogy, logaddexp
float rs_mx_xlogy(float x, float y) {
    if (isnan(y)) return RS_NAN_F;
    if (x == 0.0) return 0.0;
    return x * rs_log(y);
}
float rs_mx_logaddexp(float a, float b) {
    if (isinf(a) && a == b) return a;
    float m = (a < b) ? b : a;  // std::max
    return m + rs_log1p(rs_exp(-abs(a - b)));
}
float rs_mx_logaddexp2(float a, float b) {
    const float inv_log_2 = 1.44269504088896340736;
    if (isinf(a) && a == b) return a;
    float m = (a < b) ? b : a;
    return m + rs_log1p(exp2(-abs(a - b))) * inv_log_2;
}

// complex logaddexp: LogAddExp.h's _log_add_exp_helper (min/max by real
// part, NaNs infectious, equal infinite real parts handled apart)
bool rs_mx_cisnan(vec2 z) { return isnan(z.x) || isnan(z.y); }
vec2 rs_mx_logaddexp(vec2 x, vec2 y) {
    vec2 mn, mx;
    if (rs_mx_cisnan(y)) {
        mn = y;
        mx = y;
    } else if (rs_mx_cisnan(x)) {
        mn = x;
        mx = x;
    } else if (x.x < y.x) {
        mn = x;
        mx = y;
    } else {
        mn = y;
        mx = x;
    }
    if (rs_mx_cisnan(mn)) return vec2(RS_NAN_F, RS_NAN_F);
    if (isinf(mn.x) && mn.x == mx.x) {
        if (mn.x < 0.0) return mn;
        return rs_op_log(rs_op_exp(mn) + rs_op_exp(mx));
    }
    return rs_op_log1p(rs_op_exp(mn - mx)) + mx;
}

// ---------------------------------------------------------------- heaviside
bool rs_mx_heaviside(bool a, bool b) { return a || b; }
int64_t rs_mx_heaviside(int64_t a, int64_t b) { return a == 0L ? b : (rs_neg64(a) ? 0L : 1L); }
uint64_t rs_mx_heaviside(uint64_t a, uint64_t b) { return a == 0UL ? b : 1UL; }
float rs_mx_heaviside(float a, float b) { return a == 0.0 ? b : (a > 0.0 ? 1.0 : 0.0); }

// ---------------------------------------------------------------- gcd, lcm
// calc_gcd (ATen/native/Math.h): Euclid on |a| and |b| in the dtype (|min|
// wraps to min, as std::abs in the dtype does), C's truncating remainder.
// A 64-bit Euclid takes at most 92 steps (Fibonacci); the bound is 100.
int64_t rs_mx_iabs(int64_t a) { return rs_wcm(rs_neg64(a) ? -a : a); }
int64_t rs_mx_gcd(int64_t a, int64_t b) {
    a = rs_mx_iabs(a);
    b = rs_mx_iabs(b);
    for (int i = 0; i < 100 && a != 0L; i++) {
        int64_t c = a;
        a = a == -1L ? 0L : b - (b / a) * a;
        b = c;
    }
    return b;
}
// lcm_kernel: g == 0 ? 0 : abs(a / g * b); int8/int16/uint8 compute in C's
// int (exact), int32 wraps the product to int before the abs
int64_t rs_mx_lcm(int64_t a, int64_t b) {
    int64_t g = rs_mx_gcd(a, b);
    if (g == 0L) return 0L;
    int64_t p = (g == -1L ? -a : a / g) * b;
#if defined(CM_DT) && CM_DT == 3
    p = int64_t(int(p));
#endif
    return rs_neg64(p) ? -p : p;
}

// ---------------------------------------------------------------- frexp
// std::frexp: x = m * 2^e with 0.5 <= |m| < 1; 0, inf and NaN give (x, 0).
// From the bits, so that float32 subnormals work; the exponent is returned
// as a float (exact) and stored to int32 by the engine.
float rs_mx_frexp(float x, out float e) {
    uint u = floatBitsToUint(x);
    uint be = (u >> 23) & 0xFFu;
    e = 0.0;
    if (be == 0xFFu || (u & 0x7FFFFFFFu) == 0u) return x;
    uint f = u & 0x7FFFFFu;
    int ex;
    if (be == 0u) {  // subnormal: f * 2^-149
        int msb = findMSB(f);
        f = (f << uint(23 - msb)) & 0x7FFFFFu;
        ex = msb - 148;
    } else {
        ex = int(be) - 126;
    }
    e = float(ex);
    return uintBitsToFloat((u & 0x80000000u) | (126u << 23) | f);
}
float rs_mx_frexp_mantissa(float x) {
    float e;
    return rs_mx_frexp(x, e);
}
float rs_mx_frexp_exponent(float x) {
    float e;
    rs_mx_frexp(x, e);
    return e;
}

// ---------------------------------------------------------------- ldexp
// x 2^e exactly, rounded once (C's ldexp, CPU's kernel for an integer
// exponent, which it narrows to int first: int(e) wraps as CPU's cast).
// On the bits, integers only: a device that flushes float32 denormals (NVIDIA,
// Metal) would flush a multiply's subnormal operand or result, where CPU
// keeps them (ldexp(1e-45, 160) is 2.0e3 on CPU, and was 0 on the H100).
float rs_mx_ldexp(float x, int64_t e64) {
    uint u = floatBitsToUint(x);
    uint sign = u & 0x80000000u, be = (u >> 23) & 0xFFu, f = u & 0x7FFFFFu;
    if (be == 0xFFu || (u & 0x7FFFFFFFu) == 0u) return x;  // inf, NaN (payload kept), zeros
    int ex = int(be);
    if (be == 0u) {  // subnormal f 2^-149 = 1.f' 2^(msb - 149): biased exponent msb - 22
        int msb = findMSB(f);
        f = (f << uint(23 - msb)) & 0x7FFFFFu;
        ex = msb - 22;
    }
    int r = ex + clamp(int(e64), -400, 400);  // past +-400 the result is inf or 0 either way
    if (r >= 255) return uintBitsToFloat(sign | 0x7F800000u);
    if (r >= 1) return uintBitsToFloat(sign | (uint(r) << 23) | f);
    // a subnormal result: the 24-bit significand shifted right by 1 - r, to nearest even
    int s = 1 - r;
    if (s > 25) return uintBitsToFloat(sign);
    uint m = f | 0x800000u, q = m >> uint(s), rem = m & ((1u << uint(s)) - 1u), hf = 1u << uint(s - 1);
    if (rem > hf || (rem == hf && (q & 1u) != 0u)) q += 1u;
    return uintBitsToFloat(sign | q);  // q = 2^23 is the smallest normal, as it should be
}

// ---------------------------------------------------------------- hash_tensor
// The 64 bits of a float32 value (bits u) widened to double, exactly as a
// CPU's float -> double conversion: subnormals normalized, NaN keeps its
// payload and gets the quiet bit. Integer arithmetic only (no fp64).
int64_t rs_mx_f32_bits_as_f64(uint u) {
    uint64_t sign = uint64_t(u >> 31) << 63;
    uint e = (u >> 23) & 0xFFu;
    uint m = u & 0x7FFFFFu;
    uint64_t ex, mant;
    if (e == 0xFFu) {
        ex = 0x7FFUL;
        mant = uint64_t(m != 0u ? (m | 0x400000u) : 0u) << 29;
    } else if (e == 0u) {
        if (m == 0u) return int64_t(sign);
        int msb = findMSB(m);  // m * 2^-149 = 1.f * 2^(msb - 149)
        mant = uint64_t((m << uint(23 - msb)) & 0x7FFFFFu) << 29;
        ex = uint64_t(msb - 149 + 1023);
    } else {
        ex = uint64_t(e) + 896UL;  // e - 127 + 1023
        mant = uint64_t(m) << 29;
    }
    return int64_t(sign | (ex << 52) | mant);
}
// from the bits of a float32 / bfloat16 / float16 value (in the low bits of b)
int64_t rs_mx_hash_f32(int64_t b) { return rs_mx_f32_bits_as_f64(uint(b)); }
int64_t rs_mx_hash_bf16(int64_t b) { return rs_mx_f32_bits_as_f64((uint(b) & 0xFFFFu) << 16); }
int64_t rs_mx_hash_f16(int64_t b) {
    uint h = uint(b) & 0xFFFFu;
    uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    uint f;
    if (e == 0x1Fu) f = sign | 0x7F800000u | (m << 13);
    else if (e == 0u) {
        if (m == 0u) f = sign;
        else {
            int msb = findMSB(m);  // m * 2^-24 = 1.f * 2^(msb - 24)
            f = sign | (uint(msb - 24 + 127) << 23) | (((m << uint(10 - msb)) & 0x3FFu) << 13);
        }
    } else f = sign | ((e + 112u) << 23) | (m << 13);  // e - 15 + 127
    return rs_mx_f32_bits_as_f64(f);
}

// ---------------------------------------------------------------- nan_to_num
float rs_mx_nan_to_num(float a, float nan_v, float pos_v, float neg_v) {
    if (isnan(a)) return nan_v;
    if (isinf(a)) return a > 0.0 ? pos_v : neg_v;
    return a;
}

// ---------------------------------------------------------------- random transforms
// u: uniform [0, 1) floats (rs_rng_uniform); as core/TransformationHelper.h
bool rs_mx_bernoulli(float u, float p) { return u < p; }
// exponential: -1 / lambda * log1p(-u); s = -1 / lambda
float rs_mx_exponential(float u, float s) { return s * rs_log1p(-u); }
// geometric: ceil(log(v) / log1p(-p)), v = 1 - u in (0, 1]; l = log1p(-p)
float rs_mx_geometric(float u, float l) { return max(ceil(rs_log(1.0 - u) / l), 1.0); }
float rs_mx_cauchy(float u, float median, float sigma) {
    return median + sigma * tan(3.14159265358979323846 * (u - 0.5));
}

// ---------------------------------------------------------------- dropout
// native_dropout: (x * mask) * scale
float rs_mx_dropout(float x, bool keep, float scale) {
    precise float t = x * (keep ? 1.0 : 0.0);
    return t * scale;
}

// ---------------------------------------------------------------- fused Adam / AdamW
// the gradient as FusedAdamKernel uses it: negated (maximize), plus
// param * weight_decay (Adam's L2 form)
float rs_mx_adam_grad(float g, float p, float wd, bool maximize, bool l2) {
    if (maximize) g = g * -1.0;
    if (l2) {
        precise float t = p * wd;
        g = g + t;
    }
    return g;
}
// exp_avg.lerp_(grad, w), w = 1 - beta1 (vectorized form)
float rs_mx_adam_m(float m, float g, float w) {
    bool small = abs(w) < 0.5;
    return fma(small ? w : w - 1.0, g - m, small ? m : g);
}
// exp_avg_sq * beta2 + (1 - beta2) * grad * grad
float rs_mx_adam_v(float v, float g, float beta2, float c2) {
    precise float t = v * beta2;
    precise float u = c2 * g;
    u = u * g;
    return t + u;
}
// param * decay + (-step_size) * exp_avg / (sqrt(v) / bc2_sqrt + eps)
float rs_mx_adam_param(float p, float m, float v, float decay, float neg_step, float bc2_sqrt, float eps) {
    precise float denom = rs_sqrt_cr(v) / bc2_sqrt;
    denom = denom + eps;
    precise float pp = p * decay;
    precise float u = neg_step * m;
    u = u / denom;
    return pp + u;
}

// ---------------------------------------------------------------- fused Adagrad
// (FusedAdagradKernel; the gradient is rs_mx_adam_grad's) state_sum + g * g
float rs_mx_adagrad_sum(float s, float g) {
    precise float t = g * g;
    return s + t;
}
// param - clr * g / (sqrt(state_sum) + eps)
float rs_mx_adagrad_param(float p, float g, float sum, float clr, float eps) {
    precise float std_dev = rs_sqrt_cr(sum) + eps;
    precise float u = clr * g;
    u = u / std_dev;
    return p - u;
}

// ---------------------------------------------------------------- fused SGD
float rs_mx_sgd_grad(float g, float p, float wd, bool maximize, bool has_wd) {
    if (maximize) g = g * -1.0;
    if (has_wd) g = fma(p, wd, g);
    return g;
}
// momentum_buffer * momentum + (1 - dampening) * grad (fmadd)
float rs_mx_sgd_buf(float buf, float g, float mom, float c) {
    precise float t = buf * mom;
    return fma(c, g, t);
}
// param + g' * (-lr); mode 0: g' = g, 1: g' = buf, 2 (nesterov): g' = g + buf * momentum
float rs_mx_sgd_param(float p, float g, float buf, float mom, float neg_lr, int mode) {
    float gg = mode == 0 ? g : (mode == 1 ? buf : fma(buf, mom, g));
    precise float t = gg * neg_lr;
    return p + t;
}

#endif
