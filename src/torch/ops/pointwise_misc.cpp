// Ternary and miscellaneous pointwise ops (kernels/common/ops_misc.glsl):
// clamp, pow, lerp, addcmul/addcdiv, hypot, copysign, nextafter, xlogy,
// logaddexp, heaviside, ldexp, where, masked_fill, floor_divide, rsub, shifts,
// logical ops, nan_to_num. Structured ops register .out (pointwise.h);
// the others build their TensorIterator as ATen's CPU implementation does.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/structured_ops.h"
#include "torch/torch_version.h"
#include "russet/pointwise_ops.h"

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ScalarOps.h>
#include <ATen/ops/addcdiv_meta.h>
#include <ATen/ops/addcdiv_ops.h>
#include <ATen/ops/addcmul_meta.h>
#include <ATen/ops/addcmul_ops.h>
#include <ATen/ops/clamp_max_meta.h>
#include <ATen/ops/clamp_max_ops.h>
#include <ATen/ops/clamp_meta.h>
#include <ATen/ops/clamp_min_meta.h>
#include <ATen/ops/clamp_min_ops.h>
#include <ATen/ops/clamp_ops.h>
#include <ATen/ops/copysign_meta.h>
#include <ATen/ops/copysign_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ldexp_ops.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/fill.h>
#include <ATen/ops/floor_divide_ops.h>
#include <ATen/ops/heaviside_meta.h>
#include <ATen/ops/heaviside_ops.h>
#include <ATen/ops/hypot_meta.h>
#include <ATen/ops/hypot_ops.h>
#include <ATen/ops/lerp_meta.h>
#include <ATen/ops/lerp_ops.h>
#include <ATen/ops/logaddexp2_meta.h>
#include <ATen/ops/logaddexp2_ops.h>
#include <ATen/ops/logaddexp_meta.h>
#include <ATen/ops/logaddexp_ops.h>
#include <ATen/ops/logical_and_ops.h>
#include <ATen/ops/logical_or_ops.h>
#include <ATen/ops/logical_xor_ops.h>
#include <ATen/ops/lshift_ops.h>
#include <ATen/ops/masked_fill_ops.h>
#include <ATen/ops/nan_to_num_ops.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/nextafter_meta.h>
#include <ATen/ops/nextafter_ops.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/pow_meta.h>
#include <ATen/ops/pow_ops.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/rshift_ops.h>
#include <ATen/ops/rsub_ops.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/where_ops.h>
#include <ATen/ops/xlogy_meta.h>
#include <ATen/ops/xlogy_ops.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/library.h>

#include <limits>


namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

bool is_nan(const Scalar& s) {
  double v = s.toDouble();
  return v != v;
}

// ---------------------------------------------------------------- clamp

// torch 2.15's CPU on an integer tensor with integer limits outside its
// dtype's range: a limit beyond the range on its own side bounds nothing
// (clamp(uint8, -1, 1) leaves 0 as 0), one beyond the other side raises;
// torch 2.13 converts the limit to the dtype (-1 wraps to 255, 300 raises).
// Applied where russet is built against 2.15 (docs/torch-versions.md).
bool outside_range(at::ScalarType t, const Scalar& v, bool below) {
  double lo = 0, hi = 0;
  switch (t) {
#define RANGE(T, C)                                         \
  case at::k##T:                                            \
    lo = static_cast<double>(std::numeric_limits<C>::lowest()); \
    hi = static_cast<double>(std::numeric_limits<C>::max());    \
    break;
    RANGE(Byte, uint8_t) RANGE(Char, int8_t) RANGE(Short, int16_t) RANGE(Int, int32_t) RANGE(Long, int64_t)
    RANGE(UInt16, uint16_t) RANGE(UInt32, uint32_t) RANGE(UInt64, uint64_t)
#undef RANGE
    default:
      return false;
  }
  const double d = v.toDouble();
  return below ? d < lo : d > hi;
}

