// Linear algebra (docs/linalg.md): the adapter of the C core's linear-
// algebra engine (russet/linalg.h: Cholesky, LU, QR, triangular solves, row
// interchanges, the Householder product, each one dispatch over a whole
// batch, and what the ops assemble from them: the solves, lu_unpack,
// determinants, QR's factors, and by Jacobi's sweeps the SVD and the
// Hermitian eigendecomposition, values and vectors). This
// file checks arguments as ATen does, lays results out as CPU does and
// calls the engine. float32 and complex64 run natively, float64 and
// complex128 too where the device has float64 arithmetic (not the apple
// profile: host execution there; Jacobi stays float32/complex64). ormqr
// is here too (rs_ormqr); lstsq and matrix_exp have files of their own;
// eig and ldl are host execution.
#include "torch/pointwise.h"
#include "torch/same_device.h"

#include <ATen/ExpandUtils.h>
#include <ATen/TensorUtils.h>
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/_cholesky_solve_helper_ops.h>
#include <ATen/ops/cholesky_inverse_ops.h>
#if __has_include(<ATen/ops/cholesky_ops.h>)  // torch.cholesky: gone from torch 2.15
#define RUSSET_HAS_CHOLESKY 1
#include <ATen/ops/cholesky_ops.h>
#endif
#include <ATen/ops/_linalg_det_meta.h>
#include <ATen/ops/_linalg_det_ops.h>
#include <ATen/ops/_linalg_slogdet_meta.h>
#include <ATen/ops/_linalg_slogdet_ops.h>
#include <ATen/ops/_linalg_solve_ex_meta.h>
#include <ATen/ops/_linalg_solve_ex_ops.h>
#include <ATen/ops/empty_strided.h>
#include <c10/util/strides.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/geqrf_ops.h>
#include <ATen/ops/linalg_householder_product_ops.h>
#include <ATen/ops/ormqr_ops.h>
#include <ATen/ops/linalg_qr_meta.h>
#include <ATen/ops/linalg_qr_ops.h>
#include <ATen/ops/linalg_cholesky_ex_meta.h>
#include <ATen/ops/linalg_cholesky_ex_ops.h>
#include <ATen/ops/linalg_inv_ex_meta.h>
#include <ATen/ops/linalg_inv_ex_ops.h>
#include <ATen/ops/linalg_lu_meta.h>
#include <ATen/ops/linalg_lu_ops.h>
#include <ATen/ops/linalg_lu_factor_ex_meta.h>
#include <ATen/ops/linalg_lu_factor_ex_ops.h>
#include <ATen/ops/linalg_lu_solve_meta.h>
#include <ATen/ops/linalg_lu_solve_ops.h>
#include <ATen/ops/linalg_solve_triangular_ops.h>
#include <ATen/ops/lu_unpack_meta.h>
#include <ATen/ops/lu_unpack_ops.h>
#include <ATen/ops/triangular_solve_ops.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/_linalg_eigh_meta.h>
#include <ATen/ops/_linalg_eigh_ops.h>
#include <ATen/ops/_linalg_svd_meta.h>
#include <ATen/ops/_linalg_svd_ops.h>
#include <ATen/ops/isinf.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/linalg_matrix_exp_ops.h>
#include <ATen/ops/exp.h>
#include <torch/library.h>
#include <algorithm>

#include "russet/linalg.h"

