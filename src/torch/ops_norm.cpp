// Normalization layers: native_layer_norm and native_batch_norm with their
// backward kernels, and native_group_norm. Each is
// composed here from native reductions (var_mean, sum) and pointwise ops,
// in float32 for float16/bfloat16 inputs as CPU computes them. On a device
// without fp64, float64 inputs run the whole op through host execution.
#include "torch/reduce.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/native_batch_norm_backward_ops.h>
#include <ATen/ops/native_batch_norm_ops.h>
#include <ATen/ops/native_group_norm_backward_ops.h>
#include <ATen/ops/native_group_norm_ops.h>
#include <ATen/ops/native_layer_norm_backward_ops.h>
#include <ATen/ops/native_layer_norm_ops.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/var_mean.h>
#include <torch/library.h>

#include <vector>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

// float16/bfloat16/float32, and float64 with fp64: native; anything else
// runs the whole op on the host
void need_native(const Tensor& x) {
  auto t = x.scalar_type();
  if (!c10::isReducedFloatingType(t) && t != at::kFloat && t != at::kDouble) throw NeedsHost{};
  host_if_no_fp64(x);
}

// the computation dtype: float32 for float16/bfloat16
at::ScalarType acc_type(const Tensor& x) {
  return c10::isReducedFloatingType(x.scalar_type()) ? at::kFloat : x.scalar_type();
}

// ---------------------------------------------------------------- layer norm

// (M, N) view of x with the normalized dims last; checks as ATen's
// _check_layer_norm_inputs
std::pair<int64_t, int64_t> layer_norm_split(const Tensor& x, at::IntArrayRef shape, const OptTensor& w,
                                             const OptTensor& b) {
  int64_t nd = static_cast<int64_t>(shape.size());
  TORCH_CHECK(nd >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ", shape);
  TORCH_CHECK(!defined(w) || w->sizes().equals(shape), "Expected weight to be of same shape as normalized_shape, "
              "but got weight of shape ", w->sizes(), " and normalized_shape = ", shape);
  TORCH_CHECK(!defined(b) || b->sizes().equals(shape), "Expected bias to be of same shape as normalized_shape, "
              "but got bias of shape ", b->sizes(), " and normalized_shape = ", shape);
  bool ok = x.dim() >= nd && x.sizes().slice(x.dim() - nd).equals(shape);
  TORCH_CHECK(ok, "Given normalized_shape=", shape, ", expected input with shape [*", shape.size() ? ", " : "",
              shape, "], but got input of size", x.sizes());
  int64_t axis = x.dim() - nd, m = 1, n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) (d < axis ? m : n) *= x.size(d);
  return {m, n};
}

std::vector<int64_t> stat_shape(const Tensor& x, int64_t nd) {
  std::vector<int64_t> s(x.sizes().begin(), x.sizes().end() - nd);
  s.resize(x.dim(), 1);
  return s;
}

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& input, at::IntArrayRef shape, const OptTensor& weight,
                                              const OptTensor& bias, double eps) {
  return native_or_host<at::_ops::native_layer_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        need_native(input);
        // mean/rstd in the input dtype, or in float32 when the parameters'
        // dtype differs (CPU's mixed type)
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        auto at = acc_type(input);
        Tensor x = input.contiguous().view({m, n}).to(at);
        auto [var, mean] = at::var_mean(x, {1}, /*correction=*/0, /*keepdim=*/true);
        Tensor rstd = at::rsqrt(var.add_(eps));
        Tensor y = x.sub(mean).mul_(rstd);
        if (defined(weight)) y.mul_(weight->reshape({1, n}));
        if (defined(bias)) y.add_(bias->reshape({1, n}));
        auto st = stat_shape(input, static_cast<int64_t>(shape.size()));
        auto stat_dt = mixed ? at : input.scalar_type();
        return {y.to(input.scalar_type()).view(input.sizes()), mean.to(stat_dt).view(st), rstd.to(stat_dt).view(st)};
      },
      input, shape, weight, bias, eps);
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       at::IntArrayRef shape, const Tensor& mean, const Tensor& rstd,
                                                       const OptTensor& weight, const OptTensor& bias,
                                                       std::array<bool, 3> mask) {
  return native_or_host<at::_ops::native_layer_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        need_native(input);
        auto at = acc_type(input);
        Tensor x = input.contiguous().view({m, n}).to(at);
        Tensor g = grad_out.contiguous().view({m, n}).to(at);
        Tensor mu = mean.reshape({m, 1}).to(at), rs = rstd.reshape({m, 1}).to(at);
        Tensor xhat = x.sub(mu).mul_(rs);
        Tensor gi, gw, gb;
        if (mask[0]) {
          Tensor gw_ = defined(weight) ? g.mul(weight->reshape({1, n}).to(at)) : g;
          // rstd * (g' - mean(g') - xhat * mean(g' * xhat)), over the normalized dims
          Tensor a = gw_.mean({1}, true), b = gw_.mul(xhat).mean({1}, true);
          gi = gw_.sub(a).sub_(xhat.mul(b)).mul_(rs).to(input.scalar_type()).view(input.sizes());
        }
        if (mask[1] && defined(weight))
          gw = g.mul(xhat).sum({0}).to(weight->scalar_type()).view(weight->sizes());
        if (mask[2] && defined(bias)) gb = g.sum({0}).to(bias->scalar_type()).view(bias->sizes());
        return {gi, gw, gb};
      },
      grad_out, input, shape, mean, rstd, weight, bias, mask);
}

