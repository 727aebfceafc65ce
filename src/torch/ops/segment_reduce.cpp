// segment_reduce and _segment_reduce_backward (torch.segment_reduce; the .out
// forms are composites), lengths and offsets forms, sum/mean/max/min/prod,
// `initial`, `unsafe`, along axis = lengths.dim() - 1: CPU's argument checks
// here, the computation in the C core (rs_segment_reduce_run and its
// backward: CPU's loops, bit for bit). A negative segment length raises, as
// on CPU: through the device error flag at the next sync, except for
// lengths with unsafe=False, which CPU checks (and syncs for) before the
// kernel. float64 runs on the host under the apple profile.
#include "torch/pointwise.h"
#include "russet/segment_reduce.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReductionType.h>
#include <ATen/ops/_segment_reduce_backward_ops.h>
#include <ATen/ops/all.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/segment_reduce_ops.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;
using at::native::ReductionType;
using OptTensor = std::optional<Tensor>;

bool has(const OptTensor& t) { return t.has_value() && t->defined(); }

// Before host execution (float64 under the apple profile) runs CPU's
// kernel: CPU reads the data through the bounds unchecked (offsets, or
// unsafe lengths, past the axis read out of bounds and can crash it), where
// the native kernel never reads past the axis. So on that path a bound
// outside [0, L] raises first, as the native kernels' device checks do.
void check_bounds_on_host(const Tensor& bounds, bool offsets, int64_t L) {
  Tensor b = bounds.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = b.const_data_ptr<int64_t>();
  const int64_t cols = b.dim() == 0 ? 1 : b.size(-1), rows = cols == 0 ? 0 : b.numel() / cols;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t end = 0;
    for (int64_t c = 0; c < cols; ++c) {
      end = offsets ? p[r * cols + c] : end + p[r * cols + c];
      TORCH_CHECK(end >= 0 && end <= L, "russet: segment_reduce: index ", end, " is out of bounds (the axis has ",
                  L, " elements)");
    }
  }
}

void check_dtypes(const Tensor& data, const Tensor& bounds, bool offsets) {
  auto t = data.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(
      t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16,
      "\"_segment_reduce_cpu\" not implemented for '", c10::toString(t), "'");
  auto b = bounds.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(b == at::kInt || b == at::kLong, "\"",
                              offsets ? "_segment_reduce_offsets_cpu_kernel1" : "_segment_reduce_lengths_cpu_kernel1",
                              "\" not implemented for '", c10::toString(b), "'");
}

// The problem as the engine sees it: data (outer, L, inner), bounds
// (outer, S) lengths or (outer, S + 1) offsets.
struct Problem {
  int64_t outer = 1, L = 0, inner = 1, S = 0;
  std::vector<int64_t> out_sizes;  // data's sizes with S at axis
  rs_segment_reduce p{};
};

Problem problem_of(ReductionType r, const Tensor& data, const Tensor& bounds, int64_t axis, bool offsets,
                   const std::optional<at::Scalar>& initial) {
  Problem g;
  for (int64_t d = 0; d < axis; d++) g.outer *= data.size(d);
  for (int64_t d = axis + 1; d < data.dim(); d++) g.inner *= data.size(d);
  g.L = data.size(axis);
  g.S = bounds.size(-1) - (offsets ? 1 : 0);
  TORCH_CHECK(g.S >= 0, "segment_reduce(): offsets should have at least one element");
  // CPU reads `outer` rows of bounds (past their end when there are fewer)
  TORCH_CHECK(bounds.numel() == g.outer * (g.S + (offsets ? 1 : 0)),
              "segment_reduce(): expected lengths/offsets with the sizes of data before axis, but got ",
              bounds.sizes(), " for data of sizes ", data.sizes());
  g.out_sizes = data.sizes().vec();
  g.out_sizes[axis] = g.S;
  g.p.op = r == ReductionType::MAX    ? RS_SEG_MAX
           : r == ReductionType::MIN  ? RS_SEG_MIN
           : r == ReductionType::PROD ? RS_SEG_PROD
           : r == ReductionType::MEAN ? RS_SEG_MEAN
                                      : RS_SEG_SUM;
  g.p.data = describe(data.reshape({g.outer, g.L, g.inner}));
  g.p.bounds = describe(bounds.reshape({g.outer, g.S + (offsets ? 1 : 0)}));
  g.p.offsets = offsets;
  g.p.has_initial = initial.has_value();
  g.p.initial = initial.has_value() ? initial->to<double>() : 0.0;
  return g;
}

