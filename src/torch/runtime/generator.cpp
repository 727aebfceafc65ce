// The Philox generator and the hooks that hand it to PyTorch.
#include "torch/runtime/generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/ops/empty.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/CallOnce.h>

#include <cstring>
#include <deque>
#include <mutex>
#include <random>

#include "torch/adapter.h"

namespace russet {

c10::Allocator* pinned_allocator();
bool is_pinned_ptr(const void* p);

PhiloxGenerator::PhiloxGenerator(c10::DeviceIndex index)
    : c10::GeneratorImpl(c10::Device(kDevice, index), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(c10::default_rng_seed_val) {}

void PhiloxGenerator::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t PhiloxGenerator::seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  set_current_seed(s);
  return s;
}

// State: 16 bytes, seed then offset (little-endian uint64), as a CPU uint8 tensor.
c10::intrusive_ptr<c10::TensorImpl> PhiloxGenerator::get_state() const {
  at::Tensor t = at::empty({16}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
  std::memcpy(t.data_ptr(), &seed_, 8);
  std::memcpy(static_cast<char*>(t.data_ptr()) + 8, &offset_, 8);
  return t.getIntrusivePtr();
}

void PhiloxGenerator::set_state(const c10::TensorImpl& state) {
  TORCH_CHECK(state.dtype() == caffe2::TypeMeta::Make<uint8_t>() && state.numel() == 16 &&
                  state.device().is_cpu(),
              "russet: RNG state must be a CPU torch.ByteTensor of 16 bytes, got ", state.numel(),
              " elements");
  const char* p = static_cast<const char*>(state.data());
  std::memcpy(&seed_, p, 8);
  std::memcpy(&offset_, p + 8, 8);
}

PhiloxGenerator* PhiloxGenerator::clone_impl() const {
  auto* g = new PhiloxGenerator(device().index());
  g->seed_ = seed_;
  g->offset_ = offset_;
  return g;
}

namespace {
std::mutex g_gen_lock;
std::deque<at::Generator> g_default_gens;  // index = device; deque keeps references stable
}  // namespace

const at::Generator& default_generator(c10::DeviceIndex index) {
  if (index < 0) index = current_device();
  TORCH_CHECK(index >= 0 && index < device_count(), "russet: invalid device index ",
              static_cast<int>(index));
  std::lock_guard<std::mutex> g(g_gen_lock);
  while (static_cast<int>(g_default_gens.size()) <= index)
    g_default_gens.push_back(
        at::make_generator<PhiloxGenerator>(static_cast<c10::DeviceIndex>(g_default_gens.size())));
  return g_default_gens[index];
}

PhiloxGenerator* generator_for(const std::optional<at::Generator>& gen, c10::DeviceIndex index) {
  const at::Generator& g = (gen.has_value() && gen->defined()) ? *gen : default_generator(index);
  TORCH_CHECK(g.device().type() == kDevice, "russet: expected a russet generator, got one for ",
              g.device());
  return g.get<PhiloxGenerator>();
}

PhiloxDraw take_draw(const std::optional<at::Generator>& gen, c10::DeviceIndex index, uint64_t increment) {
  PhiloxGenerator* g = generator_for(gen, index);
  std::lock_guard<std::mutex> lock(g->mutex_);
  return {g->current_seed(), g->take(increment)};
}

at::Generator host_generator(const PhiloxDraw& draw) {
  return at::make_generator<at::CPUGeneratorImpl>(draw.seed ^ (draw.offset * 0x9E3779B97F4A7C15ull));
}

namespace {

struct Hooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex index) const override {
    return default_generator(index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex index) const override {
    if (index < 0) index = current_device();
    return at::make_generator<PhiloxGenerator>(index);
  }
  at::Device getDeviceFromPtr(void* data) const override {
    for (int i = 0; i < device_count(); i++) {
      rs_device* dev = nullptr;
      if (rs_device_get(i, &dev) == RS_OK && rs_owns_address(dev, reinterpret_cast<uint64_t>(data)))
        return at::Device(kDevice, static_cast<c10::DeviceIndex>(i));
    }
    TORCH_CHECK(false, "russet: pointer ", data, " is not russet device memory");
  }
  bool isPinnedPtr(const void* data) const override { return is_pinned_ptr(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return pinned_allocator(); }
  bool hasPrimaryContext(c10::DeviceIndex index) const override {
    return index >= 0 && index < device_count();
  }
  c10::DeviceIndex deviceCount() const override { return static_cast<c10::DeviceIndex>(device_count()); }
  void setCurrentDevice(c10::DeviceIndex index) const override { set_current_device(index); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex index) const override {
    c10::DeviceIndex old = current_device();
    set_current_device(index);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex index) const override {
    return exchangeDevice(index);
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    resize_storage_bytes(storage, newsize);
  }
};

struct Register {
  Register() { at::RegisterPrivateUse1HooksInterface(new Hooks()); }
} g_register;

}  // namespace
}  // namespace russet
