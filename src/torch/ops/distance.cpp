// Pairwise distances: _cdist_forward / _cdist_backward (torch.cdist) and
// _pdist_forward / _pdist_backward (torch.pdist) on the C core's distance
// engine (russet/distance.h: one launch each, the cases and formulas of
// ATen's CPU kernels, DistanceOpsKernel.cpp). For p = 2 with more than 25
// rows CPU switches to the matrix-product form (_euclidean_dist, itself
// composite); so does russet, for the same results.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/_cdist_backward_ops.h>
#include <ATen/ops/_cdist_forward_ops.h>
#include <ATen/ops/_euclidean_dist.h>
#include <ATen/ops/_pdist_backward_ops.h>
#include <ATen/ops/_pdist_forward_ops.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/nonzero_static.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/util/accumulate.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

#include "russet/distance.h"
#include "torch/pointwise.h"

namespace russet {
namespace {

using at::Tensor;

bool mm_form(double p, int64_t mode, int64_t r1, int64_t r2) {
  return p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
}

// CPU's direct kernels serve float32 and float64 only
void check_direct_dtype(const Tensor& x, const char* op) {
  auto t = x.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(t == at::kFloat || t == at::kDouble, "\"", op, "\" not implemented for '",
                              c10::toString(t), "'");
}

// dist(a_i, b_j) for a (B, n, c), b (B, m, c): the p-norm of the
// differences, as CPU's direct kernel (p = 0 counts the nonzero ones)
Tensor direct_distances(const Tensor& a, const Tensor& b, double p) {
  Tensor out = at::empty({a.size(0), a.size(1), b.size(1)}, a.options());
  rs_tensor ta = describe(a), tb = describe(b), to = describe(out);
  check_or_host(rs_cdist_forward(current_stream_for(a), &ta, &tb, p, &to));
  return out;
}

Tensor cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return native_or_host<at::_ops::_cdist_forward>(
      [&]() -> Tensor {
        TORCH_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
        TORCH_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
        TORCH_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ",
                    x1.size(-1), " X2: ", x2.size(-1));
        TORCH_CHECK(at::isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
                    x1.scalar_type());
        TORCH_CHECK(at::isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
                    x2.scalar_type());
        TORCH_CHECK(p >= 0, "cdist only supports non-negative p values");
        int64_t mode = compute_mode.value_or(0);
        TORCH_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
        host_if_no_fp64(x1);
        int64_t r1 = x1.size(-2), r2 = x2.size(-2), c = x1.size(-1);
        auto batch = at::infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
        int64_t bsz = c10::multiply_integers(batch);
        std::vector<int64_t> e1(batch), e2(batch), shape(batch);
        e1.insert(e1.end(), {r1, c});
        e2.insert(e2.end(), {r2, c});
        shape.insert(shape.end(), {r1, r2});
        if (r1 == 0 || r2 == 0 || bsz == 0) return at::empty(shape, x1.options());
        if (c == 0) return at::zeros(shape, x1.options());
        Tensor t1 = x1.expand(e1).reshape({bsz, r1, c});  // a view where it can be: the engine reads strides
        Tensor t2 = x2.expand(e2).reshape({bsz, r2, c});
        if (mm_form(p, mode, r1, r2)) return (bsz == 1 ? at::_euclidean_dist(x1, x2) : at::_euclidean_dist(t1, t2)).view(shape);
        check_direct_dtype(x1, "cdist");
        return direct_distances(t1, t2, p).view(shape);
      },
      x1, x2, p, compute_mode);
}

// d dist(a_i, b_j) / d a_i times grad_ij, summed over j: CPU's
// cdist_backward formulas per p
Tensor direct_backward(const Tensor& grad, const Tensor& a, const Tensor& b, double p, const Tensor& dist) {
  Tensor out = at::empty(a.sizes(), a.options());
  rs_tensor tg = describe(grad), ta = describe(a), tb = describe(b), td = describe(dist), to = describe(out);
  check_or_host(rs_cdist_backward(current_stream_for(a), &tg, &ta, &tb, p, &td, &to));
  return out;
}

