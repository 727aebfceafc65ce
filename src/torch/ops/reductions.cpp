// Reductions: sum, mean, prod, nansum, amax/amin, max/min (values and
// indices), argmax/argmin, aminmax, all/any, count_nonzero, vector norms,
// var/std (and with the mean). Structured ops run ATen's meta function for
// the result's shape and dtype; the others size it here as ATen's CPU
// kernels do. The kernels are the C core's (rs_reduce_run).
// (first: the meta headers below need ATen's core types declared)
#include "torch/reduce.h"
#include "russet/pointwise_ops.h"
#include "russet/reduce.h"

#include <ATen/ops/all_meta.h>
#include <ATen/ops/all_ops.h>
#include <ATen/ops/amax_meta.h>
#include <ATen/ops/amax_ops.h>
#include <ATen/ops/amin_meta.h>
#include <ATen/ops/amin_ops.h>
#include <ATen/ops/aminmax_meta.h>
#include <ATen/ops/aminmax_ops.h>
#include <ATen/ops/any_meta.h>
#include <ATen/ops/any_ops.h>
#include <ATen/ops/argmax_meta.h>
#include <ATen/ops/argmax_ops.h>
#include <ATen/ops/argmin_meta.h>
#include <ATen/ops/argmin_ops.h>
#include <ATen/ops/count_nonzero_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/bitwise_xor.h>
#include <ATen/ops/hash_tensor_meta.h>
#include <ATen/ops/hash_tensor_ops.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/linalg_vector_norm_meta.h>
#include <ATen/ops/linalg_vector_norm_ops.h>
#include <ATen/ops/max_meta.h>
#include <ATen/ops/max_ops.h>
#include <ATen/ops/mean_meta.h>
#include <ATen/ops/mean_ops.h>
#include <ATen/ops/min_meta.h>
#include <ATen/ops/min_ops.h>
#include <ATen/ops/nansum_ops.h>
#include <ATen/ops/norm_meta.h>
#include <ATen/ops/norm_ops.h>
#include <ATen/ops/prod_meta.h>
#include <ATen/ops/prod_ops.h>
#include <ATen/ops/std_mean_ops.h>
#include <ATen/ops/std_ops.h>
#include <ATen/ops/sum_meta.h>
#include <ATen/ops/sum_ops.h>
#include <ATen/ops/trace_ops.h>
#include <ATen/ops/var_mean_ops.h>
#include <ATen/ops/var_ops.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;
using OptDims = at::OptionalIntArrayRef;
using OptType = std::optional<at::ScalarType>;

// ---------------------------------------------------------------- sum, mean, prod, nansum

// sum/mean/prod accumulate in the result's dtype class (CPU casts the input
// to the result dtype first; fp16/bf16 results accumulate in float).
template <class Meta, class Op>
Tensor& sum_like(const char* name, rs_reduce_op op, const Tensor& self, OptDims dim, bool keepdim,
                 OptType dtype, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, dim, keepdim, dtype);
        run_reduce(name, op, reduce_acc(out.scalar_type()), resolved(self), out, Tensor(),
                   reduce_mask(self, dim), keepdim);
        return out;
      },
      self, dim, keepdim, dtype, out);
}

Tensor& sum_out(const Tensor& self, OptDims dim, bool keepdim, OptType dtype, Tensor& out) {
  return sum_like<at::meta::structured_sum_dim_IntList, at::_ops::sum_IntList_out>(
      "sum", RS_REDUCE_SUM, self, dim, keepdim, dtype, out);
}

Tensor& mean_out(const Tensor& self, OptDims dim, bool keepdim, OptType dtype, Tensor& out) {
  return sum_like<at::meta::structured_mean_dim, at::_ops::mean_out>("mean", RS_REDUCE_MEAN, self, dim,
                                                                      keepdim, dtype, out);
}

