// ops_math.glsl: transcendental and other unary math: exp/log/trig families, rounding, complex math.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
//
// The op entry points are rs_op_<name>. GLSL's float builtins are not
// accurate enough for PyTorch's tolerances everywhere (Vulkan allows 3 ulp
// for exp/log and 2^-11 absolute for sin/cos, and lavapipe computes exp(x)
// as exp2(x * log2(e))), so the float32 functions here are range reduction
// plus minimax polynomials in float arithmetic (the Cephes single-precision
// coefficients), about 1-2 ulp on the domains PyTorch tests. Complex
// functions follow c10/util/complex_math.h (libstdc++'s / glibc's formulas).
#ifndef RS_OPS_MATH_GLSL
#define RS_OPS_MATH_GLSL

#define RS_PIO4_1 uintBitsToFloat(0x3f490fdbu)
#define RS_PIO4_2 uintBitsToFloat(0xb2bbbd2eu)
#define RS_PIO4_3 uintBitsToFloat(0xa6772cedu)
#define RS_PI_F 3.14159265358979323846
#define RS_PIO2_F 1.57079632679489661923
#define RS_PIO4_F 0.78539816339744830962
#define RS_LN2_F 0.69314718055994530942
#define RS_LOG2E_F 1.44269504088896340736
#define RS_LOG10E_F 0.43429448190325182765

float rs_m_copysign(float x, float s) {
    return uintBitsToFloat((floatBitsToUint(x) & 0x7FFFFFFFu) | (floatBitsToUint(s) & 0x80000000u));
}
// a * m * 2^e, exact for |a * m| < 2^24, as an integer product and an
// ldexp: never contracted into a multiply-add
float rs_m_iprod(int a, int m, int e) { return ldexp(float(a * m), e); }
// x * 2^n for |n| <= 252, without overflow in the scale factors
float rs_m_ldexp(float x, int n) {
    int n1 = n / 2, n2 = n - n1;
    return x * uintBitsToFloat(uint(n1 + 127) << 23) * uintBitsToFloat(uint(n2 + 127) << 23);
}

