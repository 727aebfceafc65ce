// Activations and their backward kernels (kernels/common/ops_activation.glsl).
// Structured ops register .out / .grad_input (ATen's meta functions build
// the iterator, pointwise.h); the non-structured ones build their
// TensorIterator as ATen's CPU implementation does.
#include "torch/dtype_refusal.h"
#include "torch/pointwise.h"
#include "torch/structured_ops.h"

#include <ATen/ops/_prelu_kernel_backward_ops.h>
#include <ATen/ops/_prelu_kernel_ops.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/elu_backward_meta.h>
#include <ATen/ops/elu_backward_ops.h>
#include <ATen/ops/elu_meta.h>
#include <ATen/ops/elu_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/gelu_backward_meta.h>
#include <ATen/ops/gelu_backward_ops.h>
#include <ATen/ops/gelu_meta.h>
#include <ATen/ops/gelu_ops.h>
#include <ATen/ops/glu_backward_ops.h>
#include <ATen/ops/glu_meta.h>
#include <ATen/ops/glu_ops.h>
#include <ATen/ops/hardshrink_backward_meta.h>
#include <ATen/ops/hardshrink_backward_ops.h>
#include <ATen/ops/hardshrink_meta.h>
#include <ATen/ops/hardshrink_ops.h>
#include <ATen/ops/hardsigmoid_backward_meta.h>
#include <ATen/ops/hardsigmoid_backward_ops.h>
#include <ATen/ops/hardsigmoid_meta.h>
#include <ATen/ops/hardsigmoid_ops.h>
#include <ATen/ops/hardswish_backward_ops.h>
#include <ATen/ops/hardswish_ops.h>
#include <ATen/ops/hardtanh_backward_ops.h>
#include <ATen/ops/hardtanh_ops.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/leaky_relu_backward_meta.h>
#include <ATen/ops/leaky_relu_backward_ops.h>
#include <ATen/ops/leaky_relu_meta.h>
#include <ATen/ops/leaky_relu_ops.h>
#include <ATen/ops/log_sigmoid_backward_ops.h>
#include <ATen/ops/log_sigmoid_forward_ops.h>
#include <ATen/ops/logit_backward_meta.h>
#include <ATen/ops/logit_backward_ops.h>
#include <ATen/ops/mish_backward_ops.h>
#include <ATen/ops/mish_meta.h>
#include <ATen/ops/mish_ops.h>
#include <ATen/ops/rrelu_with_noise_ops.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/sigmoid_backward_meta.h>
#include <ATen/ops/sigmoid_backward_ops.h>
#include <ATen/ops/silu_backward_meta.h>
#include <ATen/ops/silu_backward_ops.h>
#include <ATen/ops/silu_meta.h>
#include <ATen/ops/silu_ops.h>
#include <ATen/ops/softplus_backward_meta.h>
#include <ATen/ops/softplus_backward_ops.h>
#include <ATen/ops/softplus_meta.h>
#include <ATen/ops/softplus_ops.h>
#include <ATen/ops/softshrink_backward_meta.h>
#include <ATen/ops/softshrink_backward_ops.h>
#include <ATen/ops/softshrink_meta.h>
#include <ATen/ops/softshrink_ops.h>
#include <ATen/ops/tanh_backward_meta.h>
#include <ATen/ops/tanh_backward_ops.h>
#include <ATen/ops/threshold_backward_meta.h>
#include <ATen/ops/threshold_backward_ops.h>
#include <ATen/ops/threshold_meta.h>
#include <ATen/ops/threshold_ops.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>


namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

// ---------------------------------------------------------------- structured

Tensor& threshold_out(const Tensor& self, const Scalar& th, const Scalar& value, Tensor& out) {
  return native_or_host<at::_ops::threshold_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_threshold> m(out);
        m.meta(self, th, value);
        run_pointwise(m, "threshold", RS_PW_THRESHOLD, Result::Compute, {th, value});
        return out;
      },
      self, th, value, out);
}

Tensor& threshold_backward_out(const Tensor& grad, const Tensor& self, const Scalar& th, Tensor& out) {
  return native_or_host<at::_ops::threshold_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_threshold_backward> m(out);
        m.meta(grad, self, th);
        run_pointwise(m, "threshold_backward", RS_PW_THRESHOLD, Result::Compute, {th, 0});
        return out;
      },
      grad, self, th, out);
}

