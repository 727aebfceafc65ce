// Every tensor argument of an op on one device, or ATen's error: a tensor
// on another device would be read as device memory (on a discrete GPU, a
// host pointer; lavapipe, which shares the host's memory, cannot show it).
// For the adapters whose kernels take several tensors (ops/conv.cpp,
// ops/norm.cpp, ops/nll_loss.cpp, ops/blas.cpp, ops/gather.cpp) and torch.cat
// (ops/shape.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <initializer_list>
#include <optional>

namespace russet {

// Every defined tensor on the device of the first russet one among them
// (named first in the error, beside the other device).
inline void same_device_all(std::initializer_list<const at::Tensor*> ts) {
  const at::Tensor* ours = nullptr;
  for (const at::Tensor* t : ts)
    if (t->defined() && t->device().type() == c10::DeviceType::PrivateUse1 && !ours) ours = t;
  for (const at::Tensor* t : ts)
    TORCH_CHECK(!t->defined() || (ours && t->device() == ours->device()),
                "Expected all tensors to be on the same device, but found at least two devices, ",
                ours ? ours->device() : c10::Device(c10::DeviceType::PrivateUse1), " and ", t->device(), "!");
}

inline const at::Tensor* tensor_ptr(const at::Tensor& t) { return &t; }
inline const at::Tensor* tensor_ptr(const std::optional<at::Tensor>& t) {
  static const at::Tensor undefined;
  return t.has_value() ? &*t : &undefined;
}

template <class... T>
void same_device(const T&... ts) {
  same_device_all({tensor_ptr(ts)...});
}

}  // namespace russet
