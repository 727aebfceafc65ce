// Host execution: the boxed fallback for every op without a native kernel.
//
// It is explicit and counted: each call increments a per-op counter, and
// RUSSET_HOST_OPS=allow|warn|error decides whether it runs silently, warns
// once per op, or raises. On unified memory (Apple, lavapipe) it waits for
// the device, wraps the mapped device memory as CPU tensors and runs
// PyTorch's CPU kernel on them in place: no copies. Elsewhere it stages
// through copies with at::native::cpu_fallback (host_through_copies;
// RUSSET_HOST_COPY=1 forces that path for tests). View ops never come here.
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "torch/take_layout.h"
#include "torch/adapter.h"
#include "torch/runtime/boxed_args.h"

namespace russet {

namespace {

enum class HostMode { Allow, Warn, Error };

std::mutex g_lock;
std::map<std::string, int64_t> g_counts;
std::set<std::string> g_warned;

HostMode mode_from_env() {
  const char* v = std::getenv("RUSSET_HOST_OPS");
  if (!v || !*v || std::string(v) == "allow") return HostMode::Allow;
  if (std::string(v) == "warn") return HostMode::Warn;
  if (std::string(v) == "error") return HostMode::Error;
  TORCH_WARN("russet: RUSSET_HOST_OPS=", v, " is not one of allow, warn, error; using allow");
  return HostMode::Allow;
}

HostMode g_mode = mode_from_env();

thread_local std::string t_reason;  // HostReason's, else empty

}  // namespace

HostReason::HostReason(const std::string& why) { t_reason = why; }
HostReason::~HostReason() { t_reason.clear(); }

void note_host_op(const std::string& op) {
  const std::string why = t_reason.empty() ? "" : " (" + t_reason + ")";
  if (g_mode == HostMode::Error)
    TORCH_CHECK_NOT_IMPLEMENTED(false, "russet: ", op, " has no native russet kernel for these inputs", why,
                                " and RUSSET_HOST_OPS=error forbids running it on the host");
  bool warn = false;
  {
    std::lock_guard<std::mutex> g(g_lock);
    g_counts[op]++;
    if (g_mode == HostMode::Warn) warn = g_warned.insert(op).second;
  }
  if (warn) TORCH_WARN("russet: ", op, " ran on the host (no native russet kernel", why, "); see host_op_counts()");
}

std::map<std::string, int64_t> host_op_counts() {
  std::lock_guard<std::mutex> g(g_lock);
  return g_counts;
}

void reset_host_op_counts() {
  std::lock_guard<std::mutex> g(g_lock);
  g_counts.clear();
  g_warned.clear();
}

at::Tensor host_alias(const at::Tensor& t) {
  const at::Storage& st = t.storage();
  void* base = nullptr;
  if (st.data()) {
    base = rs_host_ptr(device(t.device().index()), reinterpret_cast<uint64_t>(st.data()));
    if (!base) return at::Tensor();
  }
  // resizable, with the CPU allocator: a CPU kernel that resizes an out=
  // argument gets fresh CPU memory, which the fallback then copies back
  at::Storage cst(at::Storage::use_byte_size_t(), st.nbytes(), c10::DataPtr(base, c10::Device(at::kCPU)),
                  c10::GetCPUAllocator(), /*resizable=*/true);
  at::Tensor a = at::empty({0}, t.options().device(at::kCPU));
  auto* impl = a.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(cst));
  impl->set_storage_offset(t.storage_offset());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  if (t.is_conj()) a._set_conj(true);
  if (t.is_neg()) a._set_neg(true);
  return a;
}

namespace {

struct Alias {
  at::Tensor orig, cpu;
  const void* base;
  bool write;
};

bool is_russet(const at::Tensor& t) { return t.defined() && t.device().type() == kDevice; }

// A russet result for a CPU result of the op.
at::Tensor to_russet(const at::Tensor& r, const std::vector<Alias>& aliases, c10::Device target) {
  if (!r.defined() || r.device().type() != at::kCPU) return r;
  for (const Alias& a : aliases) {
    if (r.unsafeGetTensorImpl() == a.cpu.unsafeGetTensorImpl()) return a.orig;  // in-place result
  }
  at::Tensor out;
  if (r.is_non_overlapping_and_dense())
    out = at::empty_strided(r.sizes(), r.strides(), r.options().device(target));
  else
    out = at::empty(r.sizes(), r.options().device(target));
  out.copy_(r);
  return out;
}

void convert_results(torch::jit::Stack* stack, size_t nret, const std::vector<Alias>& aliases,
                     c10::Device target) {
  for (size_t i = stack->size() - nret; i < stack->size(); i++) {
    c10::IValue& v = (*stack)[i];
    if (v.isTensor()) {
      v = to_russet(v.toTensor(), aliases, target);
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t j = 0; j < list.size(); j++) list[j] = to_russet(list[j], aliases, target);
      v = list;
    }
  }
}