namespace russet {
namespace {

using at::Tensor;

// CPU's and CUDA's layout of a LAPACK-style result: each matrix of the
// batch column-major, the matrices one after another (ATen's
// batched_matrix_contiguous_strides with f_contig, whose header would bring
// in ATen/Functions.h)
c10::DimVector column_major_strides(at::IntArrayRef sizes) {
  c10::DimVector st = c10::contiguous_strides(sizes);
  const size_t d = st.size();
  if (d >= 2) {
    st[d - 1] = std::max<int64_t>(sizes[d - 2], 1);
    st[d - 2] = 1;
  }
  return st;
}

// t's values in that layout (one copy; t itself when it already has it)
Tensor lapack_layout(const Tensor& t) {
  if (t.dim() < 2) return t;
  auto st = column_major_strides(t.sizes());
  // (a conjugate view, as an upper factor's mH, is resolved: CPU returns plain tensors)
  if (t.strides() == at::IntArrayRef(st) && !t.is_conj()) return t;
  Tensor r = at::empty_strided(t.sizes(), st, t.options());
  r.copy_(t);
  return r;
}

// write_out for those results: an `out` that must be resized gets that
// layout, as on CPU (resize_output's warning included)
Tensor& write_lapack_out(Tensor& out, const Tensor& r) {
  if (at::native::resize_output(out, r.sizes()) && out.dim() >= 2)
    out.as_strided_(r.sizes(), column_major_strides(r.sizes()));
  out.copy_(r);
  return out;
}

// the elements of a batch of sizes (..., `trailing` dims)
int64_t batch_count_of(at::IntArrayRef sizes, int trailing) {
  int64_t p = 1;
  for (size_t i = 0; i + trailing < sizes.size(); ++i) p *= sizes[i];
  return p;
}
// the matrices in a batch of sizes (..., rows, cols)
int64_t batch_count(at::IntArrayRef sizes) { return batch_count_of(sizes, 2); }

// a 3-d (P, rows, cols) view or copy of a batch of matrices, conj and neg
// bits resolved (the engine reads plain values)
Tensor batched(const Tensor& t) {
  return t.resolve_conj().resolve_neg().reshape({batch_count(t.sizes()), t.size(-2), t.size(-1)});
}

// a contiguous copy of t of the given sizes, to work on in place
Tensor work_copy(const Tensor& t, at::IntArrayRef sizes) {
  return t.resolve_conj().resolve_neg().reshape(sizes).clone(at::MemoryFormat::Contiguous);
}

// An output as the engine writes it: a (P, rows, cols) view of a batch of
// matrices (or (P, len) of vectors, (P) of scalars: `trailing` dims kept),
// out itself where its strides allow that view, else a contiguous
// stand-in that finish() copies into out. No view (nullptr) when empty.
struct EngineOut {
  Tensor& out;
  Tensor view;
  rs_tensor desc{};
  bool stand_in = false;
  EngineOut(Tensor& o, int trailing) : out(o) {
    if (!out.defined() || out.numel() == 0) return;
    std::vector<int64_t> shape{batch_count_of(out.sizes(), trailing)};
    for (int d = trailing; d > 0; --d) shape.push_back(out.size(-d));
    if (auto st = at::detail::computeStride(out.sizes(), out.strides(), shape)) {
      view = out.as_strided(shape, *st, out.storage_offset());
    } else {
      view = at::empty(shape, out.options());
      stand_in = true;
    }
    desc = describe(view);
  }
  const rs_tensor* get() const { return view.defined() ? &desc : nullptr; }
  void finish() {
    if (stand_in) out.copy_(view.view(out.sizes()));
  }
};

// The lower factor of the lower triangles of a (P, n, n) batch (read
// conjugated with conj: the upper ones through a transposed view) and info
void cholesky_lower(const Tensor& a, bool conj, Tensor& L, Tensor& info) {
  rs_tensor ta = describe(a), tl = describe(L), ti = describe(info);
  check_or_host(rs_cholesky(current_stream_for(a), &ta, conj, &tl, &ti));
}

// The factor (lower, or upper as the lower factor of A^H transposed back)
// and info, shaped as self
std::tuple<Tensor, Tensor> cholesky_factor(const Tensor& self, bool upper) {
  const int64_t n = self.size(-1);
  std::vector<int64_t> bshape(self.sizes().begin(), self.sizes().end() - 2);
  int64_t p = 1;
  for (int64_t v : bshape) p *= v;
  Tensor info = at::zeros(bshape, self.options().dtype(at::kInt));
  if (self.numel() == 0) return {at::empty_like(self, at::MemoryFormat::Contiguous), info};
  Tensor a = batched(self);
  if (upper) a = a.mT();  // the upper triangle, read conjugated: the lower one of A^H
  Tensor lw = at::empty({p, n, n}, self.options()), iw = at::empty({p}, info.options());
  cholesky_lower(a, upper && self.is_complex(), lw, iw);
  return {(upper ? lw.mH() : lw).reshape(self.sizes()), iw.reshape(bshape)};
}

std::tuple<Tensor&, Tensor&> cholesky_ex_out(const Tensor& self, bool upper, bool check_errors, Tensor& L,
                                            Tensor& info) {
  return native_or_host<at::_ops::linalg_cholesky_ex_L>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, self);
        OutOps<at::meta::structured_linalg_cholesky_ex> m(L, info);
        m.meta(self, upper, check_errors);
        auto [lf, inf] = cholesky_factor(self, upper);
        L.copy_(lf);
        info.copy_(inf);
        if (check_errors) at::_linalg_check_errors(info, "linalg.cholesky_ex", self.dim() == 2);
        return {L, info};
      },
      self, upper, check_errors, L, info);
}

#if RUSSET_HAS_CHOLESKY
// torch.cholesky (deprecated): the factor, errors checked (one sync, as CPU)
Tensor cholesky_checked(const Tensor& self, bool upper) {
  // ATen's cholesky (CPU and CUDA) returns an empty input's shape before any check
  if (self.numel() == 0) return at::empty_like(self, at::MemoryFormat::Contiguous);
  return native_or_host<at::_ops::cholesky>(
      [&]() -> Tensor {
        host_unless(rs_linalg_computes, self);
        TORCH_CHECK(self.dim() >= 2, "cholesky: The input tensor A must have at least 2 dimensions.");
        TORCH_CHECK(self.size(-1) == self.size(-2), "cholesky: A must be batches of square matrices, but they are ",
                    self.size(-2), " by ", self.size(-1), " matrices");
        auto [lf, info] = cholesky_factor(self, upper);
        at::_linalg_check_errors(info, "cholesky", self.dim() == 2);
        return lapack_layout(lf);
      },
      self, upper);
}

Tensor& cholesky_out(const Tensor& self, bool upper, Tensor& out) {
  return native_or_host<at::_ops::cholesky_out>(
      [&]() -> Tensor& {
        host_unless(rs_linalg_computes, self);
        return write_out(out, cholesky_checked(self, upper));
      },
      self, upper, out);
}
#endif

