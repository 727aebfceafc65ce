// ctc.comp: the CTC loss (src/engine/ctc.c; contract in russet/loss.h,
// rs_ctc_loss), in the log-space recursions and operation order of ATen's
// CPU kernel (LossCTC.cpp), so float32 results follow CPU's roundings.
// The extended target of sample n is l'(s): the blank at even s, label
// (s - 1) / 2 at odd s, S_n = 2 L_n + 1 positions.
//
// MODE 0 alpha and the loss: a workgroup per sample walks its frames; the
//   previous frame's row sits in shared memory, each invocation computes a
//   few positions of the next one into registers, then stores them:
//     alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1),
//                  [alpha_{t-1}(s-2) where l'(s-2) != l'(s)]) + lp_t(l'(s))
//   with CPU's max-shift (a max of -inf shifts by 0); every (t, s) outside
//   the sample's frames and positions is -inf. nll = -logsumexp of the
//   last frame's last two positions.
// MODE 1 beta, the same backwards from the sample's last frame.
// MODE 2 grad[t, n, c] = exp(lp) grad_out[n], or 0 past the sample's
//   frames (and for an infinite loss under zero_infinity): the value of
//   every class that the target does not hold.
// MODE 3 the classes the target holds, an invocation per (t, n, j): j <
//   L_n the class of label j (its last occurrence only), j = Lmax the
//   blank; it adds alpha + beta over the class's positions in decreasing s,
//   pairwise in log space as CPU does, then
//     grad = (exp(lp) - exp(lcab + nll - lp)) grad_out.
//
// Defines: DT (float32 or float64: log_probs, log_alpha, nll, grad), TG_DT
// (int32 or int64 targets), MODE, SMAX (MODE 0 and 1: the positions a frame
// in shared memory holds, a power of two from 256).
#version 460
#include "common/dtype.glsl"
#include "params/ctc.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

#define NT 256u
#define PER ((SMAX + NT - 1u) / NT)  // positions an invocation computes
layout(local_size_x = NT) in;

layout(push_constant) uniform Push { RS_CTC_PUSH } pc;
#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define T_DT TG_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define ACC RS_OPMT(DT)
#define CM_DT 6
#include "common/ops.glsl"  // rs_op_exp, rs_op_log: correctly rounded, as CPU's

#if RS_IS_DBL(DT)
#define NEG_INF (-1.0LF / 0.0LF)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_D(DT)(base, off, doubleBitsToUint64(v)); }
#else
#define NEG_INF (-1.0 / 0.0)
void store(uint64_t base, int64_t off, ACC v) { RS_SET_F(DT)(base, off, v); }
#endif
ACC load(uint64_t base, int64_t off) { return RS_LDO(DT)(base, off); }