Tensor& prod_dim_out(const Tensor& self, int64_t dim, bool keepdim, OptType dtype, Tensor& out) {
  return native_or_host<at::_ops::prod_int_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_prod_dim_int> m(out);
        m.meta(self, dim, keepdim, dtype);
        run_reduce("prod", RS_REDUCE_PROD, reduce_acc(out.scalar_type()), resolved(self), out, Tensor(),
                   reduce_mask(self, std::optional<int64_t>(dim)), keepdim);
        return out;
      },
      self, dim, keepdim, dtype, out);
}

// sum/prod's result dtype: the given one, else int64 for bool and integers
at::ScalarType integral_to_long(const Tensor& self, OptType dtype) {
  if (dtype) return *dtype;
  return at::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong : self.scalar_type();
}

Tensor prod_all(const Tensor& self, OptType dtype) {
  return native_or_host<at::_ops::prod>(
      [&]() -> Tensor {
        Tensor out = at::empty({}, self.options().dtype(integral_to_long(self, dtype)));
        run_reduce("prod", RS_REDUCE_PROD, reduce_acc(out.scalar_type()), resolved(self).to(out.scalar_type()),
                   out, Tensor(), ~0ULL, false);
        return out;
      },
      self, dtype);
}

// nansum: not structured; CPU's checks and dtype rule
Tensor& nansum_out(const Tensor& self, OptDims dim, bool keepdim, OptType dtype, Tensor& out) {
  return native_or_host<at::_ops::nansum_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(!c10::isComplexType(self.scalar_type()), "nansum does not support complex inputs");
        auto dt = integral_to_long(self, dtype);
        TORCH_CHECK(out.scalar_type() == dt, "Expected out tensor to have dtype ", dt, ", but got ",
                    out.scalar_type(), " instead");
        uint64_t mask = reduce_mask(self, dim);
        at::native::resize_output(out, reduced_shape(self, mask, keepdim));
        run_reduce("nansum", RS_REDUCE_NANSUM, reduce_acc(dt), resolved(self), out, Tensor(), mask, keepdim);
        return out;
      },
      self, dim, keepdim, dtype, out);
}

Tensor nansum(const Tensor& self, OptDims dim, bool keepdim, OptType dtype) {
  Tensor out = at::empty({0}, self.options().dtype(integral_to_long(self, dtype)));
  nansum_out(self, dim, keepdim, dtype, out);
  return out;
}

// ---------------------------------------------------------------- max, min, argmax

// values accumulate in the input's opmath type (bool as int64)
rs_dtype order_acc(const Tensor& self) { return reduce_acc(self.scalar_type()); }

// A structured reduction with one result: Meta::meta(self, args...) sizes
// `out`, then `op` reduces the dims in `mask` (values in the input's opmath
// type, bool as int64).
template <class Meta, class Op, class... Args>
Tensor& structured_reduce(const char* name, rs_reduce_op op, uint64_t mask, bool keepdim, Tensor& out,
                          const Tensor& self, const Args&... args) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, args...);
        run_reduce(name, op, order_acc(self), self, out, Tensor(), mask, keepdim);
        return out;
      },
      self, args..., out);
}

Tensor& amax_out(const Tensor& self, at::IntArrayRef dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_amax, at::_ops::amax_out>("amax", RS_REDUCE_MAX, reduce_mask(self, dim),
                                                                          keepdim, out, self, dim, keepdim);
}

Tensor& amin_out(const Tensor& self, at::IntArrayRef dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_amin, at::_ops::amin_out>("amin", RS_REDUCE_MIN, reduce_mask(self, dim),
                                                                          keepdim, out, self, dim, keepdim);
}

// max/min over one dim, values and indices
template <class Meta, class Op>
std::tuple<Tensor&, Tensor&> arg_dim_out(const char* name, rs_reduce_op op, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& values, Tensor& indices) {
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<Meta> m(values, indices);
        auto pre = m.meta(self, dim, keepdim);
        run_reduce(name, op, order_acc(self), self, values, indices,
                   reduce_mask(self, std::optional<int64_t>(pre.dim)), keepdim);
        return {values, indices};
      },
      self, dim, keepdim, values, indices);
}

std::tuple<Tensor&, Tensor&> max_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                          Tensor& indices) {
  return arg_dim_out<at::meta::structured_max_dim, at::_ops::max_dim_max>("max", RS_REDUCE_ARGMAX, self, dim,
                                                                          keepdim, values, indices);
}

