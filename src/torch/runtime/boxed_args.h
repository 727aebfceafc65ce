// What the host fallbacks (runtime/host_exec.cpp, sparse/host.cpp) share:
// the op's name and count, and the walk over a boxed call's arguments.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include <optional>
#include <set>
#include <string>

#include "torch/adapter.h"

namespace russet {

// The op's name ("aten::add.out"), after refusing a view op (a view of host
// memory cannot be a russet tensor: `what` says which kernels it lacks) and
// counting the op as run on the host (note_host_op).
inline std::string host_op_begin(const c10::FunctionSchema& schema, const char* what) {
  std::string name = schema.name();
  if (!schema.overload_name().empty()) name += "." + schema.overload_name();
  for (const auto& ret : schema.returns())
    TORCH_CHECK(!ret.alias_info() || ret.alias_info()->isWrite(), "russet: view op ", name, " has no native ",
                "russet kernel", what, " (views cannot run on the host)");
  note_host_op(name);
  return name;
}

// The device a host op's results go to, after CUDA's checks of its
// arguments: russet tensors on one device (`devices`), no CPU tensor beside
// them but 0-dim scalars (`cpu_seen`: one was); `target` the op's device
// argument where it has one.
inline c10::Device host_target(const std::string& name, const std::set<c10::DeviceIndex>& devices, bool cpu_seen,
                               std::optional<c10::Device> target) {
  TORCH_CHECK(!cpu_seen || devices.empty(), "Expected all tensors to be on the same device, but found at ",
              "least two devices, russet:", static_cast<int>(*devices.begin()), " and cpu! (in ", name, ")");
  TORCH_CHECK(devices.size() <= 1, "Expected all tensors to be on the same device, but found at least two ",
              "devices, russet:", static_cast<int>(*devices.begin()), " and russet:",
              static_cast<int>(*devices.rbegin()), "! (in ", name, ")");
  if (!target) target = c10::Device(kDevice, devices.empty() ? current_device() : *devices.begin());
  if (target->index() < 0) target = c10::Device(kDevice, current_device());
  return *target;
}

// Replaces every tensor argument on the stack (a tensor, a tensor list, a
// list of optional tensors) by fn(tensor, written), where written says the
// schema marks the argument as written; and a russet device argument by the
// CPU, recording it in *device when device is not null.
template <class F>
void map_tensor_args(const c10::FunctionSchema& schema, torch::jit::Stack* stack, size_t first, F fn,
                     std::optional<c10::Device>* device) {
  for (size_t i = first; i < stack->size(); i++) {
    c10::IValue& v = (*stack)[i];
    const auto& arg = schema.arguments()[i - first];
    const bool write = arg.alias_info() && arg.alias_info()->isWrite();
    if (v.isTensor()) {
      v = fn(v.toTensor(), write);
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t j = 0; j < list.size(); j++) list[j] = fn(list[j], write);
      v = list;
    } else if (v.isList()) {
      auto list = v.toList();
      for (size_t j = 0; j < list.size(); j++) {
        c10::IValue e = list.get(j);
        if (e.isTensor()) list.set(j, fn(e.toTensor(), write));
      }
      v = list;
    } else if (v.isDevice() && v.toDevice().type() == kDevice) {
      if (device) *device = v.toDevice();
      v = c10::Device(at::kCPU);
    }
  }
}

}  // namespace russet
