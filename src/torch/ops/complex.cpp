// Complex pointwise ops: abs and angle (complex in, real out), conj_physical,
// polar and complex. real/imag/conj/view_as_* are views (ops/core.cpp).
// Iterators are built as ATen's UnaryOps.cpp / TensorFactories.cpp do;
// the table ops RS_PW_* are kernels/common/ops_math.glsl functions.
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "russet/pointwise_ops.h"

#include <ATen/ops/abs_ops.h>
#include <ATen/ops/angle_ops.h>
#include <ATen/ops/complex_ops.h>
#include <ATen/ops/conj_physical_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/polar_ops.h>
#include <torch/library.h>


namespace russet {
namespace {

using at::Tensor;

// ATen's unary_op_impl_with_complex_to_float_out: a complex input with a
// real out= computes |z| (or arg z) straight into the real output.
Tensor& complex_to_float_out(const Tensor& self, Tensor& out, const char* name, rs_pw_op real_op,
                             rs_pw_op complex_op, rs_pw_op to_float_op, bool promotes_int) {
  if (self.is_complex() && !out.is_complex()) {
    const auto float_type = c10::toRealValueType(self.scalar_type());
    TORCH_CHECK(at::canCast(float_type, out.scalar_type()), "result type ", float_type,
                " can't be cast to the desired output type ", out.scalar_type());
    auto iter = at::TensorIteratorConfig()
                    .set_check_mem_overlap(true)
                    .check_all_same_dtype(false)
                    .add_output(out)
                    .add_const_input(self)
                    .build();
    run_pointwise(iter, name, to_float_op, Result::Real, {}, self.scalar_type());
    return out;
  }
  auto iter = promotes_int ? at::TensorIterator::unary_float_op(out, self) : at::TensorIterator::unary_op(out, self);
  run_pointwise(iter, name, self.is_complex() ? complex_op : real_op);
  return out;
}

Tensor& abs_out(const Tensor& self, Tensor& out) {
  refuse_unless(self.scalar_type() != at::kBool, "abs_cpu", self.scalar_type());
  return native_or_host<at::_ops::abs_out>(
      [&]() -> Tensor& {
        return complex_to_float_out(self, out, "abs", RS_PW_ABS, RS_PW_ABS_AS_COMPLEX, RS_PW_ABS_OF_COMPLEX,
                                    false);
      },
      self, out);
}

Tensor& angle_out(const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::angle_out>(
      [&]() -> Tensor& {
        return complex_to_float_out(self, out, "angle", RS_PW_ANGLE, RS_PW_ANGLE_AS_COMPLEX,
                                    RS_PW_ANGLE, true);
      },
      self, out);
}

Tensor angle(const Tensor& self) {
  return native_or_host<at::_ops::angle>(
      [&]() -> Tensor {
        if (self.is_complex()) {
          Tensor out = at::empty({0}, self.options().dtype(c10::toRealValueType(self.scalar_type())));
          complex_to_float_out(self, out, "angle", RS_PW_NONE, RS_PW_NONE, RS_PW_ANGLE, true);
          return out;
        }
        Tensor out;
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_pointwise(iter, "angle", RS_PW_ANGLE);
        return iter.output();
      },
      self);
}

Tensor& conj_physical_out(const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::conj_physical_out>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::unary_op(out, self);
        run_pointwise(iter, "conj_physical", RS_PW_CONJ);
        return out;
      },
      self, out);
}

// conj_physical_ (CompositeExplicitAutograd in ATen, which calls the CPU
// stub directly): conj_physical_out over self
Tensor& conj_physical_(Tensor& self) {
  if (!self.is_complex()) return self;
  return russet::conj_physical_out(self, self);
}

// polar / complex: two real inputs of one float dtype, a complex output
void complex_check(const Tensor& out, const Tensor& a, const Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "Expected object of scalar type ", a.scalar_type(),
              " but got scalar type ", b.scalar_type(), " for second argument");
  TORCH_CHECK(out.scalar_type() == c10::toComplexType(a.scalar_type()), "Expected object of scalar type ",
              c10::toComplexType(a.scalar_type()), " but got scalar type ", out.scalar_type(),
              " for argument 'out'");
}

void two_real_to_complex(const Tensor& a, const Tensor& b, Tensor& out, const char* name, rs_pw_op pw) {
  complex_check(out, a, b);
  auto iter = at::TensorIteratorConfig()
                  .add_output(out)
                  .add_const_input(a)
                  .add_const_input(b)
                  .check_all_same_dtype(false)
                  .build();
  run_pointwise(iter, name, pw, Result::Compute, {}, out.scalar_type(), 0b11);
}

Tensor& polar_out(const Tensor& abs, const Tensor& angle, Tensor& out) {
  return native_or_host<at::_ops::polar_out>(
      [&]() -> Tensor& {
        two_real_to_complex(abs, angle, out, "polar", RS_PW_POLAR);
        return out;
      },
      abs, angle, out);
}

Tensor& complex_out(const Tensor& real, const Tensor& imag, Tensor& out) {
  return native_or_host<at::_ops::complex_out>(
      [&]() -> Tensor& {
        two_real_to_complex(real, imag, out, "complex", RS_PW_COMPLEX);
        return out;
      },
      real, imag, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("abs.out", abs_out);
  m.impl("angle", angle);
  m.impl("angle.out", angle_out);
  m.impl("conj_physical.out", conj_physical_out);
  m.impl("conj_physical_", conj_physical_);
  m.impl("polar.out", polar_out);
  m.impl("complex.out", complex_out);
}

}  // namespace russet