std::tuple<Tensor&, Tensor&> min_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                          Tensor& indices) {
  return arg_dim_out<at::meta::structured_min_dim, at::_ops::min_dim_min>("min", RS_REDUCE_ARGMIN, self, dim,
                                                                          keepdim, values, indices);
}

// torch.max(x) / torch.min(x): the whole tensor, a 0-dim result
template <class Op>
Tensor& extreme_all_out(const char* name, rs_reduce_op op, const Tensor& self, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.numel() > 0, name, "(): Expected reduction dim to be specified for input.numel() == 0. ",
                    "Specify the reduction dim with the 'dim' argument.");
        TORCH_CHECK(!c10::isComplexType(self.scalar_type()), name, "(): does not support complex input");
        TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
                    self.scalar_type(), ", but got ", out.scalar_type(), " instead");
        at::native::resize_output(out, {});
        run_reduce(name, op, order_acc(self), self, out, Tensor(), ~0ULL, false);
        return out;
      },
      self, out);
}

Tensor& max_all_out(const Tensor& self, Tensor& out) {
  return extreme_all_out<at::_ops::max_unary_out>("max", RS_REDUCE_MAX, self, out);
}
Tensor& min_all_out(const Tensor& self, Tensor& out) {
  return extreme_all_out<at::_ops::min_unary_out>("min", RS_REDUCE_MIN, self, out);
}

Tensor max_all(const Tensor& self) {
  Tensor out = at::empty({}, self.options());
  return max_all_out(self, out);
}
Tensor min_all(const Tensor& self) {
  Tensor out = at::empty({}, self.options());
  return min_all_out(self, out);
}

Tensor& argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  return native_or_host<at::_ops::argmax_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_argmax> m(out);
        m.meta(self, dim, keepdim);
        run_reduce("argmax", RS_REDUCE_ARGMAX, order_acc(self), self, Tensor(), out, reduce_mask(self, dim),
                   keepdim);
        return out;
      },
      self, dim, keepdim, out);
}

Tensor& argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  return native_or_host<at::_ops::argmin_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_argmin> m(out);
        m.meta(self, dim, keepdim);
        run_reduce("argmin", RS_REDUCE_ARGMIN, order_acc(self), self, Tensor(), out, reduce_mask(self, dim),
                   keepdim);
        return out;
      },
      self, dim, keepdim, out);
}

std::tuple<Tensor&, Tensor&> aminmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                          Tensor& min, Tensor& max) {
  return native_or_host<at::_ops::aminmax_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_aminmax> m(min, max);
        m.meta(self, dim, keepdim);
        uint64_t mask = reduce_mask(self, dim);
        run_reduce("aminmax", RS_REDUCE_MIN, order_acc(self), self, min, Tensor(), mask, keepdim);
        run_reduce("aminmax", RS_REDUCE_MAX, order_acc(self), self, max, Tensor(), mask, keepdim);
        return {min, max};
      },
      self, dim, keepdim, min, max);
}

// ---------------------------------------------------------------- all, any, count_nonzero

// all/any compare the input's values (opmath type) with 0
Tensor& all_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_all_dim, at::_ops::all_out>(
      "all", RS_REDUCE_ALL, reduce_mask(self, std::optional<int64_t>(dim)), keepdim, out, self, dim, keepdim);
}
Tensor& all_dims_out(const Tensor& self, OptDims dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_all_dims, at::_ops::all_dims_out>(
      "all", RS_REDUCE_ALL, reduce_mask(self, dim), keepdim, out, self, dim, keepdim);
}
Tensor& all_all_out(const Tensor& self, Tensor& out) {
  return structured_reduce<at::meta::structured_all, at::_ops::all_all_out>("all", RS_REDUCE_ALL, ~0ULL, false, out,
                                                                           self);
}
Tensor& any_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_any_dim, at::_ops::any_out>(
      "any", RS_REDUCE_ANY, reduce_mask(self, std::optional<int64_t>(dim)), keepdim, out, self, dim, keepdim);
}
Tensor& any_dims_out(const Tensor& self, OptDims dim, bool keepdim, Tensor& out) {
  return structured_reduce<at::meta::structured_any_dims, at::_ops::any_dims_out>(
      "any", RS_REDUCE_ANY, reduce_mask(self, dim), keepdim, out, self, dim, keepdim);
}
Tensor& any_all_out(const Tensor& self, Tensor& out) {
  return structured_reduce<at::meta::structured_any, at::_ops::any_all_out>("any", RS_REDUCE_ANY, ~0ULL, false, out,
                                                                           self);
}

