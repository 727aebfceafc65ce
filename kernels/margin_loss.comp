// margin_loss.comp: multi_margin_loss and multilabel_margin_loss, forward
// and backward (src/engine/margin_loss.c; contract in russet/margin_loss.h).
// One invocation per sample row walks the row in CPU's loop order
// (LossMultiMargin.cpp, LossMultiLabelMargin.cpp), so each row's result
// is CPU's, bit for bit; a reduced loss sums the rows in order in one more
// invocation (MODE 1).
//   MODE 0: the forward's rows: the loss (reduction none) or the row's sum
//     into `partial` (reduced); multilabel also writes is_target's row.
//   MODE 1: out[0] = the rows' sum (/ C for multilabel; / N for a mean).
//   MODE 2: the backward's rows into grad_input.
// CPU keeps multilabel's row sums (rounded to the dtype at the end) and
// every reduced total in its accumulate type, double for float32: here
// double where the device has float64 arithmetic, else a float-float pair
// (about 48 bits).
//
// Defines: DT (float32 or float64), KIND (0 multi margin, 1 multilabel),
// MODE, P (1 or 2), WEIGHTED, REDUCED, MEAN.
#version 460
#include "common/dtype.glsl"
#include "params/margin_loss.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define S RS_OPMT(DT)

layout(push_constant) uniform Push { RS_MARGIN_LOSS_PUSH } pc;

int64_t ml(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }

