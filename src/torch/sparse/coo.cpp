// Sparse COO kernels that differ by device, on the C core's sparse engine
// (russet/sparse.h; docs/sparse.md): coalesce, dense + sparse, sparse +
// sparse, sparse * a 0-dim tensor, and sparse @ dense (addmm, which mm,
// torch.sparse.mm and sparse matrix-vector products reach), sparse * dense
// and sparse * sparse (sparse_mask, SparseAdam, Adagrad), bmm of a COO
// batch, index_select, and the gradient of torch.sparse.sum. Inputs the
// engine does not take (other dtypes, mixed dtypes, hybrid tensors in
// products, shapes CPU rejects) run on the host through host.cpp's
// fallback, counted, which also gives CPU's errors.
#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/SparseTensorImpl.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_coalesce_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors.h>
#include <ATen/ops/_coalesce_ops.h>
#include <ATen/ops/_sparse_coo_tensor_unsafe.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/index_select_ops.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/mul_ops.h>
#include <ATen/ops/index.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "russet/sparse.h"
#include "torch/adapter.h"
#include "torch/scalar_slot.h"
#include "torch/sparse/sparse.h"
#include "russet/index_reduce.h"

namespace russet {
namespace {

using at::Tensor;

template <class Op, class... Args>
decltype(auto) on_host(Args&&... args) {
  return at::native::call_fallback_fn<&sparse_host_fallback, Op>::call(std::forward<Args>(args)...);
}

bool same_device(std::initializer_list<const Tensor*> ts) {
  const Tensor& a = **ts.begin();
  for (const Tensor* t : ts)
    if (t->device() != a.device()) return false;
  return a.device().type() == kDevice;
}

bool sums_natively(const Tensor& t) {
  return rs_index_reduce_computes(device(t.device().index()), static_cast<rs_dtype>(t.scalar_type()), RS_IR_SUM);
}

std::vector<int64_t> sparse_sizes(const Tensor& t) {
  auto s = t.sizes().slice(0, t.sparse_dim());
  return {s.begin(), s.end()};
}

// ---- coalesce

Tensor coalesce(const Tensor& self) {
  if (self._nnz() < 2) {  // CPU's: nothing to merge
    Tensor dst = self.clone();
    dst._coalesced_(true);
    return dst;
  }
  if (!sums_natively(self._values())) return on_host<at::_ops::_coalesce>(self);
  const Tensor indices = self._indices();
  const Tensor values = self._values().contiguous();
  rs_stream* s = current_stream_for(self);
  const rs_tensor idx = describe(indices);
  const std::vector<int64_t> sizes = sparse_sizes(self);
  rs_sparse_coalesce c;
  check(rs_sparse_coalesce_count(s, &idx, sizes.data(), &c));
  std::vector<int64_t> vsizes(values.sizes().begin(), values.sizes().end());
  vsizes[0] = c.nnz;
  Tensor idx_out, val_out;
  try {
    idx_out = at::empty({self.sparse_dim(), c.nnz}, indices.options());
    val_out = at::empty(vsizes, values.options());
  } catch (...) {
    rs_sparse_coalesce_release(s, &c);
    throw;
  }
  const rs_tensor io = describe(idx_out), vi = describe(values), vo = describe(val_out);
  check(rs_sparse_coalesce_write(s, &c, &vi, &io, &vo));
  Tensor out = at::_sparse_coo_tensor_unsafe(idx_out, val_out, self.sizes(), values.options().layout(at::kSparse));
  out._coalesced_(true);
  return out;
}

// ---- add

// out (dense) = self (dense) + alpha * other (sparse)
void add_dense_sparse(const Tensor& self, const Tensor& other, const at::Scalar& alpha, const Tensor& out) {
  if (!out.is_same(self)) {
    at::native::resize_output(out, self.sizes());
    out.copy_(self);
  }
  if (other._nnz() == 0 || out.numel() == 0) return;
  // the sparse dims must merge into one: else a contiguous copy
  const int64_t sd = other.sparse_dim();
  bool mergeable = true;
  for (int64_t d = 0; d + 1 < sd; d++)
    if (out.size(d + 1) != 1 && out.stride(d) != out.stride(d + 1) * out.size(d + 1)) mergeable = false;
  Tensor target = mergeable ? out : out.contiguous();
  const rs_tensor idx = describe(other._indices()), vals = describe(other._values()), dst = describe(target);
  const bool has_alpha = !alpha.equal(1);
  check(rs_sparse_add_dense(current_stream_for(out), &idx, &vals, has_alpha,
                            scalar_slot(alpha, out.scalar_type()), &dst));
  if (!mergeable) out.copy_(target);
}

// out (sparse) = self + alpha * other, both sparse: the entries of both
// (CUDA's way: the result is not coalesced)
void add_sparse_sparse(const Tensor& self, const Tensor& other, const at::Scalar& alpha, const Tensor& out) {
  Tensor ov = other._values();
  if (!alpha.equal(1)) ov = at::mul(ov, alpha);
  Tensor indices = at::cat({self._indices(), other._indices()}, 1);
  Tensor values = at::cat({self._values(), ov}, 0);
  set_sparse(out, self.sizes(), self.sparse_dim(), indices, values, false);
}

Tensor& add_out(const Tensor& self, const Tensor& other, const at::Scalar& alpha, Tensor& out) {
  const auto dt = out.scalar_type();
  const bool natively = same_device({&self, &other, &out}) && self.scalar_type() == dt && other.scalar_type() == dt &&
                        self.sizes().equals(other.sizes()) && sums_natively(out);
  if (natively && !self.is_sparse() && other.is_sparse() && !out.is_sparse()) {
    add_dense_sparse(self, other, alpha, out);
    return out;
  }
  if (natively && self.is_sparse() && other.is_sparse() && out.is_sparse() &&
      self.sparse_dim() == other.sparse_dim() && self.dense_dim() == other.dense_dim()) {
    add_sparse_sparse(self, other, alpha, out);
    return out;
  }
  return on_host<at::_ops::add_out>(self, other, alpha, out);
}

// ---- mul

// sparse * dense of the same sizes: the sparse entries times the dense
// elements at their indices (sparse_mask's way)
Tensor mul_sparse_dense_values(const Tensor& sp, const Tensor& dense) {
  const Tensor idx = sp._indices();
  c10::List<std::optional<Tensor>> at_idx;
  for (int64_t d = 0; d < sp.sparse_dim(); d++) at_idx.push_back(idx[d]);
  return at::mul(sp._values(), dense.index(at_idx));
}

// sparse * sparse of the same sizes: the entries whose indices both hold
// (coalesced: each side's keys are sorted, so a binary search finds the
// other's entry)
void mul_sparse_sparse(const Tensor& a_, const Tensor& b_, const Tensor& out) {
  const Tensor a = a_.coalesce(), b = b_.coalesce();
  Tensor indices, values;
  if (a._nnz() == 0 || b._nnz() == 0) {
    indices = at::empty({a.sparse_dim(), 0}, a._indices().options());
    values = at::mul(a._values().narrow(0, 0, 0), b._values().narrow(0, 0, 0));
  } else {
    const Tensor pos = match_keys(keys_of(b), keys_of(a));
    const Tensor hit = pos.ge(0).nonzero().squeeze(1);  // (waits: the result's size depends on the data)
    indices = a._indices().index_select(1, hit);
    values = at::mul(a._values().index_select(0, hit), b._values().index_select(0, pos.index_select(0, hit)));
  }
  if (values.scalar_type() != out.scalar_type()) values = values.to(out.scalar_type());
  set_sparse(out, a.sizes(), a.sparse_dim(), indices, values, true);
}

Tensor& mul_out(const Tensor& self, const Tensor& other, Tensor& out) {
  const bool self_sparse = self.is_sparse();
  const Tensor& sp = self_sparse ? self : other;
  const Tensor& factor = self_sparse ? other : self;
  const auto result_type = at::result_type(self, other);
  const bool to_out = out.is_sparse() && out.scalar_type() == result_type && sp.device() == out.device();
  if (to_out && !factor.is_sparse() && factor.dim() == 0) {  // s * 2.0, and s / n through div's generic kernel
    Tensor values = at::mul(sp._values(), factor);
    if (out.is_same(sp)) {
      sp._values().copy_(values);
    } else {
      set_sparse(out, sp.sizes(), sp.sparse_dim(), sp._indices().clone(), values, sp.is_coalesced());
    }
    return out;
  }
  if (to_out && !factor.is_sparse() && factor.device() == sp.device() && factor.sizes().equals(sp.sizes())) {
    Tensor values = mul_sparse_dense_values(sp, factor);
    set_sparse(out, sp.sizes(), sp.sparse_dim(), out.is_same(sp) ? sp._indices() : sp._indices().clone(), values,
               sp.is_coalesced());
    return out;
  }
  if (to_out && self.is_sparse() && other.is_sparse() && self.device() == other.device() &&
      self.sizes().equals(other.sizes()) && self.sparse_dim() == other.sparse_dim() && self.dense_dim() == 0 &&
      other.dense_dim() == 0) {
    mul_sparse_sparse(self, other, out);
    return out;
  }
  return on_host<at::_ops::mul_out>(self, other, out);
}

// ---- addmm: t dense, mat1 sparse (M, K), mat2 dense (K, N)

bool mm_natively(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const Tensor* out) {
  const auto dt = mat1.scalar_type();
  if (!mat1.is_sparse() || mat2.is_sparse() || t.is_sparse() || mat1.sparse_dim() != 2 || mat1.dense_dim() != 0 ||
      mat2.dim() != 2 || mat2.size(0) != mat1.size(1) || mat2.scalar_type() != dt || t.scalar_type() != dt ||
      !sparse_mm_dtype(mat1))
    return false;
  if (out && (out->is_sparse() || out->scalar_type() != dt)) return false;
  if (!same_device({&t, &mat1, &mat2}) || (out && out->device() != mat1.device())) return false;
  return at::is_expandable_to(t.sizes(), {mat1.size(0), mat2.size(1)});
}

void addmm_into(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                const at::Scalar& alpha, const Tensor& out) {
  const Tensor s = mat1.is_coalesced() ? mat1 : mat1.coalesce();
  rs_sparse_mm p{};
  p.indices = describe(s._indices());
  p.values = describe(s._values());
  sparse_mm_into(p, mat1.size(0), t, mat2, beta, alpha, out);
}

Tensor& addmm_out(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                  const at::Scalar& alpha, Tensor& out) {
  if (!mm_natively(t, mat1, mat2, &out)) return on_host<at::_ops::addmm_out>(t, mat1, mat2, beta, alpha, out);
  addmm_into(t, mat1, mat2, beta, alpha, out);
  return out;
}

Tensor addmm(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
             const at::Scalar& alpha) {
  if (!mm_natively(t, mat1, mat2, nullptr)) return on_host<at::_ops::addmm>(t, mat1, mat2, beta, alpha);
  Tensor out = at::empty({mat1.size(0), mat2.size(1)}, mat2.options());
  addmm_into(t, mat1, mat2, beta, alpha, out);
  return out;
}

Tensor& addmm_(Tensor& t, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta, const at::Scalar& alpha) {
  if (!mm_natively(t, mat1, mat2, &t) || !t.sizes().equals({mat1.size(0), mat2.size(1)}))
    return on_host<at::_ops::addmm_>(t, mat1, mat2, beta, alpha);
  addmm_into(t, mat1, mat2, beta, alpha, t);
  return t;
}

// ---- bmm: a 3-d COO batch (B, M, K) @ dense (B, K, N), as one 2-d product:
// the batch is a block-diagonal (B M, B K) matrix whose entry (b, r, c) sits
// at (b M + r, b K + c), and mat2 the (B K, N) rows of its batches

bool bmm_natively(const Tensor& self, const Tensor& mat2) {
  return self.is_sparse() && !mat2.is_sparse() && self.dim() == 3 && self.sparse_dim() == 3 && mat2.dim() == 3 &&
         self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1) &&
         mat2.scalar_type() == self.scalar_type() && sparse_mm_dtype(self) && self.device() == mat2.device() &&
         self.device().type() == kDevice;
}

Tensor& bmm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  if (!bmm_natively(self, mat2) || out.is_sparse() || out.scalar_type() != self.scalar_type() ||
      out.device() != self.device())
    return on_host<at::_ops::bmm_out>(self, mat2, out);
  const int64_t B = self.size(0), M = self.size(1), K = self.size(2), N = mat2.size(2);
  at::native::resize_output(out, {B, M, N});
  if (out.numel() == 0) return out;
  const Tensor s = self.is_coalesced() ? self : self.coalesce();
  const Tensor idx = s._indices();
  const Tensor rows = idx[0].mul(M).add_(idx[1]), cols = idx[0].mul(K).add_(idx[2]);
  const Tensor flat = at::stack({rows, cols});
  rs_sparse_mm p{};
  p.indices = describe(flat);
  p.values = describe(s._values());
  const Tensor out2 = out.is_contiguous() ? out.view({B * M, N}) : at::empty({B * M, N}, out.options());
  const Tensor zero = at::zeros({}, out.options());
  sparse_mm_into(p, B * M, zero, mat2.reshape({B * K, N}), 0, 1, out2);
  if (!out.is_contiguous()) out.copy_(out2.view({B, M, N}));
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  if (!bmm_natively(self, mat2)) return on_host<at::_ops::bmm>(self, mat2);
  Tensor out = at::empty({self.size(0), self.size(1), mat2.size(2)}, mat2.options());
  return bmm_out(self, mat2, out);
}