Tensor count_nonzero(const Tensor& self, at::IntArrayRef dims) {
  return native_or_host<at::_ops::count_nonzero_dim_IntList>(
      [&]() -> Tensor {
        uint64_t mask = reduce_mask(self, dims);
        Tensor out = at::empty(reduced_shape(self, mask, false), self.options().dtype(at::kLong));
        run_reduce("count_nonzero", RS_REDUCE_COUNT_NONZERO, reduce_acc(self.scalar_type()), resolved(self), out,
                   Tensor(), mask, false);
        return out;
      },
      self, dims);
}

// ---------------------------------------------------------------- norms

// ATen computes a norm in the opmath type of the input (or of `dtype`),
// complex inputs give their real dtype
void run_norm(const Tensor& self, double p, uint64_t mask, bool keepdim, const Tensor& out) {
  Tensor in = resolved(self);
  if (in.scalar_type() != out.scalar_type() && !c10::isComplexType(in.scalar_type()))
    in = in.to(out.scalar_type());
  run_reduce("norm", RS_REDUCE_NORM, reduce_acc(in.scalar_type()), in, out, Tensor(), mask, keepdim, p);
}

Tensor& vector_norm_out(const Tensor& self, const Scalar& ord, OptDims dim, bool keepdim, OptType dtype,
                        Tensor& out) {
  return native_or_host<at::_ops::linalg_vector_norm_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_linalg_vector_norm> m(out);
        m.meta(self, ord, dim, keepdim, dtype);
        Tensor in = dtype ? self.to(*dtype) : self;
        run_norm(in, ord.toDouble(), reduce_mask(self, dim), keepdim, out);
        return out;
      },
      self, ord, dim, keepdim, dtype, out);
}

Tensor& norm_out(const Tensor& self, const std::optional<Scalar>& p, at::IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return native_or_host<at::_ops::norm_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_norm_ScalarOpt_dim> m(out);
        m.meta(self, p.has_value() ? at::OptionalScalarRef(&p.value()) : at::OptionalScalarRef(), dim, keepdim);
        run_norm(self, p.has_value() ? p->toDouble() : 2.0, reduce_mask(self, dim), keepdim, out);
        return out;
      },
      self, p, dim, keepdim, out);
}

Tensor& norm_dtype_out(const Tensor& self, const std::optional<Scalar>& p, at::IntArrayRef dim, bool keepdim,
                       at::ScalarType dtype, Tensor& out) {
  return native_or_host<at::_ops::norm_dtype_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_norm_ScalarOpt_dim_dtype> m(out);
        m.meta(self, p.has_value() ? at::OptionalScalarRef(&p.value()) : at::OptionalScalarRef(), dim, keepdim,
               dtype);
        run_norm(self.to(dtype), p.has_value() ? p->toDouble() : 2.0, reduce_mask(self, dim), keepdim, out);
        return out;
      },
      self, p, dim, keepdim, dtype, out);
}

// ---------------------------------------------------------------- hash_tensor