// A X = B for triangular A (..., n, n) read conjugated with conj (a
// transposed view then reads A^H), B (..., n, k); batch dims broadcast.
// Returns X, contiguous.
Tensor trsm(const Tensor& A, bool conj, const Tensor& B, bool upper, bool unit) {
  const int64_t n = A.size(-1), k = B.size(-1);
  std::vector<int64_t> batch = at::infer_size(A.sizes().slice(0, A.dim() - 2), B.sizes().slice(0, B.dim() - 2));
  std::vector<int64_t> as = batch, bs = batch;
  as.insert(as.end(), {n, n});
  bs.insert(bs.end(), {n, k});
  Tensor a = batched(A.expand(as));
  Tensor x = work_copy(B.expand(bs), bs);
  if (x.numel() == 0) return x;
  Tensor xv = batched(x);
  rs_tensor ta = describe(a), tx = describe(xv);
  check_or_host(rs_triangular_solve(current_stream_for(A), &ta, conj, upper, unit, &tx));
  return x;
}

// linalg.solve_triangular: A X = B (left), or X A = B <=> A^T X^T = B^T
// (A^T: the other triangle). Only A's triangle is read, as LAPACK's trsm.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return native_or_host<at::_ops::linalg_solve_triangular>(
      [&]() -> Tensor {
        host_unless(rs_linalg_computes, A);
        if (A.scalar_type() != B.scalar_type()) throw NeedsHost();
        TORCH_CHECK(A.dim() >= 2 && B.dim() >= 2, "linalg.solve_triangular: The input tensor A and B must have ",
                    "at least 2 dimensions.");
        const int64_t n = A.size(-1);
        TORCH_CHECK(A.size(-2) == n, "linalg.solve_triangular: A must be batches of square matrices, but they are ",
                    A.size(-2), " by ", n, " matrices");
        TORCH_CHECK(left ? B.size(-2) == n : B.size(-1) == n, "linalg.solve_triangular: Incompatible shapes of A ",
                    "and B for the equation ", left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1),
                    " and ", B.size(-2), "x", B.size(-1), ")");
        if (left) return trsm(A, false, B, upper, unitriangular);
        return trsm(A.mT(), false, B.mT(), !upper, unitriangular).mT();
      },
      A, B, upper, left, unitriangular);
}

Tensor& solve_triangular_out(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular,
                             Tensor& out) {
  return native_or_host<at::_ops::linalg_solve_triangular_out>(
      [&]() -> Tensor& {
        host_unless(rs_linalg_computes, A);
        if (A.scalar_type() != B.scalar_type()) throw NeedsHost();
        return write_lapack_out(out, solve_triangular(A, B, upper, left, unitriangular));
      },
      A, B, upper, left, unitriangular, out);
}

// cholesky_solve's kernel: A = L L^H (or U^H U) from its factor
// (rs_cholesky_solve; the caller broadcast the batch dims)
Tensor cholesky_solve_helper(const Tensor& B, const Tensor& F, bool upper) {
  return native_or_host<at::_ops::_cholesky_solve_helper>(
      [&]() -> Tensor {
        host_unless(rs_linalg_computes, F);
        if (F.scalar_type() != B.scalar_type()) throw NeedsHost();
        Tensor x = work_copy(B, B.sizes());
        if (x.numel() == 0) return lapack_layout(x);
        Tensor f = batched(F), xv = batched(x);
        rs_tensor tf = describe(f), tx = describe(xv);
        check_or_host(rs_cholesky_solve(current_stream_for(F), &tf, upper, &tx));
        return lapack_layout(x);
      },
      B, F, upper);
}

// cholesky_inverse: A^-1 from A's factor, as cholesky_solve(I)
Tensor cholesky_inverse_of(const Tensor& F, bool upper) {
  return native_or_host<at::_ops::cholesky_inverse>(
      [&]() -> Tensor {
        host_unless(rs_linalg_computes, F);
        TORCH_CHECK(F.dim() >= 2, "cholesky_inverse: The input tensor A must have at least 2 dimensions.");
        TORCH_CHECK(F.size(-1) == F.size(-2), "cholesky_inverse: A must be batches of square matrices, but they ",
                    "are ", F.size(-2), " by ", F.size(-1), " matrices");
        Tensor eye = at::eye(F.size(-1), F.options()).expand(F.sizes());
        return cholesky_solve_helper(eye, F, upper);
      },
      F, upper);
}

Tensor& cholesky_inverse_out(const Tensor& F, bool upper, Tensor& out) {
  return native_or_host<at::_ops::cholesky_inverse_out>(
      [&]() -> Tensor& {
        host_unless(rs_linalg_computes, F);
        return write_out(out, cholesky_inverse_of(F, upper));
      },
      F, upper, out);
}

// triangular_solve (deprecated): A X = B with op(A) = A or A^T; returns X and
// a copy of A broadcast to the batch
std::tuple<Tensor&, Tensor&> triangular_solve_out(const Tensor& B, const Tensor& A, bool upper, bool transpose,
                                                  bool unitriangular, Tensor& X, Tensor& M) {
  return native_or_host<at::_ops::triangular_solve_X>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        if (A.scalar_type() != B.scalar_type()) throw NeedsHost();
        TORCH_CHECK(A.dim() >= 2 && B.dim() >= 2, "torch.triangular_solve: Expected b to have at least 2 ",
                    "dimensions, but it has ", B.dim(), " dimensions instead");
        Tensor x = trsm(transpose ? A.mT() : A, false, B, upper != transpose, unitriangular);
        std::vector<int64_t> ms(x.sizes().begin(), x.sizes().end() - 2);
        ms.insert(ms.end(), {A.size(-2), A.size(-1)});
        write_lapack_out(X, x);
        write_lapack_out(M, A.expand(ms));
        return {X, M};
      },
      B, A, upper, transpose, unitriangular, X, M);
}

