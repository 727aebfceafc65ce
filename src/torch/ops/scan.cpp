// Scans (src/engine/scan.c): cumsum, cumprod, cummax/cummin (through
// ATen's _cummax_helper/_cummin_helper), logcumsumexp (_logcumsumexp).
// Their autograd formulas are composites of these and other ops.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/_cummax_helper_ops.h>
#include <ATen/ops/_cummin_helper_ops.h>
#include <ATen/ops/_logcumsumexp_ops.h>
#include <ATen/ops/cumprod_meta.h>
#include <ATen/ops/cumprod_ops.h>
#include <ATen/ops/cumsum_meta.h>
#include <ATen/ops/cumsum_ops.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "torch/rows.h"
#include "torch/dtype_refusal.h"
#include "russet/scan_sort.h"

namespace russet {
namespace {

using at::Tensor;

// The scan of `self` along `dim` into `out` (and `indices`), as ATen's
// impl_func_cum_ops: 0-dim copies, empty does nothing.
void scan(rs_scan_op op, const Tensor& self, int64_t dim, const Tensor& out, const Tensor* indices) {
  if (self.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, self.dim());
  c10::DeviceGuard guard(self.device());
  Tensor x = rows_of(self, dim);
  Tensor o = rows_out(out, dim);
  Tensor i = indices ? rows_out(*indices, dim) : Tensor();
  rs_tensor dx = describe(x), dout = describe(o), di{};
  if (indices) di = describe(i);
  check_or_host(rs_scan(current_stream_for(self), op, &dx, &dout, indices ? &di : nullptr));
  rows_finish(out, o, dim);
  if (indices) rows_finish(*indices, i, dim);
}

// cumsum/cumprod: the input is first cast to the result dtype, as ATen does.
template <class Meta, class Op>
Tensor& cum_out(rs_scan_op op, const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, dim, dtype);
        if (self.dim() == 0) {
          out.copy_(self);
        } else if (self.numel() == 0) {
          // nothing to scan; the meta function sized the output
        } else {
          refuse_unless(out.scalar_type() != at::kBool, op == RS_SCAN_SUM ? "cumsum_out_cpu" : "cumprod_out_cpu",
                        out.scalar_type());
          scan(op, self.to(out.scalar_type()), dim, out, nullptr);
        }
        return out;
      },
      self, dim, dtype, out);
}

Tensor& cumsum_out(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, Tensor& out) {
  return cum_out<at::meta::structured_cumsum, at::_ops::cumsum_out>(RS_SCAN_SUM, self, dim, dtype, out);
}
Tensor& cumprod_out(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, Tensor& out) {
  return cum_out<at::meta::structured_cumprod, at::_ops::cumprod_out>(RS_SCAN_PROD, self, dim, dtype, out);
}

// ATen's cummax_out has sized values and indices (self's sizes) already.
template <class Op>
void cummaxmin_helper(rs_scan_op op, const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
  native_or_host<Op>(
      [&]() {
        scan(op, self, dim, values, &indices);
      },
      self, values, indices, dim);
}
void cummax_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
  cummaxmin_helper<at::_ops::_cummax_helper>(RS_SCAN_MAX, self, values, indices, dim);
}
void cummin_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
  cummaxmin_helper<at::_ops::_cummin_helper>(RS_SCAN_MIN, self, values, indices, dim);
}

Tensor& logcumsumexp_out(const Tensor& self, int64_t dim, Tensor& out) {
  return native_or_host<at::_ops::_logcumsumexp_out>(
      [&]() -> Tensor& {
        at::maybe_wrap_dim(dim, self.dim());  // CPU's IndexError, empty tensors too
        at::native::resize_output(out, self.sizes());
        TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
                    self.scalar_type(), ", but got ", out.scalar_type(), " instead");
        if (self.dim() == 0) out.copy_(self);
        else scan(RS_SCAN_LOGSUMEXP, self, dim, out, nullptr);
        return out;
      },
      self, dim, out);
}
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  Tensor out = at::empty(self.sizes(), self.options());
  return logcumsumexp_out(self, dim, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("cumsum.out", TORCH_FN(cumsum_out));
  m.impl("cumprod.out", TORCH_FN(cumprod_out));
  m.impl("_cummax_helper", TORCH_FN(cummax_helper));
  m.impl("_cummin_helper", TORCH_FN(cummin_helper));
  m.impl("_logcumsumexp", TORCH_FN(logcumsumexp));
  m.impl("_logcumsumexp.out", TORCH_FN(logcumsumexp_out));
}

}  // namespace russet
