// ops_math64.glsl: float64 and complex128 overloads of the transcendental
// pointwise ops, for devices with native fp64 (RS_HAS_FP64; never under the
// apple profile, where float64 runs on the host). GLSL has no double
// exp/log/sin: these build on common/math64.glsl (exp, log and sincos by
// range reduction and series) and are accurate to a few ulp, except the
// trigonometric functions of large arguments (|x| > 1e6: the two-part
// Cody-Waite reduction loses about log2(|x|) - 20 bits beyond 1e6). Special values
// follow C (and CPU's std:: functions). Included by common/ops.glsl after
// the float families, so it may use all of them.
#ifndef RS_OPS_MATH64_GLSL
#define RS_OPS_MATH64_GLSL
#if RS_HAS_FP64
#include "common/math64.glsl"

#define RS_NAN_D uint64BitsToDouble(0x7FF8000000000000UL)
#define RS_INF_D uint64BitsToDouble(0x7FF0000000000000UL)
const double RS_PI_D = 3.14159265358979323846LF;
const double RS_PIO2_HI_D = 1.57079632679489655800e+00LF;
const double RS_PIO2_LO_D = 6.12323399573676603587e-17LF;
const double RS_LOG2E_D = 1.44269504088896340736LF;
const double RS_LN2_D = 0.693147180559945309417LF;
const double RS_LOG10E_D = 0.434294481903251827651LF;
const double RS_LOG10_2_D = 0.301029995663981195214LF;

double rs_m_copysign(double x, double s) {
    uvec2 a = unpackDouble2x32(x), b = unpackDouble2x32(s);
    return packDouble2x32(uvec2(a.x, (a.y & 0x7FFFFFFFu) | (b.y & 0x80000000u)));
}
bool rs_m_signbit_d(double x) { return (unpackDouble2x32(x).y & 0x80000000u) != 0u; }

// ---------------------------------------------------------------- exp and log
double rs_op_exp(double x) {
    if (isnan(x)) return x;
    if (x > 709.782712893384LF) return RS_INF_D;
    if (x < -745.1332191019412LF) return 0.0LF;
    double n = floor(x * RS_LOG2E_D + 0.5LF);
    precise double r = (x - n * RS_LN2_HI) - n * RS_LN2_LO;
    // Taylor to r^17 by Horner with the coefficients 1/k! (no divisions:
    // double division is slow on GPUs)
    double s = 1.0LF + r * (1.0LF + r * (0.5LF + r * (0.16666666666666666LF + r * (0.041666666666666664LF + r * (0.008333333333333333LF + r * (0.001388888888888889LF + r * (0.0001984126984126984LF + r * (2.48015873015873e-05LF + r * (2.7557319223985893e-06LF + r * (2.755731922398589e-07LF + r * (2.505210838544172e-08LF + r * (2.08767569878681e-09LF + r * (1.6059043836821613e-10LF + r * (1.1470745597729725e-11LF + r * (7.647163731819816e-13LF + r * (4.779477332387385e-14LF + r * (2.8114572543455206e-15LF)))))))))))))))));
    int ni = int(n);
    int n1 = ni / 2;  // two steps: neither factor overflows or flushes
    return ldexp(ldexp(s, n1), ni - n1);
}
double rs_op_exp2(double x) {
    if (isnan(x)) return x;
    if (x > 1024.0LF) return RS_INF_D;
    if (x < -1080.0LF) return 0.0LF;
    double n = roundEven(x);
    double f = x - n;  // exact, |f| <= 1/2
    double s = rs_op_exp(f * RS_LN2_D);
    int ni = int(n);
    int n1 = ni / 2;
    return ldexp(ldexp(s, n1), ni - n1);
}
double rs_op_expm1(double x) {
    if (isnan(x)) return x;
    if (abs(x) < 0.5LF) {
        // x (1 + x/2 (1 + x/3 (...))), to x^20 / 20!
        double t = 1.0LF + x * (0.5LF + x * (0.16666666666666666LF + x * (0.041666666666666664LF + x * (0.008333333333333333LF + x * (0.001388888888888889LF + x * (0.0001984126984126984LF + x * (2.48015873015873e-05LF + x * (2.7557319223985893e-06LF + x * (2.755731922398589e-07LF + x * (2.505210838544172e-08LF + x * (2.08767569878681e-09LF + x * (1.6059043836821613e-10LF + x * (1.1470745597729725e-11LF + x * (7.647163731819816e-13LF + x * (4.779477332387385e-14LF + x * (2.8114572543455206e-15LF + x * (1.5619206968586225e-16LF + x * (8.22063524662433e-18LF + x * (4.110317623312165e-19LF)))))))))))))))))));
        return x * t;
    }
    if (x < -40.0LF) return -1.0LF;
    return rs_op_exp(x) - 1.0LF;
}
// log(x) = e ln2 + lm, lm = log(m), m in [sqrt(1/2), sqrt(2)); x finite > 0
void rs_m_log_parts_d(double x, out double e, out double lm) {
    int k = 0;
    if (x < 2.2250738585072014e-308LF) {  // subnormal
        x *= 18014398509481984.0LF;       // 2^54
        k = -54;
    }
    int ee;
    double m = frexp(x, ee);
    ee += k;
    if (m < 0.70710678118654752440LF) {
        m *= 2.0LF;
        ee -= 1;
    }
    double f = (m - 1.0LF) / (m + 1.0LF);
    double f2 = f * f;
    double s = 1.0LF + f2 * (0.3333333333333333LF + f2 * (0.2LF + f2 * (0.14285714285714285LF + f2 * (0.1111111111111111LF + f2 * (0.09090909090909091LF + f2 * (0.07692307692307693LF + f2 * (0.06666666666666667LF + f2 * (0.058823529411764705LF + f2 * (0.05263157894736842LF + f2 * (0.047619047619047616LF + f2 * (0.043478260869565216LF + f2 * (0.04LF))))))))))));
    e = double(ee);
    lm = 2.0LF * f * s;
}
double rs_op_log(double x) {
    if (isnan(x)) return x;
    if (x < 0.0LF) return RS_NAN_D;
    if (x == 0.0LF) return -RS_INF_D;
    if (isinf(x)) return x;
    double e, lm;
    rs_m_log_parts_d(x, e, lm);
    return e * RS_LN2_HI + (lm + e * RS_LN2_LO);
}
double rs_op_log2(double x) {
    if (isnan(x)) return x;
    if (x < 0.0LF) return RS_NAN_D;
    if (x == 0.0LF) return -RS_INF_D;
    if (isinf(x)) return x;
    double e, lm;
    rs_m_log_parts_d(x, e, lm);
    return e + lm * RS_LOG2E_D;  // exact for powers of 2
}
double rs_op_log10(double x) {
    if (isnan(x)) return x;
    if (x < 0.0LF) return RS_NAN_D;
    if (x == 0.0LF) return -RS_INF_D;
    if (isinf(x)) return x;
    double e, lm;
    rs_m_log_parts_d(x, e, lm);
    return e * RS_LOG10_2_D + lm * RS_LOG10E_D;
}
double rs_op_log1p(double x) {
    if (isnan(x)) return x;
    if (x < -1.0LF) return RS_NAN_D;
    if (x == -1.0LF) return -RS_INF_D;
    if (isinf(x)) return x;
    precise double u = 1.0LF + x;
    if (u == 1.0LF) return x;
    // Goldberg: log(u) x / (u - 1) corrects the rounding of 1 + x
    // (precise: (1 + x) - 1 must not fold to x)
    precise double um1 = u - 1.0LF;
    return rs_op_log(u) * (x / um1);
}

