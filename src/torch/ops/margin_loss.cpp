// multi_margin_loss and multilabel_margin_loss (nn.MultiMarginLoss,
// nn.MultiLabelMarginLoss) and their backward kernels: CPU's checks here,
// then one call of the C core's margin-loss engine (rs_margin_loss_forward
// / _backward, russet/margin_loss.h: CPU's loops, bit for bit). A target
// outside the classes raises at the next sync, with CPU's message.
#include "torch/pointwise.h"
#include "russet/margin_loss.h"

#include <ATen/core/Reduction.h>
#include <ATen/native/LossMulti.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/multi_margin_loss_backward_ops.h>
#include <ATen/ops/multi_margin_loss_ops.h>
#include <ATen/ops/multilabel_margin_loss_backward_ops.h>
#include <ATen/ops/multilabel_margin_loss_forward_ops.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

// CPU reads the target as int64 (its message)
void check_long_target(const Tensor& target) {
  TORCH_CHECK(target.scalar_type() == at::kLong, "expected scalar type Long but found ", target.scalar_type());
}

// CPU's kernels exist for float32 and float64 only ("not implemented for"),
// and read the weights as the input's dtype
void check_dtypes(const char* kernel, const Tensor& self, const OptTensor& weight = std::nullopt) {
  TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble, "\"", kernel,
              "\" not implemented for '", c10::toString(self.scalar_type()), "'");
  if (defined(weight))
    TORCH_CHECK(weight->scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
                " but found ", weight->scalar_type());
}

// the engine's description: input (N, C), target (N) or (N, C)
rs_margin_loss describe_problem(rs_margin_kind kind, const Tensor& x, const Tensor& t, int64_t reduction) {
  rs_margin_loss q{};
  q.kind = kind;
  q.reduction = static_cast<int>(reduction);
  q.input = describe(x);
  q.target = describe(t);
  return q;
}

// a loss of N rows or one value (0-d) as the engine's 1-d view
Tensor one_dim(const Tensor& r) { return r.dim() == 0 ? r.view({1}) : r; }

// ---------------------------------------------------------------- multi margin

struct MultiMargin {
  Tensor x, t, w;
  int64_t n, c;
  MultiMargin(const Tensor& self, const Tensor& target, const at::Scalar& p, const OptTensor& weight) {
    TORCH_CHECK(p.toDouble() == 1 || p.toDouble() == 2, "only p == 1 and p == 2 supported");
    // CPU's checks and messages (LossMulti.h), then its target dtype
    at::native::multi_margin_loss_shape_check(n, c, self.dim(), self, target, weight);
    check_long_target(target);
    check_dtypes("multi_margin_loss_cpu_kernel", self, weight);
    host_if_no_fp64(self);
    x = self.reshape({n, c});
    t = target.reshape({n});
    if (defined(weight)) w = weight->reshape({c});
  }
  rs_margin_loss problem(const at::Scalar& p, const at::Scalar& margin, int64_t reduction) const {
    rs_margin_loss q = describe_problem(RS_MARGIN_MULTI, x, t, reduction);
    q.p = static_cast<int>(p.toDouble());
    q.margin = margin.toDouble();
    if (w.defined()) q.weight = describe(w);
    return q;
  }
};

Tensor& multi_margin_out(const Tensor& self, const Tensor& target, const at::Scalar& p, const at::Scalar& margin,
                         const OptTensor& weight, int64_t reduction, Tensor& out) {
  return native_or_host<at::_ops::multi_margin_loss_out>(
      [&]() -> Tensor& {
        MultiMargin m(self, target, p, weight);
        // N losses, or one (0-d) where reduced or the target is 0-d (CPU's resize)
        bool rows = reduction == at::Reduction::None && target.dim() > 0;
        Tensor r = at::empty(rows ? at::IntArrayRef{m.n} : at::IntArrayRef{}, self.options());
        rs_margin_loss q = m.problem(p, margin, reduction);
        q.out = describe(one_dim(r));
        check(rs_margin_loss_forward(current_stream_for(self), &q));
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
        MultiMargin m(self, target, p, weight);
        TORCH_CHECK(grad.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
                    " but found ", grad.scalar_type());
        Tensor r = at::empty({m.n, m.c}, self.options());
        rs_margin_loss q = m.problem(p, margin, reduction);
        q.grad = describe(reduction == at::Reduction::None && grad.dim() > 0 ? grad.reshape({m.n}) : grad.reshape({1}));
        q.out = describe(r);
        check(rs_margin_loss_backward(current_stream_for(self), &q));
        return write_out(gi, r.view(self.sizes()));
      },
      grad, self, target, p, margin, weight, reduction, gi);
}

