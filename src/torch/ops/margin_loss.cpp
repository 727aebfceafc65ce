// multi_margin_loss and multilabel_margin_loss (nn.MultiMarginLoss,
// nn.MultiLabelMarginLoss) and their backward kernels, composed from native
// gathers, pointwise ops, sums and scatter_add in the formulas of ATen's CPU
// kernels (MultiMarginCriterion.cpp, MultilabelMarginCriterion.cpp). A target
// outside [0, C) raises at the next sync (the gather's bounds check).
#include "torch/pointwise.h"

#include <ATen/core/Reduction.h>
#include <ATen/native/LossMulti.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cumprod.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/multi_margin_loss_backward_ops.h>
#include <ATen/ops/multi_margin_loss_ops.h>
#include <ATen/ops/multilabel_margin_loss_backward_ops.h>
#include <ATen/ops/multilabel_margin_loss_forward_ops.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

Tensor reduce(const Tensor& per_sample, int64_t reduction) {
  if (reduction == at::Reduction::Mean) return per_sample.mean();
  if (reduction == at::Reduction::Sum) return per_sample.sum();
  return per_sample;
}

// CPU reads the target as int64 (its message)
void check_long_target(const Tensor& target) {
  TORCH_CHECK(target.scalar_type() == at::kLong, "expected scalar type Long but found ", target.scalar_type());
}

// ---------------------------------------------------------------- multi margin

// (N, C) input, (N) target, the rows' [z > 0, d != target] mask and z
struct MultiMargin {
  Tensor x, t, z, active, wt;
  int64_t n, c;
  MultiMargin(const Tensor& self, const Tensor& target, const at::Scalar& p, const at::Scalar& margin,
              const OptTensor& weight) {
    TORCH_CHECK(p.toDouble() == 1 || p.toDouble() == 2, "only p == 1 and p == 2 supported");
    // CPU's checks and messages (LossMulti.h), then its target dtype
    at::native::multi_margin_loss_shape_check(n, c, self.dim(), self, target, weight);
    check_long_target(target);
    host_if_no_fp64(self);
    x = self.reshape({n, c});
    t = target.reshape({n, 1}).to(at::kLong);
    Tensor xt = x.gather(1, t);
    z = x.sub(xt).add_(margin);
    Tensor other = at::arange(c, t.options()).unsqueeze(0).ne(t);
    active = z.gt(0).logical_and_(other);
    if (defined(weight)) wt = weight->reshape({c}).to(x.scalar_type()).gather(0, t.view({n})).unsqueeze(1);
  }
};

Tensor& multi_margin_out(const Tensor& self, const Tensor& target, const at::Scalar& p, const at::Scalar& margin,
                         const OptTensor& weight, int64_t reduction, Tensor& out) {
  return native_or_host<at::_ops::multi_margin_loss_out>(
      [&]() -> Tensor& {
        MultiMargin m(self, target, p, margin, weight);
        Tensor h = p.toDouble() == 1 ? m.z.clone() : m.z.mul(m.z);
        h.masked_fill_(m.active.logical_not(), 0);  // CPU skips them: a NaN z adds nothing
        if (m.wt.defined()) h.mul_(m.wt);
        // (CPU's result for reduction none has N elements, or none (0-d)
        // where the target is 0-d)
        Tensor per = h.sum(1).div_(static_cast<double>(m.c));
        Tensor r = reduce(per, reduction);
        if (reduction == at::Reduction::None && target.dim() == 0) r = r.view(at::IntArrayRef{});
        return write_out(out, r);
      },
      self, target, p, margin, weight, reduction, out);
}

Tensor multi_margin(const Tensor& self, const Tensor& target, const at::Scalar& p, const at::Scalar& margin,
                    const OptTensor& weight, int64_t reduction) {
  Tensor out = at::empty({0}, self.options());
  return multi_margin_out(self, target, p, margin, weight, reduction, out);
}

Tensor& multi_margin_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target,
                                  const at::Scalar& p, const at::Scalar& margin, const OptTensor& weight,
                                  int64_t reduction, Tensor& gi) {
  return native_or_host<at::_ops::multi_margin_loss_backward_grad_input>(
      [&]() -> Tensor& {
        MultiMargin m(self, target, p, margin, weight);
        double norm = static_cast<double>(m.c) * (reduction == at::Reduction::Mean ? static_cast<double>(m.n) : 1.0);
        Tensor g = reduction == at::Reduction::None ? grad.reshape({m.n, 1}) : grad.reshape({1, 1});
        Tensor h = p.toDouble() == 1 ? m.active.to(m.x.scalar_type())
                                     : m.z.mul(2).masked_fill_(m.active.logical_not(), 0);
        h = h.mul(g).div_(norm);
        if (m.wt.defined()) h.mul_(m.wt);
        // the target's column gets minus the row's sum (its own h is 0)
        h.scatter_add_(1, m.t, h.sum(1, true).neg_());
        return write_out(gi, h.view(self.sizes()));
      },
      grad, self, target, p, margin, weight, reduction, gi);
}

