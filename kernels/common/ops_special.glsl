// ops_special.glsl: torch.special: Bessel, gamma family, zeta, polynomials, erf family extras.
// Included by common/ops.glsl; overload per opmath type as ops.glsl explains.
//
// float32 ports of the CPU algorithms in aten/src/ATen/native/Math.h (which
// derive from the Cephes Math Library, 3-clause BSD, Copyright (c) 2018
// Steven Moshier; see the note [3-Clause BSD License for the Cephes Math
// Library] there), built on the accurate float functions of ops_math.glsl.
#ifndef RS_OPS_SPECIAL_GLSL
#define RS_OPS_SPECIAL_GLSL

// ---------------------------------------------------------------- erf family
float rs_op_erf(float x) { return rs_erf(x); }
float rs_op_erfc(float x) { return rs_erfc(x); }

// calc_erfinv: rational initial guess, two Newton steps
float rs_op_erfinv(float y) {
    float ya = abs(y);
    if (isnan(y) || ya > 1.0) return RS_NAN_F;
    if (ya == 1.0) return rs_m_copysign(RS_INF_F, y);
    float x;
    if (ya <= 0.7) {
        float z = y * y;
        float num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899;
        float dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0;
        x = y * num / dem;
    } else {
        float z = sqrt(-rs_op_log((1.0 - ya) / 2.0));
        float num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454;
        float dem = (1.637067800 * z + 3.543889200) * z + 1.0;
        x = rs_m_copysign(num, y) / dem;
    }
    const float k = 1.12837916709551257390;  // 2 / sqrt(pi)
    x = x - (rs_erf(x) - y) / (k * rs_op_exp(-x * x));
    x = x - (rs_erf(x) - y) / (k * rs_op_exp(-x * x));
    return x;
}

// ndtr: CPU's calc_ndtr
float rs_op_ndtr(float x) {
    float t = x * 0.70710678118654752440;
    float z = abs(t);
    if (z < 0.70710678118654752440) return 0.5 + 0.5 * rs_erf(t);
    float y = 0.5 * rs_erfc(z);
    return t > 0.0 ? 1.0 - y : y;
}
// erfcx(z) for large z (continued fraction, as calc_erfcx for z > 50)
float rs_m_erfcx_cf(float z) {
    const float ispi = 0.56418958354775628694807945156;
    if (z > 5e7) return ispi / z;
    float z2 = z * z;
    return ispi * (z2 * (z2 + 4.5) + 2.0) / (z * (z2 * (z2 + 5.0) + 3.75));
}
// calc_log_ndtr: log(erfc(-t) / 2) for x < -1 (erfcx form in the far tail)
float rs_op_log_ndtr(float x) {
    float t = x * 0.70710678118654752440;
    if (isnan(x)) return x;
    if (x < -1.0) {
        float z = -t;
        if (z > 8.0) return rs_op_log(rs_m_erfcx_cf(z) / 2.0) - t * t;
        return rs_op_log(rs_erfc(z) / 2.0);
    }
    return rs_op_log1p(-rs_erfc(t) / 2.0);
}
float rs_op_entr(float x) {
    if (isnan(x)) return x;
    if (x > 0.0) return -x * rs_op_log(x);
    if (x == 0.0) return 0.0;
    return -RS_INF_F;
}
float rs_op_xlog1py(float x, float y) {
    if (isnan(y)) return RS_NAN_F;
    if (x == 0.0) return 0.0;
    return x * rs_op_log1p(y);
}

