// Shape ops that move data: cat, flip, roll, tril/triu, equal, narrow_copy,
// unfold's backward, tril/triu_indices. They are copies (rs_copy, through
// copy_ of views; tril/triu the engine's rs_triangle), pointwise ops and
// index reductions, composed here; every dtype runs natively (copies move
// float64 as bits).
#include "torch/same_device.h"
#include "torch/reduce.h"
#include "torch/dtype_refusal.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/channel_shuffle_ops.h>
#include <ATen/ops/repeat_interleave_ops.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/cat_meta.h>
#include <ATen/ops/cat_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/tril_meta.h>
#include <ATen/ops/tril_ops.h>
#include <ATen/ops/triu_meta.h>
#include <ATen/ops/triu_ops.h>
#include <ATen/ops/add.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/narrow_copy_ops.h>
#include <ATen/ops/tril_indices_ops.h>
#include <ATen/ops/triu_indices_ops.h>
#include <ATen/ops/unfold_backward_ops.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <algorithm>
#include <vector>

namespace russet {
namespace {

using at::Tensor;

// cat: ATen's meta checks the inputs and sizes `out` (dtype promotion
// included); each input is then copied into its slice.
Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, Tensor& out) {
  // as CUDA: no tensor from another device (the copies below would take it)
  for (const Tensor& t : tensors) same_device(out, t);
  OutOps<at::meta::structured_cat> m(out);
  auto pre = m.meta(tensors, dim);
  if (out.numel() == 0) return out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    // legacy empty tensors (1-d, size 0) take no part, as in ATen
    if (t.dim() == 1 && t.numel() == 0) continue;
    int64_t size = t.size(pre.dim);
    if (size > 0) out.narrow(pre.dim, offset, size).copy_(t);
    offset += size;
  }
  return out;
}

// flip: one copy from a view that walks the flipped dims backwards
Tensor flip(const Tensor& self, at::IntArrayRef dims) {
  uint64_t mask = 0;
  for (int64_t d : dims) mask |= 1ULL << at::maybe_wrap_dim(d, self.dim());
  TORCH_CHECK(static_cast<size_t>(__builtin_popcountll(mask)) == dims.size(),
              "dims has duplicates, original flip dims size=", dims.size(),
              ", but unique flip dims size=", __builtin_popcountll(mask));
  Tensor in = resolved(self);
  Tensor out = at::empty_like(in, at::MemoryFormat::Preserve);
  if (out.numel() == 0) return out;
  rs_tensor src = describe(in);
  for (int d = 0; d < src.ndim; ++d) {
    if (!(mask >> d & 1) || src.sizes[d] <= 1) continue;
    src.address += static_cast<uint64_t>((src.sizes[d] - 1) * src.strides[d] * static_cast<int64_t>(in.element_size()));
    src.strides[d] = -src.strides[d];
  }
  rs_tensor dst = describe(out);
  check(rs_copy(current_stream_for(self), &dst, &src));
  return out;
}

// roll: per dim, the two slices swap places
Tensor roll_dims(const Tensor& self, at::IntArrayRef shifts, at::IntArrayRef dims) {
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    Tensor flat = self.contiguous().view(-1);
    int64_t zero = 0;
    return roll_dims(flat, shifts, at::IntArrayRef(&zero, 1)).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  Tensor cur = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = at::maybe_wrap_dim(dims[i], self.dim());
    int64_t n = cur.size(d);
    Tensor out = at::empty_like(cur, at::MemoryFormat::Preserve);
    int64_t s = n == 0 ? 0 : ((shifts[i] % n) + n) % n;
    if (s == 0) {
      out.copy_(cur);
    } else {
      out.narrow(d, s, n - s).copy_(cur.narrow(d, 0, n - s));
      out.narrow(d, 0, s).copy_(cur.narrow(d, n - s, s));
    }
    cur = out;
  }
  return cur;
}

