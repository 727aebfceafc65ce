// scan.comp: inclusive scans along the last dim of a contiguous [rows, n]
// input (the adapter moves the scanned dim last): cumsum, cumprod, cummax,
// cummin (values and int64 indices), logcumsumexp.
//
// One workgroup per row (grid-stride over rows). The row is processed in
// chunks of RS_WG * ITEMS elements: each invocation scans its ITEMS
// consecutive elements sequentially, the workgroup scans the invocations'
// totals in shared memory (Hillis-Steele), and a carry runs across chunks.
//
// Long rows with few of them use three passes instead (MODE 1: each
// block's total; MODE 2: exclusive scan of the totals per row; MODE 3: each
// block's scan after its prefix), so that the whole GPU works on them.
//
// complex64 logcumsumexp folds each row sequentially instead (an
// invocation per row; see CLSE).
//
// Defines: MODE (0..3), IN_DT (input dtype code; the adapter has cast it to the result
// dtype where PyTorch does), OUT_DT (values dtype), OP (1 sum, 2 prod,
// 3 max, 4 min, 5 logsumexp).
//
// Accumulation as PyTorch's CPU (at::acc_type<T, false>): integers in 64
// bits; float32 accumulates in double there, so sum and prod use a float-float
// pair (hi + lo, ~48 mantissa bits) here; float16/bfloat16 accumulate in
// float. Scan states combine as combine(earlier, later).
#version 460
#extension GL_KHR_shader_subgroup_basic : enable
#include "common/dtype.glsl"
#include "params/scan.h"
#include "common/index.glsl"

#define T_DT IN_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#if OUT_DT != IN_DT
#define T_DT OUT_DT
#include "common/dtype_inst.glsl"
#undef T_DT
#endif

#define ITEMS 4
layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SCAN_PUSH } pc;

#define IS_FLOAT RS_IS_FLT(IN_DT)
#define IS_U64 (IN_DT == 29)
#define FF (IN_DT == 6 && (OP == 1 || OP == 2))  // float32 sum/prod: float-float

// ---------------------------------------------------------------- the state
#if OP == 3 || OP == 4
// (value, index); NaN is greater than everything and ties take the later
// element, as CPU's cummax_cummin_helper (std::greater_equal / less_equal).
// float64 compares its bits as order-preserving keys: no fp64 arithmetic.
#if IS_FLOAT
#define V float
#else
#define V uint64_t
#endif
#if IN_DT == 7
bool dnan(uint64_t b) { return (b & 0x7FFFFFFFFFFFFFFFUL) > 0x7FF0000000000000UL; }
uint64_t dkey(uint64_t b) {
    if (b == 0x8000000000000000UL) b = 0UL;  // -0 == +0
    return rs_sign64(b) ? ~b : (b | 0x8000000000000000UL);
}
#endif
struct S { V v; int64_t i; };
#define STATE_SIZE 16
bool takes_later(V a, V b) {
#if IN_DT == 7
    if (dnan(b)) return true;
    if (dnan(a)) return false;
#if OP == 3
    return dkey(b) >= dkey(a);
#else
    return dkey(b) <= dkey(a);
#endif
#elif IS_FLOAT
    if (isnan(b)) return true;
    if (isnan(a)) return false;
#if OP == 3
    return b >= a;
#else
    return b <= a;
#endif
#elif IS_U64
#if OP == 3
    return b >= a;
#else
    return b <= a;
#endif
#else
#if OP == 3
    return int64_t(b) >= int64_t(a);
#else
    return int64_t(b) <= int64_t(a);
#endif
#endif
}
S combine(S a, S b) { return takes_later(a.v, b.v) ? b : a; }
S identity() {
    S s;
#if IS_FLOAT
    s.v = OP == 3 ? uintBitsToFloat(0xFF800000u) : uintBitsToFloat(0x7F800000u);
#elif IN_DT == 7
    s.v = OP == 3 ? 0xFFF0000000000000UL : 0x7FF0000000000000UL;  // -inf, +inf
#elif IS_U64
    s.v = OP == 3 ? 0UL : ~0UL;
#else
    s.v = OP == 3 ? 0x8000000000000000UL : 0x7FFFFFFFFFFFFFFFUL;
#endif
    s.i = 0L;
    return s;
}
S load_s(int64_t o, int64_t j) {
    S s;
    s.v = RS_GET(IN_DT)(pc.src, o);
    s.i = j;
    return s;
}

