/* optim.c: fused optimizer steps (kernels/fused_adam.comp,
 * kernels/fused_adagrad.comp). One kernel a parameter, reading its step
 * count, grad_scale and found_inf on the device: no host wait (CUDA's fused
 * kernels read them there too). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/optim.h"
#include "russet/optim.h"

typedef struct adam_push { RS_ADAM_PUSH } adam_push;

/* the checks both steps share; *skip is set when there is nothing to do */
static rs_status check_common(const char *name, rs_dtype dt, int64_t numel, int has_tensors, int *skip) {
    *skip = 0;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float32, float16 and bfloat16 only (got %s)", name,
                        rs_dtype_name(dt));
    if (numel < 0) return rs_error(RS_ERR_INVALID, "%s: negative numel", name);
    *skip = numel == 0;
    if (!*skip && !has_tensors) return rs_error(RS_ERR_INVALID, "%s: missing tensor", name);
    return RS_OK;
}

/* launches `k` over numel elements with the accesses that are present
 * (address 0: an absent operand) */
static rs_status launch_present(rs_stream *s, rs_kernel *k, int64_t numel, const void *pc, uint32_t size,
                                const rs_access *acc, int n_acc) {
    rs_access used[8];
    int n = 0;
    for (int i = 0; i < n_acc && n < 8; i++)
        if (acc[i].address) used[n++] = acc[i];
    return rs_launch(s, k, (uint64_t)numel, pc, size, used, n);
}

rs_status rs_adam_step_run(rs_stream *s, const rs_adam_step *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_adam_step: missing arguments");
    int skip;
    rs_status st = check_common("rs_adam_step", p->dtype, p->numel,
                                p->param && p->grad && p->exp_avg && p->exp_avg_sq && p->step, &skip);
    if (st != RS_OK || skip) return st;
    if (!(p->beta1 > 0 && p->beta1 < 1 && p->beta2 > 0 && p->beta2 < 1))
        return rs_error(RS_ERR_INVALID, "rs_adam_step: betas must lie in (0, 1) (got %g, %g)", p->beta1, p->beta2);
    int amsgrad = p->max_exp_avg_sq != 0;
    char defines[128];
    snprintf(defines, sizeof defines, "DT=%d;AMSGRAD=%d;ADAMW=%d;MAXIMIZE=%d;WD=%d;SCALE=%d;FOUND=%d",
             (int)p->dtype, amsgrad, p->adamw != 0, p->maximize != 0, p->weight_decay != 0.0,
             p->grad_scale != 0, p->found_inf != 0);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "fused_adam.comp", defines, &k)) != RS_OK) return st;
    adam_push pc;
    memset(&pc, 0, sizeof pc);
    pc.p = p->param, pc.g = p->grad, pc.m = p->exp_avg, pc.v = p->exp_avg_sq, pc.vmax = p->max_exp_avg_sq;
    pc.step = p->step, pc.scale = p->grad_scale, pc.found = p->found_inf;
    pc.numel = (uint64_t)p->numel;
    pc.err = rs_device_error_address(rs_stream_device(s));
    pc.site = rs_device_error_site(rs_stream_device(s), "fused_adam");
    /* the scalars as ATen's kernel rounds them: computed in double, then float */
    pc.lr = (float)p->lr;
    pc.c1 = (float)(1 - p->beta1);
    pc.beta2 = (float)p->beta2;
    pc.c2 = (float)(1 - p->beta2);
    pc.wd = (float)p->weight_decay;
    pc.eps = (float)p->eps;
    pc.lb1 = (float)log(p->beta1);
    pc.lb2 = (float)log(p->beta2);
    pc.decay = (float)(p->adamw && p->weight_decay != 0.0 ? 1 - p->lr * p->weight_decay : 1.0);
    uint64_t bytes = (uint64_t)p->numel * rs_dtype_size(p->dtype);
    rs_access acc[8] = {{p->param, bytes, 1}, {p->grad, bytes, p->grad_scale != 0}, {p->exp_avg, bytes, 1},
                        {p->exp_avg_sq, bytes, 1}, {p->step, 4, 0}, {p->grad_scale, 4, 0},
                        {p->found_inf, 4, 0}, {p->max_exp_avg_sq, bytes, 1}};
    return launch_present(s, k, p->numel, &pc, sizeof pc, acc, 8);
}

typedef struct adagrad_push { RS_ADAGRAD_PUSH } adagrad_push;

/* x as ATen's vector loop uses a scalar: rounded to the dtype (float16,
 * bfloat16), through float; torch 2.15 and later keep it in float */
static float round_to(rs_dtype dt, double x, int float_scalars) {
    return float_scalars ? (float)x : rs_round_float(dt, (float)x);
}

rs_status rs_adagrad_step_run(rs_stream *s, const rs_adagrad_step *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_adagrad_step: missing arguments");
    int skip;
    rs_status st = check_common("rs_adagrad_step", p->dtype, p->numel,
                                p->param && p->grad && p->state_sum && p->step, &skip);
    if (st != RS_OK || skip) return st;
    char defines[112];
    snprintf(defines, sizeof defines, "DT=%d;MAXIMIZE=%d;WD=%d;SCALE=%d;FOUND=%d;ROUND_LR=%d", (int)p->dtype,
             p->maximize != 0, p->weight_decay != 0.0, p->grad_scale != 0, p->found_inf != 0,
             p->float_scalars == 0);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "fused_adagrad.comp", defines, &k)) != RS_OK) return st;
    adagrad_push pc;
    memset(&pc, 0, sizeof pc);
    pc.p = p->param, pc.g = p->grad, pc.sum = p->state_sum;
    pc.step = p->step, pc.scale = p->grad_scale, pc.found = p->found_inf;
    pc.numel = (uint64_t)p->numel;
    pc.err = rs_device_error_address(rs_stream_device(s));
    pc.site = rs_device_error_site(rs_stream_device(s), "fused_adagrad");
    pc.lr = (float)p->lr;
    pc.lr_decay = (float)p->lr_decay;
    pc.wd = round_to(p->dtype, p->weight_decay, p->float_scalars);
    pc.eps = round_to(p->dtype, p->eps, p->float_scalars);
    uint64_t bytes = (uint64_t)p->numel * rs_dtype_size(p->dtype);
    rs_access acc[6] = {{p->param, bytes, 1}, {p->grad, bytes, p->grad_scale != 0}, {p->state_sum, bytes, 1},
                        {p->step, 4, 0}, {p->grad_scale, 4, 0}, {p->found_inf, 4, 0}};
    return launch_present(s, k, p->numel, &pc, sizeof pc, acc, 6);
}
