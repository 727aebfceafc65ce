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

// ---------------------------------------------------------------- ndtri, erfcx
// calc_ndtri (Cephes ndtri), float
float rs_m_polevl(float x, float c[9], int n) {
    float r = 0.0;
    for (int i = 0; i <= n; ++i) r = r * x + c[i];
    return r;
}
float rs_op_ndtri(float y0) {
    const float P0[9] = float[](-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                                1.39312609387279679503E1, -1.23916583867381258016E0, 0.0, 0.0, 0.0, 0.0);
    const float Q0[9] = float[](1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0,
                                8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
                                -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0);
    const float P1[9] = float[](4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
                                4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
                                -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4);
    const float Q1[9] = float[](1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1,
                                4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
                                -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4);
    const float P2[9] = float[](3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
                                1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
                                3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9);
    const float Q2[9] = float[](1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0,
                                1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
                                3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9);
    if (y0 == 0.0) return -RS_INF_F;
    if (y0 == 1.0) return RS_INF_F;
    if (isnan(y0) || y0 < 0.0 || y0 > 1.0) return RS_NAN_F;
    bool code = true;
    float y = y0;
    if (y > 1.0 - 0.13533528323661269189) {
        y = 1.0 - y;
        code = false;
    }
    if (y > 0.13533528323661269189) {
        y = y - 0.5;
        float y2 = y * y;
        float x = y + y * (y2 * rs_m_polevl(y2, P0, 4) / rs_m_polevl(y2, Q0, 8));
        return x * 2.50662827463100050242;
    }
    float x = sqrt(-2.0 * rs_op_log(y));
    float x0 = x - rs_op_log(x) / x;
    float z = 1.0 / x;
    float x1 = x < 8.0 ? z * rs_m_polevl(z, P1, 8) / rs_m_polevl(z, Q1, 8)
                       : z * rs_m_polevl(z, P2, 8) / rs_m_polevl(z, Q2, 8);
    x = x0 - x1;
    return code ? -x : x;
}

// x^2 = hi + lo exactly (Dekker's product; precise keeps it exact)
void rs_m_sq2(float x, out float hi, out float lo) {
    precise float c = 4097.0 * x;
    precise float xh = c - (c - x);
    precise float xl = x - xh;
    precise float p = x * x;
    hi = p;
    lo = ((xh * xh - p) + 2.0 * xh * xl) + xl * xl;
}
// exp(x^2) without the rounding error of x * x
float rs_m_exp_sq(float x) {
    float hi, lo;
    rs_m_sq2(x, hi, lo);
    return rs_op_exp(hi) * (1.0 + lo);
}
// erfcx(x) = exp(x^2) erfc(x): the continued fraction
// erfc(x) = exp(-x^2)/sqrt(pi) 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) for
// x >= 2, exp(x^2) erfc(x) below, 2 exp(x^2) - erfcx(-x) for x < 0
float rs_op_erfcx_pos(float x) {
    if (x >= 2.0) {
        float f = x;
        for (int k = 60; k >= 1; --k) f = x + (0.5 * float(k)) / f;
        return 0.56418958354775628694807945156 / f;
    }
    return rs_m_exp_sq(x) * rs_erfc(x);
}
float rs_op_erfcx(float x) {
    if (isnan(x)) return x;
    if (x > 5e7) return 0.56418958354775628694807945156 / x;
    if (x >= 0.0) return rs_op_erfcx_pos(x);
    if (x < -26.7) return RS_INF_F;
    // CPU (calc_erfcx): 2 exp(x * x) - erfcx(-x), with x * x rounded to float
    float e = rs_op_exp(x * x);
    if (x < -6.1) return 2.0 * e;
    return 2.0 * e - rs_op_erfcx_pos(-x);
}
// a * b + c rounded once (Dekker's exact product, then an exact sum): the
// CPU kernels of the polynomial recurrences are compiled with fma
// contraction of their first product, and their cancellation makes the
// difference visible
float rs_m_fma(float a, float b, float c) {
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
    precise float r = s + (t + e);
    return r;
}
// n of the orthogonal polynomials: CPU casts the float n to int64 (NaN,
// inf and out-of-range values give a negative n there, so 0)
int64_t rs_m_poly_n(float n) {
    if (isnan(n) || abs(n) >= 9.2e18) return -1L;
    return int64_t(n);
}