// hash_tensor (mode 0): the XOR of every value widened to 64 bits (floats
// to double, integers to int64) and read as uint64. The 64-bit patterns
// come from a pointwise map of the values' bits (integer arithmetic: native
// for float16/bfloat16/float32, and float64 is a view of its bits); the
// XOR runs as a tree of native bitwise_xor passes over halves of the
// reduced extent, with the reduced dims moved last.
Tensor& hash_tensor_out(const Tensor& self, at::IntArrayRef dim, bool keepdim, int64_t mode, Tensor& out) {
  return native_or_host<at::_ops::hash_tensor_out>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_hash_tensor> m(out);
        m.meta(self, dim, keepdim, mode);
        TORCH_CHECK(mode == 0, "hash_tensor only supports mode=0 (xor_sum)");
        if (out.numel() == 0) return out;
        const at::ScalarType t = self.scalar_type();
        Tensor x = resolved(self);
        Tensor bits;  // int64, self's shape
        if (t == at::kDouble || t == at::kLong || t == at::kUInt64) {
          bits = x.view(at::kLong);
        } else if (t == at::kFloat || t == at::kHalf || t == at::kBFloat16) {
          Tensor raw = x.view(t == at::kFloat ? at::kInt : at::kShort);
          bits = at::empty(x.sizes(), x.options().dtype(at::kLong));
          auto iter = at::TensorIteratorConfig()
                          .add_output(bits)
                          .add_const_input(raw)
                          .check_all_same_dtype(false)
                          .build();
          const rs_pw_op pw = t == at::kFloat ? RS_PW_HASH_F32 : t == at::kHalf ? RS_PW_HASH_F16
                                                                                  : RS_PW_HASH_BF16;
          run_pointwise(iter, "hash_bits", pw, Result::Compute, {}, at::kLong, 0b1);
        } else {
          TORCH_CHECK(at::isIntegralType(t, /*includeBool=*/true), "hash_tensor: unsupported dtype ", t);
          bits = x.to(at::kLong);
        }
        // (outer, R): the kept dims, then the reduced ones
        const uint64_t mask = reduce_mask(self, dim);
        std::vector<int64_t> perm;
        int64_t outer = 1, r = 1;
        for (int64_t d = 0; d < self.dim(); d++)
          if (!((mask >> d) & 1)) perm.push_back(d), outer *= self.size(d);
        for (int64_t d = 0; d < self.dim(); d++)
          if ((mask >> d) & 1) perm.push_back(d), r *= self.size(d);
        Tensor w = bits.permute(perm).reshape({outer, r});
        if (w.is_alias_of(x) || !w.is_contiguous()) w = w.clone(at::MemoryFormat::Contiguous);
        if (r == 0) {
          w = at::zeros({outer, 1}, w.options());
          r = 1;
        }
        while (r > 1) {
          if (r % 2) {  // fold the last column into the first
            Tensor c0 = w.narrow(1, 0, 1);
            at::bitwise_xor_out(c0, c0, w.narrow(1, r - 1, 1));
            r -= 1;
          }
          const int64_t h = r / 2;
          Tensor lo = w.narrow(1, 0, h);
          at::bitwise_xor_out(lo, lo, w.narrow(1, h, h));
          r = h;
        }
        Tensor res = w.narrow(1, 0, 1).reshape(out.sizes());
        out.copy_(res.view(at::kUInt64));
        return out;
      },
      self, dim, keepdim, mode, out);
}

// ---------------------------------------------------------------- var, std

// CPU's checks and result dtypes for var/std (ReduceOps.cpp std_var_out)
void check_var(const char* fname, const Tensor& self) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              fname, " only support floating point and complex dtypes");
}

void run_var(rs_reduce_op op, const Tensor& self, OptDims dim, const std::optional<Scalar>& correction,
             bool keepdim, const Tensor& out, const Tensor& mean) {
  double c = correction.has_value() ? correction->toDouble() : 1.0;
  run_reduce(op == RS_REDUCE_STD ? "std" : "var", op, reduce_acc(self.scalar_type()), resolved(self), out, mean,
             reduce_mask(self, dim), keepdim, 0.0, c);
}

template <class Op>
Tensor& var_like_out(rs_reduce_op op, const Tensor& self, OptDims dim, const std::optional<Scalar>& correction,
                     bool keepdim, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        check_var("std and var", self);
        // CPU casts the result to any out dtype it can be cast to
        auto dt = c10::toRealValueType(self.scalar_type());
        TORCH_CHECK(at::canCast(dt, out.scalar_type()), "result type ", dt,
                    " can't be cast to the desired output type ", out.scalar_type());
        at::native::resize_output(out, reduced_shape(self, reduce_mask(self, dim), keepdim));
        run_var(op, self, dim, correction, keepdim, out, Tensor());
        return out;
      },
      self, dim, correction, keepdim, out);
}

