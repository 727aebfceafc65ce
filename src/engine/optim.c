/* optim.c: fused optimizer steps (kernels/fused_adam.comp). One kernel an
 * Adam/AdamW parameter, reading its step count, grad_scale and found_inf
 * on the device: no host wait (CUDA's fused kernels read them there too). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "russet/optim.h"

typedef struct adam_push {
    uint64_t p, g, m, v, vmax;
    uint64_t step, scale, found;
    uint64_t numel, err;
    float lr, c1, beta2, c2;
    float wd, eps, lb1, lb2;
    float decay;
    uint32_t site;
} adam_push;

rs_status rs_adam_step_run(rs_stream *s, const rs_adam_step *p) {
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_adam_step: missing arguments");
    if (p->dtype != RS_FLOAT32 && p->dtype != RS_FLOAT16 && p->dtype != RS_BFLOAT16)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_adam_step: float32, float16 and bfloat16 only (got %s)",
                        rs_dtype_name(p->dtype));
    if (p->numel < 0) return rs_error(RS_ERR_INVALID, "rs_adam_step: negative numel");
    if (p->numel == 0) return RS_OK;
    if (!p->param || !p->grad || !p->exp_avg || !p->exp_avg_sq || !p->step)
        return rs_error(RS_ERR_INVALID, "rs_adam_step: missing tensor");
    if (!(p->beta1 > 0 && p->beta1 < 1 && p->beta2 > 0 && p->beta2 < 1))
        return rs_error(RS_ERR_INVALID, "rs_adam_step: betas must lie in (0, 1) (got %g, %g)", p->beta1, p->beta2);
    int amsgrad = p->max_exp_avg_sq != 0;
    char defines[128];
    snprintf(defines, sizeof defines, "DT=%d;AMSGRAD=%d;ADAMW=%d;MAXIMIZE=%d;WD=%d;SCALE=%d;FOUND=%d",
             (int)p->dtype, amsgrad, p->adamw != 0, p->maximize != 0, p->weight_decay != 0.0,
             p->grad_scale != 0, p->found_inf != 0);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "fused_adam.comp", defines, &k);
    if (st != RS_OK) return st;
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
    /* absent operands (address 0) are left out */
    rs_access used[8];
    int n = 0;
    for (int i = 0; i < 8; i++)
        if (acc[i].address) used[n++] = acc[i];
    return rs_launch(s, k, (uint64_t)p->numel, &pc, sizeof pc, used, n);
}
