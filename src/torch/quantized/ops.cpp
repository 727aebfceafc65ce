// Quantized tensors on russet (docs/low-precision.md): what PyTorch writes
// per device. ATen's quantizer (quantize_per_tensor, quantize_per_channel,
// dequantize, copies from floats) calls dispatch stubs, given here the C
// core's affine kernels (russet/quant.h: CPU's arithmetic); int_repr and
// _make_per_{tensor,channel}_quantized_tensor move the integers. The
// device-generic kernels (empty tensors, views, clone, q_scale, ...) are
// registered from generic.cpp.
#include <ATen/native/quantized/AffineQuantizer.h>
#include <ATen/ops/_empty_affine_quantized.h>
#include <ATen/ops/_empty_per_channel_affine_quantized.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <torch/library.h>

#include "russet/quant.h"
#include "torch/adapter.h"
#include "torch/torch_version.h"

namespace russet {
namespace {

using at::Tensor;

rs_affine_quant affine(const Tensor& r, const Tensor& q) {
  TORCH_CHECK(r.dim() <= RS_MAX_DIMS, "russet: quantized tensors of more than ", RS_MAX_DIMS, " dims");
  rs_affine_quant a{};
  a.x = describe(r), a.q = describe(q);  // q's integers (describe maps the quantized dtypes)
  // torch 2.15's CPU (and 2.11's) rounds x / scale, then adds the zero
  // point; 2.13's rounds the sum (docs/torch-versions.md)
  a.zero_point_after_round = RUSSET_TORCH_2_15 || RUSSET_TORCH_BEFORE_2_13;
  return a;
}

void quantize_per_tensor(const Tensor& r, Tensor& q, double scale, int64_t zero_point) {
  rs_affine_quant a = affine(r, q);
  a.scale = scale, a.zero_point = zero_point;
  check(rs_quantize(current_stream_for(r), &a));
}

void dequantize_per_tensor(const Tensor& q, Tensor& r, double scale, int64_t zero_point) {
  rs_affine_quant a = affine(r, q);
  a.scale = scale, a.zero_point = zero_point;
  check(rs_dequantize(current_stream_for(r), &a));
}

// per channel: the scales as float64 and the zero points as int64, contiguous on r's device
void per_channel(const Tensor& r, const Tensor& q, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                 bool quantize) {
  TORCH_CHECK(!zero_points.is_floating_point(), "russet: per-channel zero points must be integers");
  Tensor sc = scales.to(r.device(), at::kDouble).contiguous(), zp = zero_points.to(r.device(), at::kLong).contiguous();
  rs_tensor ts = describe(sc), tz = describe(zp);
  rs_affine_quant a = affine(r, q);
  a.scales = &ts, a.zero_points = &tz, a.axis = static_cast<int>(axis);
  check(quantize ? rs_quantize(current_stream_for(r), &a) : rs_dequantize(current_stream_for(r), &a));
}

void quantize_per_channel(const Tensor& r, Tensor& q, const Tensor& scales, const Tensor& zero_points,
                          int64_t axis) {
  per_channel(r, q, scales, zero_points, axis, true);
}

void dequantize_per_channel(const Tensor& q, Tensor& r, const Tensor& scales, const Tensor& zero_points,
                            int64_t axis) {
  per_channel(r, q, scales, zero_points, axis, false);
}

// the integers of a quantized tensor, in its layout (contiguous for an overlapping view)
Tensor int_repr(const Tensor& self) {
  const auto options = self.options().dtype(at::toUnderlying(self.scalar_type()));
  Tensor out = self.is_non_overlapping_and_dense() ? at::empty_strided(self.sizes(), self.strides(), options)
                                                   : at::empty(self.sizes(), options);
  if (self.numel() == 0) return out;
  rs_tensor src = describe(self), dst = describe(out);
  check(rs_copy(current_stream_for(self), &dst, &src));
  return out;
}

// q (new, quantized) takes `self`'s integers
Tensor with_ints(Tensor q, const Tensor& self) {
  if (self.numel()) {
    Tensor src = self.contiguous(self.suggest_memory_format());
    rs_tensor s = describe(src), d = describe(q);
    check(rs_copy(current_stream_for(self), &d, &s));
  }
  return q;
}

Tensor make_per_tensor(const Tensor& self, double scale, int64_t zero_point) {
  return with_ints(at::_empty_affine_quantized(self.sizes(), self.options().dtype(at::toQIntType(self.scalar_type())),
                                               scale, zero_point, self.suggest_memory_format()),
                   self);
}

Tensor make_per_channel(const Tensor& self, const Tensor& scale, const Tensor& zero_point, int64_t axis) {
  return with_ints(at::_empty_per_channel_affine_quantized(self.sizes(), scale, zero_point, axis,
                                                           self.options().dtype(at::toQIntType(self.scalar_type())),
                                                           self.suggest_memory_format()),
                   self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, QuantizedPrivateUse1, m) { m.impl("int_repr", int_repr); }

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_make_per_tensor_quantized_tensor", make_per_tensor);
  m.impl("_make_per_channel_quantized_tensor", make_per_channel);
}

}  // namespace russet

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_tensor_affine_stub, &russet::quantize_per_tensor)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_tensor_affine_stub, &russet::dequantize_per_tensor)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_channel_affine_stub, &russet::quantize_per_channel)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_channel_affine_stub, &russet::dequantize_per_channel)
}  // namespace at::native
