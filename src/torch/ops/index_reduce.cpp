// Index reductions through the C core's rs_index_reduce_run (reduced in
// CPU's order: deterministic, bit-equal where CPU rounds the same way):
// scatter_add, scatter_reduce, scatter(reduce=), index_add, index_reduce,
// index_copy, embedding_dense_backward, put_, index_put_ (_index_put_impl_)
// and index.Tensor (advanced indexing); and what composes on them and on
// gather/scatter: index_fill_, take, masked_scatter_; embedding_renorm_
// (rs_embedding_renorm).
// What the engine lacks runs through host execution: arithmetic on
// float64/complex128 without fp64 (copies move bits: native), uint16/32/64,
// complex32 other than sums, complex128 with an alpha.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/reduce.h"
#include "torch/scalar_slot.h"
#include "russet/embedding_bag.h"
#include "russet/gather.h"
#include "russet/index_reduce.h"
#include "russet/scan_sort.h"

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorUtils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_index_put_impl_ops.h>
#include <ATen/ops/embedding_dense_backward_ops.h>
#include <ATen/ops/embedding_renorm_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_add_meta.h>
#include <ATen/ops/index_add_ops.h>
#include <ATen/ops/index_copy_meta.h>
#include <ATen/ops/index_copy_ops.h>
#include <ATen/ops/index_fill_ops.h>
#include <ATen/ops/index_ops.h>
#include <ATen/ops/index_reduce_meta.h>
#include <ATen/ops/index_reduce_ops.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/masked_scatter_ops.h>
#include <ATen/ops/put_ops.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/scatter_add_meta.h>
#include <ATen/ops/scatter_add_ops.h>
#include <ATen/ops/scatter_reduce_meta.h>
#include <ATen/ops/scatter_reduce_ops.h>
#include <ATen/ops/take_ops.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/scatter_meta.h>
#include <ATen/ops/scatter_ops.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <string_view>

namespace russet {
namespace {

using at::Tensor;

struct Opts {
  bool shared = false, include_self = true, acc_opmath = false, scale = false;
  std::optional<int64_t> skip;
  const at::Scalar* alpha = nullptr;
};

// Reduces src into `self` (written in place) along dim.
void run_ir(const char* name, rs_index_reduce_op op, const Tensor& self, int64_t dim, const Tensor& index,
            const Tensor& src, const Opts& o) {
  if (index.numel() == 0) return;
  auto one_d = [](const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; };
  rs_index_reduce p{};
  p.name = name;
  p.op = op;
  p.dim = self.dim() == 0 ? 0 : static_cast<int>(at::maybe_wrap_dim(dim, self.dim()));
  p.shared_index = o.shared;
  p.include_self = o.include_self;
  p.acc_opmath = o.acc_opmath;
  p.scale_by_count = o.scale;
  p.has_skip = o.skip.has_value();
  p.skip_index = o.skip.value_or(0);
  if (o.alpha && !(o.alpha->equal(1))) {
    if (self.scalar_type() == at::kComplexDouble) throw NeedsHost{};  // (16 bytes: no slot)
    p.has_alpha = 1;
    p.alpha = scalar_slot(*o.alpha, self.scalar_type());
  }
  Tensor sv = one_d(self), rv = one_d(resolved(src));
  if (op == RS_IR_COPY && self.scalar_type() == at::kComplexDouble) {  // 16 bytes: its two halves
    TORCH_INTERNAL_ASSERT(o.shared);
    sv = at::view_as_real(sv);
    rv = at::view_as_real(rv);
  }
  p.self = describe(sv);
  p.src = describe(rv);
  p.index = describe(o.shared ? index.reshape({-1}) : one_d(index));
  check(rs_index_reduce_run(current_stream_for(self), &p));
}

rs_index_reduce_op op_of(std::string_view reduce) {
  if (reduce == "sum") return RS_IR_SUM;
  if (reduce == "prod") return RS_IR_PROD;
  if (reduce == "mean") return RS_IR_MEAN;
  if (reduce == "amax" || reduce == "max") return RS_IR_AMAX;  // ATen accepts both names
  return RS_IR_AMIN;  // "amin", "min": the meta function rejected anything else
}

// CPU (ScatterGatherKernel) accumulates float16/bfloat16/complex32 scatters
// in float and rounds once; index_add does too on the first or last dim of
// a tensor of 2+ dims (elsewhere each addition rounds to the dtype).
bool index_add_opmath(const Tensor& self, int64_t dim) {
  return self.dim() > 1 && (dim == 0 || dim == self.dim() - 1);
}

Tensor& scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  return native_or_host<at::_ops::scatter_add_out>(
      [&]() -> Tensor& {
        host_unless(rs_index_reduce_computes, self, RS_IR_SUM);
        OutOps<at::meta::structured_scatter_add> m(out);
        m.meta(self, dim, index, src);
        if (!out.is_same(self)) out.copy_(self);
        int64_t d = self.dim() == 0 ? 0 : at::maybe_wrap_dim(dim, self.dim());
        Opts o;
        o.acc_opmath = true;
        run_ir("scatter_add", RS_IR_SUM, out, d, index, src, o);
        return out;
      },
      self, dim, index, src, out);
}

Tensor& scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               std::string_view reduce, bool include_self, Tensor& out) {
  return native_or_host<at::_ops::scatter_reduce_two_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_scatter_reduce_two> m(out);
        m.meta(self, dim, index, src, reduce, include_self);  // checks `reduce`
        auto op = op_of(reduce);
        host_unless(rs_index_reduce_computes, self, op);
        if (!out.is_same(self)) out.copy_(self);
        int64_t d = self.dim() == 0 ? 0 : at::maybe_wrap_dim(dim, self.dim());
        Opts o;
        o.include_self = include_self;
        o.acc_opmath = true;
        run_ir("scatter_reduce", op, out, d, index, src, o);
        return out;
      },
      self, dim, index, src, reduce, include_self, out);
}

