// linalg.comp: LAPACK's unblocked factorizations and the solves built on
// them, over a batch of matrices (src/engine/linalg.c; contract in
// russet/linalg.h). Every view is read and written through its strides.
//
// MODE 0, 1 and 4 factor a matrix a workgroup (looping over the batch).
// Invocation t owns part of the matrix (MODE 1 and 4: the columns c = t,
// t + NT, ...; MODE 0: elements of the triangle, in registers) and is the
// only one that reads or writes it in global memory, so no global-memory
// coherence is needed between invocations: what a step hands on (a pivot,
// a scaled column, a reflector) goes through shared memory between
// barriers. MODE 12 and 2 follow the same rule with rows and elements.
//
// MODE 0 (n <= LA_BLOCK) Cholesky (right-looking potf2) of the lower triangle of a (read
//   conjugated with LA_F_CONJ) into out: the lower factor, zeros above.
//   d_j = re(a_jj) - sum_k |l_jk|^2; a matrix whose d_j is not > 0 (or NaN)
//   gets info = j + 1 and, as LAPACK's potf2 leaves it, d_j on the diagonal
//   and a's values in column j and the ones after it.
// MODE 1 LU with partial pivoting (getf2) of a in place: the pivot of column
//   j is the first row of the largest |re| + |im| at or below j (isamax /
//   izamax: a NaN never wins a comparison); whole rows swap; a non-zero
//   pivot divides the column below it; the trailing block takes the rank-1
//   update. piv is 1-based, info the first zero pivot's column + 1.
// MODE 4 QR by Householder reflections (geqr2) of a in place, tau: for
//   column j the reflector of x = a[j:, j] as dlarfg makes it (beta =
//   -sign(re alpha) ||x||, tau = (beta - alpha) / beta, v = [1, x[1:] /
//   (alpha - beta)]; tau = 0 when x[1:] is zero and alpha real), beta on
//   the diagonal, v below it, H^H = I - conj(tau) v v^H applied to the
//   columns on the right.
//
// MODE 2 (m <= LA_BLOCK) the triangular solve A X = B (A lower, or upper with LA_F_UPPER;
//   its diagonal ones with LA_F_UNIT; only its triangle is read, as trsm
//   reads it), X over B in out, by substitution: a workgroup a block of
//   X's columns, an element an invocation.
// MODE 3 and 5 take one column of the result an invocation (no
// cooperation): items P K, grid-stride.
// MODE 3 row interchanges of out by piv: rows j and piv[j] - 1 - LA_J0 for
//   j ascending (P^T B), or descending with LA_F_INVERSE (P B); with
//   LA_F_LATER_BLOCKS column c only from step (c / LA_BLOCK + 1) LA_BLOCK.
// MODE 12 getf2 on a panel of at most LA_BLOCK columns and any rows, a
//   workgroup a matrix, its rows (not columns) dealt to the invocations:
//   the blocked LU's panels (src/engine/linalg.c, lu_blocked).
// The blocked drivers factor a block at a time: MODE 0 and 12 then add
// LA_J0 to the info (and pivots) they write, and with LA_F_INFO_KEEP leave
// an earlier block's nonzero info.
// MODE 5 Q = H_0 H_1 ... H_{R-1} applied to the first K columns of the
//   identity (org2r), from the reflectors below a's diagonal and tau.
//
// MODE 9 a determinant an invocation, from the LU in a and piv: the
//   product of U's diagonal, negated for an odd count of rows swapped (a
//   pivot not its own row) into res; with LA_F_LOG the sign (the product
//   of u_jj / |u_jj|, of sgn(u_jj) for a real dtype, so negated; 0 for a
//   singular matrix) into res and sum log |u_jj| into tau (the real dtype).
//
// MODE 6, 7 and 8 are one round of a cyclic Jacobi sweep: the n / 2
// disjoint pairs (p, q) of round pc.round (round robin over an even n:
// index 0 stays, the others turn by one a round), a workgroup a (matrix,
// pair). The rotation of a pair with diagonal entries (or squared norms)
// a, b and coupling gamma zeroes the coupling: t = sign(zeta) / (|zeta| +
// sqrt(1 + zeta^2)), zeta = (b - a) / 2|gamma|, c = 1 / sqrt(1 + t^2),
// s = c t, phase = gamma / |gamma|; a coupling below 2^-26 sqrt(|a| |b|),
// or 1e-30, is left alone (c = 1, s = t = 0).
// MODE 6 one-sided (Hestenes) on the columns of a: a = |p|^2, b = |q|^2,
//   gamma = p^H q (a workgroup reduction), then p, q <- c p - s q',
//   s p + c q' with q' = q conj(phase).
// MODE 7 two-sided on Hermitian a (n x n, both triangles): a = re(a_pp),
//   b = re(a_qq), gamma = a_pq; the columns p, q rotated as in MODE 6; the
//   rotation kept in tau for MODE 8.
// MODE 8 the rows p, q rotated likewise (q' = q phase), then the pair's
//   2 x 2 block set to what the rotation makes exactly (Rutishauser:
//   a - t|gamma|, b + t|gamma|, zero coupling), each diagonal entry kept in
//   info as its sweep's base and the corrections' sum since.
// With LA_F_VECS, MODE 6 and 7 turn the columns p, q of V (res, n x n) as
//   they turn a's (V <- V J), so that V accumulates the rotations: the
//   right singular vectors (6) or the eigenvectors (7).
// MODE 10 column c < K of Q (res, m rows) times the phase r / |r| (1 for
//   r = 0) of the diagonal entry (c, c) of a (R, as MODE 4 leaves it): the
//   left singular vectors from the QR of the sorted orthogonal columns.
// MODE 11 a workgroup a matrix: a (m x n) multiplied in place by the power
//   of two f that takes its largest |element| into [0.5, 1) (1 for a zero
//   matrix), f into tau (a real a matrix): one-sided Jacobi's squared
//   norms neither underflow nor overflow float32 (rs_svd divides the values
//   by f).
//
// Defines: DT (float32, complex64; float64 and complex128 where the device
// has fp64 arithmetic), MODE, NT (invocations a workgroup), MMAX (MODE 1
// and 4: the rows the shared column holds; MODE 0: the triangle's rows,
// 16, 32 or 64).
#version 460
#include "common/dtype.glsl"
#include "params/linalg.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = NT) in;

