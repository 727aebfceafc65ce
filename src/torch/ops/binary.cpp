// Binary pointwise ops: arithmetic, comparison, bitwise, min/max, gcd/lcm
// and friends. ATen's structured meta functions do the shape and dtype work
// (pointwise.h); each op is a table op RS_PW_* (src/engine/pointwise_ops.c:
// kernels/common/ops.glsl functions).
#include <ATen/ops/add_meta.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/atan2_meta.h>
#include <ATen/ops/atan2_ops.h>
#include <ATen/ops/bitwise_and_meta.h>
#include <ATen/ops/bitwise_and_ops.h>
#include <ATen/ops/bitwise_left_shift_meta.h>
#include <ATen/ops/bitwise_left_shift_ops.h>
#include <ATen/ops/bitwise_or_meta.h>
#include <ATen/ops/bitwise_or_ops.h>
#include <ATen/ops/bitwise_right_shift_meta.h>
#include <ATen/ops/bitwise_right_shift_ops.h>
#include <ATen/ops/bitwise_xor_meta.h>
#include <ATen/ops/bitwise_xor_ops.h>
#include <ATen/ops/div_meta.h>
#include <ATen/ops/div_ops.h>
#include <ATen/ops/eq_meta.h>
#include <ATen/ops/eq_ops.h>
#include <ATen/ops/fmax_meta.h>
#include <ATen/ops/fmax_ops.h>
#include <ATen/ops/fmin_meta.h>
#include <ATen/ops/fmin_ops.h>
#include <ATen/ops/fmod_meta.h>
#include <ATen/ops/fmod_ops.h>
#include <ATen/ops/gcd_meta.h>
#include <ATen/ops/gcd_ops.h>
#include <ATen/ops/ge_meta.h>
#include <ATen/ops/ge_ops.h>
#include <ATen/ops/gt_meta.h>
#include <ATen/ops/gt_ops.h>
#include <ATen/ops/lcm_meta.h>
#include <ATen/ops/lcm_ops.h>
#include <ATen/ops/le_meta.h>
#include <ATen/ops/le_ops.h>
#include <ATen/ops/lt_meta.h>
#include <ATen/ops/lt_ops.h>
#include <ATen/ops/maximum_meta.h>
#include <ATen/ops/maximum_ops.h>
#include <ATen/ops/minimum_meta.h>
#include <ATen/ops/minimum_ops.h>
#include <ATen/ops/mul_meta.h>
#include <ATen/ops/mul_ops.h>
#include <ATen/ops/ne_meta.h>
#include <ATen/ops/ne_ops.h>
#include <ATen/ops/remainder_meta.h>
#include <ATen/ops/remainder_ops.h>
#include <ATen/ops/sub_meta.h>
#include <ATen/ops/sub_ops.h>
#include <torch/library.h>

#include "torch/pointwise.h"
#include "torch/structured_ops.h"

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

// out= kernel of a structured binary op: meta(self, other), then EXPR.
#define BINARY RS_STRUCTURED_BINARY

// comparisons against a Scalar (eq.Scalar_out, ...)
#define COMPARE_SCALAR(fn, META_CLASS, op, pw)                                              \
  Tensor& fn(const Tensor& self, const Scalar& other, Tensor& out) {                          \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, pw, Result::Bool, out, self, other); \
  }

// add/sub's alpha: CPU's kernel (the add ufunc) takes alpha.to<scalar_t>():
// float16/bfloat16/complex32 round it to the dtype, then compute
// a + alpha * b in float (one rounding, as its vectorized body). Other
// dtypes keep it in opmath (equal values; no overflow check for integers).
bool alpha_in_dtype(at::TensorIteratorBase& iter) {
  auto t = iter.common_dtype();
  return at::isReducedFloatingType(t) || t == at::kComplexHalf;
}

Tensor& add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::add_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_add_Tensor> m(out);
        m.meta(self, other, alpha);
        run_pointwise(m, "add", RS_PW_ADD, Result::Compute, {alpha}, std::nullopt, 0,
                      !alpha_in_dtype(m));
        return out;
      },
      self, other, alpha, out);
}

Tensor& sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::sub_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_sub_Tensor> m(out);
        m.meta(self, other, alpha);
        run_pointwise(m, "sub", RS_PW_SUB, Result::Compute, {alpha}, std::nullopt, 0,
                      !alpha_in_dtype(m));
        return out;
      },
      self, other, alpha, out);
}