// ---- index_select: along a sparse dim, each entry once for every position
// of index that holds its index there (the engine: one wait for the
// count); along a dense dim, the values' own index_select. An index out of
// range goes to the host, which raises CPU's error.

Tensor index_select(const Tensor& self, int64_t dim_, const Tensor& index_) {
  const int64_t dim = c10::maybe_wrap_dim(dim_, self.dim());
  bool ok = self.is_sparse() && index_.device() == self.device() && index_.dim() <= 1 &&
            (index_.scalar_type() == at::kLong || index_.scalar_type() == at::kInt);
  if (ok && index_.numel() > 0) {
    const auto [mn, mx] = at::aminmax(index_);
    const Tensor range = at::stack({mn, mx}).to(at::kLong).cpu();  // one read
    ok = range[0].item<int64_t>() >= 0 && range[1].item<int64_t>() < self.size(dim);
  }
  if (!ok) return on_host<at::_ops::index_select>(self, dim_, index_);
  const Tensor index = index_.reshape({-1}).to(at::kLong).contiguous();
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[dim] = index.numel();
  const int64_t sd = self.sparse_dim();
  if (dim >= sd) {
    Tensor out = at::_sparse_coo_tensor_unsafe(self._indices().clone(), self._values().index_select(dim - sd + 1, index),
                                               sizes, self._values().options().layout(at::kSparse));
    out._coalesced_(self.is_coalesced());
    return out;
  }
  rs_stream* s = current_stream_for(self);
  const rs_tensor it = describe(self._indices()), ix = describe(index);
  rs_sparse_select sel;
  check(rs_sparse_index_select_count(s, &it, static_cast<int>(dim), &ix, &sel));
  Tensor idx_out, source;
  try {
    idx_out = at::empty({sd, sel.nnz}, self._indices().options());
    source = at::empty({sel.nnz}, self._indices().options());
  } catch (...) {
    rs_sparse_index_select_release(s, &sel);
    throw;
  }
  const rs_tensor io = describe(idx_out), so = describe(source);
  check(rs_sparse_index_select_write(s, &sel, &io, &so));
  return at::_sparse_coo_tensor_unsafe(idx_out, self._values().index_select(0, source), sizes,
                                       self._values().options().layout(at::kSparse));
}

