// The gradient scaler's two ops (torch.amp.GradScaler("russet")), composed
// from native pointwise and reduction ops on 0-d device tensors: no sync,
// as on CUDA.
// - _amp_foreach_non_finite_check_and_unscale_: every gradient times
//   inv_scale (computed in float32, rounded once to the gradient's dtype),
//   found_inf set to 1 if any element was inf or NaN;
// - _amp_update_scale_: back off on found_inf, grow after growth_interval
//   steps without one (a grown scale that is not finite is not taken); the
//   scale times a factor rounds as CPU's float-times-double (mul_as_double).
#include "torch/pointwise.h"

#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale_ops.h>
#include <ATen/ops/_amp_update_scale_ops.h>
#include <ATen/ops/any.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/logical_and.h>
#include <ATen/ops/logical_not.h>
#include <ATen/ops/logical_or.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
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
  for (const Tensor& g : grads) {
    TORCH_CHECK(g.device() == found_inf.device() && g.device() == inv_scale.device(),
                "_amp_foreach_non_finite_check_and_unscale_: all tensors must be on the same device, found ",
                g.device(), ", ", found_inf.device(), " and ", inv_scale.device());
    TORCH_CHECK(at::isFloatingType(g.scalar_type()), "_amp_foreach_non_finite_check_and_unscale_: "
                "expected floating point gradients, got ", g.scalar_type());
    if (g.numel() == 0) continue;
    Tensor bad = at::logical_not(at::isfinite(g)).any().to(at::kFloat).reshape(found_inf.sizes());
    found_inf.copy_(at::maximum(found_inf, bad));
    if (g.scalar_type() == at::kFloat || g.scalar_type() == at::kDouble)
      g.mul_(inv_scale.reshape({}));
    else  // float16/bfloat16: the product in float32, rounded once (CUDA's opmath)
      g.copy_(at::mul(g.to(at::kFloat), inv_scale.reshape({})));
  }
}

// float(double(s) * b) for a float32 tensor s, as CPU's and CUDA's scaler
// kernels compute it (float times double). When b is a float32 value, one
// float32 multiply is that (the exact product rounded once). Otherwise
// s * b = s * bh + s * bl (bh = float(b), bl = float(b - bh)): s * bh exact
// as a pair of floats (Dekker's product; separate kernels, so nothing is
// contracted), s * bl 2^-24 smaller and rounded, then one final rounding:
// equal to the double product's rounding except within about 2^-48 of a
// midpoint between two floats. Where the split overflows, the float32
// product.
Tensor mul_as_double(const Tensor& s, double b) {
  const float bh = static_cast<float>(b);
  if (static_cast<double>(bh) == b) return s.mul(b);
  const float bl = static_cast<float>(b - static_cast<double>(bh));
  const float cb = 4097.0f * bh, bhh = cb - (cb - bh), bhl = bh - bhh;  // Veltkamp split on the host
  Tensor c = s.mul(4097.0);
  Tensor shh = c.sub(c.sub(s)), shl = s.sub(shh);
  Tensor p = s.mul(bh);
  Tensor err = shh.mul(bhh).sub(p).add(shh.mul(bhl)).add(shl.mul(bhh)).add(shl.mul(bhl));
  Tensor r = p.add(err.add(s.mul(bl)));
  return at::where(at::isfinite(r), r, s.mul(b));
}

Tensor& update_scale(Tensor& scale, Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
                     double backoff_factor, int64_t growth_interval) {
  check_scalar_float(scale, "current_scale");
  check_scalar_float(found_inf, "found_inf");
  TORCH_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TORCH_CHECK(growth_tracker.scalar_type() == at::kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(scale.device() == growth_tracker.device() && scale.device() == found_inf.device(),
              "_amp_update_scale_: all tensors must be on the same device");
  Tensor s = scale.reshape({}), tracker = growth_tracker.reshape({});
  Tensor inf = found_inf.reshape({}).ne(0);
  Tensor succ = tracker.add(1);
  Tensor grown = mul_as_double(s, growth_factor);
  Tensor grow = at::logical_and(at::logical_not(inf), succ.eq(growth_interval));
  Tensor new_scale =
      at::where(inf, mul_as_double(s, backoff_factor), at::where(at::logical_and(grow, at::isfinite(grown)), grown, s));
  Tensor new_tracker = at::where(at::logical_or(inf, grow), at::zeros_like(succ), succ);
  scale.copy_(new_scale.reshape(scale.sizes()));
  growth_tracker.copy_(new_tracker.reshape(growth_tracker.sizes()));
  return scale;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_amp_foreach_non_finite_check_and_unscale_", non_finite_check_and_unscale);
  m.impl("_amp_update_scale_", update_scale);
}

}  // namespace russet
