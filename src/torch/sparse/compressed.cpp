// Compressed sparse tensors (CSR, CSC, BSR, BSC) on russet: the kernels that
// differ by device, on the C core's sparse engine (russet/sparse.h;
// docs/sparse.md): the row pointers from COO's row indices and back (every
// conversion between layouts goes through these), CSR @ dense and dense @
// CSR (addmm, which mm, matmul and `@` reach), sparse_sampled_addmm, and
// sums of 2-d CSR tensors with dense and CSR tensors (through COO's kernels). The device-generic kernels are in
// generic.cpp; other inputs (batched tensors, blocks, CSC products, other
// dtypes) run on the host, counted (host.cpp).
#include <ATen/ExpandUtils.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_convert_indices_from_coo_to_csr_ops.h>
#include <ATen/ops/_convert_indices_from_csr_to_coo_ops.h>
#include <ATen/ops/_sparse_csr_tensor_unsafe.h>
#include <ATen/ops/add.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/sparse_sampled_addmm_ops.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "russet/sparse.h"
#include "torch/adapter.h"
#include "torch/sparse/sparse.h"

namespace russet {

void host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);  // runtime/host_exec.cpp

namespace {

using at::Tensor;

Tensor& coo_to_csr_out(const Tensor& rows, int64_t size, bool out_int32, Tensor& out) {
  const auto dt = out_int32 ? at::kInt : at::kLong;
  if (rows.dim() != 1 || rows.device() != out.device() || out.scalar_type() != dt ||
      (rows.scalar_type() != at::kInt && rows.scalar_type() != at::kLong) || size < 0)
    return at::native::call_fallback_fn<&host_fallback, at::_ops::_convert_indices_from_coo_to_csr_out>::call(
        rows, size, out_int32, out);
  at::native::resize_output(out, {size + 1});
  Tensor crow = out_int32 || !out.is_contiguous() ? at::empty({size + 1}, rows.options().dtype(at::kLong)) : out;
  const Tensor r64 = rows.to(at::kLong);
  const rs_tensor rt = describe(r64), ct = describe(crow);
  check(rs_sparse_rows_to_crow(current_stream_for(rows), &rt, &ct));
  if (!out.is_same(crow)) out.copy_(crow);  // int32, or a strided out
  return out;
}

Tensor coo_to_csr(const Tensor& rows, int64_t size, bool out_int32) {
  Tensor out = at::empty({0}, rows.options().dtype(out_int32 ? at::kInt : at::kLong));
  return coo_to_csr_out(rows, size, out_int32, out);
}

Tensor& csr_to_coo_out(const Tensor& crow, const Tensor& col, bool out_int32, bool transpose, Tensor& out) {
  const auto dt = out_int32 ? at::kInt : at::kLong;
  if (crow.dim() != 1 || col.dim() != 1 || crow.numel() < 1 || crow.device() != out.device() ||
      col.device() != out.device() || out.scalar_type() != dt)
    return at::native::call_fallback_fn<&host_fallback, at::_ops::_convert_indices_from_csr_to_coo_out>::call(
        crow, col, out_int32, transpose, out);
  const int64_t nnz = col.numel();
  at::native::resize_output(out, {2, nnz});
  Tensor rows = at::empty({nnz}, crow.options().dtype(at::kLong));
  const Tensor c64 = crow.to(at::kLong).contiguous();
  const rs_tensor ct = describe(c64), rt = describe(rows);
  check(rs_sparse_crow_to_rows(current_stream_for(crow), &ct, &rt));
  out.select(0, transpose ? 1 : 0).copy_(rows);
  out.select(0, transpose ? 0 : 1).copy_(col);
  return out;
}

Tensor csr_to_coo(const Tensor& crow, const Tensor& col, bool out_int32, bool transpose) {
  Tensor out = at::empty({0}, crow.options().dtype(out_int32 ? at::kInt : at::kLong));
  return csr_to_coo_out(crow, col, out_int32, transpose, out);
}

// ---- addmm: t dense, mat1 CSR (M, K), mat2 dense (K, N)

// which operand is the CSR matrix of a product we compute: 1 (CSR @ dense),
// 2 (dense @ CSR), 0 (none: the host)
int csr_mm_operand(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const Tensor& out) {
  const bool first = mat1.layout() == at::kSparseCsr && mat2.layout() == at::kStrided;
  const bool second = mat1.layout() == at::kStrided && mat2.layout() == at::kSparseCsr;
  const Tensor& sp = first ? mat1 : mat2;
  const auto dt = sp.scalar_type();
  if ((!first && !second) || mat1.dim() != 2 || mat2.dim() != 2 || sp.dense_dim() != 0 ||
      t.layout() != at::kStrided || out.layout() != at::kStrided || mat2.size(0) != mat1.size(1) ||
      mat1.scalar_type() != dt || mat2.scalar_type() != dt || t.scalar_type() != dt || out.scalar_type() != dt ||
      !sparse_mm_dtype(sp))
    return 0;
  const auto d = sp.device();
  if (d.type() != kDevice || t.device() != d || mat1.device() != d || mat2.device() != d || out.device() != d)
    return 0;
  return at::is_expandable_to(t.sizes(), {mat1.size(0), mat2.size(1)}) ? (first ? 1 : 2) : 0;
}

// out = beta t + alpha S @ dense for S's row starts, column indices and values
void csr_times_dense(const Tensor& crow, const Tensor& col, const Tensor& values, int64_t M, const Tensor& t,
                     const Tensor& dense, const at::Scalar& beta, const at::Scalar& alpha, const Tensor& out) {
  const Tensor crow64 = crow.to(at::kLong).contiguous(), col64 = col.to(at::kLong);
  rs_sparse_mm p{};
  p.indices = describe(col64);
  p.values = describe(values);
  const rs_tensor ct = describe(crow64);
  p.crow = &ct;
  sparse_mm_into(p, M, t, dense, beta, alpha, out);
}

Tensor& addmm_out(const Tensor& t, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                  const at::Scalar& alpha, Tensor& out) {
  const int which = csr_mm_operand(t, mat1, mat2, out);
  if (which == 0)
    return at::native::call_fallback_fn<&sparse_host_fallback, at::_ops::addmm_out>::call(t, mat1, mat2, beta,
                                                                                          alpha, out);
  if (which == 1) {
    csr_times_dense(mat1.crow_indices(), mat1.col_indices(), mat1.values(), mat1.size(0), t, mat2, beta, alpha, out);
    return out;
  }
  // dense @ CSR: out^T = mat2^T @ mat1^T, and mat2^T's CSR is mat2's CSC
  const int64_t M = mat1.size(0), N = mat2.size(1);
  if (!out.is_same(t)) at::native::resize_output(out, {M, N});
  const Tensor csc = mat2.to_sparse_csc();
  const Tensor te = t.expand({M, N});
  csr_times_dense(csc.ccol_indices(), csc.row_indices(), csc.values(), N, out.is_same(t) ? out.t() : te.t(),
                  mat1.t(), beta, alpha, out.t());
  return out;
}

// ---- sparse_sampled_addmm: self CSR (M, N), mat1 (M, K), mat2 (K, N)

bool sddmm_natively(const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  const auto dt = self.scalar_type();
  const auto d = self.device();
  return self.layout() == at::kSparseCsr && self.dim() == 2 && self.dense_dim() == 0 &&
         mat1.layout() == at::kStrided && mat2.layout() == at::kStrided && mat1.dim() == 2 && mat2.dim() == 2 &&
         mat1.size(0) == self.size(0) && mat2.size(1) == self.size(1) && mat1.size(1) == mat2.size(0) &&
         mat1.scalar_type() == dt && mat2.scalar_type() == dt && sparse_mm_dtype(self) && d.type() == kDevice &&
         mat1.device() == d && mat2.device() == d;
}

Tensor sampled_addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                     const at::Scalar& alpha) {
  if (!sddmm_natively(self, mat1, mat2))
    return at::native::call_fallback_fn<&sparse_host_fallback, at::_ops::sparse_sampled_addmm>::call(
        self, mat1, mat2, beta, alpha);
  const Tensor crow = self.crow_indices(), col = self.col_indices(), values = self.values();
  Tensor out_values = at::empty({values.numel()}, values.options());
  const Tensor crow64 = crow.to(at::kLong).contiguous(), col64 = col.to(at::kLong);
  rs_sparse_sddmm p{};
  p.crow = describe(crow64);
  p.col = describe(col64);
  p.values = describe(values);
  p.a = describe(mat1);
  p.b = describe(mat2);
  p.out = describe(out_values);
  p.alpha = alpha.toDouble();
  p.beta = beta.toDouble();
  check(rs_sparse_sddmm_run(current_stream_for(self), &p));
  return at::_sparse_csr_tensor_unsafe(crow.clone(), col.clone(), out_values, self.sizes(),
                                       values.options().layout(at::kSparseCsr));
}