layout(push_constant) uniform Push { RS_LINALG_PUSH } pc;
#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define T_DT 3  // int32 pivots and info
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define CM_DT DT
#include "common/ops.glsl"  // rs_cdiv (c10's complex division), rs_sqrt_cr

#define ACC RS_OPMT(DT)
#if RS_IS_DBL(DT) || RS_IS_CD(DT)
#define REAL double
#else
#define REAL float
#endif

ACC ld(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }

// A product rounded to the dtype before anything adds it. GPU compilers fuse
// a * b - c into one fma (one rounding) even where the SPIR-V says
// NoContraction (NVIDIA: tests/c/test_runtime.c's no_contraction), and that
// breaks the exact cancellations LAPACK's results have (a singular matrix's
// zero pivot, its determinant 0). An XOR with a zero the compiler cannot see
// keeps the product a rounded float. sqrt is rounded once (Vulkan lets it be
// off by ulps; NVIDIA's is), as LAPACK's is: Jacobi's rotations are built
// from it, and c^2 + s^2 off by an ulp drifts the norms over many rounds.
REAL rnd(REAL v) { return rs_rounded(v, pc.opaque_zero); }
#if RS_IS_DBL(DT) || RS_IS_CD(DT)
REAL sqrt_cr(REAL x) { return sqrt(x); }
#else
REAL sqrt_cr(REAL x) { return rs_sqrt_cr(x); }
#endif

#if RS_IS_COMPLEX(DT)
ACC mul(ACC x, ACC y) { return ACC(rnd(x.x * y.x) - rnd(x.y * y.y), rnd(x.x * y.y) + rnd(x.y * y.x)); }
ACC scale(ACC x, REAL r) { return ACC(rnd(x.x * r), rnd(x.y * r)); }
ACC dv(ACC x, ACC y) { return rs_cdiv(x, y); }
ACC cj(ACC x) { return ACC(x.x, -x.y); }
REAL re(ACC x) { return x.x; }
REAL im(ACC x) { return x.y; }
REAL mag1(ACC x) { return abs(x.x) + abs(x.y); }  // izamax's |re| + |im|
REAL sq(ACC x) { return rnd(x.x * x.x) + rnd(x.y * x.y); }
ACC of_real(REAL r) { return ACC(r, REAL(0)); }
bool is_zero(ACC x) { return x.x == REAL(0) && x.y == REAL(0); }
#else
ACC mul(ACC x, ACC y) { return rnd(x * y); }
ACC scale(ACC x, REAL r) { return rnd(x * r); }
ACC dv(ACC x, ACC y) { return x / y; }
ACC cj(ACC x) { return x; }
REAL re(ACC x) { return x; }
REAL im(ACC x) { return REAL(0); }
REAL mag1(ACC x) { return abs(x); }
REAL sq(ACC x) { return rnd(x * x); }
ACC of_real(REAL r) { return r; }
bool is_zero(ACC x) { return x == REAL(0); }
#endif

