// reduce.comp: the template of every reduction kernel (src/engine/reduce.c).
//
// Each output element o reduces the input elements base(o) + red(r), r in
// [0, nred): base() comes from the "kept" layout (views: in, out, out2),
// red() from the "reduced" layout (the input's reduced dims, coalesced, so r
// is the row-major index among them: what argmax returns).
//
// A workgroup of RS_WG invocations serves RS_WG / tpo outputs with tpo
// lanes each (tpo a power of two). A lane folds its elements r = lane,
// lane + tpo, ... into a state; the lanes of an output then combine in a
// fixed tree in shared memory. With nsplit > 1 the reduced range is cut
// into nsplit chunks (gl_WorkGroupID.y), pass 1 writes one state per
// (output, chunk) to `tmp`, and pass 2 (PASS=2) combines them. Nothing is
// atomic and the partition depends only on the shapes: the same input gives
// the same bits.
//
// Defines: ROP (rs_reduce_op), RCONTIG (the reduced range is contiguous), IN_DT, ACC_DT (the accumulate dtype; its
// opmath type is the state's), OUT_DT, OUT2_DT, NORM_KIND (RS_REDUCE_NORM:
// 0: p = 0, 1, 2, 3: +inf, 4: -inf, 5: any other p), PASS (1 or 2).
#version 460
#include "common/dtype.glsl"
#include "params/reduce.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_REDUCE_PUSH } pc;

#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)
#define CM_DT ACC_DT

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#if OUT_DT != IN_DT
#define T_DT OUT_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#if OUT2_DT != IN_DT && OUT2_DT != OUT_DT
#define T_DT OUT2_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#include "common/ops.glsl"

#define A RS_OPMT(ACC_DT)
#if RS_IS_CF(ACC_DT)
#define RL float
#elif RS_IS_CD(ACC_DT)
#define RL double
#else
#define RL A
#endif

// ---------------------------------------------------------------- per-type helpers
bool rd_nan(bool x) { return false; }
bool rd_nan(int64_t x) { return false; }
bool rd_nan(uint64_t x) { return false; }
bool rd_nan(float x) { return isnan(x); }
bool rd_nan(vec2 x) { return isnan(x.x) || isnan(x.y); }
int64_t rd_lowest(int64_t x) { return int64_t(0x8000000000000000UL); }
int64_t rd_highest(int64_t x) { return int64_t(0x7FFFFFFFFFFFFFFFUL); }
uint64_t rd_lowest(uint64_t x) { return 0UL; }
uint64_t rd_highest(uint64_t x) { return 0xFFFFFFFFFFFFFFFFUL; }
float rd_lowest(float x) { return -RS_INF_F; }
float rd_highest(float x) { return RS_INF_F; }
float rd_real(float x) { return x; }
float rd_real(vec2 x) { return x.x; }
float rd_abs2(float x) { return x * x; }
float rd_abs2(vec2 x) { return x.x * x.x + x.y * x.y; }
float rd_absv(float x) { return abs(x); }
float rd_absv(vec2 x) { return rs_cabs(x); }
float rd_param(uint64_t bits, float like) { return uintBitsToFloat(uint(bits & 0xFFFFFFFFUL)); }
vec2 rd_cplx(float re) { return vec2(re, 0.0); }
#if RS_HAS_FP64
bool rd_nan(double x) { return isnan(x); }
bool rd_nan(dvec2 x) { return isnan(x.x) || isnan(x.y); }
double rd_lowest(double x) { return -uint64BitsToDouble(0x7FF0000000000000UL); }
double rd_highest(double x) { return uint64BitsToDouble(0x7FF0000000000000UL); }
double rd_real(double x) { return x; }
double rd_real(dvec2 x) { return x.x; }
double rd_abs2(double x) { return x * x; }
double rd_abs2(dvec2 x) { return x.x * x.x + x.y * x.y; }
double rd_absv(double x) { return abs(x); }
double rd_absv(dvec2 x) {
    double a = abs(x.x), b = abs(x.y), m = max(a, b), n = min(a, b);
    if (isinf(a) || isinf(b)) return rd_highest(0.0LF);
    // (GLSL's max and min may drop a NaN: |NaN + 0i| came out 0, so
    // complex128 norms of order 1, 3 and inf skipped NaN elements)
    if (isnan(a) || isnan(b)) return uint64BitsToDouble(0x7FF8000000000000UL);
    if (m == 0.0LF) return 0.0LF;
    double r = n / m;
    return m * sqrt(1.0LF + r * r);
}
double rd_param(uint64_t bits, double like) { return uint64BitsToDouble(bits); }
dvec2 rd_cplx(double re) { return dvec2(re, 0.0LF); }
#endif
#if !RS_IS_COMPLEX(ACC_DT)
// max/min that propagate NaN (amax, torch.max)
A rd_max(A a, A b) { return rd_nan(a) ? a : (rd_nan(b) ? b : (a > b ? a : b)); }
A rd_min(A a, A b) { return rd_nan(a) ? a : (rd_nan(b) ? b : (a < b ? a : b)); }
A rd_one() { return A(1); }
#else
A rd_one() { return rd_cplx(RL(1)); }
#endif
#if ROP == 11  // norm: real states
RL rd_rmax(RL a, RL b) { return isnan(a) ? a : (isnan(b) ? b : max(a, b)); }
RL rd_rmin(RL a, RL b) { return isnan(a) ? a : (isnan(b) ? b : min(a, b)); }
#endif