#if RS_IS_DBL(DT)
void store(uint64_t base, int64_t off, S v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
S slot_value(int slot) { return uint64BitsToDouble(uint64_t(ml(slot))); }
#else
void store(uint64_t base, int64_t off, S v) { RS_SET_F(DT)(base, off, v); }
S slot_value(int slot) { return uintBitsToFloat(uint(ml(slot))); }
#endif
// a product rounded before it is added: no fused multiply-add (opmath.glsl)
S rnd(S v) { return rs_rounded(v, pc.zero); }

// ---- the accumulate type: double, or a float-float pair (hi, lo)
#if RS_IS_DBL(DT) || RS_HAS_FP64
#define WIDE_DOUBLE 1
#define Acc double
Acc acc_zero() { return 0.0LF; }
Acc acc_add(Acc a, S b) { return a + double(b); }
Acc acc_add_acc(Acc a, Acc b) { return a + b; }
Acc acc_div(Acc a, int64_t n) { return a / double(n); }
S acc_value(Acc a) { return S(a); }
void acc_store(int64_t row, Acc a) { RsU64(pc.partial + 8UL * uint64_t(row)).v = doubleBitsToUint64(a); }
Acc acc_load(int64_t row) { return uint64BitsToDouble(RsU64(pc.partial + 8UL * uint64_t(row)).v); }
#else
#define WIDE_DOUBLE 0
#define Acc vec2
Acc acc_zero() { return vec2(0.0); }
// Knuth's two-sum of hi and b, its error folded into lo, renormalized
Acc acc_add(Acc a, float b) {
    precise float s = a.x + b;
    precise float bb = s - a.x;
    precise float e = (a.x - (s - bb)) + (b - bb);
    precise float lo = a.y + e;
    precise float hi = s + lo;
    return vec2(hi, lo - (hi - s));
}
Acc acc_add_acc(Acc a, Acc b) { return acc_add(acc_add(a, b.x), b.y); }
// a / n: q = hi / n, then the remainder (hi - q n exactly, by Dekker's
// product; rnd keeps each product apart) plus lo, divided by n
Acc acc_div(Acc a, int64_t n64) {
    const float n = float(n64);
    precise float q = a.x / n;
    precise float p = rnd(q * n);
    const float split = 4097.0;
    precise float cq = rnd(split * q), cn = rnd(split * n);
    precise float qh = cq - (cq - q), ql = q - qh;
    precise float nh = cn - (cn - n), nl = n - nh;
    precise float pe = ((rnd(qh * nh) - p) + rnd(qh * nl) + rnd(ql * nh)) + rnd(ql * nl);
    precise float r = ((a.x - p) - pe) + a.y;
    precise float q2 = r / n;
    precise float hi = q + q2;
    return vec2(hi, q2 - (hi - q));
}
S acc_value(Acc a) { return a.x + a.y; }
void acc_store(int64_t row, Acc a) {
    RsU32(pc.partial + 8UL * uint64_t(row)).v = floatBitsToUint(a.x);
    RsU32(pc.partial + 8UL * uint64_t(row) + 4UL).v = floatBitsToUint(a.y);
}
Acc acc_load(int64_t row) {
    return vec2(uintBitsToFloat(RsU32(pc.partial + 8UL * uint64_t(row)).v),
                uintBitsToFloat(RsU32(pc.partial + 8UL * uint64_t(row) + 4UL).v));
}
#endif

S x_at(int64_t i, int64_t d) { return RS_LDO(DT)(pc.input_, i * ml(ML_XS) + d * ml(ML_XS + 1)); }
int64_t target_at(int64_t i, int64_t k) { return RsI64(pc.target + 8UL * uint64_t(i * ml(ML_TS) + k * ml(ML_TS + 1))).v; }
S grad_of(int64_t i) { return RS_LDO(DT)(pc.grad, i * ml(ML_GS)); }

#if MODE == 1
void main() {
    if (gl_GlobalInvocationID.x != 0u) return;
    const int64_t N = ml(ML_N);
    Acc sum = acc_zero();
    for (int64_t i = 0L; i < N; ++i) sum = acc_add_acc(sum, acc_load(i));
#if KIND == 1
    sum = acc_div(sum, ml(ML_C));
#endif
#if MEAN
    sum = acc_div(sum, N);
#endif
    store(pc.out_, 0L, acc_value(sum));
}

#elif KIND == 0
// ---- multi margin
void main() {
    const int64_t N = ml(ML_N), C = ml(ML_C);
    RS_FOR_EACH(e, uint64_t(N)) {
        const int64_t i = int64_t(e);
        const int64_t t = target_at(i, 0L);
        if (t < 0L || t >= C) {
            rs_raise_at(pc.err, pc.site, 9u, t);
            continue;
        }
        const S xt = x_at(i, t);
#if WEIGHTED
        const S wt = RS_LDO(DT)(pc.weight, t * ml(ML_WS));
#endif
#if MODE == 0
        const S margin = slot_value(ML_MARGIN);
        precise S sum = S(0);
        for (int64_t d = 0L; d < C; ++d) {
            if (d == t) continue;
            precise S z = (margin - xt) + x_at(i, d);
            if (z > S(0)) {
#if P == 1
                precise S h = z;
#else
                precise S h = rnd(z * z);
#endif
#if WEIGHTED
                h = rnd(h * wt);
#endif
                sum += h;
            }
        }
        sum = sum / S(C);
#if REDUCED
        acc_store(i, acc_add(acc_zero(), sum));
#else
        store(pc.out_, i * ml(ML_OS), sum);
#endif
#else  // MODE 2: CPU's h per column, then times grad_output
        const S margin = slot_value(ML_MARGIN), g = slot_value(ML_G), go = grad_of(i);
        const int64_t gs0 = ml(ML_OS), gs1 = ml(ML_OS + 1);
        precise S gt = S(0);
        for (int64_t d = 0L; d < C; ++d) {
            if (d == t) continue;
            precise S z = (margin - xt) + x_at(i, d);
            S v = S(0);
            if (z > S(0)) {
#if P == 1
                precise S h = g;
#else
                precise S h = rnd(rnd(S(2) * g) * z);
#endif
#if WEIGHTED
                h = rnd(h * wt);
#endif
                gt -= h;
                v = h;
            }
            store(pc.out_, i * gs0 + d * gs1, v * go);
        }
        store(pc.out_, i * gs0 + t * gs1, gt * go);
#endif
    }
}

#else
// ---- multilabel margin: a row's labels are target's entries before its
// first -1; every entry must lie in [-1, C) (CPU checks the whole target)
bool row_in_range(int64_t i, int64_t C) {
    for (int64_t k = 0L; k < C; ++k) {
        const int64_t v = target_at(i, k);
        if (v < -1L || v >= C) return false;
    }
    return true;
}

// is_target's row holds only 0 and 1 (CPU checks the whole tensor)
bool is_target_in_range(int64_t i, int64_t C) {
    for (int64_t d = 0L; d < C; ++d) {
        const S v = RS_LDO(DT)(pc.is_target, i * ml(ML_IS) + d * ml(ML_IS + 1));
        if (!(v >= S(0) && v <= S(1))) return false;
    }
    return true;
}

bool not_target(int64_t i, int64_t d) {
    return RS_LDO(DT)(pc.is_target, i * ml(ML_IS) + d * ml(ML_IS + 1)) == S(0);
}

void main() {
    const int64_t N = ml(ML_N), C = ml(ML_C);
    RS_FOR_EACH(e, uint64_t(N)) {
        const int64_t i = int64_t(e);
        // code 10's value: the argument's position in CPU's message
        if (!row_in_range(i, C)) {
            rs_raise_at(pc.err, pc.site, 10u, MODE == 0 ? 2L : 3L);
            continue;
        }
#if MODE == 2
        if (!is_target_in_range(i, C)) {
            rs_raise_at(pc.err, pc.site, 10u, 5L);
            continue;
        }
#endif
#if MODE == 0
        for (int64_t d = 0L; d < C; ++d) store(pc.is_target, i * ml(ML_IS) + d * ml(ML_IS + 1), S(0));
        for (int64_t k = 0L; k < C; ++k) {
            const int64_t t = target_at(i, k);
            if (t < 0L) break;
            store(pc.is_target, i * ml(ML_IS) + t * ml(ML_IS + 1), S(1));
        }
        Acc sum = acc_zero();
        for (int64_t k = 0L; k < C; ++k) {
            const int64_t t = target_at(i, k);
            if (t < 0L) break;
            const S xt = x_at(i, t);
            for (int64_t d = 0L; d < C; ++d) {
                if (!not_target(i, d)) continue;
                precise S z = (S(1) - xt) + x_at(i, d);
                if (z > S(0)) sum = acc_add(sum, z);
            }
        }
        // CPU's row sum returns the input's dtype: rounded here, then summed
        // in the accumulate type (reduced) or divided by C (not)
        const S row = acc_value(sum);
#if REDUCED
        acc_store(i, acc_add(acc_zero(), row));
#else
        store(pc.out_, i * ml(ML_OS), row / S(C));
#endif
#else  // MODE 2: CPU's -g / +g per (label, column) pair in order, then times grad_output
        const S g = slot_value(ML_G), go = grad_of(i);
        const int64_t gs0 = ml(ML_OS), gs1 = ml(ML_OS + 1);
        for (int64_t d = 0L; d < C; ++d) store(pc.out_, i * gs0 + d * gs1, S(0));
        for (int64_t k = 0L; k < C; ++k) {
            const int64_t t = target_at(i, k);
            if (t < 0L) break;
            const S xt = x_at(i, t);
            for (int64_t d = 0L; d < C; ++d) {
                if (!not_target(i, d)) continue;
                precise S z = (S(1) - xt) + x_at(i, d);
                if (z > S(0)) {
                    store(pc.out_, i * gs0 + t * gs1, RS_LDO(DT)(pc.out_, i * gs0 + t * gs1) - g);
                    store(pc.out_, i * gs0 + d * gs1, RS_LDO(DT)(pc.out_, i * gs0 + d * gs1) + g);
                }
            }
        }
        for (int64_t d = 0L; d < C; ++d)
            store(pc.out_, i * gs0 + d * gs1, RS_LDO(DT)(pc.out_, i * gs0 + d * gs1) * go);
#endif
    }
}
#endif
