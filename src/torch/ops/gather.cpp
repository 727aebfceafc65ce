// gather and scatter (src and value forms) along one dim through the C
// core's rs_gather_run: elements move as bytes, so every dtype is native.
// Sort, topk, kthvalue, median and mode take their backward through scatter;
// index_select (and so nn.Embedding's forward) is a gather.
#include "torch/reduce.h"
#include "torch/same_device.h"
#include "russet/gather.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/gather_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gather_ops.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/scatter_meta.h>
#include <ATen/ops/scatter_ops.h>
#include <torch/library.h>

#include <cstring>

namespace russet {
namespace {

using at::Tensor;

void run_gather(rs_gather_mode mode, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& other,
                const uint8_t* value = nullptr) {
  if (index.numel() == 0) return;
  // ATen treats 0-dim operands as 1-dim (ensure_nonempty_dim)
  auto one_d = [](const Tensor& t) { return t.defined() && t.dim() == 0 ? t.view({1}) : t; };
  rs_gather g{};
  g.mode = mode;
  g.dim = self.dim() == 0 ? 0 : static_cast<int>(at::maybe_wrap_dim(dim, self.dim()));
  g.self = describe(one_d(self));
  g.index = describe(one_d(index));
  if (other.defined()) g.other = describe(one_d(other));
  if (value) std::memcpy(g.value, value, self.element_size());
  check(rs_gather_run(current_stream_for(self), &g));
}

Tensor& gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, Tensor& out) {
  OutOps<at::meta::structured_gather> m(out);
  m.meta(self, dim, index, sparse_grad);
  run_gather(RS_GATHER, resolved(self), dim, index, out);
  return out;
}

// scatter writes into `out`, a copy of self unless it is self
Tensor& scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  OutOps<at::meta::structured_scatter_src> m(out);
  m.meta(self, dim, index, src);
  if (!out.is_same(self)) out.copy_(self);
  run_gather(RS_SCATTER, out, dim, index, resolved(src));
  return out;
}

Tensor& scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const at::Scalar& value,
                          Tensor& out) {
  OutOps<at::meta::structured_scatter_value> m(out);
  m.meta(self, dim, index, value);
  if (!out.is_same(self)) out.copy_(self);
  // the value's bytes in self's dtype, converted as a CPU tensor would hold it
  Tensor v = at::scalar_tensor(value, at::TensorOptions().dtype(self.scalar_type()));
  uint8_t bytes[16] = {0};
  std::memcpy(bytes, v.data_ptr(), v.element_size());
  run_gather(RS_SCATTER_VALUE, out, dim, index, Tensor(), bytes);
  return out;
}

// index_select: a gather whose index is the vector expanded over the
// other dims (stride 0); not structured, checked as ATen's CPU kernel
Tensor& index_select_out(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "index_select(): self and result must have the same ",
              "scalar type");
  same_device(self, index, out);
  int64_t d = self.dim() == 0 ? 0 : at::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[d] = index.numel();
  at::assert_no_internal_overlap(out);  // CPU's out= aliasing checks
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
  at::native::resize_output(out, shape);
  if (out.numel() == 0) return out;
  if (self.dim() == 0) {
    TORCH_CHECK(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                index.numel(), " value(s)");
    run_gather(RS_GATHER, resolved(self), 0, index.reshape({}), out);
    return out;
  }
  std::vector<int64_t> view(self.dim(), 1);
  view[d] = index.numel();
  Tensor idx = index.reshape({-1}).view(view).expand(shape);
  run_gather(RS_GATHER, resolved(self), d, idx, out);
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = at::empty({0}, self.options());
  return index_select_out(self, dim, index, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("gather.out", gather_out);
  m.impl("scatter.src_out", scatter_src_out);
  m.impl("scatter.value_out", scatter_value_out);
  m.impl("index_select.out", index_select_out);
  m.impl("index_select", index_select);
}

}  // namespace russet