// ---------------------------------------------------------------- Math.h *_forward ports
// (Bessel, modified Bessel, Airy, orthogonal polynomials: a mechanical float
// translation of Math.h, with explicit int64 -> float conversions for GLSL)
float rs_sp_airy_ai(float x) {
    const float AN[8] = float[](+3.46538101525629032477e-01, +1.20075952739645805542e+01, +7.62796053615234516538e+01, +1.68089224934630576269e+02, +1.59756391350164413639e+02, +7.05360906840444183113e+01, +1.40264691163389668864e+01, +9.99999999999999995305e-01);

    const float AD[8] = float[](+5.67594532638770212846e-01, +1.47562562584847203173e+01, +8.45138970141474626562e+01, +1.77318088145400459522e+02, +1.64234692871529701831e+02, +7.14778400825575695274e+01, +1.40959135607834029598e+01, +1.00000000000000000470e+00);

    const float AFN[9] = float[](-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01, -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03, -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08);

    const float AFD[9] = float[](+1.33560420706553243746e+01, +3.26825032795224613948e+01, +2.67367040941499554804e+01, +9.18707402907259625840e+00, +1.47529146771666414581e+00, +1.15687173795188044134e-01, +4.40291641615211203805e-03, +7.54720348287414296618e-05, +4.51850092970580378464e-07);

    const float AGN[11] = float[](+1.97339932091685679179e-02, +3.91103029615688277255e-01, +1.06579897599595591108e+00, +9.39169229816650230044e-01, +3.51465656105547619242e-01, +6.33888919628925490927e-02, +5.85804113048388458567e-03, +2.82851600836737019778e-04, +6.98793669997260967291e-06, +8.11789239554389293311e-08, +3.41551784765923618484e-10);

    const float AGD[10] = float[](+9.30892908077441974853e+00, +1.98352928718312140417e+01, +1.55646628932864612953e+01, +5.47686069422975497931e+00, +9.54293611618961883998e-01, +8.64580826352392193095e-02, +4.12656523824222607191e-03, +1.01259085116509135510e-04, +1.17166733214413521882e-06, +4.91834570062930015649e-09);

    int domain_flag = 0;

    float ai = float(0.0);

    if (isinf(x)) {
        return RS_NAN_F;
    }

    if (x > float(103.892)) {
        return float(0.0);
    }

    float f;
    float g;
    float k;

    if (x < float(-2.09)) {
        float z = float(1.0) / (float(-2.0) * x * sqrt(-x) / float(3.0));

        float afn = 0.0;

        for (int index = 0; index <= 8; index++) {
            afn = afn * (z * z) + AFN[index];
        }

        float afd = 0.0;

        for (int index = 0; index <= 8; index++) {
            afd = afd * (z * z) + AFD[index];
        }

        float agn = 0.0;

        for (int index = 0; index <= 10 + 0; index++) {
            agn = agn * (z * z) + AGN[index];
        }

        float agd = 0.0;

        for (int index = 0; index <= 10 - 1; index++) {
            agd = agd * (z * z) + AGD[index];
        }

        float t = float(-2.0) * x * sqrt(-x) / float(3.0) + float(0.25) * RS_PI_F;

        return float(5.64189583547756286948e-01) / sqrt(sqrt(-x)) * (rs_op_sin(t) * (float(1.0) + z * z * afn / afd) - rs_op_cos(t) * (z * agn / agd));
    }

    if (x >= float(2.09)) {
        domain_flag = 5;

        float zeta = float(2.0) * x * sqrt(x) / float(3.0);

        float an = 0.0;

        for (int index = 0; index <= 7; index++) {
            an = an * (float(1.0) / zeta) + AN[index];
        }

        float ad = 0.0;

        for (int index = 0; index <= 7; index++) {
            ad = ad * (float(1.0) / zeta) + AD[index];
        }

        ai = float(5.64189583547756286948e-01) * (an / ad) / (float(2.0) * sqrt(sqrt(x)) * rs_op_exp(zeta));

        if (x > float(8.3203353)) {
            return ai;
        }
    }

    f = 1.0;
    g = x;
    k = 1.0;

    float m = 1.0;
    float n = x;
    float t = 1.0;
    float z = x * x * x;

    while (t > 1.1920928955078125e-7) {
        m *= z;
        k += float(1.0);
        m /= k;
        n *= z;
        k += float(1.0);
        n /= k;
        m /= k;
        f += m;
        k += float(1.0);
        n /= k;
        g += n;

        t = abs(m / f);
    }

    if ((domain_flag & 1) == 0) {
        return float(0.355028053887817239260) * f - float(0.258819403792806798405) * g;
    }

    return ai;
} // float airy_ai(float x)

float rs_sp_bessel_j0(float x) {
    const float PP[7] = float[](+7.96936729297347051624e-04, +8.28352392107440799803e-02, +1.23953371646414299388e+00, +5.44725003058768775090e+00, +8.74716500199817011941e+00, +5.30324038235394892183e+00, +9.99999999999999997821e-01);

    const float PQ[7] = float[](+9.24408810558863637013e-04, +8.56288474354474431428e-02, +1.25352743901058953537e+00, +5.47097740330417105182e+00, +8.76190883237069594232e+00, +5.30605288235394617618e+00, +1.00000000000000000218e+00);

    const float QP[8] = float[](-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01, -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02, -5.14105326766599330220e+01, -6.05014350600728481186e+00);

    const float QQ[7] = float[](+6.43178256118178023184e+01, +8.56430025976980587198e+02, +3.88240183605401609683e+03, +7.24046774195652478189e+03, +5.93072701187316984827e+03, +2.06209331660327847417e+03, +2.42005740240291393179e+02);

    const float RP[4] = float[](-4.79443220978201773821e+09, +1.95617491946556577543e+12, -2.49248344360967716204e+14, +9.70862251047306323952e+15);

    const float RQ[8] = float[](+4.99563147152651017219e+02, +1.73785401676374683123e+05, +4.84409658339962045305e+07, +1.11855537045356834862e+10, +2.11277520115489217587e+12, +3.10518229857422583814e+14, +3.18121955943204943306e+16, +1.71086294081043136091e+18);

    if (x < float(0)) {
        x = -x;
    }

    if (x <= float(5.0)) {
        if (x < float(0.00001)) {
            return float(1.0) - x * x / float(4.0);
        }

        float rp = 0.0;

        for (int index = 0; index <= 3; index++) {
            rp = rp * (x * x) + RP[index];
        }

        float rq = 0.0;

        for (int index = 0; index <= 7; index++) {
            rq = rq * (x * x) + RQ[index];
        }

        return (x * x - float(5.78318596294678452118e+00)) * (x * x - float(3.04712623436620863991e+01)) * rp / rq;
    }

    float pp = 0.0;

    for (int index = 0; index <= 6; index++) {
        pp = pp * (float(25.0) / (x * x)) + PP[index];
    }

    float pq = 0.0;

    for (int index = 0; index <= 6; index++) {
        pq = pq * (float(25.0) / (x * x)) + PQ[index];
    }

    float qp = 0.0;

    for (int index = 0; index <= 7; index++) {
        qp = qp * (float(25.0) / (x * x)) + QP[index];
    }

    float qq = 0.0;

    for (int index = 0; index <= 6; index++) {
        qq = qq * (float(25.0) / (x * x)) + QQ[index];
    }

    return (pp / pq * rs_op_cos(x - float(0.785398163397448309615660845819875721)) - float(5.0) / x * (qp / qq) * rs_op_sin(x - float(0.785398163397448309615660845819875721))) * float(0.797884560802865355879892119868763737) / sqrt(x);
} // rs_sp_bessel_j0(float x)