void saturating_limits(const Tensor& self, std::optional<Scalar>& min, std::optional<Scalar>& max) {
  const at::ScalarType t = self.scalar_type();
  if (!c10::isIntegralType(t, false) || (min && !min->isIntegral(false)) || (max && !max->isIntegral(false))) return;
  TORCH_CHECK(!(min && outside_range(t, *min, false)), "Clamp min value ", *min,
              " is outside the representable range of ", t);
  TORCH_CHECK(!(max && outside_range(t, *max, true)), "Clamp max value ", *max,
              " is outside the representable range of ", t);
  if (min && outside_range(t, *min, true)) min.reset();
  if (max && outside_range(t, *max, false)) max.reset();
}

Tensor& clamp_out(const Tensor& self, const std::optional<Scalar>& min_, const std::optional<Scalar>& max_,
                  Tensor& out) {
  std::optional<Scalar> min = min_, max = max_;
  if (RUSSET_TORCH_2_15) saturating_limits(self, min, max);
  return native_or_host<at::_ops::clamp_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_clamp> m(out);
        m.meta(self, min_ ? at::OptionalScalarRef(&*min_) : at::OptionalScalarRef(),
               max_ ? at::OptionalScalarRef(&*max_) : at::OptionalScalarRef());
        if (!min && !max) {
          out.copy_(self);  // (2.15: both limits past the range)
        } else if (min && max) {
          if (is_nan(*min) || is_nan(*max)) {
            out.fill_(std::numeric_limits<double>::quiet_NaN());
          } else {
            run_pointwise(m, "clamp", RS_PW_CLAMP, Result::Compute, {*min, *max});
          }
        } else if (max) {
          if (is_nan(*max)) out.fill_(*max);
          else run_pointwise(m, "clamp_max", RS_PW_CLAMP_MAX, Result::Compute, {*max});
        } else if (min) {
          if (is_nan(*min)) out.fill_(*min);
          else run_pointwise(m, "clamp_min", RS_PW_CLAMP_MIN, Result::Compute, {*min});
        }
        return out;
      },
      self, min_, max_, out);
}

Tensor& clamp_tensor_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                         Tensor& out) {
  refuse_unless(self.scalar_type() != at::kBool, "clamp_cpu", self.scalar_type());
  return native_or_host<at::_ops::clamp_Tensor_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_clamp_Tensor> m(out);
        bool has_min = min.has_value() && min->defined(), has_max = max.has_value() && max->defined();
        m.meta(self, has_min ? at::OptionalTensorRef(*min) : at::OptionalTensorRef(),
               has_max ? at::OptionalTensorRef(*max) : at::OptionalTensorRef());
        if (has_min && has_max) run_pointwise(m, "clamp_t", RS_PW_CLAMP_TENSOR);
        else if (has_min) run_pointwise(m, "clamp_min_t", RS_PW_MAXIMUM);
        else if (has_max) run_pointwise(m, "clamp_max_t", RS_PW_MINIMUM);
        return out;
      },
      self, min, max, out);
}

Tensor& clamp_min_out(const Tensor& self, const Scalar& min, Tensor& out) {
  std::optional<Scalar> lo = min, none;
  if (RUSSET_TORCH_2_15) saturating_limits(self, lo, none);
  return native_or_host<at::_ops::clamp_min_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_clamp_min> m(out);
        m.meta(self, min);
        if (!lo) out.copy_(self);
        else if (is_nan(min)) out.fill_(min);
        else run_pointwise(m, "clamp_min", RS_PW_CLAMP_MIN, Result::Compute, {min});
        return out;
      },
      self, min, out);
}
Tensor& clamp_max_out(const Tensor& self, const Scalar& max, Tensor& out) {
  std::optional<Scalar> none, hi = max;
  if (RUSSET_TORCH_2_15) saturating_limits(self, none, hi);
  return native_or_host<at::_ops::clamp_max_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_clamp_max> m(out);
        m.meta(self, max);
        if (!hi) out.copy_(self);
        else if (is_nan(max)) out.fill_(max);
        else run_pointwise(m, "clamp_max", RS_PW_CLAMP_MAX, Result::Compute, {max});
        return out;
      },
      self, max, out);
}