// ---- the gradient of torch.sparse.sum: each input entry takes the
// gradient at its indices in the kept dims (CPU's semantics; 0 where the
// sparse gradient has no entry)

Tensor sparse_sum_backward(const Tensor& grad_, const Tensor& input_, at::IntArrayRef dims) {
  const Tensor input = input_.coalesce();
  const int64_t nd = input.dim(), sd = input.sparse_dim();
  const auto summed = at::dim_list_to_bitset(dims, nd);
  std::vector<int64_t> keep, dense_summed;
  int64_t n_sparse_summed = 0;
  for (int64_t d = 0; d < nd; d++) {
    if (summed[d]) {
      if (d < sd) n_sparse_summed++;
      else dense_summed.push_back(d + 1 - sd);  // its place among the values' dims
    } else if (d < sd) {
      keep.push_back(d);
    }
  }
  const auto vsizes = input._values().sizes();
  Tensor values;
  if (n_sparse_summed == sd) {
    TORCH_CHECK(!grad_.is_sparse(), "_sparse_sum_backward_cpu: expected grad_ Tensor to be dense since all sparse ",
                "dims are summed");
    Tensor g = grad_;
    for (int64_t d : dense_summed) g = g.unsqueeze(d - 1);
    values = g.unsqueeze(0).expand(vsizes).contiguous();
  } else {
    TORCH_CHECK(grad_.is_sparse(), "_sparse_sum_backward_cpu: expected grad_ Tensor to be sparse, but got dense");
    const Tensor grad = grad_.coalesce();
    Tensor gv = grad._values();
    for (int64_t d : dense_summed) gv = gv.unsqueeze(d);
    // the input entries' keys over the kept dims, against the gradient's
    const Tensor kept = input._indices().index_select(0, from_host(keep.data(), {int64_t(keep.size())},
                                                                   at::kLong, input._indices()));
    std::vector<int64_t> kept_sizes;
    for (int64_t d : keep) kept_sizes.push_back(input.size(d));
    values = values_matched(keys_of(grad), gv, index_keys(kept, kept_sizes)).expand(vsizes).contiguous();
  }
  return at::_sparse_coo_tensor_with_dims_and_tensors(sd, input.dense_dim(), input.sizes(), input._indices().clone(),
                                                      values, input.options().dtype(grad_.scalar_type()));
}

}  // namespace

