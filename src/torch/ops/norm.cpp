// Normalization layers: native_layer_norm, RMS norm, native_batch_norm and
// native_group_norm with their backward kernels, each one C call each way
// (rs_layer_norm_*, rs_batch_norm_*, rs_group_norm_*:
// src/engine/norm_layers.c, which composes the normalization engine's
// passes, src/engine/norm.c, and the per-channel work in CPU's order and
// dtypes). float16/bfloat16 compute in float32 as CPU does. On a device
// without fp64, float64 inputs run the whole op through host execution.
#include "torch/reduce.h"
#include "torch/same_device.h"
#include "russet/norm.h"
#include "russet/norm_layers.h"

#include <ATen/AccumulateType.h>
#include <ATen/ops/empty.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_batch_norm_with_update_ops.h>
#include <ATen/ops/_native_batch_norm_legit_ops.h>
#include <ATen/ops/batch_norm_backward_ops.h>
#include <ATen/ops/native_batch_norm_backward_ops.h>
#include <ATen/ops/native_batch_norm_ops.h>
#include <ATen/ops/native_group_norm_backward_ops.h>
#include <ATen/ops/native_group_norm_ops.h>
#include <ATen/ops/native_layer_norm_backward_ops.h>
#include <ATen/ops/native_layer_norm_ops.h>
#include <ATen/ops/_fused_rms_norm_backward_ops.h>
#include <ATen/ops/_fused_rms_norm_ops.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/renorm_meta.h>
#include <ATen/ops/renorm_ops.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/_weight_norm_differentiable_backward.h>
#include <torch/library.h>

#include <limits>
#include <vector>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

// the computation dtype: float32 for float16/bfloat16
at::ScalarType acc_type(const Tensor& x) {
  return c10::isReducedFloatingType(x.scalar_type()) ? at::kFloat : x.scalar_type();
}

// ---------------------------------------------------------------- the engine

// CPU's rule for the affine parameters: the input's dtype, or float32
// beside a float16/bfloat16 input ("mixed dtype"); an integer weight was
// converted silently here (a fuzzer find)
void check_param_dtypes(const Tensor& x, const OptTensor& weight, const OptTensor& bias) {
  for (const OptTensor* p : {&weight, &bias}) {
    if (!defined(*p)) continue;
    auto st = (*p)->scalar_type(), xt = x.scalar_type();
    TORCH_CHECK(st == xt || (st == at::kFloat && (xt == at::kHalf || xt == at::kBFloat16)),
                "mixed dtype (CPU): expect parameter to have scalar type of Float");
  }
}

// the engine reads the gradient in the input's dtype: another dtype (never
// from autograd) takes the host
void same_dtype(const Tensor& grad, const Tensor& input) {
  if (grad.scalar_type() != input.scalar_type()) throw NeedsHost{};
}

// an optional per-channel vector for the C core (address 0: absent)
rs_tensor describe_opt(const OptTensor& t) { return defined(t) ? describe(*t) : rs_tensor{}; }
rs_tensor describe_opt(const Tensor& t) { return t.defined() ? describe(t) : rs_tensor{}; }

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

// a layer norm's parameter (normalized_shape) as the engine's N-vector
Tensor flat(const OptTensor& t, int64_t n) { return defined(t) ? t->reshape({n}) : Tensor(); }

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& input, at::IntArrayRef shape, const OptTensor& weight,
                                              const OptTensor& bias, double eps) {
  same_device(input, weight, bias);
  check_param_dtypes(input, weight, bias);
  return native_or_host<at::_ops::native_layer_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        host_unless(rs_norm_computes, input);
        if (n == 0) throw NeedsHost{};  // CPU's statistics of nothing
        // mean/rstd in the input dtype, or in float32 when the parameters'
        // dtype differs (CPU's mixed type)
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        auto st = stat_shape(input, static_cast<int64_t>(shape.size()));
        auto stat_opts = input.options().dtype(mixed ? acc_type(input) : input.scalar_type());
        Tensor x = input.contiguous(), y = at::empty(x.sizes(), x.options());
        Tensor mean = at::empty(st, stat_opts), rstd = at::empty(st, stat_opts);
        const Tensor w = flat(weight, n), b = flat(bias, n);
        rs_layer_norm p{};
        p.x = describe(x.view({m, n})), p.y = describe(y.view({m, n}));
        p.weight = describe_opt(w), p.bias = describe_opt(b);
        p.mean = describe(mean.view({m})), p.rstd = describe(rstd.view({m}));
        p.eps = eps;
        check_or_host(rs_layer_norm_forward(current_stream_for(x), &p));
        return {y, mean, rstd};
      },
      input, shape, weight, bias, eps);
}

