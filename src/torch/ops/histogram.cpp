// torch.histogram and torch.histogramdd (histogram.bins_tensor/.bin_ct and
// their out= forms, _histogramdd_bin_edges, _histogramdd_from_bin_cts,
// _histogramdd_from_bin_tensors; the .out forms of the last three are
// composites of these), in the rules of ATen's CPU kernels (Histogram.cpp,
// cpu/HistogramKernel.cpp): the checks and the edges here, the counts in the
// C core's histogram engine (rs_histogram_run):
//
// - outer edges: `range`, else the per-column min/max of the input (one
//   sync, as CPU's aminmax read), else [0, 1] for an empty input; a
//   non-finite range or min > max raises; an empty range widens by 0.5 on
//   each side. The edges are linspace(left, right, bins + 1) in the dtype.
// - the bin of each coordinate: with given edge tensors, upper_bound - 1
//   (searchsorted, right: CPU's binary search, the same probes); with bin
//   counts, CPU's linear estimate trunc((x - left) * bins / (right - left))
//   in the dtype, corrected by an upper_bound among the edges est-1..est+1
//   (CPU's local search). The right-most edge belongs to the last bin;
//   NaN and values outside [first, last edge] are skipped.
// - counts: exact counts rounded once to the dtype (CPU counts in the dtype
//   per thread, then sums the threads' histograms: the same unless one
//   thread's count in a bin passes 2048 in float16 or 256 in bfloat16), or
//   with weights, sums in input order rounded to the dtype at each step
//   (CPU's order on one thread).
// - density: divided by the total, then by each dimension's bin lengths.
// float64 runs on the host under the apple profile.
#include "torch/pointwise.h"
#include "russet/histogram.h"

#include <ATen/ops/_histogramdd_bin_edges_ops.h>
#include <ATen/ops/_histogramdd_from_bin_cts_ops.h>
#include <ATen/ops/_histogramdd_from_bin_tensors_ops.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/histogram_ops.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/stack.h>
#include <torch/library.h>

#include <cmath>

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using OptRange = std::optional<at::ArrayRef<double>>;

bool has(const OptTensor& t) { return t.has_value() && t->defined(); }

// Native dtypes; float64 (no fp64 on the device) goes to the host. Other
// dtypes raise CPU's dispatch error.
void check_dtype(const Tensor& self, bool kernel_only) {
  auto t = self.scalar_type();
  if (t == at::kDouble) {
    host_if_no_fp64(self);
    return;
  }
  // CPU's edge selection dispatches float/double only; its kernel also half/bfloat16
  bool ok = t == at::kFloat || (kernel_only && (t == at::kHalf || t == at::kBFloat16));
  TORCH_CHECK_NOT_IMPLEMENTED(ok, kernel_only ? "\"histogram_cpu\"" : "\"histogramdd\"", " not implemented for '",
                              c10::toString(t), "'");
}

// histogramdd_check_inputs
void check_inputs(const Tensor& input, at::TensorList bins, const OptTensor& weight) {
  TORCH_CHECK(input.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions, but got ",
              input.dim());
  const int64_t N = input.size(-1);
  TORCH_CHECK(static_cast<int64_t>(bins.size()) == N, "torch.histogramdd: expected ", N,
              " sequences of bin edges for a ", N, "-dimensional histogram but got ", bins.size());
  for (int64_t dim = 0; dim < N; dim++) {
    const Tensor& b = bins[dim];
    TORCH_CHECK(input.dtype() == b.dtype(), "torch.histogramdd: input tensor and bins tensors should",
                " have the same dtype, but got input with dtype ", input.dtype(), " and bins for dimension ", dim,
                " with dtype ", b.dtype());
    TORCH_CHECK(b.dim() == 1, "torch.histogramdd: bins tensor should have one dimension,", " but got ", b.dim(),
                " dimensions in the bins tensor for dimension ", dim);
    TORCH_CHECK(b.numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element,", " but got ",
                b.numel(), " elements in the bins tensor for dimension ", dim);
  }
  if (has(weight)) {
    TORCH_CHECK(input.dtype() == weight->dtype(), "torch.histogramdd: if weight tensor is provided,",
                " input tensor and weight tensor should have the same dtype, but got input(", input.dtype(), ")",
                ", and weight(", weight->dtype(), ")");
    auto in_sizes = input.sizes().vec();
    in_sizes.pop_back();
    auto w_sizes = weight->sizes().vec();
    if (w_sizes.empty()) w_sizes.push_back(1);  // (not = {1}: GCC 12 warns falsely there)
    TORCH_CHECK(in_sizes == w_sizes, "torch.histogramdd: if weight tensor is provided it should have",
                " the same shape as the input tensor excluding its innermost dimension, but got input with shape ",
                input.sizes(), " and weight with shape ", weight->sizes());
  }
}

