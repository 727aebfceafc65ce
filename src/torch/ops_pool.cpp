// Max and average pooling (2-d and 3-d; 1-d reaches the 2-d kernels through
// ATen's composites) and their backward kernels, natively, on the same idea
// as convolution (ops_conv.cpp): the windows are a strided view of the
// padded input, reduced by the native engines; the backward kernels add one
// strided slab per kernel offset (overlapping windows sum).
//
//   max:  windows of the input padded with -inf (the lowest value for
//         integers), copied into (B, L, K) rows; max over K gives the value
//         and the first maximal offset (NaN wins, as CPU); the offset turns
//         into CPU's index, the flat position in the input plane.
//   avg:  the window sums of the zero-padded input (float32 for float16 and
//         bfloat16) over the divisor: divisor_override, or the number of
//         window positions inside the padded input (count_include_pad) or
//         inside the input, counted the same way over a tensor of ones.
//
// Shapes, checks and errors come from ATen's structured meta functions
// (2-d) and Pool.h's checks (3-d). float64 under the apple profile runs on
// the host through the usual counted fallback.
#include "torch/pointwise.h"

#include <ATen/native/Pool.h>
#include <ATen/ops/_adaptive_avg_pool2d_backward_ops.h>
#include <ATen/ops/_adaptive_avg_pool2d_ops.h>
#include <ATen/ops/_adaptive_avg_pool3d_backward_ops.h>
#include <ATen/ops/_adaptive_avg_pool3d_ops.h>
#include <ATen/ops/adaptive_avg_pool2d_ops.h>
#include <ATen/ops/adaptive_avg_pool3d_ops.h>
#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_backward_ops.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/adaptive_max_pool2d_ops.h>
#include <ATen/ops/adaptive_max_pool3d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool3d_backward_ops.h>
#include <ATen/ops/adaptive_max_pool3d_meta.h>
#include <ATen/ops/adaptive_max_pool3d_ops.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/full.h>
#include <ATen/ops/where.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_backward_ops.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/avg_pool2d_ops.h>
#include <ATen/ops/avg_pool3d_backward_meta.h>
#include <ATen/ops/avg_pool3d_backward_ops.h>
#include <ATen/ops/avg_pool3d_meta.h>
#include <ATen/ops/avg_pool3d_ops.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_unpool2d_ops.h>
#include <ATen/ops/max_unpool3d_ops.h>
#include <ATen/ops/max_pool2d_with_indices_backward_ops.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <ATen/ops/max_pool2d_with_indices_ops.h>
#include <ATen/ops/max_pool3d_with_indices_backward_ops.h>
#include <ATen/ops/max_pool3d_with_indices_ops.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <limits>

