// Linear algebra, the first native pieces: linalg_cholesky_ex and
// linalg_solve_triangular, for float32 and complex64 (float64/complex128 go
// to the host under the apple profile, by design; the rest of linalg is
// still host execution). Both are composed from native ops, a loop over
// the columns (or rows) with batched matrix-vector products: n steps of a
// few launches each, every matrix of the batch at once. Cholesky
// (torch.linalg.cholesky, cholesky_ex, cholesky, and through them
// cholesky_solve/inverse's forms that call it) and the triangular solves
// (linalg.solve_triangular, and so the backward of cholesky) are native.
#include "torch/pointwise.h"

#include <ATen/ExpandUtils.h>
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/_cholesky_solve_helper_ops.h>
#include <ATen/ops/cholesky_inverse_ops.h>
#include <ATen/ops/cholesky_ops.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/linalg_cholesky_ex_meta.h>
#include <ATen/ops/linalg_cholesky_ex_ops.h>
#include <ATen/ops/linalg_solve_triangular_ops.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/real.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/triangular_solve_ops.h>
#include <ATen/ops/logical_and.h>
#include <ATen/ops/logical_not.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

bool native_dtype(const Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kComplexFloat;
}

// Left-looking Cholesky of the lower triangles of a (B, n, n) batch, as
// LAPACK's potf2: column j from d = a_jj - |l_j,:j|^2 (the real part of
// the diagonal) and l_j+1:,j = (a_j+1:,j - L_j+1:,:j conj(l_j,:j)) / sqrt(d).
// A matrix whose d is not > 0 (or NaN) at column j gets info = j + 1 and,
// as LAPACK leaves it, d on the diagonal and the original values in that
// column and the ones after it.
void cholesky_lower(const Tensor& a, Tensor& L, Tensor& info) {
  const int64_t n = a.size(-1);
  L.copy_(a.tril());
  info.zero_();
  for (int64_t j = 0; j < n; ++j) {
    Tensor ajj = at::real(a.select(-1, j).select(-1, j));  // (B)
    Tensor d = ajj;
    if (j > 0) {
      Tensor row = L.select(-2, j).narrow(-1, 0, j);  // (B, j)
      d = ajj.sub(at::real(row.mul(row.conj())).sum(-1));
    }
    Tensor failed = at::logical_not(d.gt(0));
    Tensor was_ok = info.eq(0);
    Tensor new_info = at::where(at::logical_and(was_ok, failed), at::full_like(info, j + 1), info);
    Tensor ok = new_info.eq(0), just_failed = at::logical_and(was_ok, failed);
    Tensor ljj = at::sqrt(d);
    Tensor old_diag = at::real(L.select(-1, j).select(-1, j));
    Tensor diag = at::where(ok, ljj, at::where(just_failed, d, old_diag));
    L.select(-1, j).select(-1, j).copy_(diag);
    if (j + 1 < n) {
      Tensor acol = a.select(-1, j).narrow(-1, j + 1, n - j - 1);  // (B, n-j-1)
      Tensor num = acol;
      if (j > 0) {
        Tensor below = L.narrow(-2, j + 1, n - j - 1).narrow(-1, 0, j);  // (B, n-j-1, j)
        Tensor row = L.select(-2, j).narrow(-1, 0, j).conj().unsqueeze(-1);  // (B, j, 1)
        num = acol.sub(at::matmul(below, row).squeeze(-1));
      }
      Tensor col = num.div(ljj.unsqueeze(-1));
      Tensor dst = L.select(-1, j).narrow(-1, j + 1, n - j - 1);
      dst.copy_(at::where(ok.unsqueeze(-1), col, dst));
    }
    info.copy_(new_info);
  }
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
  Tensor a = (upper ? self.mH() : self).reshape({p, n, n}).contiguous();
  Tensor lw = at::empty_like(a), iw = at::empty({p}, info.options());
  cholesky_lower(a, lw, iw);
  return {(upper ? lw.mH() : lw).reshape(self.sizes()), iw.reshape(bshape)};
}