Tensor& sampled_addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const at::Scalar& beta,
                          const at::Scalar& alpha, Tensor& out) {
  if (!sddmm_natively(self, mat1, mat2) || out.layout() != at::kSparseCsr || out.scalar_type() != self.scalar_type())
    return at::native::call_fallback_fn<&sparse_host_fallback, at::_ops::sparse_sampled_addmm_out>::call(
        self, mat1, mat2, beta, alpha, out);
  const Tensor r = sampled_addmm(self, mat1, mat2, beta, alpha);
  out.resize_as_sparse_(r);
  out.copy_(r);
  return out;
}

// ---- add: dense + CSR, CSR + CSR (2-d, int64 indices), through COO's
// kernels: the sum of two CSR tensors is their entries' union, coalesced
// (CPU's result too), in CSR

bool plain_csr(const Tensor& t) {
  return t.layout() == at::kSparseCsr && t.dim() == 2 && t.dense_dim() == 0 &&
         t.crow_indices().scalar_type() == at::kLong;
}

Tensor& add_out(const Tensor& self, const Tensor& other, const at::Scalar& alpha, Tensor& out) {
  const auto dt = out.scalar_type();
  const bool same = self.device() == out.device() && other.device() == out.device() &&
                    out.device().type() == kDevice && self.scalar_type() == dt && other.scalar_type() == dt &&
                    self.sizes().equals(other.sizes());
  if (same && self.layout() == at::kStrided && out.layout() == at::kStrided && plain_csr(other)) {
    at::add_out(out, self, other.to_sparse(), alpha);  // dense + COO: the sparse engine
    return out;
  }
  if (same && plain_csr(self) && plain_csr(other) && out.layout() == at::kSparseCsr) {
    const Tensor sum = at::add(self.to_sparse(), other.to_sparse(), alpha).coalesce().to_sparse_csr();
    out.resize_as_sparse_(sum);
    out.copy_(sum);
    return out;
  }
  return at::native::call_fallback_fn<&sparse_host_fallback, at::_ops::add_out>::call(self, other, alpha, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_convert_indices_from_coo_to_csr", TORCH_FN(coo_to_csr));
  m.impl("_convert_indices_from_coo_to_csr.out", TORCH_FN(coo_to_csr_out));
  m.impl("_convert_indices_from_csr_to_coo", TORCH_FN(csr_to_coo));
  m.impl("_convert_indices_from_csr_to_coo.out", TORCH_FN(csr_to_coo_out));
}

TORCH_LIBRARY_IMPL(aten, SparseCsrPrivateUse1, m) {
  m.impl("addmm.out", TORCH_FN(addmm_out));
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("sparse_sampled_addmm", TORCH_FN(sampled_addmm));
  m.impl("sparse_sampled_addmm.out", TORCH_FN(sampled_addmm_out));
}

}  // namespace russet