// out= kernel of a structured binary op: meta(self, other), then EXPR.
#define BINARY(fn, META_CLASS, op, pw) RS_STRUCTURED_BINARY(fn, META_CLASS, op, pw, Result::Compute)

BINARY(clamp_min_tensor_out, structured_clamp_min_Tensor, clamp_min_Tensor_out, RS_PW_MAXIMUM)
BINARY(clamp_max_tensor_out, structured_clamp_max_Tensor, clamp_max_Tensor_out, RS_PW_MINIMUM)
BINARY(hypot_out, structured_hypot, hypot_out, RS_PW_HYPOT)
BINARY(copysign_out, structured_copysign_Tensor, copysign_out, RS_PW_COPYSIGN)
BINARY(nextafter_out, structured_nextafter, nextafter_out, RS_PW_NEXTAFTER)
BINARY(xlogy_out, structured_xlogy_Tensor, xlogy_OutTensor, RS_PW_XLOGY)
BINARY(logaddexp_out, structured_logaddexp, logaddexp_out, RS_PW_LOGADDEXP)
BINARY(logaddexp2_out, structured_logaddexp2, logaddexp2_out, RS_PW_LOGADDEXP2)
BINARY(heaviside_out, structured_heaviside, heaviside_out, RS_PW_HEAVISIDE)
BINARY(pow_tt_out, structured_pow_Tensor_Tensor, pow_Tensor_Tensor_out, RS_PW_POW)

// ---------------------------------------------------------------- pow

Tensor& pow_ts_out(const Tensor& base, const Scalar& exp, Tensor& out) {
  return native_or_host<at::_ops::pow_Tensor_Scalar_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_pow_Tensor_Scalar> m(out);
        m.meta(base, exp);
        if (exp.equal(0.0) || exp.equal(false)) {
          out.fill_(1);
          return out;
        }
        if (exp.equal(1.0) || exp.equal(true)) {
          out.copy_(base);
          return out;
        }
        const auto dtype = m.common_dtype();
        // PowKernel.cpp: sqrt/rsqrt/reciprocal, then x*x, x*x*x, 1/(x*x)
        if (dtype == at::kFloat || dtype == at::kDouble || dtype == at::kBFloat16 || at::isComplexType(dtype)) {
          if (exp.equal(.5)) return run_pointwise(m, "pow_sqrt", RS_PW_SQRT), out;
          if (exp.equal(-0.5)) return run_pointwise(m, "pow_rsqrt", RS_PW_RSQRT), out;
          if (exp.equal(-1.0)) return run_pointwise(m, "pow_reciprocal", RS_PW_RECIPROCAL), out;
        }
        if (dtype == at::kFloat || dtype == at::kDouble || dtype == at::kBFloat16 || at::isComplexType(dtype)) {
          bool real_exp = !exp.isComplex() || exp.toComplexDouble().imag() == 0;
          double e = exp.isComplex() ? exp.toComplexDouble().real() : exp.toDouble();
          if (dtype == at::kBFloat16) e = static_cast<float>(static_cast<c10::BFloat16>(static_cast<float>(e)));
          if (real_exp && e == 2.0) return run_pointwise(m, "pow_sq", RS_PW_SQUARE), out;
          if (real_exp && e == 3.0) return run_pointwise(m, "pow_cube", RS_PW_CUBE), out;
          if (real_exp && e == -2.0) return run_pointwise(m, "pow_inv_sq", RS_PW_INV_SQ), out;
        }
        run_pointwise(m, "pow_ts", RS_PW_POW_SCALAR, Result::Compute, {exp});
        return out;
      },
      base, exp, out);
}