// ---------------------------------------------------------------- trigonometric
double rs_op_sin(double x) {
    if (isnan(x) || isinf(x)) return RS_NAN_D;
    if (x == 0.0LF) return x;  // keeps -0
    double s, c;
    rs_sincos_d(x, s, c);
    return s;
}
double rs_op_cos(double x) {
    if (isnan(x) || isinf(x)) return RS_NAN_D;
    double s, c;
    rs_sincos_d(x, s, c);
    return c;
}
double rs_op_tan(double x) {
    if (isnan(x) || isinf(x)) return RS_NAN_D;
    if (x == 0.0LF) return x;
    double s, c;
    rs_sincos_d(x, s, c);
    return s / c;
}
// atan of t in [0, inf]: 1/t above 1, then t' = (t sqrt3 - 1) / (t + sqrt3)
// (atan t = pi/6 + atan t') above 2 - sqrt3, then the series to t'^37
double rs_m_atan_pos_d(double t) {
    if (isinf(t)) return RS_PIO2_HI_D + RS_PIO2_LO_D;
    bool inv = t > 1.0LF;
    if (inv) t = 1.0LF / t;
    bool shift = t > 0.26794919243112270647LF;
    const double SQRT3 = 1.73205080756887729353LF;
    if (shift) t = (t * SQRT3 - 1.0LF) / (t + SQRT3);
    double t2 = t * t;
    double s = 1.0LF + t2 * (-0.3333333333333333LF + t2 * (0.2LF + t2 * (-0.14285714285714285LF + t2 * (0.1111111111111111LF + t2 * (-0.09090909090909091LF + t2 * (0.07692307692307693LF + t2 * (-0.06666666666666667LF + t2 * (0.058823529411764705LF + t2 * (-0.05263157894736842LF + t2 * (0.047619047619047616LF + t2 * (-0.043478260869565216LF + t2 * (0.04LF + t2 * (-0.037037037037037035LF + t2 * (0.034482758620689655LF + t2 * (-0.03225806451612903LF + t2 * (0.030303030303030304LF + t2 * (-0.02857142857142857LF + t2 * (0.02702702702702703LF))))))))))))))))));
    double r = t * s;
    if (shift) r += 0.52359877559829887308LF;  // pi/6
    if (inv) r = (RS_PIO2_HI_D - r) + RS_PIO2_LO_D;
    return r;
}
double rs_op_atan(double x) {
    if (isnan(x)) return x;
    if (x == 0.0LF) return x;
    double r = rs_m_atan_pos_d(abs(x));
    return x < 0.0LF ? -r : r;
}
// C's atan2 with its special cases
double rs_atan2(double y, double x) {
    if (isnan(x) || isnan(y)) return RS_NAN_D;
    double sy = rs_m_signbit_d(y) ? -1.0LF : 1.0LF;
    if (y == 0.0LF) return rs_m_signbit_d(x) ? sy * RS_PI_D : y;
    if (isinf(x)) {
        if (isinf(y)) return sy * (x > 0.0LF ? RS_PI_D / 4.0LF : 3.0LF * RS_PI_D / 4.0LF);
        return x > 0.0LF ? sy * 0.0LF : sy * RS_PI_D;
    }
    if (x == 0.0LF || isinf(y)) return sy * (RS_PIO2_HI_D + RS_PIO2_LO_D);
    double ax = abs(x), ay = abs(y);
    bool swap = ay > ax;
    double a = rs_m_atan_pos_d(swap ? ax / ay : ay / ax);
    if (swap) a = (RS_PIO2_HI_D - a) + RS_PIO2_LO_D;
    if (x < 0.0LF) a = (2.0LF * RS_PIO2_HI_D - a) + 2.0LF * RS_PIO2_LO_D;
    return sy * a;
}
double rs_op_asin(double x) {
    if (isnan(x) || abs(x) > 1.0LF) return RS_NAN_D;
    if (x == 0.0LF) return x;
    return rs_atan2(x, sqrt((1.0LF - x) * (1.0LF + x)));
}
double rs_op_acos(double x) {
    if (isnan(x) || abs(x) > 1.0LF) return RS_NAN_D;
    return rs_atan2(sqrt((1.0LF - x) * (1.0LF + x)), x);
}