// CPU's message (get_gelutype_enum) for an approximation it does not know
void check_gelu_approximate(c10::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
}

Tensor& gelu_out(const Tensor& self, c10::string_view approximate, Tensor& out) {
  check_gelu_approximate(approximate);
  return native_or_host<at::_ops::gelu_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_gelu> m(out);
        m.meta(self, approximate);
        if (approximate == "tanh") run_pointwise(m, "gelu_tanh", RS_PW_GELU_TANH);
        else run_pointwise(m, "gelu", RS_PW_GELU);
        return out;
      },
      self, approximate, out);
}

Tensor& gelu_backward_out(const Tensor& grad, const Tensor& self, c10::string_view approximate, Tensor& out) {
  check_gelu_approximate(approximate);
  return native_or_host<at::_ops::gelu_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_gelu_backward> m(out);
        m.meta(grad, self, approximate);
        if (approximate == "tanh") run_pointwise(m, "gelu_tanh_backward", RS_PW_GELU_TANH_BACKWARD);
        else run_pointwise(m, "gelu_backward", RS_PW_GELU_BACKWARD);
        return out;
      },
      grad, self, approximate, out);
}

// structured unary op, no arguments
#define UNARY0(fn, META_CLASS, op, pw) RS_STRUCTURED_UNARY(fn, META_CLASS, op, pw, Result::Compute)
// structured backward op (grad, x), no arguments
#define BACKWARD0(fn, META_CLASS, op, pw)                                                   \
  Tensor& fn(const Tensor& grad, const Tensor& x, Tensor& out) {                              \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, pw, Result::Compute, out, grad, x); \
  }

UNARY0(silu_out, structured_silu, silu_out, RS_PW_SILU)
UNARY0(mish_out, structured_mish, mish_out, RS_PW_MISH)
UNARY0(hardsigmoid_out, structured_hardsigmoid, hardsigmoid_out, RS_PW_HARDSIGMOID)
BACKWARD0(silu_backward_out, structured_silu_backward, silu_backward_grad_input, RS_PW_SILU_BACKWARD)
BACKWARD0(hardsigmoid_backward_out, structured_hardsigmoid_backward, hardsigmoid_backward_grad_input,
          RS_PW_HARDSIGMOID_BACKWARD)
BACKWARD0(sigmoid_backward_out, structured_sigmoid_backward, sigmoid_backward_grad_input,
          RS_PW_SIGMOID_BACKWARD)
BACKWARD0(tanh_backward_out, structured_tanh_backward, tanh_backward_grad_input, RS_PW_TANH_BACKWARD)

// structured unary op with one Scalar
#define UNARY1(fn, META_CLASS, op, pw)                                      \
  Tensor& fn(const Tensor& self, const Scalar& s, Tensor& out) {             \
    return native_or_host<at::_ops::op>(                                     \
        [&]() -> Tensor& {                                                   \
          OutOp<at::meta::META_CLASS> m(out);                                \
          m.meta(self, s);                                                   \
          run_pointwise(m, #op, pw, Result::Compute, {s});                 \
          return out;                                                        \
        },                                                                   \
        self, s, out);                                                       \
  }
#define BACKWARD1(fn, META_CLASS, op, pw)                                   \
  Tensor& fn(const Tensor& grad, const Tensor& x, const Scalar& s, Tensor& out) { \
    return native_or_host<at::_ops::op>(                                     \
        [&]() -> Tensor& {                                                   \
          OutOp<at::meta::META_CLASS> m(out);                                \
          m.meta(grad, x, s);                                                \
          run_pointwise(m, #op, pw, Result::Compute, {s});                 \
          return out;                                                        \
        },                                                                   \
        grad, x, s, out);                                                    \
  }

UNARY1(leaky_relu_out, structured_leaky_relu, leaky_relu_out, RS_PW_LEAKY_RELU)
UNARY1(hardshrink_out, structured_hardshrink, hardshrink_out, RS_PW_HARDSHRINK)
UNARY1(softshrink_out, structured_softshrink, softshrink_out, RS_PW_SOFTSHRINK)
BACKWARD1(hardshrink_backward_out, structured_hardshrink_backward, hardshrink_backward_grad_input,
          RS_PW_SHRINK_BACKWARD)
BACKWARD1(softshrink_backward_out, structured_softshrink_backward, softshrink_backward_grad_input,
          RS_PW_SHRINK_BACKWARD)

Tensor& leaky_relu_backward_out(const Tensor& grad, const Tensor& self, const Scalar& slope, bool self_is_result,
                                Tensor& out) {
  return native_or_host<at::_ops::leaky_relu_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_leaky_relu_backward> m(out);
        m.meta(grad, self, slope, self_is_result);
        // the iterator is (self, grad)
        run_pointwise(m, "leaky_relu_backward", RS_PW_LEAKY_RELU_BACKWARD, Result::Compute, {slope});
        return out;
      },
      grad, self, slope, self_is_result, out);
}