namespace russet {
namespace {

using at::Tensor;
using Dims = std::vector<int64_t>;

// One pooling's geometry over the last k dims of the input.
struct Pool {
  int64_t k;
  Dims in, out, kernel, stride, pad, dil;
};

Dims expand(at::IntArrayRef v, int64_t k, Dims dflt) {
  if (v.empty()) return dflt;
  Dims r(k);
  for (int64_t i = 0; i < k; ++i) r[i] = v[v.size() == 1 ? 0 : i];
  return r;
}

Pool geometry(const Tensor& self, const Tensor& out, int64_t k, at::IntArrayRef kernel, at::IntArrayRef stride,
              at::IntArrayRef pad, at::IntArrayRef dil) {
  Pool p;
  p.k = k;
  for (int64_t d = 0; d < k; ++d) {
    p.in.push_back(self.size(self.dim() - k + d));
    p.out.push_back(out.size(out.dim() - k + d));
  }
  p.kernel = expand(kernel, k, {});
  p.stride = expand(stride, k, p.kernel);
  p.pad = expand(pad, k, Dims(k, 0));
  p.dil = expand(dil, k, Dims(k, 1));
  return p;
}

int64_t prod(const Dims& v) {
  int64_t r = 1;
  for (int64_t x : v) r *= x;
  return r;
}

// x (B, I...) padded left by pad and right so that every window fits, with
// `value`; the windows as a view (B, O..., K...)
Tensor windows(const Tensor& x, const Pool& p, const at::Scalar& value) {
  std::vector<int64_t> pads;
  for (int64_t d = p.k - 1; d >= 0; --d) {
    int64_t extent = (p.out[d] - 1) * p.stride[d] + (p.kernel[d] - 1) * p.dil[d] + 1;
    int64_t right = std::max<int64_t>(0, extent - p.in[d] - p.pad[d]);
    pads.insert(pads.end(), {p.pad[d], right});
  }
  Tensor xp = at::constant_pad_nd(x, pads, value).contiguous();
  Dims sizes{xp.size(0)}, strides{xp.stride(0)};
  for (int64_t d = 0; d < p.k; ++d) {
    sizes.push_back(p.out[d]);
    strides.push_back(xp.stride(1 + d) * p.stride[d]);
  }
  for (int64_t d = 0; d < p.k; ++d) {
    sizes.push_back(p.kernel[d]);
    strides.push_back(xp.stride(1 + d) * p.dil[d]);
  }
  return xp.as_strided(sizes, strides, xp.storage_offset());
}

// the window's first input position along dim d, broadcastable over (B, O...)
Tensor starts(const Pool& p, int64_t d, const at::TensorOptions& opts) {
  Dims shape(1 + p.k, 1);
  shape[1 + d] = p.out[d];
  return at::arange(p.out[d], opts.dtype(at::kLong)).mul_(p.stride[d]).sub_(p.pad[d]).view(shape);
}

// the input viewed as (B, I...) and the computation dtype
Tensor batched(const Tensor& t, int64_t k) {
  Dims shape{-1};
  shape.insert(shape.end(), t.sizes().end() - k, t.sizes().end());
  return t.reshape(shape);
}

at::ScalarType acc_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

at::Scalar lowest(at::ScalarType t) {
  if (c10::isFloatingType(t)) return -std::numeric_limits<double>::infinity();
  if (t == at::kByte) return 0;
  if (t == at::kChar) return std::numeric_limits<int8_t>::min();
  if (t == at::kShort) return std::numeric_limits<int16_t>::min();
  if (t == at::kInt) return std::numeric_limits<int32_t>::min();
  return std::numeric_limits<int64_t>::min();
}

// ---------------------------------------------------------------- max

void max_pool(const Tensor& self, const Pool& p, const Tensor& out, const Tensor& indices) {
  host_if_no_fp64(self);
  if (out.numel() == 0) return;
  Tensor x = batched(self, p.k);
  int64_t b = x.size(0), l = prod(p.out), kk = prod(p.kernel);
  Tensor rows = windows(x, p, lowest(x.scalar_type())).reshape({b, l, kk});
  auto [val, arg] = rows.max(2);
  // offset -> input position per dim -> flat index in the input plane
  Dims shape{b};
  shape.insert(shape.end(), p.out.begin(), p.out.end());
  Tensor off = arg.view(shape), flat = at::zeros({1}, arg.options());
  int64_t rest = kk;
  for (int64_t d = 0; d < p.k; ++d) {
    rest /= p.kernel[d];
    Tensor kd = off.div(rest, "floor").remainder_(p.kernel[d]);
    Tensor pos = starts(p, d, arg.options()).add(kd.mul_(p.dil[d]));
    flat = flat.mul(p.in[d]).add(pos);
  }
  out.copy_(val.view(out.sizes()));
  indices.copy_(flat.view(indices.sizes()));
}

// The backward kernels' common part: a zero gradient (B, padded...) gets, for
// every kernel offset, `part(off)` (B, O...) added into that offset's strided
// slab (overlapping windows sum), and is cropped to the input.
template <class Part>
Tensor fold_offsets(const Pool& p, int64_t b, const at::TensorOptions& opts, Part part) {
  Dims padded{b};
  for (int64_t d = 0; d < p.k; ++d) {
    int64_t extent = (p.out[d] - 1) * p.stride[d] + (p.kernel[d] - 1) * p.dil[d] + 1;
    padded.push_back(p.pad[d] + std::max(p.in[d] + p.pad[d], extent));
  }
  Tensor gp = at::zeros(padded, opts);
  Dims off(p.k, 0);
  for (int64_t o = 0; o < prod(p.kernel); ++o) {
    for (int64_t d = p.k - 1, r = o; d >= 0; --d) {
      off[d] = r % p.kernel[d];
      r /= p.kernel[d];
    }
    Tensor slab = gp;
    for (int64_t d = 0; d < p.k; ++d)
      slab = slab.slice(1 + d, off[d] * p.dil[d], off[d] * p.dil[d] + p.stride[d] * (p.out[d] - 1) + 1, p.stride[d]);
    slab.add_(part(off));
  }
  Tensor gi = gp;
  for (int64_t d = 0; d < p.k; ++d) gi = gi.narrow(1 + d, p.pad[d], p.in[d]);
  return gi;
}

// grad_input += grad where the window's chosen index is that offset's
// position (ties across windows add)
Tensor max_pool_backward(const Tensor& grad, const Tensor& self, const Pool& p, const Tensor& indices) {
  host_if_no_fp64(self);
  Tensor g = batched(grad, p.k).to(acc_of(self)), idx = batched(indices, p.k);
  Tensor gi = fold_offsets(p, g.size(0), g.options(), [&](const Dims& off) {
    Tensor flat = at::zeros({1}, idx.options()), valid;
    for (int64_t d = 0; d < p.k; ++d) {
      Tensor pos = starts(p, d, idx.options()).add_(off[d] * p.dil[d]);
      Tensor ok = pos.ge(0).logical_and_(pos.lt(p.in[d]));
      valid = valid.defined() ? valid.logical_and(ok) : ok;
      flat = flat.mul(p.in[d]).add(pos);
    }
    return g.mul(idx.eq(flat).logical_and_(valid));
  });
  return gi.to(self.scalar_type()).reshape(self.sizes());
}

std::tuple<Tensor&, Tensor&> max_pool2d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  return native_or_host<at::_ops::max_pool2d_with_indices_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_max_pool2d_with_indices> m(out, indices);
        m.meta(self, kernel, stride, pad, dil, ceil_mode);
        max_pool(self, geometry(self, out, 2, kernel, stride, pad, dil), out, indices);
        return {out, indices};
      },
      self, kernel, stride, pad, dil, ceil_mode, out, indices);
}