// The input element, in the state's type.
A rd_load(int64_t off) {
    RS_OPMT(IN_DT) x = RS_LDO(IN_DT)(pc.in_, off);
#if RS_IS_COMPLEX(ACC_DT) && !RS_IS_COMPLEX(IN_DT)
    return rd_cplx(RL(x));
#else
    return A(x);
#endif
}

// ---------------------------------------------------------------- the state of each op
#define OP_SUM 0
#define OP_NANSUM 1
#define OP_PROD 2
#define OP_MEAN 3
#define OP_MAX 4
#define OP_MIN 5
#define OP_ARGMAX 6
#define OP_ARGMIN 7
#define OP_ALL 8
#define OP_ANY 9
#define OP_COUNT 10
#define OP_NORM 11
#define OP_VAR 12
#define OP_STD 13

#if ROP == OP_ARGMAX || ROP == OP_ARGMIN
struct S { A v; int64_t i; };  // i < 0: no element yet
S rd_init() { S s; s.v = A(0); s.i = -1L; return s; }
// does (v, i) come before the state's element? NaN beats everything, the
// first index wins ties
bool rd_better(A v, int64_t i, S s) {
    if (s.i < 0L) return true;
    if (rd_nan(s.v)) return rd_nan(v) && i < s.i;
    if (rd_nan(v)) return true;
#if ROP == OP_ARGMAX
    return v > s.v || (v == s.v && i < s.i);
#else
    return v < s.v || (v == s.v && i < s.i);
#endif
}
S rd_acc(S s, A x, int64_t r) {
    if (rd_better(x, r, s)) { s.v = x; s.i = r; }
    return s;
}
S rd_comb(S a, S b) { return b.i >= 0L && rd_better(b.v, b.i, a) ? b : a; }
#elif ROP == OP_VAR || ROP == OP_STD
struct S { A mean; RL m2; int64_t n; };
S rd_init() { S s; s.mean = A(0); s.m2 = RL(0); s.n = 0L; return s; }
// Welford's update
S rd_acc(S s, A x, int64_t r) {
    s.n += 1L;
    A d = x - s.mean;
    s.mean += d / RL(s.n);
    A d2 = x - s.mean;
#if RS_IS_COMPLEX(ACC_DT)
    s.m2 += d.x * d2.x + d.y * d2.y;
#else
    s.m2 += d * d2;
#endif
    return s;
}
// Chan et al.'s combination of two partial states
S rd_comb(S a, S b) {
    if (a.n == 0L) return b;
    if (b.n == 0L) return a;
    int64_t n = a.n + b.n;
    RL nb = RL(b.n) / RL(n);
    A d = b.mean - a.mean;
    S s;
    s.mean = a.mean + d * nb;
    s.m2 = a.m2 + b.m2 + rd_abs2(d) * RL(a.n) * nb;
    s.n = n;
    return s;
}
#elif ROP == OP_ALL || ROP == OP_ANY
struct S { uint v; };
#if ROP == OP_ALL
S rd_init() { return S(1u); }
S rd_acc(S s, A x, int64_t r) { return S(s.v & (rs_truth(x) ? 1u : 0u)); }
S rd_comb(S a, S b) { return S(a.v & b.v); }
#else
S rd_init() { return S(0u); }
S rd_acc(S s, A x, int64_t r) { return S(s.v | (rs_truth(x) ? 1u : 0u)); }
S rd_comb(S a, S b) { return S(a.v | b.v); }
#endif
#elif ROP == OP_COUNT
struct S { int64_t v; };
S rd_init() { return S(0L); }
S rd_acc(S s, A x, int64_t r) { return S(s.v + (rs_truth(x) ? 1L : 0L)); }
S rd_comb(S a, S b) { return S(a.v + b.v); }
#elif ROP == OP_NORM
struct S { RL v; };
#if NORM_KIND == 4
S rd_init() { return S(rd_highest(RL(0))); }
#else
S rd_init() { return S(RL(0)); }
#endif
S rd_acc(S s, A x, int64_t r) {
#if NORM_KIND == 0
    return S(s.v + (rs_truth(x) ? RL(1) : RL(0)));
#elif NORM_KIND == 1
    return S(s.v + rd_absv(x));
#elif NORM_KIND == 2
    return S(s.v + rd_abs2(x));
#elif NORM_KIND == 3
    return S(rd_rmax(s.v, rd_absv(x)));
#elif NORM_KIND == 4
    return S(rd_rmin(s.v, rd_absv(x)));
#else
    return S(s.v + rs_mx_pow(rd_absv(x), rd_param(pc.p, RL(0))));
#endif
}
#if NORM_KIND == 3
S rd_comb(S a, S b) { return S(rd_rmax(a.v, b.v)); }
#elif NORM_KIND == 4
S rd_comb(S a, S b) { return S(rd_rmin(a.v, b.v)); }
#else
S rd_comb(S a, S b) { return S(a.v + b.v); }
#endif
#else  // sum, nansum, prod, mean, max, min
struct S { A v; };
#if ROP == OP_PROD
S rd_init() { return S(rd_one()); }
S rd_comb(S a, S b) {
#if RS_IS_COMPLEX(ACC_DT)
    return S(rs_cmul(a.v, b.v));
#else
    return S(a.v * b.v);
#endif
}
#elif ROP == OP_MAX
S rd_init() { return S(rd_lowest(A(0))); }
S rd_comb(S a, S b) { return S(rd_max(a.v, b.v)); }
#elif ROP == OP_MIN
S rd_init() { return S(rd_highest(A(0))); }
S rd_comb(S a, S b) { return S(rd_min(a.v, b.v)); }
#else
S rd_init() { return S(A(0)); }
S rd_comb(S a, S b) { return S(a.v + b.v); }
#endif
S rd_acc(S s, A x, int64_t r) {
#if ROP == OP_NANSUM
    if (rd_nan(x)) return s;
#endif
    return rd_comb(s, S(x));
}
#endif

