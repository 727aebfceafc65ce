// Unary pointwise ops: arithmetic (neg, abs, sign, reciprocal, sqrt, ...),
// rounding, float classification, logical/bitwise not, and the
// transcendental functions (exp/log/trig/hyperbolic families, sigmoid,
// logit, erf family, sinc) and frexp. Structured ops run their ATen meta function
// (pointwise.h); the others build their TensorIterator as ATen's
// UnaryOps.cpp does. Each op is a table op RS_PW_* (src/engine/
// pointwise_ops.c: kernels/common/ops_math.glsl functions, rs_op_*).
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/structured_ops.h"
#include "russet/pointwise_ops.h"

#include <ATen/ops/abs_ops.h>
#include <ATen/ops/acos_meta.h>
#include <ATen/ops/acos_ops.h>
#include <ATen/ops/acosh_meta.h>
#include <ATen/ops/acosh_ops.h>
#include <ATen/ops/asin_meta.h>
#include <ATen/ops/asin_ops.h>
#include <ATen/ops/asinh_meta.h>
#include <ATen/ops/asinh_ops.h>
#include <ATen/ops/atan_meta.h>
#include <ATen/ops/atan_ops.h>
#include <ATen/ops/atanh_meta.h>
#include <ATen/ops/atanh_ops.h>
#include <ATen/ops/bitwise_not_meta.h>
#include <ATen/ops/bitwise_not_ops.h>
#include <ATen/ops/ceil_meta.h>
#include <ATen/ops/ceil_ops.h>
#include <ATen/ops/cos_meta.h>
#include <ATen/ops/cos_ops.h>
#include <ATen/ops/cosh_meta.h>
#include <ATen/ops/cosh_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/erf_meta.h>
#include <ATen/ops/erf_ops.h>
#include <ATen/ops/erfc_meta.h>
#include <ATen/ops/erfc_ops.h>
#include <ATen/ops/exp2_meta.h>
#include <ATen/ops/exp2_ops.h>
#include <ATen/ops/exp_meta.h>
#include <ATen/ops/exp_ops.h>
#include <ATen/ops/expm1_meta.h>
#include <ATen/ops/expm1_ops.h>
#include <ATen/ops/floor_meta.h>
#include <ATen/ops/floor_ops.h>
#include <ATen/ops/frac_meta.h>
#include <ATen/ops/frac_ops.h>
#include <ATen/ops/isinf_ops.h>
#include <ATen/ops/isnan_ops.h>
#include <ATen/ops/frexp_ops.h>
#include <ATen/ops/isneginf_meta.h>
#include <ATen/ops/isneginf_ops.h>
#include <ATen/ops/isposinf_meta.h>
#include <ATen/ops/isposinf_ops.h>
#include <ATen/ops/log10_meta.h>
#include <ATen/ops/log10_ops.h>
#include <ATen/ops/log1p_meta.h>
#include <ATen/ops/log1p_ops.h>
#include <ATen/ops/log2_meta.h>
#include <ATen/ops/log2_ops.h>
#include <ATen/ops/log_meta.h>
#include <ATen/ops/log_ops.h>
#include <ATen/ops/logical_not_ops.h>
#include <ATen/ops/logit_ops.h>
#include <ATen/ops/neg_meta.h>
#include <ATen/ops/neg_ops.h>
#include <ATen/ops/reciprocal_meta.h>
#include <ATen/ops/reciprocal_ops.h>
#include <ATen/ops/round_meta.h>
#include <ATen/ops/round_ops.h>
#include <ATen/ops/rsqrt_meta.h>
#include <ATen/ops/rsqrt_ops.h>
#include <ATen/ops/sgn_meta.h>
#include <ATen/ops/sgn_ops.h>
#include <ATen/ops/sigmoid_meta.h>
#include <ATen/ops/sigmoid_ops.h>
#include <ATen/ops/sign_meta.h>
#include <ATen/ops/sign_ops.h>
#include <ATen/ops/signbit_meta.h>
#include <ATen/ops/signbit_ops.h>
#include <ATen/ops/sin_meta.h>
#include <ATen/ops/sin_ops.h>
#include <ATen/ops/sinc_meta.h>
#include <ATen/ops/sinc_ops.h>
#include <ATen/ops/sinh_meta.h>
#include <ATen/ops/sinh_ops.h>
#include <ATen/ops/sqrt_meta.h>
#include <ATen/ops/sqrt_ops.h>
#include <ATen/ops/tan_meta.h>
#include <ATen/ops/tan_ops.h>
#include <ATen/ops/tanh_meta.h>
#include <ATen/ops/tanh_ops.h>
#include <ATen/ops/trunc_meta.h>
#include <ATen/ops/trunc_ops.h>
#include <torch/library.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>