// ---------------------------------------------------------------- exp, log
// (e^r - 1 - r) / r^2 for |r| <= ln2/2 (the polynomial of Cephes expf)
float rs_m_exp_poly(float r) {
    return ((((1.9875691500E-4 * r + 1.3981999507E-3) * r + 8.3334519073E-3) * r + 4.1665795894E-2) * r +
            1.6666665459E-1) * r + 5.0000001201E-1;
}
// e^r for |r| <= ln2/2
float rs_m_exp_core(float r) { return rs_m_exp_poly(r) * (r * r) + r + 1.0; }
// e^(rh + rl), |rh| <= ln2/2, |rl| tiny: 1 + rh as an exact sum, so that the
// result is rounded once (within about 0.5 ulp, as glibc's expf, which
// CPU's exp is)
float rs_m_exp_core2(float rh, float rl) {
    precise float s = 1.0 + rh;
    precise float e = (1.0 - s) + rh;  // exact: |rh| < 1
    precise float lo = e + (rl + rs_m_exp_poly(rh) * (rh * rh));
    return s + lo;
}
float rs_op_exp(float x) {
    if (isnan(x)) return x;
    if (x > 88.72283935546875) return RS_INF_F;
    if (x < -103.97208404541015625) return 0.0;
    float n = floor(RS_LOG2E_F * x + 0.5);
    int ni = int(n);
    // x - n ln2 as rh + rl, ln2 = C1 + C2, C1 = 355 / 2^9: n * C1 is exact,
    // and computed as an integer product (never a multiply-add); the sum
    // a + t is split exactly (two-sum)
    precise float a = x - rs_m_iprod(ni, 355, -9);
    precise float t = n * 2.12194440e-4;
    precise float rh = a + t;
    precise float bt = rh - a;
    precise float rl = (a - (rh - bt)) + (t - bt);
    return rs_m_ldexp(rs_m_exp_core2(rh, rl), ni);
}
float rs_op_exp2(float x) {
    if (isnan(x)) return x;
    if (x >= 128.0) return RS_INF_F;
    if (x < -150.0) return 0.0;
    float n = floor(x + 0.5);
    float r = (x - n) * RS_LN2_F;  // x - n is exact
    return rs_m_ldexp(rs_m_exp_core(r), int(n));
}
// log(1 + f) - f + f^2/2 for f in [sqrt(1/2) - 1, sqrt(2) - 1] (Cephes logf)
float rs_m_log_poly(float f) {
    float z = f * f;
    float y = ((((((((7.0376836292E-2 * f - 1.1514610310E-1) * f + 1.1676998740E-1) * f - 1.2420140846E-1) * f +
                  1.4249322787E-1) * f - 1.6668057665E-1) * f + 2.0000714765E-1) * f - 2.4999993993E-1) * f +
              3.3333331174E-1) * f * z;
    return y - 0.5 * z;
}
// x = 2^e (1 + f), f in [sqrt(1/2) - 1, sqrt(2) - 1), for finite x > 0
void rs_m_log_split(float x, out float e, out float f) {
    int ie;
    float m = frexp(x, ie);  // [0.5, 1)
    if (m < 0.70710678118654752440) {
        m = m + m;
        ie -= 1;
    }
    e = float(ie);
    f = m - 1.0;  // exact
}
float rs_op_log(float x) {
    if (isnan(x) || x < 0.0) return RS_NAN_F;
    if (x == 0.0) return -RS_INF_F;
    if (isinf(x)) return x;
    float e, f;
    rs_m_log_split(x, e, f);
    float y = rs_m_log_poly(f);
    // ln2 = 0.693359375 - 2.12194440e-4
    precise float r = e * -2.12194440e-4 + y;
    r = r + f;
    return r + rs_m_iprod(int(e), 355, -9);
}
float rs_op_log2(float x) {
    if (isnan(x) || x < 0.0) return RS_NAN_F;
    if (x == 0.0) return -RS_INF_F;
    if (isinf(x)) return x;
    float e, f;
    rs_m_log_split(x, e, f);
    float y = rs_m_log_poly(f);
    // log2(e) = 1 + 0.44269504088896340736
    precise float r = y * 0.44269504088896340736 + f * 0.44269504088896340736;
    r = r + y + f;
    return r + e;
}
float rs_op_log10(float x) {
    if (isnan(x) || x < 0.0) return RS_NAN_F;
    if (x == 0.0) return -RS_INF_F;
    if (isinf(x)) return x;
    float e, f;
    rs_m_log_split(x, e, f);
    float y = rs_m_log_poly(f);
    // log10(e) = 4.3359375E-1 + 7.00731903251827651129E-4; log10(2) = 3.0078125E-1 + 2.48745663981195213739E-4
    precise float r = (y + f) * 7.00731903251827651129E-4 + (y + f) * 4.3359375E-1;
    r = e * 2.48745663981195213739E-4 + r;
    return r + e * 3.0078125E-1;
}
float rs_op_log1p(float x) {
    if (isnan(x)) return x;
    precise float u = 1.0 + x;
    if (u == 1.0) return x;
    if (isinf(u) || u <= 0.0) return rs_op_log(u);
    precise float d = u - 1.0;
    return rs_op_log(u) * (x / d);  // Kahan: corrects the rounding of 1 + x
}
float rs_op_expm1(float x) {
    if (isnan(x)) return x;
    if (abs(x) < 0.34657359) {
        // e^x - 1 = r + r^2 (1/2 + ...), the polynomial of exp without the 1
        float z = x * x;
        float p = ((((1.9875691500E-4 * x + 1.3981999507E-3) * x + 8.3334519073E-3) * x + 4.1665795894E-2) * x +
                   1.6666665459E-1) * x + 5.0000001201E-1;
        return p * z + x;
    }
    if (x > 88.72283935546875) return RS_INF_F;
    if (x < -17.5) return -1.0;
    return rs_op_exp(x) - 1.0;
}

// ---------------------------------------------------------------- trigonometric
// ax >= 2^20 (to 2^128): x = j pi/4 + r by Payne and Hanek's method. ax is
// m 2^e (m the 24-bit integer significand, e >= -3), and only the bits of
// 4/pi from weight 2^(2 - e) down matter (the higher ones make m 2^e 4/pi
// change by multiples of 8): a 96-bit window W of them, taken from the
// binary fraction of 1/(2 pi) = (4/pi) / 8 at bit e (bits before its point
// are zeros: 4/pi < 8). m W mod 2^96, read as a
// fixed-point number with 93 fraction bits, is ax 4/pi mod 8: its top 3
// bits j, the rest the fraction (error below 2^-70, where no float lies
// closer than about 2^-30 to a multiple of pi/4). Integer arithmetic only.
const uint RS_INV_2PI_BITS[7] = uint[7](0x28be60dbu, 0x9391054au, 0x7f09d5f4u, 0x7d4d3770u, 0x36d8a566u,
                                        0x4f10e410u, 0x7f9458eau);