int64_t cp(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int64_t sample_slot(int64_t n, int field) { return cp(CT_SLOTS + CT_PER_SAMPLE * int(n) + field); }

// l'(s) of sample n (whose first label sits at tg_start), checked against C
int64_t target_prime(int64_t tg_start, int64_t s) {
    if ((s & 1L) == 0L) return cp(CT_BLANK);
    int64_t c = RS_LDO(TG_DT)(pc.targets, tg_start + ((s - 1L) / 2L) * cp(CT_TG_ST));
    if (c < 0L || c >= cp(CT_C)) {
        rs_raise(1u, c);
        return cp(CT_BLANK);
    }
    return c;
}
ACC lp_at(int64_t t, int64_t n, int64_t c) {
    return load(pc.lp, t * cp(CT_LP_ST) + n * cp(CT_LP_ST + 1) + c * cp(CT_LP_ST + 2));
}
int64_t ab_off(int64_t n, int64_t t, int64_t s) {  // log_alpha's element (n, t, s)
    return n * cp(CT_ALPHA_ST) + t * cp(CT_ALPHA_ST + 1) + s * cp(CT_ALPHA_ST + 2);
}
// CPU's log(exp(a - m) + exp(b - m) + exp(c - m)) + m, m the largest (0 if -inf)
ACC lse3(ACC a, ACC b, ACC c) {
    ACC m = a;
    if (b > m) m = b;
    if (c > m) m = c;
    if (m == NEG_INF) m = ACC(0);
    return rs_op_log(rs_op_exp(a - m) + rs_op_exp(b - m) + rs_op_exp(c - m)) + m;
}

#if MODE == 0 || MODE == 1
shared ACC row[SMAX];  // the frame before (alpha) or after (beta)

void main() {
    const int64_t T = cp(CT_T), N = cp(CT_N), S = cp(CT_S);
    const uint lid = gl_LocalInvocationID.x;
    for (int64_t n = int64_t(gl_WorkGroupID.x); n < N; n += int64_t(gl_NumWorkGroups.x)) {
        const int64_t tn = sample_slot(n, CT_IN_LEN), ln = sample_slot(n, CT_TG_LEN), start = sample_slot(n, CT_TG_START);
        const int64_t sn = 2L * ln + 1L;
#if MODE == 0
        for (int64_t t = 0L; t < T; ++t) {
#else
        const uint64_t bn = uint64_t(n) * uint64_t(T) * uint64_t(S);  // beta: contiguous (N, T, S)
        for (int64_t t = T - 1L; t >= 0L; --t) {
#endif
            ACC v[PER];
            [[unroll]] for (uint k = 0u; k < PER; ++k) {
                int64_t s = int64_t(k * NT + lid);
                v[k] = NEG_INF;
                if (s >= S || s >= sn) continue;
#if MODE == 0
                if (t >= tn) continue;
                int64_t c = target_prime(start, s);
                if (t == 0L) {
                    if (s == 0L || s == 1L) v[k] = lp_at(0L, n, c);
                } else {
                    ACC a2 = s > 0L ? row[int(s - 1L)] : ACC(NEG_INF);
                    ACC a3 = s > 1L && target_prime(start, s - 2L) != c ? row[int(s - 2L)] : ACC(NEG_INF);
                    v[k] = lse3(row[int(s)], a2, a3) + lp_at(t, n, c);
                }
#else
                if (t >= tn) continue;
                int64_t c = target_prime(start, s);
                if (t == tn - 1L) {
                    if (s == sn - 1L || s == sn - 2L) v[k] = lp_at(t, n, c);
                } else {
                    ACC b2 = s < sn - 1L ? row[int(s + 1L)] : ACC(NEG_INF);
                    ACC b3 = s < sn - 2L && target_prime(start, s + 2L) != c ? row[int(s + 2L)] : ACC(NEG_INF);
                    v[k] = lse3(row[int(s)], b2, b3) + lp_at(t, n, c);
                }
#endif
            }
            barrier();  // every invocation has read the row
            [[unroll]] for (uint k = 0u; k < PER; ++k) {
                int64_t s = int64_t(k * NT + lid);
                if (s >= S) continue;
                if (s < sn) row[int(s)] = v[k];
#if MODE == 0
                store(pc.alpha, ab_off(n, t, s), v[k]);
#else
                store(pc.beta, int64_t(bn + uint64_t(t) * uint64_t(S) + uint64_t(s)), v[k]);
#endif
            }
            barrier();  // the new row is whole
#if MODE == 0
            if (lid == 0u && t == tn - 1L) {
                ACC l1 = row[int(sn - 1L)], l2 = ln > 0L ? row[int(sn - 2L)] : ACC(NEG_INF);
                ACC m = l1 > l2 ? l1 : l2;
                if (m == NEG_INF) m = ACC(0);
                store(pc.nll, n * cp(CT_NLL_ST), -(rs_op_log(rs_op_exp(l1 - m) + rs_op_exp(l2 - m)) + m));
            }
#endif
        }
#if MODE == 0
        // no frames: the likelihood of an empty target is 1, of any other 0
        if (lid == 0u && tn == 0L) store(pc.nll, n * cp(CT_NLL_ST), ln == 0L ? ACC(0) : -ACC(NEG_INF));
#endif
        barrier();  // the next sample reuses the row
    }
}

#else  // MODE 2 and 3: the gradient

// grad is 0 past the sample's frames, and for an infinite loss under zero_infinity
bool zeroed(int64_t t, int64_t n, ACC nll) {
    return t >= sample_slot(n, CT_IN_LEN) || (cp(CT_ZERO_INF) != 0L && isinf(nll));
}
int64_t grad_off(int64_t t, int64_t n, int64_t c) {
    return t * cp(CT_GRAD_ST) + n * cp(CT_GRAD_ST + 1) + c * cp(CT_GRAD_ST + 2);
}

void main() {
    const int64_t T = cp(CT_T), N = cp(CT_N), C = cp(CT_C), S = cp(CT_S);
    RS_FOR_EACH(i, pc.items) {
#if MODE == 2
        int64_t c = int64_t(i % uint64_t(C)), n = int64_t((i / uint64_t(C)) % uint64_t(N));
        int64_t t = int64_t(i / (uint64_t(C) * uint64_t(N)));
        ACC nll = load(pc.nll, n * cp(CT_NLL_ST));
        ACC r = zeroed(t, n, nll) ? ACC(0) : rs_op_exp(lp_at(t, n, c)) * load(pc.grad_out, n * cp(CT_GO_ST));
        store(pc.grad, grad_off(t, n, c), r);
#else
        const int64_t lmax = cp(CT_LMAX), J = lmax + 1L;
        int64_t j = int64_t(i % uint64_t(J)), n = int64_t((i / uint64_t(J)) % uint64_t(N));
        int64_t t = int64_t(i / (uint64_t(J) * uint64_t(N)));
        const int64_t ln = sample_slot(n, CT_TG_LEN), start = sample_slot(n, CT_TG_START), blank = cp(CT_BLANK);
        ACC nll = load(pc.nll, n * cp(CT_NLL_ST));
        if (zeroed(t, n, nll) || (j < lmax && j >= ln)) continue;
        // this invocation's class; a label class is summed by its last occurrence
        int64_t c = j == lmax ? blank : target_prime(start, 2L * j + 1L);
        if (j < lmax) {
            bool later = c == blank;  // a label equal to blank: the blank's invocation has it
            for (int64_t j2 = j + 1L; j2 < ln && !later; ++j2) later = target_prime(start, 2L * j2 + 1L) == c;
            if (later) continue;
        }
        const uint64_t bn = uint64_t(n) * uint64_t(T) * uint64_t(S) + uint64_t(t) * uint64_t(S);
        ACC lcab = NEG_INF;
        for (int64_t s = j == lmax ? 2L * ln : 2L * j + 1L; s >= 0L; --s) {
            if (target_prime(start, s) != c) continue;
            ACC ab = load(pc.alpha, ab_off(n, t, s)) + load(pc.beta, int64_t(bn + uint64_t(s)));
            if (lcab == NEG_INF) {
                lcab = ab;
            } else {
                ACC m = max(lcab, ab);
                lcab = rs_op_log(rs_op_exp(lcab - m) + rs_op_exp(ab - m)) + m;
            }
        }
        ACC lp = lp_at(t, n, c);
        store(pc.grad, grad_off(t, n, c),
              (rs_op_exp(lp) - rs_op_exp(lcab + nll - lp)) * load(pc.grad_out, n * cp(CT_GO_ST)));
#endif
    }
}
#endif
