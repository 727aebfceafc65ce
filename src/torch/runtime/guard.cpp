// DeviceGuardImplInterface: devices, streams and events for PyTorch's
// generic machinery (torch.Stream, torch.Event, DeviceGuard, autograd).
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "torch/adapter.h"

namespace russet {
namespace {

struct GuardImpl final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kDevice; }

  c10::Device exchangeDevice(c10::Device d) const override {
    c10::Device old = getDevice();
    if (d.index() != old.index()) set_current_device(d.index());
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kDevice, current_device()); }
  void setDevice(c10::Device d) const override { set_current_device(d.index()); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_current_device(d.index());
    } catch (...) {
    }
  }

  static c10::Stream make(c10::DeviceIndex idx, int id) {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kDevice, idx), id);
  }
  c10::Stream getStream(c10::Device d) const override {
    return make(d.index(), current_stream_id(d.index()));
  }
  c10::Stream getDefaultStream(c10::Device d) const override { return make(d.index(), 0); }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool) const override {
    return make(d.index(), next_pool_stream_id());
  }
  c10::Stream getNewStream(c10::Device d, int) const override {
    return make(d.index(), next_pool_stream_id());
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    c10::Stream old = getStream(s.device());
    set_current_stream_id(s.device_index(), static_cast<int>(s.id()));
    return old;
  }

  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(device_count());
  }

  static rs_stream* of(const c10::Stream& s) { return stream(s.device_index(), static_cast<int>(s.id())); }

  void record(void** event, const c10::Stream& s, const c10::DeviceIndex idx,
              const c10::EventFlag flag) const override {
    TORCH_CHECK(idx == -1 || idx == s.device_index(), "russet: event device ", static_cast<int>(idx),
                " does not match the stream's device ", static_cast<int>(s.device_index()));
    if (!*event) {
      rs_event* e = nullptr;
      // BACKEND_DEFAULT is torch.Event(enable_timing=True)
      check(rs_event_create(device(s.device_index()), flag == c10::EventFlag::BACKEND_DEFAULT, &e));
      *event = e;
    }
    check(rs_event_record(static_cast<rs_event*>(*event), of(s)));
  }
  void block(void* event, const c10::Stream& s) const override {
    if (event) check(rs_event_wait(static_cast<rs_event*>(event), of(s)));
  }
  bool queryEvent(void* event) const override {
    if (!event) return true;
    int r = rs_event_query(static_cast<rs_event*>(event));
    if (r < 0) throw_status(RS_ERR_VULKAN);
    return r == 1;
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    rs_event_destroy(static_cast<rs_event*>(event));
  }
  void synchronizeEvent(void* event) const override {
    if (event) check(rs_event_synchronize(static_cast<rs_event*>(event)));
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "russet: elapsed_time: both events must be recorded first");
    double ms = 0;
    check(rs_event_elapsed_ms(static_cast<rs_event*>(start), static_cast<rs_event*>(end), &ms));
    return ms;
  }

  bool queryStream(const c10::Stream& s) const override {
    int r = rs_stream_query(of(s));
    if (r < 0) throw_status(RS_ERR_VULKAN);
    return r == 1;
  }
  void synchronizeStream(const c10::Stream& s) const override { check(rs_stream_synchronize(of(s))); }
  void synchronizeDevice(const c10::DeviceIndex idx) const override {
    check(rs_device_synchronize(device(idx)));
  }
  void recordDataPtrOnStream(const c10::DataPtr& p, const c10::Stream& s) const override {
    if (p.get()) rs_record_stream(device(s.device_index()), reinterpret_cast<uint64_t>(p.get()), of(s));
  }
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

}  // namespace russet
