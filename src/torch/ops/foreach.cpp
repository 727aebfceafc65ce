// The _foreach_ ops that optimizers use (torch.optim's foreach paths: SGD,
// Adam, AdamW, Adagrad, RMSprop, ...), one launch per op for a whole list.
// Each runs ATen's own per-tensor loop (the CompositeExplicitAutograd
// kernels, at::native::foreach_tensor_*_slow) inside a PointwiseBatch
// (torch/pointwise_batch.h): the per-tensor ops queue their pointwise
// launches, and the batch runs them as one (rs_pointwise_run_many) where
// the tensors are contiguous and alike. So the results are the per-tensor
// ops' own, bit for bit, and what the batch cannot take runs one by one.
#include "torch/pointwise_batch.h"
#include "russet/pointwise.h"

#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <torch/library.h>

namespace russet {
namespace {

// Fn (an ATen per-tensor loop) inside a PointwiseBatch
template <auto Fn>
struct Batched;
template <typename R, typename... Args, R (*Fn)(Args...)>
struct Batched<Fn> {
  static R call(Args... args) {
    PointwiseBatch batch;
    if constexpr (std::is_void_v<R>) {
      Fn(args...);
      batch.flush();
    } else {
      R r = Fn(args...);
      batch.flush();
      return r;
    }
  }
};

}  // namespace

#define BATCHED(name, fn) m.impl(name, &Batched<&at::native::fn>::call)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  BATCHED("_foreach_add.Scalar", foreach_tensor_add_scalar_kernel_slow);
  BATCHED("_foreach_add_.Scalar", foreach_tensor_add_scalar_kernel_slow_);
  BATCHED("_foreach_add.List", foreach_tensor_add_list_kernel_slow);
  BATCHED("_foreach_add_.List", foreach_tensor_add_list_kernel_slow_);
  BATCHED("_foreach_add.ScalarList", foreach_tensor_add_scalarlist_kernel_slow);
  BATCHED("_foreach_add_.ScalarList", foreach_tensor_add_scalarlist_kernel_slow_);
  BATCHED("_foreach_sub.Scalar", foreach_tensor_sub_scalar_kernel_slow);
  BATCHED("_foreach_sub_.Scalar", foreach_tensor_sub_scalar_kernel_slow_);
  BATCHED("_foreach_sub.List", foreach_tensor_sub_list_kernel_slow);
  BATCHED("_foreach_sub_.List", foreach_tensor_sub_list_kernel_slow_);
  BATCHED("_foreach_sub.ScalarList", foreach_tensor_sub_scalarlist_kernel_slow);
  BATCHED("_foreach_sub_.ScalarList", foreach_tensor_sub_scalarlist_kernel_slow_);
  BATCHED("_foreach_mul.Scalar", foreach_tensor_mul_scalar_kernel_slow);
  BATCHED("_foreach_mul_.Scalar", foreach_tensor_mul_scalar_kernel_slow_);
  BATCHED("_foreach_mul.List", foreach_tensor_mul_list_kernel_slow);
  BATCHED("_foreach_mul_.List", foreach_tensor_mul_list_kernel_slow_);
  BATCHED("_foreach_mul.ScalarList", foreach_tensor_mul_scalarlist_kernel_slow);
  BATCHED("_foreach_mul_.ScalarList", foreach_tensor_mul_scalarlist_kernel_slow_);
  BATCHED("_foreach_div.Scalar", foreach_tensor_div_scalar_kernel_slow);
  BATCHED("_foreach_div_.Scalar", foreach_tensor_div_scalar_kernel_slow_);
  BATCHED("_foreach_div.List", foreach_tensor_div_list_kernel_slow);
  BATCHED("_foreach_div_.List", foreach_tensor_div_list_kernel_slow_);
  BATCHED("_foreach_div.ScalarList", foreach_tensor_div_scalarlist_kernel_slow);
  BATCHED("_foreach_div_.ScalarList", foreach_tensor_div_scalarlist_kernel_slow_);
  BATCHED("_foreach_addcmul.Scalar", foreach_tensor_addcmul_scalar_slow);
  BATCHED("_foreach_addcmul_.Scalar", foreach_tensor_addcmul_scalar_slow_);
  BATCHED("_foreach_addcmul.ScalarList", foreach_tensor_addcmul_scalarlist_slow);
  BATCHED("_foreach_addcmul_.ScalarList", foreach_tensor_addcmul_scalarlist_slow_);
  BATCHED("_foreach_addcdiv.Scalar", foreach_tensor_addcdiv_scalar_slow);
  BATCHED("_foreach_addcdiv_.Scalar", foreach_tensor_addcdiv_scalar_slow_);
  BATCHED("_foreach_addcdiv.ScalarList", foreach_tensor_addcdiv_scalarlist_slow);
  BATCHED("_foreach_addcdiv_.ScalarList", foreach_tensor_addcdiv_scalarlist_slow_);
  BATCHED("_foreach_lerp.Scalar", foreach_tensor_lerp_list_kernel_slow);
  BATCHED("_foreach_lerp_.Scalar", foreach_tensor_lerp_list_kernel_slow_);
  BATCHED("_foreach_lerp.ScalarList", foreach_tensor_lerp_scalarlist_kernel_slow);
  BATCHED("_foreach_lerp_.ScalarList", foreach_tensor_lerp_scalarlist_kernel_slow_);
  BATCHED("_foreach_sqrt", foreach_tensor_sqrt_slow);
  BATCHED("_foreach_sqrt_", foreach_tensor_sqrt_slow_);
}

}  // namespace russet