Tensor multi_margin_backward(const Tensor& grad, const Tensor& self, const Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const OptTensor& weight, int64_t reduction) {
  Tensor gi = at::empty({0}, self.options());
  return multi_margin_backward_out(grad, self, target, p, margin, weight, reduction, gi);
}

// ---------------------------------------------------------------- multilabel margin

struct MultiLabel {
  Tensor x, t;
  int64_t n, c;
  MultiLabel(const Tensor& self, const Tensor& target, const char* kernel) {
    at::native::multilabel_margin_loss_shape_check(n, c, self.dim(), self, target);
    check_long_target(target);
    check_dtypes(kernel, self);
    host_if_no_fp64(self);
    x = self.reshape({n, c});
    t = target.reshape({n, c});
  }
};

std::tuple<Tensor&, Tensor&> multilabel_forward_out(const Tensor& self, const Tensor& target, int64_t reduction,
                                                    Tensor& out, Tensor& is_target) {
  return native_or_host<at::_ops::multilabel_margin_loss_forward_output>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        MultiLabel m(self, target, "multilabel_margin_loss_forward_out_frame");
        // N losses, or one (0-d) where reduced or the target has one row (CPU's resize)
        bool rows = reduction == at::Reduction::None && target.dim() > 1;
        Tensor r = at::empty(rows ? at::IntArrayRef{m.n} : at::IntArrayRef{}, self.options());
        Tensor is = at::empty({m.n, m.c}, self.options());
        // (an unreduced single row takes CPU's reduced path: its sum in double)
        int64_t red = reduction;
        if (!rows && reduction == at::Reduction::None) red = at::Reduction::Sum;
        rs_margin_loss q = describe_problem(RS_MARGIN_MULTILABEL, m.x, m.t, red);
        q.is_target = describe(is);
        q.out = describe(one_dim(r));
        check(rs_margin_loss_forward(current_stream_for(self), &q));
        write_out(out, r);
        write_out(is_target, is.view(target.sizes()));
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
        MultiLabel m(self, target, "multilabel_margin_loss_backward_out_frame");
        TORCH_CHECK(is_target.sizes().equals(target.sizes()), "Expected tensor for argument #5 'is_target' to have ",
                    "the same size as tensor for argument #3 'target'; but ", is_target.sizes(), " does not equal ",
                    target.sizes(), " (while checking arguments for multilabel_margin_loss_backward_cpu_template)");
        TORCH_CHECK(grad.scalar_type() == self.scalar_type() && is_target.scalar_type() == self.scalar_type(),
                    "expected scalar type ", self.scalar_type(), " but found ",
                    grad.scalar_type() != self.scalar_type() ? grad.scalar_type() : is_target.scalar_type());
        Tensor r = at::empty({m.n, m.c}, self.options());
        rs_margin_loss q = describe_problem(RS_MARGIN_MULTILABEL, m.x, m.t, reduction);
        q.is_target = describe(is_target.reshape({m.n, m.c}));
        q.grad = describe(reduction == at::Reduction::None && grad.dim() > 0 ? grad.reshape({m.n}) : grad.reshape({1}));
        q.out = describe(r);
        check(rs_margin_loss_backward(current_stream_for(self), &q));
        return write_out(gi, r.view(self.sizes()));
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
