// Normalization layers: native_layer_norm and native_batch_norm with their
// backward kernels, and native_group_norm. The passes over the tensor run
// in the C core's normalization engine (rs_norm_run, src/engine/norm.c):
// statistics by Welford in one read, the normalization and its affine in
// one read and one write, the backward's row and column sums and its
// elementwise formula; what is per channel or per row (rstd, batch norm's
// alpha and beta, the running statistics) is small and composed here from
// the native engines, in CPU's order and dtypes. float16/bfloat16 compute
// in float32 as CPU does. On a device without fp64, float64 inputs run the
// whole op through host execution.
#include "torch/reduce.h"
#include "torch/same_device.h"

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
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sum.h>
#include <torch/library.h>

#include <limits>
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

// ---------------------------------------------------------------- the engine

uint64_t addr_or_0(const Tensor& t) { return t.defined() ? address_of(t) : 0; }

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

// an optional per-channel parameter as a contiguous vector of acc_type (the
// engine's vectors: float32, or float64 for float64 inputs)
Tensor param_vec(const OptTensor& t, const Tensor& x, int64_t n) {
  return defined(t) ? t->reshape({n}).to(acc_type(x)).contiguous() : Tensor();
}

void run_norm(rs_norm p, const Tensor& x) {
  p.dtype = static_cast<rs_dtype>(x.scalar_type());
  check_or_host(rs_norm_run(current_stream_for(x), &p));
}

// per-row statistics of contiguous (m, n) rows: mean and biased variance
std::pair<Tensor, Tensor> row_stats(const Tensor& x, int64_t m, int64_t n) {
  Tensor mean = at::empty({m}, x.options().dtype(acc_type(x))), var = at::empty({m}, mean.options());
  rs_norm p{};
  p.op = RS_NORM_STATS;
  p.x = address_of(x);
  p.rows = m;
  p.outer = 1;
  p.inner = n;
  p.row_stride = n;
  p.out1 = address_of(mean);
  p.out2 = address_of(var);
  run_norm(p, x);
  return {mean, var};
}

// y = ((x - a[r]) * b[r]) * w[c] + bias[c] over contiguous x, with
// r = (e / row_div) % rows, c = (e / col_div) % cols
Tensor apply_norm(const Tensor& x, const Tensor& a, const Tensor& b, const Tensor& w, const Tensor& bias,
                  int64_t row_div, int64_t rows, int64_t col_div, int64_t cols, at::MemoryFormat fmt) {
  Tensor y = at::empty(x.sizes(), x.options().memory_format(fmt));
  rs_norm p{};
  p.op = RS_NORM_APPLY;
  p.x = address_of(x);
  p.y = address_of(y);
  p.numel = x.numel();
  p.row_div = row_div;
  p.rows = rows;
  p.col_div = col_div;
  p.cols = cols;
  p.a = addr_or_0(a);
  p.b = addr_or_0(b);
  p.w = addr_or_0(w);
  p.bias = addr_or_0(bias);
  run_norm(p, x);
  return y;
}

// Layer norm (centred) or RMS norm over contiguous (m, n) rows, one kernel
// (ROW_FWD): y, and the row statistics in the opmath type (the mean, left
// undefined for RMS norm, and rstd = 1 / sqrt(var + eps)).
std::tuple<Tensor, Tensor, Tensor> row_norm_forward(const Tensor& x, int64_t m, int64_t n, const Tensor& w,
                                                    const Tensor& bias, double eps, bool centred) {
  auto opts = x.options().dtype(acc_type(x));
  Tensor y = at::empty(x.sizes(), x.options()), rstd = at::empty({m}, opts);
  Tensor mean = centred ? at::empty({m}, opts) : Tensor();
  rs_norm p{};
  p.op = RS_NORM_ROW_FWD;
  p.x = address_of(x), p.y = address_of(y);
  p.rows = m, p.inner = n;
  p.w = addr_or_0(w), p.bias = addr_or_0(bias);
  p.out1 = addr_or_0(mean), p.out2 = address_of(rstd);
  p.eps = eps;
  run_norm(p, x);
  return {y, mean, rstd};
}

