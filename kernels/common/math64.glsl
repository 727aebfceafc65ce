// math64.glsl: double-precision log, exp and sincos (GLSL has these for
// float only). Compiled only into kernels that run with native fp64.
#ifndef RS_MATH64_GLSL
#define RS_MATH64_GLSL

const double RS_LN2_HI = 6.93147180369123816490e-01LF;
const double RS_LN2_LO = 1.90821492927058770002e-10LF;

// log(x) for finite x > 0: x = m 2^e, m in [sqrt(1/2), sqrt(2)),
// log(m) = 2 atanh(f), f = (m - 1) / (m + 1), |f| < 0.172.
double rs_log_d(double x) {
    int e;
    double m = frexp(x, e);  // m in [0.5, 1)
    if (m < 0.70710678118654752440LF) {
        m *= 2.0LF;
        e -= 1;
    }
    double f = (m - 1.0LF) / (m + 1.0LF);
    double f2 = f * f;
    double s = 1.0LF / 23.0LF;
    for (int k = 21; k >= 1; k -= 2) s = s * f2 + 1.0LF / double(k);
    return double(e) * RS_LN2_HI + (2.0LF * f * s + double(e) * RS_LN2_LO);
}

// exp(x): x = n ln2 + r, |r| <= ln2 / 2, Taylor to r^17.
double rs_exp_d(double x) {
    if (x > 709.78LF) return 1.0LF / 0.0LF;
    if (x < -745.2LF) return 0.0LF;
    double n = floor(x * 1.44269504088896340736LF + 0.5LF);
    precise double r = (x - n * RS_LN2_HI) - n * RS_LN2_LO;
    double s = 1.0LF;
    for (int k = 17; k >= 1; --k) s = 1.0LF + s * r / double(k);
    return ldexp(s, int(n));
}

// sin and cos of x: exact for |x| up to about 1e6 (fdlibm's three-part
// pi/2, 33 bits per part, so that q times a part is exact), then losing
// about log2(|x|) - 20 bits.
void rs_sincos_d(double x, out double s, out double c) {
    const double P1 = 1.57079632673412561417e+00LF;
    const double P2 = 6.07710050630396597660e-11LF;
    const double P3 = 2.02226624879595063154e-21LF;
    double q = floor(x * 0.63661977236758134308LF + 0.5LF);
    precise double u1 = x - q * P1;
    precise double u2 = u1 - q * P2;
    precise double r = u2 - q * P3;  // |r| <= pi/4
    double r2 = r * r;
    double ps = 0.0LF, pc = 0.0LF;
    double ts = 1.0LF / 6227020800.0LF;   // 1/13!
    double tc = 1.0LF / 87178291200.0LF;  // 1/14!
    // Horner for sin (odd terms to r^19) and cos (even terms to r^18)
    ps = -1.0LF / 121645100408832000.0LF;  // -1/19!
    ps = ps * r2 + 1.0LF / 355687428096000.0LF;
    ps = ps * r2 - 1.0LF / 1307674368000.0LF;
    ps = ps * r2 + ts;
    ps = ps * r2 - 1.0LF / 39916800.0LF;
    ps = ps * r2 + 1.0LF / 362880.0LF;
    ps = ps * r2 - 1.0LF / 5040.0LF;
    ps = ps * r2 + 1.0LF / 120.0LF;
    ps = ps * r2 - 1.0LF / 6.0LF;
    double sr = r + r * r2 * ps;
    pc = 1.0LF / 6402373705728000.0LF;  // 1/18!
    pc = pc * r2 - 1.0LF / 20922789888000.0LF;
    pc = pc * r2 + tc;
    pc = pc * r2 - 1.0LF / 479001600.0LF;
    pc = pc * r2 + 1.0LF / 3628800.0LF;
    pc = pc * r2 - 1.0LF / 40320.0LF;
    pc = pc * r2 + 1.0LF / 720.0LF;
    pc = pc * r2 - 1.0LF / 24.0LF;
    pc = pc * r2 + 0.5LF;
    double cr = 1.0LF - r2 * pc;
    int iq = int(q) & 3;
    if (iq == 0) { s = sr; c = cr; }
    else if (iq == 1) { s = cr; c = -sr; }
    else if (iq == 2) { s = -sr; c = -cr; }
    else { s = -cr; c = sr; }
}

#endif