#if RS_IS_CF(DT)
void st(uint64_t base, int64_t off, ACC v) { RS_SET_CF(DT)(base, off, v); }
#elif RS_IS_CD(DT)
void st(uint64_t base, int64_t off, ACC v) {
    RS_SET_CD(DT)(base, off, u64vec2(doubleBitsToUint64(v.x), doubleBitsToUint64(v.y)));
}
#elif RS_IS_DBL(DT)
void st(uint64_t base, int64_t off, ACC v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
void st(uint64_t base, int64_t off, ACC v) { RS_SET_F(DT)(base, off, v); }
#endif

// The LA_ slots, read once at the start (read_slots): cp() read from
// memory each time could not be hoisted above a store (the buffers might
// alias), so every address computed after one waited on a fresh load
int64_t slots[LA_SLOTS];
void read_slots() {
    [[unroll]] for (int i = 0; i < LA_SLOTS; ++i) slots[i] = RsI64(pc.params + 8UL * uint64_t(i)).v;
}
int64_t cp(int slot) { return slots[slot]; }
bool flag(uint f) { return (pc.flags & f) != 0u; }
// Elements loaded at once before any is stored back (MODE 4 and 12): the
// compiler keeps a load after a store that may alias it, so a plain
// load-update-store loop paid a memory latency an element
const int LA_CHUNK = 8;

// element (i, j) of matrix p of a (read conjugated with LA_F_CONJ) and of out
ACC a_at(int64_t p, int64_t i, int64_t j) {
    ACC v = ld(pc.a, p * cp(LA_A_ST) + i * cp(LA_A_ST + 1) + j * cp(LA_A_ST + 2));
    return flag(LA_F_CONJ) ? cj(v) : v;
}
int64_t a_off(int64_t p, int64_t i, int64_t j) {
    return p * cp(LA_A_ST) + i * cp(LA_A_ST + 1) + j * cp(LA_A_ST + 2);
}
int64_t o_off(int64_t p, int64_t i, int64_t j) {
    return p * cp(LA_OUT_ST) + i * cp(LA_OUT_ST + 1) + j * cp(LA_OUT_ST + 2);
}
void set_i32(uint64_t base, int64_t off, int64_t v) { RS_SET_I(3)(base, off, uint64_t(v)); }
// matrix p's info: a block's first failed column (+ 1, 0 for none) offset
// by the block's place; with LA_F_INFO_KEEP an earlier block's stays
void put_info(int64_t p, int64_t local) {
    const int64_t off = p * cp(LA_INFO_ST);
    if (flag(LA_F_INFO_KEEP) && RS_LDO(3)(pc.info, off) != 0) return;
    set_i32(pc.info, off, local == 0 ? 0 : local + cp(LA_J0));
}

// |x| as c10's abs (hypot for complex)
REAL absv(ACC x) {
#if RS_IS_COMPLEX(DT)
    REAL ax = abs(x.x), ay = abs(x.y), hi = max(ax, ay), lo = min(ax, ay);
    if (hi == REAL(0) || isinf(hi)) return hi;
    REAL r = lo / hi;
    return hi * sqrt_cr(REAL(1) + rnd(r * r));
#else
    return abs(x);
#endif
}

// a real (REAL) at a byte address: the rotations (MODE 7, 8), the
// diagonal's corrections (8), the scale factors (11), log |det| (9)
const uint64_t REAL_SIZE = uint64_t(RS_SIZE(DT) / (RS_IS_COMPLEX(DT) ? 2 : 1));
#if RS_IS_DBL(DT) || RS_IS_CD(DT)
void st_real_at(uint64_t addr, REAL v) { RsU64(addr).v = doubleBitsToUint64(v); }
REAL ld_real_at(uint64_t addr) { return uint64BitsToDouble(RsU64(addr).v); }
#else
void st_real_at(uint64_t addr, REAL v) { RsU32(addr).v = floatBitsToUint(v); }
REAL ld_real_at(uint64_t addr) { return uintBitsToFloat(RsU32(addr).v); }
#endif

#if MODE == 6 || MODE == 7 || MODE == 8
// the pair k of round r over n (even) indices: (ring[k], ring[n - 1 - k]),
// ring[0] = 0 and ring[i] = (i - 1 - r) mod (n - 1) + 1 after r turns
int64_t ring(int64_t i, int64_t r, int64_t n) { return i == 0L ? 0L : (i - 1L - r % (n - 1L) + (n - 1L)) % (n - 1L) + 1L; }

struct Rotation { REAL t, c, s, tau; ACC ph; };
Rotation rotation(REAL a, REAL b, ACC gamma, REAL g) {
    Rotation o;
    REAL thr = max(sqrt(abs(a)) * sqrt(abs(b)) * REAL(1.4901161193847656e-8), REAL(1e-30));
    if (!(g > thr)) {
        o.t = REAL(0), o.c = REAL(1), o.s = REAL(0), o.tau = REAL(0), o.ph = of_real(REAL(1));
        return o;
    }
    REAL zeta = (b - a) / (g * REAL(2));
    o.t = (zeta >= REAL(0) ? REAL(1) : REAL(-1)) / (abs(zeta) + sqrt_cr(rnd(zeta * zeta) + REAL(1)));
    o.c = REAL(1) / sqrt_cr(rnd(o.t * o.t) + REAL(1));
    o.s = o.c * o.t;
    o.tau = o.s / (REAL(1) + o.c);
    o.ph = dv(gamma, of_real(g));
    return o;
}
// (x, y) <- (c x - s y, s x + c y), written as x - s (y + tau x) and
// y + s (x - tau y), tau = s / (1 + c) (Rutishauser's form): c rounds to 1
// where t^2 is below float32's epsilon, and c x - s y then grows |x|^2 +
// |y|^2 by t^2 a rotation; over the thousands of rotations of the sweeps
// at n = 128 the columns' norms (the singular values, V's columns) drifted
// by 2e-5 that way
void rotate(inout ACC x, inout ACC y, Rotation o) {
    const ACC nx = x - scale(y + scale(x, o.tau), o.s);
    y = y + scale(x - scale(y, o.tau), o.s);
    x = nx;
}

// V <- V J on columns i, j (LA_F_VECS): the rows of V shared out over the
// workgroup, as the callers turn a's columns
void rotate_v(int64_t p, int64_t i, int64_t j, Rotation o, uint lid) {
    if (!flag(LA_F_VECS)) return;
    for (int64_t row = int64_t(lid); row < cp(LA_N); row += NT) {
        ACC x = ld(pc.res, o_off(p, row, i)), y = mul(ld(pc.res, o_off(p, row, j)), cj(o.ph));
        rotate(x, y, o);
        st(pc.res, o_off(p, row, i), x);
        st(pc.res, o_off(p, row, j), y);
    }
}
#endif

#if MODE == 6
shared REAL red_a[NT], red_b[NT];
shared ACC red_g[NT];

void main() {
    read_slots();
    const int64_t P = cp(LA_P), m = cp(LA_M), n = cp(LA_N), r = int64_t(pc.round), h = n / 2;
    const uint lid = gl_LocalInvocationID.x;
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < P * h; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t p = w / h, k = w % h, i = ring(k, r, n), j = ring(n - 1 - k, r, n);
        REAL sa = REAL(0), sb = REAL(0);
        ACC sg = ACC(0);
        for (int64_t row = int64_t(lid); row < m; row += NT) {
            ACC x = ld(pc.a, a_off(p, row, i)), y = ld(pc.a, a_off(p, row, j));
            sa += sq(x), sb += sq(y), sg += mul(cj(x), y);
        }
        red_a[lid] = sa, red_b[lid] = sb, red_g[lid] = sg;
        barrier();
        for (uint hw = NT / 2u; hw > 0u; hw >>= 1) {
            if (lid < hw) {
                red_a[lid] += red_a[lid + hw], red_b[lid] += red_b[lid + hw], red_g[lid] += red_g[lid + hw];
            }
            barrier();
        }
        const ACC gamma = red_g[0];
        const Rotation o = rotation(red_a[0], red_b[0], gamma, absv(gamma));
        barrier();  // red_ is rewritten by the next pair
        for (int64_t row = int64_t(lid); row < m; row += NT) {
            ACC x = ld(pc.a, a_off(p, row, i)), y = mul(ld(pc.a, a_off(p, row, j)), cj(o.ph));
            rotate(x, y, o);
            st(pc.a, a_off(p, row, i), x);
            st(pc.a, a_off(p, row, j), y);
        }
        rotate_v(p, i, j, o, lid);
    }
}