Tensor& max_pool2d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode,
                                const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::max_pool2d_with_indices_backward_grad_input>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_max_pool2d_with_indices_backward> m(gi);
        m.meta(grad, self, kernel, stride, pad, dil, ceil_mode, indices);
        gi.copy_(max_pool_backward(grad, self, geometry(self, grad, 2, kernel, stride, pad, dil), indices));
        return gi;
      },
      grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

// 3-d: not structured in ATen; sizes and checks as its CPU kernel
Pool pool3d_geometry(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                     at::IntArrayRef dil, bool ceil_mode, const char* name) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 3, name,
              ": kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3, name,
              ": stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(pad.size() == 1 || pad.size() == 3, name,
              ": padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dil.size() == 1 || dil.size() == 3, name,
              ": dilation must be either a single int, or a tuple of three ints");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  Pool p;
  p.k = 3;
  p.kernel = expand(kernel, 3, {});
  p.stride = expand(stride, 3, p.kernel);
  p.pad = expand(pad, 3, Dims(3, 0));
  p.dil = expand(dil, 3, Dims(3, 1));
  for (int64_t d = 0; d < 3; ++d) {
    p.in.push_back(self.size(self.dim() - 3 + d));
    p.out.push_back(at::native::pooling_output_shape<int64_t>(p.in[d], p.kernel[d], p.pad[d], p.stride[d],
                                                               p.dil[d], ceil_mode));
  }
  at::native::pool3d_shape_check(self, self.size(self.dim() - 4), p.kernel[0], p.kernel[1], p.kernel[2],
                                 p.stride[0], p.stride[1], p.stride[2], p.pad[0], p.pad[1], p.pad[2], p.dil[0],
                                 p.dil[1], p.dil[2], p.in[0], p.in[1], p.in[2], p.out[0], p.out[1], p.out[2], name);
  return p;
}

Dims out_shape(const Tensor& self, const Pool& p) {
  Dims s(self.sizes().begin(), self.sizes().end() - p.k);
  s.insert(s.end(), p.out.begin(), p.out.end());
  return s;
}

