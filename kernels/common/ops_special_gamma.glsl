// ops_special_gamma.glsl: what Math.h's digamma and trigamma compute alike
// in float and double (calc_digamma's recurrence and asymptotic series
// for positive arguments, trigamma whole), written once for the type T with
// its literals as TL(double literal), as ops_special_bessel.glsl:
// common/ops_special.glsl includes it for float, common/ops_math64.glsl
// for double (fp64 devices). Each type's digamma does its own reflection
// (float's reduces the fraction further, double's is CPU's as written).

// calc_digamma for x > 0: result - 1/x - 1/(x+1) ... until x >= 10, then
// log(x) - 1/(2x) - the asymptotic series (Cephes psi)
T rs_m_digamma_pos(T x, T result) {
    for (int i = 0; i < 10 && x < TL(10.0LF); ++i) {
        result -= TL(1.0LF) / x;
        x += TL(1.0LF);
    }
    if (x == TL(10.0LF)) return result + TL(2.25175258906672110764LF);  // psi(10)
    T y = TL(0.0LF);
    if (x < TL(1.0e17LF)) {
        T z = TL(1.0LF) / (x * x);
        y = z * ((((((TL(8.33333333333333333333E-2LF) * z - TL(2.10927960927960927961E-2LF)) * z +
                     TL(7.57575757575757575758E-3LF)) * z - TL(4.16666666666666666667E-3LF)) * z +
                   TL(3.96825396825396825397E-3LF)) * z - TL(8.33333333333333333333E-3LF)) * z +
                 TL(8.33333333333333333333E-2LF));
    }
    return result + rs_op_log(x) - (TL(0.5LF) / x) - y;
}

// Math.h's trigamma: reflection below 1/2, six terms of the recurrence,
// then the asymptotic series
T rs_op_trigamma(T x) {
    const T PI = TL(3.14159265358979323846264338327950288LF);
    T sgn = TL(1.0LF), result = TL(0.0LF);
    if (x < TL(0.5LF)) {
        sgn = -TL(1.0LF);
        T s = rs_op_sin(PI * x);
        result -= (PI * PI) / (s * s);
        x = TL(1.0LF) - x;
    }
    for (int i = 0; i < 6; ++i) {
        result += TL(1.0LF) / (x * x);
        x += TL(1.0LF);
    }
    T ixx = TL(1.0LF) / (x * x);
    result += (TL(1.0LF) + TL(1.0LF) / (TL(2.0LF) * x) +
               ixx * (TL(1.0LF) / TL(6.0LF) - ixx * (TL(1.0LF) / TL(30.0LF) - ixx * (TL(1.0LF) / TL(42.0LF))))) / x;
    return sgn * result;
}