#elif MODE == 7 || MODE == 8
uint64_t rot_addr(int64_t pair, int slot) { return pc.tau + uint64_t(pair * LA_ROT_SLOTS + slot) * REAL_SIZE; }
void st_real(int64_t pair, int slot, REAL v) { st_real_at(rot_addr(pair, slot), v); }
REAL ld_real(int64_t pair, int slot) { return ld_real_at(rot_addr(pair, slot)); }
// the diagonal entry (p, i) as a sweep's base and the sum of its corrections
// since (pc.info: (P, n, 2) reals)
uint64_t diag_addr(int64_t p, int64_t i, int slot) { return pc.info + uint64_t((p * cp(LA_N) + i) * 2 + slot) * REAL_SIZE; }

void main() {
    read_slots();
    const int64_t P = cp(LA_P), n = cp(LA_N), r = int64_t(pc.round), h = n / 2;
    const uint lid = gl_LocalInvocationID.x;
    for (int64_t w = int64_t(gl_WorkGroupID.x); w < P * h; w += int64_t(gl_NumWorkGroups.x)) {
        const int64_t p = w / h, k = w % h, i = ring(k, r, n), j = ring(n - 1 - k, r, n);
#if MODE == 7
        const REAL a = re(ld(pc.a, a_off(p, i, i))), b = re(ld(pc.a, a_off(p, j, j)));
        const ACC gamma = ld(pc.a, a_off(p, i, j));
        barrier();  // every invocation has read them before the rotation changes them
        const REAL g = absv(gamma);
        const Rotation o = rotation(a, b, gamma, g);
        if (lid == 0u) {
            st_real(w, LA_ROT_T, o.t), st_real(w, LA_ROT_C, o.c), st_real(w, LA_ROT_S, o.s);
            st_real(w, LA_ROT_PH, re(o.ph)), st_real(w, LA_ROT_PH + 1, im(o.ph));
            st_real(w, LA_ROT_A, a), st_real(w, LA_ROT_B, b), st_real(w, LA_ROT_G, g);
        }
        // H J: column q turned by conj(phase) first. The pair's 2 x 2 block is
        // left to MODE 8, which sets it: no element is read by one invocation and
        // written by another in a dispatch (no global-memory coherence asked)
        for (int64_t row = int64_t(lid); row < n; row += NT) {
            if (row == i || row == j) continue;
            ACC x = ld(pc.a, a_off(p, row, i)), y = mul(ld(pc.a, a_off(p, row, j)), cj(o.ph));
            rotate(x, y, o);
            st(pc.a, a_off(p, row, i), x);
            st(pc.a, a_off(p, row, j), y);
        }
        rotate_v(p, i, j, o, lid);
        barrier();
#else
        Rotation o;
        o.t = ld_real(w, LA_ROT_T), o.c = ld_real(w, LA_ROT_C), o.s = ld_real(w, LA_ROT_S);
        o.tau = o.s / (REAL(1) + o.c);
#if RS_IS_COMPLEX(DT)
        o.ph = ACC(ld_real(w, LA_ROT_PH), ld_real(w, LA_ROT_PH + 1));
#else
        o.ph = ld_real(w, LA_ROT_PH);
#endif
        for (int64_t col = int64_t(lid); col < n; col += NT) {  // J^H (H J): row q turned by phase first
            if (col == i || col == j) continue;  // the block: below
            ACC x = ld(pc.a, a_off(p, i, col)), y = mul(ld(pc.a, a_off(p, j, col)), o.ph);
            rotate(x, y, o);
            st(pc.a, a_off(p, i, col), x);
            st(pc.a, a_off(p, j, col), y);
        }
        if (lid == 0u) {  // the pair's block as the rotation makes it exactly
            // (Rutishauser: a - t|gamma|, b + t|gamma|, the corrections summed
            // apart from the sweep's base and folded into it at its last round,
            // so that the diagonal takes a rounding a sweep, not a round)
            const REAL tg = rnd(o.t * ld_real(w, LA_ROT_G));
            REAL bi = ld_real_at(diag_addr(p, i, 0)), bj = ld_real_at(diag_addr(p, j, 0));
            REAL zi = ld_real_at(diag_addr(p, i, 1)) - tg, zj = ld_real_at(diag_addr(p, j, 1)) + tg;
            if (r == n - 2L) {
                bi += zi, bj += zj, zi = REAL(0), zj = REAL(0);
                st_real_at(diag_addr(p, i, 0), bi), st_real_at(diag_addr(p, j, 0), bj);
            }
            st_real_at(diag_addr(p, i, 1), zi), st_real_at(diag_addr(p, j, 1), zj);
            st(pc.a, a_off(p, i, i), of_real(bi + zi));
            st(pc.a, a_off(p, j, j), of_real(bj + zj));
            st(pc.a, a_off(p, i, j), ACC(0));
            st(pc.a, a_off(p, j, i), ACC(0));
        }
        barrier();
#endif
    }
}