uint rs_m_inv2pi_word(int bit) {  // the 32 bits of 1/(2 pi) from bit `bit` (0: weight 2^-1)
    if (bit < 0) return RS_INV_2PI_BITS[0] >> (-bit);  // (bit >= -3 here)
    const int q = bit >> 5, sh = bit & 31;
    return sh == 0 ? RS_INV_2PI_BITS[q] : (RS_INV_2PI_BITS[q] << sh) | (RS_INV_2PI_BITS[q + 1] >> (32 - sh));
}
float rs_m_reduce_pio4_large(float ax, out int j) {
    const uint bits = floatBitsToUint(ax);
    const uint m = (bits & 0x7fffffu) | 0x800000u;
    const int e = int(bits >> 23) - 150;  // ax = m 2^e
    const uint w0 = rs_m_inv2pi_word(e), w1 = rs_m_inv2pi_word(e + 32), w2 = rs_m_inv2pi_word(e + 64);
    uint h0, l0, h1, l1, h2, l2;
    umulExtended(m, w0, h0, l0);
    umulExtended(m, w1, h1, l1);
    umulExtended(m, w2, h2, l2);
    // m W mod 2^96 = (p0, p1, l2), most significant first
    uint c;
    const uint p1 = uaddCarry(h2, l1, c);
    const uint p0 = l0 + h1 + c;
    j = int(p0 >> 29);
    uint64_t f = (((uint64_t(p0) << 32) | uint64_t(p1)) << 3) | uint64_t(l2 >> 29);  // the fraction, 2^-64 units
    float sgn = 1.0;
    if ((j & 1) != 0) {  // round j to even, as the small path: r = (f - 1) pi/4 < 0
        j = (j + 1) & 7;
        f = ~f + 1UL;
        sgn = -1.0;
    }
    return sgn * (float(f) * 5.42101086242752217e-20) * 0.785398163397448310;  // f 2^-64 pi/4
}

// x = j pi/4 + r, |r| <= pi/4 (with j even), for 0 <= ax < 2^23: Cody-Waite
// with pi/4 = P0 + P1 + P2 (12 significant bits each) + P3 and y split into
// 12-bit halves, so that every product is exact: integer products (no fma
// is formed; lavapipe's contracted multiply-adds are not exact). From 2^20
// rs_m_reduce_pio4_large: above, y = floor(ax 4/pi) rounded in a float is
// off by one often enough to put r past pi/4, where tan's polynomial
// loses up to 150 ulp near 2^23 (and beyond 2^24 y overflows the split).
float rs_m_reduce_pio4(float ax, out int j) {
    if (ax >= 1048576.0) return rs_m_reduce_pio4_large(ax, j);
    float y = floor(ax * 1.27323954473516268615);
    if (mod(y, 2.0) == 1.0) y += 1.0;
    j = int(mod(y, 8.0));
    int yh = int(floor(y * (1.0 / 4096.0)));  // y = 4096 yh + yl
    int yl = int(y - float(yh) * 4096.0);
    // P0 = 3217 2^-12, P1 = -2391 2^-30, P2 = -3829 2^-43, P3 the rest
    const float P3 = uintBitsToFloat(0x290c234cu);
    precise float r = ax - rs_m_iprod(yh, 3217, 0);
    r = r - rs_m_iprod(yl, 3217, -12);
    r = r + rs_m_iprod(yh, 2391, -18);
    r = r + rs_m_iprod(yl, 2391, -30);
    r = r + rs_m_iprod(yh, 3829, -31);
    r = r + rs_m_iprod(yl, 3829, -43);
    r = r - y * P3;
    return r;
}
float rs_m_sin_poly(float r) {
    float z = r * r;
    return ((-1.9515295891E-4 * z + 8.3321608736E-3) * z - 1.6666654611E-1) * z * r + r;
}
float rs_m_cos_poly(float r) {
    float z = r * r;
    return ((2.443315711809948E-5 * z - 1.388731625493765E-3) * z + 4.166664568298827E-2) * z * z - 0.5 * z + 1.0;
}
float rs_op_sin(float x) {
    if (isnan(x) || isinf(x)) return RS_NAN_F;
    int j;
    float r = rs_m_reduce_pio4(abs(x), j);
    float s = x < 0.0 ? -1.0 : 1.0;
    if (j > 3) {
        s = -s;
        j -= 4;
    }
    float v = (j == 2) ? rs_m_cos_poly(r) : rs_m_sin_poly(r);
    return s * v;
}
float rs_op_cos(float x) {
    if (isnan(x) || isinf(x)) return RS_NAN_F;
    int j;
    float r = rs_m_reduce_pio4(abs(x), j);
    float s = 1.0;
    if (j > 3) {
        s = -s;
        j -= 4;
    }
    if (j > 1) s = -s;
    float v = (j == 2) ? rs_m_sin_poly(r) : rs_m_cos_poly(r);
    return s * v;
}
float rs_op_tan(float x) {
    if (isnan(x) || isinf(x)) return RS_NAN_F;
    int j;
    float r = rs_m_reduce_pio4(abs(x), j);
    float z = r * r;
    float y = r;
    if (abs(r) > 1e-4)
        y = (((((9.38540185543E-3 * z + 3.11992232697E-3) * z + 2.44301354525E-2) * z + 5.34112807005E-2) * z +
              1.33387994085E-1) * z + 3.33331568548E-1) * z * r + r;
    if ((j & 2) != 0) y = -1.0 / y;
    return x < 0.0 ? -y : y;
}
// asin on [0, 0.5] (Cephes asinf)
float rs_m_asin_poly(float a) {
    float z = a * a;
    return ((((4.2163199048E-2 * z + 2.4181311049E-2) * z + 4.5470025998E-2) * z + 7.4953002686E-2) * z +
            1.6666752422E-1) * z * a + a;
}
float rs_op_asin(float x) {
    float a = abs(x);
    if (isnan(x) || a > 1.0) return RS_NAN_F;
    float r;
    if (a > 0.5) {
        float s = sqrt(0.5 * (1.0 - a));
        r = RS_PIO2_F - 2.0 * rs_m_asin_poly(s);
    } else {
        r = rs_m_asin_poly(a);
    }
    return x < 0.0 ? -r : r;
}
float rs_op_acos(float x) {
    if (isnan(x) || abs(x) > 1.0) return RS_NAN_F;
    if (x < -0.5) return RS_PI_F - 2.0 * rs_m_asin_poly(sqrt(0.5 * (1.0 + x)));
    if (x > 0.5) return 2.0 * rs_m_asin_poly(sqrt(0.5 * (1.0 - x)));
    return RS_PIO2_F - rs_m_asin_poly(x);
}
float rs_op_atan(float x) {
    if (isnan(x)) return x;
    float a = abs(x), y = 0.0;
    if (a > 2.414213562373095) {
        y = RS_PIO2_F;
        a = -1.0 / a;
    } else if (a > 0.4142135623730950) {
        y = RS_PIO4_F;
        a = (a - 1.0) / (a + 1.0);
    }
    float z = a * a;
    y += (((8.05374449538e-2 * z - 1.38776856032E-1) * z + 1.99777106478E-1) * z - 3.33329491539E-1) * z * a + a;
    return x < 0.0 ? -y : y;
}

