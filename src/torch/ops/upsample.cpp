// Interpolation (F.interpolate / nn.Upsample): nearest, nearest-exact,
// linear, bilinear, trilinear and bicubic, plain and antialiased, forward
// and backward. The work is the C core's interpolation engine
// (rs_interp_run, russet/interp.h): CPU's indices and weights made on the
// host, a pass per spatial dim, the backward as the transposed weights
// gathered in a fixed order. Here only the registrations and the dtypes the
// engine leaves to the host: uint8 1-d and 3-d linear (CPU has no kernel:
// its error), and the antialiased kernels' float16/bfloat16. uint8 bilinear
// and bicubic, antialiased or not, run CPU's fixed-point algorithm in the
// engine, bit for bit. float16/bfloat16 interpolate in float32 and round once
// (CPU's reduced-precision linear kernels round their weights: russet
// matches the float32 result rounded).
#include "russet/interp.h"
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/reduce.h"

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
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using Scales = std::vector<std::optional<double>>;

bool antialiased(rs_interp_mode m) { return m == RS_INTERP_LINEAR_AA || m == RS_INTERP_CUBIC_AA; }

// One engine call: forward `self` into `out`, or (backward) `grad` into
// `gi`; throws NeedsHost for what the engine leaves to the host.
void run_interp(rs_interp_mode mode, const Tensor& src, const Tensor& dst, int64_t k, const Scales& scales,
                bool align_corners, bool backward) {
  const bool weighted = mode != RS_INTERP_NEAREST && mode != RS_INTERP_NEAREST_EXACT;
  // uint8: the 2-d forward in CPU's fixed point (the engine's u8 path)
  const bool u8 = src.scalar_type() == at::kByte && weighted && !backward && k == 2;
  if ((weighted || backward) && !c10::isFloatingType(src.scalar_type()) && !u8) throw NeedsHost{};
  if (antialiased(mode) && !u8 && src.scalar_type() != at::kFloat && src.scalar_type() != at::kDouble)
    throw NeedsHost{};
  if (dst.numel() == 0) return;
  Tensor in = resolved(src);  // (neg-bit) copies live until the dispatch is recorded
  rs_interp r{};
  r.mode = mode;
  r.backward = backward;
  r.dims = static_cast<int>(k);
  r.align_corners = align_corners;
  for (int64_t j = 0; j < k; ++j) r.scales[j] = scales[j].value_or(0.0);
  r.input = describe(backward ? dst : in);
  r.output = describe(backward ? in : dst);
  check_or_host(rs_interp_run(current_stream_for(dst), &r));
}

// ---- registrations: the structured .out forms (functional forms reach them)
#define RS_NEAREST(NAME, META, K, MODE, ...)                                                                  \
  Tensor& NAME##_out(const Tensor& self, at::IntArrayRef output_size, RS_SCALE_PARAMS_##K, Tensor& out) {      \
    return native_or_host<at::_ops::NAME##_out>(                                                              \
        [&]() -> Tensor& {                                                                                    \
          refuse_unless(is_nn_float(self.scalar_type()) || self.scalar_type() == at::kByte,                    \
                        K == 2 ? "upsample_nearest2d_channels_last" : "compute_indices_weights_nearest",      \
                        self.scalar_type());                                                                  \
          OutOps<at::meta::META> m(out);                                                                      \
          m.meta(self, output_size, RS_SCALE_ARGS_##K);                                                       \
          run_interp(MODE, self, out, K, {RS_SCALE_ARGS_##K}, false, false);                                  \
          return out;                                                                                         \
        },                                                                                                    \
        self, output_size, RS_SCALE_ARGS_##K, out);                                                           \
  }                                                                                                           \
  Tensor& NAME##_backward_out(const Tensor& grad, at::IntArrayRef output_size, at::IntArrayRef input_size,    \
                              RS_SCALE_PARAMS_##K, Tensor& gi) {                                              \
    return native_or_host<at::_ops::NAME##_backward_grad_input>(                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::META##_backward> m(gi);                                                            \
          m.meta(grad, output_size, input_size, RS_SCALE_ARGS_##K);                                           \
          run_interp(MODE, grad, gi, K, {RS_SCALE_ARGS_##K}, false, true);                                    \
          return gi;                                                                                          \
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
          run_interp(MODE, self, out, K, {RS_SCALE_ARGS_##K}, ac, false);                                     \
          return out;                                                                                         \
        },                                                                                                    \
        self, output_size, ac, RS_SCALE_ARGS_##K, out);                                                       \
  }                                                                                                           \
  Tensor& NAME##_backward_out(const Tensor& grad, at::IntArrayRef output_size, at::IntArrayRef input_size,    \
                              bool ac, RS_SCALE_PARAMS_##K, Tensor& gi) {                                     \
    return native_or_host<at::_ops::NAME##_backward_grad_input>(                                              \
        [&]() -> Tensor& {                                                                                    \
          OutOps<at::meta::structured_##NAME##_backward> m(gi);                                               \
          m.meta(grad, output_size, input_size, ac, RS_SCALE_ARGS_##K);                                       \
          run_interp(MODE, grad, gi, K, {RS_SCALE_ARGS_##K}, ac, true);                                       \
          return gi;                                                                                          \
        },                                                                                                    \
        grad, output_size, input_size, ac, RS_SCALE_ARGS_##K, gi);                                            \
  }
#define RS_SCALE_PARAMS_1 std::optional<double> s0
#define RS_SCALE_ARGS_1 s0
#define RS_SCALE_PARAMS_2 std::optional<double> s0, std::optional<double> s1
#define RS_SCALE_ARGS_2 s0, s1
#define RS_SCALE_PARAMS_3 std::optional<double> s0, std::optional<double> s1, std::optional<double> s2
#define RS_SCALE_ARGS_3 s0, s1, s2
RS_NEAREST(upsample_nearest1d, structured_upsample_nearest1d, 1, RS_INTERP_NEAREST)
RS_NEAREST(upsample_nearest2d, structured_upsample_nearest2d, 2, RS_INTERP_NEAREST)
RS_NEAREST(upsample_nearest3d, structured_upsample_nearest3d, 3, RS_INTERP_NEAREST)
RS_NEAREST(_upsample_nearest_exact1d, structured__upsample_nearest_exact1d, 1, RS_INTERP_NEAREST_EXACT)
RS_NEAREST(_upsample_nearest_exact2d, structured__upsample_nearest_exact2d, 2, RS_INTERP_NEAREST_EXACT)
RS_NEAREST(_upsample_nearest_exact3d, structured__upsample_nearest_exact3d, 3, RS_INTERP_NEAREST_EXACT)
RS_LINEAR(upsample_linear1d, 1, RS_INTERP_LINEAR)
RS_LINEAR(upsample_bilinear2d, 2, RS_INTERP_LINEAR)
RS_LINEAR(upsample_trilinear3d, 3, RS_INTERP_LINEAR)
RS_LINEAR(upsample_bicubic2d, 2, RS_INTERP_CUBIC)
RS_LINEAR(_upsample_bilinear2d_aa, 2, RS_INTERP_LINEAR_AA)
RS_LINEAR(_upsample_bicubic2d_aa, 2, RS_INTERP_CUBIC_AA)

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
