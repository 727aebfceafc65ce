// Searching and selection (src/engine/select.c): searchsorted, bucketize,
// nonzero (argwhere and where(cond) are ATen composites of it),
// masked_select, unique/unique_consecutive, with a dim too (a sort, run starts, and
// their count), bincount and histc (atomic counts), and isin (a sort and a
// searchsorted). nonzero, masked_select,
// unique and bincount sync once, to learn their size (histc too when it
// takes its range from the data, as CPU).
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ScalarOps.h>
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_unique2_ops.h>
#include <ATen/ops/_unique_ops.h>
#include <ATen/ops/bincount_ops.h>
#include <ATen/ops/bucketize_ops.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/histc_ops.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/isin_meta.h>
#include <ATen/ops/isin_ops.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/unique_consecutive_ops.h>
#include <ATen/ops/unique_dim_consecutive_ops.h>
#include <ATen/ops/unique_dim_ops.h>
#include <ATen/ops/masked_select_ops.h>
#include <ATen/ops/nonzero_ops.h>
#include <ATen/ops/searchsorted_ops.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "torch/rows.h"
#include "torch/dtype_refusal.h"
#include "russet/index_reduce.h"
#include "russet/scan_sort.h"

namespace russet {
namespace {

using at::Tensor;

// ---------------------------------------------------------------- searchsorted

Tensor& searchsorted_out(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<std::string_view> side_opt, const std::optional<Tensor>& sorter_opt,
                         Tensor& result) {
  return native_or_host<at::_ops::searchsorted_Tensor_out>(
      [&]() -> Tensor& {
        Tensor sorter = sorter_opt.has_value() ? *sorter_opt : Tensor();
        at::native::searchsorted_pre_check(sorted_sequence, self, result, out_int32, right, side_opt, sorter);
        at::native::resize_output(result, self.sizes());
        bool is_right = side_opt ? *side_opt == "right" : right;
        if (self.numel() == 0) return result;
        Tensor input = self, boundaries = sorted_sequence, srt = sorter;
        if (self.scalar_type() != sorted_sequence.scalar_type()) {
          Tensor ti, tb, ts;
          at::native::searchsorted_maybe_trim_input_tensors(ti, tb, ts, self, sorted_sequence, sorter);
          if (ti.defined()) input = ti;
          if (tb.defined()) boundaries = tb;
        }
        refuse_unless(input.scalar_type() != at::kBool && !input.is_complex(), "searchsorted_out_cpu",
                      input.scalar_type());
        if (input.is_cpu()) input = input.to(self.device());  // a wrapped scalar
        input = input.contiguous();
        boundaries = boundaries.contiguous();
        if (srt.defined()) srt = srt.contiguous();
        c10::DeviceGuard guard(sorted_sequence.device());
        Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
        // a 0-dim boundaries/values tensor is one row
        Tensor b1 = boundaries.dim() == 0 ? boundaries.reshape({1}) : boundaries;
        Tensor i1 = input.dim() == 0 ? input.reshape({1}) : input;
        Tensor o1 = out.dim() == 0 ? out.reshape({1}) : out;
        rs_tensor db = describe(b1), dv = describe(i1), dout = describe(o1), ds{};
        if (srt.defined()) ds = describe(srt.dim() == 0 ? srt.reshape({1}) : srt);
        check_or_host(rs_searchsorted(current_stream_for(sorted_sequence), &db, &dv, srt.defined() ? &ds : nullptr,
                                      is_right ? 1 : 0, &dout));
        if (!out.is_same(result)) result.copy_(out);
        return result;
      },
      sorted_sequence, self, out_int32, right, side_opt, sorter_opt, result);
}

Tensor searchsorted_t(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  Tensor result = at::empty({0}, self.options().dtype(out_int32 ? at::kInt : at::kLong).device(sorted_sequence.device()));
  searchsorted_out(sorted_sequence, self, out_int32, right, side, sorter, result);
  return result;
}

Tensor& searchsorted_scalar_out(const Tensor& sorted_sequence, const at::Scalar& self, bool out_int32, bool right,
                                std::optional<std::string_view> side, const std::optional<Tensor>& sorter,
                                Tensor& result) {
  Tensor t = at::native::searchsorted_scalar_tensor(self, sorted_sequence.device());
  return searchsorted_out(sorted_sequence, t, out_int32, right, side, sorter, result);
}
Tensor searchsorted_scalar(const Tensor& sorted_sequence, const at::Scalar& self, bool out_int32, bool right,
                           std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  Tensor t = at::native::searchsorted_scalar_tensor(self, sorted_sequence.device());
  return searchsorted_t(sorted_sequence, t, out_int32, right, side, sorter);
}

Tensor& bucketize_out(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, Tensor& result) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted_out(boundaries, self, out_int32, right, std::nullopt, std::nullopt, result);
}
Tensor bucketize_t(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  Tensor result = at::empty({0}, boundaries.options().dtype(out_int32 ? at::kInt : at::kLong));
  return bucketize_out(self, boundaries, out_int32, right, result);
}
Tensor bucketize_scalar(const at::Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize_t(at::native::searchsorted_scalar_tensor(self, boundaries.device()), boundaries, out_int32, right);
}

// ---------------------------------------------------------------- isin

// Whether `elements` are in `test`: the (promoted) test elements sorted, each
// element's first position not below it (searchsorted), and the value
// there compared with ==, the equality of CPU's loop (NaN is never in,
// -0 is 0). Through the host where the common dtype needs fp64.
void isin_into(const Tensor& elements, const Tensor& test, bool invert, const Tensor& out) {
  at::ScalarType common = at::result_type(elements, test);
  if (rs_dtype_needs_fp64(static_cast<rs_dtype>(common)) && !rs_device_features(device(out.device().index()))->has_fp64)
    throw NeedsHost{};
  if (out.numel() == 0) return;
  Tensor e = elements.to(out.device(), common);
  Tensor t = test.to(common).reshape({-1});
  if (t.numel() == 0) {
    out.fill_(invert);
    return;
  }
  Tensor sorted = std::get<0>(t.sort());
  Tensor idx = at::searchsorted(sorted, e.reshape({-1})).clamp_max_(t.numel() - 1);
  Tensor found = at::index_select(sorted, 0, idx).view(e.sizes());
  if (invert) at::ne_out(const_cast<Tensor&>(out), found, e);
  else at::eq_out(const_cast<Tensor&>(out), found, e);
}

Tensor& isin_tt_out(const Tensor& elements, const Tensor& test, bool assume_unique, bool invert, Tensor& out) {
  return native_or_host<at::_ops::isin_Tensor_Tensor_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_isin_Tensor_Tensor> m(out);
        m.meta(elements, test, assume_unique, invert);
        isin_into(elements, test, invert, out);
        return out;
      },
      elements, test, assume_unique, invert, out);
}