// ---------------------------------------------------------------- hyperbolic
float rs_op_sinh(float x) {
    float a = abs(x);
    if (isnan(x)) return x;
    float r;
    if (a <= 1.0) {
        float z = x * x;
        return ((2.03721912945E-4 * z + 8.33028376239E-3) * z + 1.66667160211E-1) * z * x + x;
    }
    if (a > 88.0) {
        float h = rs_op_exp(0.5 * a);
        precise float hh = 0.5 * h;  // no reassociation into h * h (overflow)
        r = hh * h;
    } else {
        float e = rs_op_exp(a);
        r = 0.5 * e - 0.5 / e;
    }
    return x < 0.0 ? -r : r;
}
float rs_op_cosh(float x) {
    float a = abs(x);
    if (isnan(x)) return x;
    if (a > 88.0) {
        float h = rs_op_exp(0.5 * a);
        precise float hh = 0.5 * h;
        precise float r = hh * h;
        return r;
    }
    float e = rs_op_exp(a);
    return 0.5 * e + 0.5 / e;
}
float rs_op_tanh(float x) {
    float a = abs(x);
    if (isnan(x)) return x;
    if (a >= 0.625) {
        if (a > 44.0) return x < 0.0 ? -1.0 : 1.0;
        float r = 1.0 - 2.0 / (rs_op_exp(2.0 * a) + 1.0);
        return x < 0.0 ? -r : r;
    }
    float z = x * x;
    return ((((-5.70498872745E-3 * z + 2.06390887954E-2) * z - 5.37397155531E-2) * z + 1.33314422036E-1) * z -
            3.33332819422E-1) * z * x + x;
}
float rs_op_asinh(float x) {
    float a = abs(x);
    if (isnan(x) || isinf(x)) return x;
    float r;
    if (a >= 4096.0) r = rs_op_log(a) + RS_LN2_F;
    else if (a >= 2.0) r = rs_op_log(2.0 * a + 1.0 / (sqrt(a * a + 1.0) + a));
    else if (a >= 2.44140625e-4) r = rs_op_log1p(a + a * a / (sqrt(a * a + 1.0) + 1.0));
    else r = a;
    return x < 0.0 ? -r : r;
}
float rs_op_acosh(float x) {
    if (isnan(x) || x < 1.0) return RS_NAN_F;
    if (isinf(x)) return x;
    if (x < 2.0) {
        float t = x - 1.0;  // exact
        return rs_op_log1p(t + sqrt(t * t + 2.0 * t));
    }
    if (x < 4096.0) return rs_op_log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
    return rs_op_log(x) + RS_LN2_F;
}
float rs_op_atanh(float x) {
    float a = abs(x);
    if (isnan(x) || a > 1.0) return RS_NAN_F;
    float r;
    if (a < 0.5) {
        if (a < 2.44140625e-4) r = a;
        else r = 0.5 * rs_op_log1p(2.0 * a + 2.0 * a * a / (1.0 - a));
    } else {
        r = 0.5 * rs_op_log1p(2.0 * (a / (1.0 - a)));
    }
    return x < 0.0 ? -r : r;
}