// scatter with reduce="add" / "multiply" (src or a value): CPU's
// scatter_reduce_stub, self included
rs_index_reduce_op legacy_op(std::string_view reduce) { return reduce == "add" ? RS_IR_SUM : RS_IR_PROD; }

Tensor& scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, Tensor& out) {
  return native_or_host<at::_ops::scatter_reduce_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_scatter_reduce> m(out);
        m.meta(self, dim, index, src, reduce);
        host_unless(rs_index_reduce_computes, self, legacy_op(reduce));
        if (!out.is_same(self)) out.copy_(self);
        int64_t d = self.dim() == 0 ? 0 : at::maybe_wrap_dim(dim, self.dim());
        Opts o;
        o.acc_opmath = true;
        run_ir("scatter", legacy_op(reduce), out, d, index, src, o);
        return out;
      },
      self, dim, index, src, reduce, out);
}

Tensor& scatter_value_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const at::Scalar& value,
                                 std::string_view reduce, Tensor& out) {
  return native_or_host<at::_ops::scatter_value_reduce_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_scatter_value_reduce> m(out);
        m.meta(self, dim, index, value, reduce);
        host_unless(rs_index_reduce_computes, self, legacy_op(reduce));
        if (!out.is_same(self)) out.copy_(self);
        if (index.numel() == 0) return out;
        int64_t d = self.dim() == 0 ? 0 : at::maybe_wrap_dim(dim, self.dim());
        Tensor v = at::scalar_tensor(value, out.options()).expand(index.sizes());
        Opts o;
        o.acc_opmath = true;
        run_ir("scatter", legacy_op(reduce), out, d, index, v, o);
        return out;
      },
      self, dim, index, value, reduce, out);
}