std::tuple<Tensor&, Tensor&> max_pool3d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  return native_or_host<at::_ops::max_pool3d_with_indices_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        Pool p = pool3d_geometry(self, kernel, stride, pad, dil, ceil_mode, "max_pool3d_with_indices()");
        auto shape = out_shape(self, p);
        at::native::resize_output(out, shape);
        at::native::resize_output(indices, shape);
        max_pool(self, p, out, indices);
        return {out, indices};
      },
      self, kernel, stride, pad, dil, ceil_mode, out, indices);
}

std::tuple<Tensor, Tensor> max_pool3d(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                      at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode) {
  Tensor out = at::empty({0}, self.options()), indices = at::empty({0}, self.options().dtype(at::kLong));
  max_pool3d_out(self, kernel, stride, pad, dil, ceil_mode, out, indices);
  return {out, indices};
}

Tensor& max_pool3d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode,
                                const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::max_pool3d_with_indices_backward_grad_input>(
      [&]() -> Tensor& {
        Pool p = pool3d_geometry(self, kernel, stride, pad, dil, ceil_mode, "max_pool3d_with_indices_backward()");
        TORCH_CHECK(grad.sizes().equals(out_shape(self, p)) && indices.sizes().equals(grad.sizes()),
                    "max_pool3d_with_indices_backward(): grad_output and indices must have the output's shape ",
                    out_shape(self, p), ", got ", grad.sizes(), " and ", indices.sizes());
        return write_out(gi, max_pool_backward(grad, self, p, indices));
      },
      grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

Tensor max_pool3d_backward(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                           at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, const Tensor& indices) {
  Tensor gi = at::empty({0}, self.options());
  return max_pool3d_backward_out(grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

// ---------------------------------------------------------------- avg

// the divisor per output position (broadcastable over (B, O...))
Tensor avg_divisor(const Pool& p, bool count_include_pad, std::optional<int64_t> divisor_override,
                   const at::TensorOptions& opts) {
  if (divisor_override.has_value()) return at::full_like(at::empty({1}, opts), *divisor_override);
  // ones over the counted region: the input, or the input and its padding
  Dims in{1}, pads;
  for (int64_t d = 0; d < p.k; ++d) in.push_back(p.in[d]);
  Tensor ones = at::ones(in, opts);
  Pool q = p;
  if (count_include_pad) {
    for (int64_t d = p.k - 1; d >= 0; --d) pads.insert(pads.end(), {p.pad[d], p.pad[d]});
    ones = at::constant_pad_nd(ones, pads, 1);
    for (int64_t d = 0; d < p.k; ++d) {
      q.in[d] += 2 * p.pad[d];
      q.pad[d] = 0;
    }
    // the windows start p.pad earlier in this already-padded frame
  }
  Dims wdims;
  for (int64_t d = 0; d < p.k; ++d) wdims.push_back(1 + p.k + d);
  return windows(ones, q, 0).sum(wdims);
}

void avg_pool(const Tensor& self, const Pool& p, bool count_include_pad, std::optional<int64_t> divisor_override,
              const Tensor& out) {
  host_if_no_fp64(self);
  if (out.numel() == 0) return;
  auto t = acc_of(self);
  Tensor x = batched(self, p.k).to(t);
  Dims wdims;
  for (int64_t d = 0; d < p.k; ++d) wdims.push_back(1 + p.k + d);
  Tensor sum = windows(x, p, 0).sum(wdims);
  Tensor div = avg_divisor(p, count_include_pad, divisor_override, x.options());
  // integers: CPU divides in the dtype (truncating)
  if (c10::isIntegralType(t, /*includeBool=*/false)) sum.div_(div, "trunc");
  else sum.div_(div);
  out.copy_(sum.view(out.sizes()));
}

Tensor avg_pool_backward(const Tensor& grad, const Tensor& self, const Pool& p, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  host_if_no_fp64(self);
  auto t = acc_of(self);
  Tensor g = batched(grad, p.k).to(t);
  Tensor div = avg_divisor(p, count_include_pad, divisor_override, g.options());
  g = c10::isIntegralType(t, /*includeBool=*/false) ? g.div(div, "trunc") : g.div(div);
  Tensor gi = fold_offsets(p, g.size(0), g.options(), [&](const Dims&) { return g; });
  return gi.to(self.scalar_type()).reshape(self.sizes());
}

template <class Meta, class Op>
Tensor& avg_pool_out(int64_t k, const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                     at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                     std::optional<int64_t> divisor_override, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override);
        avg_pool(self, geometry(self, out, k, kernel, stride, pad, {}), count_include_pad, divisor_override, out);
        return out;
      },
      self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}

template <class Meta, class Op>
Tensor& avg_pool_backward_out(int64_t k, const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                              at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                              std::optional<int64_t> divisor_override, Tensor& gi) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(gi);
        m.meta(grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override);
        gi.copy_(avg_pool_backward(grad, self, geometry(self, grad, k, kernel, stride, pad, {}), count_include_pad,
                                   divisor_override));
        return gi;
      },
      grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}