#elif MODE == 11
shared REAL red_m[NT];

void main() {
    read_slots();
    const int64_t P = cp(LA_P), m = cp(LA_M), n = cp(LA_N), mn = m * n;
    const uint lid = gl_LocalInvocationID.x;
    for (int64_t p = int64_t(gl_WorkGroupID.x); p < P; p += int64_t(gl_NumWorkGroups.x)) {
        REAL mx = REAL(0);
        for (int64_t e = int64_t(lid); e < mn; e += NT) mx = max(mx, absv(ld(pc.a, a_off(p, e / n, e % n))));
        red_m[lid] = mx;
        barrier();
        for (uint hw = NT / 2u; hw > 0u; hw >>= 1) {
            if (lid < hw) red_m[lid] = max(red_m[lid], red_m[lid + hw]);
            barrier();
        }
        int ex;
        frexp(red_m[0], ex);
        const REAL f = red_m[0] > REAL(0) && !isinf(red_m[0]) ? ldexp(REAL(1), -ex) : REAL(1);
        barrier();  // red_m is rewritten by the next matrix
        for (int64_t e = int64_t(lid); e < mn; e += NT) {
            const int64_t off = a_off(p, e / n, e % n);
            st(pc.a, off, scale(ld(pc.a, off), f));
        }
        if (lid == 0u) st_real_at(pc.tau + uint64_t(p) * REAL_SIZE, f);
    }
}

#elif MODE == 12
// getf2 on a panel of at most LA_BLOCK columns, its rows dealt round-robin:
// invocation t owns the rows i = t, t + NT, ... and is the only one that
// reads or writes them in global memory (so any m, and no global-memory
// coherence between invocations); the pivot search is a reduction and the
// swapped rows go through shared memory. Pivots and info as MODE 1's,
// offset by LA_J0.
shared REAL red_v[NT];
shared int64_t red_i[NT];
shared ACC row_j[LA_BLOCK], row_r[LA_BLOCK];  // rows j and r (the pivot's) before the swap
shared bool sh_flag;  // row j's magnitude is NaN

void main() {
    read_slots();
    const int64_t P = cp(LA_P), m = cp(LA_M), n = cp(LA_N), k = cp(LA_K);
    const uint lid = gl_LocalInvocationID.x;
    const int64_t t = int64_t(lid);
    for (int64_t p = int64_t(gl_WorkGroupID.x); p < P; p += int64_t(gl_NumWorkGroups.x)) {
        int64_t info = 0;
        for (int64_t j = 0; j < k; ++j) {
            // isamax over rows j.. as a reduction: the first largest |re| +
            // |im|; a NaN never wins, but row j's own NaN stays the pivot (the
            // scan starts from it and nothing compares above a NaN)
            REAL best = REAL(-2);
            int64_t bi = m;
            for (int64_t i = j + (t - j % NT + NT) % NT; i < m; i += NT) {
                REAL v = mag1(ld(pc.a, a_off(p, i, j)));
                if (i == j) sh_flag = isnan(v);
                if (isnan(v)) v = REAL(-1);
                if (v > best) best = v, bi = i;
            }
            red_v[lid] = best, red_i[lid] = bi;
            barrier();
            for (uint hw = NT / 2u; hw > 0u; hw >>= 1) {
                if (lid < hw) {
                    const REAL ov = red_v[lid + hw];
                    const int64_t oi = red_i[lid + hw];
                    if (ov > red_v[lid] || (ov == red_v[lid] && oi < red_i[lid])) red_v[lid] = ov, red_i[lid] = oi;
                }
                barrier();
            }
            const int64_t r = sh_flag ? j : red_i[0];
            if (j % NT == t)
                for (int64_t c = 0; c < n; ++c) row_j[int(c)] = ld(pc.a, a_off(p, j, c));
            if (r % NT == t)
                for (int64_t c = 0; c < n; ++c) row_r[int(c)] = ld(pc.a, a_off(p, r, c));
            barrier();
            if (r != j) {
                if (j % NT == t)
                    for (int64_t c = 0; c < n; ++c) st(pc.a, a_off(p, j, c), row_r[int(c)]);
                if (r % NT == t)
                    for (int64_t c = 0; c < n; ++c) st(pc.a, a_off(p, r, c), row_j[int(c)]);
            }
            if (t == 0) set_i32(pc.piv, p * cp(LA_PIV_ST) + j * cp(LA_PIV_ST + 1), r + 1 + cp(LA_J0));
            const ACC pivot = row_r[int(j)];
            const bool zero = is_zero(pivot);
            if (zero && info == 0) info = j + 1;
            // the rows below j (row r now holds row j's values): scaled
            // column j, then the rank-1 update of the panel's columns after j
            // (LA_CHUNK columns loaded together, then updated and stored: a
            // memory latency a column was about 2 ms a panel on an H100; a
            // register array of the whole row was slower still, 36 -> 86 ms
            // for the 1024 LU)
            for (int64_t i = j + 1 + (t - (j + 1) % NT + NT) % NT; i < m; i += NT) {
                ACC l = ld(pc.a, a_off(p, i, j));
                if (!zero) l = dv(l, pivot);
                st(pc.a, a_off(p, i, j), l);
                for (int64_t c0 = j + 1; c0 < n; c0 += LA_CHUNK) {
                    ACC v[LA_CHUNK];
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u)
                        v[u] = c0 + u < n ? ld(pc.a, a_off(p, i, c0 + u)) : ACC(0);
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u)
                        if (c0 + u < n) st(pc.a, a_off(p, i, c0 + u), v[u] - mul(l, row_r[int(c0) + u]));
                }
            }
            barrier();  // red_ and row_ are rewritten by the next column
        }
        if (t == 0) put_info(p, info);
    }
}