// the shared-index ops (index_add, index_reduce, index_copy): source's
// slice k goes to self's slice index[k]
Tensor& index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const at::Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::index_add_out>(
      [&]() -> Tensor& {
        host_unless(rs_index_reduce_computes, self, RS_IR_SUM);
        OutOps<at::meta::structured_index_add> m(out);
        m.meta(self, dim, index, source, alpha);
        if (!out.is_same(self)) out.copy_(self);
        Opts o;
        o.shared = true;
        o.alpha = &alpha;
        o.acc_opmath = index_add_opmath(out, at::maybe_wrap_dim(dim, std::max<int64_t>(out.dim(), 1)));
        run_ir("index_add", RS_IR_SUM, out, dim, index, source.dim() == 0 ? source.view({1}) : source, o);
        return out;
      },
      self, dim, index, source, alpha, out);
}

Tensor& index_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self, Tensor& out) {
  return native_or_host<at::_ops::index_reduce_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_index_reduce> m(out);
        m.meta(self, dim, index, source, reduce, include_self);
        // CPU's kernels: the one loop of 0-d and 1-d self has no bool or
        // complex case, nor has excluding self on more dims
        const auto t = self.scalar_type();
        if (t == at::kBool || at::isComplexType(t)) {
          refuse_unless(self.dim() > 1, "index_func_", t);
          refuse_unless(include_self, "index_reduce_func_exclude_input_init", t);
        }
        auto op = op_of(reduce);
        host_unless(rs_index_reduce_computes, self, op);
        TORCH_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
        if (!out.is_same(self)) out.copy_(self);
        Opts o;
        o.shared = true;
        o.include_self = include_self;
        run_ir("index_reduce", op, out, dim, index, source.dim() == 0 ? source.view({1}) : source, o);
        return out;
      },
      self, dim, index, source, reduce, include_self, out);
}

Tensor& index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  return native_or_host<at::_ops::index_copy_out>(
      [&]() -> Tensor& {
        host_unless(rs_index_reduce_computes, self, RS_IR_COPY);
        OutOps<at::meta::structured_index_copy> m(out);
        m.meta(self, dim, index, source);
        if (!out.is_same(self)) out.copy_(self);
        Opts o;
        o.shared = true;
        run_ir("index_copy", RS_IR_COPY, out, dim, index, source.dim() == 0 ? source.view({1}) : source, o);
        return out;
      },
      self, dim, index, source, out);
}

// nn.Embedding's backward: the rows of grad summed into num_weights rows in
// index order (CPU's embedding_dense_backward_cpu), padding_idx skipped,
// each scaled by 1 / its index's count with scale_grad_by_freq
Tensor embedding_dense_backward(const Tensor& grad, const Tensor& indices, c10::SymInt num_weights,
                                c10::SymInt padding_idx, bool scale_grad_by_freq) {
  return native_or_host<at::_ops::embedding_dense_backward>(
      [&]() -> Tensor {
        TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt,
                    "embedding_backward: Expected tensor for argument #2 'indices' to have one of the following "
                    "scalar types: Long, Int; but got ", indices.scalar_type(), " instead");
        host_unless(rs_index_reduce_computes, grad, RS_IR_SUM);
        int64_t n = num_weights.expect_int(), d = grad.size(-1);
        Tensor gw = at::zeros({n, d}, grad.options());
        int64_t numel = indices.numel();
        if (numel == 0 || d == 0) return gw;
        Opts o;
        o.shared = true;
        o.scale = scale_grad_by_freq;
        o.skip = padding_idx.expect_int();
        run_ir("embedding_backward", RS_IR_SUM, gw, 0, indices, grad.reshape({numel, d}), o);
        return gw;
      },
      grad, indices, num_weights.expect_int(), padding_idx.expect_int(), scale_grad_by_freq);
}