// tril/triu: the engine's triangle copy (rs_triangle: any dtype, as bits)
template <class Meta, class Op>
Tensor& triangle_out(const Tensor& self, int64_t diagonal, Tensor& out, bool lower) {
  OutOps<Meta> m(out);
  m.meta(self, diagonal);
  const auto dt = self.scalar_type();
  refuse_unless(!c10::isFloat8Type(dt) && dt != at::kUInt16 && dt != at::kUInt32 && dt != at::kUInt64 &&
                    dt != at::ScalarType::Float4_e2m1fn_x2,
                lower ? "tril" : "triu", dt);  // CPU's and CUDA's dispatch
  if (out.numel() == 0) return out;
  const Tensor src = resolved(self);
  rs_tensor ts = describe(src), to = describe(out);
  check(rs_triangle(current_stream_for(out), &ts, lower, diagonal, 0, &to));
  return out;
}

Tensor& tril_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle_out<at::meta::structured_tril, at::_ops::tril_out>(self, diagonal, out, true);
}
Tensor& triu_out(const Tensor& self, int64_t diagonal, Tensor& out) {
  return triangle_out<at::meta::structured_triu, at::_ops::triu_out>(self, diagonal, out, false);
}

// equal: same sizes and every element == (a bool on the host: one sync)
bool equal(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ",
              self.device(), " and ", other.device());
  // tensors of two dtypes compare by value, as CPU does in this torch (eq
  // promotes them; torch 2.11's CPU refused them)
  if (!self.sizes().equals(other.sizes())) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}

// repeat_interleave(repeats): index i repeated repeats[i] times, as
// searchsorted of 0..total-1 in the inclusive cumulative sum. The total is
// data: without output_size it is read back (one sync, with CPU's check that
// no repeat is negative).
Tensor repeat_interleave_index(const Tensor& repeats, std::optional<int64_t> output_size) {
  return native_or_host<at::_ops::repeat_interleave_Tensor>(
      [&]() -> Tensor {
        TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
        TORCH_CHECK(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
                    "repeats has to be Long or Int tensor");
        if (repeats.size(0) == 0) return at::empty({0}, repeats.options());
        Tensor csum = repeats.cumsum(0, repeats.scalar_type());
        int64_t total;
        if (output_size.has_value()) {
          total = *output_size;
        } else {
          Tensor both = at::stack({csum[-1].to(at::kLong), repeats.min().to(at::kLong)}).cpu();
          TORCH_CHECK(both[1].item<int64_t>() >= 0, "repeats can not be negative");
          total = both[0].item<int64_t>();
        }
        Tensor pos = at::arange(total, repeats.options());
        return at::searchsorted(csum, pos, repeats.scalar_type() == at::kInt, /*right=*/true);
      },
      repeats, output_size);
}

// channel_shuffle: (N, g, C/g, *) transposed to (N, C/g, g, *), copied
Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  return native_or_host<at::_ops::channel_shuffle>(
      [&]() -> Tensor {
        TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with ",
                    "sizes ", self.sizes());
        TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
        int64_t c = self.size(1);
        TORCH_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ",
                    groups, " groups.");
        std::vector<int64_t> shape{self.size(0), groups, c / groups};
        shape.insert(shape.end(), self.sizes().begin() + 2, self.sizes().end());
        return self.reshape(shape).transpose(1, 2).reshape(self.sizes()).contiguous(self.suggest_memory_format());
      },
      self, groups);
}

// narrow_copy.out: a copy of the narrow view (at::narrow checks the range
// with CPU's messages)
Tensor& narrow_copy_out(const Tensor& self, int64_t dim, int64_t start, int64_t length, Tensor& out) {
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "Expected self.dtype() == output.dtype() to be true, but got ",
              "false.");
  return write_out(out, self.narrow(dim, start, length));
}