Tensor& pow_st_out(const Scalar& base, const Tensor& exp, Tensor& out) {
  // ATen's meta for pow.Scalar_out (not a TensorIterator): out keeps its
  // dtype, takes exp's shape; then pow.Tensor_Tensor_out with a wrapped scalar
  return native_or_host<at::_ops::pow_Scalar_out>(
      [&]() -> Tensor& {
        resize_out(out, exp.sizes(), {}, exp.options().dtype(out.scalar_type()));
        if (base.equal(1.0)) {
          out.fill_(1);
        } else {
          at::pow_out(out, at::native::wrapped_scalar_tensor(base), exp);
        }
        return out;
      },
      base, exp, out);
}

// ---------------------------------------------------------------- lerp, addcmul, addcdiv

// CPU's float16/bfloat16 kernels of these ops take their Scalar argument in
// float (opmath): compute in float with float scalars when every input has
// the common dtype (else the usual path, which rounds scalars to it).
void run_opmath_scalars(at::TensorIteratorBase& iter, const char* name, rs_pw_op pw,
                        std::initializer_list<Scalar> scalars) {
  auto common = iter.common_dtype();
  if (common == at::kHalf || common == at::kBFloat16) {
    bool same = true;
    unsigned keep = 0;
    for (int k = 0; k < iter.ninputs(); k++) {
      same = same && iter.dtype(iter.noutputs() + k) == common;
      keep |= 1u << k;
    }
    if (same) {
      run_pointwise(iter, name, pw, Result::Compute, scalars, at::kFloat, keep);
      return;
    }
  }
  run_pointwise(iter, name, pw, Result::Compute, scalars);
}

Tensor& lerp_scalar_out(const Tensor& self, const Tensor& end, const Scalar& weight, Tensor& out) {
  return native_or_host<at::_ops::lerp_Scalar_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_lerp_Scalar> m(out);
        m.meta(self, end, weight);
        run_opmath_scalars(m, "lerp", RS_PW_LERP_SCALAR, {weight});
        return out;
      },
      self, end, weight, out);
}
Tensor& lerp_tensor_out(const Tensor& self, const Tensor& end, const Tensor& weight, Tensor& out) {
  return native_or_host<at::_ops::lerp_Tensor_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_lerp_Tensor> m(out);
        m.meta(self, end, weight);
        run_pointwise(m, "lerp_t", RS_PW_LERP);
        return out;
      },
      self, end, weight, out);
}
Tensor& addcmul_out(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, Tensor& out) {
  refuse_unless(self.scalar_type() != at::kBool, "addcmul_cpu_out", self.scalar_type());
  return native_or_host<at::_ops::addcmul_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_addcmul> m(out);
        m.meta(self, t1, t2, value);
        run_opmath_scalars(m, "addcmul", RS_PW_ADDCMUL, {value});
        return out;
      },
      self, t1, t2, value, out);
}
Tensor& addcdiv_out(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value, Tensor& out) {
  return native_or_host<at::_ops::addcdiv_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_addcdiv> m(out);
        m.meta(self, t1, t2, value);
        run_opmath_scalars(m, "addcdiv", RS_PW_ADDCDIV, {value});
        return out;
      },
      self, t1, t2, value, out);
}

// ---------------------------------------------------------------- where, masked_fill

at::Device out_device(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->device().type() != at::kCPU) return t->device();
  return at::Device(at::kCPU);
}