// CPU's mul and div kernels read a one-element second operand of a
// float16/bfloat16 op at its original value in float
// (iter.original_scalar_value<opmath_t>(2)), not rounded to the dtype, and
// compute in float: a Python number (a CPU scalar) becomes s0, in float;
// a one-element float32 device tensor is read as float (keep its dtype).
bool scalar_in_float(at::TensorIteratorBase& iter, at::Scalar& s, unsigned& keep) {
  keep = 0;
  if (!at::isReducedFloatingType(iter.common_dtype()) || !iter.is_scalar(2)) return false;
  if (iter.is_cpu_scalar(2)) {
    s = static_cast<double>(iter.original_scalar_value<float>(2));
    return true;
  }
  if (iter.dtype(2) == at::kFloat) keep = 0b10;
  return false;
}

// a / b (mode none, "trunc" or "floor"); with s0 for the float16/bfloat16
// op by a Python number, as CPU's kernels
void run_div(at::TensorIteratorBase& iter, std::optional<c10::string_view> mode) {
  at::Scalar s;
  unsigned keep;
  bool sf = scalar_in_float(iter, s, keep);
  if (!mode.has_value()) {
    if (sf) run_pointwise(iter, "div_s", RS_PW_DIV_SCALAR, Result::Compute, {s}, std::nullopt, 0, true);
    else run_pointwise(iter, "div", RS_PW_DIV, Result::Compute, {}, std::nullopt, keep);
  } else if (*mode == "trunc") {
    if (sf) run_pointwise(iter, "div_trunc_s", RS_PW_DIV_TRUNC_SCALAR, Result::Compute, {s}, std::nullopt, 0, true);
    else if (keep) run_pointwise(iter, "div_trunc_f", RS_PW_DIV_TRUNC_FLOAT, Result::Compute, {}, std::nullopt, keep);
    else run_pointwise(iter, "div_trunc", RS_PW_DIV_TRUNC);
  } else {
    if (sf) run_pointwise(iter, "div_floor_s", RS_PW_DIV_FLOOR_SCALAR, Result::Compute, {s}, std::nullopt, 0, true);
    else run_pointwise(iter, "div_floor", RS_PW_DIV_FLOOR, Result::Compute, {}, std::nullopt, keep);
  }
}

Tensor& div_mode_out(const Tensor& self, const Tensor& other, std::optional<c10::string_view> mode,
                     Tensor& out) {
  return native_or_host<at::_ops::div_out_mode>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_div_Tensor_mode> m(out);
        m.meta(self, other, mode);
        run_div(m, mode);
        return out;
      },
      self, other, mode, out);
}

Tensor& div_out(const Tensor& self, const Tensor& other, Tensor& out) {
  return native_or_host<at::_ops::div_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_div_Tensor> m(out);
        m.meta(self, other);
        run_div(m, std::nullopt);
        return out;
      },
      self, other, out);
}

Tensor& mul_out(const Tensor& self, const Tensor& other, Tensor& out) {
  return native_or_host<at::_ops::mul_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_mul_Tensor> m(out);
        m.meta(self, other);
        at::Scalar s;
        unsigned keep;
        if (scalar_in_float(m, s, keep))
          run_pointwise(m, "mul_s", RS_PW_MUL_SCALAR, Result::Compute, {s}, std::nullopt, 0, true);
        else run_pointwise(m, "mul", RS_PW_MUL, Result::Compute, {}, std::nullopt, keep);
        return out;
      },
      self, other, out);
}

BINARY(remainder_out, structured_remainder_Tensor, remainder_Tensor_out, RS_PW_REMAINDER, Result::Compute)
BINARY(fmod_out, structured_fmod_Tensor, fmod_Tensor_out, RS_PW_FMOD, Result::Compute)
BINARY(maximum_out, structured_maximum, maximum_out, RS_PW_MAXIMUM, Result::Compute)
BINARY(minimum_out, structured_minimum, minimum_out, RS_PW_MINIMUM, Result::Compute)
BINARY(fmax_out, structured_fmax, fmax_out, RS_PW_FMAX, Result::Compute)
BINARY(fmin_out, structured_fmin, fmin_out, RS_PW_FMIN, Result::Compute)
BINARY(atan2_out, structured_atan2, atan2_out, RS_PW_ATAN2, Result::Compute)
BINARY(bitwise_and_out, structured_bitwise_and_Tensor, bitwise_and_Tensor_out, RS_PW_BITWISE_AND, Result::Compute)
BINARY(bitwise_or_out, structured_bitwise_or_Tensor, bitwise_or_Tensor_out, RS_PW_BITWISE_OR, Result::Compute)
BINARY(bitwise_xor_out, structured_bitwise_xor_Tensor, bitwise_xor_Tensor_out, RS_PW_BITWISE_XOR, Result::Compute)
BINARY(lshift_out, structured_bitwise_left_shift_Tensor, bitwise_left_shift_Tensor_out,
       RS_PW_SHIFT_LEFT, Result::Compute)