// ---------------------------------------------------------------- hyperbolic
double rs_op_sinh(double x) {
    if (isnan(x) || x == 0.0LF) return x;
    double a = abs(x), r;
    if (a > 709.0LF) {
        double h = rs_op_exp(0.5LF * a);
        r = (0.5LF * h) * h;
    } else {
        double e = rs_op_expm1(a);
        r = 0.5LF * (e + e / (e + 1.0LF));
    }
    return x < 0.0LF ? -r : r;
}
double rs_op_cosh(double x) {
    if (isnan(x)) return x;
    double a = abs(x);
    if (a > 709.0LF) {
        double h = rs_op_exp(0.5LF * a);
        return (0.5LF * h) * h;
    }
    double e = rs_op_exp(a);
    return 0.5LF * (e + 1.0LF / e);
}
double rs_op_tanh(double x) {
    if (isnan(x) || x == 0.0LF) return x;
    double a = abs(x), r;
    if (a > 22.0LF) {
        r = 1.0LF;
    } else {
        double e = rs_op_expm1(2.0LF * a);
        r = e / (e + 2.0LF);
    }
    return x < 0.0LF ? -r : r;
}
double rs_op_asinh(double x) {
    if (isnan(x) || isinf(x) || x == 0.0LF) return x;
    double a = abs(x), r;
    if (a > 268435456.0LF) r = rs_op_log(a) + RS_LN2_D;
    else if (a > 2.0LF) r = rs_op_log(2.0LF * a + 1.0LF / (sqrt(a * a + 1.0LF) + a));
    else r = rs_op_log1p(a + a * a / (1.0LF + sqrt(1.0LF + a * a)));
    return x < 0.0LF ? -r : r;
}
double rs_op_acosh(double x) {
    if (isnan(x)) return x;
    if (x < 1.0LF) return RS_NAN_D;
    if (isinf(x)) return x;
    if (x > 268435456.0LF) return rs_op_log(x) + RS_LN2_D;
    if (x > 2.0LF) return rs_op_log(2.0LF * x - 1.0LF / (x + sqrt(x * x - 1.0LF)));
    double t = x - 1.0LF;
    return rs_op_log1p(t + sqrt(2.0LF * t + t * t));
}
double rs_op_atanh(double x) {
    if (isnan(x) || x == 0.0LF) return x;
    double a = abs(x), r;
    if (a > 1.0LF) return RS_NAN_D;
    if (a == 1.0LF) r = RS_INF_D;
    else if (a < 0.5LF) r = 0.5LF * rs_op_log1p(2.0LF * a + 2.0LF * a * a / (1.0LF - a));
    else r = 0.5LF * rs_op_log1p(2.0LF * a / (1.0LF - a));
    return x < 0.0LF ? -r : r;
}

// ---------------------------------------------------------------- others of the unary family
double rs_op_sigmoid(double x) { return 1.0LF / (1.0LF + rs_op_exp(-x)); }
double rs_op_sinc(double x) {
    if (x == 0.0LF) return 1.0LF;
    double p = RS_PI_D * x;
    return rs_op_sin(p) / p;
}
double rs_op_logit(double x, double eps) {
    if (eps >= 0.0LF) x = x < eps ? eps : (x > 1.0LF - eps ? 1.0LF - eps : x);
    if (x == 1.0LF) return RS_INF_D;
    return rs_op_log(x / (1.0LF - x));
}
double rs_sign(double a) { return isnan(a) ? 0.0LF : (a > 0.0LF ? 1.0LF : (a < 0.0LF ? -1.0LF : 0.0LF)); }
double rs_op_round_dec(double x, double p, bool neg) {
    return neg ? roundEven(x / p) * p : roundEven(x * p) / p;
}

// ---------------------------------------------------------------- erf, erfc (Cephes ndtr.c)
// erf for |x| <= 1
double rs_m_erf_small_d(double x) {
    const double T[5] = double[](9.60497373987051638749E0LF, 9.00260197203842689217E1LF, 2.23200534594684319226E3LF,
                                 7.00332514112805075473E3LF, 5.55923013010394962768E4LF);
    const double U[5] = double[](3.35617141647503099647E1LF, 5.21357949780152679795E2LF, 4.59432382970980127987E3LF,
                                 2.26290000613890934246E4LF, 4.92673942608635921086E4LF);
    double z = x * x;
    double p = T[0], q = 1.0LF;
    for (int i = 1; i < 5; ++i) p = p * z + T[i];
    for (int i = 0; i < 5; ++i) q = q * z + U[i];
    return x * p / q;
}
// erfc for |a| >= 1
double rs_m_erfc_big_d(double a) {
    double x = abs(a);
    double z = -a * a;
    if (z < -7.09782712893383996843E2LF) return a < 0.0LF ? 2.0LF : 0.0LF;
    z = rs_op_exp(z);
    const double P[9] = double[](2.46196981473530512524E-10LF, 5.64189564831068821977E-1LF, 7.46321056442269912687E0LF,
                                 4.86371970985681366614E1LF, 1.96520832956077098242E2LF, 5.26445194995477358631E2LF,
                                 9.34528527171957607540E2LF, 1.02755188689515710272E3LF, 5.57535335369399327526E2LF);
    const double Q[8] = double[](1.32281951154744992508E1LF, 8.67072140885989742329E1LF, 3.54937778887819891062E2LF,
                                 9.75708501743205489753E2LF, 1.82390916687909736289E3LF, 2.24633760818710981792E3LF,
                                 1.65666309194161350182E3LF, 5.57535340817727675546E2LF);
    const double R[6] = double[](5.64189583547755073984E-1LF, 1.27536670759978104416E0LF, 5.01905042251180477414E0LF,
                                 6.16021097993053585195E0LF, 7.40974269950448939160E0LF, 2.97886665372100240670E0LF);
    const double S[6] = double[](2.26052863220117276590E0LF, 9.39603524938001434673E0LF, 1.20489539808096656605E1LF,
                                 1.70814450747565897222E1LF, 9.60896809063285878198E0LF, 3.36907645100081516050E0LF);
    double p, q;
    if (x < 8.0LF) {
        p = P[0];
        for (int i = 1; i < 9; ++i) p = p * x + P[i];
        q = 1.0LF;
        for (int i = 0; i < 8; ++i) q = q * x + Q[i];
    } else {
        p = R[0];
        for (int i = 1; i < 6; ++i) p = p * x + R[i];
        q = 1.0LF;
        for (int i = 0; i < 6; ++i) q = q * x + S[i];
    }
    double y = (z * p) / q;
    return a < 0.0LF ? 2.0LF - y : y;
}
double rs_op_erf(double x) {
    if (isnan(x)) return x;
    if (abs(x) <= 1.0LF) return rs_m_erf_small_d(x);
    // from |x|, so that erf is odd to the bit (erfinv's Newton steps rely on it)
    double r = 1.0LF - rs_m_erfc_big_d(abs(x));
    return x < 0.0LF ? -r : r;
}
double rs_op_erfc(double a) {
    if (isnan(a)) return a;
    return abs(a) < 1.0LF ? 1.0LF - rs_m_erf_small_d(a) : rs_m_erfc_big_d(a);
}

