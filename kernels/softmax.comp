// softmax.comp: softmax and log_softmax along the middle dim of contiguous
// (outer, n, inner) tensors, and their backward kernels
// (src/engine/softmax.c).
//
// Each row (o, i) is n elements, inner apart. tpo lanes share a row (tpo is
// 1 when inner > 1: neighbouring threads then take neighbouring i, and
// their loads coalesce). Forward: three passes over the row (max, sum of
// exp(x - max), results), each fold combined over the lanes in a fixed
// tree; a row is small enough to be re-read from cache. Backward: the first
// pass sums g * y (softmax) or g (log_softmax).
//
// Defines: MODE (0 softmax, 1 log_softmax, 2 softmax backward, 3
// log_softmax backward), A_DT (input, or grad_output), B_DT (the forward
// output, backward only), OUT_DT, ROWREG (0: the three passes; else the
// row held in registers, ROWREG elements a lane, below), SMVEC (16-byte
// accesses, with ROWREG). Arithmetic (SM_T) in float32, or in double where
// the tensors are float64 (devices with fp64; src/engine/softmax.c).
#version 460
#include "common/dtype.glsl"
#include "params/softmax.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_SOFTMAX_PUSH } pc;

#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)
#define CM_DT 6

#define T_DT A_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#if B_DT != A_DT
#define T_DT B_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#if OUT_DT != A_DT && OUT_DT != B_DT
#define T_DT OUT_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#include "common/ops.glsl"

#if A_DT == 7
#define SM_T double
#define SM_STORE(o, v) RS_SET_D(OUT_DT)(pc.out_, int64_t(o), doubleBitsToUint64(v))
#else
#define SM_T float
#define SM_STORE(o, v) RS_SET_F(OUT_DT)(pc.out_, int64_t(o), v)
#endif

SM_T sm_a(uint64_t e) { return SM_T(RS_LDO(A_DT)(pc.a, int64_t(e))); }
SM_T sm_b(uint64_t e) { return SM_T(RS_LDO(B_DT)(pc.b, int64_t(e))); }

// max that propagates NaN
SM_T sm_max(SM_T m, SM_T x) { return isnan(m) ? m : (isnan(x) ? x : max(m, x)); }

// the result at e from the row's reduction r (max for the forward; the sum
// for the backward) and p (1 / sum, log(sum); unused for the backward)
SM_T sm_result(SM_T r, SM_T p, uint64_t e) {
#if MODE == 0
    return rs_op_exp(sm_a(e) - r) * p;
#elif MODE == 1
    return (sm_a(e) - r) - p;  // CPU's order
#elif MODE == 2
    return sm_b(e) * (sm_a(e) - r);
#else
    return sm_a(e) - rs_op_exp(sm_b(e)) * r;
#endif
}

shared SM_T sh[RS_WG];

// Combines v over the tpo lanes of each row (a fixed tree: deterministic);
// every lane gets the row's value. Called by the whole workgroup.
SM_T sm_tree(SM_T v, bool is_max, uint lid, uint lane, uint slot, uint tpo) {
    if (tpo == 1u) return v;
    sh[lid] = v;
    for (uint h = tpo / 2u; h > 0u; h >>= 1) {
        barrier();
        if (lane < h) sh[lid] = is_max ? sm_max(sh[lid], sh[lid + h]) : sh[lid] + sh[lid + h];
    }
    barrier();
    SM_T r = sh[slot * tpo];
    barrier();  // sh is written again by the next tree
    return r;
}

// Folds f(element) over a lane's elements, four loads in flight.
#define SM_FOLD(acc, F)                                                            \
    {                                                                            \
        uint64_t k = 0UL, e = e0;                                                \
        for (; k + 4UL <= cnt; k += 4UL, e += 4UL * step) {                      \
            SM_T v0 = F(e), v1 = F(e + step), v2 = F(e + 2UL * step), v3 = F(e + 3UL * step); \
            acc = SM_OP(acc, v0);                                                \
            acc = SM_OP(acc, v1);                                                \
            acc = SM_OP(acc, v2);                                                \
            acc = SM_OP(acc, v3);                                                \
        }                                                                        \
        for (; k < cnt; ++k, e += step) acc = SM_OP(acc, F(e));                  \
    }