#elif MODE == 0
// potf2 on n <= MMAX (16, 32 or 64) columns: the lower triangle's elements
// dealt to the invocations and held in registers (element e = t + q NT of
// the triangle packed column by column; a static index q each, so no
// global memory inside the loop: holding a column an invocation, 64
// invocations for a 64 x 64 block, took 0.63 ms a block on an H100). Step
// j: the diagonal's owner takes its square root (or records the failure),
// column j's owners divide by it and publish the column in shared memory,
// every element right of column j takes the rank-1 update. The column is
// double-buffered, so step j + 1 publishing never races step j's reads.
const int QMAX = (MMAX * (MMAX + 1) / 2 + NT - 1) / NT;
shared ACC col2[2][MMAX];
shared REAL sh_ljj;       // l_jj
shared int sh_fail;       // the failed column (n: none)
shared REAL sh_real;      // d_j of the failed column

void main() {
    read_slots();
    const int64_t P = cp(LA_P);
    const int n = int(cp(LA_N)), t = int(gl_LocalInvocationID.x);
    // element q's row and column (row -1: past the triangle); column c's
    // elements start at c n - c (c - 1) / 2
    int ri[QMAX], ci[QMAX];
    [[unroll]] for (int q = 0; q < QMAX; ++q) {
        const int e = t + q * NT;
        int c = 0;
        while (c < n && e >= (c + 1) * n - (c + 1) * c / 2) ++c;
        ci[q] = c, ri[q] = c < n ? e - (c * n - c * (c - 1) / 2) + c : -1;
    }
    for (int64_t p = int64_t(gl_WorkGroupID.x); p < P; p += int64_t(gl_NumWorkGroups.x)) {
        ACC v[QMAX];
        [[unroll]] for (int q = 0; q < QMAX; ++q) v[q] = ri[q] >= 0 ? a_at(p, ri[q], ci[q]) : ACC(0);
        if (t == 0) sh_fail = n;
        barrier();
        for (int j = 0; j < n; ++j) {
            [[unroll]] for (int q = 0; q < QMAX; ++q) {
                if (ri[q] != j || ci[q] != j) continue;
                const REAL d = re(v[q]);
                if (!(d > REAL(0))) {
                    sh_fail = j;
                    sh_real = d;
                } else {
                    sh_ljj = sqrt_cr(d);
                    v[q] = of_real(sh_ljj);
                }
            }
            barrier();
            if (sh_fail < n) break;
            const int b = j & 1;
            const ACC ljj = of_real(sh_ljj);
            [[unroll]] for (int q = 0; q < QMAX; ++q) {
                if (ci[q] != j || ri[q] <= j) continue;
                v[q] = dv(v[q], ljj);
                col2[b][ri[q]] = v[q];
            }
            barrier();
            [[unroll]] for (int q = 0; q < QMAX; ++q)
                if (ci[q] > j && ci[q] < n) v[q] = v[q] - mul(col2[b][ri[q]], cj(col2[b][ci[q]]));
        }
        // the factor, zeros above it; at a failure potf2's state: a's values
        // from column f on, d_f on its diagonal
        const int f = sh_fail;
        [[unroll]] for (int q = 0; q < QMAX; ++q) {
            const int i = ri[q], c = ci[q];
            if (i < 0) continue;
            const ACC o = f == n || c < f ? v[q] : i == f && c == f ? of_real(sh_real) : a_at(p, i, c);
            st(pc.res, o_off(p, i, c), o);
        }
        for (int e = t; e < n * n; e += NT)
            if (e / n < e % n) st(pc.res, o_off(p, e / n, e % n), ACC(0));
        if (t == 0) put_info(p, f < n ? f + 1 : 0);
        barrier();  // sh_fail is reset for the next matrix
    }
}

#elif MODE == 1 || MODE == 4
shared ACC col[MMAX];  // the column step j hands on (rows j + 1 .. m - 1)
shared ACC sh_scalar;  // MODE 4: conj(tau_j)
shared int64_t sh_index;  // MODE 1: the pivot row
shared bool sh_flag;      // MODE 1: the pivot is zero

