// torch.fft: _fft_c2c, _fft_r2c, _fft_c2r (and their out= forms), which
// every torch.fft function, stft and istft reduce to: one call of the C
// core each (rs_fft_nd, src/engine/fft_nd.c: a 1-D transform per dim by
// radix-2 passes, the DFT matrix on the GEMM engine or Bluestein's chirp-z
// transform, then the normalization; docs/fft.md). complex64/float32
// natively, complex128/float64 natively where the device has fp64 (the
// native profile) and through host execution under the apple profile (by
// design); what CPU refuses (complex32) refuses here too.
// Results have CPU's and CUDA's strides (rs_fft_nd_layout).
#include "torch/pointwise.h"
#include "russet/fft.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_fft_c2c_ops.h>
#include <ATen/ops/_fft_c2r_ops.h>
#include <ATen/ops/_fft_r2c_ops.h>
#include <ATen/ops/empty_strided.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

namespace russet {
namespace {

using at::Tensor;

// the complex dtype of a transform whose complex operand is `t` (or whose
// real operand, for r2c), or NeedsHost: complex64/float32 always,
// complex128/float64 where the device has fp64; others are CPU's errors
at::ScalarType complex_of(const Tensor& t, bool real) {
  const at::ScalarType narrow = real ? at::kFloat : at::kComplexFloat, wide = real ? at::kDouble : at::kComplexDouble;
  if (t.scalar_type() == narrow) return at::kComplexFloat;
  if (t.scalar_type() != wide) throw NeedsHost();
  host_if_no_fp64(t);
  return at::kComplexDouble;
}

// out (out_sizes, out_dt) = the transform of self over dims (rs_fft_nd)
Tensor run_fft(rs_fft_kind kind, const Tensor& self, at::IntArrayRef dim, int64_t normalization,
               at::IntArrayRef out_sizes, at::ScalarType out_dt, bool inverse, bool onesided) {
  TORCH_CHECK(normalization >= 0 && normalization <= 2, "Invalid normalization mode: ", normalization);
  rs_fft_nd_desc d{};
  d.kind = kind;
  d.in = describe(self);
  d.ndims = static_cast<int>(dim.size());
  for (size_t i = 0; i < dim.size(); ++i) d.dims[i] = static_cast<int>(at::maybe_wrap_dim(dim[i], self.dim()));
  d.out.ndim = static_cast<int>(out_sizes.size());
  std::copy(out_sizes.begin(), out_sizes.end(), d.out.sizes);
  int64_t strides[RS_MAX_DIMS];
  rs_fft_nd_layout(&d, strides);  // CPU's and CUDA's strides
  Tensor out = at::empty_strided(out_sizes, at::IntArrayRef(strides, out_sizes.size()), self.options().dtype(out_dt));
  d.out = describe(out);
  d.inverse = inverse;
  d.normalization = static_cast<int>(normalization);
  d.onesided = onesided;
  check_or_host(rs_fft_nd(current_stream_for(self), &d));
  return out;
}

Tensor c2c(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward) {
  return native_or_host<at::_ops::_fft_c2c>(
      [&]() -> Tensor {
        const at::ScalarType ct = complex_of(self, false);
        return run_fft(RS_FFT_C2C, self, dim, normalization, self.sizes(), ct, !forward, false);
      },
      self, dim, normalization, forward);
}

Tensor r2c(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided) {
  return native_or_host<at::_ops::_fft_r2c>(
      [&]() -> Tensor {
        const at::ScalarType ct = complex_of(self, true);
        TORCH_CHECK(!dim.empty(), "_fft_r2c: expected at least one dim");
        std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
        const int64_t last = at::maybe_wrap_dim(dim.back(), self.dim());
        if (onesided) sizes[last] = sizes[last] / 2 + 1;
        return run_fft(RS_FFT_R2C, self, dim, normalization, sizes, ct, false, onesided);
      },
      self, dim, normalization, onesided);
}

Tensor c2r(const Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  return native_or_host<at::_ops::_fft_c2r>(
      [&]() -> Tensor {
        const at::ScalarType ct = complex_of(self, false);
        TORCH_CHECK(!dim.empty(), "_fft_c2r: expected at least one dim");
        TORCH_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
        std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
        sizes[at::maybe_wrap_dim(dim.back(), self.dim())] = last_dim_size;
        return run_fft(RS_FFT_C2R, self, dim, normalization, sizes, c10::toRealValueType(ct), true, false);
      },
      self, dim, normalization, last_dim_size);
}

Tensor& c2c_out(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward, Tensor& out) {
  return native_or_host<at::_ops::_fft_c2c_out>(
      [&]() -> Tensor& { return write_out(out, c2c(self, dim, normalization, forward)); }, self, dim, normalization,
      forward, out);
}

Tensor& r2c_out(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided, Tensor& out) {
  return native_or_host<at::_ops::_fft_r2c_out>(
      [&]() -> Tensor& { return write_out(out, r2c(self, dim, normalization, onesided)); }, self, dim, normalization,
      onesided, out);
}

Tensor& c2r_out(const Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size, Tensor& out) {
  return native_or_host<at::_ops::_fft_c2r_out>(
      [&]() -> Tensor& { return write_out(out, c2r(self, dim, normalization, last_dim_size)); }, self, dim,
      normalization, last_dim_size, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fft_c2c", c2c);
  m.impl("_fft_c2c.out", c2c_out);
  m.impl("_fft_r2c", r2c);
  m.impl("_fft_r2c.out", r2c_out);
  m.impl("_fft_c2r", c2r);
  m.impl("_fft_c2r.out", c2r_out);
}

}  // namespace russet