Tensor& isin_ts_out(const Tensor& elements, const at::Scalar& test, bool assume_unique, bool invert, Tensor& out) {
  return native_or_host<at::_ops::isin_Tensor_Scalar_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_isin_Tensor_Scalar> m(out);
        m.meta(elements, test, assume_unique, invert);
        // ATen: eq / ne against the scalar
        if (invert) at::ne_out(out, elements, test);
        else at::eq_out(out, elements, test);
        return out;
      },
      elements, test, assume_unique, invert, out);
}

Tensor& isin_st_out(const at::Scalar& element, const Tensor& test, bool assume_unique, bool invert, Tensor& out) {
  return native_or_host<at::_ops::isin_Scalar_Tensor_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_isin_Scalar_Tensor> m(out);
        m.meta(element, test, assume_unique, invert);
        // ATen: the Tensor_Tensor form with the wrapped number (it sizes out)
        return isin_tt_out(at::native::wrapped_scalar_tensor(element, test.device()), test, assume_unique, invert,
                           out);
      },
      element, test, assume_unique, invert, out);
}

// ---------------------------------------------------------------- nonzero, masked_select

Tensor& nonzero_out(const Tensor& self, Tensor& result) {
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(),
              "nonzero is not supported for tensors with more than INT_MAX elements, "
              "See https://github.com/pytorch/pytorch/issues/51871");
  TORCH_CHECK(result.scalar_type() == at::kLong, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
              result.scalar_type());
  TORCH_CHECK(self.device() == result.device(), "expected self and result to be on the same device, but got ",
              self.device(), " and ", result.device());
  c10::DeviceGuard guard(self.device());
  Tensor x = self.contiguous();
  rs_tensor dx = describe(x);
  rs_stream* s = current_stream_for(self);
  uint64_t offsets = 0;
  int64_t count = 0;
  check(rs_nonzero_count(s, &dx, &offsets, &count));
  try {
    // a result that had to be resized gets CPU's and CUDA's layout: the
    // transpose of a contiguous (dim, count) matrix; an `out` of the right
    // shape keeps its strides
    if (at::native::resize_output(result, {count, self.dim()}))
      result.as_strided_({count, self.dim()}, {1, count});
    Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
    rs_tensor dc = describe(out);
    rs_status st = rs_nonzero_write(s, &dx, offsets, count > 0 ? &dc : nullptr, nullptr, nullptr);
    offsets = 0;
    check(st);
    if (!out.is_same(result)) result.copy_(out);
  } catch (...) {
    if (offsets) rs_nonzero_write(s, &dx, offsets, nullptr, nullptr, nullptr);
    throw;
  }
  return result;
}
Tensor nonzero(const Tensor& self) {
  Tensor result = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_out(self, result);
}