#define SM_ADD(a, b) ((a) + (b))
#define SM_AB(e) (sm_a(e) * sm_b(e))
#define SM_EXP(e) rs_op_exp(sm_a(e) - m)

#if ROWREG
// Rows of at most tpo * ROWREG elements (inner == 1, contiguous rows): the
// lane keeps its ROWREG elements in registers, so the row is read once and
// each exp is taken once. SMVEC (float32 rows, 16-byte aligned, n % 4 == 0):
// the lane's elements are quads j = lane + k tpo, read and written as 16
// bytes; else elements j = lane + k tpo. The sums and the max fold a lane's
// elements in order, then over the lanes in sm_tree: the same arithmetic
// as the three-pass kernel below but for the order of the sum's terms.
layout(buffer_reference, std430, buffer_reference_align = 16) buffer SmV4 { vec4 v; };
#if SMVEC
#define SM_NQ (ROWREG / 4)
#define SM_IDX(k) (4u * (lane + uint((k) / 4) * tpo) + uint((k) % 4))
#else
#define SM_IDX(k) (lane + uint(k) * tpo)
#endif

void main() {
    uint tpo = pc.tpo;
    uint lid = gl_LocalInvocationID.x;
    uint lane = lid & (tpo - 1u);
    uint slot = lid / tpo;
    uint opw = uint(RS_WG) / tpo;
    uint64_t rows = pc.outer;
    uint64_t ngroups = (rows + uint64_t(opw) - 1UL) / uint64_t(opw);
    uint n = uint(pc.n);  // <= RS_WG * ROWREG
    for (uint64_t g = uint64_t(gl_WorkGroupID.x); g < ngroups; g += uint64_t(gl_NumWorkGroups.x)) {
        uint64_t row = g * uint64_t(opw) + uint64_t(slot);
        bool live = row < rows;
        uint64_t base = live ? row * uint64_t(n) : 0UL;
        SM_T x[ROWREG];
#if MODE >= 2
        SM_T y[ROWREG];
#endif
#if SMVEC
        [[unroll]] for (int q = 0; q < SM_NQ; ++q) {
            uint j = 4u * (lane + uint(q) * tpo);
            vec4 v = vec4(0.0), w = vec4(0.0);
            if (live && j < n) {
                v = SmV4(pc.a + (base + uint64_t(j)) * 4UL).v;
#if MODE >= 2
                w = SmV4(pc.b + (base + uint64_t(j)) * 4UL).v;
#endif
            }
            x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
#if MODE >= 2
            y[4 * q] = w.x, y[4 * q + 1] = w.y, y[4 * q + 2] = w.z, y[4 * q + 3] = w.w;
#endif
        }
#else
        [[unroll]] for (int k = 0; k < ROWREG; ++k) {
            uint j = SM_IDX(k);
            bool ok = live && j < n;
            x[k] = ok ? sm_a(base + uint64_t(j)) : 0.0;
#if MODE >= 2
            y[k] = ok ? sm_b(base + uint64_t(j)) : 0.0;
#endif
        }
#endif
#if MODE <= 1
        SM_T m = SM_T(-RS_INF_F);
        [[unroll]] for (int k = 0; k < ROWREG; ++k)
            if (live && SM_IDX(k) < n) m = sm_max(m, x[k]);
        m = sm_tree(m, true, lid, lane, slot, tpo);
        SM_T sum = 0.0;
        [[unroll]] for (int k = 0; k < ROWREG; ++k) {
            if (live && SM_IDX(k) < n) {
                SM_T e = rs_op_exp(x[k] - m);
                sum += e;
#if MODE == 0
                x[k] = e;
#endif
            }
        }
        sum = sm_tree(sum, false, lid, lane, slot, tpo);
#if MODE == 0
        SM_T p = 1.0 / sum;
#else
        SM_T p = rs_op_log(sum);
#endif
        [[unroll]] for (int k = 0; k < ROWREG; ++k)
#if MODE == 0
            x[k] = x[k] * p;
#else
            x[k] = (x[k] - m) - p;  // CPU's order
#endif
#else
        SM_T r = 0.0;
        [[unroll]] for (int k = 0; k < ROWREG; ++k)
            if (live && SM_IDX(k) < n) r += MODE == 2 ? x[k] * y[k] : x[k];
        r = sm_tree(r, false, lid, lane, slot, tpo);
        [[unroll]] for (int k = 0; k < ROWREG; ++k)
#if MODE == 2
            x[k] = y[k] * (x[k] - r);
#else
            x[k] = x[k] - rs_op_exp(y[k]) * r;
#endif
#endif
        if (!live) continue;
#if SMVEC
        [[unroll]] for (int q = 0; q < SM_NQ; ++q) {
            uint j = 4u * (lane + uint(q) * tpo);
            if (j < n) SmV4(pc.out_ + (base + uint64_t(j)) * 4UL).v = vec4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
        }
#else
        [[unroll]] for (int k = 0; k < ROWREG; ++k) {
            uint j = SM_IDX(k);
            if (j < n) SM_STORE(base + uint64_t(j), x[k]);
        }
#endif
    }
}
#else
void main() {
    uint tpo = pc.tpo;
    uint lid = gl_LocalInvocationID.x;
    uint lane = lid & (tpo - 1u);
    uint slot = lid / tpo;
    uint opw = uint(RS_WG) / tpo;
    uint64_t rows = pc.outer * pc.inner;
    uint64_t ngroups = (rows + uint64_t(opw) - 1UL) / uint64_t(opw);
    uint64_t inner = pc.inner;
    uint64_t n = pc.n;
    for (uint64_t g = uint64_t(gl_WorkGroupID.x); g < ngroups; g += uint64_t(gl_NumWorkGroups.x)) {
        uint64_t row = g * uint64_t(opw) + uint64_t(slot);
        bool live = row < rows;
        uint64_t base = 0UL;
        if (live) base = inner == 1UL ? row * n : (row / inner) * n * inner + row % inner;
        // a lane's elements are j = lane + k tpo, at base + j inner
        uint64_t step = uint64_t(tpo) * inner;
        uint64_t cnt = live && uint64_t(lane) < n ? (n - uint64_t(lane) + uint64_t(tpo) - 1UL) / uint64_t(tpo) : 0UL;
        uint64_t e0 = base + uint64_t(lane) * inner;
#if MODE <= 1
        // max, then the sum of exp(x - max), then the results: CPU's
        // arithmetic, so NaN and infinities come out as CPU's do
        SM_T m = SM_T(-RS_INF_F);
#define SM_OP sm_max
        SM_FOLD(m, sm_a)
#undef SM_OP
        m = sm_tree(m, true, lid, lane, slot, tpo);
        SM_T sum = 0.0;
#define SM_OP SM_ADD
        SM_FOLD(sum, SM_EXP)
        sum = sm_tree(sum, false, lid, lane, slot, tpo);
        SM_T r = m;
#if MODE == 0
        SM_T p = 1.0 / sum;
#else
        SM_T p = rs_op_log(sum);
#endif
#else
        SM_T r = 0.0, p = 0.0;
#define SM_OP SM_ADD
#if MODE == 2
        SM_FOLD(r, SM_AB)
#else
        SM_FOLD(r, sm_a)
#endif
        r = sm_tree(r, false, lid, lane, slot, tpo);
#endif
        if (!live) continue;
        uint64_t k = 0UL, e = e0;
        for (; k + 4UL <= cnt; k += 4UL, e += 4UL * step) {
            SM_T r0 = sm_result(r, p, e);
            SM_T r1 = sm_result(r, p, e + step);
            SM_T r2 = sm_result(r, p, e + 2UL * step);
            SM_T r3 = sm_result(r, p, e + 3UL * step);
            SM_STORE(e, r0);
            SM_STORE(e + step, r1);
            SM_STORE(e + 2UL * step, r2);
            SM_STORE(e + 3UL * step, r3);
        }
        for (; k < cnt; ++k, e += step) SM_STORE(e, sm_result(r, p, e));
    }
}
#endif