namespace russet {
namespace {

using at::Tensor;

// out= kernel of a structured unary op: meta(self), then EXPR.
#define UNARY RS_STRUCTURED_UNARY
// trunc, floor, ceil, round: CPU's kernels have no bool case
#define ROUNDING(fn, META_CLASS, op, pw, kernel)                                                          \
  Tensor& fn(const Tensor& self, Tensor& out) {                                                           \
    refuse_unless(self.scalar_type() != at::kBool, kernel, self.scalar_type());                           \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, pw, Result::Compute, out, self);      \
  }

UNARY(neg_out, structured_neg, neg_out, RS_PW_NEG, Result::Compute)
UNARY(sign_out, structured_sign, sign_out, RS_PW_SIGN, Result::Compute)
UNARY(sgn_out, structured_sgn, sgn_out, RS_PW_SGN, Result::Compute)
UNARY(reciprocal_out, structured_reciprocal, reciprocal_out, RS_PW_RECIPROCAL, Result::Compute)
UNARY(sqrt_out, structured_sqrt, sqrt_out, RS_PW_SQRT, Result::Compute)
UNARY(rsqrt_out, structured_rsqrt, rsqrt_out, RS_PW_RSQRT, Result::Compute)
ROUNDING(trunc_out, structured_trunc, trunc_out, RS_PW_TRUNC, "trunc_vml_cpu")
ROUNDING(floor_out, structured_floor, floor_out, RS_PW_FLOOR, "floor_vml_cpu")
ROUNDING(ceil_out, structured_ceil, ceil_out, RS_PW_CEIL, "ceil_vml_cpu")
ROUNDING(round_out, structured_round, round_out, RS_PW_ROUND, "round_vml_cpu")
UNARY(frac_out, structured_frac, frac_out, RS_PW_FRAC, Result::Compute)
UNARY(signbit_out, structured_signbit, signbit_out, RS_PW_SIGNBIT, Result::Bool)
UNARY(isposinf_out, structured_isposinf, isposinf_out, RS_PW_ISPOSINF, Result::Bool)
UNARY(isneginf_out, structured_isneginf, isneginf_out, RS_PW_ISNEGINF, Result::Bool)
UNARY(bitwise_not_out, structured_bitwise_not, bitwise_not_out, RS_PW_BITWISE_NOT, Result::Compute)
UNARY(exp_out, structured_exp, exp_out, RS_PW_EXP, Result::Compute)
UNARY(exp2_out, structured_exp2, exp2_out, RS_PW_EXP2, Result::Compute)
UNARY(expm1_out, structured_expm1, expm1_out, RS_PW_EXPM1, Result::Compute)
UNARY(log_out, structured_log, log_out, RS_PW_LOG, Result::Compute)
UNARY(log2_out, structured_log2, log2_out, RS_PW_LOG2, Result::Compute)
UNARY(log10_out, structured_log10, log10_out, RS_PW_LOG10, Result::Compute)
UNARY(log1p_out, structured_log1p, log1p_out, RS_PW_LOG1P, Result::Compute)
UNARY(sin_out, structured_sin, sin_out, RS_PW_SIN, Result::Compute)
UNARY(cos_out, structured_cos, cos_out, RS_PW_COS, Result::Compute)
UNARY(tan_out, structured_tan, tan_out, RS_PW_TAN, Result::Compute)
UNARY(asin_out, structured_asin, asin_out, RS_PW_ASIN, Result::Compute)
UNARY(acos_out, structured_acos, acos_out, RS_PW_ACOS, Result::Compute)
UNARY(atan_out, structured_atan, atan_out, RS_PW_ATAN, Result::Compute)
UNARY(sinh_out, structured_sinh, sinh_out, RS_PW_SINH, Result::Compute)
UNARY(cosh_out, structured_cosh, cosh_out, RS_PW_COSH, Result::Compute)
UNARY(tanh_out, structured_tanh, tanh_out, RS_PW_TANH, Result::Compute)
UNARY(asinh_out, structured_asinh, asinh_out, RS_PW_ASINH, Result::Compute)
UNARY(acosh_out, structured_acosh, acosh_out, RS_PW_ACOSH, Result::Compute)
UNARY(atanh_out, structured_atanh, atanh_out, RS_PW_ATANH, Result::Compute)
UNARY(sigmoid_out, structured_sigmoid, sigmoid_out, RS_PW_SIGMOID, Result::Compute)
UNARY(erf_out, structured_erf, erf_out, RS_PW_ERF, Result::Compute)
UNARY(erfc_out, structured_erfc, erfc_out, RS_PW_ERFC, Result::Compute)
UNARY(sinc_out, structured_sinc, sinc_out, RS_PW_SINC, Result::Compute)

// round(x, decimals): CPU's opmath 10^|decimals| (a float for every
// floating dtype but float64) as s0, and whether decimals < 0 as s1.
Tensor& round_decimals_out(const Tensor& self, int64_t decimals, Tensor& out) {
  return native_or_host<at::_ops::round_decimals_out>(
      [&]() -> Tensor& {
        refuse_unless(at::isFloatingType(self.scalar_type()), "round_cpu", self.scalar_type());
        OutOp<at::meta::structured_round_decimals> m(out);
        m.meta(self, decimals);
        if (decimals == 0) {
          run_pointwise(m, "round", RS_PW_ROUND);
          return out;
        }
        bool neg = decimals < 0;
        double p = std::pow(10.0, static_cast<double>(neg ? -decimals : decimals));
        if (m.common_dtype() != at::kDouble) p = static_cast<float>(p);
        run_pointwise(m, "round_decimals", RS_PW_ROUND_DECIMALS, Result::Compute, {p, neg ? 1 : 0}, std::nullopt, 0,
                      /*scalars_in_opmath*/ true);
        return out;
      },
      self, decimals, out);
}

// An elementwise predicate of self into a bool (or any dtype) output,
// computed in self's dtype: ATen's iterator for logical_not and the
// CompositeExplicitAutograd isnan/isinf.
void predicate(const Tensor& self, const Tensor& out, const char* name, rs_pw_op pw) {
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(true)
                  .check_all_same_dtype(false)
                  .add_output(out)
                  .add_const_input(self)
                  .build();
  run_pointwise(iter, name, pw, Result::Bool, {}, self.scalar_type());
}

Tensor& logical_not_out(const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::logical_not_out>(
      [&]() -> Tensor& {
        predicate(self, out, "logical_not", RS_PW_LOGICAL_NOT);
        return out;
      },
      self, out);
}

#define PREDICATE(fn, op, pw)                                                           \
  Tensor fn(const Tensor& self) {                                                         \
    return native_or_host<at::_ops::op>(                                                  \
        [&]() -> Tensor {                                                                 \
          Tensor out = at::empty({0}, self.options().dtype(at::kBool));                  \
          predicate(self, out, #op, pw);                                                \
          return out;                                                                     \
        },                                                                                \
        self);                                                                            \
  }                                                                                       \
  Tensor& fn##_out(const Tensor& self, Tensor& out) {                                     \
    return native_or_host<at::_ops::op##_out>(                                            \
        [&]() -> Tensor& {                                                                \
          TORCH_CHECK(out.scalar_type() == at::kBool, "Expected out tensor to have dtype Bool, but got ", \
                      out.scalar_type(), " instead");                                     \
          predicate(self, out, #op, pw);                                                \
          return out;                                                                     \
        },                                                                                \
        self, out);                                                                       \
  }

PREDICATE(isnan, isnan, RS_PW_ISNAN)
PREDICATE(isinf, isinf, RS_PW_ISINF)

// logit: ATen's unary_op_impl_float_out with eps (-1: none)
Tensor& logit_out(const Tensor& self, std::optional<double> eps, Tensor& out) {
  return native_or_host<at::_ops::logit_out>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_pointwise(iter, "logit", RS_PW_LOGIT, Result::Compute, {at::Scalar(eps ? *eps : -1.0)});
        return out;
      },
      self, eps, out);
}
Tensor logit(const Tensor& self, std::optional<double> eps) {
  return native_or_host<at::_ops::logit>(
      [&]() -> Tensor {
        Tensor out;
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_pointwise(iter, "logit", RS_PW_LOGIT, Result::Compute, {at::Scalar(eps ? *eps : -1.0)});
        return iter.output();
      },
      self, eps);
}
Tensor& logit_(Tensor& self, std::optional<double> eps) { return logit_out(self, eps, self); }