// ---------------------------------------------------------------- misc real
float rs_op_sigmoid(float x) { return 1.0 / (1.0 + rs_op_exp(-x)); }
// One Newton step from s, an ulp or two from sqrt(x), with the exact
// residual x - s s (Dekker's product, adds and multiplies only; NoContraction
// keeps them apart): it rounds correctly, a square root is never a midpoint.
// For x in [2^-63, 2^64], where every partial product is a normal float.
float rs_sqrt_step(float x, float s) {
    precise float c = 4097.0 * s;
    precise float sh = c - (c - s);
    precise float sl = s - sh;
    precise float p = s * s;
    precise float e = (((sh * sh - p) + sh * sl) + sl * sh) + sl * sl;  // s s = p + e exactly
    precise float r = (x - p) - e;
    precise float s1 = s + r / (s + s);
    return s1;
}
// sqrt rounded once, as CPU's std::sqrt: Vulkan lets sqrt be off by about
// 3 ulp (NVIDIA's is an inverse square root times x; a fused Adagrad float16
// step came out an ulp off on the H200). x is scaled by an even power of two
// into rs_sqrt_step's range.
float rs_sqrt_cr(float x) {
    if (!(x > 0.0) || isinf(x)) return sqrt(x);  // zeros, negatives, NaN, infinity
    float scale = 1.0;
    if (x < uintBitsToFloat(0x20000000u)) {         // 2^-63
        x *= uintBitsToFloat(0x71800000u);          // 2^100
        scale = uintBitsToFloat(0x26800000u);       // 2^-50
    } else if (x > uintBitsToFloat(0x5f800000u)) {  // 2^64
        x *= uintBitsToFloat(0x1f800000u);          // 2^-64
        scale = uintBitsToFloat(0x4f800000u);       // 2^32
    }
    return rs_sqrt_step(x, sqrt(x)) * scale;
}
// (torch.sqrt itself keeps the device's: CPU's is MKL's vsSqrt, which is not
// correctly rounded either; the fused optimizers, whose CPU kernels use
// std::sqrt, take rs_sqrt_cr)
float rs_op_sqrt(float x) { return sqrt(x); }
float rs_op_rsqrt(float x) { return 1.0 / sqrt(x); }
// CPU: x == 0 ? 1 : sin(pi x) / (pi x), the product rounded to float
float rs_op_sinc(float x) {
    if (x == 0.0) return 1.0;
    float p = RS_PI_F * x;
    return rs_op_sin(p) / p;
}
// logit: eps < 0 means none (CPU passes -1); x == 1 gives +inf. CPU computes
// in the dtype: float16/bfloat16 round 1 - x and the quotient (rs_rcm).
float rs_op_logit(float x, float eps) {
    float hi = rs_rcm(1.0 - eps);
    if (eps >= 0.0) x = x < eps ? eps : (x > hi ? hi : x);
    if (x == 1.0) return RS_INF_F;
    return rs_op_log(rs_rcm(x / rs_rcm(1.0 - x)));
}

// ---------------------------------------------------------------- rounding
float rs_op_trunc(float x) { return trunc(x); }
float rs_op_floor(float x) { return floor(x); }
float rs_op_ceil(float x) { return ceil(x); }
float rs_op_round(float x) { return roundEven(x); }
int64_t rs_op_trunc(int64_t x) { return x; }
int64_t rs_op_floor(int64_t x) { return x; }
int64_t rs_op_ceil(int64_t x) { return x; }
int64_t rs_op_round(int64_t x) { return x; }
uint64_t rs_op_trunc(uint64_t x) { return x; }
uint64_t rs_op_floor(uint64_t x) { return x; }
uint64_t rs_op_ceil(uint64_t x) { return x; }
uint64_t rs_op_round(uint64_t x) { return x; }
bool rs_op_trunc(bool x) { return x; }
bool rs_op_floor(bool x) { return x; }
bool rs_op_ceil(bool x) { return x; }
bool rs_op_round(bool x) { return x; }
// round(x, decimals): p = 10^|decimals| in float (CPU's opmath), neg: decimals < 0
float rs_op_round_dec(float x, float p, bool neg) { return neg ? roundEven(x / p) * p : roundEven(x * p) / p; }
float rs_op_frac(float x) { return x - trunc(x); }