// ---------------------------------------------------------------- batch norm

// the per-channel view: dims other than 1 are reduced
std::vector<int64_t> channel_dims(const Tensor& x) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != 1) d.push_back(i);
  return d;
}

std::vector<int64_t> channel_shape(const Tensor& x) {
  std::vector<int64_t> s(x.dim(), 1);
  s[1] = x.size(1);
  return s;
}

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                              const OptTensor& running_mean, const OptTensor& running_var,
                                              bool training, double momentum, double eps) {
  return native_or_host<at::_ops::native_batch_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        TORCH_CHECK(input.dim() >= 2, "batch_norm: expected input of at least 2 dims, got ", input.dim());
        need_native(input);
        int64_t c = input.size(1);
        auto at = acc_type(input);
        // save_mean/save_invstd: the parameters' dtype when they differ (mixed)
        auto stat_dt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        Tensor x = input.to(at);
        auto cs = channel_shape(input);
        Tensor mean, invstd;
        if (training) {
          TORCH_CHECK(input.numel() / c > 1 || !training,
                      "Expected more than 1 value per channel when training, got input size ", input.sizes());
          auto [var, mu] = at::var_mean(x, channel_dims(input), /*correction=*/0, /*keepdim=*/false);
          mean = mu;
          invstd = at::rsqrt(var.add(eps));
          int64_t n = input.numel() / c;
          if (defined(running_mean))
            running_mean->mul_(1 - momentum).add_(mu.to(running_mean->scalar_type()), momentum);
          if (defined(running_var))
            running_var->mul_(1 - momentum)
                .add_(var.mul(static_cast<double>(n) / static_cast<double>(n - 1)).to(running_var->scalar_type()),
                      momentum);
        } else {
          TORCH_CHECK(defined(running_mean) && defined(running_var),
                      "running_mean and running_var must be defined in evaluation mode");
          mean = running_mean->to(at);
          invstd = at::rsqrt(running_var->to(at).add(eps));
        }
        Tensor y = x.sub(mean.view(cs)).mul_(invstd.view(cs));
        if (defined(weight)) y.mul_(weight->to(at).view(cs));
        if (defined(bias)) y.add_(bias->to(at).view(cs));
        if (!training) {
          // CPU returns empty statistics in evaluation mode
          return {y.to(input.scalar_type()), at::empty({0}, input.options().dtype(stat_dt)),
                  at::empty({0}, input.options().dtype(stat_dt))};
        }
        return {y.to(input.scalar_type()), mean.to(stat_dt), invstd.to(stat_dt)};
      },
      input, weight, bias, running_mean, running_var, training, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const OptTensor& weight, const OptTensor& running_mean,
                                                       const OptTensor& running_var, const OptTensor& save_mean,
                                                       const OptTensor& save_invstd, bool train, double eps,
                                                       std::array<bool, 3> mask) {
  return native_or_host<at::_ops::native_batch_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        need_native(input);
        auto at = acc_type(input);
        auto cs = channel_shape(input);
        auto dims = channel_dims(input);
        Tensor x = input.to(at), g = grad_out.to(at);
        Tensor mean, invstd;
        if (train) {
          mean = save_mean->to(at);
          invstd = save_invstd->to(at);
        } else {
          mean = running_mean->to(at);
          invstd = at::rsqrt(running_var->to(at).add(eps));
        }
        Tensor xhat = x.sub(mean.view(cs)).mul_(invstd.view(cs));
        Tensor gsum = g.sum(dims), gxsum = g.mul(xhat).sum(dims);
        Tensor w = defined(weight) ? weight->to(at) : Tensor();
        Tensor gi, gw, gb;
        if (mask[0]) {
          Tensor scale = (w.defined() ? w.mul(invstd) : invstd).view(cs);
          if (train) {
            double n = static_cast<double>(input.numel() / input.size(1));
            gi = g.sub(gsum.div(n).view(cs)).sub_(xhat.mul(gxsum.div(n).view(cs))).mul_(scale);
          } else {
            gi = g.mul(scale);
          }
          gi = gi.to(input.scalar_type());
        }
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        if (mask[1]) gw = gxsum.to(pdt);
        if (mask[2]) gb = gsum.to(pdt);
        return {gi, gw, gb};
      },
      grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask);
}