// nn.Embedding(max_norm=...)'s forward: each row that `indices` names
// scaled, once, to max_norm / (norm + 1e-7) where its norm exceeds
// max_norm, as CPU's embedding_renorm_ (rs_embedding_renorm: the indices
// wrapped and sorted on the device, no sync)
Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  return native_or_host<at::_ops::embedding_renorm_>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.dim() == 2, "embedding_renorm_(): expected a 2-D weight, but got ", self.dim(), "-D");
        TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt,
                    "embedding_renorm_(): expected indices of type Long or Int, but got ", indices.scalar_type());
        if (!is_nn_float(self.scalar_type())) throw NeedsHost{};
        rs_tensor w = describe(self), i = describe(indices);
        check_or_host(rs_embedding_renorm(current_stream_for(self), &w, &i, max_norm, norm_type));
        return self;
      },
      self, indices, max_norm, norm_type);
}

// index in [-n, n) wrapped to [0, n); other values stay themselves (the
// kernels raise them, naming the user's value)
Tensor wrapped(const Tensor& index, int64_t n) {
  Tensor out = at::empty(index.sizes(), index.options().dtype(at::kLong));
  rs_tensor iv = describe(index), ov = describe(out);
  check(rs_index_linearize(current_stream_for(index), 1, &iv, &n, &ov));
  return out;
}

// put_: self as a flat (row-major) tensor, index into it
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return native_or_host<at::_ops::put_>(
      [&]() -> Tensor& {
        TORCH_CHECK(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
                    index.scalar_type());
        TORCH_CHECK(self.scalar_type() == source.scalar_type(),
                    "put_(): self and source expected to have the same dtype, but got self.dtype = ",
                    self.scalar_type(), " and source.dtype = ", source.scalar_type());
        TORCH_CHECK(index.numel() == source.numel(), "put_(): Expected source and index to have the same number ",
                    "of elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
        TORCH_CHECK(self.numel() > 0 || index.numel() == 0, "put_(): Tried to put elements into an empty tensor");
        auto op = accumulate ? RS_IR_SUM : RS_IR_COPY;
        host_unless(rs_index_reduce_computes, self, op);
        if (index.numel() == 0) return self;
        bool direct = self.is_contiguous();
        Tensor flat = direct ? self.view({-1}) : self.contiguous().view({-1});
        Opts o;
        o.shared = true;
        run_ir("put_", op, flat, 0, wrapped(index.reshape({-1}), self.numel()), source.reshape({-1}), o);
        if (!direct) self.copy_(flat.view(self.sizes()));
        return self;
      },
      self, index, source, accumulate);
}

// take: one C call (rs_take: the index wrapped, a gather from the flat self)
Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "take(): self and result expected to have the same dtype, ",
              "but got self.dtype = ", self.scalar_type(), " and result.dtype = ", out.scalar_type());
  TORCH_CHECK(self.numel() > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  at::assert_no_internal_overlap(out);  // CPU's out= aliasing checks
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
  at::native::resize_output(out, index.sizes());
  if (index.numel() == 0) return out;
  Tensor src = resolved(self);  // lives until the call is recorded
  rs_tensor sv = describe(src), iv = describe(index), ov = describe(out);
  check(rs_take(current_stream_for(self), &sv, &iv, &ov));
  return out;
}

Tensor take(const Tensor& self, const Tensor& index) {
  Tensor out = at::empty({0}, self.options());
  return take_out(self, index, out);
}

// index_fill_: a scatter of the value along dim with the index expanded
// over the other dims (every dtype: elements move as bytes)
Tensor& index_fill_value(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "Index has to be a vector/scalar");
  TORCH_CHECK(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
  TORCH_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  int64_t d = at::maybe_wrap_dim(dim, self.dim());
  if (index.numel() == 0 || self.numel() == 0) return self;
  Tensor s = self.dim() == 0 ? self.view({1}) : self;
  std::vector<int64_t> shape(s.sizes().begin(), s.sizes().end()), view(s.dim(), 1);
  shape[d] = index.numel();
  view[d] = index.numel();
  Tensor idx = wrapped(index.reshape({-1}), s.size(d)).view(view).expand(shape);
  Tensor v = value.to(self.scalar_type()).expand(shape);
  rs_gather g{};
  g.mode = RS_SCATTER;
  g.dim = static_cast<int>(d);
  g.self = describe(s);
  g.index = describe(idx);
  g.other = describe(resolved(v));
  check(rs_gather_run(current_stream_for(self), &g));
  return self;
}

