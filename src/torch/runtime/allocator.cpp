// The device allocator: PyTorch's storages over the C core's caching
// suballocator. A DataPtr's pointer is the Vulkan device address.
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <mutex>
#include <unordered_set>

#include "torch/adapter.h"

namespace russet {
namespace {

struct Allocation {
  rs_device* dev;
  uint64_t address;
};

void free_allocation(void* ctx) {
  auto* a = static_cast<Allocation*>(ctx);
  rs_free(a->dev, a->address);
  delete a;
}

struct RussetAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    c10::DeviceIndex idx = current_device();
    rs_device* dev = device(idx);
    c10::Device where(kDevice, idx);
    if (n == 0) return c10::DataPtr(nullptr, where);
    uint64_t address = 0;
    check(rs_alloc(dev, n, current_stream(idx), &address));
    auto* ctx = new Allocation{dev, address};
    return c10::DataPtr(reinterpret_cast<void*>(address), ctx, &free_allocation, where);
  }

  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    if (!count) return;
    check(rs_memcpy_dtod(current_stream(current_device()), reinterpret_cast<uint64_t>(dest),
                         reinterpret_cast<uint64_t>(src), count));
  }
};

RussetAllocator g_allocator;

// Pinned host memory: on unified memory all host memory is equally fast for
// the device; this allocator records its blocks so is_pinned() answers.
struct PinnedAllocator final : c10::Allocator {
  std::mutex lock;
  std::unordered_set<const void*> live;

  static void release(void* p);

  c10::DataPtr allocate(size_t n) override {
    void* p = c10::alloc_cpu(n ? n : 1);
    {
      std::lock_guard<std::mutex> g(lock);
      live.insert(p);
    }
    return c10::DataPtr(p, p, &PinnedAllocator::release, c10::Device(c10::DeviceType::CPU));
  }
  c10::DeleterFnPtr raw_deleter() const override { return &PinnedAllocator::release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
  bool is_pinned(const void* p) {
    std::lock_guard<std::mutex> g(lock);
    return live.count(p) != 0;
  }
};

PinnedAllocator g_pinned;

void PinnedAllocator::release(void* p) {
  {
    std::lock_guard<std::mutex> g(g_pinned.lock);
    g_pinned.live.erase(p);
  }
  c10::free_cpu(p);
}

}  // namespace

c10::Allocator* allocator() { return &g_allocator; }
c10::Allocator* pinned_allocator() { return &g_pinned; }
bool is_pinned_ptr(const void* p) { return g_pinned.is_pinned(p); }

void resize_storage_bytes(const c10::Storage& storage, size_t nbytes) {
  TORCH_CHECK(storage.resizable(), "russet: trying to resize a storage that is not resizable");
  size_t old = storage.nbytes();
  if (nbytes == old) return;
  c10::DeviceIndex idx = storage.device().index();
  c10::DeviceIndex prev = current_device();
  set_current_device(idx);
  c10::DataPtr fresh = g_allocator.allocate(nbytes);
  set_current_device(prev);
  size_t keep = std::min(old, nbytes);
  if (keep && storage.data())
    check(rs_memcpy_dtod(current_stream(idx), reinterpret_cast<uint64_t>(fresh.get()),
                         reinterpret_cast<uint64_t>(storage.data()), keep));
  storage.unsafeGetStorageImpl()->set_data_ptr_noswap(std::move(fresh));
  storage.unsafeGetStorageImpl()->set_nbytes(nbytes);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace russet
