// torch.linalg.lstsq (linalg_lstsq.out, which the functional form calls):
// every driver natively for float32 and complex64, by one call of the C
// core (rs_lstsq: the SVD's minimum-norm solution, the rank from the
// singular values above rcond times the largest; docs/linalg.md says where
// that differs from LAPACK's drivers). The outputs are laid out as CPU's:
// the solution a column-major view of rows 0..n of a (..., max(m, n), k)
// buffer (LAPACK's work array on CPU), the rank for every driver but gels,
// the singular values for gelsd and gelss, the residuals where m > n for
// every driver but gelsy (gelsd and gelss: only where every matrix has
// rank n, one sync, as CPU). Batches that broadcast between A and B, empty
// matrices, other dtypes (float64 under the apple profile) and out=
// tensors of other dtypes run through host execution.
#include "torch/pointwise.h"
#include "russet/linalg.h"

#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/all.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/linalg_lstsq_ops.h>
#include <ATen/ops/zeros.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <vector>

namespace russet {
namespace {

using at::Tensor;
using Results = std::tuple<Tensor, Tensor, Tensor, Tensor>;

// the driver named, lower-cased, as CPU checks it; gelsy when none is
std::string driver_of(std::optional<c10::string_view> driver) {
  if (!driver.has_value()) return "gelsy";
  std::string d(driver->begin(), driver->end());
  std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  TORCH_CHECK(d == "gels" || d == "gelsy" || d == "gelsd" || d == "gelss",
              "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  return d;
}

// B a batch of vectors rather than of matrices (ATen's linalg_solve_is_vector_rhs)
bool vector_rhs(const Tensor& A, const Tensor& B) {
  return B.dim() == 1 || (A.dim() - 1 == B.dim() && B.sizes().equals(A.sizes().slice(0, A.dim() - 1)));
}

// CPU's argument checks, with its messages
void check_args(const Tensor& A, const Tensor& B) {
  TORCH_CHECK(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  TORCH_CHECK(B.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  TORCH_CHECK(A.scalar_type() == B.scalar_type(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype ",
              A.scalar_type(), " and other's dtype ", B.scalar_type());
  const int64_t diff = A.dim() - B.dim();
  TORCH_CHECK(0 <= diff && diff <= 1,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - "
              "other.dim()) <= 1");
  TORCH_CHECK(A.size(-2) == (diff ? B.size(-1) : B.size(-2)),
              diff ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                   : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  TORCH_CHECK(B.device() == A.device(), "torch.linalg.lstsq: Expected other and input tensors to be on the same ",
              "device, but got other on ", B.device(), " and input on ", A.device());
}

// The four results in fresh tensors laid out as CPU's: the solution (a
// view of rows 0..n of LAPACK's (..., max(m, n), k) column-major work
// array, or (..., max(m, n)) for vectors), the residuals, the rank and the
// singular values, each empty where the driver gives none.
Results solve(const Tensor& A, const Tensor& B, double rcond, const std::string& driver) {
  const bool vector = vector_rhs(A, B);
  const Tensor B2 = vector ? B.unsqueeze(-1) : B;
  const int64_t m = A.size(-2), n = A.size(-1), k = B2.size(-1), kk = std::min(m, n), mx = std::max(m, n);
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  int64_t p = 1;
  for (int64_t b : batch) p *= b;
  auto shape = [&](std::initializer_list<int64_t> last) {
    std::vector<int64_t> v(batch);
    v.insert(v.end(), last);
    return v;
  };
  const auto real = A.options().dtype(c10::toRealValueType(A.scalar_type()));
  Tensor work = vector ? at::empty(shape({mx}), A.options()).unsqueeze(-1)
                       : at::empty(shape({k, mx}), A.options()).transpose(-2, -1);
  Tensor rank = driver != "gels" ? at::empty(batch, A.options().dtype(at::kLong)) : at::empty({0}, A.options().dtype(at::kLong));
  Tensor sv = driver == "gelsd" || driver == "gelss" ? at::empty(shape({kk}), real) : at::empty({0}, real);
  const bool want_resid = m > n && driver != "gelsy";
  Tensor resid = want_resid ? at::empty(shape({k}), real) : at::empty({0}, real);
  Tensor info = driver == "gels" ? at::zeros({p}, A.options().dtype(at::kInt)) : Tensor();
  const Tensor x = work.narrow(-2, 0, n);
  const rs_tensor da = describe(A.reshape({p, m, n})), db = describe(B2.reshape({p, m, k})),
                  dx = describe(x.view({p, n, k}));
  const rs_tensor drank = rank.numel() ? describe(rank.view({p})) : rs_tensor{},
                  dsv = sv.numel() ? describe(sv.view({p, kk})) : rs_tensor{},
                  dres = want_resid ? describe(resid.view({p, k})) : rs_tensor{},
                  dinfo = info.defined() ? describe(info) : rs_tensor{};
  check_or_host(rs_lstsq(current_stream_for(A), &da, &db, rcond, &dx, rank.numel() ? &drank : nullptr,
                         sv.numel() ? &dsv : nullptr, want_resid ? &dres : nullptr,
                         info.defined() ? &dinfo : nullptr));
  if (info.defined()) at::_linalg_check_errors(info, "torch.linalg.lstsq", A.dim() == 2);
  // gelsd and gelss give residuals only where every matrix has rank n (one sync, as CPU)
  if (want_resid && driver != "gels" && !at::all(at::eq(rank, n)).item<bool>()) resid = at::empty({0}, real);
  return {vector ? x.squeeze(-1) : x, resid, rank, sv};
}

std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> lstsq_out(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                         std::optional<c10::string_view> driver, Tensor& solution,
                                                         Tensor& residuals, Tensor& rank, Tensor& sv) {
  return native_or_host<at::_ops::linalg_lstsq_out>(
      [&]() -> std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> {
        check_args(A, B);
        const auto real = c10::toRealValueType(A.scalar_type());
        for (const Tensor* t : {&solution, &residuals, &rank, &sv})
          TORCH_CHECK(t->device() == A.device(), "torch.linalg.lstsq: Expected out tensors and input tensors to be ",
                      "on the same device, but got an out tensor on ", t->device(), " and input on ", A.device());
        // the engine's dtypes; out= tensors of other dtypes get CPU's casts and checks
        if ((A.scalar_type() != at::kFloat && A.scalar_type() != at::kComplexFloat) ||
            solution.scalar_type() != A.scalar_type() || residuals.scalar_type() != real ||
            rank.scalar_type() != at::kLong || sv.scalar_type() != real)
          throw NeedsHost();
        const std::string drv = driver_of(driver);
        const Tensor B2 = vector_rhs(A, B) ? B.unsqueeze(-1) : B;
        if (!B2.sizes().slice(0, B2.dim() - 2).equals(A.sizes().slice(0, A.dim() - 2)) || A.numel() == 0 ||
            B2.numel() == 0)
          throw NeedsHost();  // broadcast batches, empty matrices
        const double rc = rcond.has_value()
                              ? *rcond
                              : static_cast<double>(std::numeric_limits<float>::epsilon()) *
                                    static_cast<double>(std::max(A.size(-2), A.size(-1)));
        auto [s, resid, r, v] = solve(A, B, rc, drv);
        if (solution.numel() == 0 && residuals.numel() == 0 && rank.numel() == 0 && sv.numel() == 0) {
          // CPU's direct path: empty outs become its results (the solution
          // a view of the work array, as CPU's)
          solution.set_(s);
          rank.set_(r);
          sv.set_(v);
          residuals.set_(resid);
        } else {  // CPU's temporaries: each out resized and filled
          for (auto [out, tmp] : {std::pair<Tensor*, Tensor*>{&solution, &s}, {&residuals, &resid}, {&rank, &r},
                                  {&sv, &v}}) {
            at::native::resize_output(*out, tmp->sizes());
            out->copy_(*tmp);
          }
        }
        return {solution, residuals, rank, sv};
      },
      A, B, rcond, driver, solution, residuals, rank, sv);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("linalg_lstsq.out", lstsq_out); }

}  // namespace russet