Tensor& softplus_out(const Tensor& self, const Scalar& beta, const Scalar& threshold, Tensor& out) {
  return native_or_host<at::_ops::softplus_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_softplus> m(out);
        m.meta(self, beta, threshold);
        run_pointwise(m, "softplus", RS_PW_SOFTPLUS, Result::Compute, {beta, threshold});
        return out;
      },
      self, beta, threshold, out);
}

Tensor& softplus_backward_out(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold,
                              Tensor& out) {
  return native_or_host<at::_ops::softplus_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_softplus_backward> m(out);
        m.meta(grad, self, beta, threshold);
        run_pointwise(m, "softplus_backward", RS_PW_SOFTPLUS_BACKWARD, Result::Compute,
                      {beta, threshold});
        return out;
      },
      grad, self, beta, threshold, out);
}

Tensor& elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  return native_or_host<at::_ops::elu_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_elu> m(out);
        m.meta(self, alpha, scale, input_scale);
        double negcoef = alpha.toDouble() * scale.toDouble();
        if (m.common_dtype() == at::kFloat || m.common_dtype() == at::kBFloat16)
          negcoef = static_cast<double>(alpha.to<float>() * scale.to<float>());
        run_pointwise(m, "elu", RS_PW_ELU, Result::Compute, {negcoef, scale, input_scale});
        return out;
      },
      self, alpha, scale, input_scale, out);
}

Tensor& elu_backward_out(const Tensor& grad, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                         bool is_result, const Tensor& self_or_result, Tensor& out) {
  return native_or_host<at::_ops::elu_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_elu_backward> m(out);
        m.meta(grad, alpha, scale, input_scale, is_result, self_or_result);
        double negcoef = alpha.toDouble() * scale.toDouble();
        if (m.common_dtype() == at::kFloat || m.common_dtype() == at::kBFloat16)
          negcoef = static_cast<double>(alpha.to<float>() * scale.to<float>());
        run_pointwise(m, "elu_backward",
                      is_result ? RS_PW_ELU_BACKWARD_OF_RESULT
                                : RS_PW_ELU_BACKWARD,
                      Result::Compute, {negcoef, scale, input_scale});
        return out;
      },
      grad, alpha, scale, input_scale, is_result, self_or_result, out);
}

Tensor& logit_backward_out(const Tensor& grad, const Tensor& self, std::optional<double> eps, Tensor& out) {
  return native_or_host<at::_ops::logit_backward_grad_input>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_logit_backward> m(out);
        m.meta(grad, self, eps);
        run_pointwise(m, "logit_backward", RS_PW_LOGIT_BACKWARD, Result::Compute,
                      {eps.value_or(-1.0)});
        return out;
      },
      grad, self, eps, out);
}

// glu: the meta function splits self in halves along dim and builds the
// binary iterator (first, second)
Tensor& glu_out(const Tensor& self, int64_t dim, Tensor& out) {
  return structured_out<at::meta::structured_glu, at::_ops::glu_out>("glu", RS_PW_GLU, Result::Compute,
                                                                     out, self, dim);
}

// ---------------------------------------------------------------- non-structured

// relu = clamp_min(self, 0) (ATen's CPU relu)
Tensor relu(const Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return at::clamp_min(self, 0);
}
Tensor& relu_(Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return at::clamp_min_(self, 0);
}