// The backward of a normalization over contiguous (m, n) rows (layer norm,
// RMS norm): `base` holds x, g and the row statistics a (the mean; absent
// for RMS norm) and b (rstd). grad_input = b (g w - mean(g w) [centred] -
// xhat mean(g w xhat)), one kernel (ROW_BWD).
Tensor row_norm_grad_input(const rs_norm& base, const Tensor& x, const Tensor& w, int64_t m, int64_t n) {
  Tensor gi = at::empty(x.sizes(), x.options());
  rs_norm q = base;
  q.op = RS_NORM_ROW_BWD;
  q.y = address_of(gi);
  q.rows = m, q.inner = n;
  q.w = addr_or_0(w);
  run_norm(q, x);
  return gi;
}

// The column sums over the rows for the weight and bias gradients: (sum of
// g, sum of g xhat), xhat from the row statistics in `base` (COL_SUMS).
std::pair<Tensor, Tensor> row_norm_column_sums(const rs_norm& base, const Tensor& x, int64_t m, int64_t n) {
  auto opts = x.options().dtype(acc_type(x));
  Tensor c1 = at::empty({n}, opts), c2 = at::empty({n}, opts);
  if (m == 0) return {c1.zero_(), c2.zero_()};
  rs_norm q = base;
  q.op = RS_NORM_COL_SUMS;
  q.rows = m, q.inner = n;
  q.out1 = address_of(c1), q.out2 = address_of(c2);
  run_norm(q, x);
  return {c1, c2};
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
  same_device(input, weight, bias);
  check_param_dtypes(input, weight, bias);
  return native_or_host<at::_ops::native_layer_norm>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        need_native(input);
        if (n == 0) throw NeedsHost{};  // CPU's statistics of nothing
        // mean/rstd in the input dtype, or in float32 when the parameters'
        // dtype differs (CPU's mixed type)
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        Tensor x = input.contiguous();
        auto [y, mean, rstd] = row_norm_forward(x, m, n, param_vec(weight, x, n), param_vec(bias, x, n), eps,
                                                /*centred=*/true);
        auto st = stat_shape(input, static_cast<int64_t>(shape.size()));
        auto stat_dt = mixed ? acc_type(input) : input.scalar_type();
        return {y.view(input.sizes()), mean.to(stat_dt).view(st), rstd.to(stat_dt).view(st)};
      },
      input, shape, weight, bias, eps);
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       at::IntArrayRef shape, const Tensor& mean, const Tensor& rstd,
                                                       const OptTensor& weight, const OptTensor& bias,
                                                       std::array<bool, 3> mask) {
  same_device(input, grad_out, mean, rstd, weight, bias);
  return native_or_host<at::_ops::native_layer_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        auto [m, n] = layer_norm_split(input, shape, weight, bias);
        need_native(input);
        if (n == 0) throw NeedsHost{};
        auto vt = acc_type(input);
        same_dtype(grad_out, input);
        Tensor x = input.contiguous(), g = grad_out.contiguous();
        Tensor mu = mean.reshape({m}).to(vt).contiguous(), rs = rstd.reshape({m}).to(vt).contiguous();
        Tensor w = param_vec(weight, x, n);
        Tensor gi, gw, gb;
        rs_norm p{};
        p.x = address_of(x);
        p.g = address_of(g);
        p.a = address_of(mu);
        p.b = address_of(rs);
        if (mask[0]) gi = row_norm_grad_input(p, x, w, m, n).view(input.sizes());  // centred: p.a
        bool want_w = mask[1] && defined(weight), want_b = mask[2] && defined(bias);
        if (want_w || want_b) {
          auto [cb, cw] = row_norm_column_sums(p, x, m, n);
          if (want_w) gw = cw.to(weight->scalar_type()).view(weight->sizes());
          if (want_b) gb = cb.to(bias->scalar_type()).view(bias->sizes());
        }
        return {gi, gw, gb};
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
        need_native(input);
        if (n == 0 || (defined(weight) && weight->scalar_type() != input.scalar_type())) throw NeedsHost{};
        auto vt = acc_type(input);
        double e = eps.has_value() ? *eps
                                   : (vt == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                        : static_cast<double>(std::numeric_limits<float>::epsilon()));
        Tensor x = input.contiguous();
        auto [y, unused, rstd] = row_norm_forward(x, m, n, param_vec(weight, x, n), Tensor(), e, /*centred=*/false);
        return {y.view(input.sizes()), rstd.view(stat_shape(input, static_cast<int64_t>(shape.size())))};
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
  need_native(input);
  if (n == 0) throw NeedsHost{};
  auto vt = acc_type(input);
  same_dtype(grad_out, input);
  Tensor x = input.contiguous(), g = grad_out.contiguous();
  Tensor rs = rstd.reshape({m}).to(vt).contiguous(), w = param_vec(weight, x, n);
  rs_norm p{};
  p.x = address_of(x);
  p.g = address_of(g);
  p.b = address_of(rs);
  Tensor gi, gw;
  if (mask[0]) gi = row_norm_grad_input(p, x, w, m, n).view(input.sizes());  // not centred: no p.a
  if (mask[1] && defined(weight))
    gw = row_norm_column_sums(p, x, m, n).second.to(weight->scalar_type()).view(weight->sizes());
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

// The channels of an (N, C, *) tensor as the engine's rows: x is made dense
// in its own layout, NCHW or channels_last (kept: results take it too).
struct Channels {
  Tensor x;
  at::MemoryFormat fmt;
  int64_t n, c, hw;
  bool cl() const { return fmt != at::MemoryFormat::Contiguous; }
  // the reductions' row set: channel c's elements
  void rows(rs_norm& p) const {
    p.rows = c;
    if (cl()) {
      p.outer = n * hw, p.inner = 1, p.row_stride = 1, p.outer_stride = c;
    } else {
      p.outer = n, p.inner = hw, p.row_stride = hw, p.outer_stride = c * hw;
    }
  }
  // the elementwise blocks' channel of element e, as row and column
  int64_t div() const { return cl() ? 1 : hw; }
  // the per-channel statistics into out1 (mean) and out2
  rs_norm stats(const Tensor& out1, const Tensor& out2) const {
    rs_norm p{};
    p.op = RS_NORM_STATS;
    p.x = address_of(x);
    rows(p);
    p.out1 = address_of(out1);
    p.out2 = address_of(out2);
    return p;
  }
};

Channels channels_of(const Tensor& input) {
  auto f = input.suggest_memory_format();
  if (f != at::MemoryFormat::ChannelsLast && f != at::MemoryFormat::ChannelsLast3d) f = at::MemoryFormat::Contiguous;
  Channels ch{input.contiguous(f), f, input.size(0), input.size(1), 1};
  for (int64_t d = 2; d < input.dim(); ++d) ch.hw *= input.size(d);
  return ch;
}

// another tensor of the same shape in ch's layout
Tensor same_layout(const Tensor& t, const Channels& ch) { return t.contiguous(ch.fmt); }

// Batch norm's per-channel transform in one launch (BN_PARAMS): alpha =
// invstd * weight, beta = bias - mean * alpha, with invstd = v, or where
// v_is_var 1 / sqrt(v + eps); each vector of the opmath type (mean may be
// undefined: 0). As CPU's separate ops, each product rounded.
std::pair<Tensor, Tensor> bn_params(const Tensor& mean, const Tensor& v, bool v_is_var, double eps,
                                    const OptTensor& weight, const OptTensor& bias, const Tensor& x) {
  const int64_t c = v.numel();
  Tensor m = mean.defined() ? mean.contiguous() : mean, vv = v.contiguous();
  Tensor alpha = at::empty({c}, vv.options()), beta = at::empty({c}, vv.options());
  Tensor w = param_vec(weight, x, c), b = param_vec(bias, x, c);
  rs_norm p{};
  p.op = RS_NORM_BN_PARAMS;
  p.rows = c;
  p.a = addr_or_0(m);
  p.b = address_of(vv);
  p.bn_var = v_is_var;
  p.eps = eps;
  p.w = addr_or_0(w);
  p.bias = addr_or_0(b);
  p.out1 = address_of(alpha);
  p.out2 = address_of(beta);
  run_norm(p, x);
  return {alpha, beta};
}

// native_batch_norm's computation, shared by its out= form and the
// _native_batch_norm_legit / _batch_norm_with_update entry points. As CPU:
// statistics in float32 (float16/bfloat16 inputs), saved in the parameters'
// dtype and read back from it, then y = x * alpha + beta per channel with
// alpha = invstd * weight and beta = bias - mean * alpha.
std::tuple<Tensor, Tensor, Tensor> batch_norm_compute(const Tensor& input, const OptTensor& weight,
                                                      const OptTensor& bias, const OptTensor& running_mean,
                                                      const OptTensor& running_var, bool training, double momentum,
                                                      double eps) {
  same_device(input, weight, bias, running_mean, running_var);
  check_param_dtypes(input, weight, bias);
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected input of at least 2 dims, got ", input.dim());
  need_native(input);
  int64_t c = input.size(1);
  auto at = acc_type(input);
  // save_mean/save_invstd: the parameters' dtype when they differ (mixed)
  auto stat_dt = defined(weight) ? weight->scalar_type() : input.scalar_type();
  if (input.numel() == 0) throw NeedsHost{};  // CPU's empty-batch rules
  Channels ch = channels_of(input);
  Tensor mean, invstd;
  // statistics, running statistics and the per-channel transform in the
  // statistics kernel itself (rs_norm.bn_train), where every vector is in
  // the computation's type and the running ones are dense
  if (training)
    TORCH_CHECK(input.numel() / c > 1, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
  auto fusable = [&](const OptTensor& t) { return !defined(t) || (t->scalar_type() == at && t->is_contiguous()); };
  if (training && stat_dt == at && fusable(running_mean) && fusable(running_var)) {
    Tensor mu = at::empty({c}, input.options().dtype(at)), inv = at::empty({c}, mu.options());
    Tensor alpha = at::empty({c}, mu.options()), beta = at::empty({c}, mu.options());
    Tensor w = param_vec(weight, input, c), b = param_vec(bias, input, c);
    rs_norm p = ch.stats(mu, inv);
    p.bn_train = 1;
    p.eps = eps;
    p.momentum = momentum;
    p.w = defined(w) ? address_of(w) : 0;
    p.bias = defined(b) ? address_of(b) : 0;
    p.run_mean = defined(running_mean) ? address_of(*running_mean) : 0;
    p.run_var = defined(running_var) ? address_of(*running_var) : 0;
    p.alpha = address_of(alpha);
    p.beta = address_of(beta);
    run_norm(p, ch.x);
    Tensor y = apply_norm(ch.x, Tensor(), alpha, Tensor(), beta, ch.div(), c, ch.div(), c, ch.fmt);
    return {y, mu, inv};
  }
  if (training) {
    Tensor mu = at::empty({c}, input.options().dtype(acc_type(input))), var = at::empty({c}, mu.options());
    run_norm(ch.stats(mu, var), ch.x);
    int64_t n = input.numel() / c;
    // CPU's bfloat16 kernel keeps the sum of squares and the variance in
    // bfloat16 (its float16 kernel does not); the statistics it saves and
    // transforms with are in stat_dt
    double dn = static_cast<double>(n);
    Tensor var_sum = var.mul(dn), v = var;
    if (stat_dt == at::kBFloat16) {
      var_sum = var_sum.to(stat_dt).to(at);
      v = var_sum.div(dn).to(stat_dt).to(at);
    }
    mean = mu.to(stat_dt);
    invstd = bn_params(Tensor(), v, true, eps, std::nullopt, std::nullopt, input).first.to(stat_dt);
    if (stat_dt == at::kBFloat16) {
      // CPU's bfloat16 kernel updates in bfloat16 arithmetic: momentum and
      // 1 - momentum rounded to bfloat16, each product and the mean's sum
      // rounded; the variance's products summed in float
      double m = static_cast<double>(c10::BFloat16(static_cast<float>(momentum)));
      double om = static_cast<double>(c10::BFloat16(static_cast<float>(1 - m)));
      if (defined(running_mean)) running_mean->copy_(mean.mul(m).add_(running_mean->mul(om)));
      if (defined(running_var)) {
        Tensor unbiased = var_sum.div(dn - 1).to(stat_dt).to(at);
        running_var->copy_(unbiased.mul_(m).add_(running_var->mul(om).to(at)));
      }
    } else {
      // momentum * stat + (1 - momentum) * running, rounded once to the
      // running tensor's dtype (CPU: the float32 mean before rounding,
      // computed in double for float32; bit-equal for float16)
      auto update = [&](const Tensor& run, const Tensor& stat) {
        run.copy_(run.to(at).mul(1 - momentum).add_(stat, momentum));
      };
      if (defined(running_mean)) update(*running_mean, mu);
      if (defined(running_var)) update(*running_var, var_sum.div(dn - 1));
    }
  } else {
    TORCH_CHECK(defined(running_mean) && defined(running_var),
                "running_mean and running_var must be defined in evaluation mode");
  }
  // alpha = invstd * weight, beta = bias - mean * alpha per channel
  // (evaluation: invstd = 1 / sqrt(running_var + eps)), then y = x * alpha +
  // beta per channel, in the input's layout
  auto [alpha, beta] = bn_params(training ? mean.to(at) : running_mean->to(at),
                                 training ? invstd.to(at) : running_var->to(at), !training, eps, weight, bias, ch.x);
  Tensor y = apply_norm(ch.x, Tensor(), alpha, Tensor(), beta, ch.div(), c, ch.div(), c, ch.fmt);
  if (!training) {
    // CPU returns empty statistics in evaluation mode
    return {y, at::empty({0}, input.options().dtype(stat_dt)), at::empty({0}, input.options().dtype(stat_dt))};
  }
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

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const OptTensor& weight, const OptTensor& running_mean,
                                                       const OptTensor& running_var, const OptTensor& save_mean,
                                                       const OptTensor& save_invstd, bool train, double eps,
                                                       std::array<bool, 3> mask) {
  same_device(input, grad_out, weight, running_mean, running_var, save_mean, save_invstd);
  return native_or_host<at::_ops::native_batch_norm_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        need_native(input);
        if (input.numel() == 0) throw NeedsHost{};
        auto at = acc_type(input);
        Channels ch = channels_of(input);
        int64_t c = ch.c;
        same_dtype(grad_out, input);
        Tensor g = same_layout(grad_out, ch);
        Tensor mean, invstd;
        if (train) {
          mean = save_mean->to(at);
          invstd = save_invstd->to(at);
        } else {
          mean = running_mean->to(at);
          invstd = bn_params(Tensor(), running_var->to(at), true, eps, std::nullopt, std::nullopt, input).first;
        }
        mean = mean.contiguous();
        invstd = invstd.contiguous();
        Tensor w = param_vec(weight, input, c);
        Tensor gi, gw, gb;
        rs_norm p{};
        p.x = address_of(ch.x);
        p.g = address_of(g);
        p.a = address_of(mean);
        p.b = address_of(invstd);
        // per channel: sum of g and of g xhat, when a result needs them
        Tensor gsum, gxsum;
        if (mask[1] || mask[2] || (mask[0] && train)) {
          gsum = at::empty({c}, mean.options());
          gxsum = at::empty({c}, mean.options());
          rs_norm q = p;
          q.op = RS_NORM_SUMS;
          ch.rows(q);
          q.out1 = address_of(gsum), q.out2 = address_of(gxsum);
          run_norm(q, ch.x);
        }
        if (mask[0]) {
          if (train) {
            // (g - mean(g) - xhat mean(g xhat)) * invstd * w
            gi = at::empty(ch.x.sizes(), ch.x.options().memory_format(ch.fmt));
            rs_norm q = p;
            q.op = RS_NORM_GRAD;
            q.y = address_of(gi);
            q.numel = ch.x.numel(), q.row_div = ch.div(), q.rows = c, q.col_div = ch.div(), q.cols = c;
            q.s1 = address_of(gsum), q.s2 = address_of(gxsum);
            q.scale = addr_or_0(w);
            q.inv_k = 1.0 / static_cast<double>(input.numel() / c);
            run_norm(q, ch.x);
          } else {
            // g * invstd * w
            Tensor scale =
                w.defined() ? bn_params(Tensor(), invstd, false, 0.0, weight, std::nullopt, input).first : invstd;
            gi = apply_norm(g, Tensor(), scale, Tensor(), Tensor(), ch.div(), c, ch.div(), c, ch.fmt);
          }
        }
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        if (mask[1]) gw = gxsum.to(pdt);
        if (mask[2]) gb = gsum.to(pdt);
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

// x as (N, G, C/G * HxW); statistics (N, G); one rounding at the end, as
// CPU's kernel (ATen's composite would round the normalized value first)
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
        need_native(input);
        int64_t k = c / group * hxw;  // a group's elements
        if (k == 0) throw NeedsHost{};
        bool mixed = defined(weight) && weight->scalar_type() != input.scalar_type();
        // rows (n, g) of the contiguous input; element e's channel (e / hxw) % c
        Tensor x = input.contiguous();
        auto [mean, var] = row_stats(x, n * group, k);
        Tensor rstd = at::rsqrt(var.add_(eps));
        Tensor y = apply_norm(x, mean, rstd, param_vec(weight, x, c), param_vec(bias, x, c), k, n * group, hxw, c,
                              at::MemoryFormat::Contiguous);
        auto stat_dt = mixed ? acc_type(input) : input.scalar_type();
        return {y.view(input.sizes()), mean.view({n, group}).to(stat_dt), rstd.view({n, group}).to(stat_dt)};
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
        need_native(input);
        int64_t cpg = c / group, k = cpg * hxw;
        if (k == 0 || n == 0) throw NeedsHost{};
        auto vt = acc_type(input);
        same_dtype(grad_out, input);
        Tensor x = input.contiguous(), g = grad_out.contiguous();
        Tensor mu = mean.reshape({n * group}).to(vt).contiguous(), rs = rstd.reshape({n * group}).to(vt).contiguous();
        // one pass: per (n, c), sum(g) and sum(g xhat) over H*W, with each
        // channel's group statistics (repeated over the group's channels)
        Tensor mu_c = mu.view({n * group, 1}).expand({n * group, cpg}).reshape({n * c});
        Tensor rs_c = rs.view({n * group, 1}).expand({n * group, cpg}).reshape({n * c});
        Tensor s1 = at::empty({n * c}, mu.options()), s2 = at::empty({n * c}, mu.options());
        rs_norm p{};
        p.op = RS_NORM_SUMS;
        p.x = address_of(x);
        p.g = address_of(g);
        p.rows = n * c, p.outer = 1, p.inner = hxw, p.row_stride = hxw;
        p.a = address_of(mu_c), p.b = address_of(rs_c);
        p.out1 = address_of(s1), p.out2 = address_of(s2);
        run_norm(p, x);
        Tensor w = param_vec(weight, x, c), gi, gw, gb;
        if (mask[0]) {
          // rstd (g w - mean(g w) - xhat mean(g w xhat)) over each group: its
          // sums are the (n, c) sums weighted by the channels' w, summed over
          // the group's channels (small)
          Tensor ws1 = w.defined() ? s1.view({n, c}).mul(w) : s1.view({n, c});
          Tensor ws2 = w.defined() ? s2.view({n, c}).mul(w) : s2.view({n, c});
          Tensor db = ws1.view({n, group, cpg}).sum(2).contiguous(), ds = ws2.view({n, group, cpg}).sum(2).contiguous();
          gi = at::empty(x.sizes(), x.options());
          rs_norm q{};
          q.op = RS_NORM_GRAD;
          q.x = address_of(x);
          q.g = address_of(g);
          q.y = address_of(gi);
          q.numel = x.numel(), q.row_div = k, q.rows = n * group, q.col_div = hxw, q.cols = c;
          q.a = address_of(mu), q.b = address_of(rs), q.w = addr_or_0(w);
          q.s1 = address_of(db), q.s2 = address_of(ds);
          q.inv_k = 1.0 / static_cast<double>(k);
          run_norm(q, x);
          gi = gi.view(input.sizes());
        }
        auto pdt = defined(weight) ? weight->scalar_type() : input.scalar_type();
        if (mask[1]) gw = s2.view({n, c}).sum(0).to(pdt);
        if (mask[2]) gb = s1.view({n, c}).sum(0).to(pdt);
        return {gi, gw, gb};
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

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
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
