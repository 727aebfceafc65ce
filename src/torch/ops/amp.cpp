// The gradient scaler's two ops (torch.amp.GradScaler("russet")), each a
// call of the C core (rs_amp_unscale, rs_amp_update_scale:
// src/engine/amp.c), as CUDA's kernels compute them: no sync.
// - _amp_foreach_non_finite_check_and_unscale_: every gradient times
//   inv_scale (computed in float32, rounded once to the gradient's dtype),
//   found_inf set to 1 if any element was inf or NaN; one launch a
//   gradient (a float64 one without fp64: composed of ops that run on the
//   host);
// - _amp_update_scale_: back off on found_inf, grow after growth_interval
//   steps without one (a grown scale that is not finite is not taken), the
//   scale times a factor rounded as CPU's float-times-double; one launch.
#include "torch/pointwise.h"
#include "russet/amp.h"

#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale_ops.h>
#include <ATen/ops/_amp_update_scale_ops.h>
#include <ATen/ops/any.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/logical_not.h>
#include <ATen/ops/maximum.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

void check_scalar_float(const Tensor& t, const char* what) {
  TORCH_CHECK(t.numel() == 1, what, " must be a 1-element tensor.");
  TORCH_CHECK(t.scalar_type() == at::kFloat, what, " must be a float tensor.");
}

void non_finite_check_and_unscale(at::TensorList grads, Tensor& found_inf, const Tensor& inv_scale) {
  check_scalar_float(inv_scale, "inv_scale");
  check_scalar_float(found_inf, "found_inf");
  const rs_tensor tf = describe(found_inf), ti = describe(inv_scale);
  for (const Tensor& g : grads) {
    TORCH_CHECK(g.device() == found_inf.device() && g.device() == inv_scale.device(),
                "_amp_foreach_non_finite_check_and_unscale_: all tensors must be on the same device, found ",
                g.device(), ", ", found_inf.device(), " and ", inv_scale.device());
    TORCH_CHECK(at::isFloatingType(g.scalar_type()), "_amp_foreach_non_finite_check_and_unscale_: "
                "expected floating point gradients, got ", g.scalar_type());
    if (g.numel() == 0) continue;
    const rs_tensor tg = describe(g);
    rs_status st = rs_amp_unscale(current_stream_for(g), &tg, &tf, &ti);
    if (st != RS_ERR_UNSUPPORTED) {
      check(st);
      continue;
    }
    // float64 without fp64 arithmetic: the same steps as ops (host execution)
    Tensor bad = at::logical_not(at::isfinite(g)).any().to(at::kFloat).reshape(found_inf.sizes());
    found_inf.copy_(at::maximum(found_inf, bad));
    g.mul_(inv_scale.reshape({}));
  }
}

Tensor& update_scale(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                     double backoff_factor, int64_t growth_interval) {
  check_scalar_float(scale, "current_scale");
  check_scalar_float(found_inf, "found_inf");
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(scale.device() == growth_tracker.device() && scale.device() == found_inf.device(),
              "_amp_update_scale_: all tensors must be on the same device");
  const rs_tensor ts = describe(scale), tt = describe(growth_tracker), tf = describe(found_inf);
  check(rs_amp_update_scale(current_stream_for(scale), &ts, &tt, &tf, growth_factor, backoff_factor,
                            growth_interval));
  return scale;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_amp_foreach_non_finite_check_and_unscale_", non_finite_check_and_unscale);
  m.impl("_amp_update_scale_", update_scale);
}

}  // namespace russet