Tensor& where_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  return native_or_host<at::_ops::where_self_out>(
      [&]() -> Tensor& {
        const auto result_type = at::result_type(self, other);
        TORCH_CHECK(out.scalar_type() == result_type, "Expected out type to be ", result_type, " but got ",
                    out.scalar_type());
        Tensor self_ = self.scalar_type() != result_type ? self.to(result_type) : self;
        Tensor other_ = other.scalar_type() != result_type ? other.to(result_type) : other;
        Tensor cond_ = condition;
        auto device = out.device();
        if (cond_.device() != device && cond_.dim() == 0) cond_ = cond_.to(device);
        if (self_.device() != device && self_.dim() == 0) self_ = self_.to(device);
        if (other_.device() != device && other_.dim() == 0) other_ = other_.to(device);
        if (cond_.scalar_type() == at::kByte) {
          TORCH_WARN_ONCE("where received a uint8 condition tensor. This behavior is deprecated and will be removed ",
                          "in a future version of PyTorch. Use a boolean condition instead.");
          cond_ = cond_.to(at::kBool);
        }
        TORCH_CHECK(cond_.scalar_type() == at::kBool,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                    cond_.scalar_type());
        auto iter = at::TensorIteratorConfig()
                        .check_all_same_dtype(false)
                        .add_output(out)
                        .add_const_input(cond_)
                        .add_const_input(self_)
                        .add_const_input(other_)
                        .build();
        run_pointwise(iter, "where", RS_PW_WHERE, Result::Compute, {}, result_type, 0b1);
        return out;
      },
      condition, self, other, out);
}
Tensor where_self(const Tensor& condition, const Tensor& self, const Tensor& other) {
  auto device = out_device({&condition, &self, &other});
  auto result_type = at::result_type(self, other);
  Tensor ret = at::empty({0}, self.options().dtype(result_type).device(device));
  where_out(condition, self, other, ret);
  return ret;
}

