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
    for (uint64_t g = uint64_t(gl_WorkGroupID.x); g < ngroups; g += uint64_t(gl_NumWorkGroups.x)) {
        uint64_t row = g * uint64_t(opw) + uint64_t(slot);
        bool live = row < rows;
        uint64_t base = 0UL;
        if (live) base = inner == 1UL ? row * pc.n : (row / inner) * pc.n * inner + row % inner;
#if MODE <= 1
        vec2 st = vec2(-RS_INF_F, 0.0);
#else
        vec2 st = vec2(0.0);
#endif
        if (live) {
            for (uint64_t j = uint64_t(lane); j < pc.n; j += uint64_t(tpo)) {
                uint64_t e = base + j * inner;
#if MODE <= 1
                // online (max, sum): one exp per element; -inf adds nothing
                // (a row of only -inf keeps sum 0 and gives NaN, as CPU)
                float x = sm_a(e);
                if (x > st.x) {
                    // the new max adds exp(x - x): 1, or NaN for +inf (CPU)
                    st = vec2(x, st.y * rs_op_exp(st.x - x) + (isinf(x) ? RS_NAN_F : 1.0));
                } else if (!(isinf(x) && x < 0.0)) {
                    st.y += rs_op_exp(x - st.x);
                }
#elif MODE == 2
                st.x += sm_a(e) * sm_b(e);
#else
                st.x += sm_a(e);
#endif
            }
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
        float inv = 1.0 / st.y;
#elif MODE == 1
        float logs = rs_op_log(st.y);
#endif
        for (uint64_t j = uint64_t(lane); j < pc.n; j += uint64_t(tpo)) {
            uint64_t e = base + j * inner;
#if MODE == 0
            float r = rs_op_exp(sm_a(e) - st.x) * inv;
#elif MODE == 1
            float r = (sm_a(e) - st.x) - logs;  // CPU's order
#elif MODE == 2
            float r = sm_b(e) * (sm_a(e) - st.x);
#else
            float r = sm_a(e) - rs_op_exp(sm_b(e)) * st.x;
#endif
            RS_SET_F(OUT_DT)(pc.out_, int64_t(e), r);
        }
    }
}
