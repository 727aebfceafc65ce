/* russet/amp.h: the gradient scaler's two steps (torch.amp.GradScaler:
 * _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_;
 * src/engine/amp.c, kernels/amp.comp), as CUDA's kernels compute them and
 * with nothing waiting for the GPU. */
#ifndef RUSSET_AMP_H
#define RUSSET_AMP_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch a gradient: g *= inv_scale, the product in float32 (float64
 * for a float64 g) rounded once to g's dtype, and found_inf = 1.0f where
 * an element of g was inf or NaN (left as it is otherwise). g float16,
 * bfloat16 or float32 (float64 where the device has fp64 arithmetic:
 * RS_ERR_UNSUPPORTED otherwise), any strides; inv_scale and found_inf
 * one-element float32 views. */
RS_API rs_status rs_amp_unscale(rs_stream *s, const rs_tensor *g, const rs_tensor *found_inf,
                                const rs_tensor *inv_scale);

/* One invocation: with found_inf != 0, scale *= backoff_factor and the
 * tracker = 0; else the tracker + 1, and when it reaches growth_interval
 * the scale grows by growth_factor (if the grown scale is finite) and the
 * tracker = 0. scale times a factor is float(double(scale) * factor), as
 * CPU's and CUDA's float-times-double, exactly, in integer arithmetic (no
 * fp64 needed). scale and found_inf one-element float32,
 * growth_tracker one-element int32. */
RS_API rs_status rs_amp_update_scale(rs_stream *s, const rs_tensor *scale, const rs_tensor *growth_tracker,
                                     const rs_tensor *found_inf, double growth_factor, double backoff_factor,
                                     int64_t growth_interval);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_AMP_H */
