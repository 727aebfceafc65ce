// The sparse dispatch stubs of ATen's device-generic sparse kernels, for
// russet: without them such kernels (CSC <-> CSR conversions, sparse_mask of
// a sparse tensor) stop at ATen's internal assert "DispatchStub: missing
// kernel". flatten_indices and the intersections behind sparse_mask run on
// the sparse engine and russet's dense ops; the sparse-sparse product's
// stub, which russet's mul kernel (coo.cpp) never reaches, raises a clear
// error.
//
// ATen does not ship the header that declares these stubs
// (native/sparse/SparseStubs.h), so they are declared here, with the types
// of torch 2.11 to 2.13 (`nm -DC libtorch_cpu.so | grep _stub_DECLARE`
// shows them). Check them when the supported torch changes.
#include <ATen/native/DispatchStub.h>

#include <optional>
#include <vector>

#include "torch/adapter.h"
#include "torch/sparse/sparse.h"

namespace at::native {
using flatten_indices_fn = Tensor (*)(const Tensor& indices, IntArrayRef size);
DECLARE_DISPATCH(flatten_indices_fn, flatten_indices_stub)
using mul_sparse_sparse_out_fn = void (*)(Tensor& res, const Tensor& x, const Tensor& y);
DECLARE_DISPATCH(mul_sparse_sparse_out_fn, mul_sparse_sparse_out_stub)
using sparse_mask_intersection_out_fn = void (*)(Tensor& res, const Tensor& x, const Tensor& y,
                                                 const std::optional<Tensor>& x_hash_opt);
DECLARE_DISPATCH(sparse_mask_intersection_out_fn, sparse_mask_intersection_out_stub)
using sparse_mask_projection_out_fn = void (*)(Tensor& res, const Tensor& x, const Tensor& y,
                                               const std::optional<Tensor>& x_hash_opt, bool accumulate_matches);
DECLARE_DISPATCH(sparse_mask_projection_out_fn, sparse_mask_projection_out_stub)
}  // namespace at::native

namespace russet {
namespace {

using at::Tensor;

// the row-major position of each entry over `size` (indices: (sparse_dim, nnz)), in indices' dtype
Tensor flatten_indices(const Tensor& indices, at::IntArrayRef size) {
  return index_keys(indices, size).to(indices.scalar_type());
}

// res = y's entries with x's values at their indices (0 where x has none):
// x.sparse_mask(y) for a sparse x (values_at, coo.cpp).
void mask_intersection(Tensor& res, const Tensor& x, const Tensor& y) {
  TORCH_CHECK_NOT_IMPLEMENTED(x.sizes().equals(y.sizes()) && x.sparse_dim() == y.sparse_dim() &&
                                  x.dense_dim() == y.dense_dim(),
                              "russet: sparse_mask of a sparse tensor needs inputs of one shape and sparse_dim");
  set_sparse(res, y.sizes(), y.sparse_dim(), y._indices().clone(), values_at(x, y), y.is_coalesced());
}

void mask_intersection_stub(Tensor& res, const Tensor& x, const Tensor& y, const std::optional<Tensor>&) {
  mask_intersection(res, x, y);
}

void mask_projection_stub(Tensor& res, const Tensor& x, const Tensor& y, const std::optional<Tensor>&, bool) {
  mask_intersection(res, x, y);
}

void mul_sparse_sparse_stub(Tensor&, const Tensor&, const Tensor&) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "russet: this product of two sparse tensors (broadcast dense dims) has no "
                              "kernel on russet; move the operands to the CPU");
}

}  // namespace
}  // namespace russet

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(flatten_indices_stub, &russet::flatten_indices)
REGISTER_PRIVATEUSE1_DISPATCH(mul_sparse_sparse_out_stub, &russet::mul_sparse_sparse_stub)
REGISTER_PRIVATEUSE1_DISPATCH(sparse_mask_intersection_out_stub, &russet::mask_intersection_stub)
REGISTER_PRIVATEUSE1_DISPATCH(sparse_mask_projection_out_stub, &russet::mask_projection_stub)
}  // namespace at::native