// nonzero_static: the first `size` rows of nonzero, padded with
// fill_value; no sync (the count stays on the device).
Tensor& nonzero_static_out(const Tensor& self, int64_t size, int64_t fill_value, Tensor& result) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  TORCH_CHECK(result.scalar_type() == at::kLong, "nonzero_static: Expected out tensor to have scalar type Long but got ",
              "scalar type", result.scalar_type());
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(),
              "nonzero_static is not supported for tensors with more than INT_MAX elements");
  at::native::resize_output(result, {size, self.dim()});
  if (result.numel() == 0) return result;
  c10::DeviceGuard guard(self.device());
  Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  out.fill_(fill_value);
  Tensor x = self.contiguous();
  rs_tensor dx = describe(x), dc = describe(out);
  rs_stream* s = current_stream_for(self);
  uint64_t offsets = 0;
  check(rs_nonzero_count(s, &dx, &offsets, nullptr));
  check(rs_nonzero_write_max(s, &dx, offsets, size, &dc, nullptr, nullptr));
  if (!out.is_same(result)) result.copy_(out);
  return result;
}
Tensor nonzero_static(const Tensor& self, int64_t size, int64_t fill_value) {
  Tensor result = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_static_out(self, size, fill_value, result);
}

Tensor& masked_select_out(const Tensor& self, const Tensor& mask, Tensor& result) {
  TORCH_CHECK(mask.scalar_type() == at::ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  TORCH_CHECK(self.scalar_type() == result.scalar_type(),
              "masked_select(): self and result must have the same scalar type");
  at::assert_no_internal_overlap(result);
  at::assert_no_overlap(result, self);
  at::assert_no_overlap(result, mask);
  auto [m_, s_] = at::expand_outplace(mask, self);
  c10::DeviceGuard guard(self.device());
  Tensor m = m_->contiguous(), v = s_->contiguous();
  rs_tensor dm = describe(m);
  rs_stream* s = current_stream_for(self);
  uint64_t offsets = 0;
  int64_t count = 0;
  check(rs_nonzero_count(s, &dm, &offsets, &count));
  try {
    at::native::resize_output(result, {count});
    Tensor out = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
    // values are copied as bytes: the masked view of any dtype
    rs_tensor dvf = describe(v.reshape({-1})), dout = describe(out);
    rs_status st = rs_nonzero_write(s, &dm, offsets, nullptr, count > 0 ? &dvf : nullptr, count > 0 ? &dout : nullptr);
    offsets = 0;
    check(st);
    if (!out.is_same(result)) result.copy_(out);
  } catch (...) {
    if (offsets) rs_nonzero_write(s, &dm, offsets, nullptr, nullptr, nullptr);
    throw;
  }
  return result;
}
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  Tensor result = at::empty({0}, self.options());
  return masked_select_out(self, mask, result);
}

// ---------------------------------------------------------------- unique