// the backward of layer norm (rms: RMS norm, no mean or bias) from the
// forward's statistics: rs_layer_norm_backward
std::tuple<Tensor, Tensor, Tensor> row_norm_backward(const Tensor& grad_out, const Tensor& input, int64_t m,
                                                     int64_t n, const Tensor& mean, const Tensor& rstd,
                                                     const OptTensor& weight, const OptTensor& bias,
                                                     std::array<bool, 3> mask) {
  same_dtype(grad_out, input);
  Tensor x = input.contiguous(), g = grad_out.contiguous();
  Tensor gi = mask[0] ? at::empty(x.sizes(), x.options()) : Tensor();
  Tensor gw = mask[1] && defined(weight) ? at::empty(weight->sizes(), weight->options()) : Tensor();
  Tensor gb = mask[2] && defined(bias) ? at::empty(bias->sizes(), bias->options()) : Tensor();
  const Tensor w = flat(weight, n);
  rs_layer_norm p{};
  p.rms = !mean.defined();
  p.x = describe(x.view({m, n})), p.grad_out = describe(g.view({m, n}));
  if (gi.defined()) p.grad_input = describe(gi.view({m, n}));
  p.weight = describe_opt(w);
  if (mean.defined()) p.mean = describe(mean.reshape({m}));
  p.rstd = describe(rstd.reshape({m}));
  p.grad_weight = describe_opt(gw.defined() ? gw.view({n}) : gw), p.grad_bias = describe_opt(gb.defined() ? gb.view({n}) : gb);
  check_or_host(rs_layer_norm_backward(current_stream_for(x), &p));
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       at::IntArrayRef shape, const Tensor& mean, const Tensor& rstd,
                                                       const OptTensor& weight, const OptTensor& bias,
                                                       std::array<bool, 3> mask) {
  same_device(input, grad_out, mean, rstd, weight, bias);
  return native_or_host<at::_ops::native_layer_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        host_unless(rs_norm_computes, input);
        if (n == 0) throw NeedsHost{};
        return row_norm_backward(grad_out, input, m, n, mean, rstd, weight, bias, mask);
      },
      grad_out, input, shape, mean, rstd, weight, bias, mask);
}

// ---------------------------------------------------------------- RMS norm

// _fused_rms_norm (what F.rms_norm calls when the device has a kernel; its
// autograd calls _fused_rms_norm_backward), as ATen's composite computes
// it: in the opmath type, rstd = 1 / sqrt(mean(x^2) + eps) (eps defaults to
// the opmath type's epsilon), y = x * rstd rounded, times the weight.
// Engine passes: the row sums of x*x, then the normalization.
std::tuple<Tensor, Tensor> rms_norm(const Tensor& input, at::IntArrayRef shape, const OptTensor& weight,
                                    std::optional<double> eps) {
  same_device(input, weight);
  return native_or_host<at::_ops::_fused_rms_norm>(
      [&]() -> std::tuple<Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, std::nullopt);
        host_unless(rs_norm_computes, input);
        if (n == 0 || (defined(weight) && weight->scalar_type() != input.scalar_type())) throw NeedsHost{};
        auto vt = acc_type(input);
        double e = eps.has_value() ? *eps
                                   : (vt == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                        : static_cast<double>(std::numeric_limits<float>::epsilon()));
        Tensor x = input.contiguous(), y = at::empty(x.sizes(), x.options());
        Tensor rstd = at::empty(stat_shape(input, static_cast<int64_t>(shape.size())), x.options().dtype(vt));
        const Tensor w = flat(weight, n);
        rs_layer_norm p{};
        p.rms = 1;
        p.x = describe(x.view({m, n})), p.y = describe(y.view({m, n}));
        p.weight = describe_opt(w), p.rstd = describe(rstd.view({m}));
        p.eps = e;
        check_or_host(rs_layer_norm_forward(current_stream_for(x), &p));
        return {y, rstd};
      },
      input, shape, weight, eps);
}