Tensor multi_margin_backward(const Tensor& grad, const Tensor& self, const Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const OptTensor& weight, int64_t reduction) {
  Tensor gi = at::empty({0}, self.options());
  return multi_margin_backward_out(grad, self, target, p, margin, weight, reduction, gi);
}

// ---------------------------------------------------------------- multilabel margin

// labels: target's entries before its first -1; is_target marks them
struct MultiLabel {
  Tensor x, t, valid, is_target, active;
  int64_t n, c;
  MultiLabel(const Tensor& self, const Tensor& target) {
    at::native::multilabel_margin_loss_shape_check(n, c, self.dim(), self, target);
    check_long_target(target);
    host_if_no_fp64(self);
    x = self.reshape({n, c});
    Tensor tt = target.reshape({n, c}).to(at::kLong);
    valid = at::cumprod(tt.ne(-1).to(at::kLong), 1);  // 1 up to the first -1
    t = tt.clamp_min(0).mul(valid);                   // invalid slots point at 0, weighed 0
    is_target = at::zeros({n, c}, x.options()).scatter_add_(1, t, valid.to(x.scalar_type())).gt(0);
    // z[i, s, k] = 1 - x[i, t_s] + x[i, k] for label slots s and non-label k
    Tensor xs = x.gather(1, t);
    Tensor z = x.unsqueeze(1).sub(xs.unsqueeze(2)).add_(1);
    active = z.gt(0).logical_and_(valid.unsqueeze(2).to(at::kBool)).logical_and_(is_target.logical_not().unsqueeze(1));
    zpos = z.masked_fill(active.logical_not(), 0);  // not z * active: a NaN z is skipped, as on CPU
  }
  Tensor zpos;
};

std::tuple<Tensor&, Tensor&> multilabel_forward_out(const Tensor& self, const Tensor& target, int64_t reduction,
                                                    Tensor& out, Tensor& is_target) {
  return native_or_host<at::_ops::multilabel_margin_loss_forward_output>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        MultiLabel m(self, target);
        Tensor per = m.zpos.sum({1, 2}).div_(static_cast<double>(m.c));
        if (self.dim() <= 1 && reduction == at::Reduction::None) per = per.squeeze(0);
        Tensor r = reduce(per, reduction);
        write_out(out, r);
        write_out(is_target, m.is_target.view(self.sizes()));
        return {out, is_target};
      },
      self, target, reduction, out, is_target);
}

std::tuple<Tensor, Tensor> multilabel_forward(const Tensor& self, const Tensor& target, int64_t reduction) {
  Tensor out = at::empty({0}, self.options()), is_target = at::empty({0}, self.options());
  multilabel_forward_out(self, target, reduction, out, is_target);
  return {out, is_target};
}

Tensor& multilabel_backward_out(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                                const Tensor& is_target, Tensor& gi) {
  return native_or_host<at::_ops::multilabel_margin_loss_backward_grad_input>(
      [&]() -> Tensor& {
        MultiLabel m(self, target);
        double norm = static_cast<double>(m.c) * (reduction == at::Reduction::Mean ? static_cast<double>(m.n) : 1.0);
        Tensor g = reduction == at::Reduction::None ? grad.reshape({m.n, 1, 1}) : grad.reshape({1, 1, 1});
        Tensor a = m.active.to(m.x.scalar_type()).mul(g).div_(norm);  // (N, S, C)
        Tensor gx = a.sum(1);                                          // + for each non-label k
        gx.scatter_add_(1, m.t, a.sum(2).neg_());                      // - for each label slot's column
        return write_out(gi, gx.view(self.sizes()));
      },
      grad, self, target, reduction, is_target, gi);
}

Tensor multilabel_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                           const Tensor& is_target) {
  Tensor gi = at::empty({0}, self.options());
  return multilabel_backward_out(grad, self, target, reduction, is_target, gi);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("multi_margin_loss", multi_margin);
  m.impl("multi_margin_loss.out", multi_margin_out);
  m.impl("multi_margin_loss_backward", multi_margin_backward);
  m.impl("multi_margin_loss_backward.grad_input", multi_margin_backward_out);
  m.impl("multilabel_margin_loss_forward", multilabel_forward);
  m.impl("multilabel_margin_loss_forward.output", multilabel_forward_out);
  m.impl("multilabel_margin_loss_backward", multilabel_backward);
  m.impl("multilabel_margin_loss_backward.grad_input", multilabel_backward_out);
}

}  // namespace russet