// ---------------------------------------------------------------- binary ops in double
// C's pow (Annex F special cases), exp(y log x) otherwise (the rounding
// of y log x, at most 745, costs up to 1e-13 relative)
double rs_mx_pow(double x, double y) {
    if (y == 0.0LF) return 1.0LF;
    if (x == 1.0LF) return 1.0LF;
    if (isnan(x) || isnan(y)) return x + y;
    double ax = abs(x), ay = abs(y);
    if (isinf(y)) {
        if (ax == 1.0LF) return 1.0LF;
        return (y > 0.0LF) == (ax > 1.0LF) ? RS_INF_D : 0.0LF;
    }
    bool yint = trunc(y) == y;
    bool yodd = yint && ay < 9007199254740992.0LF && mod(ay, 2.0LF) == 1.0LF;
    bool xneg = rs_m_signbit_d(x);
    if (x == 0.0LF) {
        if (y < 0.0LF) return (yodd && xneg) ? -RS_INF_D : RS_INF_D;
        return (yodd && xneg) ? -0.0LF : 0.0LF;
    }
    if (isinf(x)) {
        if (y < 0.0LF) return (yodd && xneg) ? -0.0LF : 0.0LF;
        return (yodd && xneg) ? -RS_INF_D : RS_INF_D;
    }
    if (xneg && !yint) return RS_NAN_D;
    double r = rs_op_exp(y * rs_op_log(ax));
    return (xneg && yodd) ? -r : r;
}
double rs_mx_xlogy(double x, double y) {
    if (isnan(y)) return RS_NAN_D;
    if (x == 0.0LF) return 0.0LF;
    return x * rs_op_log(y);
}
double rs_mx_logaddexp(double a, double b) {
    if (isinf(a) && a == b) return a;
    double m = (a < b) ? b : a;
    return m + rs_op_log1p(rs_op_exp(-abs(a - b)));
}
double rs_mx_logaddexp2(double a, double b) {
    if (isinf(a) && a == b) return a;
    double m = (a < b) ? b : a;
    return m + rs_op_log1p(rs_op_exp2(-abs(a - b))) * RS_LOG2E_D;
}