// ---------------------------------------------------------------- results
#define RS_STORE_FNS(NAME, DT, ADDR)                                                   \
    void NAME(int64_t o, bool v) { RS_SET_B(DT)(ADDR, o, v); }                         \
    void NAME(int64_t o, int64_t v) { RS_SET_I(DT)(ADDR, o, uint64_t(v)); }            \
    void NAME(int64_t o, uint64_t v) { RS_SET_U(DT)(ADDR, o, v); }                     \
    void NAME(int64_t o, float v) { RS_SET_F(DT)(ADDR, o, v); }                        \
    void NAME(int64_t o, vec2 v) { RS_SET_CF(DT)(ADDR, o, v); }
RS_STORE_FNS(rd_store, OUT_DT, pc.out_)
RS_STORE_FNS(rd_store2, OUT2_DT, pc.out2_)
#if RS_HAS_FP64
#define RS_STORE_FNS64(NAME, DT, ADDR)                                                 \
    void NAME(int64_t o, double v) { RS_SET_D(DT)(ADDR, o, doubleBitsToUint64(v)); }   \
    void NAME(int64_t o, dvec2 v) {                                                    \
        RS_SET_CD(DT)(ADDR, o, u64vec2(doubleBitsToUint64(v.x), doubleBitsToUint64(v.y))); \
    }
RS_STORE_FNS64(rd_store, OUT_DT, pc.out_)
RS_STORE_FNS64(rd_store2, OUT2_DT, pc.out2_)
#endif