void main() {
    read_slots();
    const int64_t P = cp(LA_P), m = cp(LA_M), n = cp(LA_N), k = cp(LA_K);
    const int64_t t = int64_t(gl_LocalInvocationID.x);
    for (int64_t p = int64_t(gl_WorkGroupID.x); p < P; p += int64_t(gl_NumWorkGroups.x)) {
#if MODE == 1
        int64_t info = 0;  // invocation 0's
        for (int64_t j = 0; j < k; ++j) {
            if (j % NT == t) {  // isamax over rows j.. of column j
                int64_t best = j;
                REAL bmag = mag1(ld(pc.a, a_off(p, j, j)));
                for (int64_t i = j + 1; i < m; ++i) {
                    REAL v = mag1(ld(pc.a, a_off(p, i, j)));
                    if (v > bmag) {
                        bmag = v;
                        best = i;
                    }
                }
                sh_index = best;
            }
            barrier();
            const int64_t r = sh_index;
            if (t == 0) set_i32(pc.piv, p * cp(LA_PIV_ST) + j * cp(LA_PIV_ST + 1), r + 1);
            if (r != j) {
                for (int64_t c = t; c < n; c += NT) {
                    ACC x = ld(pc.a, a_off(p, j, c)), y = ld(pc.a, a_off(p, r, c));
                    st(pc.a, a_off(p, j, c), y);
                    st(pc.a, a_off(p, r, c), x);
                }
            }
            if (j % NT == t) {
                ACC pivot = ld(pc.a, a_off(p, j, j));
                bool zero = is_zero(pivot);
                for (int64_t i = j + 1; i < m; ++i) {
                    ACC v = ld(pc.a, a_off(p, i, j));
                    if (!zero) {
                        v = dv(v, pivot);
                        st(pc.a, a_off(p, i, j), v);
                    }
                    col[int(i)] = v;
                }
                sh_flag = zero;
            }
            barrier();
            if (t == 0 && info == 0 && sh_flag) info = j + 1;
            for (int64_t c = j + 1 + (t - (j + 1) % NT + NT) % NT; c < n; c += NT) {
                ACC ujc = ld(pc.a, a_off(p, j, c));
                for (int64_t i = j + 1; i < m; ++i)
                    st(pc.a, a_off(p, i, c), ld(pc.a, a_off(p, i, c)) - mul(col[int(i)], ujc));
            }
            barrier();
        }
        if (t == 0) put_info(p, info);
#else  // MODE 4
        for (int64_t j = 0; j < k; ++j) {
            if (j % NT == t) {  // the reflector of column j
                ACC alpha = ld(pc.a, a_off(p, j, j));
                REAL xnorm2 = REAL(0);
                for (int64_t i = j + 1; i < m; ++i) xnorm2 += sq(ld(pc.a, a_off(p, i, j)));
                REAL ar = re(alpha), ai = im(alpha);
                bool skip = xnorm2 == REAL(0) && ai == REAL(0);
                REAL norm = sqrt_cr(rnd(ar * ar) + rnd(ai * ai) + xnorm2);
                ACC beta = of_real(ar >= REAL(0) ? -norm : norm);
                ACC tau = skip ? ACC(0) : dv(beta - alpha, beta);
                ACC scale = skip ? of_real(REAL(1)) : dv(of_real(REAL(1)), alpha - beta);
                for (int64_t i0 = j + 1; i0 < m; i0 += LA_CHUNK) {
                    ACC v[LA_CHUNK];
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u) v[u] = i0 + u < m ? ld(pc.a, a_off(p, i0 + u, j)) : ACC(0);
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u) {
                        if (i0 + u >= m) continue;
                        v[u] = mul(v[u], scale);
                        st(pc.a, a_off(p, i0 + u, j), v[u]);
                        col[int(i0) + u] = v[u];
                    }
                }
                if (!skip) st(pc.a, a_off(p, j, j), beta);
                st(pc.tau, p * cp(LA_TAU_ST) + j * cp(LA_TAU_ST + 1), tau);
                sh_scalar = cj(tau);
            }
            barrier();
            const ACC tc = sh_scalar;
            for (int64_t c = j + 1 + (t - (j + 1) % NT + NT) % NT; c < n; c += NT) {
                ACC w = ld(pc.a, a_off(p, j, c));  // v^H a[:, c], v_j = 1
                for (int64_t i = j + 1; i < m; ++i) w += mul(cj(col[int(i)]), ld(pc.a, a_off(p, i, c)));
                w = mul(tc, w);
                st(pc.a, a_off(p, j, c), ld(pc.a, a_off(p, j, c)) - w);
                for (int64_t i0 = j + 1; i0 < m; i0 += LA_CHUNK) {
                    ACC v[LA_CHUNK];
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u) v[u] = i0 + u < m ? ld(pc.a, a_off(p, i0 + u, c)) : ACC(0);
                    [[unroll]] for (int u = 0; u < LA_CHUNK; ++u)
                        if (i0 + u < m) st(pc.a, a_off(p, i0 + u, c), v[u] - mul(col[int(i0) + u], w));
                }
            }
            barrier();
        }
#endif
    }
}

#elif MODE == 2
// trsm on m <= LA_BLOCK rows, a workgroup a (matrix, block of X's
// columns), an element of X an invocation: RP (m rounded up to a power of
// two) rows by NT / RP columns, so a few right-hand sides still fill a
// workgroup (a column an invocation left a 4-column lu_solve's diagonal
// blocks 4 invocations: 85 us a block on an H100). Step s takes row i = s
// (lower) or m - 1 - s (upper): its owners divide by a_ii (not with
// LA_F_UNIT) and publish x_i in shared memory, the rows after it (before
// it, upper) subtract a_ri x_i: LAPACK's trsm order. x_i is double-buffered
// (one barrier a step) and a_ri loaded a step ahead.
shared ACC xi2[2][NT];

