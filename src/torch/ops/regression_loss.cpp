// Regression losses: mse_loss, smooth_l1_loss, huber_loss and their
// backward kernels, each one call of the C core (rs_regression_loss_*,
// src/engine/regression_loss.c: the per-element loss in CPU's order of
// operations, then the reduction). Here: ATen's checks and refusals, the
// broadcast of input and target, and the outputs. Other dtypes, mixed
// ones and float64 without fp64 run through host execution.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/reduce.h"
#include "russet/loss.h"

#include <ATen/core/Reduction.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/huber_loss_backward_ops.h>
#include <ATen/ops/huber_loss_ops.h>
#include <ATen/ops/mse_loss_backward_ops.h>
#include <ATen/ops/mse_loss_ops.h>
#include <ATen/ops/smooth_l1_loss_backward_ops.h>
#include <ATen/ops/smooth_l1_loss_ops.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

// input and target broadcast to one shape, conj/neg resolved; the engine
// takes one dtype
std::pair<Tensor, Tensor> operands(const Tensor& self, const Tensor& target) {
  if (target.scalar_type() != self.scalar_type()) throw NeedsHost{};
  auto shape = at::infer_size(self.sizes(), target.sizes());
  return {resolved(self.expand(shape)), resolved(target.expand(shape))};
}

// the loss into out: the broadcast shape (reduction none) or a scalar
Tensor& loss_forward(rs_regression_loss_kind kind, const Tensor& self, const Tensor& target, int64_t reduction,
                     double param, Tensor& out) {
  host_if_no_fp64(self);
  auto [a, b] = operands(self, target);
  if (out.scalar_type() != self.scalar_type()) throw NeedsHost{};
  at::native::resize_output(out, reduction == at::Reduction::None ? a.sizes() : at::IntArrayRef{});
  rs_regression_loss p{};
  p.kind = kind, p.reduction = static_cast<int>(reduction), p.param = param;
  p.input = describe(a), p.target = describe(b), p.out = describe(out);
  check_or_host(rs_regression_loss_forward(current_stream_for(self), &p));
  return out;
}

// grad_input (the broadcast shape) from grad (that shape, or a scalar)
Tensor& loss_backward(rs_regression_loss_kind kind, const Tensor& grad, const Tensor& self, const Tensor& target,
                      int64_t reduction, double param, Tensor& grad_input) {
  host_if_no_fp64(self);
  auto [a, b] = operands(self, target);
  if (grad.scalar_type() != self.scalar_type() || grad_input.scalar_type() != self.scalar_type()) throw NeedsHost{};
  const Tensor g = grad.numel() == 1 ? resolved(grad) : resolved(grad.expand(a.sizes()));
  at::native::resize_output(grad_input, a.sizes());
  rs_regression_loss p{};
  p.kind = kind, p.reduction = static_cast<int>(reduction), p.param = param;
  p.input = describe(a), p.target = describe(b), p.grad_out = describe(g), p.grad_input = describe(grad_input);
  check_or_host(rs_regression_loss_backward(current_stream_for(self), &p));
  return grad_input;
}

Tensor& mse_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out) {
  return native_or_host<at::_ops::mse_loss_out>(
      [&]() -> Tensor& {
        refuse_unless(is_nn_float(self.scalar_type()), "mse_cpu", self.scalar_type());
        return loss_forward(RS_LOSS_MSE, self, target, reduction, 0.0, out);
      },
      self, target, reduction, out);
}

Tensor& mse_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                              Tensor& grad_input) {
  return native_or_host<at::_ops::mse_loss_backward_grad_input>(
      [&]() -> Tensor& { return loss_backward(RS_LOSS_MSE, grad, self, target, reduction, 0.0, grad_input); },
      grad, self, target, reduction, grad_input);
}

Tensor& smooth_l1_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, double beta, Tensor& out) {
  return native_or_host<at::_ops::smooth_l1_loss_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
        return loss_forward(RS_LOSS_SMOOTH_L1, self, target, reduction, beta, out);
      },
      self, target, reduction, beta, out);
}

Tensor& smooth_l1_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target,
                                    int64_t reduction, double beta, Tensor& grad_input) {
  return native_or_host<at::_ops::smooth_l1_loss_backward_grad_input>(
      [&]() -> Tensor& {
        return loss_backward(RS_LOSS_SMOOTH_L1, grad, self, target, reduction, beta, grad_input);
      },
      grad, self, target, reduction, beta, grad_input);
}

Tensor& huber_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, double delta, Tensor& out) {
  return native_or_host<at::_ops::huber_loss_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
        refuse_unless(is_nn_float(self.scalar_type()), "huber_cpu", self.scalar_type());
        return loss_forward(RS_LOSS_HUBER, self, target, reduction, delta, out);
      },
      self, target, reduction, delta, out);
}

Tensor& huber_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                double delta, Tensor& grad_input) {
  return native_or_host<at::_ops::huber_loss_backward_out>(
      [&]() -> Tensor& { return loss_backward(RS_LOSS_HUBER, grad, self, target, reduction, delta, grad_input); },
      grad, self, target, reduction, delta, grad_input);
}

template <class Fn, class... Args>
Tensor functional(Fn fn, const Tensor& self, Args... args) {
  Tensor out = at::empty({0}, self.options());
  fn(self, args..., out);
  return out;
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return functional(mse_loss_out, self, target, reduction);
}
Tensor mse_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor out = at::empty({0}, self.options());
  return mse_loss_backward_out(grad, self, target, reduction, out);
}
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  return functional(smooth_l1_loss_out, self, target, reduction, beta);
}
Tensor smooth_l1_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                               double beta) {
  Tensor out = at::empty({0}, self.options());
  return smooth_l1_loss_backward_out(grad, self, target, reduction, beta, out);
}
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  return functional(huber_loss_out, self, target, reduction, delta);
}
Tensor huber_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                           double delta) {
  Tensor out = at::empty({0}, self.options());
  return huber_loss_backward_out(grad, self, target, reduction, delta, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mse_loss.out", mse_loss_out);
  m.impl("mse_loss", mse_loss);
  m.impl("mse_loss_backward.grad_input", mse_loss_backward_out);
  m.impl("mse_loss_backward", mse_loss_backward);
  m.impl("smooth_l1_loss.out", smooth_l1_loss_out);
  m.impl("smooth_l1_loss", smooth_l1_loss);
  m.impl("smooth_l1_loss_backward.grad_input", smooth_l1_loss_backward_out);
  m.impl("smooth_l1_loss_backward", smooth_l1_loss_backward);
  m.impl("huber_loss.out", huber_loss_out);
  m.impl("huber_loss", huber_loss);
  m.impl("huber_loss_backward.out", huber_loss_backward_out);
  m.impl("huber_loss_backward", huber_loss_backward);
}

}  // namespace russet
