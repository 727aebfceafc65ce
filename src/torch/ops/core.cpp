// Allocation, views and metadata: empty, empty_strided, the view ops that
// need a backend kernel, resize_ and set_. Views alias storage; nothing here
// touches the GPU except growing a storage.
#include <ATen/EmptyTensor.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "torch/adapter.h"

namespace russet {
namespace {

c10::Device target_device(std::optional<at::Device> d) {
  c10::Device dev = d.value_or(c10::Device(kDevice, current_device()));
  if (dev.index() < 0) dev = c10::Device(kDevice, current_device());
  return dev;
}

void check_options(at::ScalarType dtype, std::optional<at::Layout> layout) {
  TORCH_CHECK(!layout || *layout == at::kStrided, "russet: layout ", *layout,
              " is not supported yet (only torch.strided)");
  TORCH_CHECK_TYPE(rs_dtype_valid(static_cast<int>(dtype)), "russet: dtype ", dtype,
                   " is not supported on russet");
}

at::Tensor empty_memory_format(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<at::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<at::MemoryFormat> memory_format) {
  at::ScalarType dt = dtype.value_or(at::get_default_dtype_as_scalartype());
  check_options(dt, layout);
  c10::DeviceGuard guard(target_device(device));
  return at::detail::empty_generic(size, allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   dt, memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<at::Device> device,
                         std::optional<bool> pin_memory) {
  at::ScalarType dt = dtype.value_or(at::get_default_dtype_as_scalartype());
  check_options(dt, layout);
  c10::DeviceGuard guard(target_device(device));
  return at::detail::empty_strided_generic(size, stride, allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), dt);
}

// Makes sure the storage holds the tensor's elements, growing it if needed.
void ensure_storage(const at::Tensor& self) {
  size_t need = at::detail::computeStorageNbytes(self.sizes(), self.strides(), self.dtype().itemsize(),
                                                 static_cast<size_t>(self.storage_offset()));
  if (self.numel() == 0) return;
  if (need > self.storage().nbytes()) resize_storage_bytes(self.storage(), need);
}

const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size,
                          std::optional<at::MemoryFormat> memory_format) {
  for (int64_t s : size) TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  auto* impl = self.unsafeGetTensorImpl();
  if (self.sizes() != size) impl->set_sizes_contiguous(size);
  if (memory_format && *memory_format != at::MemoryFormat::Preserve)
    impl->empty_tensor_restride(*memory_format);
  ensure_storage(self);
  return self;
}

at::Tensor& set_storage(at::Tensor& self, at::Storage source, int64_t offset, at::IntArrayRef size,
                        at::IntArrayRef stride) {
  TORCH_CHECK(source.device() == self.device() || !source.data(),
              "russet: set_: expected a storage on ", self.device(), " but got one on ", source.device());
  TORCH_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  auto* impl = self.unsafeGetTensorImpl();
  if (!self.storage().is_alias_of(source)) impl->set_storage_keep_dtype(std::move(source));
  impl->set_storage_offset(offset);
  if (stride.empty()) impl->set_sizes_contiguous(size);
  else impl->set_sizes_and_strides(size, stride);
  ensure_storage(self);
  return self;
}

at::Tensor& set_source_storage_offset(at::Tensor& self, at::Storage source, c10::SymInt offset,
                                      c10::SymIntArrayRef size, c10::SymIntArrayRef stride) {
  return set_storage(self, std::move(source), offset.expect_int(), C10_AS_INTARRAYREF_SLOW(size),
                     C10_AS_INTARRAYREF_SLOW(stride));
}

at::Tensor& set_source_storage(at::Tensor& self, at::Storage source) {
  int64_t n = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_storage(self, std::move(source), 0, {n}, {});
}

at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& src) {
  return set_storage(self, src.storage(), src.storage_offset(), src.sizes(), src.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::DeviceGuard guard(self.device());
  at::Storage empty(at::Storage::use_byte_size_t(), 0, allocator(), /*resizable=*/true);
  return set_storage(self, std::move(empty), 0, {0}, {});
}

// Tensor.record_stream: an allocator operation, so the block is not reused
// until the work queued on `s` so far has finished.
void record_stream(at::Tensor& self, c10::Stream s) {
  TORCH_CHECK(s.device_type() == kDevice, "russet: record_stream expects a russet stream, got ", s);
  if (!self.storage().data()) return;
  rs_record_stream(device(self.device().index()), reinterpret_cast<uint64_t>(self.storage().data()),
                   stream(s.device_index(), static_cast<int>(s.id())));
}

// May `param.data = moved` swap a tensor's data in place? nn.Module._apply
// asks this (torch._has_compatible_shallow_copy_type) for each parameter;
// for a pair PyTorch does not know (it lists its own dense backends, not
// PrivateUse1) the answer is no, and _apply then makes a new Parameter per
// module: `module.to("russet")` would untie tied weights (GPT-2's wte and
// lm_head become two matrices, trained apart). As for CPU and CUDA: two
// dense strided tensors of the known backends or russet are compatible.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  if (self.key_set() == from.key_set()) return true;
  auto dense = [](const at::Tensor& t) {
    if (t.layout() != at::kStrided || t.is_quantized() || t.is_nested()) return false;
    switch (t.device().type()) {
      case at::kCPU: case at::kCUDA: case at::kMPS: case at::kHIP: case at::kXPU: case at::kHPU:
      case at::kMTIA: case at::kPrivateUse1: return true;
      default: return false;
    }
  };
  return dense(self) && dense(from);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("record_stream", record_stream);
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
  m.impl("empty.memory_format", empty_memory_format);
  m.impl("empty_strided", empty_strided);
  m.impl("as_strided", at::native::as_strided_tensorimpl);
  m.impl("view", at::native::view);
  m.impl("_reshape_alias", at::native::_reshape_alias);
  m.impl("unfold", at::native::unfold);
  m.impl("view_as_real", at::native::view_as_real);
  m.impl("view_as_complex", at::native::view_as_complex);
  m.impl("resize_", resize_);
  m.impl("set_.source_Storage_storage_offset", set_source_storage_offset);
  m.impl("set_.source_Storage", set_source_storage);
  m.impl("set_.source_Tensor", set_source_tensor);
  m.impl("set_", set_empty);
}

}  // namespace russet
