// torch.fft: _fft_c2c, _fft_r2c, _fft_c2r (and their out= forms), which
// every torch.fft function, stft and istft reduce to. complex64/float32
// natively; complex128/float64 through host execution under the apple
// profile (by design); what CPU refuses (complex32) refuses here too.
// - A transform over several dims is one 1-D transform per dim: the dim
//   moved last and made contiguous, rs_fft over its rows, moved back.
// - Power-of-two lengths: rs_fft (radix-2 Stockham passes, src/engine/fft.c).
//   Other lengths up to 512: a product with the DFT matrix (complex GEMM).
//   Longer ones: Bluestein's chirp-z transform, composed here from two
//   power-of-two FFTs of length M >= 2n - 1 and complex products, with the
//   chirp e^(-+ i pi j^2 / n) computed on the host in double (j^2 mod 2n).
//   The DFT matrices and the chirps are device tables, made once per device,
//   length and direction (rs_device_table), not per call.
// - r2c: the real input cast to complex, transformed, the last dim cut to
//   n / 2 + 1 when onesided. c2r: the other dims inverse-transformed first,
//   then the last one extended by Hermitian symmetry to last_dim_size
//   (X[L - k] = conj(X[k]); the imaginary parts of X[0] and X[L / 2] drop
//   out with the real part, as in CPU's pocketfft) and inverse-transformed.
// - normalization (ATen's fft_norm_mode): 0 none, 1 by 1 / sqrt(n), 2 by
//   1 / n, n the product of the signal sizes.
#include "torch/pointwise.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_fft_c2c_ops.h>
#include <ATen/ops/_fft_c2r_ops.h>
#include <ATen/ops/_fft_r2c_ops.h>
#include <ATen/ops/add.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/conj_physical.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/flip.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/real.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <cmath>
#include <algorithm>
#include <vector>