// ---- LU with partial pivoting, and what is built on it

// getf2 on a (P, m, n) batch in place (russet/linalg.h): pivots 1-based
// (int32), info the first zero pivot's column + 1
void lu_inplace(Tensor& A, Tensor& piv, Tensor& info) {
  rs_tensor ta = describe(A), tp = describe(piv), ti = describe(info);
  check_or_host(rs_lu_factor(current_stream_for(A), &ta, &tp, &ti));
}

std::tuple<Tensor&, Tensor&, Tensor&> lu_factor_ex_out(const Tensor& A, bool pivot, bool check_errors, Tensor& LU,
                                                       Tensor& pivots, Tensor& info) {
  return native_or_host<at::_ops::linalg_lu_factor_ex_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        if (!pivot) throw NeedsHost();  // without pivoting: CPU's error
        OutOps<at::meta::structured_linalg_lu_factor_ex> mt(LU, pivots, info);
        mt.meta(A, pivot, check_errors);
        if (A.numel() == 0) {
          info.zero_();
          return {LU, pivots, info};
        }
        const int64_t P = batch_count(A.sizes()), m = A.size(-2), n = A.size(-1);
        Tensor w = work_copy(A, {P, m, n});
        Tensor pw = at::empty({P, std::min(m, n)}, pivots.options()), iw = at::empty({P}, info.options());
        lu_inplace(w, pw, iw);
        LU.copy_(w.reshape(A.sizes()));
        pivots.copy_(pw.reshape(pivots.sizes()));
        info.copy_(iw.reshape(info.sizes()));
        if (check_errors) at::_linalg_check_errors(info, "torch.linalg.lu_factor_ex", A.dim() == 2);
        return {LU, pivots, info};
      },
      A, pivot, check_errors, LU, pivots, info);
}

// A X = B from A's LU (A = P L U), or A^H X = B with adjoint (rs_lu_solve);
// LU, pivots and B already share the batch: (P, n, n), (P, n), (P, n, k).
// Returns X, a new contiguous tensor.
Tensor lu_solve_left(const Tensor& lu, const Tensor& piv, const Tensor& b, bool adjoint) {
  Tensor x = work_copy(b, b.sizes());
  if (x.numel() == 0) return x;
  Tensor l = batched(lu), p = piv.to(at::kInt);
  rs_tensor tl = describe(l), tp = describe(p), tx = describe(x);
  check_or_host(rs_lu_solve(current_stream_for(b), &tl, &tp, adjoint, &tx));
  return x;
}

Tensor& lu_solve_out(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint, Tensor& out) {
  return native_or_host<at::_ops::linalg_lu_solve_out>(
      [&]() -> Tensor& {
        same_device(LU, pivots, B, out);  // (before the host path, which would take any device)
        host_unless(rs_linalg_computes, LU);
        if (B.scalar_type() != LU.scalar_type()) throw NeedsHost();
        OutOps<at::meta::structured_linalg_lu_solve> mt(out);
        mt.meta(LU, pivots, B, left, adjoint);
        if (out.numel() == 0) return out;
        // X A = B  <=>  A^H X^H = B^H (adjoint flips)
        Tensor b = left ? B : B.mH();
        const bool adj = left ? adjoint : !adjoint;
        const int64_t n = LU.size(-1);
        std::vector<int64_t> batch =
            at::infer_size(at::infer_size(LU.sizes().slice(0, LU.dim() - 2), pivots.sizes().slice(0, pivots.dim() - 1)),
                           b.sizes().slice(0, b.dim() - 2));
        int64_t P = 1;
        for (int64_t v : batch) P *= v;
        std::vector<int64_t> ls = batch, ps = batch, bs = batch;
        ls.insert(ls.end(), {n, n});
        ps.push_back(n);
        bs.insert(bs.end(), {n, b.size(-1)});
        Tensor x = lu_solve_left(LU.expand(ls).reshape({P, n, n}), pivots.expand(ps).reshape({P, n}),
                                 b.expand(bs).reshape({P, n, b.size(-1)}), adj)
                       .reshape(bs);
        out.copy_(left ? x : x.mH());
        return out;
      },
      LU, pivots, B, left, adjoint, out);
}

// linalg.solve: LU of A, then the solve; B may be a vector (or a batch of
// them), as _linalg_solve_ex's meta decides
std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> solve_ex_out(const Tensor& A, const Tensor& B, bool left,
                                                            bool check_errors, Tensor& result, Tensor& LU,
                                                            Tensor& pivots, Tensor& info) {
  return native_or_host<at::_ops::_linalg_solve_ex_result>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        if (B.scalar_type() != A.scalar_type()) throw NeedsHost();
        OutOps<at::meta::structured__linalg_solve_ex> mt(result, LU, pivots, info);
        mt.meta(A, B, left, check_errors);
        lu_factor_ex_out(A, true, false, LU, pivots, info);
        // linalg.solve's vector case: B (..., n) against A (..., n, n)
        const bool vector =
            B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, A.dim() - 1));
        Tensor b = vector ? B.unsqueeze(-1) : B;
        Tensor x = at::empty({0}, result.options());
        lu_solve_out(LU, pivots, b, left, false, x);
        result.copy_(vector ? x.squeeze(-1) : x);
        if (check_errors) at::_linalg_check_errors(info, "torch.linalg.solve_ex", A.dim() == 2);
        return {result, LU, pivots, info};
      },
      A, B, left, check_errors, result, LU, pivots, info);
}

