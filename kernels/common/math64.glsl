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

// ---------------------------------------------------------------- sin and cos
// x = q pi/2 + r, |r| <= pi/4, then Taylor polynomials on r (with r's tail
// added to first order). Below 2^19, Cody-Waite with fdlibm's three-part
// pi/2 (33 bits a part: q times a part is exact). Above, to the largest
// double, Payne and Hanek's reduction in integers (rs_d_reduce_large),
// since a double's distance to the nearest multiple of pi/2 can be as small
// as 2^-61 and the three parts then leave nothing of r.

// The binary fraction of 2/pi, most significant word first (computed from
// Machin's formula for pi in integers; 0xA2F9836E: 2/pi = 0.101000101...).
// A double's m 2^e needs the bits from weight 2^(1 - e) on: 40 words cover
// e up to 971 (the largest double) with an 8-word window.
const uint RS_2OPI_WORDS[40] = uint[40](
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u,
    0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu,
    0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu,
    0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du);
// pi/2 2^126, least significant word first
const uint RS_PIO2_FIX[4] = uint[4](0xC06E0E68u, 0x62633145u, 0x10B4611Au, 0x6487ED51u);

// p = a (na words) b (nb words), little-endian 32-bit words, na + nb <= 10
void rs_d_mul_words(uint a[8], int na, uint b[8], int nb, out uint p[10]) {
    for (int k = 0; k < 10; ++k) p[k] = 0u;
    for (int i = 0; i < na; ++i) {
        uint64_t c = 0UL;
        for (int j = 0; j < nb; ++j) {
            c += uint64_t(a[i]) * uint64_t(b[j]) + uint64_t(p[i + j]);  // < 2^64
            p[i + j] = uint(c);
            c >>= 32;
        }
        p[i + nb] = uint(c);
    }
}

// bits [pos, pos + 32) of p (pos >= 0)
uint rs_d_bits32(uint p[10], int pos) {
    const int w = pos >> 5, sh = pos & 31;
    const uint lo = w < 10 ? p[w] : 0u, hi = w + 1 < 10 ? p[w + 1] : 0u;
    return sh == 0 ? lo : (lo >> sh) | (hi << (32 - sh));
}

// ax >= 2^19, finite: ax = q pi/2 + rh + rl, q mod 4, |rh + rl| <= pi/4.
// ax = m 2^e (m the 53-bit significand); the bits of 2/pi above weight
// 2^(1 - e) make m 2^e 2/pi change by multiples of 4 and are skipped: an
// 8-word window from word i0 on, P = m window, is ax 2/pi mod 4 as a fixed-
// point number with s fraction bits (error below 2^-169). Its top fraction
// bits F (128) times pi/2 in fixed point give r to about 2^-126.
void rs_d_reduce_large(double ax, out int q, out double rh, out double rl) {
    const uint64_t bits = doubleBitsToUint64(ax);
    const uint64_t m = (bits & 0xFFFFFFFFFFFFFUL) | 0x10000000000000UL;
    const int e = int(bits >> 52) - 1075;  // >= -33
    const int i0 = e >= 2 ? (e - 2) >> 5 : 0;
    uint a[8], b[8], p[10];
    for (int k = 0; k < 8; ++k) a[k] = b[k] = 0u;
    a[0] = uint(m);
    a[1] = uint(m >> 32);
    for (int k = 0; k < 8; ++k) b[k] = RS_2OPI_WORDS[i0 + 7 - k];
    rs_d_mul_words(a, 2, b, 8, p);
    const int s = 32 * i0 + 256 - e;  // ax 2/pi = P 2^-s (mod 4)
    q = int(rs_d_bits32(p, s) & 3u);
    uint f[4];
    for (int k = 0; k < 4; ++k) f[k] = rs_d_bits32(p, s - 128 + 32 * k);  // F = fraction 2^128
    const bool neg = (f[3] >> 31) != 0u;
    if (neg) {  // fraction >= 1/2: q + 1, and r = (fraction - 1) pi/2 < 0 (magnitude 2^128 - F)
        q = (q + 1) & 3;
        uint carry = 1u;
        for (int k = 0; k < 4; ++k) {
            const uint v = ~f[k] + carry;
            carry = carry != 0u && v == 0u ? 1u : 0u;
            f[k] = v;
        }
    }
    for (int k = 0; k < 8; ++k) a[k] = b[k] = 0u;
    for (int k = 0; k < 4; ++k) a[k] = f[k], b[k] = RS_PIO2_FIX[k];
    rs_d_mul_words(a, 4, b, 4, p);  // r 2^254
    const uint64_t t1 = (uint64_t(p[7]) << 32) | uint64_t(p[6]);  // r 2^62, integer part
    const uint64_t t0 = (uint64_t(p[5]) << 32) | uint64_t(p[4]);  // the next 64 bits
    // t1 2^-62 + t0 2^-126 as a sum of two doubles: h is t1 rounded (an
    // integer below 2^62, so t1 - h is exact and small)
    const double h = double(t1);
    const int64_t d = int64_t(t1 - uint64_t(h));
    precise double lo = double(d) * 2.168404344971008868e-19LF + double(t0) * 1.175494350822287508e-38LF;
    precise double hi = h * 2.168404344971008868e-19LF;  // 2^-62; above 2^-126
    precise double sum = hi + lo;
    rl = lo - (sum - hi);
    rh = sum;
    if (neg) {
        rh = -rh;
        rl = -rl;
    }
}

// sin and cos of finite x, a few ulp over the whole range
void rs_sincos_d(double x, out double s, out double c) {
    const double ax = abs(x);
    int iq;
    double r, rt = 0.0LF;
    if (ax < 524288.0LF) {
        const double P1 = 1.57079632673412561417e+00LF;
        const double P2 = 6.07710050630396597660e-11LF;
        const double P3 = 2.02226624879595063154e-21LF;
        const double q = floor(ax * 0.63661977236758134308LF + 0.5LF);
        precise double u1 = ax - q * P1;
        precise double u2 = u1 - q * P2;
        precise double rr = u2 - q * P3;  // |r| <= pi/4
        r = rr;
        iq = int(q) & 3;
    } else {
        rs_d_reduce_large(ax, iq, r, rt);
    }
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
    // r's tail, to first order: sin(r + t) = sin r + t cos r, cos(r + t) = cos r - t sin r
    const double sr0 = sr;
    sr = sr + rt * cr;
    cr = cr - rt * sr0;
    if (iq == 0) { s = sr; c = cr; }
    else if (iq == 1) { s = cr; c = -sr; }
    else if (iq == 2) { s = -sr; c = -cr; }
    else { s = -cr; c = sr; }
    if (x < 0.0LF) s = -s;  // sin is odd, cos even
}

#endif