Tensor& avg_pool2d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  return avg_pool_out<at::meta::structured_avg_pool2d, at::_ops::avg_pool2d_out>(
      2, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}
Tensor& avg_pool3d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  return avg_pool_out<at::meta::structured_avg_pool3d, at::_ops::avg_pool3d_out>(
      3, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}
Tensor& avg_pool2d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                                std::optional<int64_t> divisor_override, Tensor& gi) {
  return avg_pool_backward_out<at::meta::structured_avg_pool2d_backward, at::_ops::avg_pool2d_backward_grad_input>(
      2, grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}
Tensor& avg_pool3d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                                std::optional<int64_t> divisor_override, Tensor& gi) {
  return avg_pool_backward_out<at::meta::structured_avg_pool3d_backward, at::_ops::avg_pool3d_backward_grad_input>(
      3, grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}

// ---------------------------------------------------------------- adaptive avg

// Adaptive average pooling is separable: each output averages the product of
// one interval per dim (CPU's start = floor(o * in / out), end =
// ceil((o + 1) * in / out)), so the window sums are one matmul per dim with a
// 0/1 membership matrix (out, in), then one division by the window sizes.
std::pair<Tensor, Tensor> adaptive_matrix(int64_t in, int64_t out, const at::TensorOptions& opts) {
  auto lo = opts.dtype(at::kLong);
  Tensor o = at::arange(out, lo);
  Tensor start = o.mul(in).div_(out, "floor").unsqueeze(1);
  Tensor end = o.add(1).mul_(in).add_(out - 1).div_(out, "floor").unsqueeze(1);
  Tensor i = at::arange(in, lo).unsqueeze(0);
  Tensor member = i.ge(start).logical_and_(i.lt(end)).to(opts.dtype().toScalarType());
  return {member, end.sub(start).squeeze(1)};
}

void check_adaptive(const Tensor& self, at::IntArrayRef out, int64_t k, const char* name) {
  TORCH_CHECK(static_cast<int64_t>(out.size()) == k, name, ": output_size must be ", k);
  TORCH_CHECK(self.dim() == k + 1 || self.dim() == k + 2, name, ": Expected ", k + 1, "D or ", k + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t d = 1; d < self.dim(); ++d)
    TORCH_CHECK(self.size(d) > 0, name, ": Expected input to have non-zero size for non-batch dimensions, but input ",
                "has sizes ", self.sizes(), " with dimension ", d, " being empty");
  for (int64_t o : out) TORCH_CHECK(o >= 0, name, ": elements of output_size must be greater than or equal to 0");
}

// x (..., I...) -> (..., O...) window sums (`transpose`: the adjoint, O -> I)
Tensor adaptive_apply(Tensor y, const Dims& in, const Dims& out, bool adjoint) {
  int64_t k = static_cast<int64_t>(in.size()), nd = y.dim();
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = nd - k + j;
    Tensor m = adaptive_matrix(in[j], out[j], y.options()).first;  // (O, I)
    y = at::matmul(y.movedim(d, -1), adjoint ? m : m.t()).movedim(-1, d);
  }
  return y;
}