// Whether this torch's CPU refuses hardtanh on uint8 with a negative limit
// (torch 2.13 raises; 2.15 clamps): asked of CPU once, so that russet
// raises or computes as the torch it runs with does
bool cpu_refuses_unsigned_negative_hardtanh() {
  static const bool refuses = [] {
    try {
      at::_ops::hardtanh::call(at::zeros({1}, at::TensorOptions().dtype(at::kByte)), -1, 1);
      return false;
    } catch (const c10::Error&) {
      return true;
    }
  }();
  return refuses;
}

// hardtanh = clamp, with integer limits for integer inputs (ATen)
Tensor& hardtanh_out(const Tensor& self, const Scalar& min, const Scalar& max, Tensor& result) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Bool inputs not supported for hardtanh");
  Scalar min_ = min, max_ = max;
  if (at::isIntegralType(self.scalar_type(), /*includeBool=*/false)) {
    int64_t minval = min.toLong(), maxval = max.toLong();
    if (self.dtype() == at::kByte && (minval < 0 || maxval < 0)) {
      TORCH_CHECK(!cpu_refuses_unsigned_negative_hardtanh(),
                  "cannot do hardtanh on an unsigned type with negative limits");
      // torch 2.15: a limit below the dtype's range is taken as its lowest
      // value (0); a negative upper limit is an error
      TORCH_CHECK(maxval >= 0, "Clamp max value ", maxval, " is outside the representable range of Byte");
      minval = 0;
    }
    min_ = minval;
    max_ = maxval;
  }
  return at::clamp_out(result, self, min_, max_);
}
Tensor hardtanh(const Tensor& self, const Scalar& min, const Scalar& max) {
  Tensor result = at::empty_like(self);
  return hardtanh_out(self, min, max, result);
}
Tensor& hardtanh_(Tensor& self, const Scalar& min, const Scalar& max) { return hardtanh_out(self, min, max, self); }

Tensor& hardtanh_backward_out(const Tensor& grad, const Tensor& self, const Scalar& min, const Scalar& max,
                              Tensor& grad_input) {
  return native_or_host<at::_ops::hardtanh_backward_grad_input>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::borrowing_binary_op(grad_input, grad, self);
        run_pointwise(iter, "hardtanh_backward", RS_PW_HARDTANH_BACKWARD, Result::Compute,
                      {min, max});
        return grad_input;
      },
      grad, self, min, max, grad_input);
}
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min, const Scalar& max) {
  return native_or_host<at::_ops::hardtanh_backward>(
      [&]() -> Tensor {
        Tensor result;
        auto iter = at::TensorIterator::borrowing_binary_op(result, grad, self);
        run_pointwise(iter, "hardtanh_backward", RS_PW_HARDTANH_BACKWARD, Result::Compute,
                      {min, max});
        return iter.output();
      },
      grad, self, min, max);
}

Tensor& hardswish_out(const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::hardswish_out>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::unary_op(out, self);
        run_pointwise(iter, "hardswish", RS_PW_HARDSWISH);
        return out;
      },
      self, out);
}
Tensor hardswish(const Tensor& self) {
  return native_or_host<at::_ops::hardswish>(
      [&]() -> Tensor {
        Tensor result;
        auto iter = at::TensorIterator::unary_op(result, self);
        run_pointwise(iter, "hardswish", RS_PW_HARDSWISH);
        return iter.output();
      },
      self);
}
Tensor& hardswish_(Tensor& self) {
  return native_or_host<at::_ops::hardswish_>(
      [&]() -> Tensor& {
        auto iter = at::TensorIterator::unary_op(self, self);
        run_pointwise(iter, "hardswish", RS_PW_HARDSWISH);
        return self;
      },
      self);
}
Tensor hardswish_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::hardswish_backward>(
      [&]() -> Tensor {
        Tensor result;
        auto iter = at::TensorIterator::borrowing_binary_op(result, grad, self);
        run_pointwise(iter, "hardswish_backward", RS_PW_HARDSWISH_BACKWARD);
        return iter.output();
      },
      grad, self);
}

