// Regression losses: mse_loss, smooth_l1_loss, huber_loss and their
// backward kernels, composed from native pointwise ops and reductions in
// CPU's order of operations (ATen's PointwiseOpsKernel / BinaryOpsKernel
// lambdas): the per-element loss rounded to the dtype (mse: the difference
// in the dtype, then its square; smooth_l1/huber: in float32 for
// float16/bfloat16, rounded once), then the reduction.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"

#include <ATen/core/Reduction.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/huber_loss_backward_ops.h>
#include <ATen/ops/huber_loss_ops.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mse_loss_backward_ops.h>
#include <ATen/ops/mse_loss_ops.h>
#include <ATen/ops/smooth_l1_loss_backward_ops.h>
#include <ATen/ops/smooth_l1_loss_ops.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

at::ScalarType opmath_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

// the per-element losses `elems` (opmath type) rounded to the dtype, reduced
void reduce_into(const Tensor& elems, at::ScalarType dtype, int64_t reduction, Tensor& out) {
  Tensor loss = elems.to(dtype);
  if (reduction == at::Reduction::Mean) loss = loss.mean();
  else if (reduction == at::Reduction::Sum) loss = loss.sum();
  write_out(out, loss);
}

// a - b in the opmath type, broadcast
Tensor diff(const Tensor& self, const Tensor& target) {
  auto t = opmath_of(self);
  return self.to(t).sub(target.to(t));
}

Tensor& mse_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out) {
  return native_or_host<at::_ops::mse_loss_out>(
      [&]() -> Tensor& {
        refuse_unless(is_nn_float(self.scalar_type()), "mse_cpu", self.scalar_type());
        host_if_no_fp64(self);
        // CPU: the difference in the dtype, its square computed once
        Tensor d = self.sub(target);
        reduce_into(d.mul(d), self.scalar_type(), reduction, out);
        return out;
      },
      self, target, reduction, out);
}

// CPU: alpha * (input - target) * grad_output, in the dtype
Tensor& mse_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                              Tensor& grad_input) {
  return native_or_host<at::_ops::mse_loss_backward_grad_input>(
      [&]() -> Tensor& {
        host_if_no_fp64(self);
        double norm = reduction == at::Reduction::Mean ? 2. / static_cast<double>(self.numel()) : 2.;
        Tensor r = self.sub(target).mul_(norm).mul_(grad);
        return write_out(grad_input, r);
      },
      grad, self, target, reduction, grad_input);
}

// smooth_l1: z = |a - b|; z < beta ? 0.5 z z / beta : z - 0.5 beta
Tensor& smooth_l1_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, double beta, Tensor& out) {
  return native_or_host<at::_ops::smooth_l1_loss_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
        host_if_no_fp64(self);
        Tensor z = diff(self, target).abs_();
        Tensor e = beta == 0 ? z : at::where(z.lt(beta), z.mul(0.5).mul_(z).div_(beta), z.sub(0.5 * beta));
        reduce_into(e, self.scalar_type(), reduction, out);
        return out;
      },
      self, target, reduction, beta, out);
}

// x = a - b: x <= -beta ? -norm g : x >= beta ? norm g : norm x g / beta
Tensor& smooth_l1_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target,
                                    int64_t reduction, double beta, Tensor& grad_input) {
  return native_or_host<at::_ops::smooth_l1_loss_backward_grad_input>(
      [&]() -> Tensor& {
        host_if_no_fp64(self);
        double norm = reduction == at::Reduction::Mean ? 1. / static_cast<double>(self.numel()) : 1.;
        Tensor x = diff(self, target);
        Tensor g = grad.to(x.scalar_type()).expand(x.sizes());
        Tensor mid = beta == 0 ? at::zeros_like(x) : x.mul(norm).mul_(g).div_(beta);
        Tensor r = at::where(x.le(-beta), g.mul(-norm), at::where(x.ge(beta), g.mul(norm), mid));
        return write_out(grad_input, r);
      },
      grad, self, target, reduction, beta, grad_input);
}

// huber: z = |a - b|; z < delta ? 0.5 z z : delta (z - 0.5 delta)
Tensor& huber_loss_out(const Tensor& self, const Tensor& target, int64_t reduction, double delta, Tensor& out) {
  return native_or_host<at::_ops::huber_loss_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
        refuse_unless(is_nn_float(self.scalar_type()), "huber_cpu", self.scalar_type());
        host_if_no_fp64(self);
        Tensor z = diff(self, target).abs_();
        Tensor e = at::where(z.lt(delta), z.mul(0.5).mul_(z), z.sub(0.5 * delta).mul_(delta));
        reduce_into(e, self.scalar_type(), reduction, out);
        return out;
      },
      self, target, reduction, delta, out);
}

// x = a - b: x <= -delta ? -norm delta g : x >= delta ? norm delta g : norm x g
Tensor& huber_loss_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                double delta, Tensor& grad_input) {
  return native_or_host<at::_ops::huber_loss_backward_out>(
      [&]() -> Tensor& {
        host_if_no_fp64(self);
        double norm = reduction == at::Reduction::Mean ? 1. / static_cast<double>(self.numel()) : 1.;
        Tensor x = diff(self, target);
        Tensor g = grad.to(x.scalar_type()).expand(x.sizes());
        Tensor r = at::where(x.le(-delta), g.mul(-norm * delta),
                             at::where(x.ge(delta), g.mul(norm * delta), x.mul(norm).mul_(g)));
        return write_out(grad_input, r);
      },
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