// unique of the flattened tensor (rs_unique: the first element of each run
// of equal values after a stable sort, or of the consecutive runs; each
// element's run; the runs' lengths), as CPU's sorted template: NaNs are
// never equal. One sync: the number of runs.
std::tuple<Tensor, Tensor, Tensor> unique_flat(const Tensor& self, bool sort, bool return_inverse,
                                               bool return_counts) {
  c10::DeviceGuard guard(self.device());
  rs_stream* s = current_stream_for(self);
  auto lopt = self.options().dtype(at::kLong);
  Tensor inverse = return_inverse ? at::empty(self.sizes(), lopt) : at::empty({0}, lopt);
  if (self.numel() == 0) return {at::empty({0}, self.options()), inverse, at::empty({0}, lopt)};
  Tensor x = self.reshape({-1}).contiguous();
  rs_tensor dx = describe(x);
  rs_unique u{};
  check_or_host(rs_unique_count(s, &dx, sort, &u));
  Tensor values = at::empty({u.count}, self.options()), counts = at::empty({return_counts ? u.count : 0}, lopt);
  rs_tensor dv = describe(values), di = describe(inverse.view({-1})), dc = describe(counts);
  check(rs_unique_write(s, &u, &dv, return_inverse ? &di : nullptr, return_counts ? &dc : nullptr));
  return {values, inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  return native_or_host<at::_ops::_unique2>(
      [&]() { return unique_flat(self, /*sort=*/true, return_inverse, return_counts); }, self, sorted,
      return_inverse, return_counts);
}

std::tuple<Tensor, Tensor> unique_(const Tensor& self, bool sorted, bool return_inverse) {
  return native_or_host<at::_ops::_unique>(
      [&]() -> std::tuple<Tensor, Tensor> {
        auto [v, i, c] = unique_flat(self, true, return_inverse, false);
        return {v, i};
      },
      self, sorted, return_inverse);
}

// unique with a dim: the slices along `dim` are the rows of the tensor with
// dim moved first and the rest flattened (rs_unique_rows: sorted
// lexicographically as CPU's unique_dim, or consecutive runs). The values
// come back as CPU's: rows in the moved layout, viewed with dim moved back.
// inverse and counts are always computed, as CPU's are. One sync.
std::tuple<Tensor, Tensor, Tensor> unique_rows(const Tensor& self, int64_t dim, bool sort) {
  c10::DeviceGuard guard(self.device());
  if (self.dim() == 0 || self.is_complex()) throw NeedsHost();  // CPU's IndexError / NotImplementedError
  dim = at::maybe_wrap_dim(dim, self.dim());
  host_if_no_fp64(self);
  auto lopt = self.options().dtype(at::kLong);
  const auto zeros = std::count(self.sizes().begin(), self.sizes().end(), 0);
  if (self.size(dim) == 0) {
    TORCH_CHECK(zeros == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {at::empty(self.sizes(), self.options()), at::empty({0}, lopt), at::empty({0}, lopt)};
  }
  TORCH_CHECK(zeros == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  rs_stream* s = current_stream_for(self);
  const Tensor moved = self.movedim(dim, 0);
  const int64_t n = moved.size(0);
  const Tensor rows = moved.contiguous().view({n, -1});
  const rs_tensor dr = describe(rows);
  rs_unique u{};
  check_or_host(rs_unique_rows_count(s, &dr, sort, &u));
  std::vector<int64_t> sizes(moved.sizes().begin(), moved.sizes().end());
  sizes[0] = u.count;
  Tensor values = at::empty(sizes, self.options()), inverse = at::empty({n}, lopt), counts = at::empty({u.count}, lopt);
  const rs_tensor dv = describe(values.view({u.count, rows.size(1)})), di = describe(inverse), dc = describe(counts);
  check(rs_unique_rows_write(s, &u, &dv, &di, &dc));
  return {values.movedim(0, dim), inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_kernel(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  return native_or_host<at::_ops::unique_dim>([&]() { return unique_rows(self, dim, /*sort=*/true); }, self, dim,
                                              sorted, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive_kernel(const Tensor& self, int64_t dim, bool return_inverse,
                                                          bool return_counts) {
  return native_or_host<at::_ops::unique_dim_consecutive>(
      [&]() { return unique_rows(self, dim, /*sort=*/false); }, self, dim, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  return native_or_host<at::_ops::unique_consecutive>(
      [&]() {
        // with a dim (but a 1-d tensor's dim 0, the flat form) CPU goes
        // through unique_dim_consecutive, and so does russet
        if (dim.has_value() && !(self.dim() == 1 && at::maybe_wrap_dim(*dim, 1) == 0))
          return unique_dim_consecutive_kernel(self, *dim, return_inverse, return_counts);
        refuse_unless(!self.is_complex(), "unique", self.scalar_type());
        return unique_flat(self, /*sort=*/false, return_inverse, return_counts);
      },
      self, return_inverse, return_counts, dim);
}

// ---------------------------------------------------------------- bincount, histc

// (min, max) of a russet tensor, read back (one sync), as doubles.
std::pair<double, double> minmax_of(const Tensor& x, rs_stream* s) {
  Tensor c = x.contiguous();
  rs_tensor d = describe(c.reshape({-1}));
  rs_scalar mn{}, mx{};
  check_or_host(rs_minmax(s, &d, &mn, &mx));
  if (at::isFloatingType(x.scalar_type())) return {mn.f, mx.f};
  if (x.scalar_type() == at::kUInt64) return {double(mn.u), double(mx.u)};
  return {double(mn.i), double(mx.i)};
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights_opt, int64_t minlength) {
  return native_or_host<at::_ops::bincount>(
      [&]() -> Tensor {
        Tensor weights = weights_opt.has_value() ? *weights_opt : Tensor();
        TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
        if (!at::isIntegralType(self.scalar_type(), /*includeBool=*/false)) throw NeedsHost();  // CPU's error
        if (self.dim() == 1 && self.numel() == 0) return at::zeros({minlength}, self.options().dtype(at::kLong));
        TORCH_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
        bool has_weights = weights.defined();
        TORCH_CHECK(!has_weights || (weights.dim() == 1 && weights.size(0) == self.size(0)),
                    "weights should be 1-d and have the same length as input");
        c10::DeviceGuard guard(self.device());
        rs_stream* s = current_stream_for(self);
        // CPU sums float32 weights as floats and any other weights as
        // doubles (a float64 result). The sum dtype here: float32, float64
        // where the device computes it, else int64 for integral weights
        // whose every partial sum is an exact double (|w| n < 2^53: the
        // int64 sums, then converted, equal CPU's double sums), else host.
        at::ScalarType sum_t = at::kFloat;
        if (has_weights && weights.scalar_type() != at::kFloat) {
          sum_t = at::kDouble;
          if (!rs_index_reduce_computes(device(self.device().index()), RS_FLOAT64, RS_IR_SUM)) {
            if (!at::isIntegralType(weights.scalar_type(), /*includeBool=*/true)) throw NeedsHost();
            auto [wmn, wmx] = weights.scalar_type() == at::kBool ? std::pair<double, double>{0, 1} : minmax_of(weights, s);
            if (std::max(std::fabs(wmn), std::fabs(wmx)) * double(weights.numel()) >= 9007199254740992.0)
              throw NeedsHost();
            sum_t = at::kLong;
          }
        }
        Tensor x = self.contiguous();
        auto [mn, mx] = minmax_of(x, s);
        TORCH_CHECK(mn >= 0, "bincount only supports 1-d non-negative integral inputs.");
        int64_t nbins = std::max(static_cast<int64_t>(mx) + 1, minlength);
        if (has_weights) {
          // summed in input order into zeros, by the index reductions'
          // sorted segments (deterministic, CPU's order: bit-equal)
          Tensor out = at::zeros({nbins}, self.options().dtype(sum_t));
          Tensor w = weights.to(sum_t);
          rs_index_reduce p{};
          p.name = "bincount";
          p.op = RS_IR_SUM;
          p.shared_index = 1;
          p.include_self = 1;
          p.self = describe(out);
          p.src = describe(w);
          bool i32_64 = x.scalar_type() == at::kInt || x.scalar_type() == at::kLong;
          Tensor xi = i32_64 ? x : x.to(at::kLong);
          p.index = describe(xi);
          check_or_host(rs_index_reduce_run(s, &p));
          return sum_t == at::kLong ? out.to(at::kDouble) : out;
        }
        Tensor out = at::empty({nbins}, self.options().dtype(at::kLong));
        rs_tensor dx = describe(x), dout = describe(out);
        check_or_host(rs_bincount(s, &dx, nullptr, &dout));
        return out;
      },
      self, weights_opt, minlength);
}

Tensor& histc_out(const Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max, Tensor& hist) {
  return native_or_host<at::_ops::histc_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
        TORCH_CHECK(hist.scalar_type() == self.scalar_type(), "torch.histogram: input tensor and hist tensor should",
                    " have the same dtype, but got input ", self.scalar_type(), " and hist ", hist.scalar_type());
        // float16/bfloat16 counts are exact here, rounded once to the
        // dtype; CPU adds them up in the dtype, so its counts stop growing
        // past 2048 (float16) / 256 (bfloat16) per bin
        if (self.scalar_type() != at::kFloat && self.scalar_type() != at::kHalf &&
            self.scalar_type() != at::kBFloat16)
          throw NeedsHost();
        c10::DeviceGuard guard(self.device());
        rs_stream* s = current_stream_for(self);
        at::native::resize_output(hist, {bins});
        double lo = min.to<double>(), hi = max.to<double>();
        if (lo == hi && self.numel() > 0) std::tie(lo, hi) = minmax_of(self, s);
        if (lo == hi) {
          // CPU's bins_edges_correction: for float32, at least one float
          // step out (+-1 rounds back to the value past 2^24)
          if (self.scalar_type() == at::kFloat) {
            lo = std::min(static_cast<double>(std::nextafter(static_cast<float>(lo), std::numeric_limits<float>::lowest())),
                          lo - 1.);
            hi = std::max(static_cast<double>(std::nextafter(static_cast<float>(hi), std::numeric_limits<float>::max())),
                          hi + 1.);
          } else {
            lo -= 1;
            hi += 1;
          }
        }
        TORCH_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)), "torch.histc: range of [",
                    lo, ", ", hi, "] is not finite");
        TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
        Tensor edges = at::linspace(lo, hi, bins + 1, self.options());
        if (self.numel() == 0) {
          hist.zero_();
          return hist;
        }
        Tensor x = self.reshape({-1}).contiguous();
        Tensor out = hist.is_contiguous() ? hist : at::empty({bins}, hist.options());
        rs_tensor dx = describe(x), de = describe(edges), dout = describe(out);
        check_or_host(rs_histc(s, &dx, &de, &dout));
        if (!out.is_same(hist)) hist.copy_(out);
        return hist;
      },
      self, bins, min, max, hist);
}
Tensor histc(const Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  Tensor hist = at::empty({0}, self.options());
  return histc_out(self, bins, min, max, hist);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("searchsorted.Tensor", TORCH_FN(searchsorted_t));
  m.impl("searchsorted.Tensor_out", TORCH_FN(searchsorted_out));
  m.impl("searchsorted.Scalar", TORCH_FN(searchsorted_scalar));
  m.impl("searchsorted.Scalar_out", TORCH_FN(searchsorted_scalar_out));
  m.impl("bucketize.Tensor", TORCH_FN(bucketize_t));
  m.impl("bucketize.Tensor_out", TORCH_FN(bucketize_out));
  m.impl("bucketize.Scalar", TORCH_FN(bucketize_scalar));
  m.impl("isin.Tensor_Tensor_out", TORCH_FN(isin_tt_out));
  m.impl("isin.Tensor_Scalar_out", TORCH_FN(isin_ts_out));
  m.impl("isin.Scalar_Tensor_out", TORCH_FN(isin_st_out));
  m.impl("nonzero", TORCH_FN(nonzero));
  m.impl("nonzero.out", TORCH_FN(nonzero_out));
  m.impl("nonzero_static", TORCH_FN(nonzero_static));
  m.impl("nonzero_static.out", TORCH_FN(nonzero_static_out));
  m.impl("masked_select", TORCH_FN(masked_select));
  m.impl("masked_select.out", TORCH_FN(masked_select_out));
  m.impl("_unique2", TORCH_FN(unique2));
  m.impl("bincount", TORCH_FN(bincount));
  m.impl("histc", TORCH_FN(histc));
  m.impl("histc.out", TORCH_FN(histc_out));
  m.impl("_unique", TORCH_FN(unique_));
  m.impl("unique_consecutive", TORCH_FN(unique_consecutive));
  m.impl("unique_dim", TORCH_FN(unique_dim_kernel));
  m.impl("unique_dim_consecutive", TORCH_FN(unique_dim_consecutive_kernel));
}

}  // namespace russet
