// segment_reduce and _segment_reduce_backward (torch.segment_reduce; the .out
// forms are composites), lengths and offsets forms, sum/mean/max/min/prod,
// `initial`, `unsafe`, along axis = lengths.dim() - 1, composed from native
// ops in the rules of ATen's CPU kernels (SegmentReduce.cpp):
//
// - the data as [outer, L, inner]; each outer row's segment bounds B (the
//   offsets, or 0 and the cumulative lengths); the segment of each position
//   j along the axis is searchsorted(B[1:], j, right) (-1 outside
//   [B[0], B[S]]);
// - forward: the output filled with `initial` (else the reduction's
//   identity), then the index reductions (rs_index_reduce_run) fold each
//   segment's elements in increasing position order, each step rounded to
//   the dtype: CPU's loop, bit for bit; mean divides by the length (a
//   segment with no element and no initial is NaN);
// - backward: CPU's per-segment formulas, with gathers of the per-segment
//   values back to the positions.
// A negative segment length raises, as on CPU: through the device error flag
// at the next sync, except for lengths with unsafe=False, which CPU checks
// (and syncs for) before the kernel.
// float64 runs on the host under the apple profile.
#include "torch/pointwise.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReductionType.h>
#include <ATen/ops/_segment_reduce_backward_ops.h>
#include <ATen/ops/all.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/segment_reduce_ops.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <limits>

#include "torch/rows.h"

