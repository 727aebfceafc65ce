// ops_special_inverse.glsl: torch.erfinv and torch.special.ndtri, CPU's
// calc_erfinv and calc_ndtri (aten/src/ATen/native/Math.h; ndtri from the
// Cephes Math Library, see the note [3-Clause BSD License for the Cephes
// Math Library] there), written once for the type T with its literals as
// TL(double literal), as ops_special_bessel.glsl: common/ops_special.glsl
// includes it for float, common/ops_math64.glsl for double (fp64 devices).
// CPU runs the same algorithm and coefficients in each type.

// calc_erfinv: a rational first guess, then two Newton steps
T rs_op_erfinv(T y) {
    T ya = abs(y);
    if (isnan(y) || ya > TL(1.0LF)) return T(RS_NAN_F);
    if (ya == TL(1.0LF)) return rs_m_copysign(T(RS_INF_F), y);
    T x;
    if (ya <= TL(0.7LF)) {
        T z = y * y;
        T num = ((-TL(0.140543331LF) * z + TL(0.914624893LF)) * z - TL(1.645349621LF)) * z + TL(0.886226899LF);
        T dem = (((TL(0.012229801LF) * z - TL(0.329097515LF)) * z + TL(1.442710462LF)) * z - TL(2.118377725LF)) * z +
                TL(1.0LF);
        x = y * num / dem;
    } else {
        T z = sqrt(-rs_op_log((TL(1.0LF) - ya) / TL(2.0LF)));
        T num = ((TL(1.641345311LF) * z + TL(3.429567803LF)) * z - TL(1.624906493LF)) * z - TL(1.970840454LF);
        T dem = (TL(1.637067800LF) * z + TL(3.543889200LF)) * z + TL(1.0LF);
        x = rs_m_copysign(num, y) / dem;
    }
    const T k = TL(1.12837916709551257390LF);  // 2 / sqrt(pi)
    x = x - (rs_erf(x) - y) / (k * rs_op_exp(-x * x));
    x = x - (rs_erf(x) - y) / (k * rs_op_exp(-x * x));
    return x;
}

// Cephes' polevl: c[0] x^n + ... + c[n]
T rs_m_polevl(T x, T c[9], int n) {
    T r = TL(0.0LF);
    for (int i = 0; i <= n; ++i) r = r * x + c[i];
    return r;
}
// calc_ndtri: the normal distribution's quantile
T rs_op_ndtri(T y0) {
    const T P0[9] = T[](-TL(5.99633501014107895267E1LF), TL(9.80010754185999661536E1LF), -TL(5.66762857469070293439E1LF),
                        TL(1.39312609387279679503E1LF), -TL(1.23916583867381258016E0LF), TL(0.0LF),
                        TL(0.0LF), TL(0.0LF), TL(0.0LF));
    const T Q0[9] = T[](TL(1.00000000000000000000E0LF), TL(1.95448858338141759834E0LF), TL(4.67627912898881538453E0LF),
                        TL(8.63602421390890590575E1LF), -TL(2.25462687854119370527E2LF), TL(2.00260212380060660359E2LF),
                        -TL(8.20372256168333339912E1LF), TL(1.59056225126211695515E1LF), -TL(1.18331621121330003142E0LF));
    const T P1[9] = T[](TL(4.05544892305962419923E0LF), TL(3.15251094599893866154E1LF), TL(5.71628192246421288162E1LF),
                        TL(4.40805073893200834700E1LF), TL(1.46849561928858024014E1LF), TL(2.18663306850790267539E0LF),
                        -TL(1.40256079171354495875E-1LF), -TL(3.50424626827848203418E-2LF), -TL(8.57456785154685413611E-4LF));
    const T Q1[9] = T[](TL(1.00000000000000000000E0LF), TL(1.57799883256466749731E1LF), TL(4.53907635128879210584E1LF),
                        TL(4.13172038254672030440E1LF), TL(1.50425385692907503408E1LF), TL(2.50464946208309415979E0LF),
                        -TL(1.42182922854787788574E-1LF), -TL(3.80806407691578277194E-2LF), -TL(9.33259480895457427372E-4LF));
    const T P2[9] = T[](TL(3.23774891776946035970E0LF), TL(6.91522889068984211695E0LF), TL(3.93881025292474443415E0LF),
                        TL(1.33303460815807542389E0LF), TL(2.01485389549179081538E-1LF), TL(1.23716634817820021358E-2LF),
                        TL(3.01581553508235416007E-4LF), TL(2.65806974686737550832E-6LF), TL(6.23974539184983293730E-9LF));
    const T Q2[9] = T[](TL(1.00000000000000000000E0LF), TL(6.02427039364742014255E0LF), TL(3.67983563856160859403E0LF),
                        TL(1.37702099489081330271E0LF), TL(2.16236993594496635890E-1LF), TL(1.34204006088543189037E-2LF),
                        TL(3.28014464682127739104E-4LF), TL(2.89247864745380683936E-6LF), TL(6.79019408009981274425E-9LF));
    if (y0 == TL(0.0LF)) return -T(RS_INF_F);
    if (y0 == TL(1.0LF)) return T(RS_INF_F);
    if (isnan(y0) || y0 < TL(0.0LF) || y0 > TL(1.0LF)) return T(RS_NAN_F);
    bool code = true;
    T y = y0;
    if (y > TL(1.0LF) - TL(0.13533528323661269189LF)) {  // exp(-2)
        y = TL(1.0LF) - y;
        code = false;
    }
    if (y > TL(0.13533528323661269189LF)) {
        y = y - TL(0.5LF);
        T y2 = y * y;
        T x = y + y * (y2 * rs_m_polevl(y2, P0, 4) / rs_m_polevl(y2, Q0, 8));
        return x * TL(2.50662827463100050242LF);
    }
    T x = sqrt(-TL(2.0LF) * rs_op_log(y));
    T x0 = x - rs_op_log(x) / x;
    T z = TL(1.0LF) / x;
    T x1 = x < TL(8.0LF) ? z * rs_m_polevl(z, P1, 8) / rs_m_polevl(z, Q1, 8)
                         : z * rs_m_polevl(z, P2, 8) / rs_m_polevl(z, Q2, 8);
    x = x0 - x1;
    return code ? -x : x;
}