float rs_sp_bessel_j1_pos(float x) {
    const float PP[7] = float[](+7.62125616208173112003e-04, +7.31397056940917570436e-02, +1.12719608129684925192e+00, +5.11207951146807644818e+00, +8.42404590141772420927e+00, +5.21451598682361504063e+00, +1.00000000000000000254e+00);

    const float PQ[7] = float[](+5.71323128072548699714e-04, +6.88455908754495404082e-02, +1.10514232634061696926e+00, +5.07386386128601488557e+00, +8.39985554327604159757e+00, +5.20982848682361821619e+00, +9.99999999999999997461e-01);

    const float QP[8] = float[](+5.10862594750176621635e-02, +4.98213872951233449420e+00, +7.58238284132545283818e+01, +3.66779609360150777800e+02, +7.10856304998926107277e+02, +5.97489612400613639965e+02, +2.11688757100572135698e+02, +2.52070205858023719784e+01);

    const float QQ[7] = float[](+7.42373277035675149943e+01, +1.05644886038262816351e+03, +4.98641058337653607651e+03, +9.56231892404756170795e+03, +7.99704160447350683650e+03, +2.82619278517639096600e+03, +3.36093607810698293419e+02);

    const float RP[4] = float[](-8.99971225705559398224e+08, +4.52228297998194034323e+11, -7.27494245221818276015e+13, +3.68295732863852883286e+15);

    const float RQ[8] = float[](+6.20836478118054335476e+02, +2.56987256757748830383e+05, +8.35146791431949253037e+07, +2.21511595479792499675e+10, +4.74914122079991414898e+12, +7.84369607876235854894e+14, +8.95222336184627338078e+16, +5.32278620332680085395e+18);

    if (x <= float(5.0)) {
        float rp = 0.0;

        for (int index = 0; index <= 3; index++) {
            rp = rp * (x * x) + RP[index];
        }

        float rq = 0.0;

        for (int index = 0; index <= 7; index++) {
            rq = rq * (x * x) + RQ[index];
        }

        return rp / rq * x * (x * x - float(1.46819706421238932572e+01)) * (x * x - float(4.92184563216946036703e+01));
    }

    float pp = 0.0;

    for (int index = 0; index <= 6; index++) {
        pp = pp * (float(5.0) / x * (float(5.0) / x)) + PP[index];
    }

    float pq = 0.0;

    for (int index = 0; index <= 6; index++) {
        pq = pq * (float(5.0) / x * (float(5.0) / x)) + PQ[index];
    }

    float qp = 0.0;

    for (int index = 0; index <= 7; index++) {
        qp = qp * (float(5.0) / x * (float(5.0) / x)) + QP[index];
    }

    float qq = 0.0;

    for (int index = 0; index <= 6; index++) {
        qq = qq * (float(5.0) / x * (float(5.0) / x)) + QQ[index];
    }

    return (pp / pq * rs_op_cos(x - float(2.356194490192344928846982537459627163)) - float(5.0) / x * (qp / qq) * rs_op_sin(x - float(2.356194490192344928846982537459627163))) * float(0.797884560802865355879892119868763737) / sqrt(x);
} // rs_sp_bessel_j1(float x)
// (Math.h recurses for x < 0; GLSL has no recursion)
float rs_sp_bessel_j1(float x) { return x < 0.0 ? -rs_sp_bessel_j1_pos(-x) : rs_sp_bessel_j1_pos(x); }