namespace russet {
namespace {

using at::Tensor;
using at::native::ReductionType;
using OptTensor = std::optional<Tensor>;

bool has(const OptTensor& t) { return t.has_value() && t->defined(); }

void check_dtypes(const Tensor& data, const Tensor& bounds, bool offsets) {
  auto t = data.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(
      t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16,
      "\"_segment_reduce_cpu\" not implemented for '", c10::toString(t), "'");
  auto b = bounds.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(b == at::kInt || b == at::kLong, "\"",
                              offsets ? "_segment_reduce_offsets_cpu_kernel1" : "_segment_reduce_lengths_cpu_kernel1",
                              "\" not implemented for '", c10::toString(b), "'");
  if (t == at::kDouble) host_if_no_fp64(data);
}

// The segments of an [outer, L, inner] problem.
struct Segments {
  int64_t outer = 1, L = 0, inner = 1, S = 0;
  Tensor idx;  // int64 [outer, L, inner] (contiguous): segment of each element, -1 for none
  Tensor len;  // int64 [outer, S, 1]
  std::vector<int64_t> out_sizes;  // data's sizes with S at axis
};

// `bounds` is the lengths (offsets = false) or the offsets tensor, axis its last dim.
Segments segments_of(const Tensor& data, const Tensor& bounds, int64_t axis, bool offsets) {
  Segments g;
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
  auto lopt = data.options().dtype(at::kLong);
  Tensor B;
  if (offsets) {
    B = bounds.reshape({g.outer, g.S + 1}).to(at::kLong);
  } else {
    Tensor l = bounds.reshape({g.outer, g.S}).to(at::kLong);
    B = at::cat({at::zeros({g.outer, 1}, lopt), at::cumsum(l, 1)}, 1);
  }
  Tensor len = B.narrow(1, 1, g.S).sub(B.narrow(1, 0, g.S));
  // CPU raises for a negative length inside its kernel: the device error
  // flag here, reported at the next sync
  Tensor checked = at::empty_like(len);
  if (len.numel() > 0) {
    auto iter = at::TensorIteratorConfig().add_output(checked).add_const_input(len).build();
    run_pointwise(iter, "segment_reduce", RS_PW_SEGMENT_LENGTH);
  }
  g.len = checked.unsqueeze(-1);
  if (g.S == 0 || g.L == 0) {
    g.idx = at::full({g.outer, g.L, g.inner}, -1, lopt);
    return g;
  }
  Tensor pos = at::arange(g.L, lopt).expand({g.outer, g.L});
  Tensor seg = at::searchsorted(B.narrow(1, 1, g.S).contiguous(), pos.contiguous(), /*out_int32=*/false,
                                /*right=*/true);
  Tensor valid = pos.ge(B.narrow(1, 0, 1)).logical_and_(seg.lt(g.S));
  seg = at::where(valid, seg, at::scalar_tensor(-1, lopt));
  g.idx = seg.unsqueeze(-1).expand({g.outer, g.L, g.inner}).contiguous();
  return g;
}

// self[o, idx[o, j, i], i] op= src[o, j, i] over j in order (-1 skipped)
void fold_into(rs_index_reduce_op op, const Tensor& self, const Tensor& idx, const Tensor& src) {
  if (idx.numel() == 0 || self.numel() == 0) return;
  rs_index_reduce p{};
  p.name = "segment_reduce";
  p.op = op;
  p.dim = 1;
  p.shared_index = 0;
  p.include_self = 1;
  p.has_skip = 1;
  p.skip_index = -1;
  p.self = describe(self);
  p.src = describe(src);
  p.index = describe(idx);
  check_or_host(rs_index_reduce_run(current_stream_for(self), &p));
}

at::Scalar identity(ReductionType r) {
  switch (r) {
    case ReductionType::MAX: return -std::numeric_limits<double>::infinity();
    case ReductionType::MIN: return std::numeric_limits<double>::infinity();
    case ReductionType::PROD: return 1;
    default: return 0;
  }
}

// the per-element values of an [outer, S, inner] tensor (0 outside segments)
Tensor spread(const Tensor& per_seg, const Segments& g) {
  if (g.S == 0) return at::zeros({g.outer, g.L, g.inner}, per_seg.options());
  return at::gather(per_seg, 1, g.idx.clamp_min(0));
}

// the number of elements of each segment where `mask` holds, as float
Tensor count_where(const Tensor& mask, const Segments& g) {
  Tensor c = at::zeros({g.outer, g.S, g.inner}, mask.options().dtype(at::kFloat));
  fold_into(RS_IR_SUM, c, g.idx, mask.to(at::kFloat));
  return c;
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
        Segments g = segments_of(data, b, axis, off);
        Tensor x = data.contiguous().view({g.outer, g.L, g.inner});
        Tensor out = at::full({g.outer, g.S, g.inner}, initial.has_value() ? *initial : identity(r), data.options());
        rs_index_reduce_op op = r == ReductionType::MAX    ? RS_IR_AMAX
                                : r == ReductionType::MIN  ? RS_IR_AMIN
                                : r == ReductionType::PROD ? RS_IR_PROD
                                                           : RS_IR_SUM;
        fold_into(op, out, g.idx, x);
        if (r == ReductionType::MEAN) {
          // CPU: sum / length (the length converted to the dtype) where
          // length > 0 and the sum is not NaN; NaN for an empty segment
          // without initial
          Tensor divided = out.div(g.len.to(data.scalar_type()));
          Tensor use = g.len.gt(0).logical_and(out.isnan().logical_not());
          out = at::where(use, divided, out);
          if (!initial.has_value())
            out = at::where(g.len.eq(0), at::scalar_tensor(std::numeric_limits<double>::quiet_NaN(), out.options()),
                            out);
        }
        return out.view(g.out_sizes);
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
        if (grad.scalar_type() == at::kDouble) host_if_no_fp64(grad);
        c10::DeviceGuard guard(data.device());
        Segments g = segments_of(data, b, axis, off);
        auto dt = grad.scalar_type();
        Tensor x = data.contiguous().view({g.outer, g.L, g.inner});
        Tensor gr = grad.contiguous().view({g.outer, g.S, g.inner});
        Tensor o = output.contiguous().view({g.outer, g.S, g.inner});
        Tensor valid = g.idx.ge(0);
        Tensor zero = at::scalar_tensor(0, grad.options());
        Tensor gi;
        if (r == ReductionType::SUM) {
          gi = at::where(valid, spread(gr, g), zero);
        } else if (r == ReductionType::MEAN) {
          gi = at::where(valid, spread(gr.div(g.len.to(dt)), g), zero);
        } else if (r == ReductionType::MAX || r == ReductionType::MIN) {
          // the positions equal to the result (or NaN) share its gradient;
          // where there are several, CPU divides the positive ones by their count
          Tensor hit = valid.logical_and(x.isnan().logical_or_(x.eq(spread(o, g))));
          gi = at::where(hit, spread(gr, g), zero);
          Tensor cnt = spread(count_where(hit, g), g);
          Tensor split = hit.logical_and(cnt.ge(2)).logical_and_(gi.gt(0));
          gi = at::where(split, gi.div(cnt.to(dt)), gi);
        } else {
          // PROD: grad * output / x, or, at a zero or NaN x, grad times the
          // product of the segment's other elements (in order, from initial).
          // That product is the segment's product with the zeros and NaN
          // replaced by 1 when x is the only one; else 0, or NaN when
          // another NaN is among them (CPU's product grows from the left, so
          // an overflow to inf before a zero gives NaN there and 0 here).
          Tensor zn = x.isnan().logical_or_(x.eq(0)).logical_and_(valid);
          Tensor p1 = at::full({g.outer, g.S, g.inner}, initial.has_value() ? *initial : at::Scalar(1), x.options());
          fold_into(RS_IR_PROD, p1, g.idx, at::where(zn, at::scalar_tensor(1, x.options()), x));
          Tensor z = spread(count_where(zn, g), g);
          Tensor nan_others = spread(count_where(x.isnan().logical_and_(valid), g), g)
                                  .sub_(x.isnan().to(at::kFloat));
          double nan = std::numeric_limits<double>::quiet_NaN();
          Tensor others = at::where(z.eq(1), at::scalar_tensor(1, x.options()),
                                    at::where(nan_others.gt(0), at::scalar_tensor(nan, x.options()),
                                              at::scalar_tensor(0, x.options())));
          Tensor excl = spread(p1, g).mul(others);
          Tensor at_zero = spread(gr, g).mul(excl);
          Tensor other = spread(gr.mul(o), g).div(x);
          gi = at::where(valid, at::where(zn, at_zero, other), zero);
        }
        return gi.view(data.sizes());
      },
      grad, output, data, reduce, lengths, offsets, axis, initial);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("segment_reduce", TORCH_FN(segment_reduce));
  m.impl("_segment_reduce_backward", TORCH_FN(segment_reduce_backward));
}

}  // namespace russet