// glu_backward: ATen's glu_backward_cpu_out: the first half of grad_input
// is sigmoid(second half), the second half (1 - s) * s * first * grad from
// it, then the first half times grad
Tensor& glu_backward_into(const Tensor& grad, const Tensor& self, int64_t dim, Tensor& grad_input) {
  TORCH_CHECK(self.dim() > 0, "glu does not support 0-dimensional tensors");
  auto wrap_dim = at::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(wrap_dim);
  TORCH_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", wrap_dim, " is size ", n);
  host_if_no_fp64(self);
  grad_input.resize_as_(self);
  const int64_t half = n / 2;
  Tensor first = self.narrow(wrap_dim, 0, half);
  Tensor second = self.narrow(wrap_dim, half, half);
  Tensor gfirst = grad_input.narrow(wrap_dim, 0, half);
  Tensor gsecond = grad_input.narrow(wrap_dim, half, half);
  at::sigmoid_out(gfirst, second);
  auto iter = at::TensorIteratorConfig()
                  .add_output(gsecond)
                  .add_const_input(gfirst)
                  .add_const_input(first)
                  .add_const_input(grad)
                  .build();
  run_pointwise(iter, "glu_backward", RS_PW_GLU_BACKWARD);
  gfirst.mul_(grad);
  return grad_input;
}
Tensor& glu_backward_out(const Tensor& grad, const Tensor& self, int64_t dim, Tensor& grad_input) {
  return native_or_host<at::_ops::glu_backward_grad_input>(
      [&]() -> Tensor& { return glu_backward_into(grad, self, dim, grad_input); }, grad, self, dim, grad_input);
}
Tensor glu_backward(const Tensor& grad, const Tensor& self, int64_t dim) {
  return native_or_host<at::_ops::glu_backward>(
      [&]() -> Tensor {
        Tensor grad_input = at::empty({0}, self.options());
        return glu_backward_into(grad, self, dim, grad_input);
      },
      grad, self, dim);
}

Tensor mish_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::mish_backward>(
      [&]() -> Tensor {
        Tensor result = at::empty({0}, self.options());
        auto iter = at::TensorIterator::binary_op(result, grad, self);
        run_pointwise(iter, "mish_backward", RS_PW_MISH_BACKWARD);
        return result;
      },
      grad, self);
}

// log_sigmoid_forward: output and buffer (= exp(-|x|), which the CPU backward reads)
void log_sigmoid_into(const Tensor& input, const Tensor& output, const Tensor& buffer) {
  {
    auto iter = at::TensorIteratorConfig().add_output(output).add_const_input(input).build();
    run_pointwise(iter, "log_sigmoid", RS_PW_LOG_SIGMOID, Result::Compute, {}, input.scalar_type());
  }
  {
    auto iter = at::TensorIteratorConfig().add_output(buffer).add_const_input(input).build();
    run_pointwise(iter, "log_sigmoid_buffer", RS_PW_LOG_SIGMOID_BUFFER, Result::Compute, {},
                  input.scalar_type());
  }
}
std::tuple<Tensor&, Tensor&> log_sigmoid_forward_out(const Tensor& input, Tensor& output, Tensor& buffer) {
  return native_or_host<at::_ops::log_sigmoid_forward_output>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        refuse_unless(at::isFloatingType(input.scalar_type()), "log_sigmoid_cpu", input.scalar_type());
        output.resize_as_(input);
        buffer.resize_as_(input, at::MemoryFormat::Contiguous);
        log_sigmoid_into(input, output, buffer);
        return std::forward_as_tuple(output, buffer);
      },
      input, output, buffer);
}
std::tuple<Tensor, Tensor> log_sigmoid_forward(const Tensor& input) {
  return native_or_host<at::_ops::log_sigmoid_forward>(
      [&]() -> std::tuple<Tensor, Tensor> {
        refuse_unless(at::isFloatingType(input.scalar_type()), "log_sigmoid_cpu", input.scalar_type());
        auto output = at::empty_like(input, at::MemoryFormat::Contiguous);
        auto buffer = at::empty_like(input, at::MemoryFormat::Contiguous);
        log_sigmoid_into(input, output, buffer);
        return std::make_tuple(output, buffer);
      },
      input);
}
void log_sigmoid_backward_into(const Tensor& grad, const Tensor& input, const Tensor& buffer,
                               const Tensor& grad_input) {
  auto iter = at::TensorIteratorConfig()
                  .add_output(grad_input)
                  .add_const_input(input)
                  .add_const_input(buffer)
                  .add_const_input(grad)
                  .build();
  run_pointwise(iter, "log_sigmoid_backward", RS_PW_LOG_SIGMOID_BACKWARD, Result::Compute, {},
                grad_input.scalar_type());
}
Tensor log_sigmoid_backward(const Tensor& grad, const Tensor& input, const Tensor& buffer) {
  return native_or_host<at::_ops::log_sigmoid_backward>(
      [&]() -> Tensor {
        auto grad_input = at::empty_like(grad);
        log_sigmoid_backward_into(grad, input, buffer, grad_input);
        return grad_input;
      },
      grad, input, buffer);
}
Tensor& log_sigmoid_backward_out(const Tensor& grad, const Tensor& input, const Tensor& buffer, Tensor& grad_input) {
  return native_or_host<at::_ops::log_sigmoid_backward_grad_input>(
      [&]() -> Tensor& {
        grad_input.resize_as_(input);
        log_sigmoid_backward_into(grad, input, buffer, grad_input);
        return grad_input;
      },
      grad, input, buffer, grad_input);
}