Tensor& index_fill_int_scalar(Tensor& self, int64_t dim, const Tensor& index, const at::Scalar& value) {
  return index_fill_value(self, dim, index, at::scalar_tensor(value, self.options()));
}

Tensor& index_fill_int_tensor(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill_value(self, dim, index, value.device() == self.device() ? value : value.to(self.device()));
}

// masked_scatter_: the k-th true position of the mask (row-major over self)
// takes source's k-th element (rs_masked_scatter: the ranks, then one
// launch; too short a source raises at the next sync)
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter_: expected self and source to have same ",
              "dtypes but got", self.scalar_type(), " and ", source.scalar_type());
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  if (self.numel() == 0) return self;
  Tensor m = mask.expand(self.sizes());
  Tensor src = source.contiguous();
  rs_tensor sv = describe(self), mv = describe(m), cv = describe(src);
  check(rs_masked_scatter(current_stream_for(self), &sv, &mv, &cv));
  return self;
}

// Advanced indexing, ATen's make_info steps: masks become indices
// (nonzero), the indices broadcast, and unless the indexed dims are adjacent
// they move to the front with self. Then one linear index over the indexed
// dims [a, b) (rs_index_linearize: an out-of-range component makes it one
// the kernels raise), and self as [pre, P, post] (P: the indexed dims merged), a view
// when they merge (`view` false: a contiguous copy).
struct Linear {
  Tensor t;          // self, transposed if needed
  Tensor target;     // t as [pre, P, post]
  bool view = true;  // target aliases t
  Tensor lin;        // int64 [nb]
  int64_t a = 0;
  std::vector<int64_t> full;  // the result's shape: pre + broadcast index + post
  std::vector<int64_t> flat;  // pre + [nb] + post
  bool empty = false;
};

Linear linearize(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  TORCH_CHECK_INDEX(indices.size() <= (size_t)self.dim(), "too many indices for tensor of dimension ", self.dim(),
                    " (got ", indices.size(), ")");
  at::native::checkIndexTensorTypes(indices, /*allow_int*/ true);
  auto idx = at::native::expandTensors(self, indices);
  try {
    idx = at::expand_outplace(idx);
  } catch (std::exception&) {
    TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together");
  }
  while (idx.size() < (size_t)self.dim()) idx.emplace_back();
  Linear L;
  L.t = self;
  if (!at::native::hasContiguousSubspace(idx)) std::tie(L.t, idx) = at::native::transposeToFront(L.t, idx);
  int64_t a = 0;
  while (a < (int64_t)idx.size() && !idx[a].defined()) ++a;
  if (a == (int64_t)idx.size()) throw NeedsHost{};  // no index tensor at all
  int64_t b = a;
  while (b < (int64_t)idx.size() && idx[b].defined()) ++b;
  // the linear index over dims [a, b), in one kernel (rs_index_linearize)
  std::vector<Tensor> on_device;
  std::vector<rs_tensor> views;
  std::vector<int64_t> sizes;
  int64_t P = 1;
  for (int64_t k = a; k < b; ++k) {
    on_device.push_back(idx[k].device() == self.device() ? idx[k] : idx[k].to(self.device()));  // CPU indices
    views.push_back(describe(on_device.back()));
    sizes.push_back(L.t.size(k));
    P *= L.t.size(k);
  }
  L.lin = at::empty(idx[a].sizes(), self.options().dtype(at::kLong));
  rs_tensor lv = describe(L.lin);
  check(rs_index_linearize(current_stream_for(self), static_cast<int>(b - a), views.data(), sizes.data(), &lv));
  L.lin = L.lin.reshape({-1});
  L.a = a;
  auto bshape = idx[a].sizes();
  int64_t nb = idx[a].numel();
  std::vector<int64_t> tshape;
  for (int64_t k = 0; k < a; ++k) tshape.push_back(L.t.size(k));
  tshape.push_back(P);
  for (int64_t k = b; k < L.t.dim(); ++k) tshape.push_back(L.t.size(k));
  for (int64_t k = 0; k < a; ++k) L.full.push_back(L.t.size(k));
  L.full.insert(L.full.end(), bshape.begin(), bshape.end());
  for (int64_t k = b; k < L.t.dim(); ++k) L.full.push_back(L.t.size(k));
  L.flat = tshape;
  L.flat[a] = nb;
  L.empty = nb == 0 || L.t.numel() == 0;
  auto st = at::detail::computeStride(L.t.sizes(), L.t.strides(), tshape);
  if (st.has_value()) {
    L.target = L.t.as_strided(tshape, *st);
  } else {
    L.view = false;
    L.target = L.t.contiguous().view(tshape);
  }
  return L;
}

