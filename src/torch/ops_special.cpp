// Special functions: the gamma family, erfinv, modified Bessel functions,
// torch.special's entr/log_ndtr/xlog1py/zeta. Structured ops run their ATen
// meta function (pointwise.h); the expressions are
// kernels/common/ops_special.glsl functions (rs_op_*). What has no kernel
// here runs through host execution.
#include "torch/pointwise.h"

#include <ATen/ops/digamma_meta.h>
#include <ATen/ops/digamma_ops.h>
#include <ATen/ops/erfinv_meta.h>
#include <ATen/ops/erfinv_ops.h>
#include <ATen/ops/i0_meta.h>
#include <ATen/ops/i0_ops.h>
#include <ATen/ops/lgamma_meta.h>
#include <ATen/ops/lgamma_ops.h>
#include <ATen/ops/polygamma_meta.h>
#include <ATen/ops/polygamma_ops.h>
#include <ATen/ops/special_entr_meta.h>
#include <ATen/ops/special_entr_ops.h>
#include <ATen/ops/special_i0e_meta.h>
#include <ATen/ops/special_i0e_ops.h>
#include <ATen/ops/special_i1_meta.h>
#include <ATen/ops/special_i1_ops.h>
#include <ATen/ops/special_i1e_meta.h>
#include <ATen/ops/special_i1e_ops.h>
#include <ATen/ops/special_log_ndtr_meta.h>
#include <ATen/ops/special_log_ndtr_ops.h>
#include <ATen/ops/special_xlog1py_meta.h>
#include <ATen/ops/special_xlog1py_ops.h>
#include <ATen/ops/special_zeta_meta.h>
#include <ATen/ops/special_zeta_ops.h>
#include <torch/library.h>

#include <string>


namespace russet {
namespace {

using at::Tensor;

#define UNARY(fn, META_CLASS, op, expr)                       \
  Tensor& fn(const Tensor& self, Tensor& out) {               \
    return native_or_host<at::_ops::op>(                      \
        [&]() -> Tensor& {                                    \
          OutOp<at::meta::META_CLASS> m(out);                 \
          m.meta(self);                                       \
          run_pointwise(m, #op, expr);                        \
          return out;                                         \
        },                                                    \
        self, out);                                           \
  }

#define BINARY(fn, META_CLASS, op, expr)                                     \
  Tensor& fn(const Tensor& self, const Tensor& other, Tensor& out) {         \
    return native_or_host<at::_ops::op>(                                     \
        [&]() -> Tensor& {                                                   \
          OutOp<at::meta::META_CLASS> m(out);                                \
          m.meta(self, other);                                               \
          run_pointwise(m, #op, expr);                                       \
          return out;                                                        \
        },                                                                   \
        self, other, out);                                                   \
  }

UNARY(erfinv_out, structured_erfinv, erfinv_out, "rs_op_erfinv(a)")
UNARY(lgamma_out, structured_lgamma, lgamma_out, "rs_op_lgamma(a)")
UNARY(digamma_out, structured_digamma, digamma_out, "rs_op_digamma(a)")
UNARY(i0_out, structured_i0, i0_out, "rs_op_i0(a)")
UNARY(i0e_out, structured_special_i0e, special_i0e_out, "rs_op_i0e(a)")
UNARY(i1_out, structured_special_i1, special_i1_out, "rs_op_i1(a)")
UNARY(i1e_out, structured_special_i1e, special_i1e_out, "rs_op_i1e(a)")
UNARY(entr_out, structured_special_entr, special_entr_out, "rs_op_entr(a)")
UNARY(log_ndtr_out, structured_special_log_ndtr, special_log_ndtr_out, "rs_op_log_ndtr(a)")
BINARY(xlog1py_out, structured_special_xlog1py, special_xlog1py_out, "rs_op_xlog1py(a, b)")
BINARY(zeta_out, structured_special_zeta, special_zeta_out, "rs_op_zeta(a, b)")

// polygamma(n, x): n is baked into the expression (one kernel per n)
Tensor& polygamma_out(int64_t n, const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::polygamma_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_polygamma> m(out);
        m.meta(n, self);
        std::string expr = "rs_op_polygamma(a, " + std::to_string(n) + ")";
        run_pointwise(m, "polygamma", expr.c_str());
        return out;
      },
      n, self, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("erfinv.out", erfinv_out);
  m.impl("lgamma.out", lgamma_out);
  m.impl("digamma.out", digamma_out);
  m.impl("polygamma.out", polygamma_out);
  m.impl("i0.out", i0_out);
  m.impl("special_i0e.out", i0e_out);
  m.impl("special_i1.out", i1_out);
  m.impl("special_i1e.out", i1e_out);
  m.impl("special_entr.out", entr_out);
  m.impl("special_log_ndtr.out", log_ndtr_out);
  m.impl("special_xlog1py.out", xlog1py_out);
  m.impl("special_zeta.out", zeta_out);
}

}  // namespace russet