// The backward composed of ATen ops on the device tensors, in the opmath
// type: where the engine cannot run it (float64 under the apple profile, an
// empty row). CPU has no _fused_rms_norm_backward kernel to run through host
// execution (its F.rms_norm differentiates a composition), so each op here
// runs natively or through host execution on its own, counted as usual.
static std::tuple<Tensor, Tensor> rms_norm_backward_composed(const Tensor& grad_out, const Tensor& input,
                                                             at::IntArrayRef shape, const Tensor& rstd,
                                                             const OptTensor& weight, std::array<bool, 2> mask) {
  auto vt = acc_type(input);
  const int64_t nb = input.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> rows, batch;
  for (int64_t d = 0; d < input.dim(); ++d) (d < nb ? batch : rows).push_back(d);
  Tensor g = grad_out.to(vt), xhat = input.to(vt).mul(rstd.to(vt));
  Tensor gi, gw;
  if (mask[0]) {
    Tensor gwx = defined(weight) ? g.mul(weight->to(vt)) : g;
    gi = rstd.to(vt).mul(gwx.sub(xhat.mul(gwx.mul(xhat).mean(rows, /*keepdim=*/true)))).to(input.scalar_type());
  }
  if (mask[1] && defined(weight)) {
    Tensor gx = g.mul(xhat);
    gw = (batch.empty() ? gx : gx.sum(batch)).to(weight->scalar_type());
  }
  return {gi, gw};
}

// grad_input = rstd (g w - xhat mean(g w xhat)), xhat = x rstd, over each
// row; grad_weight = the column sums of g xhat. Throws NeedsHost where the
// engine cannot run it.
static std::tuple<Tensor, Tensor> rms_norm_backward_native(const Tensor& grad_out, const Tensor& input,
                                                           at::IntArrayRef shape, const Tensor& rstd,
                                                           const OptTensor& weight, std::array<bool, 2> mask) {
  auto [m, n] = layer_norm_split(input, shape, weight, std::nullopt);
  host_unless(rs_norm_computes, input);
  if (n == 0) throw NeedsHost{};
  auto [gi, gw, unused] = row_norm_backward(grad_out, input, m, n, Tensor(), rstd, weight, std::nullopt,
                                            {mask[0], mask[1], false});
  return {gi, gw};
}

std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& input, at::IntArrayRef shape,
                                             const Tensor& rstd, const OptTensor& weight, std::array<bool, 2> mask) {
  same_device(input, grad_out, rstd, weight);
  try {
    return rms_norm_backward_native(grad_out, input, shape, rstd, weight, mask);
  } catch (const NeedsHost&) {
    return rms_norm_backward_composed(grad_out, input, shape, rstd, weight, mask);
  }
}

// ---------------------------------------------------------------- batch norm

// input's layout for the engine: channels_last (2-d or 3-d) kept, else NCHW
at::MemoryFormat channels_format(const Tensor& input) {
  auto f = input.suggest_memory_format();
  return f == at::MemoryFormat::ChannelsLast || f == at::MemoryFormat::ChannelsLast3d ? f
                                                                                      : at::MemoryFormat::Contiguous;
}