Tensor adaptive_counts(const Dims& in, const Dims& out, int64_t nd, const at::TensorOptions& opts) {
  int64_t k = static_cast<int64_t>(in.size());
  Tensor c;
  for (int64_t j = 0; j < k; ++j) {
    Dims shape(nd, 1);
    shape[nd - k + j] = out[j];
    Tensor len = adaptive_matrix(in[j], out[j], opts).second.to(opts.dtype().toScalarType()).view(shape);
    c = c.defined() ? c.mul(len) : len;
  }
  return c;
}

Tensor adaptive_avg(const Tensor& self, at::IntArrayRef output_size, int64_t k, const char* name) {
  check_adaptive(self, output_size, k, name);
  host_if_no_fp64(self);
  Dims in(self.sizes().end() - k, self.sizes().end()), out(output_size.begin(), output_size.end());
  Tensor x = self.to(acc_of(self));
  Tensor y = adaptive_apply(x, in, out, false).div_(adaptive_counts(in, out, x.dim(), x.options()));
  return y.to(self.scalar_type()).contiguous(self.suggest_memory_format());
}

Tensor adaptive_avg_backward(const Tensor& grad, const Tensor& self, int64_t k) {
  host_if_no_fp64(self);
  Dims in(self.sizes().end() - k, self.sizes().end()), out(grad.sizes().end() - k, grad.sizes().end());
  Tensor g = grad.to(acc_of(grad));
  g = g.div(adaptive_counts(in, out, g.dim(), g.options()));
  return adaptive_apply(g, in, out, true).to(self.scalar_type()).contiguous(self.suggest_memory_format());
}

Tensor adaptive_avg2d(const Tensor& self, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::_adaptive_avg_pool2d>(
      [&] { return adaptive_avg(self, output_size, 2, "adaptive_avg_pool2d()"); }, self, output_size);
}
Tensor adaptive_avg3d(const Tensor& self, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::_adaptive_avg_pool3d>(
      [&] { return adaptive_avg(self, output_size, 3, "adaptive_avg_pool3d()"); }, self, output_size);
}
Tensor& adaptive_avg2d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out) {
  return native_or_host<at::_ops::adaptive_avg_pool2d_out>(
      [&]() -> Tensor& {
        Tensor r = adaptive_avg(self, output_size, 2, "adaptive_avg_pool2d()");
        return write_out(out, r);
      },
      self, output_size, out);
}
Tensor& adaptive_avg3d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out) {
  return native_or_host<at::_ops::adaptive_avg_pool3d_out>(
      [&]() -> Tensor& {
        Tensor r = adaptive_avg(self, output_size, 3, "adaptive_avg_pool3d()");
        return write_out(out, r);
      },
      self, output_size, out);
}
Tensor adaptive_avg2d_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::_adaptive_avg_pool2d_backward>(
      [&] { return adaptive_avg_backward(grad, self, 2); }, grad, self);
}
Tensor adaptive_avg3d_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::_adaptive_avg_pool3d_backward>(
      [&] { return adaptive_avg_backward(grad, self, 3); }, grad, self);
}

// ---------------------------------------------------------------- adaptive max