namespace russet {
namespace {

using at::Tensor;

bool pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// rows x n contiguous complex64, n a power of two -> a new tensor
Tensor fft_rows_pow2(const Tensor& x, bool inverse) {
  Tensor y = at::empty_like(x, at::MemoryFormat::Contiguous);
  rs_fft_desc d{};
  d.in = address_of(x);
  d.out = address_of(y);
  d.rows = x.numel() / x.size(-1);
  d.n = x.size(-1);
  d.inverse = inverse ? 1 : 0;
  check(rs_fft(current_stream_for(x), &d));
  return y;
}

// What a constant table is made for: a transform length and direction.
struct TableFor {
  int64_t n;
  bool inverse;
};

// `count` complex64 values made by fill(&TableFor, host floats), on like's
// device: the device's table under `key` (made on first use, one sync,
// never freed, so the tensor does not own it), or past the tables' limit
// (256 MiB) a fresh upload.
Tensor constant_table(const Tensor& like, uint64_t key, int64_t count, rs_table_fill fill, TableFor what) {
  const uint64_t bytes = static_cast<uint64_t>(count) * 8u;
  uint64_t address = 0;
  check(rs_device_table(current_stream_for(like), key, bytes, fill, &what, &address));
  if (!address) {
    std::vector<float> host(2 * static_cast<size_t>(count));
    fill(&what, host.data());
    return from_host(host.data(), {count}, at::kComplexFloat, like);
  }
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes,
                       c10::DataPtr(reinterpret_cast<void*>(address), like.device()), nullptr, false);
  return at::empty({0}, like.options().dtype(at::kComplexFloat)).set_(storage, 0, {count}, {1});
}

// the key of a table: a tag, the direction and the length
uint64_t table_key(uint64_t tag, TableFor what) {
  return (tag << 48) ^ (static_cast<uint64_t>(what.inverse) << 40) ^ static_cast<uint64_t>(what.n);
}

int64_t bluestein_length(int64_t n) {
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  return m;
}

// Bluestein's tables, one after another: w_j (n values), w_j / M (n; the
// inverse FFT's 1 / M), and b of length M: conj(w_j) at j and M - j, 0 between
void fill_bluestein(void* ctx, void* host) {
  const TableFor what = *static_cast<const TableFor*>(ctx);
  const int64_t n = what.n, m = bluestein_length(n);
  const double sign = what.inverse ? 1.0 : -1.0, pi = 3.14159265358979323846;
  float* w = static_cast<float*>(host);
  float *ws = w + 2 * n, *b = w + 4 * n;
  std::fill(b, b + 2 * m, 0.0f);
  for (int64_t j = 0; j < n; ++j) {
    const double a = sign * pi * static_cast<double>((j * j) % (2 * n)) / static_cast<double>(n);
    const double c = std::cos(a), s = std::sin(a);
    w[2 * j] = static_cast<float>(c), w[2 * j + 1] = static_cast<float>(s);
    ws[2 * j] = static_cast<float>(c / m), ws[2 * j + 1] = static_cast<float>(s / m);
    b[2 * j] = static_cast<float>(c), b[2 * j + 1] = static_cast<float>(-s);
    if (j > 0) b[2 * (m - j)] = static_cast<float>(c), b[2 * (m - j) + 1] = static_cast<float>(-s);
  }
}

// Bluestein: X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), w_j = e^(-+ i pi j^2 / n),
// the sum a circular convolution of length M (power of two >= 2n - 1)
Tensor fft_rows_bluestein(const Tensor& x, bool inverse) {
  const int64_t n = x.size(-1), m = bluestein_length(n);
  const TableFor what{n, inverse};
  Tensor t = constant_table(x, table_key(0x424C55u /* BLU */, what), 2 * n + m, fill_bluestein, what);
  Tensor wd = t.narrow(0, 0, n), wsd = t.narrow(0, n, n), bd = t.narrow(0, 2 * n, m);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = m;
  Tensor a = at::zeros(shape, x.options());
  a.narrow(-1, 0, n).copy_(at::mul(x, wd));
  Tensor fa = fft_rows_pow2(a, false), fb = fft_rows_pow2(bd.reshape({1, m}), false).reshape({m});
  Tensor c = fft_rows_pow2(at::mul(fa, fb).contiguous(), true);
  return at::mul(c.narrow(-1, 0, n), wsd);
}

// short lengths that are not powers of two: a product with the DFT matrix
// W[j][k] = e^(-+2 pi i jk / n) (made on the host in double, jk mod n),
// through the complex GEMM: more accurate there than Bluestein's three
// transforms of length M >= 2n - 1
constexpr int64_t kDftMatrixMax = 512;

// W = W_hi + W_lo, each float32, one after the other: the product then
// carries W to ~2^-48 (what a float32 W alone would round away shows at
// outputs near zero). jk mod n takes n values: their cosines and sines once
// (n evaluations, not n^2), split into the two parts, then the matrix by lookup
void fill_dft(void* ctx, void* host) {
  const TableFor what = *static_cast<const TableFor*>(ctx);
  const int64_t n = what.n;
  const double sign = what.inverse ? 2.0 : -2.0, pi = 3.14159265358979323846;
  std::vector<float> th(2 * n), tl(2 * n);
  for (int64_t t = 0; t < n; ++t) {
    const double a = sign * pi * static_cast<double>(t) / static_cast<double>(n);
    const double c = std::cos(a), s = std::sin(a);
    th[2 * t] = static_cast<float>(c), th[2 * t + 1] = static_cast<float>(s);
    tl[2 * t] = static_cast<float>(c - th[2 * t]), tl[2 * t + 1] = static_cast<float>(s - th[2 * t + 1]);
  }
  float* hi = static_cast<float*>(host);
  float* lo = hi + 2 * n * n;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < n; ++k) {
      const size_t e = static_cast<size_t>(2 * (j * n + k)), t = static_cast<size_t>(2 * ((j * k) % n));
      hi[e] = th[t], hi[e + 1] = th[t + 1];
      lo[e] = tl[t], lo[e + 1] = tl[t + 1];
    }
}

Tensor fft_rows_dft(const Tensor& x, bool inverse) {
  const int64_t n = x.size(-1);
  const TableFor what{n, inverse};
  Tensor t = constant_table(x, table_key(0x444654u /* DFT */, what), 2 * n * n, fill_dft, what);
  Tensor whi = t.narrow(0, 0, n * n).view({n, n}), wlo = t.narrow(0, n * n, n * n).view({n, n});
  return at::add(at::matmul(x, wlo), at::matmul(x, whi));
}