// unfold_backward: the gradient of x.unfold(dim, size, step). Element j of
// window i goes back to position i * step + j along dim, summed where the
// windows overlap: an index_add over the windows in order (native,
// deterministic: the index reductions' sorted segments).
Tensor unfold_backward(const Tensor& grad_in, at::IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step) {
  return native_or_host<at::_ops::unfold_backward>(
      [&]() -> Tensor {
        if (input_sizes.empty()) {  // a 0-d input: one window of at most one element
          Tensor out = at::zeros({}, grad_in.options());
          if (grad_in.numel() == 1) out.copy_(grad_in.reshape({}));
          return out;
        }
        int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
        Tensor out = at::zeros(input_sizes, grad_in.options());
        if (grad_in.numel() == 0) return out;
        int64_t nwin = grad_in.size(d);
        // (..., nwin at d, ..., size last) -> (..., nwin * size at d, ...)
        Tensor g = grad_in.movedim(-1, d + 1).flatten(d, d + 1);
        auto lopt = grad_in.options().dtype(at::kLong);
        Tensor idx = at::add(at::mul(at::arange(nwin, lopt), step).unsqueeze(1), at::arange(size, lopt));
        out.index_add_(d, idx.flatten(), g);
        return out;
      },
      grad_in, input_sizes, dim, size, step);
}

// tril_indices / triu_indices: the (row, col) pairs of the lower/upper
// triangle in row-major order. The host knows each row's first column and
// count (O(row) integers, uploaded without a sync); element k's row is a
// searchsorted over the rows' end offsets, its column an offset from the
// row's first one.
Tensor tri_indices(int64_t row, int64_t col, int64_t offset, bool lower, std::optional<at::ScalarType> dtype,
                   std::optional<at::Device> device) {
  at::ScalarType dt = dtype.value_or(at::kLong);
  TORCH_CHECK(dt == at::kLong || dt == at::kInt, "\"", lower ? "tril" : "triu", "_indices\" not implemented for '",
              toString(dt), "'");
  TORCH_CHECK(row >= 0, "row must be non-negative, got", row);
  TORCH_CHECK(col >= 0, "col must be non-negative, got", col);
  auto opts = at::TensorOptions().dtype(at::kLong).device(device.value_or(at::Device(at::kPrivateUse1)));
  std::vector<int64_t> first(row), ends(row);
  int64_t total = 0;
  for (int64_t r = 0; r < row; ++r) {
    int64_t c0 = lower ? 0 : std::clamp<int64_t>(r + offset, 0, col);
    int64_t c1 = lower ? std::clamp<int64_t>(r + offset + 1, 0, col) : col;
    first[r] = c0 - total;  // column of element k in row r: k + first[r]
    total += c1 - c0;
    ends[r] = total;
  }
  if (total == 0) return at::empty({2, 0}, opts.dtype(dt));
  Tensor k = at::arange(total, opts);
  Tensor e = from_host(ends.data(), {row}, at::kLong, k), f = from_host(first.data(), {row}, at::kLong, k);
  Tensor r = at::searchsorted(e, k, /*out_int32=*/false, /*right=*/true);
  Tensor c = at::add(k, at::index_select(f, 0, r));
  return at::stack({r, c}).to(dt);
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<at::ScalarType> dtype,
                    std::optional<at::Layout> layout, std::optional<at::Device> device, std::optional<bool> pin) {
  return tri_indices(row, col, offset, true, dtype, device);
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<at::ScalarType> dtype,
                    std::optional<at::Layout> layout, std::optional<at::Device> device, std::optional<bool> pin) {
  return tri_indices(row, col, offset, false, dtype, device);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("cat.out", cat_out);
  m.impl("repeat_interleave.Tensor", repeat_interleave_index);
  m.impl("channel_shuffle", channel_shuffle);
  m.impl("flip", flip);
  m.impl("roll", roll_dims);
  m.impl("tril.out", tril_out);
  m.impl("triu.out", triu_out);
  m.impl("equal", equal);
  m.impl("narrow_copy.out", narrow_copy_out);
  m.impl("unfold_backward", unfold_backward);
  m.impl("tril_indices", tril_indices);
  m.impl("triu_indices", triu_indices);
}

}  // namespace russet
