// torch.profiler on russet (docs/profiling.md): a Kineto activity profiler
// for PrivateUse1 (REGISTER_PRIVATEUSE1_PROFILER), so that
// torch.profiler.profile(activities=[CPU, ProfilerActivity.PrivateUse1])
// (torch.profiler.ProfilerActivity.RUSSET) puts russet's kernels on a
// device timeline, each linked to the op that launched it. The timing is
// the C core's (russet/profiler.h: timestamp queries around every dispatch
// while a session records); this file only turns its records into Kineto
// activities.
//
// Correlation: PyTorch pushes each op's correlation id to the session on
// the op's thread; the session hands it to the C core for that thread's
// dispatches, and at the end links each kernel to the op's CPU activity.
//
// The registry for PrivateUse1 activity profilers is new in torch 2.13:
// built against an older torch, this file registers nothing and
// russet_profiler_plugin() says 0 (torch.profiler then shows CPU ops only).
#include "torch/adapter.h"

#if __has_include(<torch/csrc/profiler/standalone/privateuse1_profiler.h>)
#define RUSSET_KINETO_PLUGIN 1
#ifndef USE_KINETO
#define USE_KINETO 1  // privateuse1_profiler.h declares the registry only with it
#endif
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include "russet/profiler.h"

#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

// Kineto's IActivityProfilerSession returns its CPU trace buffer as a
// unique_ptr to a type whose header torch does not ship; a return statement
// needs the unique_ptr's destructor, so this TU gets a deleter of its own.
// The session never has a buffer (it returns null), and Kineto destroys
// what it receives with its own definition.
template <>
struct std::default_delete<libkineto::CpuTraceBuffer> {
  void operator()(libkineto::CpuTraceBuffer* p) const noexcept { TORCH_INTERNAL_ASSERT(p == nullptr); }
};

namespace russet {
namespace {

using libkineto::ActivityType;

// the correlation ids PyTorch pushed on this thread, innermost last
thread_local std::vector<uint64_t> tls_correlation;

class Session final : public libkineto::IActivityProfilerSession {
 public:
  void start() override {
    span_.startTime = now_ns();
    for (int i = 0; i < device_count(); ++i) {
      rs_status st = rs_profiler_start(device(static_cast<c10::DeviceIndex>(i)));
      if (st != RS_OK) errors_.push_back(rs_last_error());
      else started_.push_back(i);
    }
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    for (int i : started_) {
      if (rs_profiler_stop(device(static_cast<c10::DeviceIndex>(i))) != RS_OK) errors_.push_back(rs_last_error());
    }
    span_.endTime = now_ns();
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string> errors() override { return errors_; }

  void processTrace(libkineto::ActivityLogger& logger) override { processTrace(logger, nullptr, 0, 0); }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked,
                    int64_t, int64_t) override {
    std::vector<rs_kernel_record> recs(4096);
    for (int i : started_) {
      rs_device* dev = device(static_cast<c10::DeviceIndex>(i));
      size_t n;
      while ((n = rs_profiler_take(dev, recs.data(), recs.size())) > 0) {
        for (size_t j = 0; j < n; ++j) {
          const rs_kernel_record& r = recs[j];
          // the activities live as long as the session (the logger keeps pointers)
          auto& a = activities_.emplace_back(span_, ActivityType::CONCURRENT_KERNEL, r.name);
          a.startTime = r.start_ns;
          a.endTime = r.end_ns;
          a.id = static_cast<int32_t>(r.correlation);
          a.device = i;
          a.resource = r.stream;
          a.threadId = r.stream;
          if (r.correlation && linked) {
            a.linked = linked(static_cast<int32_t>(r.correlation));
            a.flow.id = static_cast<uint32_t>(r.correlation);
            a.flow.type = libkineto::kLinkAsyncCpuGpu;
            a.flow.start = false;
          }
          // (addMetadataQuoted: addMetadata formats with fmt, which torch does not export)
          a.addMetadataQuoted("device", std::to_string(i));
          a.addMetadataQuoted("stream", std::to_string(r.stream));
          streams_.insert({i, r.stream});
          a.log(logger);
        }
      }
    }
    status_ = libkineto::TraceStatus::READY;
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    return std::make_unique<libkineto::DeviceInfo>(
        libkineto::DeviceInfo{0, 0, "russet", "russet " + std::to_string(started_.empty() ? 0 : started_[0])});
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [dev, stream] : streams_)
      out.push_back(libkineto::ResourceInfo{stream, stream, dev, "russet stream " + std::to_string(stream)});
    return out;
  }

  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  void pushCorrelationId(uint64_t id) override {
    tls_correlation.push_back(id);
    rs_profiler_set_correlation(id);
  }

  void popCorrelationId() override {
    if (!tls_correlation.empty()) tls_correlation.pop_back();
    rs_profiler_set_correlation(tls_correlation.empty() ? 0 : tls_correlation.back());
  }

 private:
  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  libkineto::TraceSpan span_{0, 0, "russet"};
  std::deque<libkineto::GenericTraceActivity> activities_;
  std::set<std::pair<int, int>> streams_;
  std::vector<int> started_;
  std::vector<std::string> errors_;
};

class RussetActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }

  const std::set<ActivityType>& availableActivities() const override { return activities_; }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& types,
                                                                 const libkineto::Config&) override {
    if (!types.count(ActivityType::CONCURRENT_KERNEL)) return nullptr;
    return std::make_unique<Session>();
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_{"russet"};
  std::set<ActivityType> activities_{ActivityType::CONCURRENT_KERNEL};
};

REGISTER_PRIVATEUSE1_PROFILER(RussetActivityProfiler);

}  // namespace
}  // namespace russet

#else
#define RUSSET_KINETO_PLUGIN 0
#endif

// 1 when torch.profiler gets russet's kernels (built against torch >= 2.13)
extern "C" __attribute__((visibility("default"))) int russet_profiler_plugin(void) { return RUSSET_KINETO_PLUGIN; }
