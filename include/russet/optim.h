/* russet/optim.h: fused optimizer steps of the C core (src/engine/optim.c).
 * russet/russet.h includes it. */
#ifndef RUSSET_OPTIM_H
#define RUSSET_OPTIM_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Adam or AdamW step of one parameter, in one kernel
 * (kernels/fused_adam.comp), as ATen's FusedAdamKernel computes it: float
 * arithmetic, its order of operations. param, grad, exp_avg, exp_avg_sq
 * and max_exp_avg_sq (amsgrad only, else 0) are contiguous, numel
 * elements of one dtype (float32, float16 or bfloat16). step, grad_scale
 * and found_inf are the addresses of float32 scalars on the device
 * (grad_scale and found_inf may be 0: absent), read by the kernel, so the
 * host never waits: found_inf == 1 leaves everything untouched; grad_scale
 * divides the gradient, which is written back. The bias corrections
 * 1 - beta^step are computed on the device in float32 as
 * -expm1(step * log(beta)) (no float64 needed: the apple profile), within a
 * few ulp of ATen's float64. */
typedef struct rs_adam_step {
    rs_dtype dtype;
    int64_t numel;
    uint64_t param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq;
    uint64_t step, grad_scale, found_inf;
    double lr, beta1, beta2, weight_decay, eps;
    int adamw;    /* decoupled weight decay (AdamW), else L2 (Adam) */
    int maximize;
} rs_adam_step;

RS_API rs_status rs_adam_step_run(rs_stream *s, const rs_adam_step *p);

/* One Adagrad step of one parameter (kernels/fused_adagrad.comp), as
 * ATen's FusedAdagradKernel: the same tensors and scalars as rs_adam_step
 * (state_sum for the moments); the learning rate lr / (1 + (step - 1) *
 * lr_decay) is computed on the device in float32 (ATen: double, then
 * rounded), and for float16/bfloat16 weight_decay, eps and that rate are
 * rounded to the dtype, as torch 2.13's vector loop does; float_scalars
 * keeps them in float, as torch 2.15's kernel does (docs/torch-versions.md). */
typedef struct rs_adagrad_step {
    rs_dtype dtype;
    int64_t numel;
    uint64_t param, grad, state_sum;
    uint64_t step, grad_scale, found_inf;
    double lr, lr_decay, weight_decay, eps;
    int maximize;
    int float_scalars;  /* 0: scalars rounded to float16/bfloat16 (torch < 2.15), 1: kept in float */
} rs_adagrad_step;

RS_API rs_status rs_adagrad_step_run(rs_stream *s, const rs_adagrad_step *p);

#ifdef __cplusplus
}
#endif

#endif