// Adaptive max pooling: per spatial dim, the windows [start, end) padded to
// the longest (positions past `end` point at an appended -inf), gathered with
// index_select into (..., O, Kmax); max over the flattened window offsets
// gives the value and the first maximal offset in row-major order (real
// positions come first in every window, so all -inf windows report their
// first real element, as CPU), turned into CPU's flat index.
void adaptive_max(const Tensor& self, const Tensor& out, const Tensor& indices, int64_t k) {
  host_if_no_fp64(self);
  if (out.numel() == 0) return;
  Tensor x = batched(self, k);
  int64_t b = x.size(0);
  Dims in(x.sizes().begin() + 1, x.sizes().end()), o(out.sizes().end() - k, out.sizes().end()), kmax(k);
  std::vector<Tensor> start(k);
  auto lo = x.options().dtype(at::kLong);
  Tensor y = x;
  for (int64_t d = 0; d < k; ++d) {
    Tensor oo = at::arange(o[d], lo);
    Tensor st = oo.mul(in[d]).div_(o[d], "floor");
    Tensor en = oo.add(1).mul_(in[d]).add_(o[d] - 1).div_(o[d], "floor");
    kmax[d] = (in[d] + o[d] - 1) / o[d] + 1;
    Tensor pos = st.unsqueeze(1).add(at::arange(kmax[d], lo).unsqueeze(0));       // (O, Kmax)
    pos = at::where(pos.lt(en.unsqueeze(1)), pos, at::full_like(pos, in[d]));     // past the end: the -inf
    Dims pad_shape(y.sizes().begin(), y.sizes().end());
    pad_shape[1 + 2 * d] = 1;
    Tensor ext = at::cat({y, at::full(pad_shape, lowest(x.scalar_type()), y.options())}, 1 + 2 * d);
    Dims shape(y.sizes().begin(), y.sizes().end());
    shape[1 + 2 * d] = o[d];
    shape.insert(shape.begin() + 2 + 2 * d, kmax[d]);
    y = at::index_select(ext, 1 + 2 * d, pos.view({-1})).view(shape);             // (B, [O, K]..., I...)
    start[d] = st;
  }
  // (B, O1, K1, O2, K2, ...) -> (B, O..., K...)
  Dims perm{0};
  for (int64_t d = 0; d < k; ++d) perm.push_back(1 + 2 * d);
  for (int64_t d = 0; d < k; ++d) perm.push_back(2 + 2 * d);
  auto [val, arg] = y.permute(perm).reshape({b, prod(o), prod(kmax)}).max(2);
  Dims oshape{b};
  oshape.insert(oshape.end(), o.begin(), o.end());
  Tensor off = arg.view(oshape), flat = at::zeros({1}, lo);
  int64_t rest = prod(kmax);
  for (int64_t d = 0; d < k; ++d) {
    rest /= kmax[d];
    Dims sshape(1 + k, 1);
    sshape[1 + d] = o[d];
    Tensor pos = off.div(rest, "floor").remainder_(kmax[d]).add_(start[d].view(sshape));
    flat = flat.mul(in[d]).add(pos);
  }
  out.copy_(val.view(out.sizes()));
  indices.copy_(flat.view(indices.sizes()));
}

// the gradient lands on each window's chosen input (scatter_add: windows
// that chose the same input add, in CPU's order)
Tensor adaptive_max_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t k) {
  host_if_no_fp64(self);
  Tensor g = batched(grad, k), idx = batched(indices, k);
  int64_t b = g.size(0);
  auto t = acc_of(self);
  Tensor gi = at::zeros({b, prod(Dims(self.sizes().end() - k, self.sizes().end()))}, g.options().dtype(t));
  gi.scatter_add_(1, idx.reshape({b, -1}), g.reshape({b, -1}).to(t));
  return gi.to(self.scalar_type()).view(self.sizes());
}

template <class Meta, class Op>
std::tuple<Tensor&, Tensor&> adaptive_max_out(int64_t k, const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                              Tensor& indices) {
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<Meta> m(out, indices);
        m.meta(self, output_size);
        adaptive_max(self, out, indices, k);
        return {out, indices};
      },
      self, output_size, out, indices);
}

template <class Meta, class Op>
Tensor& adaptive_max_backward_out(int64_t k, const Tensor& grad, const Tensor& self, const Tensor& indices,
                                  Tensor& gi) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(gi);
        m.meta(grad, self, indices);
        return gi.copy_(adaptive_max_backward(grad, self, indices, k));
      },
      grad, self, indices, gi);
}

std::tuple<Tensor&, Tensor&> adaptive_max2d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                                Tensor& indices) {
  return adaptive_max_out<at::meta::structured_adaptive_max_pool2d, at::_ops::adaptive_max_pool2d_out>(
      2, self, output_size, out, indices);
}
std::tuple<Tensor&, Tensor&> adaptive_max3d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                                Tensor& indices) {
  return adaptive_max_out<at::meta::structured_adaptive_max_pool3d, at::_ops::adaptive_max_pool3d_out>(
      3, self, output_size, out, indices);
}
Tensor& adaptive_max2d_backward_out(const Tensor& grad, const Tensor& self, const Tensor& indices, Tensor& gi) {
  return adaptive_max_backward_out<at::meta::structured_adaptive_max_pool2d_backward,
                                   at::_ops::adaptive_max_pool2d_backward_grad_input>(2, grad, self, indices, gi);
}
Tensor& adaptive_max3d_backward_out(const Tensor& grad, const Tensor& self, const Tensor& indices, Tensor& gi) {
  return adaptive_max_backward_out<at::meta::structured_adaptive_max_pool3d_backward,
                                   at::_ops::adaptive_max_pool3d_backward_grad_input>(3, grad, self, indices, gi);
}

