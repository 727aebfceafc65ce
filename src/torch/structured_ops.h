// The out= kernels of structured pointwise ops, one definition for every
// op family file (unary.cpp, binary.cpp, special.cpp, pointwise_misc.cpp,
// activation.cpp): `fn` runs ATen's meta function META_CLASS, then the table
// op `pw` (structured_out, torch/pointwise.h), host execution for `op` where
// the device has no kernel.
#pragma once

#include "torch/pointwise.h"

#define RS_STRUCTURED_UNARY(fn, META_CLASS, op, pw, result)                                      \
  at::Tensor& fn(const at::Tensor& self, at::Tensor& out) {                                     \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, pw, result, out, self);      \
  }

#define RS_STRUCTURED_BINARY(fn, META_CLASS, op, pw, result)                                     \
  at::Tensor& fn(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {            \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, pw, result, out, self, other); \
  }