Tensor& var_out(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction, bool keepdim,
                Tensor& out) {
  return var_like_out<at::_ops::var_correction_out>(RS_REDUCE_VAR, self, dim, correction, keepdim, out);
}

Tensor& std_out(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction, bool keepdim,
                Tensor& out) {
  return var_like_out<at::_ops::std_correction_out>(RS_REDUCE_STD, self, dim, correction, keepdim, out);
}

Tensor var(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction, bool keepdim) {
  Tensor out = at::empty({0}, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  return var_out(self, dim, correction, keepdim, out);
}

Tensor std_(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction, bool keepdim) {
  Tensor out = at::empty({0}, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  return std_out(self, dim, correction, keepdim, out);
}

template <class Op>
std::tuple<Tensor, Tensor> var_mean_like(const char* fname, rs_reduce_op op, const Tensor& self, OptDims dim,
                                         const std::optional<Scalar>& correction, bool keepdim) {
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor, Tensor> {
        check_var(fname, self);
        auto shape = reduced_shape(self, reduce_mask(self, dim), keepdim);
        Tensor out = at::empty(shape, self.options().dtype(c10::toRealValueType(self.scalar_type())));
        Tensor mean = at::empty(shape, self.options());
        run_var(op, self, dim, correction, keepdim, out, mean);
        return {out, mean};
      },
      self, dim, correction, keepdim);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return var_mean_like<at::_ops::var_mean_correction>("var_mean", RS_REDUCE_VAR, self, dim, correction, keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptDims dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return var_mean_like<at::_ops::std_mean_correction>("std_mean", RS_REDUCE_STD, self, dim, correction, keepdim);
}

// trace: the diagonal's sum, integers into int64 as CPU's trace
Tensor trace(const Tensor& self) {
  return native_or_host<at::_ops::trace>(
      [&]() -> Tensor {
        TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
        TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() != at::kBool, "\"trace\" not implemented for 'Bool'");
        host_if_no_fp64(self);
        auto dt = c10::isIntegralType(self.scalar_type(), /*includeBool=*/false) ? at::kLong : self.scalar_type();
        return self.diagonal().sum(dt);
      },
      self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("trace", trace);
  m.impl("sum.IntList_out", sum_out);
  m.impl("mean.out", mean_out);
  m.impl("prod.int_out", prod_dim_out);
  m.impl("prod", prod_all);
  m.impl("nansum", nansum);
  m.impl("nansum.out", nansum_out);
  m.impl("amax.out", amax_out);
  m.impl("amin.out", amin_out);
  m.impl("max.dim_max", max_dim_out);
  m.impl("min.dim_min", min_dim_out);
  m.impl("max", max_all);
  m.impl("min", min_all);
  m.impl("max.unary_out", max_all_out);
  m.impl("min.unary_out", min_all_out);
  m.impl("argmax.out", argmax_out);
  m.impl("argmin.out", argmin_out);
  m.impl("aminmax.out", aminmax_out);
  m.impl("all.out", all_dim_out);
  m.impl("all.dims_out", all_dims_out);
  m.impl("all.all_out", all_all_out);
  m.impl("any.out", any_dim_out);
  m.impl("any.dims_out", any_dims_out);
  m.impl("any.all_out", any_all_out);
  m.impl("count_nonzero.dim_IntList", count_nonzero);
  m.impl("linalg_vector_norm.out", vector_norm_out);
  m.impl("hash_tensor.out", hash_tensor_out);
  m.impl("norm.out", norm_out);
  m.impl("norm.dtype_out", norm_dtype_out);
  m.impl("var.correction", var);
  m.impl("var.correction_out", var_out);
  m.impl("std.correction", std_);
  m.impl("std.correction_out", std_out);
  m.impl("var_mean.correction", var_mean);
  m.impl("std_mean.correction", std_mean);
}

}  // namespace russet