float rs_sp_bessel_y0(float x) {
    const float PP[7] = float[](+7.96936729297347051624e-04, +8.28352392107440799803e-02, +1.23953371646414299388e+00, +5.44725003058768775090e+00, +8.74716500199817011941e+00, +5.30324038235394892183e+00, +9.99999999999999997821e-01);

    const float PQ[7] = float[](+9.24408810558863637013e-04, +8.56288474354474431428e-02, +1.25352743901058953537e+00, +5.47097740330417105182e+00, +8.76190883237069594232e+00, +5.30605288235394617618e+00, +1.00000000000000000218e+00);

    const float QP[8] = float[](-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01, -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02, -5.14105326766599330220e+01, -6.05014350600728481186e+00);

    const float QQ[7] = float[](+6.43178256118178023184e+01, +8.56430025976980587198e+02, +3.88240183605401609683e+03, +7.24046774195652478189e+03, +5.93072701187316984827e+03, +2.06209331660327847417e+03, +2.42005740240291393179e+02);

    const float YP[8] = float[](+1.55924367855235737965e+04, -1.46639295903971606143e+07, +5.43526477051876500413e+09, -9.82136065717911466409e+11, +8.75906394395366999549e+13, -3.46628303384729719441e+15, +4.42733268572569800351e+16, -1.84950800436986690637e+16);

    const float YQ[7] = float[](+1.04128353664259848412e+03, +6.26107330137134956842e+05, +2.68919633393814121987e+08, +8.64002487103935000337e+10, +2.02979612750105546709e+13, +3.17157752842975028269e+15, +2.50596256172653059228e+17);

    if (x <= float(5.0)) {
        if (x == float(0.0)) {
            return -RS_INF_F;
        }

        if (x < float(0.0)) {
            return RS_NAN_F;
        }

        float yp = 0.0;

        for (int index = 0; index <= 7; index++) {
            yp = yp * (x * x) + YP[index];
        }

        float yq = 0.0;

        for (int index = 0; index <= 6; index++) {
            yq = yq * (x * x) + YQ[index];
        }

        return yp / yq + (float(0.636619772367581343075535053490057448) * rs_op_log(x) * rs_sp_bessel_j0(x));
    }

    float pp = 0.0;

    for (int index = 0; index <= 6; index++) {
        pp = pp * (float(25.0) / (x * x)) + PP[index];
    }

    float pq = 0.0;

    for (int index = 0; index <= 6; index++) {
        pq = pq * (float(25.0) / (x * x)) + PQ[index];
    }

    float qp = 0.0;

    for (int index = 0; index <= 7; index++) {
        qp = qp * (float(25.0) / (x * x)) + QP[index];
    }

    float qq = 0.0;

    for (int index = 0; index <= 6; index++) {
        qq = qq * (float(25.0) / (x * x)) + QQ[index];
    }

    return (pp / pq * rs_op_sin(x - float(0.785398163397448309615660845819875721)) + float(5.0) / x * (qp / qq) * rs_op_cos(x - float(0.785398163397448309615660845819875721))) * float(0.797884560802865355879892119868763737) / sqrt(x);
} // rs_sp_bessel_y0(float x)

float rs_sp_bessel_y1(float x) {
    const float PP[7] = float[](+7.62125616208173112003e-04, +7.31397056940917570436e-02, +1.12719608129684925192e+00, +5.11207951146807644818e+00, +8.42404590141772420927e+00, +5.21451598682361504063e+00, +1.00000000000000000254e+00);

    const float PQ[7] = float[](+5.71323128072548699714e-04, +6.88455908754495404082e-02, +1.10514232634061696926e+00, +5.07386386128601488557e+00, +8.39985554327604159757e+00, +5.20982848682361821619e+00, +9.99999999999999997461e-01);

    const float QP[8] = float[](+5.10862594750176621635e-02, +4.98213872951233449420e+00, +7.58238284132545283818e+01, +3.66779609360150777800e+02, +7.10856304998926107277e+02, +5.97489612400613639965e+02, +2.11688757100572135698e+02, +2.52070205858023719784e+01);

    const float QQ[7] = float[](+7.42373277035675149943e+01, +1.05644886038262816351e+03, +4.98641058337653607651e+03, +9.56231892404756170795e+03, +7.99704160447350683650e+03, +2.82619278517639096600e+03, +3.36093607810698293419e+02);

    const float YP[6] = float[](+1.26320474790178026440e+09, -6.47355876379160291031e+11, +1.14509511541823727583e+14, -8.12770255501325109621e+15, +2.02439475713594898196e+17, -7.78877196265950026825e+17);

    const float YQ[8] = float[](+5.94301592346128195359e+02, +2.35564092943068577943e+05, +7.34811944459721705660e+07, +1.87601316108706159478e+10, +3.88231277496238566008e+12, +6.20557727146953693363e+14, +6.87141087355300489866e+16, +3.97270608116560655612e+18);

    if (x <= float(5.0)) {
        if (x == float(0.0)) {
            return -RS_INF_F;
        }

        if (x <= float(0.0)) {
            return RS_NAN_F;
        }

        float yp = 0.0;

        for (int index = 0; index <= 5; index++) {
            yp = yp * (x * x) + YP[index];
        }

        float yq = 0.0;

        for (int index = 0; index <= 7; index++) {
            yq = yq * (x * x) + YQ[index];
        }

        return x * (yp / yq) + (float(0.636619772367581343075535053490057448) * (rs_sp_bessel_j1(x) * rs_op_log(x) - float(1.0) / x));
    }

    float pp = 0.0;

    for (int index = 0; index <= 6; index++) {
        pp = pp * (float(5.0) / x * (float(5.0) / x)) + PP[index];
    }

    float pq = 0.0;

    for (int index = 0; index <= 6; index++) {
        pq = pq * (float(5.0) / x * (float(5.0) / x)) + PQ[index];
    }

    float qp = 0.0;

    for (int index = 0; index <= 7; index++) {
        qp = qp * (float(5.0) / x * (float(5.0) / x)) + QP[index];
    }

    float qq = 0.0;

    for (int index = 0; index <= 6; index++) {
        qq = qq * (float(5.0) / x * (float(5.0) / x)) + QQ[index];
    }

    return (pp / pq * rs_op_sin(x - float(2.356194490192344928846982537459627163)) + float(5.0) / x * (qp / qq) * rs_op_cos(x - float(2.356194490192344928846982537459627163))) * float(0.797884560802865355879892119868763737) / sqrt(x);
} // rs_sp_bessel_y1(float x)