// native_batch_norm's computation, shared by its out= form and the
// _native_batch_norm_legit / _batch_norm_with_update entry points: one
// call of the C core (rs_batch_norm_forward: CPU's statistics, dtypes and
// running-statistics update). save_mean/save_invstd take the parameters'
// dtype (weight's, or the input's); outside training they are empty, as
// CPU's.
std::tuple<Tensor, Tensor, Tensor> batch_norm_compute(const Tensor& input, const OptTensor& weight,
                                                      const OptTensor& bias, const OptTensor& running_mean,
                                                      const OptTensor& running_var, bool training, double momentum,
                                                      double eps) {
  same_device(input, weight, bias, running_mean, running_var);
  check_param_dtypes(input, weight, bias);
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected input of at least 2 dims, got ", input.dim());
  host_unless(rs_norm_computes, input);
  const int64_t c = input.size(1);
  auto stat_dt = defined(weight) ? weight->scalar_type() : input.scalar_type();
  if (input.numel() == 0) throw NeedsHost{};  // CPU's empty-batch rules
  if (training) {
    TORCH_CHECK(input.numel() / c > 1, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
  } else {
    TORCH_CHECK(defined(running_mean) && defined(running_var),
                "running_mean and running_var must be defined in evaluation mode");
  }
  auto fmt = channels_format(input);
  Tensor x = input.contiguous(fmt), y = at::empty(x.sizes(), x.options().memory_format(fmt));
  Tensor mean = at::empty({training ? c : 0}, input.options().dtype(stat_dt)), invstd = at::empty_like(mean);
  rs_batch_norm p{};
  p.x = describe(x);
  p.weight = describe_opt(weight), p.bias = describe_opt(bias);
  p.running_mean = describe_opt(running_mean), p.running_var = describe_opt(running_var);
  p.training = training, p.momentum = momentum, p.eps = eps;
  p.y = describe(y);
  if (training) p.save_mean = describe(mean), p.save_invstd = describe(invstd);
  check_or_host(rs_batch_norm_forward(current_stream_for(input), &p));
  return {y, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                              const OptTensor& running_mean, const OptTensor& running_var,
                                              bool training, double momentum, double eps) {
  return native_or_host<at::_ops::native_batch_norm>(
      [&] { return batch_norm_compute(input, weight, bias, running_mean, running_var, training, momentum, eps); },
      input, weight, bias, running_mean, running_var, training, momentum, eps);
}

// the out= forms: compute, then resize and copy into the given tensors
// batch norm's out= forms: outside training CPU writes only `out` and
// leaves save_mean and save_invstd as they were (no resize)
std::tuple<Tensor&, Tensor&, Tensor&> write_outs(std::tuple<Tensor, Tensor, Tensor> r, Tensor& o0, Tensor& o1,
                                                 Tensor& o2, bool training) {
  write_out(o0, std::get<0>(r));
  if (training) {
    write_out(o1, std::get<1>(r));
    write_out(o2, std::get<2>(r));
  }
  return {o0, o1, o2};
}

std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_out(const Tensor& input, const OptTensor& weight,
                                                     const OptTensor& bias, const OptTensor& running_mean,
                                                     const OptTensor& running_var, bool training, double momentum,
                                                     double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  return native_or_host<at::_ops::native_batch_norm_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        return write_outs(batch_norm_compute(input, weight, bias, running_mean, running_var, training, momentum, eps),
                          out, save_mean, save_invstd, training);
      },
      input, weight, bias, running_mean, running_var, training, momentum, eps, out, save_mean, save_invstd);
}

// _native_batch_norm_legit: native_batch_norm with the running statistics
// required (or absent, .no_stats)
std::tuple<Tensor, Tensor, Tensor> batch_norm_legit(const Tensor& input, const OptTensor& weight,
                                                    const OptTensor& bias, Tensor& running_mean, Tensor& running_var,
                                                    bool training, double momentum, double eps) {
  return native_or_host<at::_ops::_native_batch_norm_legit>(
      [&] { return batch_norm_compute(input, weight, bias, running_mean, running_var, training, momentum, eps); },
      input, weight, bias, running_mean, running_var, training, momentum, eps);
}

std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_legit_out(const Tensor& input, const OptTensor& weight,
                                                           const OptTensor& bias, Tensor& running_mean,
                                                           Tensor& running_var, bool training, double momentum,
                                                           double eps, Tensor& out, Tensor& save_mean,
                                                           Tensor& save_invstd) {
  return native_or_host<at::_ops::_native_batch_norm_legit_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        return write_outs(batch_norm_compute(input, weight, bias, running_mean, running_var, training, momentum, eps),
                          out, save_mean, save_invstd, training);
      },
      input, weight, bias, running_mean, running_var, training, momentum, eps, out, save_mean, save_invstd);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_no_stats(const Tensor& input, const OptTensor& weight,
                                                             const OptTensor& bias, bool training, double momentum,
                                                             double eps) {
  return native_or_host<at::_ops::_native_batch_norm_legit_no_stats>(
      [&] { return batch_norm_compute(input, weight, bias, {}, {}, training, momentum, eps); }, input, weight, bias,
      training, momentum, eps);
}