// linalg.inv: the solve with the identity
std::tuple<Tensor&, Tensor&> inv_ex_out(const Tensor& A, bool check_errors, Tensor& inverse, Tensor& info) {
  return native_or_host<at::_ops::linalg_inv_ex_inverse>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        OutOps<at::meta::structured_linalg_inv_ex> mt(inverse, info);
        mt.meta(A, check_errors);
        Tensor lu = at::empty({0}, A.options()), piv = at::empty({0}, info.options());
        lu_factor_ex_out(A, true, false, lu, piv, info);
        Tensor eye = at::eye(A.size(-1), A.options()).expand(A.sizes());
        Tensor x = at::empty({0}, A.options());
        lu_solve_out(lu, piv, eye, true, false, x);
        inverse.copy_(x);
        if (check_errors) at::_linalg_check_errors(info, "torch.linalg.inv_ex", A.dim() == 2);
        return {inverse, info};
      },
      A, check_errors, inverse, info);
}

// lu_unpack: P, L, U with A = P L U (L unit lower m x k, U upper k x n;
// rs_lu_unpack)
std::tuple<Tensor&, Tensor&, Tensor&> lu_unpack_out(const Tensor& LU, const Tensor& piv, bool unpack_data,
                                                    bool unpack_pivots, Tensor& P, Tensor& L, Tensor& U) {
  return native_or_host<at::_ops::lu_unpack_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, LU);
        OutOps<at::meta::structured_lu_unpack> mt(P, L, U);
        mt.meta(LU, piv, unpack_data, unpack_pivots);
        const Tensor lu = batched(LU), pv = piv.to(at::kInt).reshape({lu.size(0), piv.size(-1)});
        const rs_tensor tl = describe(lu), tp = describe(pv);
        Tensor none;
        EngineOut p(unpack_pivots ? P : none, 2), l(unpack_data ? L : none, 2), u(unpack_data ? U : none, 2);
        check_or_host(rs_lu_unpack(current_stream_for(LU), &tl, &tp, p.get(), l.get(), u.get()));
        p.finish(), l.finish(), u.finish();
        return {P, L, U};
      },
      LU, piv, unpack_data, unpack_pivots, P, L, U);
}

// det's and slogdet's factor, into their LU and pivots as ATen returns them:
// the LU of A^T for a contiguous real A (det(A^T) = det(A); their backward
// expects that factor), else of A
void det_factor(const Tensor& A, Tensor& LU, Tensor& pivots) {
  Tensor info = at::empty({0}, pivots.options());
  lu_factor_ex_out(A.is_contiguous() && !A.is_complex() ? A.mH() : A, true, false, LU, pivots, info);
}

// det (rs_det): prod(diag(U)), negated for an odd count of rows swapped;
// slogdet (det NULL): its sign and log |det| (rs_det with det NULL)
void det_from_factor(const Tensor& LU, const Tensor& pivots, Tensor* det, Tensor* sign, Tensor* logabsdet) {
  const Tensor lu = batched(LU), pv = pivots.reshape({lu.size(0), LU.size(-1)});
  const rs_tensor tl = describe(lu), tp = describe(pv);
  Tensor none;
  EngineOut d(det ? *det : none, 0), sg(sign ? *sign : none, 0), la(logabsdet ? *logabsdet : none, 0);
  if (lu.size(0) == 0) return;
  check_or_host(rs_det(current_stream_for(LU), &tl, &tp, d.get(), sg.get(), la.get()));
  d.finish(), sg.finish(), la.finish();
}

std::tuple<Tensor&, Tensor&, Tensor&> det_out(const Tensor& A, Tensor& result, Tensor& LU, Tensor& pivots) {
  return native_or_host<at::_ops::_linalg_det_result>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        OutOps<at::meta::structured__linalg_det> mt(result, LU, pivots);
        mt.meta(A);
        det_factor(A, LU, pivots);
        det_from_factor(LU, pivots, &result, nullptr, nullptr);
        return {result, LU, pivots};
      },
      A, result, LU, pivots);
}

// linalg.lu: the factor, unpacked
std::tuple<Tensor&, Tensor&, Tensor&> lu_full_out(const Tensor& A, bool pivot, Tensor& P, Tensor& L, Tensor& U) {
  return native_or_host<at::_ops::linalg_lu_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        if (!pivot) throw NeedsHost();
        OutOps<at::meta::structured_linalg_lu> mt(P, L, U);
        mt.meta(A, pivot);
        Tensor lu = at::empty({0}, A.options()), piv = at::empty({0}, A.options().dtype(at::kInt)),
               info = at::empty({0}, A.options().dtype(at::kInt));
        lu_factor_ex_out(A, true, false, lu, piv, info);
        return lu_unpack_out(lu, piv, true, true, P, L, U);
      },
      A, pivot, P, L, U);
}