// ---------------------------------------------------------------- sign, classification
float rs_op_sgn(float x) { return rs_sign(x); }
int64_t rs_op_sgn(int64_t x) { return rs_sign(x); }
uint64_t rs_op_sgn(uint64_t x) { return rs_sign(x); }
bool rs_op_sgn(bool x) { return x; }
// c10's sgn: z / |z|, 0 for 0 (std::abs is hypot)
vec2 rs_op_sgn(vec2 z) {
    float m = rs_cabs(z);
    return m == 0.0 ? vec2(0.0) : vec2(z.x / m, z.y / m);
}
bool rs_op_isnan(float x) { return isnan(x); }
bool rs_op_isnan(vec2 z) { return isnan(z.x) || isnan(z.y); }
bool rs_op_isnan(int64_t x) { return false; }
bool rs_op_isnan(uint64_t x) { return false; }
bool rs_op_isnan(bool x) { return false; }
bool rs_op_isinf(float x) { return isinf(x); }
bool rs_op_isinf(vec2 z) { return isinf(z.x) || isinf(z.y); }
bool rs_op_isinf(int64_t x) { return false; }
bool rs_op_isinf(uint64_t x) { return false; }
bool rs_op_isinf(bool x) { return false; }
bool rs_op_isposinf(float x) { return isinf(x) && x > 0.0; }
bool rs_op_isposinf(int64_t x) { return false; }
bool rs_op_isposinf(uint64_t x) { return false; }
bool rs_op_isposinf(bool x) { return false; }
bool rs_op_isneginf(float x) { return isinf(x) && x < 0.0; }
bool rs_op_isneginf(int64_t x) { return false; }
bool rs_op_isneginf(uint64_t x) { return false; }
bool rs_op_isneginf(bool x) { return false; }
bool rs_op_signbit(float x) { return (floatBitsToUint(x) & 0x80000000u) != 0u; }
bool rs_op_signbit(int64_t x) { return rs_neg64(x); }
bool rs_op_signbit(uint64_t x) { return false; }
bool rs_op_signbit(bool x) { return false; }
bool rs_op_not(bool x) { return !x; }
bool rs_op_not(int64_t x) { return x == 0L; }
bool rs_op_not(uint64_t x) { return x == 0UL; }
bool rs_op_not(float x) { return !rs_truth(x); }  // on the bits: a flushed denormal is not 0
bool rs_op_not(vec2 z) { return !rs_truth(z); }

// ---------------------------------------------------------------- complex
vec2 rs_op_conj(vec2 z) { return vec2(z.x, -z.y); }
bool rs_op_conj(bool x) { return x; }
int64_t rs_op_conj(int64_t x) { return x; }
uint64_t rs_op_conj(uint64_t x) { return x; }
float rs_op_conj(float x) { return x; }
float rs_op_abs(vec2 z) { return rs_cabs(z); }
// angle: atan2(imag, real); real x: 0 for x >= 0, pi for x < 0, NaN kept
float rs_op_angle(vec2 z) { return rs_atan2(z.y, z.x); }
float rs_op_angle(float x) {
    if (isnan(x)) return x;
    return x < 0.0 ? RS_PI_F : 0.0;
}
vec2 rs_op_polar(float r, float t) { return vec2(r * rs_op_cos(t), r * rs_op_sin(t)); }
vec2 rs_op_complex(float re, float im) { return vec2(re, im); }