Tensor prelu_kernel(const Tensor& self, const Tensor& weight) {
  return native_or_host<at::_ops::_prelu_kernel>(
      [&]() -> Tensor {
        auto result = at::empty_like(self);
        auto iter = at::TensorIteratorConfig().add_output(result).add_const_input(self).add_const_input(weight).build();
        run_pointwise(iter, "prelu", RS_PW_PRELU, Result::Compute, {}, self.scalar_type());
        return result;
      },
      self, weight);
}
std::tuple<Tensor, Tensor> prelu_kernel_backward(const Tensor& grad, const Tensor& self, const Tensor& weight) {
  return native_or_host<at::_ops::_prelu_kernel_backward>(
      [&]() -> std::tuple<Tensor, Tensor> {
        Tensor grad_self = at::empty({0}, self.options());
        Tensor grad_weight = at::empty({0}, weight.options());
        {
          auto iter = at::TensorIteratorConfig()
                          .add_output(grad_self)
                          .add_const_input(self)
                          .add_const_input(weight)
                          .add_const_input(grad)
                          .build();
          run_pointwise(iter, "prelu_grad_input", RS_PW_PRELU_GRAD_INPUT, Result::Compute, {},
                        self.scalar_type());
        }
        {
          auto iter = at::TensorIteratorConfig()
                          .add_output(grad_weight)
                          .add_const_input(self)
                          .add_const_input(weight)
                          .add_const_input(grad)
                          .build();
          run_pointwise(iter, "prelu_grad_weight", RS_PW_PRELU_GRAD_WEIGHT, Result::Compute, {},
                        self.scalar_type());
        }
        return std::make_tuple(grad_self, grad_weight);
      },
      grad, self, weight);
}

