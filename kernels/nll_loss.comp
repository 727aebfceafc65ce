// nll_loss.comp: negative log-likelihood loss over contiguous (n, c, s)
// log-probabilities with (n, s) class targets, forward and backward
// (src/engine/loss.c), as ATen's CPU kernels (NLLLoss.cpp, NLLLoss2d.cpp)
// compute it. s = 1 for nll_loss, h * w for nll_loss2d.
//
// Defines: MODE (0 forward, 1 backward), REDUCE (0 none, 1 mean, 2 sum),
// X_DT (input and output), T_DT_ (target: int64 or uint8), HAS_W.
// Arithmetic (NL_T) in float32, or in double for float64 (fp64 devices).
// A target outside [0, c) other than ignore_index raises the device error
// flag (code 1, the target), reported at the next sync.
// Forward with a reduction runs as one workgroup: the sums are then a
// fixed tree, deterministic.
#version 460
#include "common/dtype.glsl"
#include "params/loss.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_NLL_PUSH } pc;

#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)

#define T_DT X_DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#define T_DT T_DT_
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT

#if X_DT == 7
#define NL_T double
#define NL_T2 dvec2
#define NL_STORE(a, o, v) RS_SET_D(X_DT)(a, o, doubleBitsToUint64(v))
#else
#define NL_T float
#define NL_T2 vec2
#define NL_STORE(a, o, v) RS_SET_F(X_DT)(a, o, v)
#endif

NL_T nl_x(uint64_t i) { return NL_T(RS_LDO(X_DT)(pc.input_, int64_t(i))); }

// The target of element e = (i, k) and its weight; false when ignored.
bool nl_target(uint64_t e, out int64_t t, out NL_T w) {
    t = int64_t(RS_LDO(T_DT_)(pc.target, int64_t(e)));
    w = 0.0;
    if (t == pc.ignore_index) return false;
    if (uint64_t(t) >= pc.c) {  // negative targets too, as unsigned
        rs_raise(1u, t);
        return false;
    }
#if HAS_W
    w = NL_T(RS_LDO(X_DT)(pc.weight, t));
#else
    w = 1.0;
#endif
    return true;
}

// offset of class t of element e = i * s + k in the (n, c, s) input
uint64_t nl_at(uint64_t e, int64_t t) { return (e / pc.s * pc.c + uint64_t(t)) * pc.s + e % pc.s; }

shared NL_T2 sh[RS_WG];

void main() {
    uint64_t total = pc.n * pc.s;
#if MODE == 0 && REDUCE == 0
    RS_FOR_EACH(e, total) {
        int64_t t;
        NL_T w;
        NL_T r = 0.0;
        if (nl_target(e, t, w)) r = -nl_x(nl_at(e, t)) * w;
        NL_STORE(pc.out_, int64_t(e), r);
    }
#elif MODE == 0
    // one workgroup: (loss, total weight)
    uint lid = gl_LocalInvocationID.x;
    NL_T2 acc = NL_T2(0.0);
    for (uint64_t e = uint64_t(lid); e < total; e += uint64_t(RS_WG)) {
        int64_t t;
        NL_T w;
        if (nl_target(e, t, w)) acc += NL_T2(-nl_x(nl_at(e, t)) * w, w);
    }
    sh[lid] = acc;
    for (uint h = uint(RS_WG) / 2u; h > 0u; h >>= 1) {
        barrier();
        if (lid < h) sh[lid] += sh[lid + h];
    }
    barrier();
    if (lid == 0u) {
        NL_T2 r = sh[0];
#if REDUCE == 1
        NL_STORE(pc.out_, 0L, r.x / r.y);
#else
        NL_STORE(pc.out_, 0L, r.x);
#endif
        NL_STORE(pc.total_weight, 0L, r.y);
    }
#else
    // backward into a zeroed grad_input: -w * g (g / total weight for mean)
#if REDUCE != 0
    NL_T g = NL_T(RS_LDO(X_DT)(pc.grad_output, 0L));
#if REDUCE == 1
    g = g / NL_T(RS_LDO(X_DT)(pc.total_weight, 0L));
#endif
#endif
    RS_FOR_EACH(e, total) {
        int64_t t;
        NL_T w;
        if (!nl_target(e, t, w)) continue;
#if REDUCE == 0
        NL_T g = NL_T(RS_LDO(X_DT)(pc.grad_output, int64_t(e)));
#endif
        NL_STORE(pc.out_, int64_t(nl_at(e, t)), w * -g);
    }
#endif
}