std::tuple<Tensor&, Tensor&> cholesky_ex_out(const Tensor& self, bool upper, bool check_errors, Tensor& L,
                                            Tensor& info) {
  return native_or_host<at::_ops::linalg_cholesky_ex_L>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        if (!native_dtype(self)) throw NeedsHost();
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

// torch.cholesky (deprecated): the factor, errors checked (one sync, as CPU)
Tensor cholesky_checked(const Tensor& self, bool upper) {
  return native_or_host<at::_ops::cholesky>(
      [&]() -> Tensor {
        if (!native_dtype(self)) throw NeedsHost();
        TORCH_CHECK(self.dim() >= 2, "cholesky: The input tensor A must have at least 2 dimensions.");
        TORCH_CHECK(self.size(-1) == self.size(-2), "cholesky: A must be batches of square matrices, but they are ",
                    self.size(-2), " by ", self.size(-1), " matrices");
        auto [lf, info] = cholesky_factor(self, upper);
        at::_linalg_check_errors(info, "cholesky", self.dim() == 2);
        return lf;
      },
      self, upper);
}

Tensor& cholesky_out(const Tensor& self, bool upper, Tensor& out) {
  return native_or_host<at::_ops::cholesky_out>(
      [&]() -> Tensor& {
        if (!native_dtype(self)) throw NeedsHost();
        return write_out(out, cholesky_checked(self, upper));
      },
      self, upper, out);
}

// A X = B (left) or X A = B, A triangular: a loop over the rows of X in the
// order substitution needs them, each a batched product with the rows
// already solved. Only A's triangle is read, as LAPACK's trsm reads it.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return native_or_host<at::_ops::linalg_solve_triangular>(
      [&]() -> Tensor {
        if (!native_dtype(A) || A.scalar_type() != B.scalar_type()) throw NeedsHost();
        TORCH_CHECK(A.dim() >= 2 && B.dim() >= 2, "linalg.solve_triangular: The input tensor A and B must have ",
                    "at least 2 dimensions.");
        const int64_t n = A.size(-1);
        TORCH_CHECK(A.size(-2) == n, "linalg.solve_triangular: A must be batches of square matrices, but they are ",
                    A.size(-2), " by ", n, " matrices");
        TORCH_CHECK(left ? B.size(-2) == n : B.size(-1) == n, "linalg.solve_triangular: Incompatible shapes of A ",
                    "and B for the equation ", left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1),
                    " and ", B.size(-2), "x", B.size(-1), ")");
        // X A = B  <=>  A^T X^T = B^T (A^T: the other triangle)
        Tensor a = left ? A : A.mT();
        Tensor b = left ? B : B.mT();
        const bool up = left ? upper : !upper;
        std::vector<int64_t> batch = at::infer_size(a.sizes().slice(0, a.dim() - 2), b.sizes().slice(0, b.dim() - 2));
        std::vector<int64_t> as = batch, bs = batch;
        as.insert(as.end(), {n, n});
        bs.insert(bs.end(), {n, b.size(-1)});
        int64_t p = 1;
        for (int64_t v : batch) p *= v;
        Tensor ae = a.expand(as).reshape({p, n, n}).contiguous();
        Tensor be = b.expand(bs).reshape({p, n, b.size(-1)});
        Tensor x = at::empty_like(be, at::MemoryFormat::Contiguous);
        for (int64_t s = 0; s < n; ++s) {
          const int64_t i = up ? n - 1 - s : s;
          Tensor r = be.select(-2, i);  // (P, k)
          if (s > 0) {
            // the rows solved so far: 0..i-1 (lower) or i+1..n-1 (upper)
            const int64_t lo = up ? i + 1 : 0, len = s;
            Tensor coef = ae.select(-2, i).narrow(-1, lo, len).unsqueeze(-2);  // (P, 1, len)
            r = r.sub(at::matmul(coef, x.narrow(-2, lo, len)).squeeze(-2));
          }
          if (!unitriangular) r = r.div(ae.select(-2, i).select(-1, i).unsqueeze(-1));
          x.select(-2, i).copy_(r);
        }
        bs.back() = b.size(-1);
        Tensor out = x.reshape(bs);
        return left ? out : out.mT();
      },
      A, B, upper, left, unitriangular);
}

Tensor& solve_triangular_out(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular,
                             Tensor& out) {
  return native_or_host<at::_ops::linalg_solve_triangular_out>(
      [&]() -> Tensor& {
        if (!native_dtype(A) || A.scalar_type() != B.scalar_type()) throw NeedsHost();
        return write_out(out, solve_triangular(A, B, upper, left, unitriangular));
      },
      A, B, upper, left, unitriangular, out);
}

// cholesky_solve's kernel: A = L L^H (or U^H U) from its factor; X by two
// triangular solves (the caller broadcast the batch dims)
Tensor cholesky_solve_helper(const Tensor& B, const Tensor& F, bool upper) {
  return native_or_host<at::_ops::_cholesky_solve_helper>(
      [&]() -> Tensor {
        if (!native_dtype(F) || F.scalar_type() != B.scalar_type()) throw NeedsHost();
        if (upper) return solve_triangular(F, solve_triangular(F.mH(), B, false, true, false), true, true, false);
        return solve_triangular(F.mH(), solve_triangular(F, B, false, true, false), true, true, false);
      },
      B, F, upper);
}

// cholesky_inverse: A^-1 from A's factor, as cholesky_solve(I)
Tensor cholesky_inverse_of(const Tensor& F, bool upper) {
  return native_or_host<at::_ops::cholesky_inverse>(
      [&]() -> Tensor {
        if (!native_dtype(F)) throw NeedsHost();
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
        if (!native_dtype(F)) throw NeedsHost();
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
        if (!native_dtype(A) || A.scalar_type() != B.scalar_type()) throw NeedsHost();
        TORCH_CHECK(A.dim() >= 2 && B.dim() >= 2, "torch.triangular_solve: Expected b to have at least 2 ",
                    "dimensions, but it has ", B.dim(), " dimensions instead");
        Tensor x = solve_triangular(transpose ? A.mT() : A, B, upper != transpose, true, unitriangular);
        std::vector<int64_t> ms(x.sizes().begin(), x.sizes().end() - 2);
        ms.insert(ms.end(), {A.size(-2), A.size(-1)});
        write_out(X, x);
        write_out(M, A.expand(ms));
        return {X, M};
      },
      B, A, upper, transpose, unitriangular, X, M);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("linalg_cholesky_ex.L", cholesky_ex_out);
  m.impl("linalg_solve_triangular", solve_triangular);
  m.impl("linalg_solve_triangular.out", solve_triangular_out);
  m.impl("cholesky", cholesky_checked);
  m.impl("cholesky.out", cholesky_out);
  m.impl("_cholesky_solve_helper", cholesky_solve_helper);
  m.impl("cholesky_inverse", cholesky_inverse_of);
  m.impl("cholesky_inverse.out", cholesky_inverse_out);
  m.impl("triangular_solve.X", triangular_solve_out);
}

}  // namespace russet