// slogdet: the sign and log |det| from the factor (LU and pivots as ATen
// returns them: of A^T for a contiguous real A, as det)
std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> slogdet_out(const Tensor& A, Tensor& sign, Tensor& logabsdet,
                                                           Tensor& LU, Tensor& pivots) {
  return native_or_host<at::_ops::_linalg_slogdet_sign>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        OutOps<at::meta::structured__linalg_slogdet> mt(sign, logabsdet, LU, pivots);
        mt.meta(A);
        det_factor(A, LU, pivots);
        det_from_factor(LU, pivots, nullptr, &sign, &logabsdet);
        return {sign, logabsdet, LU, pivots};
      },
      A, sign, logabsdet, LU, pivots);
}

// ---- QR by Householder reflections, as LAPACK's geqr2 / org2r (russet/linalg.h)

// geqr2 on a (P, m, n) batch in place, tau (P, min(m, n))
void qr_inplace(Tensor& A, Tensor& tau) {
  rs_tensor ta = describe(A), tt = describe(tau);
  check_or_host(rs_geqrf(current_stream_for(A), &ta, &tt));
}

// org2r: Q = H_0 H_1 ... H_{k-1} on the first q columns of the identity (P, m, q)
Tensor householder_q(const Tensor& a, const Tensor& tau, int64_t q) {
  Tensor Q = at::empty({a.size(0), a.size(1), q}, a.options());
  if (Q.numel() == 0) return Q;
  Tensor v = a.resolve_conj().resolve_neg(), t = tau.resolve_conj().resolve_neg();
  rs_tensor tv = describe(v), tt = describe(t), tq = describe(Q);
  check_or_host(rs_householder_product(current_stream_for(a), &tv, &tt, &tq));
  return Q;
}

std::tuple<Tensor&, Tensor&> geqrf_out(const Tensor& self, Tensor& a, Tensor& tau) {
  return native_or_host<at::_ops::geqrf_a>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, self);
        TORCH_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
        const int64_t P = batch_count(self.sizes()), m = self.size(-2), n = self.size(-1);
        std::vector<int64_t> ts(self.sizes().begin(), self.sizes().end() - 2);
        ts.push_back(std::min(m, n));
        Tensor w = work_copy(self, {P, m, n});
        Tensor tw = at::zeros({P, std::min(m, n)}, self.options());
        if (w.numel() > 0) qr_inplace(w, tw);
        write_out(a, w.reshape(self.sizes()));
        write_out(tau, tw.reshape(ts));
        return {a, tau};
      },
      self, a, tau);
}

Tensor& householder_product_out(const Tensor& input, const Tensor& tau, Tensor& out) {
  return native_or_host<at::_ops::linalg_householder_product_out>(
      [&]() -> Tensor& {
        host_unless(rs_linalg_computes, input);
        if (tau.scalar_type() != input.scalar_type()) throw NeedsHost();
        TORCH_CHECK(input.dim() >= 2, "torch.linalg.householder_product: input must have at least 2 dimensions.");
        TORCH_CHECK(input.size(-2) >= input.size(-1), "torch.linalg.householder_product: input.shape[-2] must be ",
                    "greater than or equal to input.shape[-1]");
        TORCH_CHECK(input.size(-1) >= tau.size(-1), "torch.linalg.householder_product: input.shape[-1] must be ",
                    "greater than or equal to tau.shape[-1]");
        const int64_t P = batch_count(input.sizes()), m = input.size(-2), n = input.size(-1);
        Tensor a = input.reshape({P, m, n});
        Tensor q = householder_q(a, tau.reshape({P, tau.size(-1)}), n);
        return write_out(out, q.reshape(input.sizes()));
      },
      input, tau, out);
}

// the functional forms (ATen does not route them through the out= ones)
std::tuple<Tensor, Tensor> geqrf_fn(const Tensor& self) {
  Tensor a = at::empty({0}, self.options()), tau = at::empty({0}, self.options());
  geqrf_out(self, a, tau);
  return {lapack_layout(a), tau};
}

Tensor householder_product_fn(const Tensor& input, const Tensor& tau) {
  Tensor out = at::empty({0}, input.options());
  return lapack_layout(householder_product_out(input, tau, out));
}

// ormqr (rs_ormqr): the Q of geqrf's reflectors, or its conjugate
// transpose, applied to other from the left or the right, the result laid
// out as CPU's (column-major matrices; out= below). Arguments ATen would refuse
// (shapes, batches, dtypes) go to the host, whose kernel raises its errors.
Tensor& ormqr_out(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose,
                  Tensor& out) {
  return native_or_host<at::_ops::ormqr_out>(
      [&]() -> Tensor& {
        host_unless(rs_linalg_computes, other);
        same_device(input, tau, other, out);
        const int64_t d = input.dim();
        const bool usual = d >= 2 && other.dim() == d && tau.dim() == d - 1 &&
                           input.scalar_type() == other.scalar_type() && tau.scalar_type() == other.scalar_type() &&
                           out.scalar_type() == other.scalar_type() &&
                           input.sizes().slice(0, d - 2) == other.sizes().slice(0, d - 2) &&
                           tau.sizes().slice(0, d - 2) == input.sizes().slice(0, d - 2);
        const int64_t mq = usual ? other.size(left ? -2 : -1) : 0;  // Q's order: other's rows (left) or columns
        if (!usual || mq != input.size(-2) || tau.size(-1) != std::min(mq, input.size(-1)))
          throw NeedsHost{"ormqr: arguments that ATen checks"};
        Tensor r = at::empty_strided(other.sizes(), column_major_strides(other.sizes()), other.options());
        if (r.numel() > 0) {
          const int64_t P = batch_count(other.sizes());
          Tensor v = batched(input), c = batched(other);
          Tensor t = tau.resolve_conj().resolve_neg().reshape({P, tau.size(-1)});
          Tensor r3 = r.view({P, other.size(-2), other.size(-1)});
          rs_tensor tv = describe(v), tt = describe(t), tc = describe(c), tr = describe(r3);
          check_or_host(rs_ormqr(current_stream_for(other), &tv, &tt, &tc, left, transpose, &tr));
        }
        // CPU's: an empty out becomes column-major, one resized from
        // other sizes row-major, one of the right shape keeps its strides
        return out.numel() == 0 ? write_lapack_out(out, r) : write_out(out, r);
      },
      input, tau, other, left, transpose, out);
}

