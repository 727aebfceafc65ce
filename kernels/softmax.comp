// softmax.comp: softmax and log_softmax along the middle dim of contiguous
// (outer, n, inner) tensors, and their backward kernels
// (src/engine/softmax.c).
//
// Each row (o, i) is n elements, inner apart. tpo lanes share a row (tpo is
// 1 when inner > 1: neighbouring threads then take neighbouring i, and
// their loads coalesce). Forward: one pass folds (max, sum of exp(x - max))
// online (one exp per element), the lanes combine in a fixed tree, a second pass writes. Backward:
// the first pass sums g * y (softmax) or g (log_softmax).
//
// Defines: MODE (0 softmax, 1 log_softmax, 2 softmax backward, 3
// log_softmax backward), A_DT (input, or grad_output), B_DT (the forward
// output, backward only), OUT_DT. Arithmetic in float32.
#version 460
#include "common/dtype.glsl"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push {
    uint64_t a, b, out_;
    uint64_t outer, n, inner;
    uint64_t err;
    uint tpo, site;
} pc;

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

float sm_a(uint64_t e) { return float(RS_LDO(A_DT)(pc.a, int64_t(e))); }
float sm_b(uint64_t e) { return float(RS_LDO(B_DT)(pc.b, int64_t(e))); }

// (max, sum of exp(x - max)) of two parts; NaN propagates, and a row of
// -inf gives NaN as CPU's exp(-inf - -inf) does
vec2 sm_comb(vec2 p, vec2 q) {
#if MODE <= 1
    if (isnan(p.x) || isnan(q.x)) return vec2(RS_NAN_F, RS_NAN_F);
    float m = max(p.x, q.x);
    if (isinf(m) && m < 0.0) return vec2(m, p.y + q.y);
    return vec2(m, p.y * rs_op_exp(p.x - m) + q.y * rs_op_exp(q.x - m));
#else
    return vec2(p.x + q.x, 0.0);
#endif
}

// pass 1: folds one element (a, and b = y for softmax backward) into the
// row's state
vec2 sm_fold(vec2 st, float x, float y) {
#if MODE <= 1
    // online (max, sum): one exp per element; -inf adds nothing (a row of
    // only -inf keeps sum 0 and gives NaN, as CPU)
    if (x > st.x) {
        // the new max adds exp(x - x): 1, or NaN for +inf (CPU)
        return vec2(x, st.y * rs_op_exp(st.x - x) + (isinf(x) ? RS_NAN_F : 1.0));
    }
    if (!(isinf(x) && x < 0.0)) st.y += rs_op_exp(x - st.x);
    return st;
#elif MODE == 2
    return vec2(st.x + x * y, 0.0);
#else
    return vec2(st.x + x, 0.0);
#endif
}
#if MODE == 2
#define SM_B(e) sm_b(e)
#else
#define SM_B(e) 0.0
#endif

// pass 2: the result at e; p is exp's scale (1 / sum) or log(sum)
float sm_result(vec2 st, float p, uint64_t e) {
#if MODE == 0
    return rs_op_exp(sm_a(e) - st.x) * p;
#elif MODE == 1
    return (sm_a(e) - st.x) - p;  // CPU's order
#elif MODE == 2
    return sm_b(e) * (sm_a(e) - st.x);
#else
    return sm_a(e) - rs_op_exp(sm_b(e)) * st.x;
#endif
}

shared vec2 sh[RS_WG];

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
        // a lane's elements are j = lane + k tpo, at base + j inner; four
        // of them per step, so that several loads are in flight
        uint64_t step = uint64_t(tpo) * inner;
        uint64_t cnt = live && uint64_t(lane) < n ? (n - uint64_t(lane) + uint64_t(tpo) - 1UL) / uint64_t(tpo) : 0UL;
        uint64_t e0 = base + uint64_t(lane) * inner;
#if MODE <= 1
        vec2 st = vec2(-RS_INF_F, 0.0);
#else
        vec2 st = vec2(0.0);
#endif
        {
            uint64_t k = 0UL, e = e0;
            for (; k + 4UL <= cnt; k += 4UL, e += 4UL * step) {
                float a0 = sm_a(e), a1 = sm_a(e + step), a2 = sm_a(e + 2UL * step), a3 = sm_a(e + 3UL * step);
                float b0 = SM_B(e), b1 = SM_B(e + step), b2 = SM_B(e + 2UL * step), b3 = SM_B(e + 3UL * step);
                st = sm_fold(st, a0, b0);
                st = sm_fold(st, a1, b1);
                st = sm_fold(st, a2, b2);
                st = sm_fold(st, a3, b3);
            }
            for (; k < cnt; ++k, e += step) st = sm_fold(st, sm_a(e), SM_B(e));
        }
        if (tpo > 1u) {
            sh[lid] = st;
            for (uint h = tpo / 2u; h > 0u; h >>= 1) {
                barrier();
                if (lane < h) sh[lid] = sm_comb(sh[lid], sh[lid + h]);
            }
            barrier();
            st = sh[slot * tpo];
            barrier();  // sh is written again by the next group
        }
        if (!live) continue;
#if MODE == 0
        float p = 1.0 / st.y;
#elif MODE == 1
        float p = rs_op_log(st.y);
#else
        float p = 0.0;
#endif
        uint64_t k = 0UL, e = e0;
        for (; k + 4UL <= cnt; k += 4UL, e += 4UL * step) {
            float r0 = sm_result(st, p, e);
            float r1 = sm_result(st, p, e + step);
            float r2 = sm_result(st, p, e + 2UL * step);
            float r3 = sm_result(st, p, e + 3UL * step);
            RS_SET_F(OUT_DT)(pc.out_, int64_t(e), r0);
            RS_SET_F(OUT_DT)(pc.out_, int64_t(e + step), r1);
            RS_SET_F(OUT_DT)(pc.out_, int64_t(e + 2UL * step), r2);
            RS_SET_F(OUT_DT)(pc.out_, int64_t(e + 3UL * step), r3);
        }
        for (; k < cnt; ++k, e += step) RS_SET_F(OUT_DT)(pc.out_, int64_t(e), sm_result(st, p, e));
    }
}
