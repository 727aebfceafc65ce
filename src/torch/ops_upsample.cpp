// Interpolation (F.interpolate / nn.Upsample): nearest, nearest-exact,
// linear, bilinear, trilinear and bicubic, forward and backward, natively. Every
// mode is separable: one pass per spatial dim, last dim first, as CPU's
// kernels nest their loops.
//   nearest:  y = x.index_select(d, src) with CPU's source index
//             (min(floor(dst * scale), in - 1); nearest-exact: of dst + 0.5);
//   linear:   y = x[i0] * (1 - l) + x[i1] * l with CPU's i0, i1 and lambda
//             (area_pixel_compute_source_index; align_corners);
//   bicubic:  four clamped taps per dim with CPU's cubic coefficients;
//   antialiased bilinear/bicubic (_upsample_*2d_aa, torchvision's
//            Resize(antialias=True)): per dim a dense (out x in) weight
//            matrix made on the host as CPU makes its weights (float32,
//            support widened by the downscale factor, normalized), applied
//            by the GEMM; dims whose size does not change are skipped, as
//            CPU skips them;
//   backward: the adjoint per dim, index_add of the (weighted) gradient
//            (AA: the transposed weight matrix).
// Indices and weights are made on the device from an arange, in float32 as
// CPU computes them for float32/float16/bfloat16 (float64 for float64).
// float16/bfloat16 interpolate in float32 and round once (CPU's bfloat16
// linear kernels round differently: russet matches the float32 result
// rounded); uint8 (bi)linear runs on the host (CPU's fixed-point kernel).
#include "torch/pointwise.h"

#include <ATen/native/Resize.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact1d_meta.h>
#include <ATen/ops/_upsample_nearest_exact1d_ops.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact2d_meta.h>
#include <ATen/ops/_upsample_nearest_exact2d_ops.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_ops.h>
#include <ATen/ops/_upsample_nearest_exact3d_meta.h>
#include <ATen/ops/_upsample_nearest_exact3d_ops.h>
#include <ATen/ops/_upsample_bicubic2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bicubic2d_aa_backward_ops.h>
#include <ATen/ops/_upsample_bicubic2d_aa_meta.h>
#include <ATen/ops/_upsample_bicubic2d_aa_ops.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_ops.h>
#include <ATen/ops/_upsample_bilinear2d_aa_meta.h>
#include <ATen/ops/_upsample_bilinear2d_aa_ops.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/upsample_bicubic2d_backward_meta.h>
#include <ATen/ops/upsample_bicubic2d_backward_ops.h>
#include <ATen/ops/upsample_bicubic2d_meta.h>
#include <ATen/ops/upsample_bicubic2d_ops.h>
#include <ATen/ops/upsample_bilinear2d_backward_meta.h>
#include <ATen/ops/upsample_bilinear2d_backward_ops.h>
#include <ATen/ops/upsample_bilinear2d_meta.h>
#include <ATen/ops/upsample_bilinear2d_ops.h>
#include <ATen/ops/upsample_linear1d_backward_meta.h>
#include <ATen/ops/upsample_linear1d_backward_ops.h>
#include <ATen/ops/upsample_linear1d_meta.h>
#include <ATen/ops/upsample_linear1d_ops.h>
#include <ATen/ops/upsample_nearest1d_backward_meta.h>
#include <ATen/ops/upsample_nearest1d_backward_ops.h>
#include <ATen/ops/upsample_nearest1d_meta.h>
#include <ATen/ops/upsample_nearest1d_ops.h>
#include <ATen/ops/upsample_nearest2d_backward_meta.h>
#include <ATen/ops/upsample_nearest2d_backward_ops.h>
#include <ATen/ops/upsample_nearest2d_meta.h>
#include <ATen/ops/upsample_nearest2d_ops.h>
#include <ATen/ops/upsample_nearest3d_backward_meta.h>
#include <ATen/ops/upsample_nearest3d_backward_ops.h>
#include <ATen/ops/upsample_nearest3d_meta.h>
#include <ATen/ops/upsample_nearest3d_ops.h>
#include <ATen/ops/upsample_trilinear3d_backward_meta.h>
#include <ATen/ops/upsample_trilinear3d_backward_ops.h>
#include <ATen/ops/upsample_trilinear3d_meta.h>
#include <ATen/ops/upsample_trilinear3d_ops.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <type_traits>