Tensor ormqr_fn(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  Tensor out = at::empty({0}, input.options());
  return ormqr_out(input, tau, other, left, transpose, out);
}

// linalg.qr (rs_qr): R (k or m rows) and, unless mode 'r', Q (k or m columns)
std::tuple<Tensor&, Tensor&> qr_out(const Tensor& A, c10::string_view mode, Tensor& Q, Tensor& R) {
  return native_or_host<at::_ops::linalg_qr_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        host_unless(rs_linalg_computes, A);
        OutOps<at::meta::structured_linalg_qr> mt(Q, R);
        mt.meta(A, mode);
        const Tensor a = batched(A);
        const rs_tensor ta = describe(a);
        EngineOut q(Q, 2), r(R, 2);
        if (q.get() || r.get()) check_or_host(rs_qr(current_stream_for(A), &ta, q.get(), r.get()));
        q.finish(), r.finish();
        return {Q, R};
      },
      A, mode, Q, R);
}

// float32 and complex64: the Jacobi iterations below (their stopping rule
// and thresholds are float32's)
bool single_precision(const Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kComplexFloat;
}

// ---- the SVD (_linalg_svd: linalg.svd and svdvals, matrix_norm
// 'nuc'/2/-2, cond, matrix_rank, pinv, lstsq's gelsd, and the gradients
// that need U and V) by one-sided Jacobi (Hestenes, rs_svd): the columns
// of W = A (m >= n, else A^H, a zero column added for odd n) are rotated
// pairwise until orthogonal, the rotations accumulated into V; the
// singular values are then the column norms, to high relative accuracy,
// and U comes from the QR of the sorted columns. A fixed number of sweeps
// (no data-dependent stop, so no sync). The singular vectors' signs
// (phases) are Jacobi's, not LAPACK's: as on CUDA, they are unique only up
// to them.
constexpr int64_t kJacobiMaxN = 128;  // wider: host (n - 1 rounds a sweep)

// the singular values (P, min(m, n)) of A's matrices, descending, shaped
// (..., min(m, n)): rs_svdvals
Tensor singular_values(const Tensor& A) {
  const int64_t k = std::min(A.size(-2), A.size(-1)), P = batch_count(A.sizes());
  std::vector<int64_t> shape(A.sizes().begin(), A.sizes().end() - 2);
  shape.push_back(k);
  Tensor sv = at::empty({P, k}, A.options().dtype(c10::toRealValueType(A.scalar_type())));
  if (A.numel() == 0) return sv.zero_().reshape(shape);
  Tensor a = batched(A);
  rs_tensor ta = describe(a), ts = describe(sv);
  check_or_host(rs_svdvals(current_stream_for(A), &ta, &ts));
  return sv.reshape(shape);
}

// ---- eigenvalues and eigenvectors of Hermitian matrices (_linalg_eigh:
// linalg.eigh and eigvalsh) by cyclic two-sided Jacobi (rs_eigh: the
// matrix the triangle stands for, rotated pair by pair until diagonal, the
// rotations accumulated into the vectors), ascending as LAPACK's. The
// vectors' signs (phases) are Jacobi's, not LAPACK's (unique only up to
// them, as on CUDA).
std::tuple<Tensor&, Tensor&> eigh_out(const Tensor& A, c10::string_view uplo, bool compute_v, Tensor& values,
                                      Tensor& vectors) {
  return native_or_host<at::_ops::_linalg_eigh_eigenvalues>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        if (!single_precision(A) || A.size(-1) > kJacobiMaxN) throw NeedsHost();
        OutOps<at::meta::structured__linalg_eigh> mt(values, vectors);
        mt.meta(A, uplo, compute_v);
        const Tensor a = batched(A);
        const rs_tensor ta = describe(a);
        EngineOut w(values, 1), v(vectors, 2);
        if (w.get())
          check_or_host(rs_eigh(current_stream_for(A), &ta, uplo == "U" || uplo == "u", w.get(),
                                compute_v ? v.get() : nullptr));
        w.finish();
        v.finish();
        return {values, vectors};
      },
      A, uplo, compute_v, values, vectors);
}

