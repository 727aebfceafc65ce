/* loss.c: nll_loss forward and backward (kernels/nll_loss.comp): the
 * float32 family in float, float64 in double (fp64 devices). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/loss.h"

typedef struct nll_push { RS_NLL_PUSH } nll_push;

static rs_status nll_run(rs_stream *s, const rs_nll_loss *p, int backward) {
    const char *name = backward ? "nll_loss_backward" : "nll_loss";
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_nll_loss: missing arguments");
    if (p->dtype != RS_FLOAT32 && p->dtype != RS_FLOAT16 && p->dtype != RS_BFLOAT16 && p->dtype != RS_FLOAT64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: the kernels compute float32, float16, bfloat16 and float64 (got %s)",
                        name, rs_dtype_name(p->dtype));
    if (p->dtype == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs the device's fp64 arithmetic", name);
    if (p->target_dtype != RS_INT64 && p->target_dtype != RS_UINT8)
        return rs_error(RS_ERR_INVALID, "%s: targets must be int64 or uint8 (got %s)", name,
                        rs_dtype_name(p->target_dtype));
    if (p->reduction < 0 || p->reduction > 2) return rs_error(RS_ERR_INVALID, "%s: bad reduction %d", name, p->reduction);
    if (p->n < 0 || p->c < 0 || p->s < 1) return rs_error(RS_ERR_INVALID, "%s: bad sizes", name);
    uint64_t total = (uint64_t)p->n * (uint64_t)p->s;
    /* forward with a reduction writes its sums even for no element */
    if (total == 0 && (backward || p->reduction == 0)) return RS_OK;

    rs_device *dev = rs_stream_device(s);
    nll_push pc;
    memset(&pc, 0, sizeof pc);
    pc.input_ = p->input;
    pc.target = p->target;
    pc.weight = p->weight;
    pc.out_ = backward ? p->grad_input : p->out;
    pc.total_weight = p->total_weight;
    pc.grad_output = p->grad_output;
    pc.n = (uint64_t)p->n;
    pc.c = (uint64_t)p->c;
    pc.s = (uint64_t)p->s;
    pc.ignore_index = p->ignore_index;
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, name);
    char defines[128];
    snprintf(defines, sizeof defines, "MODE=%d;REDUCE=%d;X_DT=%d;T_DT_=%d;HAS_W=%d", backward, p->reduction,
             (int)p->dtype, (int)p->target_dtype, p->weight ? 1 : 0);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(dev, "nll_loss.comp", defines, &k);
    if (st != RS_OK) return st;

    uint64_t xs = rs_dtype_size(p->dtype);
    uint64_t in_bytes = total * (uint64_t)p->c * xs;
    rs_access acc[6];
    int n = 0;
    acc[n++] = (rs_access){p->target, total * rs_dtype_size(p->target_dtype), 0};
    if (p->weight) acc[n++] = (rs_access){p->weight, (uint64_t)p->c * xs, 0};
    uint64_t red_bytes = p->reduction == 0 ? total * xs : xs;
    if (!backward) {
        acc[n++] = (rs_access){p->input, in_bytes, 0};
        acc[n++] = (rs_access){p->out, red_bytes, 1};
        if (p->reduction != 0) acc[n++] = (rs_access){p->total_weight, xs, 1};
    } else {
        acc[n++] = (rs_access){p->grad_input, in_bytes, 1};
        acc[n++] = (rs_access){p->grad_output, red_bytes, 0};
        if (p->reduction == 1) acc[n++] = (rs_access){p->total_weight, xs, 0};
    }
    if (!backward && p->reduction != 0) {
        uint32_t g[3] = {1, 1, 1};
        return rs_dispatch(s, k, g, &pc, sizeof pc, acc, n);
    }
    return rs_launch(s, k, total, &pc, sizeof pc, acc, n);
}

rs_status rs_nll_loss_forward(rs_stream *s, const rs_nll_loss *p) { return nll_run(s, p, 0); }
rs_status rs_nll_loss_backward(rs_stream *s, const rs_nll_loss *p) { return nll_run(s, p, 1); }