// Mutated arguments whose CPU alias moved to new memory or changed shape.
void write_back(const std::vector<Alias>& aliases) {
  for (const Alias& a : aliases) {
    if (!a.write) continue;
    bool moved = a.cpu.storage().data() != a.base;
    bool reshaped = !a.cpu.sizes().equals(a.orig.sizes()) || !a.cpu.strides().equals(a.orig.strides()) ||
                    a.cpu.storage_offset() != a.orig.storage_offset();
    if (moved) {
      // the layout CPU's kernel gave the resized out= (column-major for
      // LAPACK results, as CUDA's too; lstsq's solution is a view of a
      // larger one), wherever its elements do not overlap
      a.orig.resize_(a.cpu.sizes());
      take_layout(a.orig, a.cpu);
      a.orig.copy_(a.cpu);
    } else if (reshaped) {
      auto* impl = a.orig.unsafeGetTensorImpl();
      impl->set_storage_offset(a.cpu.storage_offset());
      impl->set_sizes_and_strides(a.cpu.sizes(), a.cpu.strides());
    }
    // a kernel may flip the conjugate/negative bit of an out= argument
    // (linalg_lu_solve with left=False returns X^H that way)
    if (!moved) {
      if (a.cpu.is_conj() != a.orig.is_conj()) a.orig._set_conj(a.cpu.is_conj());
      if (a.cpu.is_neg() != a.orig.is_neg()) a.orig._set_neg(a.cpu.is_neg());
    }
  }
}

// Arguments that an op's CPU kernel writes although its schema does not mark
// them as written (cpu_fallback copies back only marked ones): the running
// statistics of native_batch_norm, in its functional and out= forms.
const std::vector<size_t>& unmarked_writes(const std::string& name) {
  static const std::map<std::string, std::vector<size_t>> table = {
      {"aten::native_batch_norm", {3, 4}}, {"aten::native_batch_norm.out", {3, 4}}};
  static const std::vector<size_t> none;
  auto it = table.find(name);
  return it == table.end() ? none : it->second;
}

// RUSSET_HOST_COPY=1: stage host execution through copies even where device
// memory is host-visible, as on a discrete GPU (for tests on lavapipe).
bool force_copies() {
  static const bool on = [] {
    const char* v = std::getenv("RUSSET_HOST_COPY");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

// Host execution through copies (device memory the host cannot map, as on
// a discrete GPU): PyTorch's cpu_fallback, plus the write-back of arguments
// in unmarked_writes, which it would drop.
void host_through_copies(const c10::OperatorHandle& op, torch::jit::Stack* stack, const std::string& name,
                         size_t first) {
  std::vector<std::pair<at::Tensor, at::Tensor>> staged;  // (russet argument, its CPU copy)
  for (size_t i : unmarked_writes(name)) {
    c10::IValue& v = (*stack)[first + i];
    if (!v.isTensor() || !is_russet(v.toTensor())) continue;
    staged.emplace_back(v.toTensor(), v.toTensor().cpu());
    v = staged.back().second;
  }
  at::native::cpu_fallback(op, stack);
  for (auto& [orig, cpu] : staged) orig.copy_(cpu);
}

}  // namespace

void host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  const std::string name = host_op_begin(schema, "");

  const size_t nargs = schema.arguments().size();
  const size_t first = stack->size() - nargs;
  std::set<c10::DeviceIndex> devices;
  bool mapped = true;
  auto visit = [&](const at::Tensor& t) {
    if (!is_russet(t)) return;
    devices.insert(t.device().index());
    if (t.storage().data() && !rs_host_ptr(device(t.device().index()), address_of(t))) mapped = false;
  };
  // CPU tensors beside russet ones: like CUDA, only 0-dim CPU tensors
  // (scalars) and index lists may mix in; anything else is a device mismatch
  std::optional<at::Device> cpu_seen;
  auto visit_arg = [&](const at::Tensor& t) {
    visit(t);
    if (t.defined() && t.device().is_cpu() && t.dim() > 0) cpu_seen = t.device();
  };
  std::optional<c10::Device> target;
  for (size_t i = first; i < stack->size(); i++) {
    const c10::IValue& v = (*stack)[i];
    if (v.isTensor()) visit_arg(v.toTensor());
    else if (v.isTensorList()) for (const at::Tensor& t : v.toTensorVector()) visit_arg(t);
    else if (v.isList()) {
      for (const c10::IValue& e : v.toListRef())
        if (e.isTensor()) visit(e.toTensor());
    } else if (v.isDevice() && v.toDevice().type() == kDevice) {
      target = v.toDevice();
    }
  }
  target = host_target(name, devices, cpu_seen.has_value(), target);
  c10::DeviceGuard guard(*target);

  if (!mapped || force_copies()) {
    host_through_copies(op, stack, name, first);
    return;
  }
  for (c10::DeviceIndex d : devices) check(rs_device_synchronize(device(d)));

  std::vector<Alias> aliases;
  auto alias_of = [&](const at::Tensor& t, bool write) -> at::Tensor {
    if (!is_russet(t)) return t;
    at::Tensor a = host_alias(t);
    // some CPU kernels read requires_grad to decide what to save for the
    // backward: the alias keeps it
    if (t.requires_grad()) a.set_requires_grad(true);
    aliases.push_back({t, a, a.storage().data(), write});
    return a;
  };
  map_tensor_args(schema, stack, first, alias_of, nullptr);
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
  write_back(aliases);
  convert_results(stack, schema.returns().size(), aliases, *target);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&host_fallback>());
}

}  // namespace russet
