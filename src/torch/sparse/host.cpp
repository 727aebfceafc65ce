// Host execution for sparse and nested tensors: the boxed fallback of the
// SparsePrivateUse1, SparseCsrPrivateUse1 and NestedTensorPrivateUse1 keys,
// for the ops of those layouts that have no russet kernel yet.
//
// Like the dense fallback (runtime/host_exec.cpp) it is counted and obeys
// RUSSET_HOST_OPS. It copies every russet argument to the CPU (a sparse
// tensor as its indices and values, a nested one as its buffer and
// metadata), runs PyTorch's CPU kernel, copies the arguments the op writes
// back into the russet tensors (a sparse one takes the CPU result's indices,
// values and sizes) and moves new results to the device. Copies rather than
// aliases: such results are new tensors of a size known only after the CPU
// kernel ran.
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "torch/adapter.h"
#include "torch/runtime/boxed_args.h"
#include "torch/sparse/sparse.h"

namespace russet {

namespace {

struct Staged {
  at::Tensor orig, cpu;
  bool write;
};

bool is_russet(const at::Tensor& t) { return t.defined() && t.device().type() == kDevice; }

at::Tensor to_device(const at::Tensor& r, const std::vector<Staged>& staged, c10::Device target) {
  if (!r.defined() || r.device().type() != at::kCPU) return r;
  for (const Staged& s : staged)
    if (s.write && r.unsafeGetTensorImpl() == s.cpu.unsafeGetTensorImpl()) return s.orig;  // in place, out=
  return r.to(target);
}

// cpu_args: CPU tensors of any size may come in (nested tensors' sizes and
// offsets are CPU tensors); else, as on CUDA, only 0-dim CPU scalars
void host_fallback_for_layout(const c10::OperatorHandle& op, torch::jit::Stack* stack, bool cpu_args) {
  const auto& schema = op.schema();
  const std::string name = host_op_begin(schema, " for this layout");

  const size_t nargs = schema.arguments().size();
  const size_t first = stack->size() - nargs;
  std::set<c10::DeviceIndex> devices;
  std::optional<c10::Device> target;
  std::vector<Staged> staged;
  bool cpu_seen = false;  // a CPU tensor other than a 0-dim scalar: a device mismatch, as on CUDA
  auto stage = [&](const at::Tensor& t, bool write) -> at::Tensor {
    if (t.defined() && t.device().is_cpu() && (t.dim() > 0 || t.is_sparse())) cpu_seen = true;
    if (!is_russet(t)) return t;
    devices.insert(t.device().index());
    at::Tensor cpu = t.to(at::kCPU);
    // some CPU kernels read requires_grad to decide what to save for the
    // backward (_sparse_mm_reduce_impl's arg_out): the copy keeps it
    if (t.requires_grad()) cpu.set_requires_grad(true);
    staged.push_back({t, cpu, write});
    return cpu;
  };
  map_tensor_args(schema, stack, first, stage, &target);
  target = host_target(name, devices, cpu_seen && !cpu_args, target);
  c10::DeviceGuard guard(*target);

  op.callBoxed(stack);

  for (const Staged& s : staged) {
    if (!s.write) continue;
    if (s.orig.is_sparse() || s.orig.is_nested()) {
      s.orig.copy_(s.cpu);  // a COO tensor takes indices, values and sizes
    } else if (s.orig.layout() != at::kStrided) {
      s.orig.resize_as_sparse_(s.cpu);  // compressed: copy_ needs one nnz
      s.orig.copy_(s.cpu);
    } else {
      if (!s.orig.sizes().equals(s.cpu.sizes())) s.orig.resize_(s.cpu.sizes());
      s.orig.copy_(s.cpu);
    }
  }
  for (size_t i = stack->size() - schema.returns().size(); i < stack->size(); i++) {
    c10::IValue& v = (*stack)[i];
    if (v.isTensor()) {
      v = to_device(v.toTensor(), staged, *target);
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t j = 0; j < list.size(); j++) list[j] = to_device(list[j], staged, *target);
      v = list;
    }
  }
}

void nested_host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  host_fallback_for_layout(op, stack, true);
}

}  // namespace

void sparse_host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  host_fallback_for_layout(op, stack, false);
}

TORCH_LIBRARY_IMPL(_, SparsePrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&sparse_host_fallback>());
}
TORCH_LIBRARY_IMPL(_, SparseCsrPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&sparse_host_fallback>());
}
TORCH_LIBRARY_IMPL(_, NestedTensorPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&nested_host_fallback>());
}

}  // namespace russet