// the 1-D transform of x along dim d
Tensor fft_dim(const Tensor& x, int64_t d, bool inverse) {
  const int64_t n = x.size(d);
  if (x.numel() == 0 || n == 1) return x.clone();
  Tensor xt = x.movedim(d, -1).contiguous();
  Tensor y = pow2(n)                ? fft_rows_pow2(xt, inverse)
             : n <= kDftMatrixMax ? fft_rows_dft(xt, inverse)
                                  : fft_rows_bluestein(xt, inverse);
  return y.movedim(-1, d);
}

Tensor normalized(Tensor y, int64_t normalization, double n) {
  if (normalization == 1) return at::mul(y, 1.0 / std::sqrt(n));
  if (normalization == 2) return at::mul(y, 1.0 / n);
  return y;
}

// y transformed along each of dims in turn; n times the product of their sizes
Tensor over_dims(Tensor y, at::IntArrayRef dims, bool inverse, double& n) {
  const int64_t nd = y.dim();
  for (int64_t d0 : dims) {
    const int64_t d = at::maybe_wrap_dim(d0, nd);
    n *= static_cast<double>(y.size(d));
    y = fft_dim(y, d, inverse);
  }
  return y;
}

void check_norm(int64_t normalization) {
  TORCH_CHECK(normalization >= 0 && normalization <= 2, "Invalid normalization mode: ", normalization);
}

Tensor c2c(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward) {
  return native_or_host<at::_ops::_fft_c2c>(
      [&]() -> Tensor {
        if (self.scalar_type() != at::kComplexFloat) throw NeedsHost();  // complex128: fp64; others: CPU's error
        check_norm(normalization);
        double n = 1;
        Tensor y = dim.empty() ? self.clone() : over_dims(self, dim, !forward, n);
        return normalized(y, normalization, n);
      },
      self, dim, normalization, forward);
}

Tensor r2c(const Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided) {
  return native_or_host<at::_ops::_fft_r2c>(
      [&]() -> Tensor {
        if (self.scalar_type() != at::kFloat) throw NeedsHost();
        check_norm(normalization);
        TORCH_CHECK(!dim.empty(), "_fft_r2c: expected at least one dim");
        double n = 1;
        Tensor y = over_dims(self.to(at::kComplexFloat), dim, false, n);
        if (onesided) {
          const int64_t last = at::maybe_wrap_dim(dim.back(), self.dim());
          y = y.narrow(last, 0, self.size(last) / 2 + 1).contiguous();
        }
        return normalized(y, normalization, n);
      },
      self, dim, normalization, onesided);
}

Tensor c2r(const Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  return native_or_host<at::_ops::_fft_c2r>(
      [&]() -> Tensor {
        if (self.scalar_type() != at::kComplexFloat) throw NeedsHost();
        check_norm(normalization);
        TORCH_CHECK(!dim.empty(), "_fft_c2r: expected at least one dim");
        TORCH_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
        double n = 1;
        Tensor y = over_dims(self, dim.slice(0, dim.size() - 1), true, n);
        const int64_t last = at::maybe_wrap_dim(dim.back(), self.dim());
        const int64_t L = last_dim_size, h = L / 2 + 1, have = y.size(last);
        n *= static_cast<double>(L);
        // the first h values of the last dim (zero-padded), then the mirror
        Tensor head = y.narrow(last, 0, std::min(h, have));
        if (have < h) {
          std::vector<int64_t> pad(y.sizes().begin(), y.sizes().end());
          pad[last] = h - have;
          head = at::cat({head, at::zeros(pad, y.options())}, last);
        }
        Tensor full = head;
        if (L - h > 0) full = at::cat({head, at::conj_physical(at::flip(head.narrow(last, 1, L - h), {last}))}, last);
        Tensor out = at::real(fft_dim(full, last, true)).contiguous();
        return normalized(out, normalization, n);
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
