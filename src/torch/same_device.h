// Every tensor argument of an op on one device, or ATen's error: a tensor
// on another device would be read as device memory (on a discrete GPU, a
// host pointer; lavapipe, which shares the host's memory, cannot show it).
// For the adapters whose kernels take several tensors (ops_conv.cpp,
// ops_norm.cpp, ops_loss.cpp) and torch.cat (ops_shape.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <optional>

namespace russet {

inline void on_device_of(const at::Tensor& x, const at::Tensor& t) {
  TORCH_CHECK(!t.defined() || t.device() == x.device(), "Expected all tensors to be on the same device, but found ",
              "at least two devices, ", x.device(), " and ", t.device(), "!");
}
inline void on_device_of(const at::Tensor& x, const std::optional<at::Tensor>& t) {
  if (t.has_value()) on_device_of(x, *t);
}

template <class... T>
void same_device(const at::Tensor& x, const T&... ts) {
  (on_device_of(x, ts), ...);
}

}  // namespace russet