Tensor cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& cdist) {
  return native_or_host<at::_ops::_cdist_backward>(
      [&]() -> Tensor {
        host_if_no_fp64(x1);
        int64_t r1 = x1.size(-2), r2 = x2.size(-2), c = x1.size(-1);
        auto batch = at::infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
        int64_t bsz = c10::multiply_integers(batch);
        if (r1 == 0 || r2 == 0 || c == 0 || bsz == 0) return at::zeros_like(x1);
        std::vector<int64_t> e1(batch), e2(batch);
        e1.insert(e1.end(), {r1, c});
        e2.insert(e2.end(), {r2, x2.size(-1)});
        check_direct_dtype(x1, "cdist_backward");
        Tensor t1 = x1.expand(e1).reshape({bsz, r1, c});  // a view where it can be: the engine reads strides
        Tensor t2 = x2.expand(e2).reshape({bsz, r2, c});
        Tensor g = grad.reshape({bsz, r1, r2}), d = cdist.reshape({bsz, r1, r2});
        return direct_backward(g, t1, t2, p, d).view(e1);
      },
      grad, x1, x2, p, cdist);
}

// pdist: the distances of rows i < j of a (n, c) matrix, in row-major order
// of the upper triangle. Flat positions i * n + j of those pairs, made on the
// device from an arange.
Tensor upper_pairs(int64_t n, const at::TensorOptions& opts) {
  Tensor k = at::arange(n * n, opts.dtype(at::kLong));
  Tensor i = k.div(n, "floor"), j = k.remainder(n);
  // nonzero_static: the count is known, so no sync to learn it
  return at::nonzero_static(j.gt(i), n * (n - 1) / 2).view({-1});
}

Tensor pdist_forward(const Tensor& self, double p) {
  return native_or_host<at::_ops::_pdist_forward>(
      [&]() -> Tensor {
        TORCH_CHECK(self.is_contiguous(), "_pdist_forward requires contiguous input");
        host_if_no_fp64(self);
        int64_t n = self.size(0);
        if (n <= 1) return at::empty({0}, self.options());
        if (self.size(1) == 0) return at::zeros({n * (n - 1) / 2}, self.options());
        check_direct_dtype(self, "pdist");
        Tensor a = self.unsqueeze(0);
        Tensor full = direct_distances(a, a, p).view({-1});
        return full.index_select(0, upper_pairs(n, self.options()));
      },
      self, p);
}

Tensor pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  return native_or_host<at::_ops::_pdist_backward>(
      [&]() -> Tensor {
        TORCH_CHECK(self.is_contiguous(), "_pdist_backward requires self to be contiguous");
        TORCH_CHECK(pdist.is_contiguous(), "_pdist_backward requires pdist to be contiguous");
        host_if_no_fp64(self);
        int64_t n = self.size(0);
        if (n <= 1 || self.size(1) == 0) return at::zeros_like(self);
        check_direct_dtype(self, "pdist_backward");
        // the symmetric (n, n) gradient and distance matrices: the gradient of
        // row a is then cdist's backward over all j (see _cdist_backward)
        Tensor idx = upper_pairs(n, self.options());
        Tensor lower = idx.remainder(n).mul_(n).add_(idx.div(n, "floor"));
        auto full = [&](const Tensor& v) {
          Tensor f = at::zeros({n * n}, self.options());
          f.scatter_(0, idx, v);
          f.scatter_(0, lower, v);
          return f.view({1, n, n});
        };
        Tensor a = self.unsqueeze(0);
        return direct_backward(full(grad.contiguous()), a, a, p, full(pdist)).view(self.sizes());
      },
      grad, self, p, pdist);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_cdist_forward", cdist_forward);
  m.impl("_cdist_backward", cdist_backward);
  m.impl("_pdist_forward", pdist_forward);
  m.impl("_pdist_backward", pdist_backward);
}

}  // namespace russet