// frexp: ATen's frexp_out (floating self, mantissa in self's dtype, int32
// exponent), as two passes over self: the exponent first, so that a
// mantissa written over self still reads the input.
std::tuple<Tensor&, Tensor&> frexp_out(const Tensor& self, Tensor& mantissa, Tensor& exponent) {
  return native_or_host<at::_ops::frexp_Tensor_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
        TORCH_CHECK(mantissa.dtype() == self.dtype(), "torch.frexp() expects mantissa to have dtype ", self.dtype(),
                    " but got ", mantissa.dtype());
        TORCH_CHECK(exponent.dtype() == at::kInt, "torch.frexp() expects exponent to have int dtype but got ",
                    exponent.dtype());
        host_if_no_fp64(self);
        for (int pass = 0; pass < 2; pass++) {
          const Tensor& out = pass == 0 ? exponent : mantissa;
          auto iter = at::TensorIteratorConfig()
                          .add_output(out)
                          .add_const_input(self)
                          .check_all_same_dtype(false)
                          .set_check_mem_overlap(true)
                          .build();
          run_pointwise(iter, pass == 0 ? "frexp_exponent" : "frexp_mantissa",
                        pass == 0 ? RS_PW_FREXP_EXPONENT : RS_PW_FREXP_MANTISSA, Result::Compute, {},
                        self.scalar_type());
        }
        return std::forward_as_tuple(mantissa, exponent);
      },
      self, mantissa, exponent);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("neg.out", neg_out);
  m.impl("sign.out", sign_out);
  m.impl("sgn.out", sgn_out);
  m.impl("reciprocal.out", reciprocal_out);
  m.impl("sqrt.out", sqrt_out);
  m.impl("rsqrt.out", rsqrt_out);
  m.impl("trunc.out", trunc_out);
  m.impl("floor.out", floor_out);
  m.impl("ceil.out", ceil_out);
  m.impl("round.out", round_out);
  m.impl("round.decimals_out", round_decimals_out);
  m.impl("frac.out", frac_out);
  m.impl("signbit.out", signbit_out);
  m.impl("isposinf.out", isposinf_out);
  m.impl("isneginf.out", isneginf_out);
  m.impl("bitwise_not.out", bitwise_not_out);
  m.impl("logical_not.out", logical_not_out);
  m.impl("isnan", isnan);
  m.impl("isnan.out", isnan_out);
  m.impl("isinf", isinf);
  m.impl("isinf.out", isinf_out);
  m.impl("exp.out", exp_out);
  m.impl("exp2.out", exp2_out);
  m.impl("expm1.out", expm1_out);
  m.impl("log.out", log_out);
  m.impl("log2.out", log2_out);
  m.impl("log10.out", log10_out);
  m.impl("log1p.out", log1p_out);
  m.impl("sin.out", sin_out);
  m.impl("cos.out", cos_out);
  m.impl("tan.out", tan_out);
  m.impl("asin.out", asin_out);
  m.impl("acos.out", acos_out);
  m.impl("atan.out", atan_out);
  m.impl("sinh.out", sinh_out);
  m.impl("cosh.out", cosh_out);
  m.impl("tanh.out", tanh_out);
  m.impl("asinh.out", asinh_out);
  m.impl("acosh.out", acosh_out);
  m.impl("atanh.out", atanh_out);
  m.impl("sigmoid.out", sigmoid_out);
  m.impl("erf.out", erf_out);
  m.impl("erfc.out", erfc_out);
  m.impl("sinc.out", sinc_out);
  m.impl("logit", logit);
  m.impl("logit_", logit_);
  m.impl("logit.out", logit_out);
  m.impl("frexp.Tensor_out", frexp_out);
}

}  // namespace russet