BINARY(rshift_out, structured_bitwise_right_shift_Tensor, bitwise_right_shift_Tensor_out,
       RS_PW_SHIFT_RIGHT, Result::Compute)
BINARY(gcd_out, structured_gcd, gcd_out, RS_PW_GCD, Result::Compute)
BINARY(lcm_out, structured_lcm, lcm_out, RS_PW_LCM, Result::Compute)
BINARY(eq_out, structured_eq_Tensor, eq_Tensor_out, RS_PW_EQ, Result::Bool)
BINARY(ne_out, structured_ne_Tensor, ne_Tensor_out, RS_PW_NE, Result::Bool)
BINARY(lt_out, structured_lt_Tensor, lt_Tensor_out, RS_PW_LT, Result::Bool)
BINARY(le_out, structured_le_Tensor, le_Tensor_out, RS_PW_LE, Result::Bool)
BINARY(gt_out, structured_gt_Tensor, gt_Tensor_out, RS_PW_GT, Result::Bool)
BINARY(ge_out, structured_ge_Tensor, ge_Tensor_out, RS_PW_GE, Result::Bool)
COMPARE_SCALAR(eq_scalar_out, structured_eq_Scalar, eq_Scalar_out, RS_PW_EQ)
COMPARE_SCALAR(ne_scalar_out, structured_ne_Scalar, ne_Scalar_out, RS_PW_NE)
COMPARE_SCALAR(lt_scalar_out, structured_lt_Scalar, lt_Scalar_out, RS_PW_LT)
COMPARE_SCALAR(le_scalar_out, structured_le_Scalar, le_Scalar_out, RS_PW_LE)
COMPARE_SCALAR(gt_scalar_out, structured_gt_Scalar, gt_Scalar_out, RS_PW_GT)
COMPARE_SCALAR(ge_scalar_out, structured_ge_Scalar, ge_Scalar_out, RS_PW_GE)

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("add.out", add_out);
  m.impl("sub.out", sub_out);
  m.impl("mul.out", mul_out);
  m.impl("div.out", div_out);
  m.impl("div.out_mode", div_mode_out);
  m.impl("remainder.Tensor_out", remainder_out);
  m.impl("fmod.Tensor_out", fmod_out);
  m.impl("maximum.out", maximum_out);
  m.impl("minimum.out", minimum_out);
  m.impl("fmax.out", fmax_out);
  m.impl("fmin.out", fmin_out);
  m.impl("atan2.out", atan2_out);
  m.impl("bitwise_and.Tensor_out", bitwise_and_out);
  m.impl("bitwise_or.Tensor_out", bitwise_or_out);
  m.impl("bitwise_xor.Tensor_out", bitwise_xor_out);
  m.impl("bitwise_left_shift.Tensor_out", lshift_out);
  m.impl("bitwise_right_shift.Tensor_out", rshift_out);
  m.impl("gcd.out", gcd_out);
  m.impl("lcm.out", lcm_out);
  m.impl("eq.Tensor_out", eq_out);
  m.impl("ne.Tensor_out", ne_out);
  m.impl("lt.Tensor_out", lt_out);
  m.impl("le.Tensor_out", le_out);
  m.impl("gt.Tensor_out", gt_out);
  m.impl("ge.Tensor_out", ge_out);
  m.impl("eq.Scalar_out", eq_scalar_out);
  m.impl("ne.Scalar_out", ne_scalar_out);
  m.impl("lt.Scalar_out", lt_scalar_out);
  m.impl("le.Scalar_out", le_scalar_out);
  m.impl("gt.Scalar_out", gt_scalar_out);
  m.impl("ge.Scalar_out", ge_scalar_out);
}

}  // namespace russet
