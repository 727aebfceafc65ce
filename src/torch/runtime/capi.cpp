// The C functions that python/russet calls through ctypes. Each returns 0
// (or a count) on success and -1 on failure, with the message in
// russet_last_error(). Structured answers are JSON, written into the
// caller's buffer; the return value is the length needed.
#include <c10/util/Exception.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>

#include "torch/adapter.h"
#include "torch/runtime/generator.h"

using namespace russet;

namespace {

thread_local std::string g_error;

template <typename F>
int guarded(F f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    g_error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    g_error = e.what();
  }
  return -1;
}

int emit(const std::string& s, char* buf, size_t cap) {
  if (buf && cap) {
    size_t n = std::min(cap - 1, s.size());
    std::memcpy(buf, s.data(), n);
    buf[n] = 0;
  }
  return static_cast<int>(s.size());
}

std::string quote(const char* s) {
  std::string out = "\"";
  for (const char* p = s; *p; p++) {
    if (*p == '"' || *p == '\\') out += '\\';
    if (static_cast<unsigned char>(*p) < 0x20) continue;
    out += *p;
  }
  return out + "\"";
}

struct Json {
  std::ostringstream o;
  bool first = true;
  Json() { o << "{"; }
  template <typename T>
  Json& num(const char* k, T v) {
    o << (first ? "" : ",") << quote(k) << ":" << v;
    first = false;
    return *this;
  }
  Json& str(const char* k, const char* v) {
    o << (first ? "" : ",") << quote(k) << ":" << quote(v);
    first = false;
    return *this;
  }
  Json& raw(const char* k, const std::string& v) {
    o << (first ? "" : ",") << quote(k) << ":" << v;
    first = false;
    return *this;
  }
  std::string done() { return o.str() + "}"; }
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* russet_last_error(void) { return g_error.c_str(); }

__attribute__((visibility("default"))) int russet_device_count(void) {
  int n = device_count();
  if (n == 0) g_error = rs_last_error();
  return n;
}

// 1 in a fork() child of a process that had started russet (rs_forked_child)
__attribute__((visibility("default"))) int russet_in_bad_fork(void) { return rs_forked_child(); }

__attribute__((visibility("default"))) int russet_info_json(int index, char* buf, size_t cap) {
  return guarded([&] {
    rs_device_info info;
    rs_device* dev = nullptr;
    check(rs_device_get(index, &dev));  // the created device's info is complete
    check(rs_device_info_get(index, &info));
    const rs_features& f = info.features;
    char api[32];
    std::snprintf(api, sizeof api, "%u.%u.%u", (info.api_version >> 22) & 0x7fu, (info.api_version >> 12) & 0x3ffu,
                  info.api_version & 0xfffu);
    Json feat;
    feat.num("has_fp64", f.has_fp64).num("has_int64", f.has_int64).num("has_fp16", f.has_fp16)
        .num("has_int8", f.has_int8).num("has_int16", f.has_int16).num("has_bf16", f.has_bf16)
        .num("has_storage8", f.has_storage8).num("has_storage16", f.has_storage16)
        .num("has_atomic_int64", f.has_atomic_int64).num("has_atomic_float32_add", f.has_atomic_float32_add)
        .num("has_atomic_float64_add", f.has_atomic_float64_add)
        .num("has_cooperative_matrix", f.has_cooperative_matrix)
        .num("has_buffer_device_address", f.has_buffer_device_address)
        .num("has_timeline_semaphore", f.has_timeline_semaphore).num("has_timestamps", f.has_timestamps)
        .num("unified_memory", f.unified_memory).num("subgroup_size", f.subgroup_size)
        .num("has_subgroup_ballot", f.has_subgroup_ballot)
        .num("max_shared_memory", f.max_shared_memory)
        .num("max_workgroup_invocations", f.max_workgroup_invocations)
        .num("max_workgroup_count_x", f.max_workgroup_count_x).num("max_push_constants", f.max_push_constants)
        .num("max_allocation_size", f.max_allocation_size)
        .num("preserve_infnan", f.preserve_infnan).num("preserve_denorm", f.preserve_denorm);
    Json cache;
    cache.str("dir", rs_cache_dir());
    {
      rs_cache_stats cs;
      rs_cache_stats_get(dev, &cs);
      cache.num("spirv_compiles", cs.spirv_compiles).num("spirv_disk_hits", cs.spirv_disk_hits)
          .num("spirv_disk_rejects", cs.spirv_disk_rejects).num("pipelines_created", cs.pipelines_created)
          .num("pipeline_memory_hits", cs.pipeline_memory_hits)
          .num("pipeline_cache_loaded", cs.pipeline_cache_loaded);
    }
    Json j;
    j.str("name", info.name).str("driver", info.driver).str("vendor", info.vendor)
        .num("vendor_id", info.vendor_id).num("device_id", info.device_id).str("api_version", api)
        .num("is_cpu", info.is_cpu).num("total_memory", info.total_memory)
        .str("profile", rs_profile_name(info.profile)).str("version", RUSSET_VERSION)
        .str("float16_conversions", info.float16_conversions > 0    ? "device"
                                    : info.float16_conversions == 0 ? "software"
                                                                    : "undecided")
        .str("division", info.division == RS_DIVISION_DEVICE      ? "device"
                         : info.division == RS_DIVISION_CORRECTED   ? "corrected"
                         : info.division == RS_DIVISION_APPROXIMATE ? "approximate"
                                                                    : "undecided")
        .raw("features", feat.done()).raw("cache", cache.done());
    return emit(j.done(), buf, cap);
  });
}

__attribute__((visibility("default"))) int russet_current_device(void) { return current_device(); }

// The host address of device memory where the device maps it (unified
// memory: Apple, lavapipe), else 0 (a discrete GPU's, an unknown address):
// torch.distributed's staging (python/russet/distributed.py) hands Gloo a
// CPU view of russet memory there instead of a copy.
__attribute__((visibility("default"))) uint64_t russet_host_address(int index, uint64_t address) {
  uint64_t out = 0;
  guarded([&] {
    out = reinterpret_cast<uint64_t>(rs_host_ptr(device(index), address));
    return 0;
  });
  return out;
}

__attribute__((visibility("default"))) int russet_set_device(int index) {
  return guarded([&] {
    set_current_device(static_cast<c10::DeviceIndex>(index));
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_synchronize(int index) {
  return guarded([&] {
    if (index >= 0) {
      check(rs_device_synchronize(device(index)));
    } else {
      for (int i = 0; i < device_count(); i++) check(rs_device_synchronize(device(i)));
    }
    return 0;
  });
}

__attribute__((visibility("default"))) uint64_t russet_host_waits(int index) {
  uint64_t out = 0;
  guarded([&] {
    out = rs_device_host_waits(device(index));
    return 0;
  });
  return out;
}

__attribute__((visibility("default"))) int russet_memory_stats_json(int index, char* buf, size_t cap) {
  return guarded([&] {
    rs_memory_stats s;
    rs_memory_stats_get(device(index), &s);
    Json j;
    j.num("allocated_bytes", s.allocated_bytes).num("reserved_bytes", s.reserved_bytes)
        .num("peak_allocated_bytes", s.peak_allocated_bytes).num("peak_reserved_bytes", s.peak_reserved_bytes)
        .num("active_blocks", s.active_blocks).num("segments", s.segments).num("alloc_count", s.alloc_count)
        .num("free_count", s.free_count).num("segment_alloc_count", s.segment_alloc_count)
        .num("segment_free_count", s.segment_free_count).num("num_alloc_retries", s.num_alloc_retries)
        .num("num_ooms", s.num_ooms).num("requested_bytes", s.requested_bytes);
    return emit(j.done(), buf, cap);
  });
}

__attribute__((visibility("default"))) int russet_memory_snapshot_json(int index, char* buf, size_t cap) {
  return guarded([&] {
    rs_device* dev = device(index);
    size_t n = rs_memory_snapshot(dev, nullptr, 0);
    std::vector<rs_block_info> blocks(n + 64);
    n = std::min(rs_memory_snapshot(dev, blocks.data(), blocks.size()), blocks.size());
    std::string out = "[";
    for (size_t i = 0; i < n; i++) {
      Json j;
      j.num("address", blocks[i].address).num("size", blocks[i].size)
          .num("segment_address", blocks[i].segment_address).num("segment_size", blocks[i].segment_size)
          .num("allocated", blocks[i].allocated).num("stream_id", blocks[i].stream_id);
      out += (i ? "," : "") + j.done();
    }
    return emit(out + "]", buf, cap);
  });
}

__attribute__((visibility("default"))) int russet_reset_peak_memory_stats(int index) {
  return guarded([&] {
    rs_memory_reset_peaks(device(index));
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_set_memory_limit(int index, uint64_t bytes) {
  return guarded([&] {
    rs_set_memory_limit(device(index), bytes);
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_memory_limit(int index, uint64_t* bytes) {
  return guarded([&] {
    *bytes = rs_memory_limit(device(index));
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_empty_cache(int index) {
  return guarded([&] {
    check(rs_empty_cache(device(index)));
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_manual_seed(int index, uint64_t seed) {
  return guarded([&] {
    auto* g = generator_for(std::nullopt, static_cast<c10::DeviceIndex>(index));
    std::lock_guard<std::mutex> lock(g->mutex_);
    g->set_current_seed(seed);
    return 0;
  });
}

__attribute__((visibility("default"))) uint64_t russet_initial_seed(int index) {
  uint64_t out = 0;
  guarded([&] {
    out = generator_for(std::nullopt, static_cast<c10::DeviceIndex>(index))->current_seed();
    return 0;
  });
  return out;
}

__attribute__((visibility("default"))) uint64_t russet_seed(int index) {
  uint64_t out = 0;
  guarded([&] {
    auto* g = generator_for(std::nullopt, static_cast<c10::DeviceIndex>(index));
    std::lock_guard<std::mutex> lock(g->mutex_);
    out = g->seed();
    return 0;
  });
  return out;
}

__attribute__((visibility("default"))) int russet_get_rng_state(int index, uint8_t* out, size_t cap) {
  return guarded([&] {
    TORCH_CHECK(cap >= 16, "russet: RNG state needs 16 bytes");
    auto* g = generator_for(std::nullopt, static_cast<c10::DeviceIndex>(index));
    std::lock_guard<std::mutex> lock(g->mutex_);
    uint64_t seed = g->current_seed(), offset = g->get_offset();
    std::memcpy(out, &seed, 8);
    std::memcpy(out + 8, &offset, 8);
    return 16;
  });
}

__attribute__((visibility("default"))) int russet_set_rng_state(int index, const uint8_t* state, size_t size) {
  return guarded([&] {
    TORCH_CHECK(size == 16, "russet: RNG state must be 16 bytes, got ", size);
    auto* g = generator_for(std::nullopt, static_cast<c10::DeviceIndex>(index));
    std::lock_guard<std::mutex> lock(g->mutex_);
    uint64_t seed, offset;
    std::memcpy(&seed, state, 8);
    std::memcpy(&offset, state + 8, 8);
    g->set_current_seed(seed);
    g->set_offset(offset);
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_host_ops_json(char* buf, size_t cap) {
  return guarded([&] {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : host_op_counts()) {
      out += (first ? "" : ",") + quote(k.c_str()) + ":" + std::to_string(v);
      first = false;
    }
    return emit(out + "}", buf, cap);
  });
}

__attribute__((visibility("default"))) void russet_host_ops_reset(void) { reset_host_op_counts(); }

__attribute__((visibility("default"))) int russet_current_stream_id(int index) {
  return current_stream_id(static_cast<c10::DeviceIndex>(index));
}

__attribute__((visibility("default"))) int russet_set_stream(int index, int id) {
  return guarded([&] {
    set_current_stream_id(static_cast<c10::DeviceIndex>(index), id);
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_new_stream_id(int index) {
  return guarded([&] {
    device(index);  // validates
    return next_pool_stream_id();
  });
}

__attribute__((visibility("default"))) int russet_stream_synchronize(int index, int id) {
  return guarded([&] {
    check(rs_stream_synchronize(stream(index, id)));
    return 0;
  });
}

__attribute__((visibility("default"))) int russet_stream_query(int index, int id) {
  return guarded([&] {
    int r = rs_stream_query(stream(index, id));
    if (r < 0) throw_status(RS_ERR_VULKAN);
    return r;
  });
}

__attribute__((visibility("default"))) void russet_shutdown_caches(void) {
  for (int i = 0; i < device_count(); i++) {
    rs_device* dev = nullptr;
    if (rs_device_get(i, &dev) == RS_OK) rs_pipeline_cache_save(dev);
  }
}

}  // extern "C"