#elif FF
// float-float: value = x + y, |y| <= ulp(x) / 2.
#define S vec2
#define STATE_SIZE 8
S fast_two_sum(float a, float b) {
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}
S combine(S a, S b) {
#if OP == 1
    precise float s = a.x + b.x;
    if (isinf(s) || isnan(s)) return vec2(s, 0.0);
    precise float bb = s - a.x;
    precise float e = (a.x - (s - bb)) + (b.x - bb);
    precise float lo = e + (a.y + b.y);
    return fast_two_sum(s, lo);
#else
    precise float p = a.x * b.x;
    if (isinf(p) || isnan(p) || p == 0.0) return vec2(p, 0.0);
    precise float e = fma(a.x, b.x, -p);
    precise float lo = e + (a.x * b.y + a.y * b.x);
    return fast_two_sum(p, lo);
#endif
}
S identity() { return OP == 1 ? vec2(0.0, 0.0) : vec2(1.0, 0.0); }
S load_s(int64_t o, int64_t j) { return vec2(RS_GET(IN_DT)(pc.src, o), 0.0); }

#elif IN_DT == 7  // float64 sum/prod: only with RS_HAS_FP64 (the host refuses otherwise)
#define S double
#define STATE_SIZE 8
S combine(S a, S b) {
#if OP == 1
    return a + b;
#else
    return a * b;
#endif
}
S identity() { return OP == 1 ? 0.0LF : 1.0LF; }
S load_s(int64_t o, int64_t j) { return uint64BitsToDouble(RS_GET(IN_DT)(pc.src, o)); }

#elif RS_IS_CF(IN_DT) && OP == 5
// complex64 logcumsumexp: c10's _log_add_exp_helper(x = b, y = a) for
// complex (the larger real part is `max`; NaN in either part is
// infectious; equal infinite real parts). Not associative in the imaginary
// part (a reordered fold can land 2*pi away), so each row folds
// sequentially in CPU's order (CLSE in main).
#define CLSE 1
void rs_raise(uint code, int64_t value) {}  // (ops.glsl's integer checks: unused here)
#include "common/opmath.glsl"
#include "common/ops.glsl"
// The running value is kept as a float-float pair per part (CPU folds in
// complex<double>; a float state drifts by ~1e-5 over a few hundred
// elements): S = (re, im, re_lo, im_lo).
#define S vec4
#define STATE_SIZE 16
vec2 cl_two_sum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}
// hi + lo as a normalized pair; infinities and NaN keep lo = 0
vec2 cl_norm(float hi, float lo) {
    if (isinf(hi) || isnan(hi)) return vec2(hi, 0.0);
    precise float s = hi + lo;
    precise float e = lo - (s - hi);
    return vec2(s, e);
}
// a - b of two pairs, rounded to float
float cl_sub(float ah, float al, float bh, float bl) {
    if (isinf(ah) || isinf(bh) || isnan(ah) || isnan(bh)) return ah - bh;
    vec2 t = cl_two_sum(ah, -bh);
    return t.x + (t.y + (al - bl));
}
// mx + d, mx a pair, d a float
vec2 cl_add(float mh, float ml, float d) {
    vec2 t = cl_two_sum(mh, d);
    return cl_norm(t.x, t.y + ml);
}
S combine(S a, S b) {
    // a: the running value (y), b: the element (x)
    S mn, mx;
    if (isnan(a.x) || isnan(a.y)) { mn = a; mx = a; }
    else if (isnan(b.x) || isnan(b.y)) { mn = b; mx = b; }
    else if (b.x < a.x || (b.x == a.x && b.z < a.z)) { mn = b; mx = a; }
    else { mn = a; mx = b; }
    if (isnan(mn.x) || isnan(mn.y)) return vec4(RS_NAN_F, RS_NAN_F, 0.0, 0.0);
    if (isinf(mn.x) && mn.x == mx.x) {
        if (mn.x < 0.0) return mn;
        return vec4(rs_op_log(rs_op_exp(mn.xy) + rs_op_exp(mx.xy)), 0.0, 0.0);
    }
    vec2 diff = vec2(cl_sub(mn.x, mn.z, mx.x, mx.z), cl_sub(mn.y, mn.w, mx.y, mx.w));
    vec2 d = rs_op_log1p(rs_op_exp(diff));
    vec2 re = cl_add(mx.x, mx.z, d.x), im = cl_add(mx.y, mx.w, d.y);
    return vec4(re.x, im.x, re.y, im.y);
}
S identity() { return vec4(uintBitsToFloat(0xFF800000u), 0.0, 0.0, 0.0); }
S load_s(int64_t o, int64_t j) { return vec4(RS_GET(IN_DT)(pc.src, o), 0.0, 0.0); }