vec2 rs_op_exp(vec2 z) {
    if (z.y == 0.0 && !isnan(z.x)) return vec2(rs_op_exp(z.x), z.y);
    if (isinf(z.x) && z.x < 0.0 && (isinf(z.y) || isnan(z.y))) return vec2(0.0, 0.0);
    float e = rs_op_exp(z.x);
    if (isinf(z.x) && z.x > 0.0 && (isinf(z.y) || isnan(z.y))) return vec2(z.x, RS_NAN_F);
    return vec2(e * rs_op_cos(z.y), e * rs_op_sin(z.y));
}
vec2 rs_op_exp2(vec2 z) { return rs_op_exp(vec2(RS_LN2_F * z.x, RS_LN2_F * z.y)); }
// log|z| with the scaling of hypot
float rs_m_log_abs(vec2 z) {
    float x = abs(z.x), y = abs(z.y);
    if (isinf(x) || isinf(y)) return RS_INF_F;
    if (isnan(x) || isnan(y)) return RS_NAN_F;  // (GLSL's max drops NaN)
    float m = max(x, y), n = min(x, y);
    if (m == 0.0) return -RS_INF_F;
    float r = n / m;
    // near |z| = 1: log(m^2 (1 + r^2)) / 2 with log1p
    if (m > 0.5 && m < 2.0) {
        precise float s = (m - 1.0) * (m + 1.0) + n * n;
        return 0.5 * rs_op_log1p(s);
    }
    return rs_op_log(m) + 0.5 * rs_op_log1p(r * r);
}
vec2 rs_op_log(vec2 z) { return vec2(rs_m_log_abs(z), rs_atan2(z.y, z.x)); }
vec2 rs_op_log2(vec2 z) {
    vec2 l = rs_op_log(z);
    return vec2(l.x / RS_LN2_F, l.y / RS_LN2_F);
}
vec2 rs_op_log10(vec2 z) {
    vec2 l = rs_op_log(z);
    return vec2(l.x * RS_LOG10E_F, l.y * RS_LOG10E_F);
}
// c10::log1p
vec2 rs_op_log1p(vec2 z) {
    float x = z.x, y = z.y;
    float zabs = rs_cabs(z);
    float theta = rs_atan2(y, x + 1.0);
    if (zabs < 0.5) {
        float r = x * (2.0 + x) + y * y;
        if (r == 0.0) return vec2(x, theta);
        return vec2(0.5 * rs_op_log1p(r), theta);
    }
    return vec2(rs_m_log_abs(vec2(x + 1.0, y)), theta);
}
// c10::expm1
vec2 rs_op_expm1(vec2 z) {
    float a = rs_op_sin(z.y * 0.5);
    return vec2(rs_op_expm1(z.x) * rs_op_cos(z.y) - 2.0 * a * a, rs_op_exp(z.x) * rs_op_sin(z.y));
}
// principal sqrt, without overflow in |z|
vec2 rs_op_sqrt(vec2 z) {
    float x = z.x, y = z.y;
    if (isinf(y)) return vec2(RS_INF_F, y);
    if (isnan(x)) return vec2(x, isinf(y) ? y : x);
    if (isinf(x)) {
        if (x > 0.0) return vec2(x, isnan(y) ? y : rs_m_copysign(0.0, y));
        return vec2(isnan(y) ? abs(x - x) : 0.0, rs_m_copysign(RS_INF_F, y));
    }
    if (x == 0.0 && y == 0.0) return vec2(0.0, y);
    float t = sqrt(0.5 * (abs(x) + rs_cabs(z)));
    if (isinf(t)) t = sqrt(0.125 * abs(x) + 0.125 * rs_cabs(vec2(x * 0.25, y * 0.25)) * 4.0) * 2.0;
    if (x >= 0.0) return vec2(t, y / (2.0 * t));
    return vec2(abs(y) / (2.0 * t), rs_m_copysign(t, y));
}
vec2 rs_op_rsqrt(vec2 z) { return rs_cdiv(vec2(1.0, 0.0), rs_op_sqrt(z)); }
vec2 rs_op_reciprocal(vec2 z) { return rs_cdiv(vec2(1.0, 0.0), z); }
float rs_op_reciprocal(float x) { return 1.0 / x; }
vec2 rs_op_sinh(vec2 z) {
    return vec2(rs_op_sinh(z.x) * rs_op_cos(z.y), rs_op_cosh(z.x) * rs_op_sin(z.y));
}
vec2 rs_op_cosh(vec2 z) {
    return vec2(rs_op_cosh(z.x) * rs_op_cos(z.y), rs_op_sinh(z.x) * rs_op_sin(z.y));
}
// Kahan's tanh: t = tan y, s = sinh x, (beta rho s, t) / (1 + beta s^2)
vec2 rs_op_tanh(vec2 z) {
    float x = z.x, y = z.y;
    if (isnan(x)) return vec2(x, y == 0.0 ? y : x);
    if (abs(x) > 22.0) {
        float e = rs_op_exp(-2.0 * abs(x));
        return vec2(rs_m_copysign(1.0, x), 4.0 * rs_op_sin(y) * rs_op_cos(y) * e);
    }
    float t = rs_op_tan(y);
    float beta = 1.0 + t * t;
    float s = rs_op_sinh(x);
    float rho = sqrt(1.0 + s * s);
    float den = 1.0 + beta * s * s;
    return vec2(beta * rho * s / den, t / den);
}
// f(iz) helpers: i z = (-y, x); -i w = (w.y, -w.x)
vec2 rs_m_mul_i(vec2 z) { return vec2(-z.y, z.x); }
vec2 rs_m_mul_negi(vec2 w) { return vec2(w.y, -w.x); }
vec2 rs_op_sin(vec2 z) { return rs_m_mul_negi(rs_op_sinh(rs_m_mul_i(z))); }
vec2 rs_op_cos(vec2 z) { return rs_op_cosh(rs_m_mul_i(z)); }
vec2 rs_op_tan(vec2 z) { return rs_m_mul_negi(rs_op_tanh(rs_m_mul_i(z))); }
// asinh(z) = log(z + sqrt(z^2 + 1)), odd; computed for Re z >= 0
vec2 rs_op_asinh(vec2 z) {
    bool flip = z.x < 0.0 || (z.x == 0.0 && rs_signbit(z.x));
    vec2 w = flip ? -z : z;
    vec2 r;
    float m = max(abs(w.x), abs(w.y));
    if (m > 1e18) {
        // asinh(w) ~ log(2 w)
        r = rs_op_log(w);
        r.x += RS_LN2_F;
    } else {
        vec2 w2 = rs_cmul(w, w);
        r = rs_op_log(w + rs_op_sqrt(vec2(w2.x + 1.0, w2.y)));
    }
    return flip ? -r : r;
}
vec2 rs_op_asin(vec2 z) { return rs_m_mul_negi(rs_op_asinh(rs_m_mul_i(z))); }
vec2 rs_op_acos(vec2 z) {
    vec2 a = rs_op_asin(z);
    return vec2(RS_PIO2_F - a.x, -a.y);
}
// acosh(z) = log(z + sqrt(z + 1) sqrt(z - 1))
vec2 rs_op_acosh(vec2 z) {
    vec2 p = rs_cmul(rs_op_sqrt(vec2(z.x + 1.0, z.y)), rs_op_sqrt(vec2(z.x - 1.0, z.y)));
    vec2 r = rs_op_log(z + p);
    return r;
}
// atanh(z) = (log1p(z) - log1p(-z)) / 2
vec2 rs_op_atanh(vec2 z) {
    vec2 a = rs_op_log1p(z), b = rs_op_log1p(-z);
    return vec2(0.5 * (a.x - b.x), 0.5 * (a.y - b.y));
}
vec2 rs_op_atan(vec2 z) { return rs_m_mul_negi(rs_op_atanh(rs_m_mul_i(z))); }
vec2 rs_op_sigmoid(vec2 z) { return rs_cdiv(vec2(1.0, 0.0), vec2(1.0, 0.0) + rs_op_exp(-z)); }
vec2 rs_op_sinc(vec2 z) {
    if (z.x == 0.0 && z.y == 0.0) return vec2(1.0, 0.0);
    vec2 p = vec2(RS_PI_F * z.x, RS_PI_F * z.y);
    return rs_cdiv(rs_op_sin(p), p);
}