// ---------------------------------------------------------------- gamma family
// sin(pi x), exact argument reduction
float rs_m_sinpi(float x) {
    float r = x - roundEven(x);           // [-0.5, 0.5], exact
    float s = rs_op_sin(RS_PI_F * r);
    return (mod(roundEven(x), 2.0) != 0.0) ? -s : s;
}
// lgamma for x >= 8: Stirling
float rs_m_lgamma_stirling(float x) {
    float r = 1.0 / x, r2 = r * r;
    float c = r * (0.0833333333333333333 + r2 * (-0.00277777777777777778 + r2 * (0.000793650793650793651 +
              r2 * -0.000595238095238095238)));
    return (x - 0.5) * rs_op_log(x) - x + 0.91893853320467274178 + c;
}
float rs_op_lgamma(float x) {
    if (isnan(x)) return x;
    if (isinf(x)) return RS_INF_F;
    float a = abs(x);
    if (x <= 0.0 && x == floor(x)) return RS_INF_F;
    if (x < 0.5) {
        // reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
        if (a < 1e-6) return -rs_op_log(a);
        float s = abs(rs_m_sinpi(x));
        float y = 1.0 - x;
        float lg;
        if (y >= 8.0) lg = rs_m_lgamma_stirling(y);
        else {
            float p = 1.0;
            while (y < 8.0) {
                p *= y;
                y += 1.0;
            }
            lg = rs_m_lgamma_stirling(y) - rs_op_log(p);
        }
        return 1.14472988584940017414 - rs_op_log(s) - lg;  // log(pi)
    }
    if (x == 1.0 || x == 2.0) return 0.0;
    if (x >= 8.0) return rs_m_lgamma_stirling(x);
    // 0.5 <= x < 8: lgamma(x) = lgamma(x + n) - log(x (x+1) ... (x+n-1))
    // near 1 and 2 use the series of lgamma(1 + t)
    if (abs(x - 1.0) < 0.2 || abs(x - 2.0) < 0.2) {
        float t = x < 1.5 ? x - 1.0 : x - 2.0;
        // lgamma(1 + t) = -gamma t + sum_k (-1)^k zeta(k) t^k / k
        float s = t * (-0.5772156649015328606 + t * (0.8224670334241132182 + t * (-0.4006856343865314285 +
                  t * (0.2705808084277845479 + t * (-0.2073855510286739853 + t * (0.1695571769974081900 +
                  t * (-0.1440498967688461181 + t * (0.1255096695247398000 + t * (-0.1113342659690241000 +
                  t * 0.1000994575127818000)))))))));
        // lgamma(2 + t) = lgamma(1 + t) + log1p(t)
        return x < 1.5 ? s : s + rs_op_log1p(t);
    }
    float p = 1.0, y = x;
    while (y < 8.0) {
        p *= y;
        y += 1.0;
    }
    return rs_m_lgamma_stirling(y) - rs_op_log(p);
}