#elif RS_IS_CF(IN_DT)  // complex64 sum/prod (CPU accumulates in complex<double>)
#define S vec2
#define STATE_SIZE 8
S combine(S a, S b) {
#if OP == 1
    return a + b;
#else
    return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
#endif
}
S identity() { return OP == 1 ? vec2(0.0, 0.0) : vec2(1.0, 0.0); }
S load_s(int64_t o, int64_t j) { return RS_GET(IN_DT)(pc.src, o); }

#elif IS_FLOAT
#define S float
#define STATE_SIZE 8
// log1p without cancellation (Goldberg's trick)
float log1p_(float u) {
    precise float w = 1.0 + u;
    return w == 1.0 ? u : log(w) * (u / (w - 1.0));
}
S combine(S a, S b) {
#if OP == 1
    return a + b;
#elif OP == 2
    return a * b;
#else
    // c10 _log_add_exp_helper(x = b, y = a): NaN propagates, equal
    // infinities stay.
    float mn, mx;
    if (isnan(a)) { mn = a; mx = a; }
    else { mn = min(a, b); mx = max(a, b); }
    if (isnan(b)) return b;
    if (mn != mx || !isinf(mn)) return mx + log1p_(exp(mn - mx));
    return b;
#endif
}
S identity() { return OP == 1 ? 0.0 : OP == 2 ? 1.0 : uintBitsToFloat(0xFF800000u); }
S load_s(int64_t o, int64_t j) { return RS_GET(IN_DT)(pc.src, o); }

#else  // integers and bool: 64-bit wrapping arithmetic
#define S uint64_t
#define STATE_SIZE 8
S combine(S a, S b) {
#if OP == 1
    return a + b;
#else
    return a * b;
#endif
}
S identity() { return OP == 1 ? 0UL : 1UL; }
S load_s(int64_t o, int64_t j) { return RS_GET(IN_DT)(pc.src, o); }
#endif

void store_s(int64_t o, S s) {
#if OP == 3 || OP == 4
#if IS_FLOAT
    RS_SET_F(OUT_DT)(pc.dst, o, s.v);
#elif IN_DT == 7
    RS_SET_D(OUT_DT)(pc.dst, o, s.v);
#else
    RS_SET_I(OUT_DT)(pc.dst, o, s.v);
#endif
    RsI64(pc.idx + 8UL * uint64_t(o)).v = s.i;
#elif FF
    RS_SET_F(OUT_DT)(pc.dst, o, s.x + s.y);
#elif IN_DT == 7
    RS_SET_D(OUT_DT)(pc.dst, o, doubleBitsToUint64(s));
#elif CLSE
    RS_SET_CF(OUT_DT)(pc.dst, o, vec2(s.x + s.z, s.y + s.w));
#elif RS_IS_CF(IN_DT)
    RS_SET_CF(OUT_DT)(pc.dst, o, s);
#elif IS_FLOAT
    RS_SET_F(OUT_DT)(pc.dst, o, s);
#else
    RS_SET_I(OUT_DT)(pc.dst, o, s);
#endif
}

shared S sh[RS_WG];

// Long rows (MODE 1-3) are cut into blocks of one chunk; the blocks'
// totals live in `scratch` ([rows, nb] states).
// (a struct state is stored member by member: SPIR-V 1.3 has no
// OpCopyLogical between the block's and the function's struct types)
#if OP == 3 || OP == 4
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SRef { V v; int64_t i; };
S sload(uint64_t i) {
    SRef r = SRef(pc.scratch + uint64_t(STATE_SIZE) * i);
    S s;
    s.v = r.v;
    s.i = r.i;
    return s;
}
void sstore(uint64_t i, S s) {
    SRef r = SRef(pc.scratch + uint64_t(STATE_SIZE) * i);
    r.v = s.v;
    r.i = s.i;
}
#else
layout(buffer_reference, std430, buffer_reference_align = STATE_SIZE) buffer SRef { S v; };
S sload(uint64_t i) { return SRef(pc.scratch + uint64_t(STATE_SIZE) * i).v; }
void sstore(uint64_t i, S s) { SRef(pc.scratch + uint64_t(STATE_SIZE) * i).v = s; }
#endif

