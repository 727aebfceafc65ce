// torch._scaled_mm and torch._scaled_mm_v2: float8 matrix products with
// per-tensor or per-row scales, composed of native ops in the order of
// CPU's emulation (ATen's _scaled_mm_out_cpu_emulated): each operand cast
// to float32 and multiplied by its scale, a float32 GEMM, + bias, times
// 1 / scale_result for a float8 e4m3fn/e5m2 output, then one cast to the
// output dtype. The scales stay tensors (CPU reads a per-tensor scale with
// .item(); here nothing syncs).
#include "torch/pointwise.h"

#include <ATen/ops/_scaled_mm_ops.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/reciprocal.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>
#if __has_include(<ATen/ops/_scaled_mm_v2_ops.h>)
#include <ATen/ops/_scaled_mm_v2_ops.h>
#define RS_HAS_SCALED_MM_V2 1
#endif

namespace russet {
namespace {

using at::Tensor;

// the scaling recipes' and swizzles' numbers (torch's ScalingType, SwizzleType)
constexpr int64_t kTensorWise = 0, kRowWise = 1, kNoSwizzle = 0;

bool is_tensorwise(const Tensor& t, const Tensor& scale) {
  return at::isFloat8Type(t.scalar_type()) && scale.scalar_type() == at::kFloat && scale.numel() == 1;
}

// scale of shape (rows of t, 1), contiguous
bool is_rowwise(const Tensor& t, const Tensor& scale) {
  return at::isFloat8Type(t.scalar_type()) && scale.scalar_type() == at::kFloat && scale.dim() == 2 &&
         scale.size(0) == t.size(0) && scale.size(1) == 1 && scale.is_contiguous();
}

[[noreturn]] void invalid_scaling(const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb) {
  TORCH_CHECK_VALUE(false, "Invalid scaling configuration.\n"
                    "- For TensorWise scaling, a and b should be float8, scales should be float and singletons.\n"
                    "- For RowWise scaling, a and b should be float8, scales should be float, scale_a should be (",
                    a.size(0), ", 1) and scale_b should be (1, ", b.size(1), "), and both should be contiguous.\n"
                    "Got a.dtype()=", a.scalar_type(), ", scale_a.dtype()=", sa.scalar_type(), ", scale_a.size()=",
                    sa.sizes(), ", scale_a.stride()=", sa.strides(), ", b.dtype()=", b.scalar_type(),
                    ", scale_b.dtype()=", sb.scalar_type(), ", scale_b.size()=", sb.sizes(),
                    " and scale_b.stride()=", sb.strides());
}

// the product itself; `rowwise`: scales (m, 1) and (1, n), else 1 element each
Tensor& emulated(const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb,
                 const std::optional<Tensor>& bias, const std::optional<Tensor>& scale_result,
                 std::optional<at::ScalarType> out_dtype, bool rowwise, Tensor& out) {
  TORCH_CHECK(a.dim() == 2, "mat_a must be a matrix");
  TORCH_CHECK(b.dim() == 2, "mat_b must be a matrix");
  TORCH_CHECK(a.size(1) == b.size(0), "mat_a and mat_b shapes cannot be multiplied (", a.size(0), "x", a.size(1),
              " and ", b.size(0), "x", b.size(1), ")");
  TORCH_CHECK_VALUE(at::isFloat8Type(a.scalar_type()) && at::isFloat8Type(b.scalar_type()),
                    "mat_a and mat_b must be fp8 types, got: ", a.scalar_type(), b.scalar_type());
  if (!rowwise) {
    TORCH_CHECK_VALUE(sa.numel() == 1 && sa.scalar_type() == at::kFloat, "scale_a must have 1 Float element");
    TORCH_CHECK_VALUE(sb.numel() == 1 && sb.scalar_type() == at::kFloat, "scale_b must have 1 Float element");
  } else {
    TORCH_CHECK_VALUE(sa.size(0) == a.size(0) && sa.size(1) == 1, "scale_a must have shape [", a.size(0),
                      ", 1], got [", sa.sizes(), "]");
    TORCH_CHECK_VALUE(sb.numel() == b.size(1) && sb.scalar_type() == at::kFloat, "scale_b must have ", b.size(1),
                      " Float elements, got ", sb.numel());
  }
  TORCH_CHECK(!scale_result || (scale_result->numel() == 1 && scale_result->scalar_type() == at::kFloat),
              "scale_result must be a float scalar");
  TORCH_CHECK(!bias || bias->numel() == b.size(1), "Bias must be size ", b.size(1), " but got ", bias->numel());
  TORCH_CHECK(a.device() == out.device() && b.device() == out.device() && sa.device() == out.device() &&
                  sb.device() == out.device(),
              "_scaled_mm: expected all tensors on ", out.device());
  // per tensor: a 0-d scale (CPU's float scalar); per row: (m, 1) and (1, n)
  Tensor fa = at::mul(a.to(at::kFloat), rowwise ? sa : sa.reshape({}));
  Tensor fb = at::mul(b.to(at::kFloat), rowwise ? sb.reshape({1, b.size(1)}) : sb.reshape({}));
  Tensor r = at::matmul(fa, fb);
  if (bias) r.add_(*bias);
  const at::ScalarType dt = out_dtype.value_or(out.scalar_type());
  if (scale_result && (dt == at::kFloat8_e4m3fn || dt == at::kFloat8_e5m2))
    r = at::mul(r, at::reciprocal(scale_result->reshape({})));
  return write_out(out, r.to(out.scalar_type()));
}

Tensor& scaled_mm_out(const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb,
                      const std::optional<Tensor>& bias, const std::optional<Tensor>& scale_result,
                      std::optional<at::ScalarType> out_dtype, bool use_fast_accum, Tensor& out) {
  TORCH_CHECK_VALUE(!out_dtype || *out_dtype == out.scalar_type(), "out_dtype must match output matrix type");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "mat_a and mat_b must be matrices");
  bool rowwise = false;
  if (is_tensorwise(a, sa) && is_tensorwise(b.t(), sb.t()))
    rowwise = false;
  else if (is_rowwise(a, sa) && is_rowwise(b.t(), sb.t()))
    rowwise = true;
  else
    invalid_scaling(a, b, sa, sb);
  return emulated(a, b, sa, sb, bias, scale_result, out_dtype, rowwise, out);
}

Tensor scaled_mm(const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb,
                 const std::optional<Tensor>& bias, const std::optional<Tensor>& scale_result,
                 std::optional<at::ScalarType> out_dtype, bool use_fast_accum) {
  Tensor out = at::empty({0}, a.options().dtype(out_dtype.value_or(a.scalar_type())));
  return scaled_mm_out(a, b, sa, sb, bias, scale_result, out_dtype, use_fast_accum, out);
}

#ifdef RS_HAS_SCALED_MM_V2
// the schema's type for the scale lists: at::TensorList before torch 2.15,
// const at::ITensorListRef& from 2.15 (a kernel's signature must match)
template <class F>
struct third_param;
template <class R, class A0, class A1, class A2, class... Rest>
struct third_param<R(A0, A1, A2, Rest...)> {
  using type = A2;
};
using ScaleList = third_param<at::_ops::_scaled_mm_v2::schema>::type;

// one recipe and one scale per operand, of the kind asked for
bool recipe_is(at::IntArrayRef recipe, ScaleList scales, int64_t kind) {
  return recipe.size() == 1 && recipe[0] == kind && scales.size() == 1 &&
         scales.front().scalar_type() == at::kFloat;
}

Tensor& scaled_mm_v2_out(const Tensor& a, const Tensor& b, ScaleList sa, at::IntArrayRef recipe_a,
                         at::IntArrayRef swizzle_a, ScaleList sb, at::IntArrayRef recipe_b,
                         at::IntArrayRef swizzle_b, const std::optional<Tensor>& bias,
                         std::optional<at::ScalarType> out_dtype, at::IntArrayRef contraction_dim,
                         bool use_fast_accum, Tensor& out) {
  TORCH_CHECK_VALUE(a.dim() == 2, "mat_a must be a matrix");
  TORCH_CHECK_VALUE(b.dim() == 2, "mat_b must be a matrix");
  if (a.size(0) == 0 || a.size(1) == 0 || b.size(1) == 0) {  // as CPU: nothing to multiply
    at::native::resize_output(out, {a.size(0), b.size(1)});
    if (a.size(1) == 0) out.zero_();
    return out;
  }
  if (!contraction_dim.empty()) {
    TORCH_CHECK_VALUE(contraction_dim.size() == 2, "contraction_dim must have exactly 2 elements");
    TORCH_CHECK_VALUE(a.size(contraction_dim[0]) == b.size(contraction_dim[1]),
                      "mat_a and mat_b shapes cannot be multiplied (", a.size(0), "x", a.size(1), " and ",
                      b.size(0), "x", b.size(1), ") with contraction dims mat_a: ", contraction_dim[0],
                      ", mat_b: ", contraction_dim[1]);
  } else {
    TORCH_CHECK_VALUE(a.size(1) == b.size(0), "mat_a and mat_b shapes cannot be multiplied (", a.size(0), "x",
                      a.size(1), " and ", b.size(0), "x", b.size(1), ")");
  }
  TORCH_CHECK_VALUE(!bias || bias->numel() == b.size(1), "Bias must be size ", b.size(1), " but got ",
                    bias->numel());
  TORCH_CHECK_VALUE(!out_dtype || *out_dtype == out.scalar_type(), "out_dtype must match output matrix type");
  if (bias)
    TORCH_CHECK_VALUE(bias->scalar_type() == at::kFloat || bias->scalar_type() == at::kBFloat16 ||
                          bias->scalar_type() == at::kHalf,
                      "Bias must be Float32 or BFloat16 or Half, but got ", bias->scalar_type());
  TORCH_CHECK_VALUE(!swizzle_a.empty() && !swizzle_b.empty() && swizzle_a[0] == kNoSwizzle &&
                        swizzle_b[0] == kNoSwizzle,
                    "CPU does not support swizzle.");
  TORCH_CHECK_VALUE(sa.size() == 1 && sb.size() == 1, "_scaled_mm_v2: expected one scale tensor for each of "
                    "mat_a and mat_b, got ", sa.size(), " and ", sb.size());
  const bool f8 = at::isFloat8Type(a.scalar_type()) && at::isFloat8Type(b.scalar_type());
  bool rowwise = false;
  const Tensor &sa0 = sa.front(), &sb0 = sb.front();
  if (f8 && recipe_is(recipe_a, sa, kTensorWise) && recipe_is(recipe_b, sb, kTensorWise) && sa0.numel() == 1 &&
      sb0.numel() == 1)
    rowwise = false;
  else if (f8 && recipe_is(recipe_a, sa, kRowWise) && recipe_is(recipe_b, sb, kRowWise) &&
           sa0.numel() == a.size(0) && sb0.numel() == b.size(1))
    rowwise = true;
  else
    invalid_scaling(a, b, sa0, sb0);
  at::native::resize_output(out, {a.size(0), b.size(1)});
  return emulated(a, b, sa0, sb0, bias, std::nullopt, out_dtype.value_or(at::kBFloat16), rowwise, out);
}

Tensor scaled_mm_v2(const Tensor& a, const Tensor& b, ScaleList sa, at::IntArrayRef recipe_a,
                    at::IntArrayRef swizzle_a, ScaleList sb, at::IntArrayRef recipe_b, at::IntArrayRef swizzle_b,
                    const std::optional<Tensor>& bias, std::optional<at::ScalarType> out_dtype,
                    at::IntArrayRef contraction_dim, bool use_fast_accum) {
  Tensor out = at::empty({0}, a.options().dtype(out_dtype.value_or(a.scalar_type())));
  return scaled_mm_v2_out(a, b, sa, recipe_a, swizzle_a, sb, recipe_b, swizzle_b, bias, out_dtype,
                          contraction_dim, use_fast_accum, out);
}
#endif

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_scaled_mm", scaled_mm);
  m.impl("_scaled_mm.out", scaled_mm_out);
#ifdef RS_HAS_SCALED_MM_V2
  m.impl("_scaled_mm_v2", scaled_mm_v2);
  m.impl("_scaled_mm_v2.out", scaled_mm_v2_out);
#endif
}

}  // namespace russet