// histogramdd_prepare_out: checks the outputs' dtypes and the bin counts,
// resizes them
void prepare_out(const Tensor& input, const std::vector<int64_t>& bin_ct, const Tensor& hist,
                 at::TensorList bin_edges) {
  TORCH_CHECK(input.dtype() == hist.dtype(), "torch.histogram: input tensor and hist tensor should",
              " have the same dtype, but got input ", input.dtype(), " and hist ", hist.dtype());
  for (size_t dim = 0; dim < bin_ct.size(); dim++) {
    TORCH_CHECK(input.dtype() == bin_edges[dim].dtype(), "torch.histogram: input tensor and bin_edges tensor should",
                " have the same dtype, but got input ", input.dtype(), " and bin_edges ", bin_edges[dim].dtype(),
                " for dimension ", dim);
    TORCH_CHECK(bin_ct[dim] > 0, "torch.histogram(): bins must be > 0, but got ", bin_ct[dim], " for dimension ",
                dim);
    at::native::resize_output(bin_edges[dim], bin_ct[dim] + 1);
  }
  at::native::resize_output(hist, bin_ct);
}

std::vector<int64_t> counts_of(at::TensorList bins) {
  std::vector<int64_t> c;
  for (const Tensor& b : bins) c.push_back(b.numel() - 1);
  return c;
}

// select_outer_bin_edges, for input of shape (M, N)
std::pair<std::vector<double>, std::vector<double>> outer_edges(const Tensor& input, OptRange range) {
  const int64_t N = input.size(-1);
  std::vector<double> lo(N, 0.), hi(N, 1.);
  if (range.has_value()) {
    TORCH_CHECK(static_cast<int64_t>(range->size()) == 2 * N, "torch.histogramdd: for a ", N,
                "-dimensional histogram", " range should have ", 2 * N, " elements, but got ", range->size());
    for (int64_t d = 0; d < N; d++) {
      lo[d] = (*range)[2 * d];
      hi[d] = (*range)[2 * d + 1];
    }
  } else if (input.numel() > 0) {
    check_dtype(input, /*kernel_only=*/false);
    auto [mn, mx] = at::aminmax(input, 0);
    // one sync: the edges are host numbers, as on CPU
    Tensor both = at::stack({mn, mx});
    Tensor h = both.to(at::kCPU, at::kDouble);
    auto a = h.accessor<double, 2>();
    for (int64_t d = 0; d < N; d++) {
      lo[d] = a[0][d];
      hi[d] = a[1][d];
    }
  }
  for (int64_t d = 0; d < N; d++) {
    TORCH_CHECK(std::isfinite(lo[d]) && std::isfinite(hi[d]), "torch.histogramdd: dimension ", d, "'s range [",
                lo[d], ", ", hi[d], "] is not finite");
    TORCH_CHECK(lo[d] <= hi[d], "torch.histogramdd: min should not exceed max, but got", " min ", lo[d], " max ",
                hi[d], " for dimension ", d);
    if (lo[d] == hi[d]) {
      lo[d] -= 0.5;
      hi[d] += 0.5;
    }
  }
  return {lo, hi};
}