// CPU's answer to non-finite input, with one sync (as CUDA's info check):
// a NaN raises LAPACK's error, naming the batch element as CPU does; an
// infinity (no NaN) gives CPU's NaN values, which the host computes
void check_svd_input(const Tensor& A) {
  if (A.numel() == 0) return;
  const Tensor a = batched(A);
  // per matrix: 2 if it holds a NaN, else 1 if an infinity, else 0
  const Tensor kind = at::isnan(a).flatten(1).any(1).to(at::kByte).mul_(2)
                          .add_(at::isinf(a).flatten(1).any(1).to(at::kByte)).cpu();
  const uint8_t* k = kind.data_ptr<uint8_t>();
  for (int64_t p = 0; p < kind.numel(); ++p)
    TORCH_CHECK_LINALG(k[p] < 2, "linalg.svd: ", A.dim() > 2 ? "(Batch element " + std::to_string(p) + "): " : "",
                "The algorithm failed to converge because the input matrix contained non-finite values.");
  for (int64_t p = 0; p < kind.numel(); ++p)
    if (k[p]) throw NeedsHost();
}

std::tuple<Tensor&, Tensor&, Tensor&> svd_out(const Tensor& A, bool full_matrices, bool compute_uv,
                                              std::optional<c10::string_view> driver, Tensor& U, Tensor& S,
                                              Tensor& Vh) {
  return native_or_host<at::_ops::_linalg_svd_U>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&> {
        if (!single_precision(A) || std::min(A.size(-2), A.size(-1)) > kJacobiMaxN) throw NeedsHost();
        OutOps<at::meta::structured__linalg_svd> mt(U, S, Vh);
        mt.meta(A, full_matrices, compute_uv, driver);
        check_svd_input(A);
        if (!compute_uv) {
          S.copy_(singular_values(A));
          return {U, S, Vh};
        }
        if (A.numel() == 0) {  // no values; the full bases of an empty matrix are identities, as CPU's
          for (Tensor* t : {&U, &Vh})
            if (t->numel()) t->copy_(at::eye(t->size(-2), t->size(-1), t->options()).expand_as(*t));
          return {U, S, Vh};
        }
        const Tensor a = batched(A);
        const rs_tensor ta = describe(a);
        EngineOut u(U, 2), sv(S, 1), vh(Vh, 2);
        check_or_host(rs_svd(current_stream_for(A), &ta, full_matrices, sv.get(), u.get(), vh.get()));
        u.finish();
        sv.finish();
        vh.finish();
        return {U, S, Vh};
      },
      A, full_matrices, compute_uv, driver, U, S, Vh);
}

// ---- linalg.matrix_exp (rs_matrix_exp: scaling and squaring of a Taylor
// polynomial, one sync for the scaling). Inputs CPU refuses (not square,
// not floating) run on the host for CPU's errors; 0 x 0 and 1 x 1 as CPU
// (a copy, exp). float16/bfloat16 on the host too: CPU computes them in
// the dtype, whose overflow (past 65504 for float16) gives its NaNs, and
// float32 arithmetic would give other values there.
Tensor matrix_exp(const Tensor& a) {
  return native_or_host<at::_ops::linalg_matrix_exp>(
      [&]() -> Tensor {
        if (a.dim() < 2 || a.size(-1) != a.size(-2) || !(at::isFloatingType(a.scalar_type()) || a.is_complex()) ||
            a.scalar_type() == at::kHalf || a.scalar_type() == at::kBFloat16)
          throw NeedsHost();
        const int64_t n = a.size(-1);
        if (n == 0) return a.clone();
        if (n == 1) return a.exp();
        host_if_no_fp64(a);
        Tensor out = at::empty(a.sizes(), a.options());
        const int64_t p = a.numel() / (n * n);
        const rs_tensor da = describe(a.reshape({p, n, n})), dout = describe(out.view({p, n, n}));
        check_or_host(rs_matrix_exp(current_stream_for(a), &da, &dout));
        return out;
      },
      a);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("linalg_cholesky_ex.L", cholesky_ex_out);
  m.impl("linalg_solve_triangular", solve_triangular);
  m.impl("linalg_solve_triangular.out", solve_triangular_out);
#if RUSSET_HAS_CHOLESKY
  m.impl("cholesky", cholesky_checked);
  m.impl("cholesky.out", cholesky_out);
#endif
  m.impl("_cholesky_solve_helper", cholesky_solve_helper);
  m.impl("cholesky_inverse", cholesky_inverse_of);
  m.impl("cholesky_inverse.out", cholesky_inverse_out);
  m.impl("triangular_solve.X", triangular_solve_out);
  m.impl("linalg_lu_factor_ex.out", lu_factor_ex_out);
  m.impl("linalg_lu_solve.out", lu_solve_out);
  m.impl("_linalg_solve_ex.result", solve_ex_out);
  m.impl("linalg_inv_ex.inverse", inv_ex_out);
  m.impl("lu_unpack.out", lu_unpack_out);
  m.impl("_linalg_det.result", det_out);
  m.impl("linalg_lu.out", lu_full_out);
  m.impl("_linalg_slogdet.sign", slogdet_out);
  m.impl("geqrf.a", geqrf_out);
  m.impl("geqrf", geqrf_fn);
  m.impl("linalg_householder_product.out", householder_product_out);
  m.impl("linalg_householder_product", householder_product_fn);
  m.impl("ormqr.out", ormqr_out);
  m.impl("ormqr", ormqr_fn);
  m.impl("linalg_qr.out", qr_out);
  m.impl("_linalg_svd.U", svd_out);
  m.impl("_linalg_eigh.eigenvalues", eigh_out);
  m.impl("linalg_matrix_exp", matrix_exp);
}

}  // namespace russet
