// Reflection and replication padding (F.pad modes "reflect" and
// "replicate", 1-d to 3-d) and their backward kernels, natively: each padded
// dim is an index_select with the source index of every output position
// (made on the device from an arange: reflect folds it into [0, I), replicate
// clamps it), and the backward is the adjoint, an index_add into zeros.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/reflection_pad1d_backward_ops.h>
#include <ATen/ops/reflection_pad1d_ops.h>
#include <ATen/ops/reflection_pad2d_backward_ops.h>
#include <ATen/ops/reflection_pad2d_ops.h>
#include <ATen/ops/reflection_pad3d_backward_ops.h>
#include <ATen/ops/reflection_pad3d_ops.h>
#include <ATen/ops/replication_pad1d_backward_ops.h>
#include <ATen/ops/replication_pad1d_ops.h>
#include <ATen/ops/replication_pad2d_backward_ops.h>
#include <ATen/ops/replication_pad2d_ops.h>
#include <ATen/ops/replication_pad3d_backward_ops.h>
#include <ATen/ops/replication_pad3d_ops.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using Dims = std::vector<int64_t>;

// Checks as CPU's kernels; returns the output sizes. `pad` is F.pad's order:
// (left, right) of the last dim first.
Dims padded_sizes(const Tensor& self, at::IntArrayRef pad, int64_t k, bool reflect) {
  const char* name = reflect ? "reflection_pad" : "replication_pad";
  TORCH_CHECK(static_cast<int64_t>(pad.size()) == 2 * k, "padding size is expected to be ", 2 * k);
  int64_t dim = self.dim();
  TORCH_CHECK(dim == k + 1 || dim == k + 2, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor for ", name,
              k, "d, but got: ", self.sizes());
  // CPU's rule (and CUDA's, the same meta check): every dim non-empty but a
  // batch dim's, so an unbatched input with 0 channels is refused too
  for (int64_t d = dim == k + 2 ? 1 : 0; d < dim; ++d)
    TORCH_CHECK(self.size(d) != 0, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch ",
                "size and other non-zero dimensions for input, but got: ", self.sizes());
  Dims out(self.sizes().begin(), self.sizes().end());
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = dim - 1 - j, l = pad[2 * j], r = pad[2 * j + 1], in = self.size(d);
    if (reflect)
      TORCH_CHECK(l < in && r < in, "Argument #4: Padding size should be less than the corresponding input ",
                  "dimension, but got: padding (", l, ", ", r, ") at dimension ", d, " of input ", self.sizes());
    out[d] = in + l + r;
    TORCH_CHECK(out[d] >= 1, "input (", self.sizes(), ") is too small. Calculated output size at dimension ", d,
                ": ", out[d]);
  }
  return out;
}

// the source index of each output position along a dim of size `in`
Tensor source_index(int64_t in, int64_t left, int64_t out, bool reflect, const at::TensorOptions& opts) {
  Tensor pos = at::arange(out, opts.dtype(at::kLong)).sub_(left);
  if (reflect) return pos.abs_().neg_().add_(in - 1).abs_().neg_().add_(in - 1);  // (I-1) - |(I-1) - |p||
  return pos.clamp_(0, in - 1);
}

Tensor pad_forward(const Tensor& self, at::IntArrayRef pad, int64_t k, bool reflect) {
  host_if_no_fp64(self);
  Dims out = padded_sizes(self, pad, k, reflect);
  Tensor y = self;
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = self.dim() - 1 - j;
    y = at::index_select(y, d, source_index(self.size(d), pad[2 * j], out[d], reflect, self.options()));
  }
  return y;
}

Tensor pad_backward(const Tensor& grad, const Tensor& self, at::IntArrayRef pad, int64_t k, bool reflect) {
  host_if_no_fp64(self);
  Dims out = padded_sizes(self, pad, k, reflect);
  TORCH_CHECK(grad.sizes().equals(out), "grad_output must have the padded shape ", out, ", got ", grad.sizes());
  auto t = c10::isReducedFloatingType(self.scalar_type()) ? at::kFloat : self.scalar_type();
  Tensor g = grad.to(t);
  for (int64_t j = k - 1; j >= 0; --j) {
    int64_t d = self.dim() - 1 - j;
    Dims shape(g.sizes().begin(), g.sizes().end());
    shape[d] = self.size(d);
    g = at::zeros(shape, g.options()).index_add_(d, source_index(self.size(d), pad[2 * j], out[d], reflect,
                                                               self.options()), g);
  }
  return g.to(self.scalar_type());
}

// the twelve registrations: (reflect, replicate) x (1d, 2d, 3d) x (forward, backward)
#define RS_PAD(NAME, K, REFLECT)                                                                              \
  Tensor NAME(const Tensor& self, at::IntArrayRef pad) {                                                      \
    refuse_unless(self.scalar_type() != at::kBool, #NAME, self.scalar_type());                                \
    return native_or_host<at::_ops::NAME>([&] { return pad_forward(self, pad, K, REFLECT); }, self, pad);     \
  }                                                                                                           \
  Tensor& NAME##_out(const Tensor& self, at::IntArrayRef pad, Tensor& out) {                                  \
    refuse_unless(self.scalar_type() != at::kBool, #NAME, self.scalar_type());                                \
    return native_or_host<at::_ops::NAME##_out>(                                                              \
        [&]() -> Tensor& { return write_out(out, pad_forward(self, pad, K, REFLECT)); }, self, pad, out);         \
  }                                                                                                           \
  Tensor NAME##_backward(const Tensor& grad, const Tensor& self, at::IntArrayRef pad) {                       \
    return native_or_host<at::_ops::NAME##_backward>([&] { return pad_backward(grad, self, pad, K, REFLECT); }, \
                                                     grad, self, pad);                                        \
  }                                                                                                           \
  Tensor& NAME##_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef pad, Tensor& gi) {      \
    return native_or_host<at::_ops::NAME##_backward_grad_input>(                                              \
        [&]() -> Tensor& { return write_out(gi, pad_backward(grad, self, pad, K, REFLECT)); }, grad, self, pad, gi); \
  }
RS_PAD(reflection_pad1d, 1, true)
RS_PAD(reflection_pad2d, 2, true)
RS_PAD(reflection_pad3d, 3, true)
RS_PAD(replication_pad1d, 1, false)
RS_PAD(replication_pad2d, 2, false)
RS_PAD(replication_pad3d, 3, false)
#undef RS_PAD

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
#define RS_REG(NAME)                                                   \
  m.impl(#NAME, NAME);                                                 \
  m.impl(#NAME ".out", NAME##_out);                                    \
  m.impl(#NAME "_backward", NAME##_backward);                          \
  m.impl(#NAME "_backward.grad_input", NAME##_backward_out);
  RS_REG(reflection_pad1d)
  RS_REG(reflection_pad2d)
  RS_REG(reflection_pad3d)
  RS_REG(replication_pad1d)
  RS_REG(replication_pad2d)
  RS_REG(replication_pad3d)
#undef RS_REG
}

}  // namespace russet