void check_masked_fill(const Tensor& self, const Tensor& mask) {
  TORCH_CHECK(mask.dtype() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  TORCH_CHECK(self.device() == mask.device(), "expected self and mask to be on the same device, but got mask on ",
              mask.device(), " and self on ", self.device());
}

// CPU converts the fill value to self's dtype with a check (Scalar::to): a
// complex value with an imaginary part, or one outside an integer type's
// range, raises "value cannot be converted to type ... without overflow"
void check_fill_value(const Tensor& self, const Scalar& value) {
  switch (self.scalar_type()) {
    case at::kBool: case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kHalf: case at::kBFloat16: case at::kFloat: case at::kDouble:
      AT_DISPATCH_ALL_TYPES_AND3(at::kBool, at::kHalf, at::kBFloat16, self.scalar_type(), "masked_fill",
                                 [&] { (void)value.to<scalar_t>(); });
      break;
    default:
      break;
  }
}

Tensor& masked_fill_scalar_(Tensor& self, const Tensor& mask, const Scalar& value) {
  return native_or_host<at::_ops::masked_fill__Scalar>(
      [&]() -> Tensor& {
        check_masked_fill(self, mask);
        check_fill_value(self, value);
        auto iter = at::TensorIteratorConfig()
                        .set_check_mem_overlap(false)
                        .check_all_same_dtype(false)
                        .resize_outputs(false)
                        .add_output(self)
                        .add_const_input(mask)
                        .add_const_input(self)
                        .build();
        run_pointwise(iter, "masked_fill", RS_PW_MASKED_FILL, Result::Compute, {value}, self.scalar_type(), 0b1);
        return self;
      },
      self, mask, value);
}
Tensor& masked_fill_tensor_(Tensor& self, const Tensor& mask, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  if (value.device().type() == at::kCPU) return masked_fill_scalar_(self, mask, value.item());
  return native_or_host<at::_ops::masked_fill__Tensor>(
      [&]() -> Tensor& {
        check_masked_fill(self, mask);
        // a value of another dtype is converted with CPU's check, which
        // reads it (CUDA reads every value: .item())
        if (value.scalar_type() != self.scalar_type()) check_fill_value(self, value.item());
        Tensor v = value.scalar_type() == self.scalar_type() ? value : value.to(self.scalar_type());
        auto iter = at::TensorIteratorConfig()
                        .set_check_mem_overlap(false)
                        .check_all_same_dtype(false)
                        .resize_outputs(false)
                        .add_output(self)
                        .add_const_input(mask)
                        .add_const_input(self)
                        .add_const_input(v)
                        .build();
        run_pointwise(iter, "masked_fill_t", RS_PW_MASKED_FILL_TENSOR, Result::Compute, {}, self.scalar_type(), 0b1);
        return self;
      },
      self, mask, value);
}

// ---------------------------------------------------------------- ldexp

// CPU takes an exact x 2^e (its ldexp kernel, the exponent narrowed to
// int, rounded once) for a floating self and an integer exponent, else
// self * 2^other (ATen's composite: a 2 of self's dtype, float32 for an
// integer or bool self). torch 2.11's composite called the exact kernel's
// stub on any device ("DispatchStub: missing kernel for russet"), and
// russet took the composite's product, which overflows where the exact
// value does not (0.5 2^128 in float32): registered here, on every torch.
bool ldexp_exact(const Tensor& self, const Tensor& other) {
  return at::isFloatingType(self.scalar_type()) && at::isIntegralType(other.scalar_type(), /*includeBool=*/true);
}

// 2^other, the composite's factor
Tensor ldexp_factor(const Tensor& self, const Tensor& other) {
  const auto t = self.scalar_type();
  const bool keep = at::isFloatingType(t) || at::isComplexType(t);
  return at::pow(at::scalar_tensor(2.0, self.options().dtype(keep ? t : at::kFloat)), other);
}

Tensor& ldexp_into(const Tensor& self, const Tensor& other, Tensor& out) {
  return native_or_host<at::_ops::ldexp_out>(
      [&]() -> Tensor& {
        if (!ldexp_exact(self, other)) return at::mul_out(out, self, ldexp_factor(self, other));
        const auto e = other.scalar_type();
        refuse_unless(e == at::kByte || e == at::kChar || e == at::kShort || e == at::kInt || e == at::kLong,
                      "ldexp_cpu_exp", e);
        if (out.scalar_type() != self.scalar_type()) throw NeedsHost{};  // CPU's answer
        auto iter = at::TensorIteratorConfig()
                        .add_output(out)
                        .add_const_input(self)
                        .add_const_input(other)
                        .check_all_same_dtype(false)
                        .build();
        run_pointwise(iter, "ldexp", RS_PW_LDEXP, Result::Compute, {}, self.scalar_type(), 0b10);
        return out;
      },
      self, other, out);
}
// (the product and ldexp.out each choose native or host themselves)
Tensor ldexp_tensor(const Tensor& self, const Tensor& other) {
  if (!ldexp_exact(self, other)) return at::mul(self, ldexp_factor(self, other));
  Tensor out = at::empty({0}, self.options());
  return ldexp_into(self, other, out);
}
Tensor& ldexp_inplace(Tensor& self, const Tensor& other) { return ldexp_into(self, other, self); }

// ---------------------------------------------------------------- floor_divide, rsub, shifts

Tensor& fdiv_out(const Tensor& self, const Tensor& other, Tensor& out) {
  return native_or_host<at::_ops::floor_divide_out>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::binary_op(out, self, other);
        run_pointwise(iter, "floor_divide", RS_PW_DIV_FLOOR);
        return out;
      },
      self, other, out);
}
Tensor fdiv(const Tensor& self, const Tensor& other) {
  return native_or_host<at::_ops::floor_divide>(
      [&]() -> Tensor {
        Tensor result;
        auto iter = at::TensorIterator::binary_op(result, self, other);
        run_pointwise(iter, "floor_divide", RS_PW_DIV_FLOOR);
        return iter.output();
      },
      self, other);
}
Tensor& fdiv_(Tensor& self, const Tensor& other) { return fdiv_out(self, other, self); }

Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return at::sub(other, self, alpha); }