// Scans one chunk of RS_WG * ITEMS elements of a row from c0, after
// `carry`; stores the results unless `store` is false. Returns the carry
// for the next chunk. Every invocation of the workgroup calls it.
S scan_chunk(int64_t base, int64_t c0, int64_t n, S carry, bool store) {
    uint t = gl_LocalInvocationID.x;
    int64_t j0 = c0 + int64_t(t) * ITEMS;
    S loc[ITEMS];
    S acc = identity();
    [[unroll]] for (int k = 0; k < ITEMS; ++k) {
        int64_t j = j0 + k;
        if (j < n) acc = combine(acc, load_s(base + j, j));
        loc[k] = acc;
    }
    sh[t] = acc;
    barrier();
    // inclusive Hillis-Steele over the invocations' totals
    for (uint d = 1u; d < RS_WG; d <<= 1) {
        S other = t >= d ? sh[t - d] : identity();
        barrier();
        if (t >= d) sh[t] = combine(other, sh[t]);
        barrier();
    }
    if (store) {
        S prefix = t > 0u ? combine(carry, sh[t - 1u]) : carry;
        [[unroll]] for (int k = 0; k < ITEMS; ++k) {
            int64_t j = j0 + k;
            if (j < n) store_s(base + j, combine(prefix, loc[k]));
        }
    }
    S total = combine(carry, sh[RS_WG - 1]);
    barrier();
    return total;
}

#define CHUNK int64_t(RS_WG * ITEMS)

void main() {
    uint t = gl_LocalInvocationID.x;
    int64_t n = int64_t(pc.n);
#if CLSE
    // an invocation per row, folding elements [nb, nb + idx) in order; the
    // running value of longer rows waits in scratch between dispatches
    // (lavapipe ends a shader's loops after 65535 iterations in all)
    int64_t c0 = int64_t(pc.nb), c1 = min(n, c0 + int64_t(pc.idx));
    for (uint64_t row = gl_GlobalInvocationID.x; row < pc.rows; row += uint64_t(gl_NumWorkGroups.x) * RS_WG) {
        int64_t base = int64_t(row) * n;
        S acc = c0 == 0L ? identity() : sload(row);
        for (int64_t j = c0; j < c1; ++j) {
            acc = combine(acc, load_s(base + j, j));
            store_s(base + j, acc);
        }
        if (c1 < n) sstore(row, acc);
    }
#elif MODE == 0
    // a workgroup per row
    for (uint64_t row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        int64_t base = int64_t(row) * n;
        S carry = identity();
        for (int64_t c0 = 0; c0 < n; c0 += CHUNK) carry = scan_chunk(base, c0, n, carry, true);
    }
#elif MODE == 1 || MODE == 3
    // a workgroup per block: its total (1), or its scan after the
    // exclusive prefix of the blocks before it (3)
    for (uint64_t w = gl_WorkGroupID.x; w < pc.rows * pc.nb; w += gl_NumWorkGroups.x) {
        uint64_t row = w / pc.nb, blk = w - row * pc.nb;
        int64_t base = int64_t(row) * n;
#if MODE == 1
        S total = scan_chunk(base, int64_t(blk) * CHUNK, n, identity(), false);
        if (t == 0u) sstore(w, total);
#else
        S carry = sload(w);
        scan_chunk(base, int64_t(blk) * CHUNK, n, carry, true);
#endif
    }
#else  // MODE 2: exclusive scan of each row's block totals, in place
    for (uint64_t row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        S carry = identity();
        for (uint64_t c0 = 0UL; c0 < pc.nb; c0 += uint64_t(RS_WG)) {
            uint64_t b = c0 + t;
            S v = b < pc.nb ? sload(row * pc.nb + b) : identity();
            sh[t] = v;
            barrier();
            for (uint d = 1u; d < RS_WG; d <<= 1) {
                S other = t >= d ? sh[t - d] : identity();
                barrier();
                if (t >= d) sh[t] = combine(other, sh[t]);
                barrier();
            }
            if (b < pc.nb) sstore(row * pc.nb + b, t > 0u ? combine(carry, sh[t - 1u]) : carry);
            S total = combine(carry, sh[RS_WG - 1]);
            barrier();
            carry = total;
        }
    }
#endif
}