Tensor segment_reduce(const Tensor& data, std::string_view reduce, const OptTensor& lengths, const OptTensor& indices,
                      const OptTensor& offsets, int64_t axis, bool unsafe, const std::optional<at::Scalar>& initial) {
  return native_or_host<at::_ops::segment_reduce>(
      [&]() -> Tensor {
        axis = at::maybe_wrap_dim(axis, data.dim());
        TORCH_CHECK(!indices.has_value(), "segment_reduce(): indices based reduction is not supported yet.");
        TORCH_CHECK(lengths.has_value() || offsets.has_value(),
                    "segment_reduce(): Either lengths or offsets must be defined.");
        ReductionType r = at::native::get_reduction_enum(reduce);
        bool off = offsets.has_value();
        const Tensor& b = off ? *offsets : *lengths;
        TORCH_CHECK(data.get_device() == b.get_device());
        TORCH_CHECK(data.dim() >= b.dim());
        TORCH_CHECK(axis == b.dim() - 1, "segment_reduce(): Expected axis to be the last dimension of ",
                    off ? "offsets" : "lengths", " but got ", axis, ".");
        check_dtypes(data, b, off);
        c10::DeviceGuard guard(data.device());
        if (!off && !unsafe) {
          // CPU's checks, with its syncs
          auto min_length = b.min().item<int64_t>();
          TORCH_CHECK((min_length >= 0), "lengths contains negative value!");
          TORCH_CHECK(at::all(b.sum({-1}).eq(data.size(axis))).item<bool>(),
                      "segment_reduce(): Expected all rows of lengths along axis ",
                      "to sum to data.size(lengths.dim()-1) when !unsafe.");
        }
        host_if_no_fp64(data, [&] { check_bounds_on_host(b, off, data.size(axis)); });
        Problem g = problem_of(r, data, b, axis, off, initial);
        Tensor out = at::empty(g.out_sizes, data.options());
        g.p.out = describe(out.view({g.outer, g.S, g.inner}));
        check_or_host(rs_segment_reduce_run(current_stream_for(data), &g.p));
        return out;
      },
      data, reduce, lengths, indices, offsets, axis, unsafe, initial);
}

Tensor segment_reduce_backward(const Tensor& grad, const Tensor& output, const Tensor& data, std::string_view reduce,
                               const OptTensor& lengths, const OptTensor& offsets, int64_t axis,
                               const std::optional<at::Scalar>& initial) {
  return native_or_host<at::_ops::_segment_reduce_backward>(
      [&]() -> Tensor {
        axis = at::maybe_wrap_dim(axis, data.dim());
        bool off = has(offsets);
        TORCH_CHECK(has(lengths) || off, "segment_reduce(): Either lengths or offsets must be defined.");
        ReductionType r = at::native::get_reduction_enum(reduce);
        const Tensor& b = off ? *offsets : *lengths;
        axis = b.dim() - 1;  // as CPU's kernels
        check_dtypes(data, b, off);
        host_if_no_fp64(data, [&] { check_bounds_on_host(b, off, data.size(axis)); });
        if (grad.scalar_type() == at::kDouble) host_if_no_fp64(grad);
        c10::DeviceGuard guard(data.device());
        Problem g = problem_of(r, data, b, axis, off, initial);
        TORCH_CHECK(grad.sizes() == output.sizes() && output.sizes() == at::IntArrayRef(g.out_sizes),
                    "segment_reduce_backward: expected grad and output of sizes ", g.out_sizes, ", but got ",
                    grad.sizes(), " and ", output.sizes());
        TORCH_CHECK(grad.scalar_type() == data.scalar_type() && output.scalar_type() == data.scalar_type(),
                    "segment_reduce_backward: expected grad and output of data's dtype ", data.scalar_type());
        Tensor gi = at::empty(data.sizes(), grad.options());
        g.p.grad = describe(grad.reshape({g.outer, g.S, g.inner}));
        g.p.output = describe(output.reshape({g.outer, g.S, g.inner}));
        g.p.out = describe(gi.view({g.outer, g.L, g.inner}));
        check_or_host(rs_segment_reduce_backward_run(current_stream_for(data), &g.p));
        return gi;
      },
      grad, output, data, reduce, lengths, offsets, axis, initial);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("segment_reduce", TORCH_FN(segment_reduce));
  m.impl("_segment_reduce_backward", TORCH_FN(segment_reduce_backward));
}

}  // namespace russet
