// The sparse host fallback (host.cpp), for kernels that hand inputs they do
// not take to the host themselves (at::native::call_fallback_fn).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace russet {

void sparse_host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

}  // namespace russet
