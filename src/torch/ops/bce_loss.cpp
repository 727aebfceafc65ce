// binary_cross_entropy and its backward: the per-element loss as a native
// pointwise kernel (common/ops_loss.glsl: CPU's formula, log terms clamped
// at -100, the [0, 1] range checks raised through the device error flag and
// reported at the next sync, as CUDA's device assert is), then the weight
// and the reduction as CPU applies them.
#include "torch/pointwise.h"

#include <ATen/core/Reduction.h>
#include <ATen/ops/binary_cross_entropy_backward_ops.h>
#include <ATen/ops/binary_cross_entropy_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/squeeze.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

void check_sizes(const Tensor& self, const Tensor& target) {
  TORCH_CHECK(self.numel() == target.numel(), "binary_cross_entropy: input and target must have the same number of ",
              "elements, got ", self.sizes(), " and ", target.sizes());
}

// The loss (NeedsHost where the device cannot compute it)
Tensor bce_loss(const Tensor& self, const Tensor& target, const OptTensor& weight, int64_t reduction) {
  host_if_no_fp64(self);
  check_sizes(self, target);
  // CPU: a TensorIterator over the squeezed operands
  Tensor loss = at::empty(self.sizes(), self.options());
  Tensor loss_sq = at::squeeze(loss);
  auto iter = at::TensorIteratorConfig()
                  .add_output(loss_sq)
                  .add_owned_const_input(at::squeeze(self))
                  .add_owned_const_input(at::squeeze(target))
                  .build();
  run_pointwise(iter, "binary_cross_entropy", RS_PW_BINARY_CROSS_ENTROPY);
  if (defined(weight)) loss.mul_(*weight);
  if (reduction == at::Reduction::Mean) loss = loss.mean();
  else if (reduction == at::Reduction::Sum) loss = loss.sum();
  return loss;
}

Tensor& bce_out(const Tensor& self, const Tensor& target, const OptTensor& weight, int64_t reduction, Tensor& out) {
  return native_or_host<at::_ops::binary_cross_entropy_out>(
      [&]() -> Tensor& {
        Tensor loss = bce_loss(self, target, weight, reduction);
        TORCH_CHECK(out.device() == loss.device(), "Expected out tensor to have device ", loss.device(),
                    ", but got ", out.device(), " instead");
        // CPU's and CUDA's out= kernels resize `out` to the loss without
        // resize_output's warning (loss.resize_as_(reduced).copy_(reduced))
        return out.resize_(loss.sizes()).copy_(loss);
      },
      self, target, weight, reduction, out);
}

// The functional form returns the loss itself: handing the out= kernel a
// tensor shaped like self (as CPU's does) would warn on every reduced call
Tensor bce(const Tensor& self, const Tensor& target, const OptTensor& weight, int64_t reduction) {
  return native_or_host<at::_ops::binary_cross_entropy>(
      [&]() { return bce_loss(self, target, weight, reduction); }, self, target, weight, reduction);
}

Tensor& bce_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, const OptTensor& weight,
                         int64_t reduction, Tensor& grad_input) {
  return native_or_host<at::_ops::binary_cross_entropy_backward_grad_input>(
      [&]() -> Tensor& {
        host_if_no_fp64(self);
        check_sizes(self, target);
        Tensor gi = at::empty(self.sizes(), self.options());
        Tensor gi_sq = at::squeeze(gi);
        auto iter = at::TensorIteratorConfig()
                        .add_output(gi_sq)
                        .add_owned_const_input(at::squeeze(grad))
                        .add_owned_const_input(at::squeeze(self))
                        .add_owned_const_input(at::squeeze(target))
                        .build();
        run_pointwise(iter, "binary_cross_entropy_backward", RS_PW_BINARY_CROSS_ENTROPY_BACKWARD);
        if (defined(weight)) gi.mul_(*weight);
        if (reduction == at::Reduction::Mean) gi.div_(static_cast<double>(self.numel()));
        return write_out(grad_input, gi);
      },
      grad, self, target, weight, reduction, grad_input);
}

Tensor bce_backward(const Tensor& grad, const Tensor& self, const Tensor& target, const OptTensor& weight,
                    int64_t reduction) {
  Tensor gi = at::empty_like(self);
  return bce_backward_out(grad, self, target, weight, reduction, gi);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("binary_cross_entropy", bce);
  m.impl("binary_cross_entropy.out", bce_out);
  m.impl("binary_cross_entropy_backward", bce_backward);
  m.impl("binary_cross_entropy_backward.grad_input", bce_backward_out);
}

}  // namespace russet
