// fused_adam.comp: one Adam/AdamW step of one parameter (src/engine/optim.c),
// the math and order of ATen's FusedAdamKernel (float arithmetic; the
// helpers are kernels/common/ops_misc.glsl's, shared with the pointwise
// path). The step count, grad_scale and found_inf are float32 scalars read
// here, so the host never reads them.
// Defines: DT (the dtype of param, grad and the state), AMSGRAD, ADAMW,
// MAXIMIZE, WD (weight decay != 0), SCALE (grad_scale given), FOUND
// (found_inf given).
#version 460
#include "common/dtype.glsl"
#include "params/optim.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_ADAM_PUSH } pc;

// (the shared op helpers may raise the device error flag; these never do)
#define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)
#define CM_DT 6
#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#include "common/ops.glsl"

// a float32 scalar on the device (a step count, grad_scale, found_inf)
float scalar_at(uint64_t a) { return uintBitsToFloat(RsU32(a).v); }

void main() {
#if FOUND
    if (scalar_at(pc.found) == 1.0) return;
#endif
    // 1 - beta^step without float64: -expm1(step * log(beta)), log(beta)
    // from the host's double
    const float step = scalar_at(pc.step);
    const float bc1 = -rs_op_expm1(step * pc.lb1);
    const float bc2 = -rs_op_expm1(step * pc.lb2);
    const float neg_step = -(pc.lr / bc1);
    const float bc2_sqrt = rs_sqrt_cr(bc2);
#if SCALE
    const float scale = scalar_at(pc.scale);
#endif
    RS_FOR_EACH(i, pc.numel) {
        const int64_t o = int64_t(i);
        float g = RS_LDO(DT)(pc.g, o);
#if SCALE
        g = g / scale;
        RS_SET_F(DT)(pc.g, o, g);
#endif
        const float p = RS_LDO(DT)(pc.p, o);
        g = rs_mx_adam_grad(g, p, pc.wd, MAXIMIZE != 0, WD != 0 && ADAMW == 0);
        const float m = rs_mx_adam_m(RS_LDO(DT)(pc.m, o), g, pc.c1);
        float v = rs_mx_adam_v(RS_LDO(DT)(pc.v, o), g, pc.beta2, pc.c2);
        RS_SET_F(DT)(pc.m, o, m);
        RS_SET_F(DT)(pc.v, o, v);
#if AMSGRAD
        v = rs_maximum(RS_LDO(DT)(pc.vmax, o), v);
        RS_SET_F(DT)(pc.vmax, o, v);
#endif
        RS_SET_F(DT)(pc.p, o, rs_mx_adam_param(p, m, v, pc.decay, neg_step, bc2_sqrt, pc.eps));
    }
}