// rrelu_with_noise: in training, noise = x <= 0 ? U(lower, upper) : 1 and
// out = x * noise; else leaky_relu with the mean slope (ATen)
Tensor& rrelu_with_noise_into(const Tensor& self, Tensor& noise, const Scalar& lower, const Scalar& upper,
                              bool training, std::optional<at::Generator> gen, Tensor& output) {
  TORCH_CHECK(self.sym_sizes() == noise.sym_sizes(), "noise tensor shape must match self tensor shape. Got ",
              "self.shape = ", self.sym_sizes(), " noise.shape = ", noise.sym_sizes());
  if (!training) {
    double slope = (lower.toDouble() + upper.toDouble()) / 2;
    return at::leaky_relu_out(output, self, slope);
  }
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "\"rrelu_with_noise_out_cpu\" not implemented for '",
              self.scalar_type(), "'");
  // the slopes in float32, float64 for float64 (whose kernel compares in
  // float64: a tiny negative double must not round to 0)
  auto ut = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  Tensor u = at::empty(self.sizes(), self.options().dtype(ut));
  u.uniform_(lower.toDouble(), upper.toDouble(), gen);
  {
    auto iter = at::TensorIteratorConfig()
                    .check_all_same_dtype(false)
                    .add_output(noise)
                    .add_const_input(self)
                    .add_const_input(u)
                    .build();
    run_pointwise(iter, "rrelu_noise", RS_PW_RRELU_NOISE, Result::Compute, {}, ut, 0b11);
  }
  {
    auto iter = at::TensorIteratorConfig().set_check_mem_overlap(false).add_output(output).add_const_input(self)
                    .add_const_input(noise).build();
    run_pointwise(iter, "rrelu", RS_PW_MUL, Result::Compute, {}, self.scalar_type());
  }
  return output;
}
Tensor rrelu_with_noise(const Tensor& self, Tensor& noise, const Scalar& lower, const Scalar& upper, bool training,
                        std::optional<at::Generator> gen) {
  return native_or_host<at::_ops::rrelu_with_noise>(
      [&]() -> Tensor {
        Tensor output = at::empty_like(self, at::MemoryFormat::Contiguous);
        return rrelu_with_noise_into(self, noise, lower, upper, training, gen, output);
      },
      self, noise, lower, upper, training, gen);
}
Tensor& rrelu_with_noise_out(const Tensor& self, Tensor& noise, const Scalar& lower, const Scalar& upper,
                             bool training, std::optional<at::Generator> gen, Tensor& out) {
  return native_or_host<at::_ops::rrelu_with_noise_out>(
      [&]() -> Tensor& {
        at::native::resize_output(out, self.sizes());
        return rrelu_with_noise_into(self, noise, lower, upper, training, gen, out);
      },
      self, noise, lower, upper, training, gen, out);
}
Tensor& rrelu_with_noise_(Tensor& self, Tensor& noise, const Scalar& lower, const Scalar& upper, bool training,
                          std::optional<at::Generator> gen) {
  return native_or_host<at::_ops::rrelu_with_noise_>(
      [&]() -> Tensor& { return rrelu_with_noise_into(self, noise, lower, upper, training, gen, self); }, self,
      noise, lower, upper, training, gen);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("threshold.out", threshold_out);
  m.impl("glu.out", glu_out);
  m.impl("glu_backward", glu_backward);
  m.impl("glu_backward.grad_input", glu_backward_out);
  m.impl("threshold_backward.grad_input", threshold_backward_out);
  m.impl("gelu.out", gelu_out);
  m.impl("gelu_backward.grad_input", gelu_backward_out);
  m.impl("silu.out", silu_out);
  m.impl("silu_backward.grad_input", silu_backward_out);
  m.impl("mish.out", mish_out);
  m.impl("mish_backward", mish_backward);
  m.impl("hardsigmoid.out", hardsigmoid_out);
  m.impl("hardsigmoid_backward.grad_input", hardsigmoid_backward_out);
  m.impl("sigmoid_backward.grad_input", sigmoid_backward_out);
  m.impl("tanh_backward.grad_input", tanh_backward_out);
  m.impl("logit_backward.grad_input", logit_backward_out);
  m.impl("leaky_relu.out", leaky_relu_out);
  m.impl("leaky_relu_backward.grad_input", leaky_relu_backward_out);
  m.impl("hardshrink.out", hardshrink_out);
  m.impl("hardshrink_backward.grad_input", hardshrink_backward_out);
  m.impl("softshrink.out", softshrink_out);
  m.impl("softshrink_backward.grad_input", softshrink_backward_out);
  m.impl("softplus.out", softplus_out);
  m.impl("softplus_backward.grad_input", softplus_backward_out);
  m.impl("elu.out", elu_out);
  m.impl("elu_backward.grad_input", elu_backward_out);
  m.impl("relu", relu);
  m.impl("relu_", relu_);
  m.impl("hardtanh", hardtanh);
  m.impl("hardtanh.out", hardtanh_out);
  m.impl("hardtanh_", hardtanh_);
  m.impl("hardtanh_backward", hardtanh_backward);
  m.impl("hardtanh_backward.grad_input", hardtanh_backward_out);
  m.impl("hardswish", hardswish);
  m.impl("hardswish.out", hardswish_out);
  m.impl("hardswish_", hardswish_);
  m.impl("hardswish_backward", hardswish_backward);
  m.impl("log_sigmoid_forward", log_sigmoid_forward);
  m.impl("log_sigmoid_forward.output", log_sigmoid_forward_out);
  m.impl("log_sigmoid_backward", log_sigmoid_backward);
  m.impl("log_sigmoid_backward.grad_input", log_sigmoid_backward_out);
  m.impl("_prelu_kernel", prelu_kernel);
  m.impl("_prelu_kernel_backward", prelu_kernel_backward);
  m.impl("rrelu_with_noise", rrelu_with_noise);
  m.impl("rrelu_with_noise.out", rrelu_with_noise_out);
  m.impl("rrelu_with_noise_", rrelu_with_noise_);
}

}  // namespace russet