std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_legit_no_stats_out(const Tensor& input, const OptTensor& weight,
                                                                    const OptTensor& bias, bool training,
                                                                    double momentum, double eps, Tensor& out,
                                                                    Tensor& save_mean, Tensor& save_invstd) {
  return native_or_host<at::_ops::_native_batch_norm_legit_no_stats_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        return write_outs(batch_norm_compute(input, weight, bias, {}, {}, training, momentum, eps), out, save_mean,
                          save_invstd, training);
      },
      input, weight, bias, training, momentum, eps, out, save_mean, save_invstd);
}

// _batch_norm_with_update (the training form torch.export/compile emit):
// native_batch_norm in training mode plus an empty `reserve` (cuDNN's
// workspace elsewhere; CPU returns an empty uint8 tensor too)
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_with_update(const Tensor& input, const OptTensor& weight,
                                                                  const OptTensor& bias, Tensor& running_mean,
                                                                  Tensor& running_var, double momentum, double eps) {
  return native_or_host<at::_ops::_batch_norm_with_update>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor, Tensor> {
        auto [y, m, v] = batch_norm_compute(input, weight, bias, running_mean, running_var, true, momentum, eps);
        return {y, m, v, at::empty({0}, input.options().dtype(at::kByte))};
      },
      input, weight, bias, running_mean, running_var, momentum, eps);
}

// the gradients from the training statistics (save_mean, save_invstd) or
// the running ones (evaluation), one call of the C core
// (rs_batch_norm_backward); grad_weight and grad_bias in the parameters'
// dtype
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const OptTensor& weight, const OptTensor& running_mean,
                                                       const OptTensor& running_var, const OptTensor& save_mean,
                                                       const OptTensor& save_invstd, bool train, double eps,
                                                       std::array<bool, 3> mask) {
  same_device(input, grad_out, weight, running_mean, running_var, save_mean, save_invstd);
  return native_or_host<at::_ops::native_batch_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        host_unless(rs_norm_computes, input);
        if (input.numel() == 0) throw NeedsHost{};
        same_dtype(grad_out, input);
        const int64_t c = input.size(1);
        auto fmt = channels_format(input);
        Tensor x = input.contiguous(fmt), g = grad_out.contiguous(fmt);
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        Tensor gi = mask[0] ? at::empty(x.sizes(), x.options().memory_format(fmt)) : Tensor();
        Tensor gw = mask[1] ? at::empty({c}, input.options().dtype(pdt)) : Tensor();
        Tensor gb = mask[2] ? at::empty({c}, input.options().dtype(pdt)) : Tensor();
        rs_batch_norm p{};
        p.x = describe(x);
        p.weight = describe_opt(weight);
        p.running_mean = describe_opt(running_mean), p.running_var = describe_opt(running_var);
        p.save_mean = describe_opt(save_mean), p.save_invstd = describe_opt(save_invstd);
        p.training = train, p.eps = eps;
        p.grad_out = describe(g);
        p.grad_input = describe_opt(gi), p.grad_weight = describe_opt(gw), p.grad_bias = describe_opt(gb);
        check_or_host(rs_batch_norm_backward(current_stream_for(input), &p));
        return {gi, gw, gb};
      },
      grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask);
}

// batch_norm_backward (the backward of _batch_norm_with_update / _no_update):
// `update` is native_batch_norm_backward's `train`; reserve is unused
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward_reserve(const Tensor& grad_out, const Tensor& input,
                                                               const Tensor& weight, const OptTensor& running_mean,
                                                               const OptTensor& running_var,
                                                               const OptTensor& save_mean, const OptTensor& save_var,
                                                               bool update, double eps, std::array<bool, 3> mask,
                                                               const Tensor& reserve) {
  same_device(input, grad_out, weight, running_mean, running_var, save_mean, save_var);
  return native_or_host<at::_ops::batch_norm_backward>(
      [&] {
        return batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var, update,
                                   eps, mask);
      },
      grad_out, input, weight, running_mean, running_var, save_mean, save_var, update, eps, mask, reserve);
}

// ---------------------------------------------------------------- group norm

