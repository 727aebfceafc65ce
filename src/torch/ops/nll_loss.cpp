// nll_loss and nll_loss2d, forward and backward, through the C core's
// rs_nll_loss_*: with log_softmax native, cross_entropy runs natively.
// nll_loss is structured (its meta function checks and sizes); nll_loss2d
// is checked here as ATen's CPU kernel checks it.
#include "torch/same_device.h"
#include "torch/reduce.h"
#include "russet/loss.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/nll_loss2d_backward_ops.h>
#include <ATen/ops/nll_loss2d_forward_ops.h>
#include <ATen/ops/nll_loss_backward_meta.h>
#include <ATen/ops/nll_loss_backward_ops.h>
#include <ATen/ops/nll_loss_forward_meta.h>
#include <ATen/ops/nll_loss_forward_ops.h>
#include <ATen/core/Reduction.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

at::OptionalTensorRef ref(const OptTensor& w) {
  return w.has_value() && w->defined() ? at::OptionalTensorRef(*w) : at::OptionalTensorRef();
}

// The kernel's view: input (n, c, s), target (n, s); `spatial` for 2d.
rs_nll_loss describe_nll(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction,
                         int64_t ignore_index) {
  rs_nll_loss p{};
  p.input = address_of(input);
  p.target = address_of(target);
  p.weight = weight.defined() ? address_of(weight) : 0;
  p.dtype = static_cast<rs_dtype>(input.scalar_type());
  p.target_dtype = static_cast<rs_dtype>(target.scalar_type());
  p.n = input.dim() >= 2 ? input.size(0) : 1;
  p.c = input.dim() >= 2 ? input.size(1) : input.size(0);
  p.s = 1;
  for (int64_t d = 2; d < input.dim(); ++d) p.s *= input.size(d);
  p.reduction = static_cast<int>(reduction);
  p.ignore_index = ignore_index;
  return p;
}

Tensor contiguous_weight(const OptTensor& w) {
  return w.has_value() && w->defined() ? w->contiguous() : Tensor();
}

void nll_forward(const Tensor& self, const Tensor& target, const OptTensor& weight, int64_t reduction,
                 int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  same_device(self, target, weight, output, total_weight);
  Tensor in = resolved(self).contiguous(), tg = target.contiguous(), w = contiguous_weight(weight);
  if (w.defined() && w.scalar_type() != in.scalar_type()) throw NeedsHost{};
  rs_nll_loss p = describe_nll(in, tg, w, reduction, ignore_index);
  Tensor out = output.is_contiguous() ? output : at::empty(output.sizes(), output.options());
  p.out = address_of(out);
  p.total_weight = address_of(total_weight);
  check_or_host(rs_nll_loss_forward(current_stream_for(self), &p));
  if (!out.is_same(output)) output.copy_(out);
  // with no reduction, total_weight is not computed (CPU leaves it 0)
  if (reduction == at::Reduction::None) total_weight.zero_();
}

void nll_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, const OptTensor& weight,
                  int64_t reduction, int64_t ignore_index, const Tensor& total_weight, Tensor& grad_input) {
  same_device(self, grad_output, target, weight, total_weight, grad_input);
  Tensor tg = target.contiguous(), w = contiguous_weight(weight);
  if (w.defined() && w.scalar_type() != self.scalar_type()) throw NeedsHost{};
  Tensor gi = grad_input.is_contiguous() ? grad_input : at::empty(grad_input.sizes(), grad_input.options());
  gi.zero_();
  rs_nll_loss p = describe_nll(self, tg, w, reduction, ignore_index);
  Tensor go = grad_output.contiguous(), tw = total_weight.contiguous();
  p.grad_output = address_of(go);
  p.total_weight = address_of(tw);
  p.grad_input = address_of(gi);
  check_or_host(rs_nll_loss_backward(current_stream_for(self), &p));
  if (!gi.is_same(grad_input)) grad_input.copy_(gi);
}

std::tuple<Tensor&, Tensor&> nll_loss_forward_out(const Tensor& self, const Tensor& target,
                                                   const OptTensor& weight, int64_t reduction,
                                                   int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  return native_or_host<at::_ops::nll_loss_forward_output>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_nll_loss_forward> m(output, total_weight);
        m.meta(self, target, ref(weight), reduction, ignore_index);
        nll_forward(self, target, weight, reduction, ignore_index, output, total_weight);
        return {output, total_weight};
      },
      self, target, weight, reduction, ignore_index, output, total_weight);
}

Tensor& nll_loss_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                              const OptTensor& weight, int64_t reduction, int64_t ignore_index,
                              const Tensor& total_weight, Tensor& grad_input) {
  return native_or_host<at::_ops::nll_loss_backward_grad_input>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_nll_loss_backward> m(grad_input);
        m.meta(grad_output, self, target, ref(weight), reduction, ignore_index, total_weight);
        nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
        return grad_input;
      },
      grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
}

// ATen's check_inputs_nll_loss2d (LossNLL2d.cpp)
void check_nll2d(const Tensor& input, const Tensor& target, const OptTensor& weight) {
  TORCH_CHECK(target.dim() == 3,
              "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
              target.dim());
  TORCH_CHECK(input.dim() == 4,
              "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", input.dim());
  TORCH_CHECK(!weight.has_value() || !weight->defined() || weight->numel() == input.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) &&
                  input.size(3) == target.size(2),
              "input and target batch or spatial sizes don't match: target ", target.sizes(), ", input ",
              input.sizes());
}

std::tuple<Tensor&, Tensor&> nll_loss2d_forward_out(const Tensor& self, const Tensor& target,
                                                     const OptTensor& weight, int64_t reduction,
                                                     int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  return native_or_host<at::_ops::nll_loss2d_forward_output>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        check_nll2d(self, target, weight);
        if (reduction == at::Reduction::None)
          at::native::resize_output(output, {self.size(0), self.size(2), self.size(3)});
        else
          at::native::resize_output(output, {});
        at::native::resize_output(total_weight, {});
        nll_forward(self, target, weight, reduction, ignore_index, output, total_weight);
        return {output, total_weight};
      },
      self, target, weight, reduction, ignore_index, output, total_weight);
}

std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target, const OptTensor& weight,
                                              int64_t reduction, int64_t ignore_index) {
  Tensor output = at::empty({0}, self.options()), total_weight = at::empty({}, self.options());
  nll_loss2d_forward_out(self, target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

Tensor& nll_loss2d_backward_out(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const OptTensor& weight, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight, Tensor& grad_input) {
  return native_or_host<at::_ops::nll_loss2d_backward_grad_input>(
      [&]() -> Tensor& {
        check_nll2d(self, target, weight);
        TORCH_CHECK(total_weight.numel() == 1, "expected total_weight to be a single element tensor, got: ",
                    total_weight.sizes(), " (", total_weight.numel(), " elements)");
        at::native::resize_output(grad_input, self.sizes());
        nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
        return grad_input;
      },
      grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
}

Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const OptTensor& weight, int64_t reduction, int64_t ignore_index,
                           const Tensor& total_weight) {
  Tensor grad_input = at::empty(self.sizes(), self.options());
  return nll_loss2d_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                                 grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("nll_loss_forward.output", nll_loss_forward_out);
  m.impl("nll_loss_backward.grad_input", nll_loss_backward_out);
  m.impl("nll_loss2d_forward.output", nll_loss2d_forward_out);
  m.impl("nll_loss2d_forward", nll_loss2d_forward);
  m.impl("nll_loss2d_backward.grad_input", nll_loss2d_backward_out);
  m.impl("nll_loss2d_backward", nll_loss2d_backward);
}

}  // namespace russet