// Projects the final state of output o and stores it.
void rd_finish(uint64_t o, S s) {
    int64_t k[5] = int64_t[5](int64_t(o), int64_t(o), int64_t(o), 0L, 0L);
    if (pc.kndim != 0u) rs_offsetn(pc.kparams, pc.kndim, 3, o, k);
#if ROP == OP_ARGMAX || ROP == OP_ARGMIN
    if (pc.out_ != 0UL) rd_store(k[1], s.v);
    if (pc.out2_ != 0UL) rd_store2(k[2], s.i < 0L ? 0L : s.i);
#elif ROP == OP_VAR || ROP == OP_STD
    RL c = rd_param(pc.corr, RL(0));
    RL n = RL(s.n);
    RL v = s.m2 / max(RL(0), n - c);
#if ROP == OP_STD
    v = sqrt(v);
#endif
    rd_store(k[1], v);
    if (pc.out2_ != 0UL) rd_store2(k[2], s.n == 0L ? A(0) / RL(0) : s.mean);
#elif ROP == OP_ALL || ROP == OP_ANY
    rd_store(k[1], s.v != 0u);
#elif ROP == OP_MEAN
    rd_store(k[1], s.v / RL(pc.nred));
#elif ROP == OP_NORM && NORM_KIND == 2
    rd_store(k[1], sqrt(s.v));
#elif ROP == OP_NORM && NORM_KIND == 5
    rd_store(k[1], rs_mx_pow(s.v, RL(1) / rd_param(pc.p, RL(0))));
#else
    rd_store(k[1], s.v);
#endif
}

// a partial state in `tmp`: one 32-byte slot each (RS_REDUCE_STATE_MAX)
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsState { S v; };
RsState rd_slot(uint64_t i) { return RsState(pc.tmp + i * 32UL); }

// offset of reduced element r (RCONTIG: the reduced dims are one run)
#if RCONTIG
#define RD_OFF(r) int64_t(r)
#else
#define RD_OFF(r) rd_red_offset(r)
#endif
int64_t rd_red_offset(uint64_t r) {
    if (pc.rndim == 0u) return int64_t(r);
    if (pc.rndim == 1u) return int64_t(r) * RsI64(pc.rparams + 8UL).v;
    return rs_offset1(pc.rparams, pc.rndim, r);
}

shared S sh[RS_WG];

void main() {
    uint tpo = pc.tpo;
    uint lid = gl_LocalInvocationID.x;
    uint lane = lid & (tpo - 1u);
    uint slot = lid / tpo;
    uint opw = uint(RS_WG) / tpo;
    uint64_t ngroups = (pc.nout + uint64_t(opw) - 1UL) / uint64_t(opw);
    uint64_t split = uint64_t(gl_WorkGroupID.y);
    for (uint64_t g = uint64_t(gl_WorkGroupID.x); g < ngroups; g += uint64_t(gl_NumWorkGroups.x)) {
        uint64_t o = g * uint64_t(opw) + uint64_t(slot);
        S st = rd_init();
        if (o < pc.nout) {
#if PASS == 1
            int64_t base = int64_t(o);
            if (pc.kndim != 0u) {
                int64_t k[5];
                rs_offsetn(pc.kparams, pc.kndim, 1, o, k);
                base = k[0];
            }
            uint64_t r0 = split * pc.chunk;
            uint64_t r1 = min(pc.nred, r0 + pc.chunk);
            uint64_t step = uint64_t(tpo);
            uint64_t r = r0 + uint64_t(lane);
            // four loads in flight, folded in index order
            for (; r + 3UL * step < r1; r += 4UL * step) {
                A x0 = rd_load(base + RD_OFF(r));
                A x1 = rd_load(base + RD_OFF(r + step));
                A x2 = rd_load(base + RD_OFF(r + 2UL * step));
                A x3 = rd_load(base + RD_OFF(r + 3UL * step));
                st = rd_acc(st, x0, int64_t(r));
                st = rd_acc(st, x1, int64_t(r + step));
                st = rd_acc(st, x2, int64_t(r + 2UL * step));
                st = rd_acc(st, x3, int64_t(r + 3UL * step));
            }
            for (; r < r1; r += step) st = rd_acc(st, rd_load(base + RD_OFF(r)), int64_t(r));
#else
            for (uint j = lane; j < pc.nsplit; j += tpo) st = rd_comb(st, rd_slot(o * uint64_t(pc.nsplit) + uint64_t(j)).v);
#endif
        }
        if (tpo > 1u) {
            sh[lid] = st;
            for (uint h = tpo / 2u; h > 0u; h >>= 1) {
                barrier();
                if (lane < h) sh[lid] = rd_comb(sh[lid], sh[lid + h]);
            }
            barrier();
            st = sh[slot * tpo];
            barrier();  // sh is written again by the next group
        }
        if (lane == 0u && o < pc.nout) {
#if PASS == 1
            if (pc.nsplit > 1u) {
                rd_slot(o * uint64_t(pc.nsplit) + split).v = st;
                continue;
            }
#endif
            rd_finish(o, st);
        }
    }
}