// ---------------------------------------------------------------- float64 (devices with fp64)
// The ops that are exact in double with GLSL's builtins; the transcendental
// ones are in common/ops_math64.glsl.
#if RS_HAS_FP64
double rs_op_trunc(double x) { return trunc(x); }
double rs_op_floor(double x) { return floor(x); }
double rs_op_ceil(double x) { return ceil(x); }
double rs_op_round(double x) { return roundEven(x); }
double rs_op_frac(double x) { return x - trunc(x); }
double rs_op_sqrt(double x) { return sqrt(x); }
double rs_op_rsqrt(double x) { return 1.0LF / sqrt(x); }
double rs_op_reciprocal(double x) { return 1.0LF / x; }
dvec2 rs_op_reciprocal(dvec2 z) { return rs_cdiv(dvec2(1.0LF, 0.0LF), z); }
double rs_op_sgn(double x) { return isnan(x) ? 0.0LF : (x > 0.0LF ? 1.0LF : (x < 0.0LF ? -1.0LF : 0.0LF)); }
bool rs_op_isnan(double x) { return isnan(x); }
bool rs_op_isnan(dvec2 z) { return isnan(z.x) || isnan(z.y); }
bool rs_op_isinf(double x) { return isinf(x); }
bool rs_op_isinf(dvec2 z) { return isinf(z.x) || isinf(z.y); }
bool rs_op_isposinf(double x) { return isinf(x) && x > 0.0LF; }
bool rs_op_isneginf(double x) { return isinf(x) && x < 0.0LF; }
bool rs_op_signbit(double x) { return (unpackDouble2x32(x).y & 0x80000000u) != 0u; }
bool rs_op_not(double x) { return x == 0.0LF; }
bool rs_op_not(dvec2 z) { return z.x == 0.0LF && z.y == 0.0LF; }
double rs_op_conj(double x) { return x; }
dvec2 rs_op_conj(dvec2 z) { return dvec2(z.x, -z.y); }
double rs_op_angle(double x) {
    if (isnan(x)) return x;
    return x < 0.0LF ? 3.14159265358979323846LF : 0.0LF;
}
#endif

#endif
