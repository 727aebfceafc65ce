// The C++ adapter's shared helpers: it turns at::Tensor into the C core's
// descriptors and rs_status into PyTorch exceptions. No kernels, no Vulkan.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <map>
#include <string>

#include "russet/runtime.h"  // (each op file includes its engines' headers)
#include "russet/tensor.h"

namespace russet {

constexpr c10::DeviceType kDevice = c10::DeviceType::PrivateUse1;

// Throws the PyTorch exception for a failed core call: OutOfMemoryError for
// RS_ERR_OOM, NotImplementedError for RS_ERR_UNSUPPORTED, ValueError for
// RS_ERR_INVALID, RuntimeError else.
[[noreturn]] void throw_status(rs_status st);
inline void check(rs_status st) {
  if (st != RS_OK) throw_status(st);
}

// Thread-local current device (validated) and the device object.
c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);
rs_device* device(c10::DeviceIndex index);
int device_count() noexcept;

// This thread's current stream on a device (id 0 is the default).
int current_stream_id(c10::DeviceIndex index);
void set_current_stream_id(c10::DeviceIndex index, int id);
rs_stream* stream(c10::DeviceIndex index, int id);
rs_stream* current_stream(c10::DeviceIndex index);
inline rs_stream* current_stream_for(const at::Tensor& t) { return current_stream(t.device().index()); }
int next_pool_stream_id();

// The descriptor of a russet tensor: address of element 0, dtype, sizes and
// strides. Fails clearly for more than RS_MAX_DIMS dims.
rs_tensor describe(const at::Tensor& t);
// The same for elementwise work on tensors of one shape (copies, fills,
// random fills): a tensor of more dims than rs_tensor holds (PyTorch allows
// them) is described without its size-1 dims, which address nothing.
rs_tensor describe_elementwise(const at::Tensor& t);
// `t` (of like's dims) as a view without the dims where `like` has size 1.
at::Tensor without_size1_dims(const at::Tensor& t, const at::Tensor& like);
// The device address of a russet tensor's element 0. Another device's
// tensor is ATen's device error: its pointer read as device memory would be
// garbage or a fault (lavapipe, which shares the host's memory, reads it
// and hides the bug: a CPU grad beside a russet softmax output did).
inline uint64_t address_of(const at::Tensor& t) {
  TORCH_CHECK(!t.defined() || t.device().type() == kDevice, "Expected all tensors to be on the same device, but ",
              "found at least two devices, russet and ", t.device(), "!");
  return reinterpret_cast<uint64_t>(t.data_ptr());
}

// A new contiguous tensor of `sizes` and `dt` on `like`'s device holding a
// copy of the host array `data` (tables made on the host: weights,
// twiddles, offsets). Staged like every host-to-device copy: no sync, and
// the host array may go as soon as this returns.
at::Tensor from_host(const void* data, at::IntArrayRef sizes, at::ScalarType dt, const at::Tensor& like);

// The allocator (allocator.cpp).
c10::Allocator* allocator();

// Grows or shrinks a russet storage to `nbytes`, keeping its contents.
void resize_storage_bytes(const c10::Storage& storage, size_t nbytes);

// Host execution (host_exec.cpp): counts an op that ran on the host and
// applies RUSSET_HOST_OPS (error raises, warn warns once per op).
void note_host_op(const std::string& op_name);

// Why the next host op on this thread runs there (the engine's message), for
// note_host_op's warning or error; set for the scope of one fallback call.
struct HostReason {
  explicit HostReason(const std::string& why);
  ~HostReason();
  HostReason(const HostReason&) = delete;
  HostReason& operator=(const HostReason&) = delete;
};
std::map<std::string, int64_t> host_op_counts();
void reset_host_op_counts();

// A CPU tensor that aliases the host mapping of a russet tensor's memory
// (unified memory only; undefined tensor when the memory is not mapped).
// The caller must have synchronized the device.
at::Tensor host_alias(const at::Tensor& t);

}  // namespace russet
