/* amp.c: the gradient scaler's two steps (contract in russet/amp.h) on
 * kernels/amp.comp: one launch a gradient to unscale it and flag
 * non-finite values, one invocation to update the scale, where the
 * adapter composed about eight ops a gradient and a dozen for the scale. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/amp.h"
#include "russet/amp.h"

typedef struct amp_push { RS_AMP_PUSH } amp_push;

/* a one-element view of dt */
static rs_status check_one(const char *name, const char *what, const rs_tensor *t, rs_dtype dt) {
    if (!t || !t->address || rs_tensor_numel(t) != 1 || t->dtype != dt)
        return rs_error(RS_ERR_INVALID, "%s: %s must be a one-element %s tensor", name, what, rs_dtype_name(dt));
    return RS_OK;
}

static rs_status amp_launch(rs_stream *s, int mode, rs_dtype dt, const amp_push *pc, uint64_t items,
                            const rs_access *acc, int n_acc) {
    char defines[32];
    snprintf(defines, sizeof defines, "MODE=%d;DT=%d", mode, (int)dt);
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_get(rs_stream_device(s), "amp.comp", defines, &k);
    if (st != RS_OK) return st;
    return rs_launch(s, k, items, pc, sizeof *pc, acc, n_acc);
}

rs_status rs_amp_unscale(rs_stream *s, const rs_tensor *g, const rs_tensor *found_inf, const rs_tensor *inv_scale) {
    static const char name[] = "_amp_foreach_non_finite_check_and_unscale_";
    if (!s || !g) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    rs_status st;
    if ((st = check_one(name, "found_inf", found_inf, RS_FLOAT32)) || (st = check_one(name, "inv_scale", inv_scale, RS_FLOAT32)))
        return st;
    const rs_dtype dt = g->dtype;
    if (dt != RS_FLOAT32 && dt != RS_FLOAT16 && dt != RS_BFLOAT16 && dt != RS_FLOAT64)
        return rs_error(RS_ERR_INVALID, "%s: expected a floating gradient, got %s", name, rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "%s: float64 needs the device's fp64 arithmetic", name);
    rs_layout l;
    if ((st = rs_layout_make(g, NULL, &l)) != RS_OK || l.numel == 0) return st;
    amp_push pc;
    memset(&pc, 0, sizeof pc);
    pc.g = g->address, pc.numel = (uint64_t)l.numel, pc.ndim = (uint32_t)l.ndim;
    pc.found_inf = found_inf->address, pc.inv_scale = inv_scale->address;
    if ((st = rs_layout_upload(s, &l, 1, &pc.params)) != RS_OK) return st;
    rs_access acc[3] = {rs_tensor_access(g, 1), rs_tensor_access(found_inf, 1), rs_tensor_access(inv_scale, 0)};
    return amp_launch(s, 0, dt, &pc, pc.numel, acc, 3);
}

rs_status rs_amp_update_scale(rs_stream *s, const rs_tensor *scale, const rs_tensor *growth_tracker,
                              const rs_tensor *found_inf, double growth_factor, double backoff_factor,
                              int64_t growth_interval) {
    static const char name[] = "_amp_update_scale_";
    if (!s) return rs_error(RS_ERR_INVALID, "%s: missing arguments", name);
    rs_status st;
    if ((st = check_one(name, "current_scale", scale, RS_FLOAT32)) ||
        (st = check_one(name, "growth_tracker", growth_tracker, RS_INT32)) ||
        (st = check_one(name, "found_inf", found_inf, RS_FLOAT32)))
        return st;
    amp_push pc;
    memset(&pc, 0, sizeof pc);
    pc.scale = scale->address, pc.tracker = growth_tracker->address, pc.found_inf = found_inf->address;
    pc.interval = growth_interval;
    memcpy(&pc.factor[0], &growth_factor, 8);
    memcpy(&pc.factor[1], &backoff_factor, 8);
    rs_access acc[3] = {rs_tensor_access(scale, 1), rs_tensor_access(growth_tracker, 1),
                        rs_tensor_access(found_inf, 0)};
    return amp_launch(s, 1, RS_FLOAT32, &pc, 1, acc, 3);
}
