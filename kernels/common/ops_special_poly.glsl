// ops_special_poly.glsl: torch.special's orthogonal polynomials (Chebyshev
// T/U/V/W and their shifted forms, Hermite H/He, Laguerre L, Legendre P),
// ports of CPU's recurrences (aten/src/ATen/native/Math.h), written once
// for the type T: common/ops_special.glsl includes this file with T float,
// common/ops_math64.glsl with T double (devices with fp64). Each needs
// rs_op_sin, rs_op_cos and rs_op_acos of T, and T_SPLIT (2^ceil(p / 2) + 1
// for T's p-bit significand) and T_BIG (past it, a * T_SPLIT may overflow).
// Every other constant here is a small integer or 0.5, exact in either type.

// a * b + c rounded once (Dekker's exact product, then an exact sum): the
// CPU kernels of the polynomial recurrences are compiled with fma
// contraction of their first product, and their cancellation makes the
// difference visible (GLSL's fma need not be fused)
T rs_m_fma(T a, T b, T c) {
    precise T p = a * b;
    if (isinf(p) || isnan(p) || abs(a) > T_BIG || abs(b) > T_BIG) return p + c;
    precise T ca = T_SPLIT * a;
    precise T ah = ca - (ca - a);
    precise T al = a - ah;
    precise T cb = T_SPLIT * b;
    precise T bh = cb - (cb - b);
    precise T bl = b - bh;
    precise T e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    precise T s = p + c;
    precise T bb = s - p;
    precise T t = (p - (s - bb)) + (c - bb);
    precise T r = s + (t + e);
    return r;
}
// n of the orthogonal polynomials: CPU casts the T n to int64 (NaN, inf
// and out-of-range values give a negative n there, so 0)
int64_t rs_m_poly_n(T n) {
    if (isnan(n) || abs(n) >= T(9.2e18)) return -1L;
    return int64_t(n);
}
T rs_sp_chebyshev_polynomial_t(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(1.0)) {
        if (x > T(0.0) || n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if ((n > 6) && (abs(x) < T(1.0))) {
        return rs_op_cos(T(n) * rs_op_acos(x));
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x;
    }

    T p = T(1.0);
    T q = x;
    T r = x;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_t(T x, int64_t n)

T rs_sp_chebyshev_polynomial_u(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(1.0)) {
        if (x > T(0.0) || n % 2 == 0) {
            return T(n + 1);
        }

        return -T(n + 1);
    }

    if ((n > 8) && (abs(x) < T(1.0))) {
        if (rs_op_sin(rs_op_acos(x)) != T(0.0)) {
            return rs_op_sin(T(n + 1) * rs_op_acos(x)) / rs_op_sin(rs_op_acos(x));
        }

        return T(n + 1) * rs_op_cos(T(n + 1) * rs_op_acos(x)) / x;
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x;
    }

    T p = T(1.0);
    T q = x + x;
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_u(T x, int64_t n)

T rs_sp_chebyshev_polynomial_v(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(1.0)) {
        if (x > T(0.0)) {
            return T(1.0);
        }

        if (n % 2 == 0) {
            return T(n + n + 1);
        }

        return -T(n + n + 1);
    }

    if ((n > 8) && (abs(x) < T(1.0))) {
        if (rs_op_sin(rs_op_acos(x) / T(2.0)) != T(1.0)) {
            return rs_op_cos((T(n) + 0.5) * rs_op_acos(x)) / rs_op_cos(rs_op_acos(x) / T(2.0));
        }

        if (n % 2 == 0) {
            return T(n + n + 1);
        }

        return -T(n + n + 1);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x - T(1.0);
    }

    T p = T(1.0);
    T q = x + x - T(1.0);
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_v(T x, int64_t n)

T rs_sp_chebyshev_polynomial_w(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(1.0)) {
        if (x > T(0.0)) {
            return T(n + n + 1);
        }

        if (n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if ((n > 8) && (abs(x) < T(1.0))) {
        if (rs_op_cos(rs_op_acos(x) / T(2.0)) != T(1.0)) {
            return rs_op_sin((T(n) + 0.5) * rs_op_acos(x)) / rs_op_sin(rs_op_acos(x) / T(2.0));
        }

        if (x > T(0.0)) {
            return T(n + n + 1);
        }

        if (n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x + T(1.0);
    }

    T p = T(1.0);
    T q = x + x + T(1.0);
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x, q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_chebyshev_polynomial_w(T x, int64_t n)

T rs_sp_hermite_polynomial_h(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x;
    }

    if (n > 128) {
        return T(RS_NAN_F);
    }

    T p = T(1.0);
    T q = x + x;
    T r = T(0.0);

    for (int64_t k = 2; k < n + n; k += 2) {
        r = rs_m_fma(x + x, q, -(T(k) * p));
        p = q;
        q = r;
    }

    return r;
} // rs_sp_hermite_polynomial_h(T x, int64_t n)

T rs_sp_hermite_polynomial_he(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x;
    }

    if (n > 128) {
        return T(RS_NAN_F);
    }

    T p = T(1.0);
    T q = x;
    T r;

    for (int64_t k = 1; k < n; k++) {
        r = rs_m_fma(x, q, -(T(k) * p));
        p = q;
        q = r;
    }

    return r;
} // rs_sp_hermite_polynomial_he(T x, int64_t n)

T rs_sp_laguerre_polynomial_l(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(0.0)) {
        return T(1.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return T(1.0) - x;
    }

    T p = T(1.0);
    T q = T(1.0) - x;
    T r;

    for (int64_t k = 1; (k < n) && !isnan(q); k++) {
        r = rs_m_fma(T(k + k) + (1.0 - x), q, -(T(k) * p)) / T(k + 1);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_laguerre_polynomial_l(T x, int64_t n)

T rs_sp_legendre_polynomial_p(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (abs(x) == T(1.0)) {
        if (x > T(0.0) || n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x;
    }

    T p = T(1.0);
    T q = x;
    T r;

    for (int64_t k = 1; (k < n) && !isnan(q); k++) {
        r = rs_m_fma(T(k + k + 1) * x, q, -(T(k) * p)) / T(k + 1);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_legendre_polynomial_p(T x, int64_t n)

T rs_sp_shifted_chebyshev_polynomial_t(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (x == T(1.0)) {
        return T(1.0);
    }

    if (x == T(0.0)) {
        if (n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if ((n > 6) && (abs(x + x - T(1.0)) < T(1.0))) {
        return rs_op_cos(T(n) * rs_op_acos(x + x - T(1.0)));
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x - T(1.0);
    }

    T p = T(1.0);
    T q = x + x - T(1.0);
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - T(1.0) + (x + x - T(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_t(T x, int64_t n)

T rs_sp_shifted_chebyshev_polynomial_u(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (x == T(1.0)) {
        return T(n + 1);
    }

    if (x == T(0.0)) {
        if (n % 2 == 0) {
            return T(n + 1);
        }

        return -T(n + 1);
    }

    if ((n > 6) && (abs(x + x - T(1.0)) < T(1.0))) {
        if (rs_op_sin(rs_op_acos(x + x - T(1.0))) != T(0.0)) {
            return rs_op_sin(T(n + 1) * rs_op_acos(x + x - T(1.0))) / rs_op_sin(rs_op_acos(x + x - T(1.0)));
        }

        return T(n + 1) * rs_op_cos(T(n + 1) * rs_op_acos(x + x - T(1.0))) / (x + x - T(1.0));
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x - T(1.0) + (x + x - T(1.0));
    }

    T p = T(1.0);
    T q = x + x - T(1.0) + (x + x - T(1.0));
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - T(1.0) + (x + x - T(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_u(T x, int64_t n)

T rs_sp_shifted_chebyshev_polynomial_v(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (x == T(1.0)) {
        return T(1.0);
    }

    if (x == T(0.0)) {
        if (n % 2 == 0) {
            return T(n + n + 1);
        }

        return -T(n + n + 1);
    }

    if ((n > 6) && (abs(x + x - T(1.0)) < T(1.0))) {
        if (rs_op_sin(rs_op_acos(x + x - T(1.0)) / T(2.0)) != T(1.0)) {
            return rs_op_cos((T(n) + 0.5) * rs_op_acos(x + x - T(1.0))) / rs_op_cos(rs_op_acos(x + x - T(1.0)) / T(2.0));
        }

        if (n % 2 == 0) {
            return T(n + n + 1);
        }

        return -T(n + n + 1);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x - T(1.0) + (x + x - T(1.0)) - T(1.0);
    }

    T p = T(1.0);
    T q = x + x - T(1.0) + (x + x - T(1.0)) - T(1.0);
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - T(1.0) + (x + x - T(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_v(T x, int64_t n)

T rs_sp_shifted_chebyshev_polynomial_w(T x, int64_t n) {
    if (n < 0) {
        return T(0.0);
    }

    if (x == T(1.0)) {
        return T(n + n + 1);
    }

    if (x == T(0.0)) {
        if (n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if ((n > 4) && (abs(x + x - T(1.0)) < T(1.0))) {
        if (rs_op_cos(rs_op_acos(x + x - T(1.0)) / T(2.0)) != T(1.0)) {
            return rs_op_sin((T(n) + 0.5) * rs_op_acos(x + x - T(1.0))) / rs_op_sin(rs_op_acos(x + x - T(1.0)) / T(2.0));
        }

        if (n % 2 == 0) {
            return T(1.0);
        }

        return T(-1.0);
    }

    if (n == 0) {
        return T(1.0);
    }

    if (n == 1) {
        return x + x - T(1.0) + (x + x - T(1.0)) + T(1.0);
    }

    T p = T(1.0);
    T q = x + x - T(1.0) + (x + x - T(1.0)) + T(1.0);
    T r;

    for (int64_t k = 2; (k <= n) && !isnan(q); k++) {
        r = rs_m_fma(x + x - T(1.0) + (x + x - T(1.0)), q, -p);
        p = q;
        q = r;
    }

    return r;
} // rs_sp_shifted_chebyshev_polynomial_w(T x, int64_t n)