void main() {
    read_slots();
    const int64_t P = cp(LA_P), K = cp(LA_K);
    const int m = int(cp(LA_M));
    int rp = 1;
    while (rp < m) rp *= 2;
    const int t = int(gl_LocalInvocationID.x), cb = NT / rp, r = t % rp, cl = t / rp;
    const bool upper = flag(LA_F_UPPER), unit = flag(LA_F_UNIT);
    const int64_t blocks = (K + cb - 1) / cb, items = P * blocks;
    for (int64_t id = int64_t(gl_WorkGroupID.x); id < items; id += int64_t(gl_NumWorkGroups.x)) {
        const int64_t p = id / blocks, c = (id % blocks) * cb + cl;
        const bool owns = r < m && c < K;
        ACC x = owns ? ld(pc.res, o_off(p, r, c)) : ACC(0);
        // a_ri for step s: row r takes part at and after its own step
        ACC a_next = ACC(0);
        const int i0 = upper ? m - 1 : 0;
        if (owns && (upper ? r <= i0 : r >= i0) && !(unit && r == i0)) a_next = a_at(p, r, i0);
        for (int s = 0; s < m; ++s) {
            const int i = upper ? m - 1 - s : s, inext = upper ? i - 1 : i + 1;
            const ACC a_ri = a_next;
            if (owns && s + 1 < m && (upper ? r <= inext : r >= inext) && !(unit && r == inext))
                a_next = a_at(p, r, inext);
            if (owns && r == i) {
                if (!unit) x = dv(x, a_ri);
                xi2[s & 1][cl] = x;
            }
            barrier();
            if (owns && (upper ? r < i : r > i)) x -= mul(a_ri, xi2[s & 1][cl]);
        }
        if (owns) st(pc.res, o_off(p, r, c), x);
        barrier();  // the next item's first step rewrites xi2
    }
}

#else  // MODE 3, 5, 10: a column of the result an invocation; MODE 9: a matrix

void main() {
    read_slots();
    const int64_t P = cp(LA_P), m = cp(LA_M), K = cp(LA_K);
    const int64_t items = P * K;
    for (int64_t id = int64_t(gl_GlobalInvocationID.x); id < items; id += int64_t(gl_NumWorkGroups.x) * NT) {
        const int64_t p = id / K, c = id % K;
#if MODE == 3
        const int64_t steps = cp(LA_N), first = flag(LA_F_LATER_BLOCKS) ? (c / LA_BLOCK + 1) * LA_BLOCK : 0;
        for (int64_t s = first; s < steps; ++s) {
            const int64_t j = flag(LA_F_INVERSE) ? steps - 1 - s : s;
            const int64_t r = RS_LDO(3)(pc.piv, p * cp(LA_PIV_ST) + j * cp(LA_PIV_ST + 1)) - 1 - cp(LA_J0);
            if (rs_neg64(r) || r >= m) {
                rs_raise(1u, r + 1);
                continue;
            }
            if (r == j) continue;
            ACC x = ld(pc.res, o_off(p, j, c)), y = ld(pc.res, o_off(p, r, c));
            st(pc.res, o_off(p, j, c), y);
            st(pc.res, o_off(p, r, c), x);
        }
#elif MODE == 9
        const int64_t n = cp(LA_N);
        int64_t swaps = 0;
        ACC prod = of_real(REAL(1));
        REAL logabs = REAL(0);
        bool singular = false;
        for (int64_t j = 0; j < n; ++j) {
            const ACC u = ld(pc.a, a_off(p, j, j));
            if (RS_LDO(3)(pc.piv, p * cp(LA_PIV_ST) + j * cp(LA_PIV_ST + 1)) != j + 1) ++swaps;
            if (flag(LA_F_LOG)) {
                const REAL m = absv(u);
                singular = singular || m == REAL(0);
                logabs += rs_op_log(m);
#if RS_IS_COMPLEX(DT)
                prod = mul(prod, dv(u, of_real(m)));  // u / |u|: the phases' product
#else
                // torch's sgn of each pivot, as CPU's slogdet takes it: NaN
                // gives 0 and an infinity +-1 (u / |u| made both NaN)
                prod = mul(prod, of_real(u > REAL(0) ? REAL(1) : u < REAL(0) ? REAL(-1) : REAL(0)));
#endif
            } else {
                prod = mul(prod, u);
            }
        }
        if ((swaps & 1L) != 0L) prod = -prod;
        if (flag(LA_F_LOG) && singular) prod = of_real(REAL(0));
        st(pc.res, p * cp(LA_OUT_ST), prod);
        if (flag(LA_F_LOG)) st_real_at(pc.tau + uint64_t(p * cp(LA_TAU_ST)) * REAL_SIZE, logabs);  // log |det|, of the real dtype
#elif MODE == 10
        const ACC d = ld(pc.a, a_off(p, c, c));
        const REAL md = absv(d);
        const ACC ph = md == REAL(0) ? of_real(REAL(1)) : dv(d, of_real(md));
        for (int64_t i = 0; i < m; ++i) st(pc.res, o_off(p, i, c), mul(ld(pc.res, o_off(p, i, c)), ph));
#else  // MODE 5: column c of Q, from e_c, the reflectors from the last
        for (int64_t i = 0; i < m; ++i) st(pc.res, o_off(p, i, c), of_real(i == c ? REAL(1) : REAL(0)));
        for (int64_t r = cp(LA_R) - 1; r >= 0; --r) {
            ACC w = ld(pc.res, o_off(p, r, c));
            for (int64_t i = r + 1; i < m; ++i) w += mul(cj(ld(pc.a, a_off(p, i, r))), ld(pc.res, o_off(p, i, c)));
            w = mul(ld(pc.tau, p * cp(LA_TAU_ST) + r * cp(LA_TAU_ST + 1)), w);
            st(pc.res, o_off(p, r, c), ld(pc.res, o_off(p, r, c)) - w);
            for (int64_t i = r + 1; i < m; ++i)
                st(pc.res, o_off(p, i, c), ld(pc.res, o_off(p, i, c)) - mul(ld(pc.a, a_off(p, i, r)), w));
        }
#endif
    }
}
#endif