// The histogram of the (M, N) input over the N edge tensors into hist
// (its shape: the bin counts): one call of the C core's histogram engine
// (rs_histogram_run, russet/histogram.h: CPU's histogramdd_out_cpu_template).
void fill_hist(const Tensor& input, const OptTensor& weight, bool density, const Tensor& hist,
               const std::vector<Tensor>& edges, bool linear) {
  const int64_t N = input.size(-1);
  const int64_t M = N == 0 ? 0 : input.numel() / N;
  Tensor h = hist.is_contiguous() ? hist : at::empty(hist.sizes(), hist.options());
  std::vector<rs_tensor> e;
  for (const Tensor& t : edges) e.push_back(describe(t));
  Tensor w = has(weight) ? weight->reshape({M}).contiguous() : Tensor();
  rs_histogram p{};
  p.input = describe(input.reshape({M, N}));
  p.n_edges = static_cast<int>(N);
  p.edges = e.data();
  p.linear = linear;
  if (w.defined()) p.weight = describe(w);
  p.density = density;
  p.hist = describe(h.view({h.numel()}));
  check_or_host(rs_histogram_run(current_stream_for(input), &p));
  if (!h.is_same(hist)) hist.copy_(h);
}

std::vector<Tensor> new_edges(const Tensor& self) {
  TORCH_CHECK(self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions");
  std::vector<Tensor> v;
  for (int64_t d = 0; d < self.size(-1); d++) v.push_back(at::empty({0}, self.options()));
  return v;
}

Tensor as_2d(const Tensor& self) {
  const int64_t N = self.size(-1);
  int64_t M = 1;
  for (int64_t d = 0; d + 1 < self.dim(); d++) M *= self.size(d);
  return self.reshape({M, N});
}

// linspace edges of every dimension (histogramdd_bin_edges_out)
std::vector<Tensor> linspace_edges(const Tensor& self, at::IntArrayRef bin_ct, OptRange range) {
  std::vector<Tensor> out = new_edges(self);
  const int64_t N = self.size(-1);
  auto [lo, hi] = outer_edges(as_2d(self), range);
  TORCH_CHECK(N == static_cast<int64_t>(bin_ct.size()),
              "histogramdd: The size of bins must be equal to the innermost dimension of the input.");
  for (int64_t d = 0; d < N; d++) at::linspace_out(out[d], lo[d], hi[d], bin_ct[d] + 1);
  return out;
}

// ---------------------------------------------------------------- registrations

std::tuple<Tensor&, Tensor&> histogram_bins_out(const Tensor& self, const Tensor& bins, const OptTensor& weight,
                                                bool density, Tensor& hist, Tensor& bin_edges) {
  return native_or_host<at::_ops::histogram_bins_tensor_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        check_dtype(self, /*kernel_only=*/true);
        c10::DeviceGuard guard(self.device());
        Tensor x = self.reshape({self.numel(), 1});
        OptTensor w = has(weight) ? OptTensor(weight->reshape({weight->numel()})) : OptTensor();
        check_inputs(x, bins, w);
        prepare_out(x, counts_of(bins), hist, bin_edges);
        bin_edges.copy_(bins);
        fill_hist(x, w, density, hist, {bin_edges}, /*linear=*/false);
        return std::forward_as_tuple(hist, bin_edges);
      },
      self, bins, weight, density, hist, bin_edges);
}

std::tuple<Tensor, Tensor> histogram_bins(const Tensor& self, const Tensor& bins, const OptTensor& weight,
                                          bool density) {
  Tensor hist = at::empty({0}, self.options());
  Tensor edges = at::empty({0}, bins.options());
  histogram_bins_out(self, bins, weight, density, hist, edges);
  return {hist, edges};
}