namespace russet {
namespace {

using at::Tensor;
using Scales = std::vector<std::optional<double>>;

enum class Mode { Nearest, NearestExact, Linear, Cubic, LinearAA, CubicAA };

bool antialiased(Mode m) { return m == Mode::LinearAA || m == Mode::CubicAA; }

// CPU's antialiasing filters (the triangle; the cubic with a = -0.5), in
// the weights' type T
template <class T>
T aa_filter(T x, bool cubic) {
  if (x < 0) x = -x;
  if (!cubic) return x < T(1) ? T(1) - x : T(0);
  const T a = T(-0.5);
  if (x < T(1)) return ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  if (x < T(2)) return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
  return T(0);
}

// The (out x in) antialiasing weights along one dim, on x's device, as
// CPU's _compute_indices_min_size_weights_aa makes them: in float32 for
// float32 (T = float; float32 arithmetic where CPU's is float32, double
// where it mixes in double) and in float64 for float64 (T = double): the
// scale of area_pixel_compute_scale, a support of interp_size / 2 widened
// by the scale when downsampling, center = scale (i + 0.5), the taps from
// xmin to xmin + xsize, normalized by their sum.
template <class T>
Tensor aa_weights_as(int64_t in, int64_t out, bool align_corners, std::optional<double> opt_scale, bool cubic,
                     const Tensor& like) {
  T scale;
  if (align_corners) scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  else if (opt_scale.has_value() && *opt_scale > 0) scale = static_cast<T>(1.0 / *opt_scale);
  else scale = static_cast<T>(in) / static_cast<T>(out);
  const T half = cubic ? T(2) : T(1);  // interp_size / 2
  const T support = scale >= T(1) ? half * scale : half;
  const T invscale = scale >= T(1) ? static_cast<T>(1.0 / scale) : T(1);
  const int64_t max_size = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  std::vector<T> w(static_cast<size_t>(out * in), T(0)), taps(static_cast<size_t>(max_size));
  for (int64_t i = 0; i < out; ++i) {
    const T center = static_cast<T>(scale * (i + 0.5));
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t xsize =
        std::clamp<int64_t>(std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in) - xmin, 0, max_size);
    T total = T(0);
    for (int64_t j = 0; j < xsize; ++j) {
      taps[j] = aa_filter<T>(static_cast<T>((static_cast<T>(j + xmin) - center + 0.5) * invscale), cubic);
      total += taps[j];
    }
    for (int64_t j = 0; j < xsize; ++j) w[static_cast<size_t>(i * in + xmin + j)] = total != T(0) ? taps[j] / total : taps[j];
  }
  return from_host(w.data(), {out, in}, std::is_same_v<T, double> ? at::kDouble : at::kFloat, like);
}

// the weights in the type of `like` (float32 or float64)
Tensor aa_weights(int64_t in, int64_t out, bool align_corners, std::optional<double> opt_scale, bool cubic,
                  const Tensor& like) {
  if (like.scalar_type() == at::kDouble) return aa_weights_as<double>(in, out, align_corners, opt_scale, cubic, like);
  return aa_weights_as<float>(in, out, align_corners, opt_scale, cubic, like);
}

// dst positions 0..out-1 in the index arithmetic's float type
Tensor positions(int64_t out, at::ScalarType ft, const at::TensorOptions& opts) {
  return at::arange(out, opts.dtype(at::kLong)).to(ft);
}

// CPU's nearest source index along a dim
Tensor nearest_index(int64_t in, int64_t out, std::optional<double> scale, bool exact, at::ScalarType ft,
                     const at::TensorOptions& opts) {
  auto idx = opts.dtype(at::kLong);
  if (!exact && out == in) return at::arange(out, idx);
  if (!exact && out == 2 * in) return at::arange(out, idx).div_(2, "floor");
  // compute_scales_value: 1 / scale when given, else in / out (float)
  double s = scale.has_value() && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / static_cast<double>(out);
  if (ft == at::kFloat) s = static_cast<double>(static_cast<float>(s));
  Tensor p = positions(out, ft, opts);
  if (exact) p.add_(0.5);
  return p.mul_(s).floor_().to(at::kLong).clamp_max_(in - 1);
}

// CPU's area_pixel_compute_source_index for every dst position along a dim
// (the scale from area_pixel_compute_scale, in the index type); linear
// clamps negative sources to 0, cubic does not
Tensor source_positions(int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                        at::ScalarType ft, const at::TensorOptions& opts, bool cubic) {
  double s;
  if (align_corners) s = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  else s = scale.has_value() && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / static_cast<double>(out);
  if (ft == at::kFloat) s = static_cast<double>(static_cast<float>(s));
  Tensor src = positions(out, ft, opts);
  if (align_corners) return src.mul_(s);
  src.add_(0.5).mul_(s).sub_(0.5);
  return cubic ? src : src.clamp_min_(0);
}

// CPU's linear source indices i0, i1 and weight lambda along a dim
std::tuple<Tensor, Tensor, Tensor> linear_index(int64_t in, int64_t out, bool align_corners,
                                                std::optional<double> scale, at::ScalarType ft,
                                                const at::TensorOptions& opts) {
  Tensor src = source_positions(in, out, align_corners, scale, ft, opts, false);
  Tensor i0 = src.to(at::kLong);  // truncation (src >= 0)
  Tensor lambda = src.sub(i0.to(ft));
  Tensor i1 = i0.add(i0.lt(in - 1).to(at::kLong));
  return {i0, i1, lambda};
}

// CPU's bicubic taps along a dim: source positions floor(src) - 1 .. + 2
// (clamped into [0, in), as CPU's bounded access) and the cubic convolution
// coefficients (A = -0.75) of t = src - floor(src); src is not clamped
std::pair<std::vector<Tensor>, std::vector<Tensor>> cubic_index(int64_t in, int64_t out, bool align_corners,
                                                                std::optional<double> scale, at::ScalarType ft,
                                                                const at::TensorOptions& opts) {
  Tensor src = source_positions(in, out, align_corners, scale, ft, opts, true);
  Tensor base = src.floor(), t = src.sub(base);
  Tensor i0 = base.to(at::kLong);
  const double A = -0.75;
  auto conv1 = [&](const Tensor& x) { return x.mul(A + 2).sub_(A + 3).mul_(x).mul_(x).add_(1); };
  auto conv2 = [&](const Tensor& x) { return x.mul(A).sub_(5 * A).mul_(x).add_(8 * A).mul_(x).sub_(4 * A); };
  Tensor u = t.neg().add(1);
  std::vector<Tensor> w{conv2(t.add(1)), conv1(t), conv1(u), conv2(u.add(1))}, idx;
  for (int64_t k = 0; k < 4; ++k) idx.push_back(i0.add(k - 1).clamp_(0, in - 1));
  return {idx, w};
}

at::ScalarType compute_type(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}
// the index arithmetic's type: CPU's opmath (float64 only for float64)
at::ScalarType index_type(const Tensor& t) { return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat; }

// weights shaped to broadcast along dim d of a k+2-dim tensor
Tensor along(const Tensor& w, int64_t dims, int64_t d) {
  std::vector<int64_t> shape(dims, 1);
  shape[d] = w.size(0);
  return w.view(shape);
}

Tensor interpolate(const Tensor& self, at::IntArrayRef out, const Scales& scales, Mode mode, bool align_corners) {
  host_if_no_fp64(self);
  // CPU's uint8 (bi)linear kernel works in fixed point with its own rounding:
  // not reproduced here
  if ((mode == Mode::Linear || mode == Mode::Cubic) && !c10::isFloatingType(self.scalar_type())) throw NeedsHost{};
  // CPU's antialiased kernels take float32, float64 and uint8 (fixed point:
  // not reproduced); what else CPU says of other dtypes, the host says
  if (antialiased(mode) && self.scalar_type() != at::kFloat && self.scalar_type() != at::kDouble) throw NeedsHost{};
  int64_t k = static_cast<int64_t>(out.size()), nd = self.dim();
  auto ft = index_type(self);
  Tensor y = self.to(compute_type(self));
  for (int64_t j = k - 1; j >= 0; --j) {
    int64_t d = nd - k + j, in = self.size(d);
    if (antialiased(mode)) {
      if (in == out[j]) continue;  // CPU skips a dim whose size does not change
      Tensor w = aa_weights(in, out[j], align_corners, scales[j], mode == Mode::CubicAA, y);
      y = at::matmul(y.movedim(d, -1), w.t()).movedim(-1, d);
    } else if (mode == Mode::Linear) {
      auto [i0, i1, l] = linear_index(in, out[j], align_corners, scales[j], ft, self.options());
      Tensor lw = along(l.to(y.scalar_type()), nd, d);
      Tensor a = at::index_select(y, d, i0), b = at::index_select(y, d, i1);
      // (1 - l) * x0 + l * x1, as CPU's w0lambda * x0 + w1lambda * x1
      y = a.mul(lw.neg().add(1)).add_(b.mul(lw));
    } else if (mode == Mode::Cubic) {
      auto [idx, w] = cubic_index(in, out[j], align_corners, scales[j], ft, self.options());
      Tensor acc;
      for (int64_t k = 0; k < 4; ++k) {
        Tensor term = at::index_select(y, d, idx[k]).mul_(along(w[k].to(y.scalar_type()), nd, d));
        acc = acc.defined() ? acc.add_(term) : term;
      }
      y = acc;
    } else {
      y = at::index_select(y, d, nearest_index(in, out[j], scales[j], mode == Mode::NearestExact, ft, self.options()));
    }
  }
  return y.to(self.scalar_type());
}

Tensor interpolate_backward(const Tensor& grad, at::IntArrayRef out, at::IntArrayRef in_size, const Scales& scales,
                            Mode mode, bool align_corners) {
  host_if_no_fp64(grad);
  int64_t k = static_cast<int64_t>(out.size()), nd = grad.dim();
  auto ft = index_type(grad);
  Tensor g = grad.to(compute_type(grad));
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = nd - k + j, in = in_size[2 + j];
    if (antialiased(mode)) {  // the adjoint: the transposed weights
      if (in == out[j]) continue;
      Tensor w = aa_weights(in, out[j], align_corners, scales[j], mode == Mode::CubicAA, g);
      g = at::matmul(g.movedim(d, -1), w).movedim(-1, d);
      continue;
    }
    std::vector<int64_t> shape(g.sizes().begin(), g.sizes().end());
    shape[d] = in;
    Tensor acc = at::zeros(shape, g.options());
    if (mode == Mode::Linear) {
      auto [i0, i1, l] = linear_index(in, out[j], align_corners, scales[j], ft, grad.options());
      Tensor lw = along(l.to(g.scalar_type()), nd, d);
      acc.index_add_(d, i0, g.mul(lw.neg().add(1)));
      acc.index_add_(d, i1, g.mul(lw));
    } else if (mode == Mode::Cubic) {
      auto [idx, w] = cubic_index(in, out[j], align_corners, scales[j], ft, grad.options());
      for (int64_t k = 0; k < 4; ++k) acc.index_add_(d, idx[k], g.mul(along(w[k].to(g.scalar_type()), nd, d)));
    } else {
      acc.index_add_(d, nearest_index(in, out[j], scales[j], mode == Mode::NearestExact, ft, grad.options()), g);
    }
    g = acc;
  }
  return g.to(grad.scalar_type());
}