// ---------------------------------------------------------------- complex128
double rs_cabs(dvec2 z) {
    double x = abs(z.x), y = abs(z.y);
    if (isinf(x) || isinf(y)) return RS_INF_D;
    if (isnan(x) || isnan(y)) return RS_NAN_D;
    double m = max(x, y), n = min(x, y);
    if (m == 0.0LF) return 0.0LF;
    double r = n / m;
    return m * sqrt(1.0LF + r * r);
}
dvec2 rs_neg(dvec2 a) { return -a; }
double rs_op_abs(dvec2 z) { return rs_cabs(z); }
double rs_op_angle(dvec2 z) { return rs_atan2(z.y, z.x); }
bool rs_isfinite(double a) { return !isnan(a) && !isinf(a); }
bool rs_isfinite(dvec2 a) { return rs_isfinite(a.x) && rs_isfinite(a.y); }
dvec2 rs_op_sgn(dvec2 z) {
    double m = rs_cabs(z);
    return m == 0.0LF ? dvec2(0.0LF) : dvec2(z.x / m, z.y / m);
}
dvec2 rs_op_polar(double r, double t) { return dvec2(r * rs_op_cos(t), r * rs_op_sin(t)); }
dvec2 rs_op_complex(double re, double im) { return dvec2(re, im); }
dvec2 rs_op_exp(dvec2 z) {
    if (z.y == 0.0LF && !isnan(z.x)) return dvec2(rs_op_exp(z.x), z.y);
    if (isinf(z.x) && z.x < 0.0LF && (isinf(z.y) || isnan(z.y))) return dvec2(0.0LF, 0.0LF);
    double e = rs_op_exp(z.x);
    if (isinf(z.x) && z.x > 0.0LF && (isinf(z.y) || isnan(z.y))) return dvec2(z.x, RS_NAN_D);
    return dvec2(e * rs_op_cos(z.y), e * rs_op_sin(z.y));
}
double rs_m_log_abs(dvec2 z) {
    double x = abs(z.x), y = abs(z.y);
    if (isinf(x) || isinf(y)) return RS_INF_D;
    if (isnan(x) || isnan(y)) return RS_NAN_D;
    double m = max(x, y), n = min(x, y);
    if (m == 0.0LF) return -RS_INF_D;
    double r = n / m;
    if (m > 0.5LF && m < 2.0LF) return 0.5LF * rs_op_log1p((m - 1.0LF) * (m + 1.0LF) + n * n);
    return rs_op_log(m) + 0.5LF * rs_op_log1p(r * r);
}
dvec2 rs_op_log(dvec2 z) { return dvec2(rs_m_log_abs(z), rs_atan2(z.y, z.x)); }
dvec2 rs_op_exp2(dvec2 z) { return rs_op_exp(z * RS_LN2_D); }
dvec2 rs_op_log2(dvec2 z) { return rs_op_log(z) * RS_LOG2E_D; }
dvec2 rs_op_log10(dvec2 z) { return rs_op_log(z) * RS_LOG10E_D; }
dvec2 rs_op_sigmoid(dvec2 z) { return rs_cdiv(dvec2(1.0LF, 0.0LF), dvec2(1.0LF, 0.0LF) + rs_op_exp(-z)); }
// the complex64 functions of ops_math.glsl (c10/util/complex_math.h), in double
// c10::log1p
dvec2 rs_op_log1p(dvec2 z) {
    double x = z.x, y = z.y;
    double zabs = rs_cabs(z);
    double theta = rs_atan2(y, x + 1.0LF);
    if (zabs < 0.5LF) {
        double r = x * (2.0LF + x) + y * y;
        if (r == 0.0LF) return dvec2(x, theta);
        return dvec2(0.5LF * rs_op_log1p(r), theta);
    }
    return dvec2(rs_m_log_abs(dvec2(x + 1.0LF, y)), theta);
}
// c10::expm1
dvec2 rs_op_expm1(dvec2 z) {
    double a = rs_op_sin(z.y * 0.5LF);
    return dvec2(rs_op_expm1(z.x) * rs_op_cos(z.y) - 2.0LF * a * a, rs_op_exp(z.x) * rs_op_sin(z.y));
}
// principal sqrt, without overflow in |z|
dvec2 rs_op_sqrt(dvec2 z) {
    double x = z.x, y = z.y;
    if (isinf(y)) return dvec2(RS_INF_D, y);
    if (isnan(x)) return dvec2(x, isinf(y) ? y : x);
    if (isinf(x)) {
        if (x > 0.0LF) return dvec2(x, isnan(y) ? y : rs_m_copysign(0.0LF, y));
        return dvec2(isnan(y) ? abs(x - x) : 0.0LF, rs_m_copysign(RS_INF_D, y));
    }
    if (x == 0.0LF && y == 0.0LF) return dvec2(0.0LF, y);
    double t = sqrt(0.5LF * (abs(x) + rs_cabs(z)));
    if (isinf(t)) t = sqrt(0.125LF * abs(x) + 0.125LF * rs_cabs(dvec2(x * 0.25LF, y * 0.25LF)) * 4.0LF) * 2.0LF;
    if (x >= 0.0LF) return dvec2(t, y / (2.0LF * t));
    return dvec2(abs(y) / (2.0LF * t), rs_m_copysign(t, y));
}
dvec2 rs_op_rsqrt(dvec2 z) { return rs_cdiv(dvec2(1.0LF, 0.0LF), rs_op_sqrt(z)); }
dvec2 rs_op_sinh(dvec2 z) {
    return dvec2(rs_op_sinh(z.x) * rs_op_cos(z.y), rs_op_cosh(z.x) * rs_op_sin(z.y));
}
dvec2 rs_op_cosh(dvec2 z) {
    return dvec2(rs_op_cosh(z.x) * rs_op_cos(z.y), rs_op_sinh(z.x) * rs_op_sin(z.y));
}
// Kahan's tanh: t = tan y, s = sinh x, (beta rho s, t) / (1 + beta s^2)
dvec2 rs_op_tanh(dvec2 z) {
    double x = z.x, y = z.y;
    if (isnan(x)) return dvec2(x, y == 0.0LF ? y : x);
    if (abs(x) > 22.0LF) {
        double e = rs_op_exp(-2.0LF * abs(x));
        return dvec2(rs_m_copysign(1.0LF, x), 4.0LF * rs_op_sin(y) * rs_op_cos(y) * e);
    }
    double t = rs_op_tan(y);
    double beta = 1.0LF + t * t;
    double s = rs_op_sinh(x);
    double rho = sqrt(1.0LF + s * s);
    double den = 1.0LF + beta * s * s;
    return dvec2(beta * rho * s / den, t / den);
}
// f(iz) helpers: i z = (-y, x); -i w = (w.y, -w.x)
dvec2 rs_m_mul_i(dvec2 z) { return dvec2(-z.y, z.x); }
dvec2 rs_m_mul_negi(dvec2 w) { return dvec2(w.y, -w.x); }
dvec2 rs_op_sin(dvec2 z) { return rs_m_mul_negi(rs_op_sinh(rs_m_mul_i(z))); }
dvec2 rs_op_cos(dvec2 z) { return rs_op_cosh(rs_m_mul_i(z)); }
dvec2 rs_op_tan(dvec2 z) { return rs_m_mul_negi(rs_op_tanh(rs_m_mul_i(z))); }
// asinh(z) = log(z + sqrt(z^2 + 1)), odd; computed for Re z >= 0
dvec2 rs_op_asinh(dvec2 z) {
    bool flip = z.x < 0.0LF || (z.x == 0.0LF && rs_m_signbit_d(z.x));
    dvec2 w = flip ? -z : z;
    dvec2 r;
    double m = max(abs(w.x), abs(w.y));
    if (m > 1e18LF) {
        // asinh(w) ~ log(2 w)
        r = rs_op_log(w);
        r.x += RS_LN2_D;
    } else {
        dvec2 w2 = rs_cmul(w, w);
        r = rs_op_log(w + rs_op_sqrt(dvec2(w2.x + 1.0LF, w2.y)));
    }
    return flip ? -r : r;
}
dvec2 rs_op_asin(dvec2 z) { return rs_m_mul_negi(rs_op_asinh(rs_m_mul_i(z))); }
dvec2 rs_op_acos(dvec2 z) {
    dvec2 a = rs_op_asin(z);
    return dvec2((RS_PIO2_HI_D + RS_PIO2_LO_D) - a.x, -a.y);
}
// acosh(z) = log(z + sqrt(z + 1) sqrt(z - 1))
dvec2 rs_op_acosh(dvec2 z) {
    dvec2 p = rs_cmul(rs_op_sqrt(dvec2(z.x + 1.0LF, z.y)), rs_op_sqrt(dvec2(z.x - 1.0LF, z.y)));
    dvec2 r = rs_op_log(z + p);
    return r;
}
// atanh(z) = (log1p(z) - log1p(-z)) / 2
dvec2 rs_op_atanh(dvec2 z) {
    dvec2 a = rs_op_log1p(z), b = rs_op_log1p(-z);
    return dvec2(0.5LF * (a.x - b.x), 0.5LF * (a.y - b.y));
}
dvec2 rs_op_atan(dvec2 z) { return rs_m_mul_negi(rs_op_atanh(rs_m_mul_i(z))); }
dvec2 rs_op_sinc(dvec2 z) {
    if (z.x == 0.0LF && z.y == 0.0LF) return dvec2(1.0LF, 0.0LF);
    dvec2 p = dvec2(RS_PI_D * z.x, RS_PI_D * z.y);
    return rs_cdiv(rs_op_sin(p), p);
}
// LogAddExp.h's complex helper (as rs_mx_logaddexp(vec2))
dvec2 rs_mx_logaddexp(dvec2 x, dvec2 y) {
    bool xn = isnan(x.x) || isnan(x.y), yn = isnan(y.x) || isnan(y.y);
    dvec2 mn, mx;
    if (yn) {
        mn = y;
        mx = y;
    } else if (xn) {
        mn = x;
        mx = x;
    } else if (x.x < y.x) {
        mn = x;
        mx = y;
    } else {
        mn = y;
        mx = x;
    }
    if (xn || yn) return dvec2(RS_NAN_D, RS_NAN_D);
    if (isinf(mn.x) && mn.x == mx.x) {
        if (mn.x < 0.0LF) return mn;
        return rs_op_log(rs_op_exp(mn) + rs_op_exp(mx));
    }
    return rs_op_log1p(rs_op_exp(mn - mx)) + mx;
}
// cpow: cexp(y clog(x)), the product with C's Annex G rules (ops_misc.glsl)
dvec2 rs_mx_cmul_g(dvec2 z, dvec2 w) {
    double a = z.x, b = z.y, c = w.x, d = w.y;
    double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    double x = ac - bd, y = ad + bc;
    if (isnan(x) && isnan(y)) {
        bool recalc = false;
        if (isinf(a) || isinf(b)) {
            a = rs_m_copysign(isinf(a) ? 1.0LF : 0.0LF, a);
            b = rs_m_copysign(isinf(b) ? 1.0LF : 0.0LF, b);
            if (isnan(c)) c = rs_m_copysign(0.0LF, c);
            if (isnan(d)) d = rs_m_copysign(0.0LF, d);
            recalc = true;
        }
        if (isinf(c) || isinf(d)) {
            c = rs_m_copysign(isinf(c) ? 1.0LF : 0.0LF, c);
            d = rs_m_copysign(isinf(d) ? 1.0LF : 0.0LF, d);
            if (isnan(a)) a = rs_m_copysign(0.0LF, a);
            if (isnan(b)) b = rs_m_copysign(0.0LF, b);
            recalc = true;
        }
        if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
            if (isnan(a)) a = rs_m_copysign(0.0LF, a);
            if (isnan(b)) b = rs_m_copysign(0.0LF, b);
            if (isnan(c)) c = rs_m_copysign(0.0LF, c);
            if (isnan(d)) d = rs_m_copysign(0.0LF, d);
            recalc = true;
        }
        if (recalc) {
            x = RS_INF_D * (a * c - b * d);
            y = RS_INF_D * (a * d + b * c);
        }
    }
    return dvec2(x, y);
}
double rs_mx_lerp(double s, double e, double w) {
    bool small = abs(w) < 0.5LF;
    return fma(small ? w : w - 1.0LF, e - s, small ? s : e);
}
double rs_mx_addcmul(double s, double t1, double t2, double v) {
    precise double p = v * t1;
    p = p * t2;
    return s + p;
}
double rs_mx_addcdiv(double s, double t1, double t2, double v) {
    precise double p = v * t1;
    p = p / t2;
    return s + p;
}
dvec2 rs_mx_lerp(dvec2 s, dvec2 e, dvec2 w) {
    bool small = rs_cabs(w) < 0.5LF;
    dvec2 coeff = small ? w : w - dvec2(1.0LF, 0.0LF);
    return rs_cmul(coeff, e - s) + (small ? s : e);
}
dvec2 rs_mx_addcmul(dvec2 s, dvec2 t1, dvec2 t2, dvec2 v) { return s + rs_cmul(rs_cmul(v, t1), t2); }
dvec2 rs_mx_addcdiv(dvec2 s, dvec2 t1, dvec2 t2, dvec2 v) { return s + rs_cdiv(rs_cmul(v, t1), t2); }
dvec2 rs_mx_pow(dvec2 x, dvec2 y) { return rs_op_exp(rs_mx_cmul_g(y, rs_op_log(x))); }