float rs_sp_chebyshev_polynomial_t(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(1.0)) {
        if (x > float(0.0) || n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if ((n > 6) && (abs(x) < float(1.0))) {
        return rs_op_cos(float(n) * rs_op_acos(x));
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x;
    }

    float p = float(1.0);
    float q = x;
    float r = x;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_t(float x, int64_t n)

float rs_sp_chebyshev_polynomial_u(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(1.0)) {
        if (x > float(0.0) || n % 2 == 0) {
            return float(n + 1);
        }

        return -float(n + 1);
    }

    if ((n > 8) && (abs(x) < float(1.0))) {
        if (rs_op_sin(rs_op_acos(x)) != float(0.0)) {
            return rs_op_sin(float(n + 1) * rs_op_acos(x)) / rs_op_sin(rs_op_acos(x));
        }

        return float(n + 1) * rs_op_cos(float(n + 1) * rs_op_acos(x)) / x;
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x;
    }

    float p = float(1.0);
    float q = x + x;
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_u(float x, int64_t n)

float rs_sp_chebyshev_polynomial_v(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(1.0)) {
        if (x > float(0.0)) {
            return float(1.0);
        }

        if (n % 2 == 0) {
            return float(n + n + 1);
        }

        return -float(n + n + 1);
    }

    if ((n > 8) && (abs(x) < float(1.0))) {
        if (rs_op_sin(rs_op_acos(x) / float(2.0)) != float(1.0)) {
            return rs_op_cos((float(n) + 0.5) * rs_op_acos(x)) / rs_op_cos(rs_op_acos(x) / float(2.0));
        }

        if (n % 2 == 0) {
            return float(n + n + 1);
        }

        return -float(n + n + 1);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x - float(1.0);
    }

    float p = float(1.0);
    float q = x + x - float(1.0);
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_v(float x, int64_t n)

float rs_sp_chebyshev_polynomial_w(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(1.0)) {
        if (x > float(0.0)) {
            return float(n + n + 1);
        }

        if (n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if ((n > 8) && (abs(x) < float(1.0))) {
        if (rs_op_cos(rs_op_acos(x) / float(2.0)) != float(1.0)) {
            return rs_op_sin((float(n) + 0.5) * rs_op_acos(x)) / rs_op_sin(rs_op_acos(x) / float(2.0));
        }

        if (x > float(0.0)) {
            return float(n + n + 1);
        }

        if (n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x + float(1.0);
    }

    float p = float(1.0);
    float q = x + x + float(1.0);
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_w(float x, int64_t n)

float rs_sp_hermite_polynomial_h(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x;
    }

    if (n > 128) {
        return RS_NAN_F;
    }

    float p = float(1.0);
    float q = x + x;
    float r = float(0.0);

    for (int64_t k = 2; k < n + n; k += 2) {
        r = rs_m_fma(x + x, q, -(float(k) * p));
        p = q;
        q = r;
    }

    return r;
} // rs_sp_hermite_polynomial_h(float x, int64_t n)

float rs_sp_hermite_polynomial_he(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x;
    }

    if (n > 128) {
        return RS_NAN_F;
    }

    float p = float(1.0);
    float q = x;
    float r;

    for (int64_t k = 1; k < n; k++) {
        r = rs_m_fma(x, q, -(float(k) * p));
        p = q;
        q = r;
    }

    return r;
} // rs_sp_hermite_polynomial_he(float x, int64_t n)

float rs_sp_laguerre_polynomial_l(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(0.0)) {
        return float(1.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return float(1.0) - x;
    }

    float p = float(1.0);
    float q = float(1.0) - x;
    float r;

    for (int64_t k = 1; (k < n) && !isnan(q); k++) {
        r = rs_m_fma(float(k + k) + (1.0 - x), q, -(float(k) * p)) / float(k + 1);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_laguerre_polynomial_l(float x, int64_t n)

float rs_sp_legendre_polynomial_p(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (abs(x) == float(1.0)) {
        if (x > float(0.0) || n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x;
    }

    float p = float(1.0);
    float q = x;
    float r;

    for (int64_t k = 1; (k < n) && !isnan(q); k++) {
        r = rs_m_fma(float(k + k + 1) * x, q, -(float(k) * p)) / float(k + 1);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_legendre_polynomial_p(float x, int64_t n)

float rs_sp_modified_bessel_i0(float x) {
    const float A[30] = float[](-4.41534164647933937950e-18, +3.33079451882223809783e-17, -2.43127984654795469359e-16, +1.71539128555513303061e-15, -1.16853328779934516808e-14, +7.67618549860493561688e-14, -4.85644678311192946090e-13, +2.95505266312963983461e-12, -1.72682629144155570723e-11, +9.67580903537323691224e-11, -5.18979560163526290666e-10, +2.65982372468238665035e-09, -1.30002500998624804212e-08, +6.04699502254191894932e-08, -2.67079385394061173391e-07, +1.11738753912010371815e-06, -4.41673835845875056359e-06, +1.64484480707288970893e-05, -5.75419501008210370398e-05, +1.88502885095841655729e-04, -5.76375574538582365885e-04, +1.63947561694133579842e-03, -4.32430999505057594430e-03, +1.05464603945949983183e-02, -2.37374148058994688156e-02, +4.93052842396707084878e-02, -9.49010970480476444210e-02, +1.71620901522208775349e-01, -3.04682672343198398683e-01, +6.76795274409476084995e-01);

    const float B[25] = float[](-7.23318048787475395456e-18, -4.83050448594418207126e-18, +4.46562142029675999901e-17, +3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16, +1.77256013305652638360e-15, +3.81168066935262242075e-15, -9.55484669882830764870e-15, -4.15056934728722208663e-14, +1.54008621752140982691e-14, +3.85277838274214270114e-13, +7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11, -3.14991652796324136454e-11, +1.18891471078464383424e-11, +4.94060238822496958910e-10, +3.39623202570838634515e-09, +2.26666899049817806459e-08, +2.04891858946906374183e-07, +2.89137052083475648297e-06, +6.88975834691682398426e-05, +3.36911647825569408990e-03, +8.04490411014108831608e-01);

    float p = 0.0;
    float q = 0.0;

    if (abs(x) <= float(8.0)) {
        float a = A[0];

        for (int index = 1; index < 30; index++) {
            p = q;
            q = a;
            a = ((abs(x) / float(2.0)) - float(2.0)) * q - p + A[index];
        }

        return rs_op_exp(abs(x)) * (float(0.5) * (a - p));
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(32.0) / abs(x) - float(2.0)) * q - p + B[index];
    }

    return rs_op_exp(abs(x)) * (float(0.5) * (b - p)) / sqrt(abs(x));
} // rs_sp_modified_bessel_i0(float x)

float rs_sp_modified_bessel_i1(float x) {
    const float A[29] = float[](+2.77791411276104639959e-18, -2.11142121435816608115e-17, +1.55363195773620046921e-16, -1.10559694773538630805e-15, +7.60068429473540693410e-15, -5.04218550472791168711e-14, +3.22379336594557470981e-13, -1.98397439776494371520e-12, +1.17361862988909016308e-11, -6.66348972350202774223e-11, +3.62559028155211703701e-10, -1.88724975172282928790e-09, +9.38153738649577178388e-09, -4.44505912879632808065e-08, +2.00329475355213526229e-07, -8.56872026469545474066e-07, +3.47025130813767847674e-06, -1.32731636560394358279e-05, +4.78156510755005422638e-05, -1.61760815825896745588e-04, +5.12285956168575772895e-04, -1.51357245063125314899e-03, +4.15642294431288815669e-03, -1.05640848946261981558e-02, +2.47264490306265168283e-02, -5.29459812080949914269e-02, +1.02643658689847095384e-01, -1.76416518357834055153e-01, +2.52587186443633654823e-01);

    const float B[25] = float[](+7.51729631084210481353e-18, +4.41434832307170791151e-18, -4.65030536848935832153e-17, -3.20952592199342395980e-17, +2.96262899764595013876e-16, +3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15, +1.04202769841288027642e-14, +4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13, -7.19855177624590851209e-13, +2.03562854414708950722e-12, +1.41258074366137813316e-11, +3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10, -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07, -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03, +7.78576235018280120474e-01);

    float p = 0.0;
    float q = 0.0;

    if (abs(x) <= float(8.0)) {
        float a = A[0];

        for (int index = 1; index < 29; index++) {
            p = q;
            q = a;
            a = ((abs(x) / float(2.0)) - float(2.0)) * q - p + A[index];
        }

        if (x < float(0.0)) {
            return -(float(0.5) * (a - p) * abs(x) * rs_op_exp(abs(x)));
        }

        return float(0.5) * (a - p) * abs(x) * rs_op_exp(abs(x));
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(32.0) / abs(x) - float(2.0)) * q - p + B[index];
    }

    if (x < float(0.0)) {
        return -(rs_op_exp(abs(x)) * (float(0.5) * (b - p)) / sqrt(abs(x)));
    }

    return rs_op_exp(abs(x)) * (float(0.5) * (b - p)) / sqrt(abs(x));
} // rs_sp_modified_bessel_i1(float x)

float rs_sp_modified_bessel_k0(float x) {
    const float A[10] = float[](+1.37446543561352307156e-16, +4.25981614279661018399e-14, +1.03496952576338420167e-11, +1.90451637722020886025e-09, +2.53479107902614945675e-07, +2.28621210311945178607e-05, +1.26461541144692592338e-03, +3.59799365153615016266e-02, +3.44289899924628486886e-01, -5.35327393233902768720e-01);

    const float B[25] = float[](+5.30043377268626276149e-18, -1.64758043015242134646e-17, +5.21039150503902756861e-17, -1.67823109680541210385e-16, +5.51205597852431940784e-16, -1.84859337734377901440e-15, +6.34007647740507060557e-15, -2.22751332699166985548e-14, +8.03289077536357521100e-14, -2.98009692317273043925e-13, +1.14034058820847496303e-12, -4.51459788337394416547e-12, +1.85594911495471785253e-11, -7.95748924447710747776e-11, +3.57739728140030116597e-10, -1.69753450938905987466e-09, +8.57403401741422608519e-09, -4.66048989768794782956e-08, +2.76681363944501510342e-07, -1.83175552271911948767e-06, +1.39498137188764993662e-05, -1.28495495816278026384e-04, +1.56988388573005337491e-03, -3.14481013119645005427e-02, +2.44030308206595545468e+00);

    if (x == float(0.0)) {
        return RS_INF_F;
    }

    if (x < float(0.0)) {
        return RS_NAN_F;
    }

    float p = 0.0;
    float q = 0.0;

    if (x <= float(2.0)) {
        float a = A[0];

        for (int index = 1; index < 10; index++) {
            p = q;
            q = a;
            a = (x * x - float(2.0)) * q - p + A[index];
        }

        return float(0.5) * (a - p) - rs_op_log(0.5 * x) * rs_sp_modified_bessel_i0(x);
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(8.0) / x - float(2.0)) * q - p + B[index];
    }

    return rs_op_exp(-x) * (float(0.5) * (b - p)) / sqrt(x);
} // rs_sp_modified_bessel_k0(float x)

float rs_sp_modified_bessel_k1(float x) {
    const float A[11] = float[](-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01, -3.53155960776544875667e-01, +1.52530022733894777053e+00);

    const float B[25] = float[](-5.75674448366501715755e-18, +1.79405087314755922667e-17, -5.68946255844285935196e-17, +1.83809354436663880070e-16, -6.05704724837331885336e-16, +2.03870316562433424052e-15, -7.01983709041831346144e-15, +2.47715442448130437068e-14, -8.97670518232499435011e-14, +3.34841966607842919884e-13, -1.28917396095102890680e-12, +5.13963967348173025100e-12, -2.12996783842756842877e-11, +9.21831518760500529508e-11, -4.19035475934189648750e-10, +2.01504975519703286596e-09, -1.03457624656780970260e-08, +5.74108412545004946722e-08, -3.50196060308781257119e-07, +2.40648494783721712015e-06, -1.93619797416608296024e-05, +1.95215518471351631108e-04, -2.85781685962277938680e-03, +1.03923736576817238437e-01, +2.72062619048444266945e+00);

    if (x == float(0.0)) {
        return RS_INF_F;
    }

    if (x < float(0.0)) {
        return RS_NAN_F;
    }

    float p = 0.0;
    float q = 0.0;

    if (x <= float(2.0)) {
        float a = A[0];

        for (int index = 1; index < 11; index++) {
            p = q;
            q = a;
            a = (x * x - float(2.0)) * q - p + A[index];
        }

        return rs_op_log(float(0.5) * x) * rs_sp_modified_bessel_i1(x) + float(0.5) * (a - p) / x;
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(8.0) / x - float(2.0)) * q - p + B[index];
    }

    return rs_op_exp(-x) * (float(0.5) * (b - p)) / sqrt(x);
} // rs_sp_modified_bessel_k1(float x)

float rs_sp_scaled_modified_bessel_k0(float x) {
    const float A[10] = float[](+1.37446543561352307156e-16, +4.25981614279661018399e-14, +1.03496952576338420167e-11, +1.90451637722020886025e-09, +2.53479107902614945675e-07, +2.28621210311945178607e-05, +1.26461541144692592338e-03, +3.59799365153615016266e-02, +3.44289899924628486886e-01, -5.35327393233902768720e-01);

    const float B[25] = float[](+5.30043377268626276149e-18, -1.64758043015242134646e-17, +5.21039150503902756861e-17, -1.67823109680541210385e-16, +5.51205597852431940784e-16, -1.84859337734377901440e-15, +6.34007647740507060557e-15, -2.22751332699166985548e-14, +8.03289077536357521100e-14, -2.98009692317273043925e-13, +1.14034058820847496303e-12, -4.51459788337394416547e-12, +1.85594911495471785253e-11, -7.95748924447710747776e-11, +3.57739728140030116597e-10, -1.69753450938905987466e-09, +8.57403401741422608519e-09, -4.66048989768794782956e-08, +2.76681363944501510342e-07, -1.83175552271911948767e-06, +1.39498137188764993662e-05, -1.28495495816278026384e-04, +1.56988388573005337491e-03, -3.14481013119645005427e-02, +2.44030308206595545468e+00);

    if (x == float(0.0)) {
        return RS_INF_F;
    }

    if (x < float(0.0)) {
        return RS_NAN_F;
    }

    float p = 0.0;
    float q = 0.0;

    if (x <= float(2.0)) {
        float a = A[0];

        for (int index = 1; index < 10; index++) {
            p = q;
            q = a;
            a = (x * x - float(2.0)) * q - p + A[index];
        }

        return (float(0.5) * (a - p) - rs_op_log(float(0.5) * x) * rs_sp_modified_bessel_i0(x)) * rs_op_exp(x);
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(8.0) / x - float(2.0)) * q - p + B[index];
    }

    return float(0.5) * (b - p) / sqrt(x);
} // float rs_sp_scaled_modified_bessel_k0(float x)

float rs_sp_scaled_modified_bessel_k1(float x) {
    const float A[11] = float[](-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13, -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06, -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01, -3.53155960776544875667e-01, +1.52530022733894777053e+00);

    const float B[25] = float[](-5.75674448366501715755e-18, +1.79405087314755922667e-17, -5.68946255844285935196e-17, +1.83809354436663880070e-16, -6.05704724837331885336e-16, +2.03870316562433424052e-15, -7.01983709041831346144e-15, +2.47715442448130437068e-14, -8.97670518232499435011e-14, +3.34841966607842919884e-13, -1.28917396095102890680e-12, +5.13963967348173025100e-12, -2.12996783842756842877e-11, +9.21831518760500529508e-11, -4.19035475934189648750e-10, +2.01504975519703286596e-09, -1.03457624656780970260e-08, +5.74108412545004946722e-08, -3.50196060308781257119e-07, +2.40648494783721712015e-06, -1.93619797416608296024e-05, +1.95215518471351631108e-04, -2.85781685962277938680e-03, +1.03923736576817238437e-01, +2.72062619048444266945e+00);

    if (x == float(0.0)) {
        return RS_INF_F;
    }

    if (x < float(0.0)) {
        return RS_NAN_F;
    }

    float p = 0.0;
    float q = 0.0;

    if (x <= float(2.0)) {
        float a = A[0];

        for (int index = 1; index < 11; index++) {
            p = q;
            q = a;
            a = (x * x - float(2.0)) * q - p + A[index];
        }

        return (rs_op_log(float(0.5) * x) * rs_sp_modified_bessel_i1(x) + float(0.5) * (a - p) / x) * rs_op_exp(x);
    }

    float b = B[0];

    for (int index = 1; index < 25; index++) {
        p = q;
        q = b;
        b = (float(8.0) / x - float(2.0)) * q - p + B[index];
    }

    return (float(0.5) * (b - p) / sqrt(x));
} // float rs_sp_scaled_modified_bessel_k1(float x)

float rs_sp_shifted_chebyshev_polynomial_t(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (x == float(1.0)) {
        return float(1.0);
    }

    if (x == float(0.0)) {
        if (n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if ((n > 6) && (abs(x + x - float(1.0)) < float(1.0))) {
        return rs_op_cos(float(n) * rs_op_acos(x + x - float(1.0)));
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x - float(1.0);
    }

    float p = float(1.0);
    float q = x + x - float(1.0);
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - float(1.0) + (x + x - float(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_t(float x, int64_t n)

float rs_sp_shifted_chebyshev_polynomial_u(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (x == float(1.0)) {
        return float(n + 1);
    }

    if (x == float(0.0)) {
        if (n % 2 == 0) {
            return float(n + 1);
        }

        return -float(n + 1);
    }

    if ((n > 6) && (abs(x + x - float(1.0)) < float(1.0))) {
        if (rs_op_sin(rs_op_acos(x + x - float(1.0))) != float(0.0)) {
            return rs_op_sin(float(n + 1) * rs_op_acos(x + x - float(1.0))) / rs_op_sin(rs_op_acos(x + x - float(1.0)));
        }

        return float(n + 1) * rs_op_cos(float(n + 1) * rs_op_acos(x + x - float(1.0))) / (x + x - float(1.0));
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x - float(1.0) + (x + x - float(1.0));
    }

    float p = float(1.0);
    float q = x + x - float(1.0) + (x + x - float(1.0));
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - float(1.0) + (x + x - float(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_u(float x, int64_t n)

float rs_sp_shifted_chebyshev_polynomial_v(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (x == float(1.0)) {
        return float(1.0);
    }

    if (x == float(0.0)) {
        if (n % 2 == 0) {
            return float(n + n + 1);
        }

        return -float(n + n + 1);
    }

    if ((n > 6) && (abs(x + x - float(1.0)) < float(1.0))) {
        if (rs_op_sin(rs_op_acos(x + x - float(1.0)) / float(2.0)) != float(1.0)) {
            return rs_op_cos((float(n) + 0.5) * rs_op_acos(x + x - float(1.0))) / rs_op_cos(rs_op_acos(x + x - float(1.0)) / float(2.0));
        }

        if (n % 2 == 0) {
            return float(n + n + 1);
        }

        return -float(n + n + 1);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x - float(1.0) + (x + x - float(1.0)) - float(1.0);
    }

    float p = float(1.0);
    float q = x + x - float(1.0) + (x + x - float(1.0)) - float(1.0);
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - float(1.0) + (x + x - float(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_v(float x, int64_t n)

float rs_sp_shifted_chebyshev_polynomial_w(float x, int64_t n) {
    if (n < 0) {
        return float(0.0);
    }

    if (x == float(1.0)) {
        return float(n + n + 1);
    }

    if (x == float(0.0)) {
        if (n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if ((n > 4) && (abs(x + x - float(1.0)) < float(1.0))) {
        if (rs_op_cos(rs_op_acos(x + x - float(1.0)) / float(2.0)) != float(1.0)) {
            return rs_op_sin((float(n) + 0.5) * rs_op_acos(x + x - float(1.0))) / rs_op_sin(rs_op_acos(x + x - float(1.0)) / float(2.0));
        }

        if (n % 2 == 0) {
            return float(1.0);
        }

        return float(-1.0);
    }

    if (n == 0) {
        return float(1.0);
    }

    if (n == 1) {
        return x + x - float(1.0) + (x + x - float(1.0)) + float(1.0);
    }

    float p = float(1.0);
    float q = x + x - float(1.0) + (x + x - float(1.0)) + float(1.0);
    float r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - float(1.0) + (x + x - float(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_w(float x, int64_t n)

float rs_sp_spherical_bessel_j0(float x) {
    if (isinf(x)) {
        return float(0.0);
    }

    if (abs(x) < float(0.5)) {
        return float(1.0) + x * x * (float(-1.0) / float(6.0) + x * x * (float(1.0) / float(120.0) + x * x * (float(-1.0) / float(5040.0) + x * x * (float(1.0) / float(362880.0) + x * x * (float(-1.0) / float(39916800.0) + x * x * (float(1.0) / float(6227020800.0)))))));
    }

    return rs_op_sin(x) / x;
} // float rs_sp_spherical_bessel_j0(float x)

#endif