Tensor& store(Tensor& out, const Tensor& r) {
  out.copy_(r);
  return out;
}

// ---- registrations: the structured .out forms (functional forms reach them)
#define RS_NEAREST(NAME, META, K, MODE, ...)                                                                  \
  Tensor& NAME##_out(const Tensor& self, at::IntArrayRef output_size, RS_SCALE_PARAMS_##K, Tensor& out) {      \
    return native_or_host<at::_ops::NAME##_out>(                                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::META> m(out);                                                                      \
          m.meta(self, output_size, RS_SCALE_ARGS_##K);                                                       \
          return store(out, interpolate(self, output_size, {RS_SCALE_ARGS_##K}, MODE, false));                \
        },                                                                                                    \
        self, output_size, RS_SCALE_ARGS_##K, out);                                                           \
  }                                                                                                           \
  Tensor& NAME##_backward_out(const Tensor& grad, at::IntArrayRef output_size, at::IntArrayRef input_size,    \
                              RS_SCALE_PARAMS_##K, Tensor& gi) {                                              \
    return native_or_host<at::_ops::NAME##_backward_grad_input>(                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::META##_backward> m(gi);                                                            \
          m.meta(grad, output_size, input_size, RS_SCALE_ARGS_##K);                                           \
          return store(gi, interpolate_backward(grad, output_size, input_size, {RS_SCALE_ARGS_##K}, MODE, false)); \
        },                                                                                                    \
        grad, output_size, input_size, RS_SCALE_ARGS_##K, gi);                                                \
  }
#define RS_LINEAR(NAME, K, MODE)                                                                                    \
  Tensor& NAME##_out(const Tensor& self, at::IntArrayRef output_size, bool ac, RS_SCALE_PARAMS_##K,            \
                     Tensor& out) {                                                                           \
    return native_or_host<at::_ops::NAME##_out>(                                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::structured_##NAME> m(out);                                                         \
          m.meta(self, output_size, ac, RS_SCALE_ARGS_##K);                                                   \
          return store(out, interpolate(self, output_size, {RS_SCALE_ARGS_##K}, MODE, ac));           \
        },                                                                                                    \
        self, output_size, ac, RS_SCALE_ARGS_##K, out);                                                       \
  }                                                                                                           \
  Tensor& NAME##_backward_out(const Tensor& grad, at::IntArrayRef output_size, at::IntArrayRef input_size,    \
                              bool ac, RS_SCALE_PARAMS_##K, Tensor& gi) {                                     \
    return native_or_host<at::_ops::NAME##_backward_grad_input>(                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::structured_##NAME##_backward> m(gi);                                               \
          m.meta(grad, output_size, input_size, ac, RS_SCALE_ARGS_##K);                                       \
          return store(gi, interpolate_backward(grad, output_size, input_size, {RS_SCALE_ARGS_##K}, MODE, \
                                                ac));                                        \
        },                                                                                                    \
        grad, output_size, input_size, ac, RS_SCALE_ARGS_##K, gi);                                            \
  }
#define RS_SCALE_PARAMS_1 std::optional<double> s0
#define RS_SCALE_ARGS_1 s0
#define RS_SCALE_PARAMS_2 std::optional<double> s0, std::optional<double> s1
#define RS_SCALE_ARGS_2 s0, s1
#define RS_SCALE_PARAMS_3 std::optional<double> s0, std::optional<double> s1, std::optional<double> s2
#define RS_SCALE_ARGS_3 s0, s1, s2
RS_NEAREST(upsample_nearest1d, structured_upsample_nearest1d, 1, Mode::Nearest)
RS_NEAREST(upsample_nearest2d, structured_upsample_nearest2d, 2, Mode::Nearest)
RS_NEAREST(upsample_nearest3d, structured_upsample_nearest3d, 3, Mode::Nearest)
RS_NEAREST(_upsample_nearest_exact1d, structured__upsample_nearest_exact1d, 1, Mode::NearestExact)
RS_NEAREST(_upsample_nearest_exact2d, structured__upsample_nearest_exact2d, 2, Mode::NearestExact)
RS_NEAREST(_upsample_nearest_exact3d, structured__upsample_nearest_exact3d, 3, Mode::NearestExact)
RS_LINEAR(upsample_linear1d, 1, Mode::Linear)
RS_LINEAR(upsample_bilinear2d, 2, Mode::Linear)
RS_LINEAR(upsample_trilinear3d, 3, Mode::Linear)
RS_LINEAR(upsample_bicubic2d, 2, Mode::Cubic)
RS_LINEAR(_upsample_bilinear2d_aa, 2, Mode::LinearAA)
RS_LINEAR(_upsample_bicubic2d_aa, 2, Mode::CubicAA)

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
#define RS_REG(NAME)                          \
  m.impl(#NAME ".out", NAME##_out);           \
  m.impl(#NAME "_backward.grad_input", NAME##_backward_out);
  RS_REG(upsample_nearest1d)
  RS_REG(upsample_nearest2d)
  RS_REG(upsample_nearest3d)
  RS_REG(_upsample_nearest_exact1d)
  RS_REG(_upsample_nearest_exact2d)
  RS_REG(_upsample_nearest_exact3d)
  RS_REG(upsample_linear1d)
  RS_REG(upsample_bilinear2d)
  RS_REG(upsample_trilinear3d)
  RS_REG(upsample_bicubic2d)
  RS_REG(_upsample_bilinear2d_aa)
  RS_REG(_upsample_bicubic2d_aa)
#undef RS_REG
}

}  // namespace russet