// ---------------------------------------------------------------- arithmetic of ops.glsl in double
double rs_neg(double a) { return -a; }
double rs_abs(double a) { return abs(a); }
double rs_div(double a, double b) { return a / b; }
dvec2 rs_div(dvec2 a, dvec2 b) { return rs_cdiv(a, b); }
double rs_div_trunc(double a, double b) { return trunc(a / b); }
// C's fmod, exact (musl's algorithm on the 64-bit pattern, as rs_fmod(float))
double rs_fmod(double x, double y) {
    uint64_t ux = doubleBitsToUint64(x), uy = doubleBitsToUint64(y);
    int ex = int((ux >> 52) & 0x7FFUL), ey = int((uy >> 52) & 0x7FFUL);
    uint64_t sx = ux & 0x8000000000000000UL;
    if ((uy << 1) == 0UL || isnan(y) || ex == 0x7FF) return (x * y) / (x * y);
    if ((ux << 1) <= (uy << 1)) {
        if ((ux << 1) == (uy << 1)) return 0.0LF * x;
        return x;
    }
    if (ex == 0) {
        uint64_t i = ux << 12;
        for (ex = 0; (i >> 63) == 0UL; ex--) i <<= 1;
        ux <<= uint(-ex + 1);
    } else {
        ux &= 0xFFFFFFFFFFFFFUL;
        ux |= 0x10000000000000UL;
    }
    if (ey == 0) {
        uint64_t i = uy << 12;
        for (ey = 0; (i >> 63) == 0UL; ey--) i <<= 1;
        uy <<= uint(-ey + 1);
    } else {
        uy &= 0xFFFFFFFFFFFFFUL;
        uy |= 0x10000000000000UL;
    }
    for (; ex > ey; ex--) {
        uint64_t i = ux - uy;
        if ((i >> 63) == 0UL) {
            if (i == 0UL) return 0.0LF * x;
            ux = i;
        }
        ux <<= 1;
    }
    uint64_t i = ux - uy;
    if ((i >> 63) == 0UL) {
        if (i == 0UL) return 0.0LF * x;
        ux = i;
    }
    for (; (ux >> 52) == 0UL; ux <<= 1, ex--) {}
    if (ex > 0) {
        ux -= 0x10000000000000UL;
        ux |= uint64_t(ex) << 52;
    } else {
        ux >>= uint(-ex + 1);
    }
    return uint64BitsToDouble(ux | sx);
}
// c10::div_floor_floating
double rs_div_floor(double a, double b) {
    if (b == 0.0LF) return a / b;
    double m = rs_fmod(a, b);
    double dv = (a - m) / b;
    if (m != 0.0LF && (b < 0.0LF) != (m < 0.0LF)) dv -= 1.0LF;
    double fd;
    if (dv != 0.0LF) {
        fd = floor(dv);
        if (dv - fd > 0.5LF) fd += 1.0LF;
    } else {
        fd = rs_m_copysign(0.0LF, a / b);
    }
    return fd;
}
double rs_remainder(double a, double b) {
    double m = rs_fmod(a, b);
    if (m != 0.0LF && (b < 0.0LF) != (m < 0.0LF)) m += b;
    return m;
}
double rs_maximum(double a, double b) { return isnan(a) || isnan(b) ? RS_NAN_D : (a > b ? a : b); }
double rs_minimum(double a, double b) { return isnan(a) || isnan(b) ? RS_NAN_D : (a < b ? a : b); }
double rs_fmax(double a, double b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
double rs_fmin(double a, double b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }
double rs_clamp(double x, double lo, double hi) {
    if (isnan(x)) return x;
    return rs_minimum(rs_maximum(x, lo), hi);
}
double rs_clamp_min(double x, double lo) { return isnan(x) ? x : rs_maximum(x, lo); }
double rs_clamp_max(double x, double hi) { return isnan(x) ? x : rs_minimum(x, hi); }

// ---------------------------------------------------------------- ops_misc.glsl in double
double rs_mx_hypot(double a, double b) {
    double x = abs(a), y = abs(b);
    if (isinf(x) || isinf(y)) return RS_INF_D;
    if (isnan(x) || isnan(y)) return RS_NAN_D;
    double m = max(x, y), n = min(x, y);
    if (m == 0.0LF) return 0.0LF;
    double r = n / m;
    return m * sqrt(1.0LF + r * r);
}
double rs_mx_copysign(double a, double b) { return rs_m_copysign(a, b); }
double rs_mx_nextafter(double x, double y) {
    if (isnan(x) || isnan(y)) return x + y;
    uint64_t ux = doubleBitsToUint64(x), uy = doubleBitsToUint64(y);
    const uint64_t SM = 0x8000000000000000UL;
    if (ux == uy) return y;
    uint64_t ax = ux & ~SM, ay = uy & ~SM;
    if (ax == 0UL) return ay == 0UL ? y : uint64BitsToDouble((uy & SM) | 1UL);
    if (ax > ay || ((ux ^ uy) & SM) != 0UL) return uint64BitsToDouble(ux - 1UL);
    return uint64BitsToDouble(ux + 1UL);
}
double rs_mx_heaviside(double a, double b) { return a == 0.0LF ? b : (a > 0.0LF ? 1.0LF : 0.0LF); }
double rs_mx_nan_to_num(double a, double nan_v, double pos_v, double neg_v) {
    if (isnan(a)) return nan_v;
    if (isinf(a)) return a > 0.0LF ? pos_v : neg_v;
    return a;
}

// ---------------------------------------------------------------- activations in double
// The float functions of ops_activation.glsl, in double (same comparisons
// and order of operations; generated from that file, literals as double)
double rs_exp(double a) { return rs_op_exp(a); }
double rs_log1p(double a) { return rs_op_log1p(a); }
double rs_tanh(double a) { return rs_op_tanh(a); }
double rs_erf(double a) { return rs_op_erf(a); }
double rs_rcm(double x) { return x; }
double rs_act_max0(double x) { return isnan(x) ? x : (x > 0.0LF ? x : 0.0LF); }
double rs_act_min0(double x) { return isnan(x) ? x : (x < 0.0LF ? x : 0.0LF); }
double rs_act_relu6(double v) {
    v = v < 0.0LF ? 0.0LF : v;
    return v > 6.0LF ? 6.0LF : v;
}
double rs_relu(double x) { return rs_act_max0(x); }
double rs_act_elu(double a, double negcoef, double poscoef, double negiptcoef) {
    return a <= 0.0LF ? (rs_exp(a * negiptcoef) - 1.0LF) * negcoef : a * poscoef;
}
double rs_act_elu_backward(double a, double b, double negcoef, double poscoef, double negiptcoef, bool is_result) {
    if (is_result) return b <= 0.0LF ? a * negiptcoef * (b + negcoef) : a * poscoef;
    return b <= 0.0LF ? a * negiptcoef * negcoef * rs_exp(b * negiptcoef) : a * poscoef;
}
double rs_act_gelu(double x) {
    const double kAlpha = 0.70710678118654752440LF;  // M_SQRT1_2
    return x * 0.5LF * (1.0LF + rs_erf(x * kAlpha));
}
double rs_act_gelu_tanh(double x) {
    const double kBeta = 0.79788456080286535588LF;  // M_SQRT2 * M_2_SQRTPI * 0.5LF
    const double kKappa = 0.044715LF;
    double x_cube = x * x * x;
    double inner = kBeta * (x + kKappa * x_cube);
    return 0.5LF * x * (1.0LF + rs_tanh(inner));
}
double rs_act_gelu_backward(double dy, double x) {
    const double kAlpha = 0.70710678118654752440LF;
    const double kBeta = 0.39894228040143267794LF;  // M_2_SQRTPI * M_SQRT1_2 * 0.5LF
    double cdf = 0.5LF * (1.0LF + rs_erf(x * kAlpha));
    double pdf = kBeta * rs_exp(x * x * -0.5LF);
    return dy * (cdf + x * pdf);
}
double rs_act_gelu_tanh_backward(double dy, double x) {
    const double kBeta = 0.79788456080286535588LF;
    const double kKappa = 0.044715LF;
    double x_sq = x * x;
    double x_cube = x_sq * x;
    double inner = kBeta * (x + kKappa * x_cube);
    double tanh_inner = rs_tanh(inner);
    double left = 0.5LF * x;
    double right = 1.0LF + tanh_inner;
    double left_derivative = 0.5LF * right;
    double tanh_derivative = 1.0LF - tanh_inner * tanh_inner;
    double inner_derivative = kBeta * (1.0LF + 3.0LF * kKappa * x_sq);
    double right_derivative = left * tanh_derivative * inner_derivative;
    return dy * (left_derivative + right_derivative);
}
double rs_act_silu(double x) { return x / (1.0LF + rs_exp(-x)); }
double rs_act_silu_backward(double dy, double x) {
    double sigmoid = 1.0LF / (1.0LF + rs_exp(-x));
    return dy * sigmoid * (1.0LF + x * (1.0LF - sigmoid));
}
double rs_act_mish(double x) { return x * rs_tanh(rs_log1p(rs_exp(x))); }
double rs_act_mish_backward(double dy, double x) {
    double sigmoid = 1.0LF / (1.0LF + rs_exp(-x));
    double tanh_softplus = rs_tanh(rs_log1p(rs_exp(x)));
    return dy * (tanh_softplus + x * sigmoid * (1.0LF - tanh_softplus * tanh_softplus));
}
double rs_act_hardsigmoid(double x) { return rs_act_relu6(x + 3.0LF) / 6.0LF; }
double rs_act_hardsigmoid_backward(double g, double x) {
    const double one_sixth = 1.0LF / 6.0LF;
    return (x > -3.0LF && x < 3.0LF) ? g * one_sixth : 0.0LF;
}
double rs_act_hardswish(double x) { return x * rs_act_relu6(x + 3.0LF) / 6.0LF; }
double rs_act_hardswish_backward(double g, double x) {
    if (x < -3.0LF) return 0.0LF;
    if (x <= 3.0LF) return g * ((x / 3.0LF) + 0.5LF);
    return g;
}
double rs_act_softplus(double a, double beta, double threshold) {
    return (a * beta) > threshold ? a : rs_log1p(rs_exp(a * beta)) / beta;
}
double rs_act_softplus_backward(double a, double b, double beta, double threshold) {
    double z = rs_exp(b * beta);
    return (b * beta) > threshold ? a : a * z / (z + 1.0LF);
}
double rs_act_log_sigmoid_buffer(double x) { return rs_exp(-abs(x)); }
double rs_act_log_sigmoid(double x) { return rs_act_min0(x) - rs_log1p(rs_exp(-abs(x))); }
double rs_act_log_sigmoid_backward(double a, double b, double c) {
    bool in_negative = a < 0.0LF;
    double max_deriv = in_negative ? 1.0LF : 0.0LF;
    double sg = in_negative ? 1.0LF : -1.0LF;
    return (max_deriv - sg * (b / (1.0LF + b))) * c;
}
double rs_act_rrelu_noise(double x, double r) { return x <= 0.0LF ? r : 1.0LF; }
double rs_act_logit_backward(double dy, double x, double eps) {
    if (eps < 0.0LF) {
        if (x < 0.0LF || x > 1.0LF) return RS_NAN_D;
    } else {
        double lo = eps, hi = rs_rcm(1.0LF - eps);
        if (x < lo || x > hi) return 0.0LF;
    }
    if (x == 0.0LF || x == 1.0LF) return dy * RS_INF_D;
    return dy / (x * (1.0LF - x));
}

dvec2 rs_act_silu(dvec2 x) { return rs_cdiv(x, dvec2(1.0LF, 0.0LF) + rs_op_exp(-x)); }
dvec2 rs_act_silu_backward(dvec2 dy, dvec2 x) {
    dvec2 one = dvec2(1.0LF, 0.0LF);
    dvec2 sigmoid = rs_cdiv(one, one + rs_op_exp(-x));
    return rs_cmul(rs_cmul(dy, sigmoid), one + rs_cmul(x, one - sigmoid));
}

// ldexp: x 2^e rounded once. Devices keep float64 denormals, so scaling by
// normal powers of two is exact: exponents past the normal range are taken
// in steps, an underflow's (2^-969 = 2^-1022 2^53) keeping x normal until
// the last multiply, so a subnormal result is rounded once.
double rs_mx_pow2d(int k) { return uint64BitsToDouble(uint64_t(k + 1023) << 52); }  // k in [-1022, 1023]
double rs_mx_ldexp(double x, int64_t e64) {
    int e = int(e64);
    for (int i = 0; i < 2 && e > 1023; ++i) x *= rs_mx_pow2d(1023), e -= 1023;
    for (int i = 0; i < 2 && e < -1022; ++i) x *= rs_mx_pow2d(-969), e += 969;
    return x * rs_mx_pow2d(clamp(e, -1022, 1023));
}

// pow_tensor_scalar_optimized_kernel's special exponents 3 and -2 (ops_misc.glsl)
double rs_mx_cube(double a) {
    precise double t = a * a;
    return t * a;
}
dvec2 rs_mx_cube(dvec2 a) { return rs_cmul(rs_cmul(a, a), a); }
double rs_mx_inv_sq(double a) {
    precise double t = a * a;
    return 1.0LF / t;
}
dvec2 rs_mx_inv_sq(dvec2 a) { return rs_cdiv(dvec2(1.0LF, 0.0LF), rs_cmul(a, a)); }

// torch.special's entr and xlog1py (i0, i0e, i1, i1e: ops_special_bessel.glsl)
double rs_op_entr(double x) {
    if (isnan(x)) return x;
    if (x > 0.0LF) return -x * rs_op_log(x);
    if (x == 0.0LF) return 0.0LF;
    return -RS_INF_D;
}
double rs_op_xlog1py(double x, double y) {
    if (isnan(y)) return RS_NAN_D;
    if (x == 0.0LF) return 0.0LF;
    return x * rs_op_log1p(y);
}

// ---------------------------------------------------------------- special: Bessel and Airy functions, orthogonal polynomials, erfinv, ndtri
#define T double
#define TL(x) x
#define T_EPS 2.220446049250313080847e-16LF
#define T_SPLIT 134217729.0LF
#define T_BIG 1e290LF
#define T_I1_A_FIRST 0
#define T_I1_B_FIRST 0
#include "common/ops_special_bessel.glsl"
#include "common/ops_special_poly.glsl"
#include "common/ops_special_inverse.glsl"
#include "common/ops_special_gamma.glsl"
#undef TL
#undef T_EPS
#undef T_SPLIT
#undef T_BIG
#undef T_I1_A_FIRST
#undef T_I1_B_FIRST
#undef T

// ---------------------------------------------------------------- special: digamma, zeta, polygamma
// calc_digamma (double) as CPU writes it: digamma(1 - x) - pi / tan(pi r)
// for x < 0, r its fraction (modf)
double rs_op_digamma(double x) {
    const double PI = 3.14159265358979323846264338327950288LF;
    if (isnan(x)) return x;
    if (x == 0.0LF) return rs_m_copysign(RS_INF_D, -x);
    if (x < 0.0LF) {
        if (x == trunc(x)) return RS_NAN_D;
        return rs_m_digamma_pos(1.0LF - x, 0.0LF) - PI / rs_op_tan(PI * (x - trunc(x)));
    }
    return rs_m_digamma_pos(x, 0.0LF);
}
// Hurwitz zeta(x, q): Math.h's zeta in double (Euler-Maclaurin, Cephes)
double rs_op_zeta(double x, double q) {
    const double MACHEP = 1.11022302462515654042E-16LF;
    const double A[12] = double[](12.0LF, -720.0LF, 30240.0LF, -1209600.0LF, 47900160.0LF,
                                  -1.8924375803183791606e9LF, 7.47242496e10LF, -2.950130727918164224e12LF,
                                  1.1646782814350067249e14LF, -4.5979787224074726105e15LF,
                                  1.8152105401943546773e17LF, -7.1661652561756670113e18LF);
    if (x == 1.0LF) return RS_INF_D;
    if (x < 1.0LF) return RS_NAN_D;
    if (q <= 0.0LF) {
        if (q == floor(q)) return RS_INF_D;
        if (x != floor(x)) return RS_NAN_D;
    }
    double s = rs_mx_pow(q, -x), a = q, b = 0.0LF;
    int i = 0;
    // (bounded, as every kernel loop: CPU's is not; only q below -9,990
    // reaches the bound)
    while ((i < 9 || a <= 9.0LF) && i < 10000) {
        i += 1;
        a += 1.0LF;
        b = rs_mx_pow(a, -x);
        s += b;
        if (-MACHEP * s < b && b < MACHEP * s) return s;
    }
    double w = a;
    s += b * w / (x - 1.0LF);
    s -= 0.5LF * b;
    a = 1.0LF;
    double k = 0.0LF;
    for (i = 0; i < 12; i++) {
        a *= x + k;
        b /= w;
        double t = a * b / A[i];
        s = s + t;
        if (abs(t / s) < MACHEP) return s;
        k += 1.0LF;
        a *= x + k;
        b /= w;
        k += 1.0LF;
    }
    return s;
}
// polygamma(n, x): digamma, trigamma, else (-1)^(n+1) n! zeta(n + 1, x)
// (CPU: n! as exp(lgamma(n + 1)); exact here to 22!, rounded once a
// factor above)
double rs_op_polygamma(double x, int n) {
    if (n == 0) return rs_op_digamma(x);
    if (n == 1) return rs_op_trigamma(x);
    double f = 1.0LF;
    for (int k = 2; k <= n && k <= 171; ++k) f *= double(k);
    return ((n % 2) != 0 ? f : -f) * rs_op_zeta(double(n + 1), x);
}

#endif
#endif
