// Devices, the current device and stream per thread, and error mapping.
#include <atomic>
#include <mutex>

#include "torch/adapter.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>

namespace russet {

namespace {
constexpr int kMaxDevices = 16;
thread_local c10::DeviceIndex tls_device = 0;
thread_local int tls_stream[kMaxDevices] = {0};
std::atomic<int> pool_cursor{0};
}  // namespace

void throw_status(rs_status st) {
  std::string msg = rs_last_error();
  if (msg.empty()) msg = std::string("russet: ") + rs_status_name(st);
  switch (st) {
    case RS_ERR_OOM:
      TORCH_CHECK_WITH(OutOfMemoryError, false, msg);
    case RS_ERR_UNSUPPORTED:
      TORCH_CHECK_NOT_IMPLEMENTED(false, msg);
    case RS_ERR_INVALID:
      TORCH_CHECK_VALUE(false, msg);
    default:
      TORCH_CHECK(false, msg);
  }
}

int device_count() noexcept {
  int n = rs_device_count();
  return n > kMaxDevices ? kMaxDevices : n;
}

static void check_index(c10::DeviceIndex index) {
  int n = device_count();
  if (n == 0) {
    TORCH_CHECK(false, rs_last_error()[0] ? rs_last_error() : "russet: no Vulkan device found");
  }
  TORCH_CHECK(index >= 0 && index < n, "russet: invalid device index ", static_cast<int>(index),
              " (there ", n == 1 ? "is 1 device" : ("are " + std::to_string(n) + " devices"), ")");
}

c10::DeviceIndex current_device() { return tls_device; }

void set_current_device(c10::DeviceIndex index) {
  check_index(index);
  tls_device = index;
}

rs_device* device(c10::DeviceIndex index) {
  if (index < 0) index = tls_device;
  check_index(index);
  rs_device* dev = nullptr;
  check(rs_device_get(index, &dev));
  return dev;
}

int current_stream_id(c10::DeviceIndex index) {
  if (index < 0) index = tls_device;
  return (index >= 0 && index < kMaxDevices) ? tls_stream[index] : 0;
}

void set_current_stream_id(c10::DeviceIndex index, int id) {
  if (index < 0) index = tls_device;
  check_index(index);
  TORCH_CHECK(id >= 0 && id < RS_MAX_STREAMS, "russet: invalid stream id ", id);
  tls_stream[index] = id;
}

rs_stream* stream(c10::DeviceIndex index, int id) {
  rs_stream* s = nullptr;
  check(rs_stream_get(device(index), id, &s));
  return s;
}

rs_stream* current_stream(c10::DeviceIndex index) {
  if (index < 0) index = tls_device;
  return stream(index, current_stream_id(index));
}

int next_pool_stream_id() { return 1 + (pool_cursor++ % (RS_MAX_STREAMS - 1)); }

at::Tensor from_host(const void* data, at::IntArrayRef sizes, at::ScalarType dt, const at::Tensor& like) {
  at::Tensor t = at::empty(sizes, like.options().dtype(dt));
  t.copy_(at::from_blob(const_cast<void*>(data), sizes, dt));
  return t;
}

rs_tensor describe(const at::Tensor& t) {
  const uint64_t address = address_of(t);  // first: another device's tensor is ATen's device error
  TORCH_CHECK(t.dim() <= RS_MAX_DIMS, "russet: tensors of more than ", RS_MAX_DIMS,
              " dimensions are not supported (got ", t.dim(), ")");
  // a quantized tensor's elements are its integers (quint8 -> uint8, ...)
  const auto dt = at::isQIntType(t.scalar_type()) ? at::toUnderlying(t.scalar_type()) : t.scalar_type();
  TORCH_CHECK(rs_dtype_valid(static_cast<int>(dt)), "russet: dtype ", t.scalar_type(), " is not supported on russet");
  rs_tensor d{};
  d.address = address;
  d.dtype = static_cast<rs_dtype>(dt);
  d.ndim = static_cast<int>(t.dim());
  for (int i = 0; i < d.ndim; i++) {
    d.sizes[i] = t.size(i);
    d.strides[i] = t.stride(i);
  }
  return d;
}

rs_tensor describe_elementwise(const at::Tensor& t) {
  return describe(t.dim() <= RS_MAX_DIMS ? t : without_size1_dims(t, t));
}

at::Tensor without_size1_dims(const at::Tensor& t, const at::Tensor& like) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < like.dim(); d++) {
    if (like.size(d) == 1) continue;
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
  }
  return t.as_strided(sizes, strides);
}

// The C core numbers dtypes as c10::ScalarType does.
static_assert(RS_UINT8 == static_cast<int>(c10::ScalarType::Byte));
static_assert(RS_FLOAT16 == static_cast<int>(c10::ScalarType::Half));
static_assert(RS_COMPLEX32 == static_cast<int>(c10::ScalarType::ComplexHalf));
static_assert(RS_BOOL == static_cast<int>(c10::ScalarType::Bool));
static_assert(RS_BFLOAT16 == static_cast<int>(c10::ScalarType::BFloat16));
static_assert(RS_FLOAT8_E5M2 == static_cast<int>(c10::ScalarType::Float8_e5m2));
static_assert(RS_FLOAT8_E4M3FNUZ == static_cast<int>(c10::ScalarType::Float8_e4m3fnuz));
static_assert(RS_UINT64 == static_cast<int>(c10::ScalarType::UInt64));
static_assert(RS_FLOAT8_E8M0FNU == static_cast<int>(c10::ScalarType::Float8_e8m0fnu));
static_assert(RS_FLOAT4_E2M1FN_X2 == static_cast<int>(c10::ScalarType::Float4_e2m1fn_x2));

}  // namespace russet