#define SHIFT(fn, fn_s, fni, fni_s, OPT, OPS, OPIT, OPIS, pw)                                            \
  Tensor fn(const Tensor& self, const Tensor& other) {                                                      \
    return native_or_host<at::_ops::OPT>(                                                                   \
        [&]() -> Tensor {                                                                                   \
          Tensor result;                                                                                    \
          auto iter = at::TensorIterator::binary_op(result, self, other);                                   \
          run_pointwise(iter, #fn, pw);                                                                   \
          return iter.output();                                                                             \
        },                                                                                                  \
        self, other);                                                                                       \
  }                                                                                                         \
  Tensor fn_s(const Tensor& self, const Scalar& other) {                                                    \
    return native_or_host<at::_ops::OPS>(                                                                   \
        [&]() -> Tensor {                                                                                   \
          Tensor result;                                                                                    \
          auto wrapper = at::native::wrapped_scalar_tensor(other);                                          \
          auto iter = at::TensorIterator::binary_op(result, self, wrapper);                                 \
          run_pointwise(iter, #fn, pw);                                                                   \
          return iter.output();                                                                             \
        },                                                                                                  \
        self, other);                                                                                       \
  }                                                                                                         \
  Tensor& fni(Tensor& self, const Tensor& other) {                                                          \
    return native_or_host<at::_ops::OPIT>(                                                                  \
        [&]() -> Tensor& {                                                                                  \
          auto iter = at::TensorIterator::binary_op(self, self, other);                                     \
          run_pointwise(iter, #fn, pw);                                                                   \
          return self;                                                                                      \
        },                                                                                                  \
        self, other);                                                                                       \
  }                                                                                                         \
  Tensor& fni_s(Tensor& self, const Scalar& other) {                                                        \
    return native_or_host<at::_ops::OPIS>(                                                                  \
        [&]() -> Tensor& {                                                                                  \
          auto wrapper = at::native::wrapped_scalar_tensor(other);                                          \
          auto iter = at::TensorIterator::binary_op(self, self, wrapper);                                   \
          run_pointwise(iter, #fn, pw);                                                                   \
          return self;                                                                                      \
        },                                                                                                  \
        self, other);                                                                                       \
  }

SHIFT(lshift, lshift_s, ilshift, ilshift_s, __lshift___Tensor, __lshift___Scalar, __ilshift___Tensor,
      __ilshift___Scalar, RS_PW_SHIFT_LEFT)
SHIFT(rshift, rshift_s, irshift, irshift_s, __rshift___Tensor, __rshift___Scalar, __irshift___Tensor,
      __irshift___Scalar, RS_PW_SHIFT_RIGHT)

// ---------------------------------------------------------------- logical ops

#define LOGICAL(fn, op, pw)                                                \
  Tensor& fn(const Tensor& self, const Tensor& other, Tensor& out) {        \
    return native_or_host<at::_ops::op>(                                    \
        [&]() -> Tensor& {                                                  \
          auto iter = at::TensorIterator::comparison_op(out, self, other);  \
          run_pointwise(iter, #op, pw, Result::Bool);                     \
          return out;                                                       \
        },                                                                  \
        self, other, out);                                                  \
  }
LOGICAL(logical_and_out, logical_and_out, RS_PW_LOGICAL_AND)
LOGICAL(logical_or_out, logical_or_out, RS_PW_LOGICAL_OR)
LOGICAL(logical_xor_out, logical_xor_out, RS_PW_LOGICAL_XOR)

// ---------------------------------------------------------------- nan_to_num

Scalar finite_max(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return Scalar(static_cast<double>(std::numeric_limits<c10::Half>::max()));
    case at::kBFloat16: return Scalar(static_cast<double>(std::numeric_limits<c10::BFloat16>::max()));
    case at::kDouble: return Scalar(std::numeric_limits<double>::max());
    default: return Scalar(static_cast<double>(std::numeric_limits<float>::max()));
  }
}

Tensor& nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf, Tensor& out) {
  return native_or_host<at::_ops::nan_to_num_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.scalar_type() == out.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
                    " should be same as input: ", self.scalar_type());
        if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/true)) {
          at::native::resize_output(out, self.sizes());
          out.copy_(self);
          return out;
        }
        if (self.is_complex()) {
          // the real and imaginary parts as real elements (as CPU's kernel;
          // torch 2.15's nan_to_num sends complex here)
          at::native::resize_output(out, self.sizes());
          Tensor ro = at::view_as_real(out);
          nan_to_num_out(at::view_as_real(self.resolve_conj()), nan, posinf, neginf, ro);
          return out;
        }
        auto iter = at::TensorIterator::unary_op(out, self);
        Scalar mx = finite_max(self.scalar_type());
        Scalar pos = posinf ? Scalar(*posinf) : mx;
        Scalar neg = neginf ? Scalar(*neginf) : Scalar(-mx.toDouble());
        run_pointwise(iter, "nan_to_num", RS_PW_NAN_TO_NUM, Result::Compute,
                      {Scalar(nan.value_or(0.)), pos, neg});
        return out;
      },
      self, nan, posinf, neginf, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("clamp.out", clamp_out);
  m.impl("clamp.Tensor_out", clamp_tensor_out);
  m.impl("clamp_min.out", clamp_min_out);
  m.impl("clamp_max.out", clamp_max_out);
  m.impl("clamp_min.Tensor_out", clamp_min_tensor_out);
  m.impl("clamp_max.Tensor_out", clamp_max_tensor_out);
  m.impl("hypot.out", hypot_out);
  m.impl("copysign.out", copysign_out);
  m.impl("nextafter.out", nextafter_out);
  m.impl("xlogy.OutTensor", xlogy_out);
  m.impl("logaddexp.out", logaddexp_out);
  m.impl("logaddexp2.out", logaddexp2_out);
  m.impl("heaviside.out", heaviside_out);
  m.impl("pow.Tensor_Tensor_out", pow_tt_out);
  m.impl("pow.Tensor_Scalar_out", pow_ts_out);
  m.impl("pow.Scalar_out", pow_st_out);
  m.impl("lerp.Scalar_out", lerp_scalar_out);
  m.impl("lerp.Tensor_out", lerp_tensor_out);
  m.impl("addcmul.out", addcmul_out);
  m.impl("addcdiv.out", addcdiv_out);
  m.impl("where.self_out", where_out);
  m.impl("where.self", where_self);
  m.impl("masked_fill_.Scalar", masked_fill_scalar_);
  m.impl("masked_fill_.Tensor", masked_fill_tensor_);
  m.impl("ldexp.Tensor", ldexp_tensor);
  m.impl("ldexp.out", ldexp_into);
  m.impl("ldexp_", ldexp_inplace);
  m.impl("floor_divide", fdiv);
  m.impl("floor_divide.out", fdiv_out);
  m.impl("floor_divide_.Tensor", fdiv_);
  m.impl("rsub.Tensor", rsub);
  m.impl("__lshift__.Tensor", lshift);
  m.impl("__lshift__.Scalar", lshift_s);
  m.impl("__ilshift__.Tensor", ilshift);
  m.impl("__ilshift__.Scalar", ilshift_s);
  m.impl("__rshift__.Tensor", rshift);
  m.impl("__rshift__.Scalar", rshift_s);
  m.impl("__irshift__.Tensor", irshift);
  m.impl("__irshift__.Scalar", irshift_s);
  m.impl("logical_and.out", logical_and_out);
  m.impl("logical_or.out", logical_or_out);
  m.impl("logical_xor.out", logical_xor_out);
  m.impl("nan_to_num.out", nan_to_num_out);
}

}  // namespace russet