// ---------------------------------------------------------------- max_unpool

// max_unpool: zeros of the output size, each value written at its index in
// the (flattened) output plane. Repeated indices come from overlapping pool
// windows and carry the same value, so the write order does not matter; an
// index outside the plane raises at the next sync.
Tensor max_unpool(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size, int64_t k,
                  const char* name) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == k, "There should be exactly ", k,
              " elements (height, width) in output_size, but got ", output_size.size(), " elements.");
  TORCH_CHECK(self.dim() == k + 1 || self.dim() == k + 2, "Input to ", name, " should be a ", k + 1, "d or ", k + 2,
              "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TORCH_CHECK(self.sizes().equals(indices.sizes()), "Expected shape of indices to be same as that of the input ",
              "tensor (", self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  for (int64_t d = 1; d < self.dim(); ++d)
    TORCH_CHECK(self.size(d) > 0, name, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", d, " being empty.");
  host_if_no_fp64(self);
  Dims shape(self.sizes().begin(), self.sizes().end() - k), flat_shape(shape);
  int64_t plane = 1;
  for (int64_t o : output_size) plane *= o;
  flat_shape.push_back(plane);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Dims src_shape(self.sizes().begin(), self.sizes().end() - k);
  src_shape.push_back(-1);
  Tensor out = at::zeros(flat_shape, self.options());
  out.scatter_(-1, indices.reshape(src_shape), self.reshape(src_shape));
  return out.view(shape);
}

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::max_unpool2d>(
      [&] { return max_unpool(self, indices, output_size, 2, "max_unpooling2d_forward_out"); }, self, indices,
      output_size);
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size, at::IntArrayRef stride,
                    at::IntArrayRef padding) {
  return native_or_host<at::_ops::max_unpool3d>(
      [&] { return max_unpool(self, indices, output_size, 3, "max_unpooling3d_forward_out"); }, self, indices,
      output_size, stride, padding);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max_pool2d_with_indices.out", max_pool2d_out);
  m.impl("max_pool2d_with_indices_backward.grad_input", max_pool2d_backward_out);
  m.impl("max_pool3d_with_indices", max_pool3d);
  m.impl("max_pool3d_with_indices.out", max_pool3d_out);
  m.impl("max_pool3d_with_indices_backward", max_pool3d_backward);
  m.impl("max_pool3d_with_indices_backward.grad_input", max_pool3d_backward_out);
  m.impl("avg_pool2d.out", avg_pool2d_out);
  m.impl("avg_pool2d_backward.grad_input", avg_pool2d_backward_out);
  m.impl("avg_pool3d.out", avg_pool3d_out);
  m.impl("avg_pool3d_backward.grad_input", avg_pool3d_backward_out);
  m.impl("adaptive_max_pool2d.out", adaptive_max2d_out);
  m.impl("adaptive_max_pool3d.out", adaptive_max3d_out);
  m.impl("adaptive_max_pool2d_backward.grad_input", adaptive_max2d_backward_out);
  m.impl("adaptive_max_pool3d_backward.grad_input", adaptive_max3d_backward_out);
  m.impl("max_unpool2d", max_unpool2d);
  m.impl("max_unpool3d", max_unpool3d);
  m.impl("_adaptive_avg_pool2d", adaptive_avg2d);
  m.impl("_adaptive_avg_pool3d", adaptive_avg3d);
  m.impl("adaptive_avg_pool2d.out", adaptive_avg2d_out);
  m.impl("adaptive_avg_pool3d.out", adaptive_avg3d_out);
  m.impl("_adaptive_avg_pool2d_backward", adaptive_avg2d_backward);
  m.impl("_adaptive_avg_pool3d_backward", adaptive_avg3d_backward);
}

}  // namespace russet