// calc_digamma (float)
float rs_op_digamma(float x) {
    if (isnan(x)) return x;
    if (x == 0.0) return rs_m_copysign(RS_INF_F, -x);
    float result = 0.0;
    if (x < 0.0) {
        if (x == trunc(x)) return RS_NAN_F;
        // pi / tan(pi r), r the fraction of x (CPU: in double); tan has
        // period pi, so reduce r exactly to [-1/2, 1/2] first
        float r = x - trunc(x);
        r = r - roundEven(r);
        float q = RS_PI_F / rs_op_tan(RS_PI_F * r);
        x = 1.0 - x;
        result = -q;
    }
    while (x < 10.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    if (x == 10.0) return result + 2.25175258906672110764;
    float y = 0.0;
    if (x < 1.0e17) {
        float z = 1.0 / (x * x);
        y = z * ((((((8.33333333333333333333E-2 * z - 2.10927960927960927961E-2) * z + 7.57575757575757575758E-3) *
                    z - 4.16666666666666666667E-3) * z + 3.96825396825396825397E-3) * z - 8.33333333333333333333E-3) *
                 z + 8.33333333333333333333E-2);
    }
    return result + rs_op_log(x) - (0.5 / x) - y;
}
// trigamma (float)
float rs_op_trigamma(float x) {
    float sgn = 1.0, result = 0.0;
    if (x < 0.5) {
        sgn = -1.0;
        float s = rs_op_sin(RS_PI_F * x);
        result -= (RS_PI_F * RS_PI_F) / (s * s);
        x = 1.0 - x;
    }
    for (int i = 0; i < 6; ++i) {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    float ixx = 1.0 / (x * x);
    result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0)))) / x;
    return sgn * result;
}
// a^n for an integer n, by squaring (a few ulp, where exp2(n log2 a)
// would scale log2's rounding error by n log2 a)
float rs_m_powi(float a, int n) {
    uint m = uint(abs(n));
    float r = 1.0, p = a;
    while (m != 0u) {
        if ((m & 1u) != 0u) r *= p;
        p *= p;
        m >>= 1u;
    }
    return n < 0 ? 1.0 / r : r;
}
// a^b (b an integer when a < 0)
float rs_m_pow(float a, float b) {
    if (b == trunc(b) && abs(b) <= 64.0) return rs_m_powi(a, int(b));
    if (a > 0.0) return rs_op_exp2(b * rs_op_log2(a));
    if (a == 0.0) return b < 0.0 ? RS_INF_F : (b == 0.0 ? 1.0 : 0.0);
    float m = rs_op_exp2(b * rs_op_log2(-a));
    return mod(b, 2.0) != 0.0 ? -m : m;
}
// Hurwitz zeta(x, q) (Math.h's zeta: Euler-Maclaurin)
float rs_op_zeta(float x, float q) {
    const float MACHEP = 5.9604644775390625E-8;
    if (x == 1.0) return RS_INF_F;
    if (x < 1.0) return RS_NAN_F;
    if (q <= 0.0) {
        if (q == floor(q)) return RS_INF_F;
        if (x != floor(x)) return RS_NAN_F;
    }
    float s = rs_m_pow(q, -x);
    float a = q, b = 0.0;
    int i = 0;
    while (i < 9 || a <= 9.0) {
        i += 1;
        a += 1.0;
        b = rs_m_pow(a, -x);
        s += b;
        if (-MACHEP * s < b && b < MACHEP * s) return s;
        if (i > 10000) break;
    }
    float w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    a = 1.0;
    float k = 0.0;
    const float A[12] = float[](12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                                7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                                -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18);
    for (i = 0; i < 12; i++) {
        a *= x + k;
        b /= w;
        float t = a * b / A[i];
        s = s + t;
        t = abs(t / s);
        if (t < MACHEP) return s;
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    return s;
}
float rs_op_polygamma(float x, int n) {
    if (n == 0) return rs_op_digamma(x);
    if (n == 1) return rs_op_trigamma(x);
    float sgn = (n % 2) != 0 ? 1.0 : -1.0;
    // n! (CPU: exp(lgamma(n + 1))), exact where float holds it
    float f = 1.0;
    for (int k = 2; k <= n && k <= 34; ++k) f *= float(k);
    if (n > 34) f = RS_INF_F;
    return sgn * f * rs_op_zeta(float(n + 1), x);
}

// ---------------------------------------------------------------- modified Bessel
float rs_m_chbevl(float x, float c[30], int len) {
    float b0 = c[0], b1 = 0.0, b2 = 0.0;
    for (int i = 1; i < len; ++i) {
        b2 = b1;
        b1 = b0;
        b0 = x * b1 - b2 + c[i];
    }
    return 0.5 * (b0 - b2);
}
const float RS_I0E_A[30] = float[](
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1);
const float RS_I0E_B[30] = float[](
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9, 2.26666899049817806459E-8,
    2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1, 0.0, 0.0, 0.0, 0.0, 0.0);
// the float coefficient sets of Math.h for I1
const float RS_I1E_A[30] = float[](
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
const float RS_I1E_B[30] = float[](
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7, -3.88256480887769039346E-6,
    -1.10588938762623716291E-4, -9.76109749136146840777E-3, 7.78576235018280120474E-1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
float rs_op_i0e(float x0) {
    float x = abs(x0);
    if (x <= 8.0) return rs_m_chbevl(x / 2.0 - 2.0, RS_I0E_A, 30);
    return rs_m_chbevl(32.0 / x - 2.0, RS_I0E_B, 25) / sqrt(x);
}
float rs_op_i0(float x0) {
    float x = abs(x0);
    if (x <= 8.0) return rs_op_exp(x) * rs_m_chbevl(x / 2.0 - 2.0, RS_I0E_A, 30);
    return rs_op_exp(x) * rs_m_chbevl(32.0 / x - 2.0, RS_I0E_B, 25) / sqrt(x);
}
float rs_op_i1(float x0) {
    float x = abs(x0), r;
    if (x <= 8.0) r = rs_op_exp(x) * x * rs_m_chbevl(x / 2.0 - 2.0, RS_I1E_A, 17);
    else r = (rs_op_exp(x) * rs_m_chbevl(32.0 / x - 2.0, RS_I1E_B, 7)) / sqrt(x);
    return x0 < 0.0 ? -r : r;
}
float rs_op_i1e(float x0) {
    float x = abs(x0), r;
    if (x <= 8.0) r = rs_m_chbevl(x / 2.0 - 2.0, RS_I1E_A, 17) * x;
    else r = rs_m_chbevl(32.0 / x - 2.0, RS_I1E_B, 7) / sqrt(x);
    return x0 < 0.0 ? -r : r;
}

#endif