// x as (N, C, HxW), statistics (N, G): one call of the C core each way
// (rs_group_norm_forward/backward; one rounding at the end, as CPU's
// kernel). mean and rstd in the input's dtype, or float32 beside float32
// parameters of a float16/bfloat16 input (mixed).
std::tuple<Tensor, Tensor, Tensor> group_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                              int64_t n, int64_t c, int64_t hxw, int64_t group, double eps) {
  same_device(input, weight, bias);
  check_param_dtypes(input, weight, bias);
  return native_or_host<at::_ops::native_group_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        TORCH_CHECK(group > 0 && c % group == 0, "Expected number of channels in input to be divisible by ",
                    "num_groups, but got input of shape ", input.sizes(), " and num_groups=", group);
        TORCH_CHECK(input.numel() == n * c * hxw, "Expected the input to have ", n * c * hxw, " elements, got ",
                    input.numel());
        host_unless(rs_norm_computes, input);
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        auto stat_dt = mixed ? acc_type(input) : input.scalar_type();
        Tensor x = input.contiguous().view({n, c, hxw}), y = at::empty(x.sizes(), x.options());
        Tensor mean = at::empty({n, group}, input.options().dtype(stat_dt)), rstd = at::empty_like(mean);
        rs_group_norm p{};
        p.x = describe(x);
        p.groups = group, p.eps = eps;
        p.weight = describe_opt(weight), p.bias = describe_opt(bias);
        p.y = describe(y);
        p.mean = describe(mean), p.rstd = describe(rstd);
        check_or_host(rs_group_norm_forward(current_stream_for(input), &p));
        return {y.view(input.sizes()), mean, rstd};
      },
      input, weight, bias, n, c, hxw, group, eps);
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                                       const Tensor& rstd, const OptTensor& weight, int64_t n,
                                                       int64_t c, int64_t hxw, int64_t group,
                                                       std::array<bool, 3> mask) {
  same_device(input, grad_out, mean, rstd, weight);
  return native_or_host<at::_ops::native_group_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        host_unless(rs_norm_computes, input);
        same_dtype(grad_out, input);
        TORCH_CHECK(group > 0 && c % group == 0 && input.numel() == n * c * hxw && mean.numel() == n * group &&
                        rstd.numel() == n * group,
                    "native_group_norm_backward: inconsistent sizes");
        Tensor x = input.contiguous().view({n, c, hxw}), g = grad_out.contiguous().view({n, c, hxw});
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        Tensor gi = mask[0] ? at::empty(x.sizes(), x.options()) : Tensor();
        Tensor gw = mask[1] ? at::empty({c}, input.options().dtype(pdt)) : Tensor();
        Tensor gb = mask[2] ? at::empty({c}, input.options().dtype(pdt)) : Tensor();
        rs_group_norm p{};
        p.x = describe(x);
        p.groups = group;
        p.weight = describe_opt(weight);
        p.mean = describe(mean.reshape({n, group})), p.rstd = describe(rstd.reshape({n, group}));
        p.grad_out = describe(g);
        p.grad_input = describe_opt(gi), p.grad_weight = describe_opt(gw), p.grad_bias = describe_opt(gb);
        check_or_host(rs_group_norm_backward(current_stream_for(input), &p));
        return {gi.defined() ? gi.view(input.sizes()) : gi, gw, gb};
      },
      grad_out, input, mean, rstd, weight, n, c, hxw, group, mask);
}

// ---------------------------------------------------------------- renorm

// As CPU's renorm_out: the p-norm of each slice along `dim` (float32 for
// float16/bfloat16), factor = norm > maxnorm ? maxnorm / (norm + 1e-7) : 1 in
// the norm's type and rounded to self's dtype, then self * factor.
Tensor& renorm_out(const Tensor& self, const at::Scalar& p, int64_t dim, const at::Scalar& maxnorm, Tensor& out) {
  return native_or_host<at::_ops::renorm_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_renorm> m(out);
        m.meta(self, p, dim, maxnorm);
        host_if_no_fp64(self);
        dim = c10::maybe_wrap_dim(dim, self.dim());
        std::vector<int64_t> reduce_dims;
        for (int64_t d = 0; d < self.dim(); ++d)
          if (d != dim) reduce_dims.push_back(d);
        auto dtype = self.scalar_type();
        auto acc = at::toAccumulateType(dtype, /*is_cuda=*/true);
        Tensor norm = acc != dtype ? at::linalg_vector_norm(self, p, reduce_dims, true, acc)
                                   : at::linalg_vector_norm(self, p, reduce_dims, true);
        Tensor factor = acc == c10::toRealValueType(dtype) ? norm : at::empty(norm.sizes(), self.options());
        auto iter = at::TensorIteratorConfig()
                        .add_output(factor)
                        .add_const_input(norm)
                        .set_check_mem_overlap(false)
                        .cast_common_dtype_to_outputs(true)
                        .build();
        run_pointwise(iter, "renorm_factor", RS_PW_RENORM_FACTOR, Result::Compute, {maxnorm});
        at::mul_out(out, self, factor);
        return out;
      },
      self, p, dim, maxnorm, out);
}