std::tuple<Tensor&, Tensor&> histogram_ct_out(const Tensor& self, int64_t bin_ct, OptRange range,
                                              const OptTensor& weight, bool density, Tensor& hist,
                                              Tensor& bin_edges) {
  return native_or_host<at::_ops::histogram_bin_ct_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        check_dtype(self, /*kernel_only=*/true);
        c10::DeviceGuard guard(self.device());
        Tensor x = self.reshape({self.numel(), 1});
        OptTensor w = has(weight) ? OptTensor(weight->reshape({weight->numel()})) : OptTensor();
        prepare_out(x, {bin_ct}, hist, {bin_edges});
        auto [lo, hi] = outer_edges(x, range);
        at::linspace_out(bin_edges, lo[0], hi[0], bin_ct + 1);
        check_inputs(x, {bin_edges}, w);
        fill_hist(x, w, density, hist, {bin_edges}, /*linear=*/true);
        return std::forward_as_tuple(hist, bin_edges);
      },
      self, bin_ct, range, weight, density, hist, bin_edges);
}

std::tuple<Tensor, Tensor> histogram_ct(const Tensor& self, int64_t bin_ct, OptRange range,
                                        const OptTensor& weight, bool density) {
  Tensor hist = at::empty({0}, self.options());
  Tensor edges = at::empty({0}, self.options());
  histogram_ct_out(self, bin_ct, range, weight, density, hist, edges);
  return {hist, edges};
}

std::vector<Tensor> histogramdd_bin_edges(const Tensor& self, at::IntArrayRef bin_ct, OptRange range,
                                          const OptTensor& weight, bool density) {
  return native_or_host<at::_ops::_histogramdd_bin_edges>(
      [&]() -> std::vector<Tensor> {
        check_dtype(self, /*kernel_only=*/true);
        c10::DeviceGuard guard(self.device());
        return linspace_edges(self, bin_ct, range);
      },
      self, bin_ct, range, weight, density);
}

Tensor histogramdd_from_bin_cts(const Tensor& self, at::IntArrayRef bin_ct, OptRange range, const OptTensor& weight,
                                bool density) {
  return native_or_host<at::_ops::_histogramdd_from_bin_cts>(
      [&]() -> Tensor {
        check_dtype(self, /*kernel_only=*/true);
        c10::DeviceGuard guard(self.device());
        Tensor hist = at::empty({0}, self.options());
        std::vector<Tensor> bins = linspace_edges(self, bin_ct, range);
        check_inputs(self, bins, weight);
        std::vector<Tensor> outs = new_edges(self);
        prepare_out(self, counts_of(bins), hist, outs);
        fill_hist(self, weight, density, hist, bins, /*linear=*/true);
        return hist;
      },
      self, bin_ct, range, weight, density);
}

Tensor histogramdd_from_bin_tensors(const Tensor& self, at::TensorList bins, const OptTensor& weight, bool density) {
  return native_or_host<at::_ops::_histogramdd_from_bin_tensors>(
      [&]() -> Tensor {
        check_dtype(self, /*kernel_only=*/true);
        c10::DeviceGuard guard(self.device());
        Tensor hist = at::empty({0}, self.options());
        std::vector<Tensor> outs = new_edges(self);
        check_inputs(self, bins, weight);
        prepare_out(self, counts_of(bins), hist, outs);
        std::vector<Tensor> edges;
        for (int64_t d = 0; d < static_cast<int64_t>(bins.size()); d++) {
          outs[d].copy_(bins[d]);
          edges.push_back(outs[d]);
        }
        fill_hist(self, weight, density, hist, edges, /*linear=*/false);
        return hist;
      },
      self, bins, weight, density);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("histogram.bins_tensor", TORCH_FN(histogram_bins));
  m.impl("histogram.bins_tensor_out", TORCH_FN(histogram_bins_out));
  m.impl("histogram.bin_ct", TORCH_FN(histogram_ct));
  m.impl("histogram.bin_ct_out", TORCH_FN(histogram_ct_out));
  m.impl("_histogramdd_bin_edges", TORCH_FN(histogramdd_bin_edges));
  m.impl("_histogramdd_from_bin_cts", TORCH_FN(histogramdd_from_bin_cts));
  m.impl("_histogramdd_from_bin_tensors", TORCH_FN(histogramdd_from_bin_tensors));
}

}  // namespace russet