void set_sparse(const Tensor& out, at::IntArrayRef sizes, int64_t sparse_dim, const Tensor& indices,
                const Tensor& values, bool coalesced) {
  auto* impl = static_cast<at::SparseTensorImpl*>(out.unsafeGetTensorImpl());
  impl->resize_(sparse_dim, static_cast<int64_t>(sizes.size()) - sparse_dim, sizes);
  impl->set_indices_and_values_unsafe(indices, values);
  out._coalesced_(coalesced);
}

Tensor index_keys(const Tensor& indices, at::IntArrayRef sizes) {
  const Tensor idx = indices.to(at::kLong);
  Tensor keys = at::empty({idx.size(1)}, idx.options());
  const rs_tensor it = describe(idx), k = describe(keys);
  const std::vector<int64_t> sz(sizes.begin(), sizes.end());
  check(rs_sparse_keys(current_stream_for(indices), &it, sz.data(), &k));
  return keys;
}

Tensor keys_of(const Tensor& t) { return index_keys(t._indices(), t.sizes().slice(0, t.sparse_dim())); }

Tensor match_keys(const Tensor& sorted_, const Tensor& keys) {
  Tensor pos = at::empty({keys.numel()}, keys.options().dtype(at::kLong));
  const Tensor sorted = sorted_.contiguous();
  const rs_tensor ts = describe(sorted), tk = describe(keys), tp = describe(pos);
  check(rs_sparse_match(current_stream_for(pos), &ts, &tk, &tp, nullptr, nullptr));
  return pos;
}