// ---------------------------------------------------------------- weight norm
// _weight_norm_interface (nn.utils.weight_norm and parametrizations'
// weight_norm: wav2vec2's positional convolution, HiFi-GAN): norms = ||v||
// over every dim but `dim` (the first or the last), w = v * (g / norms), as
// CPU's kernel, on the reduction and pointwise engines; bfloat16's norms in
// float32, as CPU's. The backward is ATen's own formula over native ops
// (_weight_norm_differentiable_backward). float64 without fp64 reaches the
// host through the engines it calls.
std::tuple<Tensor, Tensor> weight_norm_interface(const Tensor& v, const Tensor& g, int64_t dim) {
  same_device(v, g);
  TORCH_CHECK(v.dim() > 0 && (dim == 0 || dim == v.dim() - 1),
              "fused kernels can only be applied for first or last dim");
  const at::ScalarType norm_dt = g.scalar_type() == at::kBFloat16 ? at::kFloat : g.scalar_type();
  std::vector<int64_t> over;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) over.push_back(d);
  Tensor norms = over.empty() ? v.abs().to(norm_dt)
                              : at::linalg_vector_norm(v, 2, over, /*keepdim=*/true, norm_dt);
  Tensor w = at::mul(v, g.div(norms)).to(v.scalar_type());
  return {w, norms};
}

std::tuple<Tensor, Tensor> weight_norm_interface_backward(const Tensor& grad_w, const Tensor& saved_v,
                                                          const Tensor& saved_g, const Tensor& saved_norms,
                                                          int64_t dim) {
  same_device(grad_w, saved_v, saved_g, saved_norms);
  TORCH_CHECK(saved_v.is_contiguous() && saved_g.is_contiguous() && saved_norms.is_contiguous(),
              "_weight_norm_interface_backward: expected contiguous saved tensors");
  TORCH_CHECK(dim == 0 || dim == saved_v.dim() - 1, "fused kernels can only be applied for first or last dim");
  // in float32 for bfloat16, rounded once at the end, as CPU's kernel
  const at::ScalarType dt = saved_norms.scalar_type();
  auto [gv, gg] = at::_weight_norm_differentiable_backward(grad_w.contiguous().to(dt), saved_v.to(dt),
                                                           saved_g.to(dt), saved_norms, dim);
  return {gv.to(saved_v.scalar_type()), gg.to(saved_g.scalar_type())};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_weight_norm_interface", weight_norm_interface);
  m.impl("_weight_norm_interface_backward", weight_norm_interface_backward);
  m.impl("renorm.out", renorm_out);
  m.impl("native_layer_norm", layer_norm);
  m.impl("_fused_rms_norm", rms_norm);
  m.impl("_fused_rms_norm_backward", rms_norm_backward);
  m.impl("native_layer_norm_backward", layer_norm_backward);
  m.impl("native_batch_norm", batch_norm);
  m.impl("native_batch_norm.out", batch_norm_out);
  m.impl("_native_batch_norm_legit", batch_norm_legit);
  m.impl("_native_batch_norm_legit.out", batch_norm_legit_out);
  m.impl("_native_batch_norm_legit.no_stats", batch_norm_legit_no_stats);
  m.impl("_native_batch_norm_legit.no_stats_out", batch_norm_legit_no_stats_out);
  m.impl("_batch_norm_with_update", batch_norm_with_update);
  m.impl("native_batch_norm_backward", batch_norm_backward);
  m.impl("batch_norm_backward", batch_norm_backward_reserve);
  m.impl("native_group_norm", group_norm);
  m.impl("native_group_norm_backward", group_norm_backward);
}

}  // namespace russet