// index_put_ (accumulate or not): SUM / COPY along the merged indexed dims;
// values broadcast to the result's shape
Tensor& index_put_impl(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values,
                       bool accumulate, bool unsafe) {
  return native_or_host<at::_ops::_index_put_impl_>(
      [&]() -> Tensor& {
        auto op = accumulate ? RS_IR_SUM : RS_IR_COPY;
        host_unless(rs_index_reduce_computes, self, op);
        TORCH_CHECK(values.scalar_type() == self.scalar_type(), "Index put requires the source and destination ",
                    "dtypes match, got ", self.scalar_type(), " for the destination and ", values.scalar_type(),
                    " for the source.");
        Linear L = linearize(self, indices);
        if (L.empty) return self;
        Tensor v = (values.device() == self.device() ? values : values.to(self.device())).expand(L.full).reshape(L.flat);
        Opts o;
        o.shared = true;
        run_ir("index_put_", op, L.target, L.a, L.lin, v, o);
        if (!L.view) L.t.copy_(L.target.view(L.t.sizes()));
        return self;
      },
      self, indices, values, accumulate, unsafe);
}

// index (x[idx]): a gather along the merged indexed dims (every dtype)
Tensor& index_out(const Tensor& self, const c10::List<std::optional<Tensor>>& indices, Tensor& out) {
  return native_or_host<at::_ops::index_Tensor_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.scalar_type() == out.scalar_type(), "index_out: self (", self.scalar_type(),
                    ") and result (", out.scalar_type(), ") must have the same scalar type");
        Linear L = linearize(self, indices);
        at::native::resize_output(out, L.full);
        if (out.numel() == 0) return out;
        Tensor r = at::index_select(L.target, L.a, L.lin);
        out.copy_(r.view(L.full));
        return out;
      },
      self, indices, out);
}

Tensor index(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  Tensor out = at::empty({0}, self.options());
  return index_out(self, indices, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("scatter_add.out", scatter_add_out);
  m.impl("scatter.reduce_out", scatter_reduce_out);
  m.impl("scatter.value_reduce_out", scatter_value_reduce_out);
  m.impl("scatter_reduce.two_out", scatter_reduce_two_out);
  m.impl("index_add.out", index_add_out);
  m.impl("index_reduce.out", index_reduce_out);
  m.impl("index_copy.out", index_copy_out);
  m.impl("embedding_dense_backward", embedding_dense_backward);
  m.impl("embedding_renorm_", embedding_renorm_);
  m.impl("put_", put_);
  m.impl("take", take);
  m.impl("take.out", take_out);
  m.impl("index_fill_.int_Scalar", index_fill_int_scalar);
  m.impl("index_fill_.int_Tensor", index_fill_int_tensor);
  m.impl("masked_scatter_", masked_scatter_);
  m.impl("_index_put_impl_", index_put_impl);
  m.impl("index.Tensor", index);
  m.impl("index.Tensor_out", index_out);
}

}  // namespace russet
