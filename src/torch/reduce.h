// The bridge from ATen's reductions to the C core's reduction engine
// (rs_reduce_run). ATen's meta functions (or, for unstructured ops, the
// helpers here) size the results; these helpers describe the operands in
// the engine's keepdim form and pick the accumulate dtype as CPU does.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "torch/adapter.h"
#include "torch/pointwise.h"
#include "russet/reduce.h"

namespace russet {

// Bit d set: dim d is reduced. No dims (or none given) means all of them,
// as in sum(x, dim=[]) and amax(x, dim=()).
uint64_t reduce_mask(const at::Tensor& self, at::OptionalIntArrayRef dims);
uint64_t reduce_mask(const at::Tensor& self, std::optional<int64_t> dim);

// The result's shape: self's, with reduced dims of size 1 or dropped.
std::vector<int64_t> reduced_shape(const at::Tensor& self, uint64_t mask, bool keepdim);

// A result in keepdim form over `ndim` dims: the dropped dims come back with
// size 1 and stride 0. An undefined tensor gives an empty descriptor.
rs_tensor keepdim_view(const at::Tensor& result, int64_t ndim, uint64_t mask, bool keepdim);

// PyTorch CPU's accumulate dtype for values of dtype t: int64 for bool and
// integers (uint64 for uint64), float32 for the 16-bit and 8-bit floats,
// complex64 for complex32.
rs_dtype reduce_acc(at::ScalarType t);

// Runs one reduction of `self` into `out` (and `out2`); throws NeedsHost
// when the device cannot compute the dtypes (float64 under the apple
// profile). The input's conj/neg bits must be resolved by the caller.
void run_reduce(const char* name, rs_reduce_op op, rs_dtype acc, const at::Tensor& self,
                const at::Tensor& out, const at::Tensor& out2, uint64_t mask, bool keepdim,
                double p = 0.0, double correction = 0.0);

// `self` with its conjugate and negative bits materialized.
at::Tensor resolved(const at::Tensor& self);


}  // namespace russet