Tensor values_matched(const Tensor& sorted_, const Tensor& values_, const Tensor& keys) {
  std::vector<int64_t> vsizes = values_.sizes().vec();
  vsizes[0] = keys.numel();
  Tensor out = at::empty(vsizes, values_.options());
  if (out.numel() == 0) return out;
  const Tensor sorted = sorted_.contiguous(), values = values_.contiguous();
  const rs_tensor ts = describe(sorted), tk = describe(keys), tv = describe(values), to = describe(out);
  check(rs_sparse_match(current_stream_for(out), &ts, &tk, nullptr, &tv, &to));
  return out;
}

Tensor values_at(const Tensor& x_, const Tensor& y) {
  const Tensor x = x_.coalesce();
  return values_matched(keys_of(x), x._values(), keys_of(y));
}

bool sparse_mm_dtype(const Tensor& mat1) {
  const auto dt = mat1.scalar_type();
  return dt == at::kFloat || dt == at::kHalf || dt == at::kBFloat16 ||
         (dt == at::kDouble && rs_device_features(device(mat1.device().index()))->has_fp64);
}

void sparse_mm_into(rs_sparse_mm& p, int64_t M, const Tensor& t, const Tensor& mat2, const at::Scalar& beta,
                    const at::Scalar& alpha, const Tensor& out) {
  const int64_t N = mat2.size(1);
  const Tensor te = t.expand({M, N});
  // the kernel reads t and writes out element by element; anything else
  // that shares out's memory goes through a temporary
  const bool alone = !out.is_same(mat2) && (out.is_same(t) || !out.storage().is_alias_of(t.storage())) &&
                     !out.storage().is_alias_of(mat2.storage());
  if (!out.is_same(t)) at::native::resize_output(out, {M, N});
  Tensor dst = alone ? out : at::empty({M, N}, out.options());
  p.dense = describe(mat2);
  p.out = describe(dst);
  const rs_tensor td = describe(te);
  p.t = &td;
  p.alpha = alpha.toDouble();
  p.beta = beta.toDouble();
  check(rs_sparse_mm_run(current_stream_for(out), &p));
  if (!alone) out.copy_(dst);
}

TORCH_LIBRARY_IMPL(aten, SparsePrivateUse1, m) {
  m.impl("_coalesce", TORCH_FN(coalesce));
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("mul.out", TORCH_FN(mul_out));
  m.impl("addmm", TORCH_FN(addmm));
  m.impl("addmm.out", TORCH_FN(addmm_out));
  m.impl("addmm_", TORCH_FN(addmm_));
  m.impl("_sparse_sum_backward", TORCH_FN(sparse_sum_backward));
  m.impl("bmm", TORCH_FN(bmm));
  m.impl("index_select", TORCH_FN(index_select));
  m.impl("bmm.out", TORCH_FN(bmm_out));
}

}  // namespace russet
