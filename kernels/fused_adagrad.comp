// fused_adagrad.comp: one Adagrad step of one parameter (src/engine/optim.c),
// the math and order of ATen's FusedAdagradKernel (float arithmetic; the
// helpers are kernels/common/ops_misc.glsl's). The step count, grad_scale
// and found_inf are float32 scalars read here, so the host never reads them.
// Defines: DT (the dtype of param, grad and state_sum), MAXIMIZE, WD
// (weight decay != 0), SCALE (grad_scale given), FOUND (found_inf given),
// ROUND_LR (the rate rounded to float16/bfloat16 as torch 2.13; 2.15 keeps
// it in float).
#version 460
#include "common/dtype.glsl"
#include "params/optim.h"
#include "common/index.glsl"
#include "common/opmath.glsl"
#include "common/error.glsl"

layout(local_size_x = RS_WG) in;

layout(push_constant) uniform Push { RS_ADAGRAD_PUSH } pc;

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
    const float step = scalar_at(pc.step);
    float clr = pc.lr / (1.0 + (step - 1.0) * pc.lr_decay);
#if ROUND_LR && DT == 5
    clr = rs_f16_dec(rs_f16_enc(clr));     // torch 2.13's vector loop: scalar_t(clr)
#elif ROUND_LR && DT == 15
    clr = rs_bf16_dec(rs_bf16_enc(clr));
#endif
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
        g = rs_mx_adam_grad(g, p, pc.wd, MAXIMIZE != 0, WD != 0);
        const float sum = rs_mx_adagrad_sum(RS_LDO(DT)(pc.sum, o), g);
        RS_SET_F(DT)(pc.sum, o, sum);
        RS_SET_F(DT)(pc.p, o, rs_mx_adagrad_param(p, g, sum, clr, pc.eps));
    }
}