// ---------------------------------------------------------------- group norm

// x as (N, G, C/G * HxW); statistics (N, G); one rounding at the end, as
// CPU's kernel (ATen's composite would round the normalized value first)
std::tuple<Tensor, Tensor, Tensor> group_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                              int64_t n, int64_t c, int64_t hxw, int64_t group, double eps) {
  return native_or_host<at::_ops::native_group_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        TORCH_CHECK(group > 0 && c % group == 0, "Expected number of channels in input to be divisible by ",
                    "num_groups, but got input of shape ", input.sizes(), " and num_groups=", group);
        TORCH_CHECK(input.numel() == n * c * hxw, "Expected the input to have ", n * c * hxw, " elements, got ",
                    input.numel());
        need_native(input);
        auto at = acc_type(input);
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        Tensor x = input.contiguous().view({n, group, -1}).to(at);
        auto [var, mean] = at::var_mean(x, {2}, /*correction=*/0, /*keepdim=*/true);
        Tensor rstd = at::rsqrt(var.add_(eps));
        Tensor y = x.sub(mean).mul_(rstd).view({n, c, hxw});
        if (defined(weight)) y.mul_(weight->to(at).view({1, c, 1}));
        if (defined(bias)) y.add_(bias->to(at).view({1, c, 1}));
        auto stat_dt = mixed ? at : input.scalar_type();
        return {y.to(input.scalar_type()).view(input.sizes()), mean.view({n, group}).to(stat_dt),
                rstd.view({n, group}).to(stat_dt)};
      },
      input, weight, bias, n, c, hxw, group, eps);
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                                       const Tensor& rstd, const OptTensor& weight, int64_t n,
                                                       int64_t c, int64_t hxw, int64_t group,
                                                       std::array<bool, 3> mask) {
  return native_or_host<at::_ops::native_group_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        need_native(input);
        auto at = acc_type(input);
        Tensor x = input.contiguous().view({n, group, -1}).to(at);
        Tensor mu = mean.reshape({n, group, 1}).to(at), rs = rstd.reshape({n, group, 1}).to(at);
        Tensor xhat = x.sub(mu).mul_(rs).view({n, c, hxw});
        Tensor g = grad_out.contiguous().view({n, c, hxw}).to(at);
        Tensor gi, gw, gb;
        if (mask[0]) {
          Tensor gp = (defined(weight) ? g.mul(weight->to(at).view({1, c, 1})) : g).view({n, group, -1});
          Tensor xh = xhat.view({n, group, -1});
          Tensor a = gp.mean({2}, true), b = gp.mul(xh).mean({2}, true);
          gi = gp.sub(a).sub_(xh.mul(b)).mul_(rs).to(input.scalar_type()).view(input.sizes());
        }
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        if (mask[1]) gw = g.mul(xhat).sum({0, 2}).to(pdt);
        if (mask[2]) gb = g.sum({0, 2}).to(pdt);
        return {gi, gw, gb};
      },
      grad_out, input, mean, rstd, weight, n, c, hxw, group, mask);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("native_layer_norm", layer_norm);
  m.impl("native_layer_norm_backward", layer_norm_backward);
  m.impl("native_batch_norm", batch_norm);
  m.impl("native_batch_norm_backward", batch_norm_backward);
  m.impl("native_group_norm", group_norm);
  m.impl("native_group_norm_backward", group_norm_backward);
}

}  // namespace russet
